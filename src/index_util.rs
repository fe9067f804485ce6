//! XLA's `IndexUtil`: multidimensional index <-> linear index, in the
//! physical order an array's layout gives its elements.
//!
//! As upstream, tiles are ignored everywhere: the linear index is the
//! position in the dense, untiled order of `minor_to_major` (use
//! [`layout_util::linear_index`](crate::layout_util::linear_index) for
//! XLA's first-tile formula, and [`tiling`](crate::tiling) for the full
//! tiled model).
//!
//! # Errors and panics
//!
//! Nothing here panics. An index is data: an index of the wrong length, a
//! linear index outside `0..elements_in`, and a shape without a layout (XLA
//! `CHECK`-fails or reads out of bounds) give an [`Error`]. As upstream, the
//! entries of a multidimensional index are not bounds-checked by
//! [`multidimensional_index_to_linear_index`] (XLA only `DCHECK`s them; an
//! entry out of range gives a meaningless number): [`index_in_bounds`]
//! checks them.
//!
//! ```
//! use xla_shape::{ArrayShape, Layout, PrimitiveType};
//! use xla_shape::index_util;
//! // f32[10,20]{0,1}: dimension 0 is the most minor (xla/index_util_test.cc).
//! let s = ArrayShape::new(PrimitiveType::F32, [10, 20])?
//!     .with_layout(Some(Layout::new([0, 1])))?;
//! assert_eq!(index_util::multidimensional_index_to_linear_index(&s, &[3, 5])?, 53);
//! assert_eq!(index_util::linear_index_to_multidimensional_index(&s, 53)?, [3, 5]);
//! # Ok::<(), xla_shape::Error>(())
//! ```

use std::cmp::Ordering;

use crate::error::{Error, Result};
use crate::layout_util::require_layout;
use crate::model::ArrayShape;
use crate::model::display::index_string;

#[cold]
fn bad_index(shape: &ArrayShape, index: &[i64]) -> Error {
    Error::invalid_argument(format!(
        "index {} has {} elements, but shape {shape} has {} dimensions",
        index_string(index),
        index.len(),
        shape.rank()
    ))
}

/// The dense linear index of `index` in the order `minor_to_major`.
///
/// The caller guarantees that `minor_to_major` is a permutation of
/// `0..dims.len()` and that `index` has one entry per dimension. Entries
/// are not bounds-checked (XLA only `DCHECK`s them); the arithmetic wraps,
/// so an entry out of range gives a meaningless number, never a panic.
/// Within bounds nothing overflows: the product of the dimensions of a
/// valid shape fits in `i64`.
#[inline(always)]
fn linear_in(dims: &[i64], minor_to_major: &[i64], index: &[i64]) -> i64 {
    // Fixed ranks unroll into straight-line code.
    match dims.len() {
        0 => 0,
        1 => linear_fixed::<1>(dims, minor_to_major, index),
        2 => linear_fixed::<2>(dims, minor_to_major, index),
        3 => linear_fixed::<3>(dims, minor_to_major, index),
        4 => linear_fixed::<4>(dims, minor_to_major, index),
        5 => linear_fixed::<5>(dims, minor_to_major, index),
        6 => linear_fixed::<6>(dims, minor_to_major, index),
        _ => linear_step(dims, minor_to_major, index),
    }
}

#[inline(always)]
fn linear_fixed<const N: usize>(dims: &[i64], minor_to_major: &[i64], index: &[i64]) -> i64 {
    let (Ok(dims), Ok(mtm), Ok(index)) = (
        <&[i64; N]>::try_from(dims),
        <&[i64; N]>::try_from(minor_to_major),
        <&[i64; N]>::try_from(index),
    ) else {
        return linear_step(dims, minor_to_major, index);
    };
    let mut linear = 0i64;
    let mut scale = 1i64;
    for &d in mtm {
        // `d < N` for a permutation; the remainder only spares the bounds
        // check.
        let d = (d as usize) % N;
        linear = linear.wrapping_add(scale.wrapping_mul(index[d]));
        scale = scale.wrapping_mul(dims[d]);
    }
    linear
}

