//! Which bytes of a tiled buffer hold a slice of the array: the coalesced,
//! sorted byte ranges of a box of the index space, whether a dimension is
//! row-addressable, for hosts that read or write part of a device buffer
//! (a weight update of some rows, one expert of a stacked tensor) without
//! moving the whole of it.
//!
//! The arrangement is the one of XLA's tiled-layout document
//! (`xla/g3doc/tiled_layout.md`) as [`TiledLayout`] applies it. For the
//! layouts that cut each dimension into mixed-radix digits laid out most
//! significant first (every layout without `*`, TPU's `T(8,128)(2,1)`
//! included), the ranges are found by a walk over the digits in memory
//! order that emits a whole block as soon as every element under it is in
//! the box: the work is proportional to the number of ranges times the
//! number of digits, not to the number of elements. Other layouts (some
//! tiles with `*`, tiles that split a dimension's digits out of order) are
//! scanned slot by slot ([`TiledLayout::slot_into`]): linear in the buffer,
//! no allocation.
//!
//! Offsets are counted in slots (elements and padding) by
//! [`TiledLayout::slot_ranges`]; [`TiledLayout::byte_ranges`] turns them
//! into bytes. With sub-byte elements (`E(4)`: two per byte, packed as
//! XLA:CPU does, the first in the low bits) a byte range is every byte that
//! holds a bit of a selected element: its first and last bytes can also
//! hold bits of a neighbouring element outside the box (or of padding), and
//! two slot ranges that touch the same byte, or adjacent bytes, come out as
//! one byte range. A writer of such a range must merge those edge bytes;
//! the slot ranges say exactly which elements are the box's.

use std::ops::{ControlFlow, Range};

use crate::error::{Error, Result};

use super::{TiledLayout, bits_to_bytes};

/// One digit of the walk: the digit `(index[dim] / weight) % extent` (the
/// whole quotient for a dimension's most significant digit), `stride`
/// slots apart, in memory order (largest stride first).
#[derive(Clone, Copy, Debug)]
struct Digit {
    dim: usize,
    weight: i64,
    extent: i64,
    stride: i64,
}

/// The walk's state: per dimension the first index of the block the
/// fixed digits leave (`prefix`) and its size (`span`).
struct Walk<'a, F> {
    digits: &'a [Digit],
    start: &'a [i64],
    limit: &'a [i64],
    prefix: Vec<i64>,
    span: Vec<i64>,
    /// Dimensions whose block is not inside the box.
    partial: usize,
    pending: Option<Range<i64>>,
    f: F,
}

impl<F: FnMut(Range<i64>) -> ControlFlow<()>> Walk<'_, F> {
    fn inside(&self, d: usize) -> bool {
        self.prefix[d] >= self.start[d] && self.prefix[d] + self.span[d] <= self.limit[d]
    }

    /// Adds a range of slots, merged with the one before when they touch.
    fn emit(&mut self, r: Range<i64>) -> ControlFlow<()> {
        match &mut self.pending {
            Some(p) if p.end == r.start => {
                p.end = r.end;
                ControlFlow::Continue(())
            }
            Some(p) => {
                let done = std::mem::replace(p, r);
                (self.f)(done)
            }
            None => {
                self.pending = Some(r);
                ControlFlow::Continue(())
            }
        }
    }

    /// The block of digits `k..` at slot `base`, of `size` slots.
    fn walk(&mut self, k: usize, base: i64, size: i64) -> ControlFlow<()> {
        if self.partial == 0 {
            return self.emit(base..base + size);
        }
        let Some(&t) = self.digits.get(k) else {
            // Every digit fixed: each dimension is one index, in the box
            // (the digits are chosen so); not reached.
            return ControlFlow::Continue(());
        };
        let d = t.dim;
        let (p, w) = (self.prefix[d], t.weight);
        let (s, l) = (self.start[d], self.limit[d]);
        // The values whose block of `w` indices meets the box ...
        let lo = (s - p).max(0) / w;
        let hi = ((l - p).saturating_add(w - 1) / w).min(t.extent);
        // ... and those whose block lies inside it.
        let full_lo = (s - p).max(0).saturating_add(w - 1) / w;
        let full_hi = ((l - p) / w).min(t.extent);
        let was_inside = self.inside(d);
        let others_inside = self.partial == usize::from(!was_inside);
        let old_span = self.span[d];
        self.span[d] = w;
        if was_inside {
            self.partial += 1;
        }
        let mut v = lo;
        let mut flow = ControlFlow::Continue(());
        while v < hi {
            if others_inside && v >= full_lo && v < full_hi {
                // Blocks inside the box in every dimension: one range.
                flow = self.emit(base + v * t.stride..base + full_hi * t.stride);
                v = full_hi;
            } else {
                self.prefix[d] = p + v * w;
                let inside = self.inside(d);
                self.partial -= usize::from(inside);
                flow = self.walk(k + 1, base + v * t.stride, t.stride);
                self.partial += usize::from(inside);
                v += 1;
            }
            if flow.is_break() {
                break;
            }
        }
        self.prefix[d] = p;
        self.span[d] = old_span;
        if was_inside {
            self.partial -= 1;
        }
        flow
    }
}

