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

mod bitcast;
mod iteration;
mod sizes;
mod subshapes;
mod surgery;

pub use bitcast::*;
pub use iteration::*;
pub use sizes::*;
pub use subshapes::*;
pub use surgery::*;

use crate::error::{Error, Result};
use crate::layout_util;
use crate::model::{ArrayShape, Layout, PrimitiveType, ProgramShape, Shape, ShapeEqual};
use crate::primitive_util::{self, NativeType};

/// Unwraps the result of a constructor whose XLA counterpart crashes on
/// error.
#[track_caller]
fn or_panic<T>(r: Result<T>) -> T {
    match r {
        Ok(v) => v,
        Err(e) => panic!("{e}"),
    }
}

// ---------------------------------------------------------------------------
// Construction

/// XLA's `ShapeUtil::MakeShape(t, dims)`: an array with the default
/// (descending) layout; a dimension equal to
/// [`ArrayShape::UNBOUNDED_SIZE`] is unbounded dynamic.
///
/// # Panics
///
/// Where [`make_validated_shape`] returns an error (XLA crashes).
#[doc(alias = "ShapeUtil::MakeShape")]
#[track_caller]
pub fn make_shape(element_type: PrimitiveType, dimensions: &[i64]) -> ArrayShape {
    or_panic(make_validated_shape(element_type, dimensions))
}

/// XLA's `ShapeUtil::MakeShape(t, dims, dynamic_dimensions)`.
///
/// # Panics
///
/// Where [`make_validated_shape_with_dynamic_dimensions`] returns an error.
#[doc(alias = "ShapeUtil::MakeShape")]
#[track_caller]
pub fn make_shape_with_dynamic_dimensions(
    element_type: PrimitiveType,
    dimensions: &[i64],
    dynamic_dimensions: &[bool],
) -> ArrayShape {
    or_panic(make_validated_shape_with_dynamic_dimensions(
        element_type,
        dimensions,
        dynamic_dimensions,
    ))
}

/// XLA's `ShapeUtil::MakeValidatedShape(t, dims)` ([`ArrayShape::new`]).
///
/// # Errors
///
/// XLA's: `Unsupported element type: TOKEN`, `Invalid dimension size -1,
/// is_dynamic=false`, `overflow in static extent product: dimes=[...]`.
#[doc(alias = "ShapeUtil::MakeValidatedShape")]
pub fn make_validated_shape(element_type: PrimitiveType, dimensions: &[i64]) -> Result<ArrayShape> {
    ArrayShape::new(element_type, dimensions)
}

/// XLA's `ShapeUtil::MakeValidatedShape(t, dims, dynamic_dimensions)`
/// ([`ArrayShape::with_dynamic_dimensions`]).
///
/// # Errors
///
/// As [`make_validated_shape`], and `dynamic dimensions size 1 did not
/// match number of dimensions 2`.
#[doc(alias = "ShapeUtil::MakeValidatedShape")]
pub fn make_validated_shape_with_dynamic_dimensions(
    element_type: PrimitiveType,
    dimensions: &[i64],
    dynamic_dimensions: &[bool],
) -> Result<ArrayShape> {
    ArrayShape::with_dynamic_dimensions(element_type, dimensions, dynamic_dimensions)
}

/// XLA's `ShapeUtil::MakeScalarShape`: a rank-0 array with layout `{}`.
///
/// # Panics
///
/// If `element_type` is not an array type.
#[doc(alias = "ShapeUtil::MakeScalarShape")]
#[track_caller]
pub fn make_scalar_shape(element_type: PrimitiveType) -> ArrayShape {
    or_panic(make_validated_scalar_shape(element_type))
}

/// XLA's `ShapeUtil::MakeValidatedScalarShape`.
///
/// # Errors
///
/// `element_type` is not an array type.
#[doc(alias = "ShapeUtil::MakeValidatedScalarShape")]
pub fn make_validated_scalar_shape(element_type: PrimitiveType) -> Result<ArrayShape> {
    ArrayShape::new(element_type, [])
}

/// XLA's `ShapeUtil::MakeShapeWithType<T>`: [`make_shape`] with the element
/// type of a Rust type (`make_shape_with_type::<f32>(&[2])`).
///
/// # Panics
///
/// As [`make_shape`].
#[doc(alias = "ShapeUtil::MakeShapeWithType")]
#[track_caller]
pub fn make_shape_with_type<T: NativeType>(dimensions: &[i64]) -> ArrayShape {
    make_shape(T::PRIMITIVE_TYPE, dimensions)
}

/// XLA's `ShapeUtil::MakeValidatedShapeWithType<T>`.
///
/// # Errors
///
/// As [`make_validated_shape`].
#[doc(alias = "ShapeUtil::MakeValidatedShapeWithType")]
pub fn make_validated_shape_with_type<T: NativeType>(dimensions: &[i64]) -> Result<ArrayShape> {
    make_validated_shape(T::PRIMITIVE_TYPE, dimensions)
}

/// XLA's `ShapeUtil::MakeValidatedBufferShape(t, dims)`: a buffer holding
/// [`make_validated_shape`]`(t, dims)` (so with the default layout).
///
/// # Errors
///
/// As [`make_validated_shape`].
#[doc(alias = "ShapeUtil::MakeValidatedBufferShape")]
pub fn make_validated_buffer_shape(
    element_type: PrimitiveType,
    dimensions: &[i64],
) -> Result<Shape> {
    Ok(Shape::Buffer(Box::new(Shape::Array(make_validated_shape(
        element_type,
        dimensions,
    )?))))
}