#[inline(always)]
fn linear_step(dims: &[i64], minor_to_major: &[i64], index: &[i64]) -> i64 {
    let mut linear = 0i64;
    let mut scale = 1i64;
    for &d in minor_to_major {
        let d = d as usize;
        let (Some(&size), Some(&i)) = (dims.get(d), index.get(d)) else {
            continue;
        };
        linear = linear.wrapping_add(scale.wrapping_mul(i));
        scale = scale.wrapping_mul(size);
    }
    linear
}

/// Whether `minor_to_major` is a permutation of `0..rank`.
fn is_permutation(minor_to_major: &[i64], rank: usize) -> bool {
    let mut seen = vec![false; rank];
    minor_to_major.len() == rank
        && minor_to_major.iter().all(|&d| {
            usize::try_from(d)
                .ok()
                .and_then(|d| seen.get_mut(d))
                .is_some_and(|s| !std::mem::replace(s, true))
        })
}

/// XLA's `IndexUtil::MultidimensionalIndexToLinearIndex`: the position of
/// the element at `index` when the array's elements are laid out in the
/// order of its layout's `minor_to_major` (tiles ignored). A scalar's only
/// element is at 0.
///
/// ```
/// use xla_shape::{ArrayShape, PrimitiveType, index_util};
/// // f32[10,20,30]{2,1,0} (xla/index_util_test.cc): 3*600 + 5*30 + 7.
/// let s = ArrayShape::new(PrimitiveType::F32, [10, 20, 30])?;
/// assert_eq!(index_util::multidimensional_index_to_linear_index(&s, &[3, 5, 7])?, 1957);
/// # Ok::<(), xla_shape::Error>(())
/// ```
///
/// As upstream, the entries of `index` are not bounds-checked (XLA only
/// `DCHECK`s them): an entry outside `0..dimension` gives a meaningless
/// number, never a panic. Check with [`index_in_bounds`] where the index
/// comes from outside. This keeps the function as fast as a loop over
/// precomputed strides.
///
/// # Errors
///
/// The shape has no layout, or `index` does not have one entry per
/// dimension (XLA reads out of bounds).
#[doc(alias = "IndexUtil::MultidimensionalIndexToLinearIndex")]
#[inline]
pub fn multidimensional_index_to_linear_index(shape: &ArrayShape, index: &[i64]) -> Result<i64> {
    let layout = require_layout(shape)?;
    if index.len() != shape.rank() {
        return Err(bad_index(shape, index));
    }
    // A valid shape's layout is a permutation of its dimensions.
    Ok(linear_in(
        shape.dimensions(),
        layout.minor_to_major(),
        index,
    ))
}

/// A prepared [`multidimensional_index_to_linear_index`] for one shape:
/// the stride of each dimension in its layout's dense order (tiles
/// ignored, as upstream), computed once, so that each
/// [`ravel`](Self::ravel) is a sum of products over the index, as a loop
/// over precomputed strides is. For code that maps many indices of the
/// same shape.
///
/// ```
/// use xla_shape::{ArrayShape, Layout, PrimitiveType, index_util};
/// // f32[10,20]{0,1} (xla/index_util_test.cc): linear = a + 10 * b.
/// let s = ArrayShape::new(PrimitiveType::F32, [10, 20])?
///     .with_layout(Some(Layout::new([0, 1])))?;
/// let map = index_util::LinearIndexer::new(&s)?;
/// assert_eq!(map.strides(), [1, 10]);
/// assert_eq!(map.ravel(&[3, 5])?, 53);
/// assert_eq!(map.ravel(&[3, 5])?, index_util::multidimensional_index_to_linear_index(&s, &[3, 5])?);
/// # Ok::<(), xla_shape::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinearIndexer {
    /// `strides[d]`: how far apart, in elements, two indices one apart
    /// in dimension `d` are.
    strides: Vec<i64>,
    /// The shape, for the error's message.
    shape: ArrayShape,
}