impl TiledLayout {
    /// The digits in memory order, when they describe every slot of the
    /// tiled part of the buffer exactly once and each dimension's digits
    /// come most significant first: the form [`Self::for_each_slot_range`]
    /// walks. Also the span of each dimension before any digit is fixed.
    fn walk_digits(&self) -> Option<(Vec<Digit>, Vec<i64>)> {
        let terms = self.terms.as_deref()?;
        let mut digits: Vec<Digit> = terms
            .iter()
            .map(|t| Digit {
                dim: t.dim,
                weight: t.weight,
                extent: t.extent,
                stride: t.stride,
            })
            .collect();
        digits.sort_by_key(|t| std::cmp::Reverse(t.stride));
        // Strides of a full mixed radix: the last 1, each the next's
        // stride times its extent, the first's block the whole tiled part.
        let mut next = 1i64;
        for t in digits.iter().rev() {
            if t.stride != next || t.extent < 1 || t.weight < 1 {
                return None;
            }
            next = next.checked_mul(t.extent)?;
        }
        if next != self.tiled_count {
            return None;
        }
        // Per dimension, in memory order: weights falling to 1, each the
        // next's weight times its extent.
        let mut spans = Vec::with_capacity(self.dims.len());
        for d in 0..self.dims.len() {
            let mut expect = None;
            let mut span = 1i64;
            for t in digits.iter().rev().filter(|t| t.dim == d) {
                let w = expect.unwrap_or(1);
                if t.weight != w {
                    return None;
                }
                span = t.weight.checked_mul(t.extent)?;
                expect = Some(span);
            }
            if span < self.dims[d] {
                return None;
            }
            spans.push(span);
        }
        Some((digits, spans))
    }

    /// `InvalidArgument` unless `start..limit` is a box of the index space:
    /// one bound per dimension, `0 <= start <= limit <= size`.
    fn check_box(&self, start: &[i64], limit: &[i64]) -> Result<()> {
        self.check_rank(start, "start")?;
        self.check_rank(limit, "limit")?;
        for (d, ((&s, &l), &size)) in start.iter().zip(limit).zip(&self.dims).enumerate() {
            if s < 0 || s > l || l > size {
                return Err(Error::invalid_argument(format!(
                    "the box {s}..{l} of dimension {d} is not within 0..{size} of {} (start must be at least 0 and at most limit)",
                    self.shape
                )));
            }
        }
        Ok(())
    }