/// XLA's `ShapeUtil::MakeValidatedBufferShape(element_shape)`: a buffer
/// holding `element_shape`.
///
/// # Errors
///
/// `element_shape` is not an array (XLA's `TF_RET_CHECK`).
#[doc(alias = "ShapeUtil::MakeValidatedBufferShape")]
pub fn make_validated_buffer_shape_from_shape(element_shape: Shape) -> Result<Shape> {
    if !element_shape.is_array() {
        return Err(Error::invalid_argument(format!(
            "a buffer shape must hold an array shape, got {element_shape}"
        )));
    }
    Ok(Shape::Buffer(Box::new(element_shape)))
}

/// XLA's `ShapeUtil::MakeShapeWithDenseLayout(t, dims, minor_to_major)`.
///
/// # Panics
///
/// Where [`make_validated_shape_with_dense_layout`] returns an error.
#[doc(alias = "ShapeUtil::MakeShapeWithDenseLayout")]
#[track_caller]
pub fn make_shape_with_dense_layout(
    element_type: PrimitiveType,
    dimensions: &[i64],
    minor_to_major: &[i64],
) -> ArrayShape {
    or_panic(make_validated_shape_with_dense_layout(
        element_type,
        dimensions,
        minor_to_major,
    ))
}

/// XLA's `ShapeUtil::MakeValidatedShapeWithDenseLayout(t, dims,
/// minor_to_major)`: an array with exactly this `minor_to_major` and no
/// other layout attribute.
///
/// ```
/// use xla_shape::{PrimitiveType as T, shape_util};
/// let s = shape_util::make_validated_shape_with_dense_layout(T::F32, &[2, 3], &[0, 1])?;
/// assert_eq!(s.to_string(), "f32[2,3]{0,1}");
/// let e = shape_util::make_validated_shape_with_dense_layout(T::F32, &[2, 3], &[0]);
/// assert_eq!(e.unwrap_err().to_string(), "Dimensions size is 2, but layout size is 1.");
/// # Ok::<(), xla_shape::Error>(())
/// ```
///
/// # Errors
///
/// `Dimensions size is 2, but layout size is 1.`, `Unsupported element
/// type: TOKEN`, the errors of [`make_validated_shape`] and of layout
/// validation.
#[doc(alias = "ShapeUtil::MakeValidatedShapeWithDenseLayout")]
pub fn make_validated_shape_with_dense_layout(
    element_type: PrimitiveType,
    dimensions: &[i64],
    minor_to_major: &[i64],
) -> Result<ArrayShape> {
    make_validated_shape_with_dense_layout_from_layout(
        element_type,
        dimensions,
        Layout::new(minor_to_major),
    )
}

/// XLA's `ShapeUtil::MakeShapeWithDenseLayout` with all its parameters:
/// `minor_to_major`, tiles, tail padding, element size, memory space and
/// split configs are those of `layout`.
///
/// # Panics
///
/// Where [`make_validated_shape_with_dense_layout_from_layout`] returns an
/// error.
#[doc(alias = "ShapeUtil::MakeShapeWithDenseLayout")]
#[track_caller]
pub fn make_shape_with_dense_layout_from_layout(
    element_type: PrimitiveType,
    dimensions: &[i64],
    layout: Layout,
) -> ArrayShape {
    or_panic(make_validated_shape_with_dense_layout_from_layout(
        element_type,
        dimensions,
        layout,
    ))
}

/// XLA's `ShapeUtil::MakeValidatedShapeWithDenseLayout` with all its
/// parameters, taken from `layout` (`minor_to_major`, tiles, tail padding,
/// element size, memory space, split configs; attributes XLA's function
/// cannot set are rejected by validation as they would be on any array).
/// As upstream, an element size equal to the type's natural size
/// (`E(32)` on `f32`) is normalised to 0.
///
/// ```
/// use xla_shape::{Layout, PrimitiveType as T, Tile, shape_util};
/// let l = Layout::new([1, 0]).with_tiles(vec![Tile::new([2, 128])?]).with_element_size_in_bits(4);
/// let s = shape_util::make_validated_shape_with_dense_layout_from_layout(T::S4, &[123, 456], l)?;
/// assert_eq!(s.to_string(), "s4[123,456]{1,0:T(2,128)E(4)}");
/// # Ok::<(), xla_shape::Error>(())
/// ```
///
/// # Errors
///
/// As [`make_validated_shape_with_dense_layout`].
#[doc(alias = "ShapeUtil::MakeValidatedShapeWithDenseLayout")]
pub fn make_validated_shape_with_dense_layout_from_layout(
    element_type: PrimitiveType,
    dimensions: &[i64],
    mut layout: Layout,
) -> Result<ArrayShape> {
    if dimensions.len() != layout.minor_to_major().len() {
        return Err(Error::invalid_argument(format!(
            "Dimensions size is {}, but layout size is {}.",
            dimensions.len(),
            layout.minor_to_major().len()
        )));
    }
    if matches!(
        element_type,
        PrimitiveType::OpaqueType | PrimitiveType::Tuple | PrimitiveType::Token
    ) {
        return Err(Error::invalid_argument(format!(
            "Unsupported element type: {}",
            element_type.as_str_name()
        )));
    }
    let shape = make_validated_shape(element_type, dimensions)?;
    if Some(layout.element_size_in_bits()) == element_type.byte_width().map(|b| b * 8) {
        layout.element_size_in_bits = 0;
    }
    shape.with_layout(Some(layout))
}

