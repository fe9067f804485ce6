//! Changing an array's dimensions, element type or layout (xla/shape_util.h).
//!
//! Every result is checked as XLA's `ValidateShape` would check it (see the
//! module docs of [`shape_util`](super)), which is why most of these return
//! a `Result` where XLA's return a `Shape`.

use crate::error::{Error, Result};
use crate::model::inline::Dims;
use crate::model::{ArrayShape, Layout, PrimitiveType, Shape};
use crate::primitive_util;

/// XLA's `ShapeUtil::ChangeElementType`: the shape with element type `t`
/// (tuples recurse). As upstream, a layout's element size is reset to 0
/// unless `t` is a sub-byte type other than PRED, which keeps it.
///
/// ```
/// use xla_shape::{Layout, PrimitiveType as T, shape_util};
/// // xla/shape_util_test.cc, the sub-byte `ChangeElementType` case
/// let s4 = shape_util::make_shape_with_dense_layout_from_layout(
///     T::S4, &[64, 128], Layout::new([1, 0]).with_element_size_in_bits(4));
/// let u4 = shape_util::change_element_type(&s4.clone().into(), T::U4)?;
/// assert_eq!(u4.to_string(), "u4[64,128]{1,0:E(4)}");
/// let u8 = shape_util::change_element_type(&s4.into(), T::U8)?;
/// assert_eq!(u8.to_string(), "u8[64,128]{1,0}");
/// # Ok::<(), xla_shape::Error>(())
/// ```
///
/// # Errors
///
/// An array given a non-array type, or a token, opaque value or buffer
/// given a type other than its own (XLA changes the shape's kind or
/// aborts); the new size overflowing `i64` (XLA builds a shape its
/// validation rejects).
#[doc(alias = "ShapeUtil::ChangeElementType")]
pub fn change_element_type(shape: &Shape, t: PrimitiveType) -> Result<Shape> {
    match shape {
        Shape::Tuple(elements) => Ok(Shape::Tuple(
            elements
                .iter()
                .map(|e| change_element_type(e, t))
                .collect::<Result<_>>()?,
        )),
        Shape::Array(a) => Ok(Shape::Array(change_array_element_type(a, t)?)),
        other if other.element_type() == t => Ok(other.clone()),
        other => Err(Error::invalid_argument(format!(
            "ChangeElementType: cannot make {other} an array of {t}"
        ))),
    }
}

fn change_array_element_type(a: &ArrayShape, t: PrimitiveType) -> Result<ArrayShape> {
    if !t.is_array_type() {
        return Err(Error::invalid_argument(format!(
            "ChangeElementType: {t} is not an array element type (shape {a})"
        )));
    }
    let mut layout = a.layout().cloned();
    if let Some(l) = layout.as_mut()
        && !t.is_sub_byte_non_pred()
    {
        l.element_size_in_bits = 0;
    }
    rebuild(
        t,
        a.dimensions().to_vec(),
        a.dynamic_dimensions().to_vec(),
        layout,
    )
}

/// XLA's `ShapeUtil::ComplexComponentShape`: the array of the real (or
/// imaginary) parts of a complex array (`c64` -> `f32`).
///
/// # Errors
///
/// The element type is not complex (XLA `CHECK`-fails).
#[doc(alias = "ShapeUtil::ComplexComponentShape")]
pub fn complex_component_shape(shape: &ArrayShape) -> Result<ArrayShape> {
    let t = primitive_util::complex_component_type(shape.element_type()).ok_or_else(|| {
        Error::invalid_argument(format!("ComplexComponentShape: {shape} is not complex"))
    })?;
    change_array_element_type(shape, t)
}

#[track_caller]
fn check_dimension(shape: &ArrayShape, dim: i64) -> usize {
    match usize::try_from(dim) {
        Ok(d) if d < shape.rank() => d,
        _ => panic!("dimension {dim} is out of range for {shape}"),
    }
}

