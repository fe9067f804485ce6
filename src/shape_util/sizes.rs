//! Element counts and byte sizes (XLA's `ShapeUtil` size functions, xla/shape_util.cc).

use crate::error::{Error, Result};
use crate::layout_util::{self, ceil_of_ratio, require_layout};
use crate::model::{ArrayShape, PrimitiveType, Shape};
use crate::proto::ShapeProto;

fn size_overflow(what: &str, shape: &ArrayShape) -> Error {
    Error::overflow(format!("{what} of {shape} overflows int64"))
}

/// XLA's `ShapeUtil::ExtentProduct<bounded_dynamic_ok>`: the product of the
/// dimensions and whether it overflowed (the product then wraps, as XLA's
/// `OverflowSafeMultiply`). With `bounded_dynamic_ok`, unbounded
/// dimensions are skipped; without, their size
/// ([`ArrayShape::UNBOUNDED_SIZE`]) is multiplied in, as upstream.
#[doc(alias = "ShapeUtil::ExtentProduct")]
pub fn extent_product(shape: &ArrayShape, bounded_dynamic_ok: bool) -> (i64, bool) {
    let mut product = 1i64;
    let mut overflow = false;
    for &d in shape.dimensions() {
        if bounded_dynamic_ok && d == ArrayShape::UNBOUNDED_SIZE {
            continue;
        }
        let (p, o) = product.overflowing_mul(d);
        product = p;
        overflow |= o;
    }
    (product, overflow)
}

/// XLA's `ShapeUtil::StaticExtentProduct`: the product of the dimensions
/// that are not unbounded (validation guarantees it fits in `i64`).
#[doc(alias = "ShapeUtil::StaticExtentProduct")]
pub fn static_extent_product(shape: &ArrayShape) -> i64 {
    extent_product(shape, true).0
}

/// XLA's `ShapeUtil::ElementsIn`: the number of elements of an array, the
/// product of its dimensions (a bounded dynamic dimension counts its
/// bound; a scalar has 1).
///
/// ```
/// use xla_shape::{PrimitiveType as T, shape_util};
/// assert_eq!(shape_util::elements_in(&shape_util::make_shape(T::S32, &[3, 0, 5]))?, 0);
/// assert_eq!(shape_util::elements_in(&shape_util::make_shape(T::S32, &[]))?, 1);
/// # Ok::<(), xla_shape::Error>(())
/// ```
///
/// # Errors
///
/// The array has an unbounded dimension: its element count is undefined
/// (XLA `DCHECK`s, then multiplies `INT64_MIN` in).
#[doc(alias = "ShapeUtil::ElementsIn")]
pub fn elements_in(shape: &ArrayShape) -> Result<i64> {
    shape.element_count()
}

/// XLA's `ShapeUtil::ElementsInRecursive`: [`elements_in`] summed over the
/// arrays of a tuple.
///
/// # Errors
///
/// A token, opaque value or buffer is met (XLA `CHECK`-fails), or as
/// [`elements_in`], or the sum overflows.
///
/// ```
/// use xla_shape::{Shape, shape_util};
/// let t: Shape = "(f32[2,3], s8[4])".parse()?;
/// assert_eq!(shape_util::elements_in_recursive(&t)?, 2 * 3 + 4);
/// // The tuple's own buffer: one 8-byte pointer per element.
/// assert_eq!(shape_util::byte_size_of_tuple_index_table(&t, 8)?, 16);
/// # Ok::<(), xla_shape::Error>(())
/// ```
#[doc(alias = "ShapeUtil::ElementsInRecursive")]
pub fn elements_in_recursive(shape: &Shape) -> Result<i64> {
    match shape {
        Shape::Array(a) => elements_in(a),
        Shape::Tuple(elements) => elements.iter().try_fold(0i64, |acc, e| {
            acc.checked_add(elements_in_recursive(e)?)
                .ok_or_else(|| Error::overflow(format!("element count of {shape} overflows int64")))
        }),
        _ => Err(Error::invalid_argument(format!(
            "ElementsInRecursive needs an array or a tuple, got {shape}"
        ))),
    }
}

/// XLA's `ShapeUtil::ByteSizeOfPrimitiveType`: bytes per element
/// ([`PrimitiveType::byte_width`]), `None` for a non-array type (XLA
/// aborts).
#[doc(alias = "ShapeUtil::ByteSizeOfPrimitiveType")]
pub fn byte_size_of_primitive_type(t: PrimitiveType) -> Option<i64> {
    t.byte_width()
}

