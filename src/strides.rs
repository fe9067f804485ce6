//! Layouts and strides: dense layout -> strides, strides -> layout (DLPack,
//! NumPy), DirectML-style strided views and their buffer sizes.
//!
//! A stride is the distance between neighbouring elements of a dimension:
//! in elements (DLPack, DirectML) or in bytes (NumPy). An XLA layout has
//! strides when every dimension's elements are evenly spaced: always
//! without tiles, sometimes with them (`f32[2,128]{1,0:T(8,128)}` is
//! row-major with 6 rows of padding).
//!
//! ```
//! use xla_shape::strides::{byte_strides, element_strides, layout_from_strides};
//! use xla_shape::{ArrayShape, Layout, PrimitiveType};
//!
//! let nhwc = ArrayShape::new(PrimitiveType::F32, [2, 3, 4, 5])?
//!     .with_layout(Some(Layout::new([1, 3, 2, 0])))?;
//! assert_eq!(element_strides(&nhwc)?, [60, 1, 15, 3]);
//! assert_eq!(byte_strides(&nhwc)?, [240, 4, 60, 12]);
//! assert_eq!(layout_from_strides(&[2, 3, 4, 5], &[60, 1, 15, 3])?.minor_to_major(), [1, 3, 2, 0]);
//! # Ok::<(), xla_shape::Error>(())
//! ```

pub(crate) mod compact;

use crate::error::{Error, Result};
use crate::model::{ArrayShape, Layout, PrimitiveType};
use crate::tiling::{TiledLayout, byte_width};

use compact::{NoLayout, Rules, compact_layout};

/// The element strides of `shape`'s layout: element `i` is at element
/// offset `sum(i[d] * strides[d])`.
///
/// Without tiles this is XLA's `ShapeUtil::ByteStrides` in elements
/// (size-1 dimensions get the stride of their place in `minor_to_major`).
/// With tiles, the layout has strides when every dimension's elements stay
/// evenly spaced, padding between rows allowed.
///
/// # Errors
///
/// `InvalidArgument`, saying why: no layout, an unbounded dimension, or
/// tiles that cut a dimension into pieces that are not evenly spaced.
pub fn element_strides(shape: &ArrayShape) -> Result<Vec<i64>> {
    let tiled = TiledLayout::new(shape)?;
    let Some(layout) = shape.layout() else {
        return Err(Error::invalid_argument(format!("{shape} has no layout")));
    };
    let dims = tiled.dimensions();
    if layout.tiles().is_empty() || tiled.element_count() == 0 {
        let mut strides = vec![0i64; dims.len()];
        let mut running = 1i64;
        for &d in layout.minor_to_major() {
            strides[d as usize] = running;
            running = running.saturating_mul(dims[d as usize]);
        }
        return Ok(strides);
    }
    let not_strided =
        |why: String| Error::invalid_argument(format!("{shape} has no strides: {why}"));
    let terms = tiled.terms().ok_or_else(|| {
        not_strided("its tiles cut dimensions across tile boundaries".to_string())
    })?;
    let mut strides = vec![None; dims.len()];
    for (d, slot) in strides.iter_mut().enumerate() {
        let mut digits: Vec<_> = terms.iter().filter(|t| t.dim == d).collect();
        digits.sort_by_key(|t| t.weight);
        let Some(first) = digits.first() else {
            continue;
        };
        for pair in digits.windows(2) {
            if pair[1].stride != pair[0].stride.saturating_mul(pair[0].extent) {
                return Err(not_strided(format!(
                    "the tiles split dimension {d} (size {}) into pieces of {} elements that are not evenly spaced",
                    dims[d], pair[1].weight
                )));
            }
        }
        *slot = Some(first.stride);
    }
    // Dimensions of size 1 take the stride of their place in memory.
    let mut out = vec![0i64; dims.len()];
    let mut running = 1i64;
    for &d in layout.minor_to_major() {
        let d = d as usize;
        out[d] = strides[d].unwrap_or(running);
        let extent = terms
            .iter()
            .filter(|t| t.dim == d)
            .map(|t| t.extent)
            .product::<i64>();
        running = out[d].saturating_mul(extent.max(1));
    }
    Ok(out)
}