impl LinearIndexer {
    /// The strides of `shape`'s dimensions in the order of its layout's
    /// `minor_to_major`.
    ///
    /// # Errors
    ///
    /// The shape has no layout; a stride overflows `i64` (possible only
    /// with unbounded dimensions).
    pub fn new(shape: &ArrayShape) -> Result<Self> {
        let layout = require_layout(shape)?;
        let dims = shape.dimensions();
        let mut strides = vec![0i64; dims.len()];
        let mut scale = 1i64;
        for &d in layout.minor_to_major() {
            // A valid shape's layout is a permutation of its dimensions.
            let (Some(slot), Some(&size)) = (strides.get_mut(d as usize), dims.get(d as usize))
            else {
                continue;
            };
            *slot = scale;
            scale = scale
                .checked_mul(size)
                .ok_or_else(|| Error::overflow(format!("the strides of {shape} overflow int64")))?;
        }
        Ok(LinearIndexer {
            strides,
            shape: shape.clone(),
        })
    }

    /// The stride of each dimension, in elements.
    pub fn strides(&self) -> &[i64] {
        &self.strides
    }

    /// [`multidimensional_index_to_linear_index`] of `index` for the
    /// shape this map was made for: the same number, entries not
    /// bounds-checked (an entry out of range gives a meaningless number,
    /// never a panic).
    ///
    /// # Errors
    ///
    /// `index` does not have one entry per dimension (the error of
    /// [`multidimensional_index_to_linear_index`]).
    #[inline]
    pub fn ravel(&self, index: &[i64]) -> Result<i64> {
        if index.len() != self.strides.len() {
            return Err(bad_index(&self.shape, index));
        }
        Ok(index
            .iter()
            .zip(&self.strides)
            .fold(0i64, |linear, (&i, &s)| {
                linear.wrapping_add(i.wrapping_mul(s))
            }))
    }
}

/// XLA's `MultidimensionalIndexToLinearIndex(shape, minor_to_major,
/// index)`: as [`multidimensional_index_to_linear_index`], in the order of
/// `minor_to_major` instead of the shape's layout (which need not exist).
///
/// Entries of `index` are not bounds-checked, as above.
///
/// # Errors
///
/// `minor_to_major` is not a permutation of the dimension numbers (XLA
/// reads out of bounds or computes a meaningless number), or `index` does
/// not have one entry per dimension.
#[doc(alias = "IndexUtil::MultidimensionalIndexToLinearIndex")]
#[inline]
pub fn multidimensional_index_to_linear_index_with_minor_to_major(
    shape: &ArrayShape,
    minor_to_major: &[i64],
    index: &[i64],
) -> Result<i64> {
    if !is_permutation(minor_to_major, shape.rank()) {
        return Err(Error::invalid_argument(format!(
            "minor_to_major {} is not a permutation of the dimensions of {shape}",
            index_string(minor_to_major)
        )));
    }
    if index.len() != shape.rank() {
        return Err(bad_index(shape, index));
    }
    Ok(linear_in(shape.dimensions(), minor_to_major, index))
}

/// XLA's `IndexUtil::LinearIndexToMultidimensionalIndex`: the inverse of
/// [`multidimensional_index_to_linear_index`].
///
/// # Errors
///
/// The shape has no layout, or `linear_index` is not in
/// `0..elements_in(shape)` (XLA only `DCHECK`s this), or the shape has an
/// unbounded dimension.
///
/// ```
/// use xla_shape::{PrimitiveType as T, index_util, shape_util};
/// // Column-major f32[10,20]: linear = a + 10 * b.
/// let s = shape_util::make_shape_with_dense_layout(T::F32, &[10, 20], &[0, 1]);
/// assert_eq!(index_util::linear_index_to_multidimensional_index(&s, 53)?, [3, 5]);
/// assert_eq!(index_util::multidimensional_index_to_linear_index_with_minor_to_major(&s, &[0, 1], &[3, 5])?, 53);
/// # Ok::<(), xla_shape::Error>(())
/// ```
#[doc(alias = "IndexUtil::LinearIndexToMultidimensionalIndex")]
pub fn linear_index_to_multidimensional_index(
    shape: &ArrayShape,
    linear_index: i64,
) -> Result<Vec<i64>> {
    let mut index = vec![0i64; shape.dimensions().len()];
    linear_index_to_multidimensional_index_into(shape, linear_index, &mut index)?;
    Ok(index)
}