/// XLA's `ShapeUtil::MoveDimToMajor`: every array (tuples recurse) with
/// `dim` made its most major dimension. An array without a layout starts
/// from the default one. As upstream, the new layout has **only**
/// `minor_to_major`: tiles, memory space and the rest are dropped (unlike
/// [`layout_util::move_dim_to_major`](crate::layout_util::move_dim_to_major)). Tokens, opaque values and buffers
/// are left as they are (XLA aborts on them).
///
/// # Panics
///
/// If `dim` is not a dimension of an array in `shape`.
#[doc(alias = "ShapeUtil::MoveDimToMajor")]
#[track_caller]
pub fn move_dim_to_major(shape: &Shape, dim: i64) -> Shape {
    match shape {
        Shape::Tuple(e) => Shape::Tuple(e.iter().map(|s| move_dim_to_major(s, dim)).collect()),
        Shape::Array(a) => {
            check_dimension(a, dim);
            let old = match a.layout() {
                Some(l) => l.minor_to_major().to_vec(),
                None => (0..a.rank() as i64).rev().collect(),
            };
            let mut mtm: Vec<i64> = old.into_iter().filter(|&d| d != dim).collect();
            mtm.push(dim);
            let mut result = a.clone();
            // A permutation of the dimensions, without other attributes:
            // valid for the array.
            result.layout = Some(Layout::new(mtm));
            Shape::Array(result)
        }
        other => other.clone(),
    }
}

/// XLA's `ShapeUtil::PrependMajorDimension`: a new dimension 0 of size
/// `bound`, most major in the layout (if the array has one). As upstream,
/// the result keeps only `minor_to_major` of the layout, and **no dynamic
/// flags** (a bounded dynamic dimension becomes static, an unbounded one a
/// static dimension of size [`ArrayShape::UNBOUNDED_SIZE`]).
///
/// ```
/// use xla_shape::{PrimitiveType as T, shape_util};
/// // xla/shape_util_test.cc, ShapeUtilTest.PrependMajorDimension
/// let s = shape_util::make_shape_with_dense_layout(T::F32, &[10, 20, 30], &[0, 2, 1]);
/// let p = shape_util::prepend_major_dimension(40, &s)?;
/// assert_eq!(p.to_string(), "f32[40,10,20,30]{1,3,2,0}");
/// # Ok::<(), xla_shape::Error>(())
/// ```
///
/// # Errors
///
/// `bound` is negative (XLA `CHECK`-fails), or the size overflows.
#[doc(alias = "ShapeUtil::PrependMajorDimension")]
pub fn prepend_major_dimension(bound: i64, shape: &ArrayShape) -> Result<ArrayShape> {
    check_bound(bound)?;
    let mut dims = Vec::with_capacity(shape.rank() + 1);
    dims.push(bound);
    dims.extend_from_slice(shape.dimensions());
    let layout = shape.layout().map(|l| {
        let mut mtm: Vec<i64> = l.minor_to_major().iter().map(|d| d + 1).collect();
        mtm.push(0);
        Layout::new(mtm)
    });
    rebuild(shape.element_type(), dims, Vec::new(), layout)
}

fn check_bound(bound: i64) -> Result<()> {
    if bound < 0 {
        return Err(Error::invalid_argument(format!(
            "Invalid dimension size {bound}, is_dynamic=false"
        )));
    }
    Ok(())
}

/// XLA's `ShapeUtil::AppendMajorDimension`: a new last dimension of size
/// `bound`, most major in the layout (if any). Other layout attributes
/// and dynamic flags are kept. On error `shape` is unchanged.
///
/// # Errors
///
/// `bound` is negative, or the size overflows.
#[doc(alias = "ShapeUtil::AppendMajorDimension")]
pub fn append_major_dimension(bound: i64, shape: &mut ArrayShape) -> Result<()> {
    append_dimension(bound, shape, |mtm, d| mtm.push(d))
}

/// XLA's `ShapeUtil::AppendMinorDimension`: a new last dimension of size
/// `bound`, most minor in the layout (if any). On error `shape` is
/// unchanged.
///
/// ```
/// use xla_shape::{PrimitiveType as T, shape_util};
/// // xla/shape_util_test.cc, ShapeUtilTest.AppendMinorDimension
/// let mut s = shape_util::make_shape_with_dense_layout(T::F32, &[10, 20, 30], &[0, 2, 1]);
/// shape_util::append_minor_dimension(40, &mut s)?;
/// assert_eq!(s.to_string(), "f32[10,20,30,40]{3,0,2,1}");
/// # Ok::<(), xla_shape::Error>(())
/// ```
///
/// # Errors
///
/// `bound` is negative, or the size overflows.
#[doc(alias = "ShapeUtil::AppendMinorDimension")]
pub fn append_minor_dimension(bound: i64, shape: &mut ArrayShape) -> Result<()> {
    append_dimension(bound, shape, |mtm, d| mtm.insert(0, d))
}