/// The byte strides of `shape`'s layout: [`element_strides`] times the
/// element size.
///
/// # Errors
///
/// As [`element_strides`], and `InvalidArgument` when elements are not a
/// whole number of bytes (`E(4)` packs two elements per byte).
pub fn byte_strides(shape: &ArrayShape) -> Result<Vec<i64>> {
    let bits = TiledLayout::new(shape)?.element_size_in_bits();
    if bits % 8 != 0 {
        return Err(Error::invalid_argument(format!(
            "{shape} has no byte strides: its elements take {bits} bits, not a whole number of bytes"
        )));
    }
    element_strides(shape)?
        .into_iter()
        .map(|s| {
            s.checked_mul(bits / 8).ok_or_else(|| {
                Error::overflow(format!("the byte strides of {shape} overflow int64_t"))
            })
        })
        .collect()
}

/// The dense layout whose element strides are `strides`, as a DLPack or
/// NumPy importer needs: dimensions are ordered by stride, and the
/// strides must be those of a packed array in that order. Dimensions of
/// size 1 accept any stride, and when some dimension is 0 (no element)
/// every stride is accepted and the layout is the default descending one.
///
/// Call this for strides from anywhere (NumPy's, DirectML's, a C
/// library's), and [`dlpack::strides_to_layout`](crate::interop::dlpack::strides_to_layout)
/// for what XLA's own DLPack importer decides. The two run one algorithm
/// and differ only where a dimension has at most one element: here a
/// size-1 dimension sits where its stride puts it and an empty array is
/// always accepted; XLA makes such arrays row-major when it can.
///
/// ```
/// use xla_shape::strides::layout_from_strides;
/// // Column-major 2x3 (DirectML's "WH").
/// assert_eq!(layout_from_strides(&[2, 3], &[1, 2])?.minor_to_major(), [0, 1]);
/// // A padded view (a row stride of 5 for rows of 3) has no layout.
/// assert_eq!(
///     layout_from_strides(&[2, 3], &[5, 1]).unwrap_err().to_string(),
///     "strides [5, 1] of dimensions [2, 3] are not a permutation of a packed layout: dimension 0 has stride 5 where a compact layout needs 3: a gap between elements"
/// );
/// # Ok::<(), xla_shape::Error>(())
/// ```
///
/// # Errors
///
/// `InvalidArgument` naming the offending dimensions: a length mismatch, a
/// negative size or stride, two dimensions with the same stride
/// (overlapping), or a stride that leaves gaps. Of several strides that
/// are not packed, the first in stride order is named.
pub fn layout_from_strides(dims: &[i64], strides: &[i64]) -> Result<Layout> {
    compact_layout(dims, strides, Rules::Packed).map_err(|e| match e {
        NoLayout::NotCompact(_) => Error::invalid_argument(format!(
            "strides {strides:?} of dimensions {dims:?} are not a permutation of a packed layout: {e}"
        )),
        _ => Error::invalid_argument(e.to_string()),
    })
}

/// [`layout_from_strides`] for byte strides (NumPy's), with elements of
/// `element_type` (`ByteWidth` bytes each).
///
/// # Errors
///
/// As [`layout_from_strides`], and `InvalidArgument` when a stride of a
/// dimension larger than 1 is not a multiple of the element size.
pub fn layout_from_byte_strides(
    element_type: PrimitiveType,
    dims: &[i64],
    byte_strides: &[i64],
) -> Result<Layout> {
    let e = byte_width(element_type);
    let mut strides = Vec::with_capacity(byte_strides.len());
    for (d, &s) in byte_strides.iter().enumerate() {
        if dims.get(d).is_some_and(|&n| n > 1) && s % e != 0 {
            return Err(Error::invalid_argument(format!(
                "byte stride {s} of dimension {d} is not a multiple of the {e}-byte element size of {}",
                element_type.lowercase_name()
            )));
        }
        strides.push(s / e);
    }
    layout_from_strides(dims, &strides)
}

/// How a sizes + strides view uses its buffer, in the terms of DirectML's
/// "Using strides to express padding and memory layout".
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ViewKind {
    /// Every element has its own slot and there is no gap: the buffer
    /// holds exactly the elements (`2x3` with strides `{3,1}` or `{1,2}`).
    Packed,
    /// No two elements share a slot, but there are gaps (`2x3` with a
    /// height stride of 5: `A B C x x D E F`).
    Padded,
    /// These dimensions (of size > 1) have stride 0: their elements repeat
    /// the same slots (`2x3` with strides `{0,1}`: both rows are `A B C`).
    /// The other dimensions may be packed or padded.
    Broadcast {
        /// The dimensions with stride 0.
        dims: Vec<usize>,
    },
    /// Distinct elements share slots without a zero stride (`2x3` with
    /// strides `{1,1}`).
    Overlapping {
        /// Two dimensions whose strides make elements collide, in
        /// increasing order.
        dims: Vec<usize>,
    },
}