/// [`linear_index_to_multidimensional_index`] into a caller's buffer of
/// one entry per dimension, without allocating: one division per
/// dimension, as fast as a loop over precomputed strides.
///
/// ```
/// use xla_shape::{PrimitiveType, index_util, shape_util};
/// let s = shape_util::make_shape_with_dense_layout(PrimitiveType::F32, &[2, 3, 4], &[0, 2, 1]);
/// let mut index = [0i64; 3];
/// for linear in 0..24 {
///     index_util::linear_index_to_multidimensional_index_into(&s, linear, &mut index)?;
///     assert_eq!(index_util::multidimensional_index_to_linear_index(&s, &index)?, linear);
/// }
/// # Ok::<(), xla_shape::Error>(())
/// ```
///
/// # Errors
///
/// As [`linear_index_to_multidimensional_index`], and `out` does not have
/// one entry per dimension. `out` is unspecified after an error.
pub fn linear_index_to_multidimensional_index_into(
    shape: &ArrayShape,
    linear_index: i64,
    out: &mut [i64],
) -> Result<()> {
    let layout = require_layout(shape)?;
    let dims = shape.dimensions();
    if out.len() != dims.len() {
        return Err(bad_index(shape, out));
    }
    // Digit by digit, most minor first, in unsigned arithmetic (a
    // division of `u64`s is cheaper than one of `i64`s). The most major
    // digit is what is left once the others are taken: it needs no
    // division, only the check that it is below its dimension's size, which
    // is what makes `0 <= linear_index < elements_in(shape)`.
    if linear_index >= 0 {
        let mut rest = linear_index as u64;
        match layout.minor_to_major().split_last() {
            Some((&major, minor)) => {
                let mut ok = true;
                for &d in minor {
                    let (Some(&size), Some(slot)) = (dims.get(d as usize), out.get_mut(d as usize))
                    else {
                        continue;
                    };
                    if size <= 0 {
                        ok = false;
                        break;
                    }
                    *slot = (rest % size as u64) as i64;
                    rest /= size as u64;
                }
                if let (true, Some(&size), Some(slot)) =
                    (ok, dims.get(major as usize), out.get_mut(major as usize))
                    && size > 0
                    && rest < size as u64
                {
                    *slot = rest as i64;
                    return Ok(());
                }
            }
            None if rest == 0 => return Ok(()),
            None => {}
        }
    }
    let count = shape.element_count()?;
    Err(Error::invalid_argument(format!(
        "linear index {linear_index} is out of bounds for shape {shape} of {count} elements"
    )))
}

/// XLA's `IndexUtil::BumpIndices`: advances `index` to the next index in
/// **row-major** order, whatever the layout (the last dimension fastest):
/// returns `false`, leaving `index` unchanged, when it is the last one.
///
/// ```
/// use xla_shape::{ArrayShape, PrimitiveType, index_util};
/// let s = ArrayShape::new(PrimitiveType::F32, [2, 3])?;
/// let mut i = [0, 2];
/// assert!(index_util::bump_indices(&s, &mut i)?);
/// assert_eq!(i, [1, 0]); // the example of `BumpIndices` in xla/index_util.h
/// # Ok::<(), xla_shape::Error>(())
/// ```
///
/// # Errors
///
/// `index` does not have one entry per dimension.
#[doc(alias = "IndexUtil::BumpIndices")]
pub fn bump_indices(shape: &ArrayShape, index: &mut [i64]) -> Result<bool> {
    let dims = shape.dimensions();
    if index.len() != dims.len() {
        return Err(bad_index(shape, index));
    }
    Ok(next_row_major(index, dims).is_some())
}