/// XLA's `ShapeUtil::MakeValidatedShapeWithSparseLayout(t, dims,
/// minor_to_major)`: since sparse layouts were removed upstream, the same
/// as [`make_validated_shape_with_dense_layout`].
///
/// # Errors
///
/// As [`make_validated_shape_with_dense_layout`].
#[doc(alias = "ShapeUtil::MakeValidatedShapeWithSparseLayout")]
pub fn make_validated_shape_with_sparse_layout(
    element_type: PrimitiveType,
    dimensions: &[i64],
    minor_to_major: &[i64],
) -> Result<ArrayShape> {
    make_validated_shape_with_dense_layout(element_type, dimensions, minor_to_major)
}

/// XLA's `ShapeUtil::MakeShapeWithDescendingLayout`: the default layout
/// `{n-1,...,0}`.
///
/// # Panics
///
/// Where [`make_validated_shape_with_descending_layout`] returns an error.
#[doc(alias = "ShapeUtil::MakeShapeWithDescendingLayout")]
#[track_caller]
pub fn make_shape_with_descending_layout(
    element_type: PrimitiveType,
    dimensions: &[i64],
) -> ArrayShape {
    or_panic(make_validated_shape_with_descending_layout(
        element_type,
        dimensions,
    ))
}

/// XLA's `ShapeUtil::MakeValidatedShapeWithDescendingLayout`.
///
/// # Errors
///
/// As [`make_validated_shape_with_dense_layout`].
#[doc(alias = "ShapeUtil::MakeValidatedShapeWithDescendingLayout")]
pub fn make_validated_shape_with_descending_layout(
    element_type: PrimitiveType,
    dimensions: &[i64],
) -> Result<ArrayShape> {
    let mtm: Vec<i64> = (0..dimensions.len() as i64).rev().collect();
    make_validated_shape_with_dense_layout(element_type, dimensions, &mtm)
}

/// XLA's `ShapeUtil::MakeShapeWithDescendingLayoutAndSamePhysicalLayout`.
///
/// # Panics
///
/// Where the validated form returns an error.
#[doc(alias = "ShapeUtil::MakeShapeWithDescendingLayoutAndSamePhysicalLayout")]
#[track_caller]
pub fn make_shape_with_descending_layout_and_same_physical_layout(
    shape: &ArrayShape,
) -> ArrayShape {
    or_panic(make_validated_shape_with_descending_layout_and_same_physical_layout(shape))
}

/// XLA's `ShapeUtil::MakeValidatedShapeWithDescendingLayoutAndSamePhysicalLayout`:
/// the dimensions reordered from most major to most minor, with the
/// descending layout, so that the elements sit where they sat; tiles,
/// element size, tail padding, memory space and dynamic flags follow.
///
/// ```
/// use xla_shape::{PrimitiveType as T, shape_util};
/// // spec 12.4 U77
/// let s = shape_util::make_shape_with_dense_layout(T::F32, &[128, 24, 4, 48, 48], &[2, 4, 3, 1, 0]);
/// let d = shape_util::make_validated_shape_with_descending_layout_and_same_physical_layout(&s)?;
/// assert_eq!(d.to_string(), "f32[128,24,48,48,4]{4,3,2,1,0}");
/// # Ok::<(), xla_shape::Error>(())
/// ```
///
/// An array without a layout is read with the default layout (XLA reads
/// its absent layout's memory space).
///
/// # Errors
///
/// The result fails validation (not possible for a valid shape unless it
/// has an unbounded dimension marked static).
#[doc(alias = "ShapeUtil::MakeValidatedShapeWithDescendingLayoutAndSamePhysicalLayout")]
pub fn make_validated_shape_with_descending_layout_and_same_physical_layout(
    shape: &ArrayShape,
) -> Result<ArrayShape> {
    let rank = shape.rank();
    let major_order: Vec<usize> = match shape.layout() {
        Some(l) => (0..rank)
            .map(|p| layout_util::major(l, p) as usize)
            .collect(),
        None => (0..rank).collect(),
    };
    let dims: Vec<i64> = major_order.iter().map(|&d| shape.dimensions()[d]).collect();
    let dynamic: Vec<bool> = major_order
        .iter()
        .map(|&d| shape.dynamic_dimensions()[d])
        .collect();
    let mut layout = layout_util::make_descending_layout(rank);
    if let Some(old) = shape.layout() {
        layout.tiles = old.tiles.clone();
        layout.element_size_in_bits = old.element_size_in_bits;
        layout.tail_padding_alignment_in_elements = old.tail_padding_alignment_in_elements;
        layout.memory_space = old.memory_space;
    }
    ArrayShape::from_parts(shape.element_type(), dims, dynamic, Some(layout))
}

/// XLA's `ShapeUtil::MakeShapeWithStaticDimensions`: every dynamic flag
/// cleared, as `Shape::clear_dynamic_dimensions` does (tuples recurse). As
/// upstream, an unbounded dimension keeps its size
/// ([`ArrayShape::UNBOUNDED_SIZE`]) and becomes static, and an array that
/// was dynamic gets `M(0)` on its layout.
#[doc(alias = "ShapeUtil::MakeShapeWithStaticDimensions")]
pub fn make_shape_with_static_dimensions(shape: &Shape) -> Shape {
    let mut s = shape.clone();
    clear_dynamic_dimensions(&mut s);
    s
}