    /// Calls `f` with each range of slots (offsets in elements, as
    /// [`offset`](Self::offset) counts them) that holds the elements of the
    /// box `start[d] <= index[d] < limit[d]`, in increasing order, adjacent
    /// ranges merged: exactly the slots of those elements. `f` stops the
    /// walk by returning [`ControlFlow::Break`].
    ///
    /// The walk goes over the tile digits in memory order and emits a whole
    /// block as soon as every element under it is in the box, so the work
    /// is proportional to the number of ranges (times the number of
    /// digits) for the layouts that cut each dimension into digits laid out
    /// most significant first (every layout without `*`, TPU's
    /// `T(8,128)(2,1)` included). Other layouts (some tiles with `*`, tiles
    /// that put a dimension's digits out of order) are scanned slot by slot
    /// with [`slot_into`](Self::slot_into): linear in the buffer, no
    /// allocation.
    ///
    /// # Errors
    ///
    /// `InvalidArgument` when `start` or `limit` does not have one entry
    /// per dimension, or the box is not within the shape.
    pub fn for_each_slot_range(
        &self,
        start: &[i64],
        limit: &[i64],
        f: impl FnMut(Range<i64>) -> ControlFlow<()>,
    ) -> Result<()> {
        self.check_box(start, limit)?;
        if start.iter().zip(limit).any(|(s, l)| s == l) {
            return Ok(());
        }
        let Some((digits, spans)) = self.walk_digits() else {
            self.scan_slots(start, limit, f);
            return Ok(());
        };
        // The leading size-1 dimensions long tiles add hold index 0.
        let mut lo = start.to_vec();
        let mut hi = limit.to_vec();
        lo.resize(self.dims.len(), 0);
        hi.resize(self.dims.len(), 1);
        let mut walk = Walk {
            digits: &digits,
            start: &lo,
            limit: &hi,
            prefix: vec![0; self.dims.len()],
            span: spans,
            partial: 0,
            pending: None,
            f,
        };
        walk.partial = (0..lo.len()).filter(|&d| !walk.inside(d)).count();
        if walk.walk(0, 0, self.tiled_count).is_continue()
            && let Some(last) = walk.pending.take()
        {
            let _ = (walk.f)(last);
        }
        Ok(())
    }

    /// Every slot in memory order, for layouts without a digit walk.
    fn scan_slots(
        &self,
        start: &[i64],
        limit: &[i64],
        mut f: impl FnMut(Range<i64>) -> ControlFlow<()>,
    ) {
        let mut index = vec![0i64; start.len()];
        let mut run: Option<Range<i64>> = None;
        for slot in 0..self.tiled_count {
            let hit = self.slot_into(slot, &mut index).unwrap_or(false)
                && index
                    .iter()
                    .zip(start.iter().zip(limit))
                    .all(|(&i, (&s, &l))| s <= i && i < l);
            match (&mut run, hit) {
                (Some(r), true) => r.end = slot + 1,
                (None, true) => run = Some(slot..slot + 1),
                (Some(_), false) => {
                    if let Some(r) = run.take()
                        && f(r).is_break()
                    {
                        return;
                    }
                }
                (None, false) => {}
            }
        }
        if let Some(r) = run {
            let _ = f(r);
        }
    }

    /// The ranges of slots that hold the box `start..limit` (see
    /// [`for_each_slot_range`](Self::for_each_slot_range)), at most
    /// `max_ranges` of them.
    ///
    /// ```
    /// use xla_shape::tiling::TiledLayout;
    /// use xla_shape::Shape;
    ///
    /// // Rows 8..16 of f32[24,384] in T(8,128) tiles: the second row of
    /// // tiles, three tiles of 1024 slots one after the other.
    /// let s: Shape = "f32[24,384]{1,0:T(8,128)}".parse()?;
    /// let t = TiledLayout::new(s.as_array().unwrap())?;
    /// assert_eq!(t.slot_ranges(&[8, 0], &[16, 384], 16)?, [3072..6144]);
    /// // Row 9 alone: 128 slots in each of the three tiles.
    /// assert_eq!(
    ///     t.slot_ranges(&[9, 0], &[10, 384], 16)?,
    ///     [3200..3328, 4224..4352, 5248..5376]
    /// );
    /// # Ok::<(), xla_shape::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`for_each_slot_range`](Self::for_each_slot_range), and
    /// `InvalidArgument` when the box needs more than `max_ranges` ranges.
    pub fn slot_ranges(
        &self,
        start: &[i64],
        limit: &[i64],
        max_ranges: usize,
    ) -> Result<Vec<Range<i64>>> {
        let mut out = Vec::new();
        let mut over = false;
        self.for_each_slot_range(start, limit, |r| {
            if out.len() == max_ranges {
                over = true;
                return ControlFlow::Break(());
            }
            out.push(r);
            ControlFlow::Continue(())
        })?;
        if over {
            return Err(too_many(max_ranges));
        }
        Ok(out)
    }

