//! Planning a copy: both sides cut into a common set of mixed-radix digits
//! per dimension, so that every element's offset is a sum of digit times
//! stride on both sides; the digit space is then a union of boxes (one
//! when no dimension is padded), each copied by a [`BoxCopy`].

use crate::relayout::kernel::{Axis, BoxCopy};
use crate::tiling::Term;

/// One digit of a dimension on one side: `(index / weight) % extent`,
/// stored `stride` bits apart.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Digit {
    pub(crate) dim: usize,
    pub(crate) weight: i64,
    pub(crate) extent: i64,
    pub(crate) stride: i64,
}

/// The digits of a tiled layout, strides in bits; the digits of the
/// leading size-1 dimensions only long tiles see are 0 for every element,
/// and dropped.
pub(crate) fn layout_digits(terms: &[Term], rank: usize, bits: i64) -> Option<Vec<Digit>> {
    terms
        .iter()
        .filter(|t| t.dim < rank)
        .map(|t| {
            Some(Digit {
                dim: t.dim,
                weight: t.weight,
                extent: t.extent,
                stride: t.stride.checked_mul(bits)?,
            })
        })
        .collect()
}

/// A common digit of one dimension: weight, extent and the stride on each
/// side (bits).
#[derive(Clone, Copy, Debug)]
struct Common {
    weight: i64,
    extent: i64,
    a: i64,
    b: i64,
}

/// The common digits of dimension `dim` (size `size`), least significant
/// first, or `None` when the two sides cut it at weights that do not
/// divide each other (or a side's digits do not tile the dimension).
fn refine(dim: usize, size: i64, a: &[Digit], b: &[Digit]) -> Option<Vec<Common>> {
    if size <= 1 {
        return Some(Vec::new());
    }
    let side = |ds: &[Digit]| -> Option<Vec<Digit>> {
        let mut mine: Vec<Digit> = ds.iter().copied().filter(|d| d.dim == dim).collect();
        mine.sort_by_key(|d| d.weight);
        let mut next = 1i64;
        for d in &mine {
            if d.weight != next {
                return None;
            }
            next = d.weight.saturating_mul(d.extent);
        }
        if next < size {
            return None;
        }
        Some(mine)
    };
    let (a, b) = (side(a)?, side(b)?);
    let mut cuts: Vec<i64> = std::iter::once(1)
        .chain(a.iter().chain(&b).map(|d| d.weight))
        .filter(|&w| w < size)
        .collect();
    cuts.sort_unstable();
    cuts.dedup();
    let stride_at = |ds: &[Digit], cut: i64| -> Option<i64> {
        let d = ds.iter().rev().find(|d| d.weight <= cut)?;
        if cut % d.weight != 0 {
            return None;
        }
        d.stride.checked_mul(cut / d.weight)
    };
    let mut out = Vec::with_capacity(cuts.len());
    for (k, &cut) in cuts.iter().enumerate() {
        let extent = match cuts.get(k + 1) {
            Some(&next) if next % cut == 0 => next / cut,
            Some(_) => return None,
            None => size / cut + i64::from(size % cut != 0),
        };
        out.push(Common {
            weight: cut,
            extent,
            a: stride_at(&a, cut)?,
            b: stride_at(&b, cut)?,
        });
    }
    Some(out)
}

/// Per digit of a dimension: first value and count.
type DimBox = Vec<(i64, i64)>;

/// The boxes (per digit: first value, count) that hold exactly the values
/// `< size` of the digits `ds` (least significant first).
fn dim_boxes(ds: &[Common], size: i64) -> Vec<DimBox> {
    let full: Vec<(i64, i64)> = ds.iter().map(|d| (0, d.extent)).collect();
    let Some(top) = ds.last() else {
        return vec![full];
    };
    if top.weight.checked_mul(top.extent) == Some(size) {
        return vec![full];
    }
    let mut boxes = Vec::new();
    let mut fixed = full.clone();
    let mut left = size;
    for k in (0..ds.len()).rev() {
        let q = left / ds[k].weight;
        if q > 0 {
            let mut bx = fixed.clone();
            bx[k] = (0, q);
            boxes.push(bx);
        }
        fixed[k] = (q, 1);
        left -= q * ds[k].weight;
        if left == 0 {
            break;
        }
    }
    boxes
}

/// Most boxes a plan may have before the element-by-element copy is used.
const MAX_BOXES: usize = 4096;

/// The boxes copying every element of an array with dimensions `dims`
/// from side `a` (base offset `a_base` bits) to side `b`, element size
/// `unit` bits on both sides when `unit` is a whole number of bytes
/// (strides converted to bytes), else strides stay in bits. `None` when
/// the sides have no common digits.
pub(crate) fn boxes(
    dims: &[i64],
    a: &[Digit],
    a_base: i64,
    b: &[Digit],
    unit_bits: i64,
) -> Option<Vec<BoxAxes>> {
    let mut per_dim: Vec<(Vec<Common>, Vec<DimBox>)> = Vec::new();
    let mut count = 1usize;
    for (dim, &size) in dims.iter().enumerate() {
        let ds = refine(dim, size, a, b)?;
        let bx = dim_boxes(&ds, size);
        count = count.checked_mul(bx.len())?;
        per_dim.push((ds, bx));
    }
    if count > MAX_BOXES {
        return None;
    }
    let to_unit = |bits: i64| -> Option<isize> {
        if bits % unit_bits != 0 {
            return None;
        }
        isize::try_from(bits / unit_bits).ok()
    };
    let mut out = Vec::with_capacity(count);
    let mut choice = vec![0usize; per_dim.len()];
    loop {
        let (mut sa, mut sb) = (i128::from(a_base), 0i128);
        let mut axes = Vec::new();
        for ((ds, bx), &c) in per_dim.iter().zip(&choice) {
            for (d, &(first, n)) in ds.iter().zip(&bx[c]) {
                sa += i128::from(first) * i128::from(d.a);
                sb += i128::from(first) * i128::from(d.b);
                axes.push(Axis {
                    n: usize::try_from(n).ok()?,
                    s: to_unit(d.a)?,
                    d: to_unit(d.b)?,
                });
            }
        }
        out.push(BoxAxes {
            src: to_unit(i64::try_from(sa).ok()?)?,
            dst: to_unit(i64::try_from(sb).ok()?)?,
            axes,
        });
        // Next combination of per-dimension boxes.
        let mut k = choice.len();
        loop {
            if k == 0 {
                return Some(out);
            }
            k -= 1;
            choice[k] += 1;
            if choice[k] < per_dim[k].1.len() {
                break;
            }
            choice[k] = 0;
        }
    }
}

/// A box before it becomes a [`BoxCopy`]: first offsets and axes, in units.
#[derive(Clone, Debug)]
pub(crate) struct BoxAxes {
    pub(crate) src: isize,
    pub(crate) dst: isize,
    pub(crate) axes: Vec<Axis>,
}

impl BoxAxes {
    /// The copy of this box of `e`-byte elements; `None` when it spans
    /// more than memory holds ([`BoxCopy::new`]).
    pub(crate) fn into_copy(self, e: usize) -> Option<BoxCopy> {
        BoxCopy::new(self.src, self.dst, &self.axes, e)
    }
}