/// `Shape::clear_dynamic_dimensions`. Clearing flags keeps a shape valid:
/// validation skips unbounded sizes whatever their flag.
fn clear_dynamic_dimensions(shape: &mut Shape) {
    match shape {
        Shape::Array(a) if !a.is_static() => {
            a.dynamic.iter_mut().for_each(|d| *d = false);
            // XLA creates an empty layout when there is none, which is
            // invalid for rank >= 1 (a dynamic array has rank >= 1): we
            // only reset an existing layout's prefix.
            if let Some(l) = a.layout.as_mut() {
                l.dynamic_shape_metadata_prefix_bytes = 0;
            }
        }
        Shape::Tuple(elements) => elements.iter_mut().for_each(clear_dynamic_dimensions),
        _ => {}
    }
}

/// XLA's `ShapeUtil::MakeStaticShape`: [`make_shape_with_static_dimensions`],
/// and the top-level array's layout gets `M(0)`.
#[doc(alias = "ShapeUtil::MakeStaticShape")]
pub fn make_static_shape(shape: &Shape) -> Shape {
    let mut s = make_shape_with_static_dimensions(shape);
    if let Shape::Array(a) = &mut s {
        if let Some(l) = a.layout.as_mut() {
            l.dynamic_shape_metadata_prefix_bytes = 0;
        }
    }
    s
}

/// XLA's `ShapeUtil::MakeTupleShape`. A tuple of valid shapes is valid, so
/// this cannot fail.
#[doc(alias = "ShapeUtil::MakeTupleShape")]
pub fn make_tuple_shape(shapes: Vec<Shape>) -> Shape {
    Shape::Tuple(shapes)
}

/// XLA's `ShapeUtil::MakeTupleShapeWithPtrs`: a tuple of copies.
#[doc(alias = "ShapeUtil::MakeTupleShapeWithPtrs")]
pub fn make_tuple_shape_with_ptrs(shapes: &[&Shape]) -> Shape {
    Shape::Tuple(shapes.iter().map(|&s| s.clone()).collect())
}

/// XLA's `ShapeUtil::MakeValidatedTupleShape`: the tuple, checked with
/// [`validate_shape_with_optional_layout`].
///
/// # Errors
///
/// Validation fails (which a tuple of [`Shape`]s never does).
#[doc(alias = "ShapeUtil::MakeValidatedTupleShape")]
pub fn make_validated_tuple_shape(shapes: Vec<Shape>) -> Result<Shape> {
    let t = Shape::Tuple(shapes);
    validate_shape_with_optional_layout(&t)?;
    Ok(t)
}

/// XLA's `ShapeUtil::MakeValidatedTupleShapeWithPtrs`.
///
/// # Errors
///
/// As [`make_validated_tuple_shape`].
#[doc(alias = "ShapeUtil::MakeValidatedTupleShapeWithPtrs")]
pub fn make_validated_tuple_shape_with_ptrs(shapes: &[&Shape]) -> Result<Shape> {
    make_validated_tuple_shape(shapes.iter().map(|&s| s.clone()).collect())
}

/// XLA's `ShapeUtil::MakeMaybeTupleShape`: the shape itself when there is
/// exactly one, else a tuple.
#[doc(alias = "ShapeUtil::MakeMaybeTupleShape")]
pub fn make_maybe_tuple_shape(mut shapes: Vec<Shape>) -> Shape {
    if shapes.len() == 1 {
        shapes.remove(0)
    } else {
        Shape::Tuple(shapes)
    }
}

/// XLA's `ShapeUtil::MakeValidatedMaybeTupleShape`.
///
/// # Errors
///
/// As [`make_validated_tuple_shape`].
#[doc(alias = "ShapeUtil::MakeValidatedMaybeTupleShape")]
pub fn make_validated_maybe_tuple_shape(shapes: Vec<Shape>) -> Result<Shape> {
    let s = make_maybe_tuple_shape(shapes);
    validate_shape_with_optional_layout(&s)?;
    Ok(s)
}

/// XLA's `ShapeUtil::MakeNil`: the empty tuple `()`.
#[doc(alias = "ShapeUtil::MakeNil")]
pub fn make_nil() -> Shape {
    Shape::Tuple(Vec::new())
}

/// XLA's `ShapeUtil::MakeOpaqueShape`: `opaque[]`.
#[doc(alias = "ShapeUtil::MakeOpaqueShape")]
pub fn make_opaque_shape() -> Shape {
    Shape::Opaque
}

/// XLA's `ShapeUtil::MakeTokenShape`: `token[]`.
#[doc(alias = "ShapeUtil::MakeTokenShape")]
pub fn make_token_shape() -> Shape {
    Shape::Token
}

/// XLA's `ShapeUtil::MakeProgramShape`: parameters with empty names.
#[doc(alias = "ShapeUtil::MakeProgramShape")]
pub fn make_program_shape(parameters: Vec<Shape>, result: Shape) -> ProgramShape {
    ProgramShape::new(
        parameters.into_iter().map(|p| (String::new(), p)).collect(),
        result,
    )
}

