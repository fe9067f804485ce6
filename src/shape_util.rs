//! XLA's `ShapeUtil`: construction, queries, comparisons, sizes, dimension
//! surgery, subshape traversal, the reshape/transpose/bitcast algorithms and
//! index iteration, one function per upstream function.