/// A new last dimension of size `bound`, which `place` puts into the
/// layout's minor_to_major (if there is a layout); `shape` unchanged on
/// error.
fn append_dimension(
    bound: i64,
    shape: &mut ArrayShape,
    place: impl FnOnce(&mut Dims, i64),
) -> Result<()> {
    check_bound(bound)?;
    let mut layout = shape.layout().cloned();
    if let Some(l) = layout.as_mut() {
        place(&mut l.minor_to_major, shape.rank() as i64);
    }
    let mut dims = shape.dimensions().to_vec();
    dims.push(bound);
    let mut dynamic = shape.dynamic_dimensions().to_vec();
    dynamic.push(false);
    *shape = rebuild(shape.element_type(), dims, dynamic, layout)?;
    Ok(())
}

/// XLA's `ShapeUtil::DeleteDimension`: the array without dimension `dim`
/// (its size, flag and layout entry; the layout's other attributes are
/// kept).
///
/// # Errors
///
/// The remaining dimensions overflow (possible when the deleted one was
/// 0).
///
/// # Panics
///
/// If `dim` is not a dimension of the array.
#[doc(alias = "ShapeUtil::DeleteDimension")]
#[track_caller]
pub fn delete_dimension(dim: i64, shape: &ArrayShape) -> Result<ArrayShape> {
    delete_dimensions(&[dim], shape)
}

/// XLA's `ShapeUtil::DeleteDimensions`: the array without the dimensions
/// `dims` (in any order).
///
/// ```
/// use xla_shape::{PrimitiveType as T, shape_util};
/// // xla/shape_util_test.cc, ShapeUtilTest.DeleteDimensionsUnsorted
/// let s = shape_util::make_shape_with_dense_layout(T::F32, &[5, 3, 2, 7, 9], &[2, 0, 1, 4, 3]);
/// let d = shape_util::delete_dimensions(&[3, 1, 2], &s)?;
/// assert_eq!(d.to_string(), "f32[5,9]{0,1}");
/// # Ok::<(), xla_shape::Error>(())
/// ```
///
/// # Errors
///
/// As [`delete_dimension`].
///
/// # Panics
///
/// If an entry of `dims` is not a dimension of the array, or is repeated
/// (XLA `CHECK`-fails).
#[doc(alias = "ShapeUtil::DeleteDimensions")]
#[track_caller]
pub fn delete_dimensions(dims: &[i64], shape: &ArrayShape) -> Result<ArrayShape> {
    let mut sorted: Vec<usize> = dims.iter().map(|&d| check_dimension(shape, d)).collect();
    sorted.sort_unstable();
    assert!(
        sorted.windows(2).all(|w| w[0] != w[1]),
        "dimensions to delete {dims:?} have duplicates"
    );
    let mut dimensions = shape.dimensions().to_vec();
    let mut dynamic = shape.dynamic_dimensions().to_vec();
    let mut layout = shape.layout().cloned();
    for &d in sorted.iter().rev() {
        dimensions.remove(d);
        dynamic.remove(d);
        if let Some(l) = layout.as_mut() {
            l.delete_dimension(d as i64);
        }
    }
    rebuild(shape.element_type(), dimensions, dynamic, layout)
}

/// XLA's `ShapeUtil::FilterDimensions`: the array keeping the dimensions
/// `i` for which `keep(i)` is true.
///
/// # Errors
///
/// As [`delete_dimension`].
#[doc(alias = "ShapeUtil::FilterDimensions")]
pub fn filter_dimensions(
    mut keep: impl FnMut(i64) -> bool,
    shape: &ArrayShape,
) -> Result<ArrayShape> {
    let delete: Vec<i64> = (0..shape.rank() as i64).filter(|&i| !keep(i)).collect();
    delete_dimensions(&delete, shape)
}