/// XLA's `ShapeUtil::PopulateShape`: replaces `*shape` with a shape of
/// `element_type` and `dimensions` (arrays get the default layout; a token,
/// an opaque value or a tuple takes no dimensions), then validates it.
///
/// On error `*shape` is left unchanged (XLA leaves the half-built shape).
///
/// # Errors
///
/// `Shape Error: Invalid element type.` for `Invalid` and `Buffer` (whose
/// contents would be invalid), dimensions given to a non-array type, and
/// the errors of [`make_validated_shape`].
#[doc(alias = "ShapeUtil::PopulateShape")]
pub fn populate_shape(
    element_type: PrimitiveType,
    dimensions: &[i64],
    shape: &mut Shape,
) -> Result<()> {
    let new = match element_type {
        PrimitiveType::Token | PrimitiveType::OpaqueType | PrimitiveType::Tuple
            if !dimensions.is_empty() =>
        {
            return Err(Error::invalid_argument(format!(
                "Non-array shape {}[] cannot have dimensions.",
                element_type.lowercase_name()
            )));
        }
        PrimitiveType::Token => Shape::Token,
        PrimitiveType::OpaqueType => Shape::Opaque,
        PrimitiveType::Tuple => Shape::Tuple(Vec::new()),
        PrimitiveType::Invalid | PrimitiveType::Buffer => {
            return Err(crate::model::validate::shape_error(
                "Invalid element type.",
                PrimitiveType::Invalid,
                "primitive_type_invalid[]",
            ));
        }
        t => Shape::Array(make_validated_shape(t, dimensions)?),
    };
    *shape = new;
    Ok(())
}

// ---------------------------------------------------------------------------
// Queries

/// XLA's `ShapeUtil::HasPrimitiveType`: the shape's element type is `t`
/// (a tuple's is `Tuple`), or some tuple element's is, recursively.
#[doc(alias = "ShapeUtil::HasPrimitiveType")]
pub fn has_primitive_type(shape: &Shape, t: PrimitiveType) -> bool {
    shape.element_type() == t
        || shape
            .tuple_shapes()
            .is_some_and(|e| e.iter().any(|s| has_primitive_type(s, t)))
}

/// XLA's `ShapeUtil::IsZeroElementArray`: an array with a dimension of
/// size 0.
#[doc(alias = "ShapeUtil::IsZeroElementArray")]
pub fn is_zero_element_array(shape: &Shape) -> bool {
    shape
        .as_array()
        .is_some_and(|a| a.dimensions().contains(&0))
}

/// XLA's `ShapeUtil::IsScalar`: an array of rank 0.
#[doc(alias = "ShapeUtil::IsScalar")]
pub fn is_scalar(shape: &Shape) -> bool {
    shape.as_array().is_some_and(|a| a.rank() == 0)
}

/// XLA's `ShapeUtil::IsEffectiveScalar`: an array whose dimensions are all
/// 1.
#[doc(alias = "ShapeUtil::IsEffectiveScalar")]
pub fn is_effective_scalar(shape: &Shape) -> bool {
    shape
        .as_array()
        .is_some_and(|a| true_num_dimensions(a) == 0)
}

/// XLA's `ShapeUtil::IsScalarWithElementType`.
#[doc(alias = "ShapeUtil::IsScalarWithElementType")]
pub fn is_scalar_with_element_type(shape: &Shape, t: PrimitiveType) -> bool {
    is_scalar(shape) && shape.element_type() == t
}

/// XLA's `ShapeUtil::TrueNumDimensions`: the number of dimensions whose
/// size is not 1 (zero-sized ones count).
#[doc(alias = "ShapeUtil::TrueNumDimensions")]
pub fn true_num_dimensions(shape: &ArrayShape) -> i64 {
    shape.dimensions().iter().filter(|&&d| d != 1).count() as i64
}

/// XLA's `ShapeUtil::IsNestedTuple`: a tuple with a tuple element.
#[doc(alias = "ShapeUtil::IsNestedTuple")]
pub fn is_nested_tuple(shape: &Shape) -> bool {
    shape
        .tuple_shapes()
        .is_some_and(|e| e.iter().any(Shape::is_tuple))
}

/// XLA's `ShapeUtil::IsEmptyTuple`: `()`.
#[doc(alias = "ShapeUtil::IsEmptyTuple")]
pub fn is_empty_tuple(shape: &Shape) -> bool {
    shape.tuple_shapes().is_some_and(<[Shape]>::is_empty)
}

fn not_a_tuple(shape: &Shape) -> Error {
    Error::invalid_argument(format!("expected a tuple shape, got {shape}"))
}

/// XLA's `ShapeUtil::TupleElementCount`.
///
/// # Errors
///
/// `shape` is not a tuple (XLA `CHECK`-fails).
#[doc(alias = "ShapeUtil::TupleElementCount")]
pub fn tuple_element_count(shape: &Shape) -> Result<i64> {
    shape
        .tuple_shapes()
        .map(|e| e.len() as i64)
        .ok_or_else(|| not_a_tuple(shape))
}

/// XLA's `ShapeUtil::GetTupleElementShape`: element `index` of a tuple.
///
/// # Errors
///
/// `shape` is not a tuple.
///
/// # Panics
///
/// If `index` is not less than the element count (XLA `CHECK`-fails).
#[doc(alias = "ShapeUtil::GetTupleElementShape")]
pub fn get_tuple_element_shape(shape: &Shape, index: usize) -> Result<&Shape> {
    let elements = shape.tuple_shapes().ok_or_else(|| not_a_tuple(shape))?;
    assert!(
        index < elements.len(),
        "tuple element {index} is out of range for {shape}"
    );
    Ok(&elements[index])
}