/// The crate's index odometer: advances `index` to the next index in
/// row-major order within `dims` and returns the dimension it
/// incremented (every later one is reset to 0); `None`, leaving `index`
/// unchanged, when it is the last. `index` and `dims` have the same
/// length.
#[inline]
pub(crate) fn next_row_major(index: &mut [i64], dims: &[i64]) -> Option<usize> {
    for d in (0..dims.len()).rev() {
        if index[d].saturating_add(1) < dims[d] {
            index[d] += 1;
            for later in &mut index[d + 1..] {
                *later = 0;
            }
            return Some(d);
        }
    }
    None
}

/// XLA's `IndexUtil::GetDimensionStride`: how far apart, in elements, two
/// elements whose indices differ by one in `dimension` are (tiles
/// ignored): the product of the dimensions more minor than it. A number
/// that is not a dimension of the shape gets the product of all of them,
/// as upstream.
///
/// ```
/// use xla_shape::{ArrayShape, PrimitiveType, index_util};
/// // F32[5,8,10,4]{3,2,1,0}, dimension 1: 4 * 10 (the example of `GetDimensionStride` in xla/index_util.h).
/// let s = ArrayShape::new(PrimitiveType::F32, [5, 8, 10, 4])?;
/// assert_eq!(index_util::get_dimension_stride(&s, 1)?, 40);
/// # Ok::<(), xla_shape::Error>(())
/// ```
///
/// # Errors
///
/// The shape has no layout; the product overflows `i64` (possible only
/// with unbounded dimensions).
#[doc(alias = "IndexUtil::GetDimensionStride")]
pub fn get_dimension_stride(shape: &ArrayShape, dimension: i64) -> Result<i64> {
    let layout = require_layout(shape)?;
    let mut stride = 1i64;
    for &d in layout.minor_to_major() {
        if d == dimension {
            break;
        }
        stride = stride
            .checked_mul(shape.dimensions()[d as usize])
            .ok_or_else(|| {
                Error::overflow(format!(
                    "stride of dimension {dimension} of {shape} overflows int64"
                ))
            })?;
    }
    Ok(stride)
}

/// XLA's `IndexUtil::IndexInBounds`: `index` has one entry per dimension
/// and none is at or past its dimension's size. As upstream, negative
/// entries count as in bounds.
///
/// ```
/// use xla_shape::{PrimitiveType as T, index_util, shape_util};
/// let s = shape_util::make_shape(T::F32, &[2, 3]);
/// assert!(index_util::index_in_bounds(&s, &[1, 2]));
/// assert!(!index_util::index_in_bounds(&s, &[2, 0]));
/// ```
#[doc(alias = "IndexUtil::IndexInBounds")]
pub fn index_in_bounds(shape: &ArrayShape, index: &[i64]) -> bool {
    index.len() == shape.rank() && index.iter().zip(shape.dimensions()).all(|(&i, &d)| i < d)
}

/// XLA's `IndexUtil::CompareIndices`: lexicographic order, index 0 first
/// (upstream returns -1, 0 or 1; the signs are those of
/// [`Ordering::Less`], `Equal` and `Greater`, whatever XLA's header comment
/// says). Where XLA `CHECK`s that the lengths are equal, a shorter index
/// that is a prefix of the other compares less.
///
/// ```
/// use std::cmp::Ordering;
/// use xla_shape::index_util::compare_indices;
/// assert_eq!(compare_indices(&[0, 9], &[1, 0]), Ordering::Less);
/// ```
#[doc(alias = "IndexUtil::CompareIndices")]
pub fn compare_indices(lhs: &[i64], rhs: &[i64]) -> Ordering {
    lhs.cmp(rhs)
}