/// XLA's `ShapeUtil::ByteSizeOf`: the bytes of the top-level buffer of a
/// shape: an array's elements ([`byte_size_of_elements`]), a tuple's table
/// of `pointer_size`-byte pointers, 0 for a token, `pointer_size` for an
/// opaque value, and a buffer's array for a buffer (as XLA in jaxlib 0.10.2
/// reports it: golden record `special/0156`; XLA's 2025-06 sources
/// abort). XLA's default `pointer_size` is -1, which suits arrays and
/// tokens only.
///
/// ```
/// use xla_shape::{PrimitiveType as T, shape_util};
/// let s = shape_util::make_shape(T::C64, &[10, 20]).into();
/// assert_eq!(shape_util::byte_size_of(&s, -1)?, 1600); // ShapeUtilTest.ByteSizeOfWithoutPadding
/// # Ok::<(), xla_shape::Error>(())
/// ```
///
/// # Errors
///
/// A tuple or an opaque value with `pointer_size <= 0` (XLA aborts on
/// both), or as [`byte_size_of_elements`].
#[doc(alias = "ShapeUtil::ByteSizeOf")]
pub fn byte_size_of(shape: &Shape, pointer_size: i64) -> Result<i64> {
    match shape {
        Shape::Tuple(_) => byte_size_of_tuple_index_table(shape, pointer_size),
        Shape::Array(a) => byte_size_of_elements(a),
        Shape::Token => Ok(0),
        Shape::Opaque if pointer_size > 0 => Ok(pointer_size),
        Shape::Opaque => Err(Error::invalid_argument(format!(
            "ByteSizeOf(opaque[]) needs a positive pointer size, got {pointer_size}"
        ))),
        Shape::Buffer(inner) => byte_size_of(inner, pointer_size),
    }
}

/// XLA's `ShapeUtil::ByteSizeOfTupleIndexTable`: `pointer_size` times the
/// element count.
///
/// # Errors
///
/// `shape` is not a tuple, `pointer_size <= 0` (XLA aborts on both), or
/// the product overflows.
#[doc(alias = "ShapeUtil::ByteSizeOfTupleIndexTable")]
pub fn byte_size_of_tuple_index_table(shape: &Shape, pointer_size: i64) -> Result<i64> {
    let count = super::tuple_element_count(shape)?;
    if pointer_size <= 0 {
        return Err(Error::invalid_argument(format!(
            "ByteSizeOfTupleIndexTable needs a positive pointer size, got {pointer_size}"
        )));
    }
    pointer_size
        .checked_mul(count)
        .ok_or_else(|| Error::overflow(format!("tuple index table of {shape} overflows int64")))
}

/// Bytes of `count` elements of `shape`'s element type, packed at the
/// layout's element size when it sets one (XLA's conversion at the end of
/// `ByteSizeOfElements`, `ArraySize` and `ArrayDataSize`).
fn bytes_of_elements(shape: &ArrayShape, count: i64, what: &str) -> Result<i64> {
    let overflow = || size_overflow(what, shape);
    match shape.layout().map_or(0, |l| l.element_size_in_bits()) {
        0 => count
            .checked_mul(shape.element_type().byte_width().unwrap_or(1))
            .ok_or_else(overflow),
        bits => count
            .checked_mul(bits)
            .and_then(|b| ceil_of_ratio(b, 8))
            .ok_or_else(overflow),
    }
}

/// XLA's `ShapeUtil::ByteSizeOfElements`: the bytes of an array's
/// elements, `ceil(n * E / 8)` when the layout sets an element size `E(n)`,
/// else `n * byte_width`. Tiles and tail padding are ignored, as upstream
/// (see [`array_size`]).
///
/// # Errors
///
/// As [`elements_in`], or the size overflows `i64`.
///
/// ```
/// use xla_shape::{Shape, shape_util};
/// let a: Shape = "f32[2,3]".parse()?;
/// let a = a.as_array().unwrap();
/// assert_eq!(shape_util::byte_size_of_elements(a)?, 6 * 4);
/// assert_eq!(shape_util::element_size_in_bits(a), 32);
/// // s4 packed two to a byte by E(4): 3 elements take ceil(12 / 8) bytes.
/// let s4: Shape = "s4[3]{0:E(4)}".parse()?;
/// assert_eq!(shape_util::array_size(s4.as_array().unwrap())?, 2);
/// # Ok::<(), xla_shape::Error>(())
/// ```
#[doc(alias = "ShapeUtil::ByteSizeOfElements")]
pub fn byte_size_of_elements(shape: &ArrayShape) -> Result<i64> {
    bytes_of_elements(shape, elements_in(shape)?, "byte size")
}

