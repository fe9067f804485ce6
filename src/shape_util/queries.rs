//! Queries: XLA's `ShapeUtil` predicates and accessors on element types,
//! ranks, dimensions, tuples and dynamic dimensions.

use super::{for_each_subshape, try_get_subshape};
use crate::error::{Error, Result};
use crate::layout_util;
use crate::model::{ArrayShape, PrimitiveType, Shape};
use crate::primitive_util;

/// XLA's `ShapeUtil::HasPrimitiveType`: the shape's element type is `t`
/// (a tuple's is `Tuple`), or some tuple element's is, recursively.
///
/// ```
/// use xla_shape::{PrimitiveType as T, Shape, shape_util};
/// let t: Shape = "(f32[1,1], s32[3,0])".parse()?;
/// assert!(shape_util::has_primitive_type(&t, T::S32));
/// let a = shape_util::get_tuple_element_shape(&t, 0)?;
/// assert!(!shape_util::is_scalar(a) && shape_util::is_effective_scalar(a));
/// assert!(shape_util::is_zero_element_array(shape_util::get_tuple_element_shape(&t, 1)?));
/// # Ok::<(), xla_shape::Error>(())
/// ```
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
///
/// ```
/// use xla_shape::{Shape, shape_util};
/// let t: Shape = "(f32[2], (s32[], pred[3]))".parse()?;
/// assert_eq!(shape_util::tuple_element_count(&t)?, 2);
/// assert!(shape_util::is_nested_tuple(&t));
/// assert_eq!(shape_util::slice_tuple(&t, 1, 2)?.to_string(), "((s32[], pred[3]{0}))");
/// assert!(shape_util::tuple_element_count(&"f32[2]".parse()?).is_err());
/// # Ok::<(), xla_shape::Error>(())
/// ```
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
///
/// ```
/// use xla_shape::{PrimitiveType as T, shape_util};
/// let a = shape_util::make_shape(T::F32, &[1, 2, 3, 4]);
/// // Negative numbers count from the end.
/// assert_eq!(shape_util::get_dimension_number(&a, -1), 3);
/// assert_eq!(shape_util::get_dimension(&a, -1), 4);
/// assert_eq!(shape_util::true_num_dimensions(&a), 3);
/// ```
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
    shape.dimensions().unwrap_or_default().to_vec()
}

/// XLA's `ShapeUtil::ElementIsIntegral`.
///
/// ```
/// use xla_shape::{PrimitiveType as T, Shape, shape_util};
/// let s: Shape = "s8[4]".parse()?;
/// let f: Shape = "bf16[4]".parse()?;
/// assert!(shape_util::element_is_integral(&s) && shape_util::element_is_signed(&s));
/// assert!(shape_util::element_is_floating(&f));
/// assert!(shape_util::element_is_integral_with_bits(&s, 8));
/// assert_eq!(shape_util::higher_precision_element_type(&s, &f), Some(T::Bf16));
/// # Ok::<(), xla_shape::Error>(())
/// ```
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
///
/// ```
/// use xla_shape::{PrimitiveType as T, shape_util};
/// let a = shape_util::make_shape(T::F32, &[2, 1, 3]);
/// let b = shape_util::make_shape(T::S32, &[2, 1, 3]);
/// assert!(shape_util::same_rank(&a, &b) && shape_util::same_dimensions(&a, &b));
/// assert!(shape_util::has_degenerate_dimensions(&a));
/// ```
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
    if let (1, Some(l)) = (shape.rank(), shape.layout())
        && let [_, _, t] = l.tiles()
        && let [f, _] = t.dimensions()
    {
        return Ok(*f);
    }
    Err(Error::invalid_argument(format!(
        "Shape {shape} is not a 1D interleaved array."
    )))
}

/// XLA's `ShapeUtil::DynamicArrayShapeIsCompatible`: same rank, and no
/// dimension of `dynamic_shape` larger than `bounded_shape`'s.
///
/// ```
/// use xla_shape::{PrimitiveType as T, shape_util};
/// let dynamic = shape_util::make_shape_with_dynamic_dimensions(T::F32, &[3], &[true]);
/// assert!(shape_util::dynamic_array_shape_is_compatible(&dynamic, &shape_util::make_shape(T::F32, &[4])));
/// assert!(!shape_util::dynamic_array_shape_is_compatible(&dynamic, &shape_util::make_shape(T::F32, &[2])));
/// ```
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
