//! Construction: XLA's `ShapeUtil::Make*` family and `PopulateShape`.

use super::validate_shape_with_optional_layout;
use crate::error::{Error, Result};
use crate::layout_util;
use crate::model::{ArrayShape, Layout, PrimitiveType, ProgramShape, Shape};
use crate::primitive_util::NativeType;

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
///
/// ```
/// use xla_shape::{PrimitiveType as T, shape_util};
/// let s = shape_util::make_validated_shape(T::F32, &[2, 3])?;
/// assert_eq!(s.to_string(), "f32[2,3]{1,0}");
/// assert!(shape_util::make_validated_shape(T::F32, &[-2]).is_err());
/// let d = shape_util::make_shape_with_dynamic_dimensions(T::S32, &[4, 3], &[true, false]);
/// assert_eq!(d.to_string(), "s32[<=4,3]{1,0}");
/// assert_eq!(shape_util::make_shape_with_type::<f64>(&[5]).to_string(), "f64[5]{0}");
/// # Ok::<(), xla_shape::Error>(())
/// ```
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
#[doc(alias = "xla_client.Shape.scalar_shape")]
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
///
/// ```
/// use xla_shape::{PrimitiveType as T, shape_util};
/// // minor_to_major {0,1}: dimension 0 is the most minor (column-major).
/// let s = shape_util::make_shape_with_dense_layout(T::F32, &[2, 3], &[0, 1]);
/// assert_eq!(s.to_string(), "f32[2,3]{0,1}");
/// let d = shape_util::make_shape_with_descending_layout(T::F32, &[2, 3]);
/// assert_eq!(d.to_string(), "f32[2,3]{1,0}");
/// ```
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
/// // ShapeUtilTest.MakeShapeWithDescendingLayoutAndSamePhysicalLayout
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
        let alignment = old.tail_padding_alignment_in_elements();
        if alignment != 1 {
            layout.rare_mut().tail_padding_alignment_in_elements = alignment;
        }
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
            if let Some(r) = a.layout.as_mut().and_then(|l| l.rare.as_deref_mut()) {
                r.dynamic_shape_metadata_prefix_bytes = 0;
            }
        }
        Shape::Tuple(elements) => elements.iter_mut().for_each(clear_dynamic_dimensions),
        _ => {}
    }
}

/// XLA's `ShapeUtil::MakeStaticShape`: [`make_shape_with_static_dimensions`],
/// and the top-level array's layout gets `M(0)`.
///
/// ```
/// use xla_shape::{PrimitiveType as T, Shape, shape_util};
/// let dynamic: Shape = shape_util::make_shape_with_dynamic_dimensions(T::S32, &[4, 3], &[true, false]).into();
/// assert_eq!(shape_util::make_static_shape(&dynamic).to_string(), "s32[4,3]{1,0}");
/// ```
#[doc(alias = "ShapeUtil::MakeStaticShape")]
pub fn make_static_shape(shape: &Shape) -> Shape {
    let mut s = make_shape_with_static_dimensions(shape);
    if let Shape::Array(a) = &mut s
        && let Some(r) = a.layout.as_mut().and_then(|l| l.rare.as_deref_mut())
    {
        r.dynamic_shape_metadata_prefix_bytes = 0;
    }
    s
}

/// XLA's `ShapeUtil::MakeTupleShape`. A tuple of valid shapes is valid, so
/// this cannot fail.
///
/// ```
/// use xla_shape::{PrimitiveType as T, Shape, shape_util};
/// let a: Shape = shape_util::make_shape(T::F32, &[2]).into();
/// let t = shape_util::make_tuple_shape(vec![a.clone(), shape_util::make_token_shape()]);
/// assert_eq!(t.to_string(), "(f32[2]{0}, token[])");
/// // A single shape is not wrapped.
/// assert_eq!(shape_util::make_maybe_tuple_shape(vec![a.clone()]), a);
/// assert_eq!(shape_util::make_nil().to_string(), "()");
/// ```
#[doc(alias = "ShapeUtil::MakeTupleShape")]
#[doc(alias = "xla_client.Shape.tuple_shape")]
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
#[doc(alias = "xla_client.Shape.token_shape")]
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

/// Unwraps the result of a constructor whose XLA counterpart crashes on
/// error.
#[track_caller]
fn or_panic<T>(r: Result<T>) -> T {
    match r {
        Ok(v) => v,
        Err(e) => panic!("{e}"),
    }
}