/// Most elements enumerated to decide whether interleaved strides overlap.
const MAX_ENUMERATED: i64 = 1 << 22;

/// Classifies a view of `sizes` with element `strides` (DirectML's are
/// unsigned): overlapping first, then broadcast, padded, packed.
///
/// ```
/// use xla_shape::strides::{ViewKind, classify_view};
/// assert_eq!(classify_view(&[2, 3], &[3, 1])?, ViewKind::Packed);
/// assert_eq!(classify_view(&[2, 3], &[0, 1])?, ViewKind::Broadcast { dims: vec![0] });
/// assert_eq!(classify_view(&[2, 3], &[5, 1])?, ViewKind::Padded);
/// # Ok::<(), xla_shape::Error>(())
/// ```
///
/// # Errors
///
/// `InvalidArgument` for a length mismatch, a negative size or stride, or
/// interleaved strides over more than 4 Mi elements (whether they overlap
/// is then not decided).
pub fn classify_view(sizes: &[i64], strides: &[i64]) -> Result<ViewKind> {
    check_view(sizes, strides)?;
    if sizes.contains(&0) {
        return Ok(ViewKind::Packed);
    }
    let broadcast: Vec<usize> = (0..sizes.len())
        .filter(|&d| sizes[d] > 1 && strides[d] == 0)
        .collect();
    let mut rest: Vec<usize> = (0..sizes.len())
        .filter(|&d| sizes[d] > 1 && strides[d] > 0)
        .collect();
    rest.sort_by_key(|&d| strides[d]);
    // Non-interleaved: each stride passes the span of the smaller ones.
    let mut span = 0i128;
    let mut interleaved = None;
    for (k, &d) in rest.iter().enumerate() {
        if i128::from(strides[d]) <= span {
            interleaved = Some((rest[k - 1], d));
            break;
        }
        span += i128::from(strides[d]) * i128::from(sizes[d] - 1);
    }
    if let Some((a, b)) = interleaved {
        let count = rest
            .iter()
            .try_fold(1i64, |acc, &d| acc.checked_mul(sizes[d]));
        match count {
            Some(n) if n <= MAX_ENUMERATED => {
                // In i128: each offset is at most the sum of (size - 1) *
                // stride, below 2^22 * 2^63 as the sizes multiply to at
                // most 2^22, while i64 strides near 2^62 overflow i64.
                let mut offsets = vec![0i128];
                for &d in &rest {
                    let stride = i128::from(strides[d]);
                    offsets = offsets
                        .iter()
                        .flat_map(|&o| (0..sizes[d]).map(move |i| o + i128::from(i) * stride))
                        .collect();
                }
                offsets.sort_unstable();
                if offsets.windows(2).any(|w| w[0] == w[1]) {
                    return Ok(ViewKind::Overlapping {
                        dims: vec![a.min(b), a.max(b)],
                    });
                }
            }
            _ => {
                return Err(Error::invalid_argument(format!(
                    "strides {strides:?} of sizes {sizes:?} interleave dimensions {a} and {b} over too many elements to decide whether they overlap"
                )));
            }
        }
    }
    if !broadcast.is_empty() {
        return Ok(ViewKind::Broadcast { dims: broadcast });
    }
    // No two elements share a slot, so the slots reach at least as far as
    // the element count: packed when the last element's offset is one less
    // than the count. An offset past i128 is past every count that fits.
    let count = sizes
        .iter()
        .try_fold(1i128, |acc, &s| acc.checked_mul(i128::from(s)));
    Ok(match (last_offset(sizes, strides), count) {
        (Some(last), Some(count)) if last + 1 == count => ViewKind::Packed,
        _ => ViewKind::Padded,
    })
}

/// The offset of the last element of a view with at least one element,
/// `sum((size - 1) * stride)`, or `None` past `i128`.
fn last_offset(sizes: &[i64], strides: &[i64]) -> Option<i128> {
    sizes.iter().zip(strides).try_fold(0i128, |acc, (&s, &st)| {
        acc.checked_add(i128::from(s - 1).checked_mul(i128::from(st))?)
    })
}