/// XLA's `ShapeUtil::ElementSizeInBits`: the layout's element size when it
/// sets one, else 8 times the byte width (so `s4` without `E(4)` is 8).
#[doc(alias = "ShapeUtil::ElementSizeInBits")]
pub fn element_size_in_bits(shape: &ArrayShape) -> i64 {
    match shape.layout().map_or(0, |l| l.element_size_in_bits()) {
        0 => shape.element_type().byte_width().unwrap_or(1) * 8,
        bits => bits,
    }
}

/// XLA's `RoundUpTo` on signed integers, checked.
fn round_up_to(value: i64, multiple: i64) -> Option<i64> {
    ceil_of_ratio(value, multiple)?.checked_mul(multiple)
}

/// XLA's `ShapeUtil::ArraySize`: the bytes an array occupies with its
/// layout's padding. Without tiles it is [`byte_size_of_elements`] (tail
/// padding ignored, as upstream). With tiles, only the **first** tile pads
/// the most minor dimensions, each dimension counting its
/// [`max_split_size`](layout_util::max_split_size); the count is then
/// padded to `L(n)` and converted to bytes. A `*` bound is not handled, as
/// upstream (it makes the size 0).
///
/// # Errors
///
/// The array has no layout, as [`elements_in`], or the size overflows.
#[doc(alias = "ShapeUtil::ArraySize")]
pub fn array_size(shape: &ArrayShape) -> Result<i64> {
    let layout = require_layout(shape)?;
    let Some(tile) = layout.tiles().first() else {
        return byte_size_of_elements(shape);
    };
    let tile = tile.dimensions();
    let (k, rank) = (tile.len(), shape.rank());
    let mtm = layout.minor_to_major();
    let overflow = || size_overflow("array size", shape);
    let mut count = 1i64;
    for p in 0..k.max(rank) {
        let size = if p < rank {
            layout_util::max_split_size(shape, mtm[p] as usize)?
        } else {
            1
        };
        let padded = if p < k {
            round_up_to(size, tile[k - 1 - p]).ok_or_else(overflow)?
        } else {
            size
        };
        count = count.checked_mul(padded).ok_or_else(overflow)?;
    }
    let alignment = layout.tail_padding_alignment_in_elements();
    if alignment != 1 {
        count = round_up_to(count, alignment).ok_or_else(overflow)?;
    }
    bytes_of_elements(shape, count, "array size")
}

/// XLA's `ShapeUtil::ArrayDataSize`: the bytes up to and including the
/// last element, `LinearIndex(shape, [d-1 for d in dims]) + 1` elements
/// ([`layout_util::linear_index`], first tile only), converted to bytes as
/// [`byte_size_of_elements`] does. An array with a zero-sized dimension
/// has size 0.
///
/// ```
/// use xla_shape::{Layout, PrimitiveType as T, Tile, shape_util};
/// // s4[9216,6144]{1,0:T(64,128)(8,1)E(4)} (the sub-byte tiled `ArraySize` case of xla/shape_util_test.cc).
/// let l = Layout::new([1, 0])
///     .with_tiles(vec![Tile::new([64, 128])?, Tile::new([8, 1])?])
///     .with_element_size_in_bits(4);
/// let s = shape_util::make_shape_with_dense_layout_from_layout(T::S4, &[9216, 6144], l);
/// assert_eq!(shape_util::array_data_size(&s)?, 28311552);
/// assert_eq!(shape_util::array_size(&s)?, 28311552);
/// # Ok::<(), xla_shape::Error>(())
/// ```
///
/// # Errors
///
/// The array has no layout, or the arithmetic overflows.
#[doc(alias = "ShapeUtil::ArrayDataSize")]
pub fn array_data_size(shape: &ArrayShape) -> Result<i64> {
    let last: Vec<i64> = shape
        .dimensions()
        .iter()
        .map(|&d| d.wrapping_sub(1))
        .collect();
    let count = layout_util::linear_index(shape, &last)?
        .checked_add(1)
        .ok_or_else(|| size_overflow("array data size", shape))?;
    bytes_of_elements(shape, count, "array data size")
}