    /// The byte ranges of the buffer that hold the box `start..limit`,
    /// sorted, touching ranges merged, at most `max_ranges` of them. Each
    /// is `slots * bits / 8` rounded out to whole bytes. With sub-byte
    /// elements (`E(4)`: two per byte, the first in the low bits, as
    /// XLA:CPU packs them) a range is every byte that holds a bit of an
    /// element of the box: its first and last byte may also hold a
    /// neighbouring element outside the box (or padding), and slot ranges
    /// that share a byte or touch come out as one byte range. A writer of
    /// such a range must merge those edge bytes;
    /// [`slot_ranges`](Self::slot_ranges) says exactly which elements are
    /// the box's.
    ///
    /// ```
    /// use xla_shape::tiling::TiledLayout;
    /// use xla_shape::Shape;
    ///
    /// // bf16[16,256] in TPU's T(8,128)(2,1): rows 0..8 are the first two
    /// // tiles, 2 * 8 * 128 * 2 bytes.
    /// let s: Shape = "bf16[16,256]{1,0:T(8,128)(2,1)}".parse()?;
    /// let t = TiledLayout::new(s.as_array().unwrap())?;
    /// assert_eq!(t.byte_ranges(&[0, 0], &[8, 256], 16)?, [0..4096]);
    /// // Element (1,0) is the second half of the first 4-byte pair (0,0),(1,0).
    /// assert_eq!(t.byte_ranges(&[1, 0], &[2, 1], 16)?, [2..4]);
    /// # Ok::<(), xla_shape::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`slot_ranges`](Self::slot_ranges).
    pub fn byte_ranges(
        &self,
        start: &[i64],
        limit: &[i64],
        max_ranges: usize,
    ) -> Result<Vec<Range<u64>>> {
        let bits = self.element_bits;
        let mut out: Vec<Range<u64>> = Vec::new();
        let mut over = false;
        self.for_each_slot_range(start, limit, |r| {
            // Within the buffer, whose byte size fits i64 (checked by new).
            let lo = (i128::from(r.start) * i128::from(bits) / 8) as u64;
            let hi = bits_to_bytes(r.end, bits).unwrap_or(i64::MAX) as u64;
            if let Some(last) = out.last_mut()
                && last.end >= lo
            {
                last.end = last.end.max(hi);
            } else if out.len() == max_ranges {
                over = true;
                return ControlFlow::Break(());
            } else {
                out.push(lo..hi);
            }
            ControlFlow::Continue(())
        })?;
        if over {
            return Err(too_many(max_ranges));
        }
        Ok(out)
    }

    /// The byte ranges holding the indices `rows` of the layout's most
    /// major dimension (the last of `minor_to_major`), every index of the
    /// others: [`byte_ranges`](Self::byte_ranges) of that slab.
    ///
    /// # Errors
    ///
    /// As [`byte_ranges`](Self::byte_ranges); `InvalidArgument` for a
    /// scalar (no dimension to take rows of).
    pub fn row_byte_ranges(&self, rows: Range<i64>, max_ranges: usize) -> Result<Vec<Range<u64>>> {
        let major = self.major_dimension()?;
        let mut start = vec![0i64; self.shape.rank()];
        let mut limit = self.dimensions().to_vec();
        start[major] = rows.start;
        limit[major] = rows.end;
        self.byte_ranges(&start, &limit, max_ranges)
    }