fn check_view(sizes: &[i64], strides: &[i64]) -> Result<()> {
    if sizes.len() != strides.len() {
        return Err(Error::invalid_argument(format!(
            "{} strides given for {} sizes",
            strides.len(),
            sizes.len()
        )));
    }
    if let Some(d) = (0..sizes.len()).find(|&d| sizes[d] < 0 || strides[d] < 0) {
        return Err(Error::invalid_argument(format!(
            "dimension {d} has size {} and stride {}: both must be non-negative",
            sizes[d], strides[d]
        )));
    }
    Ok(())
}

/// The minimum buffer size in bytes of a view, by DirectML's
/// `DMLCalcBufferTensorSize`: `(offset of the last element + 1) * element
/// size`, or the product of the sizes times the element size when no
/// strides are given, rounded up to a multiple of 4 bytes. Sub-byte
/// integer types (`s4`, `u4`, ...) count their bits, as DirectMLX does for
/// `INT4`/`UINT4`; other types count `ByteWidth` bytes.
///
/// ```
/// use xla_shape::PrimitiveType;
/// use xla_shape::strides::dml_buffer_tensor_size;
/// // A 2x3 u8 view with a height stride of 5: last element at 7, 8 bytes.
/// assert_eq!(dml_buffer_tensor_size(PrimitiveType::U8, &[2, 3], Some(&[5, 1]))?, 8);
/// // Broadcast rows: 3 bytes, rounded up to 4.
/// assert_eq!(dml_buffer_tensor_size(PrimitiveType::U8, &[2, 3], Some(&[0, 1]))?, 4);
/// # Ok::<(), xla_shape::Error>(())
/// ```
///
/// # Errors
///
/// `InvalidArgument` for a length mismatch or a negative size or stride;
/// `Overflow` when the size does not fit `u64`.
#[doc(alias = "DMLCalcBufferTensorSize")]
pub fn dml_buffer_tensor_size(
    element_type: PrimitiveType,
    sizes: &[i64],
    strides: Option<&[i64]>,
) -> Result<u64> {
    let bits: i128 = if element_type.is_sub_byte_non_pred() {
        i128::from(element_type.bit_width().unwrap_or(8))
    } else {
        8 * i128::from(byte_width(element_type))
    };
    let elements: Option<i128> = match strides {
        None => {
            check_view(sizes, &vec![0; sizes.len()])?;
            if sizes.contains(&0) {
                Some(0)
            } else {
                sizes
                    .iter()
                    .try_fold(1i128, |acc, &s| acc.checked_mul(i128::from(s)))
            }
        }
        Some(strides) => {
            check_view(sizes, strides)?;
            if sizes.contains(&0) {
                Some(0)
            } else {
                last_offset(sizes, strides).and_then(|last| last.checked_add(1))
            }
        }
    };
    let bytes = elements
        .and_then(|n| n.checked_mul(bits))
        .and_then(|b| b.checked_add(7))
        .map(|b| b / 8)
        .and_then(|b| u64::try_from(b).ok()?.checked_next_multiple_of(4));
    bytes.ok_or_else(|| {
        Error::overflow(format!(
            "the buffer of a {} view of sizes {sizes:?}{} does not fit u64 bytes",
            element_type.lowercase_name(),
            match strides {
                Some(st) => format!(" and strides {st:?}"),
                None => String::new(),
            }
        ))
    })
}

/// The physical order of DirectML's NCHW / NCDHW sizes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DmlLayout {
    /// Channels before the spatial dimensions (`NCHW`, `NCDHW`): packed
    /// row-major strides.
    Nchw,
    /// Channels last (`NHWC`, `NDHWC`).
    Nhwc,
}