/// XLA's `ShapeUtil::SliceTuple`: the tuple of elements `start..limit`.
///
/// # Errors
///
/// `tuple` is not a tuple.
///
/// # Panics
///
/// If `start > limit` or `limit` is past the element count.
#[doc(alias = "ShapeUtil::SliceTuple")]
pub fn slice_tuple(tuple: &Shape, start: usize, limit: usize) -> Result<Shape> {
    let elements = tuple.tuple_shapes().ok_or_else(|| not_a_tuple(tuple))?;
    Ok(Shape::Tuple(elements[start..limit].to_vec()))
}

/// XLA's `ShapeUtil::GetDimensionNumber`: `dimension_number`, counted from
/// the end when negative (-1 is the last dimension).
///
/// # Panics
///
/// If the result is negative (XLA's `CHECK`: `dimension_number >= 0`).
#[doc(alias = "ShapeUtil::GetDimensionNumber")]
#[track_caller]
pub fn get_dimension_number(shape: &ArrayShape, dimension_number: i64) -> i64 {
    let d = if dimension_number < 0 {
        dimension_number + shape.rank() as i64
    } else {
        dimension_number
    };
    assert!(
        d >= 0,
        "Check failed: dimension_number >= 0 ({d} vs. 0) for shape {shape}"
    );
    d
}

/// XLA's `ShapeUtil::GetDimension`: the size of dimension
/// [`get_dimension_number`]`(dimension_number)`.
///
/// # Panics
///
/// If the dimension number is out of range.
#[doc(alias = "ShapeUtil::GetDimension")]
#[track_caller]
pub fn get_dimension(shape: &ArrayShape, dimension_number: i64) -> i64 {
    shape.dimensions()[get_dimension_number(shape, dimension_number) as usize]
}

/// XLA's `ShapeUtil::CreateDimensionVectorFromShape`: the dimensions (none
/// for a non-array).
#[doc(alias = "ShapeUtil::CreateDimensionVectorFromShape")]
pub fn create_dimension_vector_from_shape(shape: &Shape) -> Vec<i64> {
    shape.dimensions().to_vec()
}

/// XLA's `ShapeUtil::ElementIsIntegral`.
#[doc(alias = "ShapeUtil::ElementIsIntegral")]
pub fn element_is_integral(shape: &Shape) -> bool {
    shape.element_type().is_integral()
}

/// XLA's `ShapeUtil::ElementIsFloating`.
#[doc(alias = "ShapeUtil::ElementIsFloating")]
pub fn element_is_floating(shape: &Shape) -> bool {
    shape.element_type().is_floating_point()
}

/// XLA's `ShapeUtil::ElementIsComplex`.
#[doc(alias = "ShapeUtil::ElementIsComplex")]
pub fn element_is_complex(shape: &Shape) -> bool {
    shape.element_type().is_complex()
}

/// XLA's `ShapeUtil::ElementIsSigned`: signed integers and floating types
/// (not complex).
#[doc(alias = "ShapeUtil::ElementIsSigned")]
pub fn element_is_signed(shape: &Shape) -> bool {
    let t = shape.element_type();
    t.is_signed_integral() || t.is_floating_point()
}

/// XLA's `ShapeUtil::ElementHasBitWidth`: an array whose element type has
/// `bits` bits.
#[doc(alias = "ShapeUtil::ElementHasBitWidth")]
pub fn element_has_bit_width(shape: &Shape, bits: u32) -> bool {
    shape.is_array() && shape.element_type().bit_width() == Some(bits)
}

/// XLA's `ShapeUtil::ElementIsIntegralWithBits`.
#[doc(alias = "ShapeUtil::ElementIsIntegralWithBits")]
pub fn element_is_integral_with_bits(shape: &Shape, bits: u32) -> bool {
    element_is_integral(shape) && element_has_bit_width(shape, bits)
}

/// XLA's `ShapeUtil::HigherPrecisionElementType`
/// ([`primitive_util::higher_precision_type`] of the element types).
#[doc(alias = "ShapeUtil::HigherPrecisionElementType")]
pub fn higher_precision_element_type(a: &Shape, b: &Shape) -> Option<PrimitiveType> {
    primitive_util::higher_precision_type(a.element_type(), b.element_type())
}

/// XLA's `ShapeUtil::ElementCanUpcast`: `to`'s element type is the higher
/// precision one. False where XLA aborts (see
/// [`primitive_util::higher_precision_type`]).
#[doc(alias = "ShapeUtil::ElementCanUpcast")]
pub fn element_can_upcast(from: &Shape, to: &Shape) -> bool {
    higher_precision_element_type(from, to) == Some(to.element_type())
}

/// XLA's `ShapeUtil::SameElementType`.
#[doc(alias = "ShapeUtil::SameElementType")]
pub fn same_element_type(a: &Shape, b: &Shape) -> bool {
    a.element_type() == b.element_type()
}

/// XLA's `ShapeUtil::SameElementTypeIgnoringFpPrecision`: both floating,
/// or the same type.
#[doc(alias = "ShapeUtil::SameElementTypeIgnoringFpPrecision")]
pub fn same_element_type_ignoring_fp_precision(a: &Shape, b: &Shape) -> bool {
    (element_is_floating(a) && element_is_floating(b)) || same_element_type(a, b)
}

/// XLA's `ShapeUtil::SameRank`.
#[doc(alias = "ShapeUtil::SameRank")]
pub fn same_rank(a: &ArrayShape, b: &ArrayShape) -> bool {
    a.rank() == b.rank()
}