/// XLA's `ShapeUtil::ByteStrides(shape)`: the byte distance between
/// neighbours along each dimension of a dense array (tiles ignored), or
/// `None` where [`byte_strides_into`] fails.
///
/// ```
/// use xla_shape::{PrimitiveType as T, shape_util};
/// let s = shape_util::make_shape(T::F32, &[3, 5, 7]);
/// assert_eq!(shape_util::byte_strides(&s), Some(vec![140, 28, 4])); // the `ByteStrides` case of xla/shape_util_test.cc
/// ```
#[doc(alias = "ShapeUtil::ByteStrides")]
pub fn byte_strides(shape: &ArrayShape) -> Option<Vec<i64>> {
    let mut strides = vec![0; shape.rank()];
    byte_strides_into(shape, &mut strides).ok()?;
    Some(strides)
}

/// XLA's `ShapeUtil::ByteStrides(shape, strides)`: fills `strides`, walking
/// `minor_to_major` from the element size up.
///
/// # Errors
///
/// The array has no layout, `strides` does not have one entry per
/// dimension (XLA's `TF_RET_CHECK`s), or a stride overflows `i64`.
#[doc(alias = "ShapeUtil::ByteStrides")]
pub fn byte_strides_into(shape: &ArrayShape, strides: &mut [i64]) -> Result<()> {
    let layout = require_layout(shape)?;
    if strides.len() != shape.rank() {
        return Err(Error::invalid_argument(format!(
            "ByteStrides: {} strides given for {shape}",
            strides.len()
        )));
    }
    let mut stride = shape.element_type().byte_width().unwrap_or(1);
    let mtm = layout.minor_to_major();
    for (k, &d) in mtm.iter().enumerate() {
        strides[d as usize] = stride;
        if k + 1 < mtm.len() {
            stride = stride
                .checked_mul(shape.dimensions()[d as usize])
                .ok_or_else(|| size_overflow("byte stride", shape))?;
        }
    }
    Ok(())
}

/// XLA's `ShapeUtil::SerializedSize`: the size of a literal of this shape
/// in XLA's serialized form (an 8-byte header, the `ShapeProto`, then each
/// array's data: dynamic sizes as 4 bytes per dimension, PRED packed 8 to
/// a byte, sub-byte types packed, others [`byte_size_of_elements`]).
///
/// # Errors
///
/// A token, opaque value or buffer in the shape (`Shape Error: Shape cannot
/// be serialiized. ...`, upstream's spelling), or as
/// [`byte_size_of_elements`].
#[doc(alias = "ShapeUtil::SerializedSize")]
pub fn serialized_size(shape: &Shape) -> Result<i64> {
    serialized_size_with_proto(shape, &shape.to_proto())
}

/// XLA's `ShapeUtil::SerializedSizeWithProto`: as [`serialized_size`], with
/// `proto` taken to be `shape`'s proto.
///
/// # Errors
///
/// As [`serialized_size`].
#[doc(alias = "ShapeUtil::SerializedSizeWithProto")]
pub fn serialized_size_with_proto(shape: &Shape, proto: &ShapeProto) -> Result<i64> {
    use prost::Message;
    let overflow = || Error::overflow(format!("serialized size of {shape} overflows int64"));
    let mut size = 8i64
        .checked_add(proto.encoded_len() as i64)
        .ok_or_else(overflow)?;
    super::for_each_subshape_with_status(shape, |sub, _| -> Result<()> {
        let a = match sub {
            Shape::Tuple(_) => return Ok(()),
            Shape::Array(a) => a,
            _ => {
                return Err(crate::model::validate::shape_error(
                    "Shape cannot be serialiized.",
                    shape.element_type(),
                    &super::human_string(shape),
                ));
            }
        };
        let n = elements_in(a)?;
        let mut add = 0i64;
        if !a.is_static() {
            add = 4 * a.rank() as i64;
        }
        let t = a.element_type();
        let data = if t == PrimitiveType::Pred {
            ceil_of_ratio(n, 8).ok_or_else(overflow)?
        } else if t.is_sub_byte_non_pred() {
            let per_byte = 8 / t.bit_width().unwrap_or(8) as i64;
            ceil_of_ratio(n, per_byte).ok_or_else(overflow)?
        } else {
            byte_size_of_elements(a)?
        };
        size = size
            .checked_add(add)
            .and_then(|s| s.checked_add(data))
            .ok_or_else(overflow)?;
        Ok(())
    })?;
    Ok(size)
}
