//! XLA's `IndexUtil`: multidimensional index <-> linear index (tiles ignored,
//! as upstream).