/// XLA's `ShapeUtil::SameDimensions`: same rank and sizes, a dimension
/// unbounded on either side matching any size.
#[doc(alias = "ShapeUtil::SameDimensions")]
pub fn same_dimensions(a: &ArrayShape, b: &ArrayShape) -> bool {
    same_rank(a, b)
        && a.dimensions().iter().zip(b.dimensions()).all(|(&x, &y)| {
            x == ArrayShape::UNBOUNDED_SIZE || y == ArrayShape::UNBOUNDED_SIZE || x == y
        })
}

/// XLA's `ShapeUtil::HasDegenerateDimensions`: a dimension of size 1.
#[doc(alias = "ShapeUtil::HasDegenerateDimensions")]
pub fn has_degenerate_dimensions(shape: &ArrayShape) -> bool {
    shape.dimensions().contains(&1)
}

/// XLA's `ShapeUtil::IsEffectivelyMostMajorDimension`: walking the
/// physical dimensions from the most major, `dimension` is reached before
/// any dimension of size other than 1.
///
/// # Errors
///
/// The array has no layout.
#[doc(alias = "ShapeUtil::IsEffectivelyMostMajorDimension")]
pub fn is_effectively_most_major_dimension(shape: &ArrayShape, dimension: i64) -> Result<bool> {
    let layout = layout_util::require_layout(shape)?;
    for &d in layout.minor_to_major().iter().rev() {
        if d == dimension {
            return Ok(true);
        }
        if shape.dimensions()[d as usize] != 1 {
            return Ok(false);
        }
    }
    Ok(false)
}

/// XLA's `ShapeUtil::PackedFactorFor1DInterleavedArray`: for a rank-1
/// array with exactly three tiles, the third of which has two bounds, that
/// tile's first bound (`bf16[1024]{0:T(1024)(128)(2,1)}` -> 2).
///
/// # Errors
///
/// `Shape <s> is not a 1D interleaved array.` otherwise (also for a rank-1
/// array without a layout, where XLA aborts).
#[doc(alias = "ShapeUtil::PackedFactorFor1DInterleavedArray")]
pub fn packed_factor_for_1d_interleaved_array(shape: &ArrayShape) -> Result<i64> {
    if let (1, Some(l)) = (shape.rank(), shape.layout()) {
        if let [_, _, t] = l.tiles() {
            if let [f, _] = t.dimensions() {
                return Ok(*f);
            }
        }
    }
    Err(Error::invalid_argument(format!(
        "Shape {shape} is not a 1D interleaved array."
    )))
}

/// XLA's `ShapeUtil::DynamicArrayShapeIsCompatible`: same rank, and no
/// dimension of `dynamic_shape` larger than `bounded_shape`'s.
#[doc(alias = "ShapeUtil::DynamicArrayShapeIsCompatible")]
pub fn dynamic_array_shape_is_compatible(
    dynamic_shape: &ArrayShape,
    bounded_shape: &ArrayShape,
) -> bool {
    same_rank(dynamic_shape, bounded_shape)
        && dynamic_shape
            .dimensions()
            .iter()
            .zip(bounded_shape.dimensions())
            .all(|(a, b)| a <= b)
}

/// XLA's `ShapeUtil::DynamicShapeIsCompatible`: every subshape of
/// `dynamic_shape` exists in `bounded_shape` with the same tuple-ness, and
/// every dynamic array fits its counterpart
/// ([`dynamic_array_shape_is_compatible`]).
#[doc(alias = "ShapeUtil::DynamicShapeIsCompatible")]
pub fn dynamic_shape_is_compatible(dynamic_shape: &Shape, bounded_shape: &Shape) -> bool {
    let mut compatible = true;
    for_each_subshape(dynamic_shape, |sub, index| {
        if !compatible {
            return;
        }
        compatible = match try_get_subshape(bounded_shape, index) {
            Err(_) => false,
            Ok(bounded) => match (sub, bounded) {
                (Shape::Tuple(_), b) => b.is_tuple(),
                (_, Shape::Tuple(_)) => false,
                (Shape::Array(d), Shape::Array(b)) => {
                    d.is_static() || dynamic_array_shape_is_compatible(d, b)
                }
                // XLA compares ranks here; only arrays have any.
                (Shape::Array(d), _) => d.is_static() || d.rank() == 0,
                _ => true,
            },
        };
    });
    compatible
}

// ---------------------------------------------------------------------------
// Comparisons

/// XLA's `ShapeUtil::Equal`: `lhs == rhs`.
#[doc(alias = "ShapeUtil::Equal")]
pub fn equal(lhs: &Shape, rhs: &Shape) -> bool {
    lhs == rhs
}

/// XLA's `ShapeUtil::EqualIgnoringElementType`.
#[doc(alias = "ShapeUtil::EqualIgnoringElementType")]
pub fn equal_ignoring_element_type(lhs: &Shape, rhs: &Shape) -> bool {
    lhs.equal_with(rhs, &ShapeEqual::default().ignore_element_type())
}

/// XLA's `ShapeUtil::EqualIgnoringFpPrecision`: any two floating types
/// match.
#[doc(alias = "ShapeUtil::EqualIgnoringFpPrecision")]
pub fn equal_ignoring_fp_precision(lhs: &Shape, rhs: &Shape) -> bool {
    lhs.equal_with(rhs, &ShapeEqual::default().ignore_fp_precision())
}