/// XLA's `ShapeUtil::DropDegenerateDimensions`: the array without its
/// dimensions of size 1.
///
/// # Errors
///
/// None in practice (removing factors of 1 cannot overflow); kept for the
/// uniform checking of results.
///
/// ```
/// use xla_shape::{PrimitiveType as T, shape_util};
/// let a = shape_util::make_shape(T::F32, &[2, 1, 3]);
/// assert_eq!(shape_util::drop_degenerate_dimensions(&a)?.to_string(), "f32[2,3]{1,0}");
/// assert_eq!(shape_util::delete_dimension(0, &a)?.to_string(), "f32[1,3]{1,0}");
/// // The new dimension is the last one and the most major in the layout.
/// let mut b = a.clone();
/// shape_util::append_major_dimension(4, &mut b)?;
/// assert_eq!(b.to_string(), "f32[2,1,3,4]{2,1,0,3}");
/// # Ok::<(), xla_shape::Error>(())
/// ```
#[doc(alias = "ShapeUtil::DropDegenerateDimensions")]
pub fn drop_degenerate_dimensions(shape: &ArrayShape) -> Result<ArrayShape> {
    filter_dimensions(|d| shape.dimensions()[d as usize] != 1, shape)
}

/// The inverse of a permutation of `0..n`.
///
/// # Panics
///
/// If `permutation` is not a permutation of `0..n`.
#[track_caller]
pub(super) fn inverse_permutation(permutation: &[i64]) -> Vec<i64> {
    let n = permutation.len();
    let mut inverse = vec![-1i64; n];
    for (i, &p) in permutation.iter().enumerate() {
        match usize::try_from(p).ok().filter(|&p| p < n) {
            Some(p) if inverse[p] < 0 => inverse[p] = i as i64,
            _ => panic!("{permutation:?} is not a permutation of 0..{n}"),
        }
    }
    inverse
}

/// XLA's `ComposePermutations(p1, p2)`: `result[i] = p1[p2[i]]`.
#[track_caller]
pub(super) fn compose_permutations(p1: &[i64], p2: &[i64]) -> Vec<i64> {
    assert_eq!(p1.len(), p2.len(), "permutations of different lengths");
    p2.iter().map(|&i| p1[i as usize]).collect()
}

/// XLA's `Permute(input, permutation)`: `result[i] = input[permutation[i]]`.
fn permute<T: Copy>(input: &[T], permutation: &[i64]) -> Vec<T> {
    permutation.iter().map(|&p| input[p as usize]).collect()
}

#[track_caller]
fn check_permutation(permutation: &[i64], shape: &ArrayShape) -> Vec<i64> {
    assert_eq!(
        permutation.len(),
        shape.rank(),
        "permutation {permutation:?} does not fit {shape}"
    );
    inverse_permutation(permutation)
}

/// XLA's `ShapeUtil::PermuteDimensions`: `result.dimensions[i] =
/// shape.dimensions[permutation[i]]` (dynamic flags too), with a layout
/// (if the array has one) chosen so that the elements stay where they
/// were: [`transpose_is_bitcast`](super::transpose_is_bitcast)`(shape,
/// result, permutation)` holds. Other layout attributes are kept.
///
/// # Errors
///
/// The permuted dimensions fail XLA's overflow check (its running product
/// depends on the order when a dimension is 0).
///
/// # Panics
///
/// If `permutation` is not a permutation of the dimensions.
#[doc(alias = "ShapeUtil::PermuteDimensions")]
#[track_caller]
pub fn permute_dimensions(permutation: &[i64], shape: &ArrayShape) -> Result<ArrayShape> {
    let inverse = check_permutation(permutation, shape);
    let dims = permute(shape.dimensions(), permutation);
    let dynamic = permute(shape.dynamic_dimensions(), permutation);
    let layout = shape.layout().map(|l| {
        let mut l = l.clone();
        l.minor_to_major = compose_permutations(&inverse, &l.minor_to_major).into();
        l
    });
    rebuild(shape.element_type(), dims, dynamic, layout)
}