/// The strides DirectML needs for data stored in `layout`, given sizes in
/// DirectML's fixed order (`{N,C,H,W}` or `{N,C,D,H,W}`); a dimension
/// marked in `broadcast` gets stride 0 and counts as size 1 (DirectML's
/// `CalculateStrides` helper, extended to 5-D).
///
/// ```
/// use xla_shape::strides::{DmlLayout, dml_strides};
/// // DirectML's example: a 3x5 tensor as { 1, 1, 3, 5 }.
/// assert_eq!(dml_strides(DmlLayout::Nchw, &[1, 1, 3, 5], &[])?, [15, 15, 5, 1]);
/// assert_eq!(dml_strides(DmlLayout::Nhwc, &[1, 1, 3, 5], &[])?, [15, 1, 5, 1]);
/// # Ok::<(), xla_shape::Error>(())
/// ```
///
/// # Errors
///
/// `InvalidArgument` when `sizes` is not 4 or 5 long, `broadcast` is
/// neither empty nor as long, or a size is negative.
pub fn dml_strides(layout: DmlLayout, sizes: &[i64], broadcast: &[bool]) -> Result<Vec<i64>> {
    let n = sizes.len();
    if n != 4 && n != 5 {
        return Err(Error::invalid_argument(format!(
            "DirectML views have 4 or 5 dimensions, not {n}"
        )));
    }
    if !broadcast.is_empty() && broadcast.len() != n {
        return Err(Error::invalid_argument(format!(
            "{} broadcast flags given for {n} sizes",
            broadcast.len()
        )));
    }
    if let Some(d) = sizes.iter().position(|&s| s < 0) {
        return Err(Error::invalid_argument(format!(
            "size {d} is negative: {}",
            sizes[d]
        )));
    }
    let is_b = |d: usize| broadcast.get(d).copied().unwrap_or(false);
    // Memory order, most minor first: W, H, (D), C, N or C, W, H, (D), N.
    let minor_first: Vec<usize> = match layout {
        DmlLayout::Nchw => (0..n).rev().collect(),
        DmlLayout::Nhwc => std::iter::once(1).chain((2..n).rev()).chain([0]).collect(),
    };
    let mut strides = vec![0i64; n];
    let mut running = 1i64;
    for d in minor_first {
        if is_b(d) {
            continue;
        }
        strides[d] = running;
        running = running
            .checked_mul(sizes[d])
            .ok_or_else(|| Error::overflow("DirectML strides overflow int64_t"))?;
    }
    Ok(strides)
}

/// A DirectML buffer tensor view: `DML_BUFFER_TENSOR_DESC::Sizes` and
/// `Strides`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DmlView {
    /// Sizes in DirectML's fixed order, leading 1s added.
    pub sizes: Vec<u32>,
    /// Element strides, same order.
    pub strides: Vec<u32>,
}

/// The 4-D (rank <= 4) or 5-D (rank 5) DirectML view of an XLA array whose
/// logical dimensions are in DirectML's order (`N,C,H,W` or `N,C,D,H,W`,
/// lower ranks the trailing ones): its [`element_strides`], with leading
/// size-1 dimensions whose stride spans the whole array, as DirectML's
/// examples write them.
///
/// ```
/// use xla_shape::strides::dml_view;
/// use xla_shape::{ArrayShape, Layout, PrimitiveType};
/// // f32[3,5] ("HW"), packed NCHW: sizes {1,1,3,5}, strides {15,15,5,1}.
/// let hw = ArrayShape::new(PrimitiveType::F32, [3, 5])?;
/// let v = dml_view(&hw)?;
/// assert_eq!((v.sizes, v.strides), (vec![1, 1, 3, 5], vec![15, 15, 5, 1]));
/// # Ok::<(), xla_shape::Error>(())
/// ```
///
/// # Errors
///
/// `InvalidArgument` for rank > 5 or a layout without strides
/// ([`element_strides`]); `Overflow` when a size or stride exceeds `u32`.
pub fn dml_view(shape: &ArrayShape) -> Result<DmlView> {
    let rank = shape.rank();
    if rank > 5 {
        return Err(Error::invalid_argument(format!(
            "DirectML views have at most 5 dimensions; {shape} has {rank}"
        )));
    }
    let strides = element_strides(shape)?;
    let dims = shape.dimensions();
    let target = if rank == 5 { 5 } else { 4 };
    let span = dims
        .iter()
        .zip(&strides)
        .map(|(&n, &s)| i128::from(n) * i128::from(s))
        .max()
        .unwrap_or(1)
        .max(1);
    let to_u32 = |v: i128| {
        u32::try_from(v).map_err(|_| {
            Error::overflow(format!(
                "{v} does not fit the u32 sizes and strides of DirectML ({shape})"
            ))
        })
    };
    let mut view = DmlView {
        sizes: Vec::with_capacity(target),
        strides: Vec::with_capacity(target),
    };
    for _ in rank..target {
        view.sizes.push(1);
        view.strides.push(to_u32(span)?);
    }
    for (&n, &s) in dims.iter().zip(&strides) {
        view.sizes.push(to_u32(i128::from(n))?);
        view.strides.push(to_u32(i128::from(s))?);
    }
    Ok(view)
}

#[cfg(feature = "ndarray")]
mod view;
#[cfg(feature = "ndarray")]
pub use view::{ViewElement, ndarray_view};
