//! XLA's `ShapeUtil`: construction, queries, comparisons, sizes, dimension
//! surgery, subshape traversal, the reshape / transpose / bitcast
//! algorithms and index iteration, one function per upstream function
//! (`ShapeUtil::ElementsIn` is [`elements_in`]); `docs/xla-mapping.md`
//! lists them all.
//!
//! # Types
//!
//! Functions that XLA defines on arrays only (it `CHECK`s `IsArray()`) take
//! an [`ArrayShape`], so that "not an array" cannot happen; functions that
//! always produce an array return one (`Shape::from(a)` or `a.into()` makes
//! it a [`Shape`]). Functions that walk tuples take a [`Shape`]. XLA's
//! functions that fill in a `Shape*` take `&mut` here; those that return a
//! new shape return one.
//!
//! # Errors and panics
//!
//! - Where XLA offers a crashing form and a status form of the same
//!   operation (`MakeShape` / `MakeValidatedShape`, `GetSubshape` /
//!   `TryGetSubshape`, `MakeTupleShape` / `MakeValidatedTupleShape`), both
//!   are here: the first panics, the second returns `Result`.
//! - Where XLA returns a `Status`, we return a `Result`; where it returns a
//!   `std::optional`, an `Option`.
//! - Where XLA `CHECK`-fails, the failure is an [`Error`] when it depends
//!   on what a shape *is*: its kind (a tuple given where a tuple is needed,
//!   say), its element type, a missing layout, an index or linear index
//!   that does not fit it, sizes that overflow `i64`. It is a panic,
//!   documented under `# Panics`, only when it is about a number the caller
//!   supplies to address into a shape: a dimension number, a tuple element
//!   number, a permutation of the dimensions.
//! - A function that builds a shape checks the result as XLA's
//!   `ValidateShape` would and returns an [`Error`] where XLA would silently
//!   build a shape its own validation rejects (deleting a zero-sized
//!   dimension can make the others overflow, for instance). A [`Shape`]
//!   is always valid.
//!
//! XLA's quirks are kept (each is documented where it applies, and in
//! `docs/differences.md ("ShapeUtil, ...")` where we differ).
//!
//! ```
//! use xla_shape::{PrimitiveType as T, shape_util};
//! let a = shape_util::make_shape(T::F32, &[2, 3]);
//! assert_eq!(a.to_string(), "f32[2,3]{1,0}");
//! assert_eq!(shape_util::elements_in(&a)?, 6);
//! assert_eq!(shape_util::byte_size_of_elements(&a)?, 24);
//! let t = shape_util::make_tuple_shape(vec![a.clone().into(), shape_util::make_token_shape()]);
//! assert_eq!(shape_util::get_subshape(&t, &[0]).as_array(), Some(&a));
//! let p = shape_util::permute_dimensions(&[1, 0], &a)?;
//! assert_eq!(p.to_string(), "f32[3,2]{0,1}");
//! assert!(shape_util::transpose_is_bitcast(&a, &p, &[1, 0], false)?);
//! # Ok::<(), xla_shape::Error>(())
//! ```
//!
//! [`ArrayShape`]: crate::ArrayShape
//! [`Shape`]: crate::Shape
//! [`Error`]: crate::Error

mod bitcast;
mod comparisons;
mod construction;
mod iteration;
mod queries;
mod sizes;
mod subshapes;
mod surgery;
mod validation;

pub use bitcast::*;
pub use comparisons::*;
pub use construction::*;
pub use iteration::*;
pub use queries::*;
pub use sizes::*;
pub use subshapes::*;
pub use surgery::*;
pub use validation::*;