/// XLA's `ShapeUtil::EqualStructure`: the same tuple tree (every subshape
/// index of each is one of the other).
#[doc(alias = "ShapeUtil::EqualStructure")]
pub fn equal_structure(lhs: &Shape, rhs: &Shape) -> bool {
    let mut equal = true;
    for_each_subshape(lhs, |_, index| equal = equal && index_is_valid(rhs, index));
    for_each_subshape(rhs, |_, index| equal = equal && index_is_valid(lhs, index));
    equal
}

/// XLA's `ShapeUtil::Compatible`: equal ignoring layouts and dynamic
/// flags (an unbounded dimension matches any size).
#[doc(alias = "ShapeUtil::Compatible")]
pub fn compatible(lhs: &Shape, rhs: &Shape) -> bool {
    lhs.equal_with(
        rhs,
        &ShapeEqual::default()
            .ignore_dynamic_dimension()
            .ignore_layout(),
    )
}

/// XLA's `ShapeUtil::CompatibleIgnoringElementType`.
#[doc(alias = "ShapeUtil::CompatibleIgnoringElementType")]
pub fn compatible_ignoring_element_type(lhs: &Shape, rhs: &Shape) -> bool {
    lhs.equal_with(
        rhs,
        &ShapeEqual::default()
            .ignore_dynamic_dimension()
            .ignore_element_type()
            .ignore_layout(),
    )
}

/// XLA's `ShapeUtil::CompatibleKind`: the same tuple tree and leaf ranks.
#[doc(alias = "ShapeUtil::CompatibleKind")]
pub fn compatible_kind(lhs: &Shape, rhs: &Shape) -> bool {
    lhs.equal_with(
        rhs,
        &ShapeEqual::default()
            .ignore_element_type()
            .ignore_layout()
            .ignore_dimensions()
            .ignore_dynamic_dimension(),
    )
}

/// XLA's `ShapeUtil::CompatibleIgnoringFpPrecision`.
#[doc(alias = "ShapeUtil::CompatibleIgnoringFpPrecision")]
pub fn compatible_ignoring_fp_precision(lhs: &Shape, rhs: &Shape) -> bool {
    lhs.equal_with(
        rhs,
        &ShapeEqual::default()
            .ignore_dynamic_dimension()
            .ignore_fp_precision()
            .ignore_layout(),
    )
}

// ---------------------------------------------------------------------------
// Printing and validation

/// XLA's `ShapeUtil::HumanString`: the shape without layouts
/// (`format!("{shape:#}")`).
#[doc(alias = "ShapeUtil::HumanString")]
#[doc(alias = "ShapeUtil::PrintHumanString")]
pub fn human_string(shape: &Shape) -> String {
    format!("{shape:#}")
}

/// XLA's `ShapeUtil::HumanStringWithLayout`: the shape with layouts
/// (`shape.to_string()`).
#[doc(alias = "ShapeUtil::HumanStringWithLayout")]
#[doc(alias = "ShapeUtil::PrintHumanStringWithLayout")]
pub fn human_string_with_layout(shape: &Shape) -> String {
    shape.to_string()
}

/// XLA's `ShapeUtil::HumanString(ProgramShape)`: `(x: f32[2]) -> f32[2]`.
#[doc(alias = "ShapeUtil::HumanString")]
pub fn human_string_program_shape(program_shape: &ProgramShape) -> String {
    program_shape.to_string()
}

/// The non-layout rules of XLA's validation, run again over a shape.
fn validate_non_layout_properties(shape: &Shape) -> Result<()> {
    match shape {
        Shape::Array(a) => crate::model::validate::validate_array_dimensions(
            a.element_type(),
            a.dimensions(),
            a.dynamic_dimensions(),
        ),
        Shape::Tuple(elements) => elements.iter().try_for_each(validate_non_layout_properties),
        Shape::Buffer(inner) => validate_non_layout_properties(inner),
        Shape::Token | Shape::Opaque => Ok(()),
    }
}

/// XLA's `ShapeUtil::ValidateShape`: every rule of spec §5.4, layouts
/// required. A [`Shape`] satisfies every rule but the last, so this finds
/// arrays without a layout.
///
/// # Errors
///
/// `shape f32[2,3] does not have a layout`.
#[doc(alias = "ShapeUtil::ValidateShape")]
pub fn validate_shape(shape: &Shape) -> Result<()> {
    validate_non_layout_properties(shape)?;
    layout_util::validate_layout_in_shape(shape, false)
}

/// XLA's `ShapeUtil::ValidateShapeWithOptionalLayout`: as
/// [`validate_shape`], missing layouts allowed. Every [`Shape`] passes: it
/// is the invariant of the type.
///
/// # Errors
///
/// None for a [`Shape`]; the messages are spec §5.4's.
#[doc(alias = "ShapeUtil::ValidateShapeWithOptionalLayout")]
pub fn validate_shape_with_optional_layout(shape: &Shape) -> Result<()> {
    validate_non_layout_properties(shape)?;
    layout_util::validate_layout_in_shape(shape, true)
}

/// Builds an array from parts with full validation (XLA's `ValidateShape`
/// rules): how every function here that changes dimensions makes its result.
fn rebuild(
    element_type: PrimitiveType,
    dimensions: Vec<i64>,
    dynamic: Vec<bool>,
    layout: Option<Layout>,
) -> Result<ArrayShape> {
    ArrayShape::from_parts(element_type, dimensions, dynamic, layout)
}