/// XLA's `ShapeUtil::ReorderLogicalDimensions`: dimensions and flags
/// permuted as by [`permute_dimensions`], and the layout copied with each
/// `minor_to_major` entry `d` replaced by `permutation[d]`. As upstream,
/// this keeps the physical order only when `permutation` is its own
/// inverse (`ShapeUtil::ReorderLogicalDimensions`, xla/shape_util.cc).
///
/// ```
/// use xla_shape::{PrimitiveType as T, shape_util};
/// // xla/shape_util_test.cc, ShapeUtilTest.ReorderDimensionsTest
/// let s = shape_util::make_shape_with_dense_layout(T::F32, &[16, 3, 12, 17], &[1, 2, 0, 3]);
/// let r = shape_util::reorder_logical_dimensions(&s, &[0, 2, 1, 3])?;
/// assert_eq!(r.to_string(), "f32[16,12,3,17]{2,1,0,3}");
/// # Ok::<(), xla_shape::Error>(())
/// ```
///
/// # Errors
///
/// As [`permute_dimensions`].
///
/// # Panics
///
/// If `permutation` is not a permutation of the dimensions.
#[doc(alias = "ShapeUtil::ReorderLogicalDimensions")]
#[track_caller]
pub fn reorder_logical_dimensions(shape: &ArrayShape, permutation: &[i64]) -> Result<ArrayShape> {
    check_permutation(permutation, shape);
    let dims = permute(shape.dimensions(), permutation);
    let dynamic = permute(shape.dynamic_dimensions(), permutation);
    let layout = shape.layout().map(|l| {
        let mut l = l.clone();
        for d in &mut l.minor_to_major {
            *d = permutation[*d as usize];
        }
        l
    });
    rebuild(shape.element_type(), dims, dynamic, layout)
}

/// XLA's `ShapeUtil::CopyDynamicDimensions`: `to` gets `from`'s dynamic
/// flags. On error `to` is unchanged.
///
/// # Errors
///
/// The ranks differ, or an unbounded dimension of `to` would become static
/// (XLA `CHECK`-fails on both).
#[doc(alias = "ShapeUtil::CopyDynamicDimensions")]
pub fn copy_dynamic_dimensions(to: &mut ArrayShape, from: &ArrayShape) -> Result<()> {
    if to.rank() != from.rank() {
        return Err(Error::invalid_argument(format!(
            "CopyDynamicDimensions: ranks differ ({to} and {from})"
        )));
    }
    let mut result = to.clone();
    for (d, &is_dynamic) in from.dynamic_dimensions().iter().enumerate() {
        super::subshapes::set_dynamic_dimension(&mut result, d, is_dynamic)?;
    }
    *to = result;
    Ok(())
}

/// XLA's `ShapeUtil::DeviceShapeToHostShape`: every layout stripped of
/// what only a device cares about (tiles, memory space, element size, tail
/// padding, physical shape, dynamic-shape prefix).
#[doc(alias = "ShapeUtil::DeviceShapeToHostShape")]
pub fn device_shape_to_host_shape(mut shape: Shape) -> Shape {
    super::for_each_mutable_subshape(&mut shape, |s, _| {
        if let Shape::Array(a) = s
            && let Some(l) = a.layout.as_mut()
        {
            l.tiles.clear();
            l.memory_space = Layout::DEFAULT_MEMORY_SPACE;
            l.element_size_in_bits = 0;
            if let Some(r) = l.rare.as_deref_mut() {
                r.physical_shape = None;
                r.tail_padding_alignment_in_elements = 1;
                r.dynamic_shape_metadata_prefix_bytes = 0;
            }
        }
    });
    shape
}

/// XLA's `ShapeUtil::UpdateElementSizeInBits`: every layout's element size
/// set to the type's bit width when `pack_subbyte_types` and the type is
/// sub-byte (not PRED), else to 0.
#[doc(alias = "ShapeUtil::UpdateElementSizeInBits")]
pub fn update_element_size_in_bits(shape: &mut Shape, pack_subbyte_types: bool) {
    super::for_each_mutable_subshape(shape, |s, _| {
        if let Shape::Array(a) = s {
            let t = a.element_type();
            if let Some(l) = a.layout.as_mut() {
                l.element_size_in_bits = match (pack_subbyte_types, t.bit_width()) {
                    (true, Some(bits)) if t.is_sub_byte_non_pred() => bits as i64,
                    _ => 0,
                };
            }
        }
    });
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