    /// The layout's most major dimension: the last of `minor_to_major`.
    fn major_dimension(&self) -> Result<usize> {
        self.shape
            .layout()
            .and_then(|l| l.minor_to_major().last())
            .and_then(|&d| usize::try_from(d).ok())
            .ok_or_else(|| {
                Error::invalid_argument(format!("{} has no dimension to take rows of", self.shape))
            })
    }

    /// Whether dimension `dim` is row-addressable: for every index `i` of
    /// it, the elements with `index[dim] == i` fill one contiguous range of
    /// slots (nothing else inside it), so one read or write moves them. In
    /// row-major order every dimension whose minor dimensions are not
    /// padded is; in `T(8,128)` tiles of a rank-2 array the rows are when
    /// the array has at most 128 columns.
    ///
    /// ```
    /// use xla_shape::tiling::TiledLayout;
    /// use xla_shape::Shape;
    ///
    /// let rows = |s: &str| -> xla_shape::Result<bool> {
    ///     let s: Shape = s.parse()?;
    ///     TiledLayout::new(s.as_array().unwrap())?.is_row_addressable(0)
    /// };
    /// assert!(rows("f32[16,128]{1,0:T(8,128)}")?);
    /// assert!(rows("f32[16,100]{1,0:T(8,128)}")?); // padding after each row
    /// assert!(!rows("f32[16,256]{1,0:T(8,128)}")?); // a row in two tiles
    /// # Ok::<(), xla_shape::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// `InvalidArgument` when `dim` is not a dimension of the shape.
    pub fn is_row_addressable(&self, dim: usize) -> Result<bool> {
        let rank = self.shape.rank();
        if dim >= rank {
            return Err(Error::invalid_argument(format!(
                "dimension {dim} is out of bounds for {} of rank {rank}",
                self.shape
            )));
        }
        let dims = self.dimensions();
        if dims.contains(&0) {
            return Ok(true);
        }
        if self.walk_digits().is_none() {
            return self.scan_rows(dim);
        }
        // The slots of index `i` are those of index 0 moved by the digits
        // of `dim` alone: one index answers for all.
        let start = vec![0i64; rank];
        let mut limit = dims.to_vec();
        limit[dim] = 1;
        let mut count = 0usize;
        self.for_each_slot_range(&start, &limit, |_| {
            count += 1;
            if count > 1 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        })?;
        Ok(count <= 1)
    }

    /// [`is_row_addressable`](Self::is_row_addressable) for layouts
    /// without a digit walk: one scan of the slots in memory order, in
    /// which each index of `dim` must come in one run of elements and never
    /// again (a bit per index remembers those that ended).
    fn scan_rows(&self, dim: usize) -> Result<bool> {
        let size = usize::try_from(self.dims[dim]).unwrap_or(usize::MAX);
        let mut ended: Vec<u64> = Vec::new();
        ended
            .try_reserve_exact(size.div_ceil(64))
            .map_err(|_| Error::overflow("dimension too large to scan"))?;
        ended.resize(size.div_ceil(64), 0);
        let mut index = vec![0i64; self.shape.rank()];
        let mut current: Option<usize> = None;
        for slot in 0..self.tiled_count {
            let element = self.slot_into(slot, &mut index)?;
            let i = element.then(|| index[dim] as usize);
            if i == current {
                continue;
            }
            if let Some(c) = current {
                ended[c / 64] |= 1 << (c % 64);
            }
            if let Some(n) = i
                && ended[n / 64] & (1 << (n % 64)) != 0
            {
                return Ok(false);
            }
            current = i;
        }
        Ok(true)
    }
}

fn too_many(max: usize) -> Error {
    Error::invalid_argument(format!(
        "the box takes more than {max} byte ranges (raise the limit, or read it in smaller boxes)"
    ))
}
