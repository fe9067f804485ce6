//! The bytes of a destination that a copy writes as zero: a tiled
//! layout's padding (the tiles that run past the array's dimensions),
//! which XLA's buffers hold as zero and [`Relayout`](super::Relayout)
//! writes so.
//!
//! Zeroing the whole destination before the copy writes every byte
//! twice: a `[5000, 3390]` u8 array tiled `T(32,128)(4,1)` (2% padding)
//! spent a fifth of its time in that `memset`. Where the copy's boxes
//! write their destination in few runs (a tiled layout's boxes write
//! whole rows of tiles, or a partial tile's rows), only the bytes
//! between those runs are zeroed.

use std::ops::Range;

use super::kernel::{Axis, BoxCopy, Inner, for_each_position};

/// The most runs of written bytes [`Padding::of`] sorts through (4 MiB
/// of ranges); a copy whose boxes write more zeroes the whole
/// destination first.
const MAX_RUNS: usize = 1 << 18;

/// The fewest bytes of destination a run of written bytes must stand for
/// on average, or the whole destination is zeroed: finding and sorting
/// the runs costs about as much a run (13 ns, 45,000 runs of a padded
/// f32 `[40000, 130]` in `T(8,128)`) as zeroing 512 bytes does.
const BYTES_PER_RUN: usize = 512;

/// What a copy zeroes before it writes its elements.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Padding {
    /// Nothing: every byte of the destination is an element's.
    None,
    /// The whole destination.
    All,
    /// These ranges (sorted, disjoint, not empty): the bytes no box
    /// writes.
    Gaps(Vec<Range<usize>>),
}

impl Padding {
    /// The bytes of a destination of `size` bytes that `boxes` (of
    /// `e`-byte elements, each element written once) leave unwritten:
    /// [`Padding::Gaps`], or [`Padding::All`] where the boxes write more
    /// than [`MAX_RUNS`] runs or one per [`BYTES_PER_RUN`] bytes, or a
    /// box has a destination stride that is not positive.
    pub(crate) fn of(boxes: &[BoxCopy], e: usize, size: usize) -> Padding {
        let most = MAX_RUNS.min(size / BYTES_PER_RUN);
        let mut runs: Vec<Range<usize>> = Vec::new();
        for b in boxes {
            if !written_runs(b, e, most, &mut runs) {
                return Padding::All;
            }
        }
        // Each box's runs come in order: a stable sort merges them.
        runs.sort_by_key(|r| r.start);
        let mut gaps = Vec::new();
        let mut at = 0;
        for r in runs {
            if r.start > at {
                gaps.push(at..r.start);
            }
            at = at.max(r.end);
        }
        if at < size {
            gaps.push(at..size);
        }
        if gaps.is_empty() {
            Padding::None
        } else {
            Padding::Gaps(gaps)
        }
    }

    /// Writes zeros where [`Padding`] says, on the calling thread.
    pub(crate) fn zero(&self, dst: &mut [u8]) {
        match self {
            Padding::None => {}
            Padding::All => dst.fill(0),
            Padding::Gaps(gaps) => {
                for g in gaps {
                    dst[g.clone()].fill(0);
                }
            }
        }
    }

    /// [`zero`](Self::zero) on the threads of the current rayon pool,
    /// in pieces of at most 1 MiB.
    #[cfg(feature = "rayon")]
    pub(crate) fn zero_parallel(&self, dst: &mut [u8]) {
        use rayon::prelude::*;
        const PIECE: usize = 1 << 20;
        match self {
            Padding::None => {}
            Padding::All => dst.par_chunks_mut(PIECE).for_each(|c| c.fill(0)),
            Padding::Gaps(gaps) => {
                let total: usize = gaps.iter().map(|g| g.len()).sum();
                if total < PIECE {
                    return self.zero(dst);
                }
                // The gaps are sorted and disjoint: each its own part.
                super::disjoint_parts(dst, gaps.iter().cloned())
                    .into_par_iter()
                    .flat_map(|p| p.par_chunks_mut(PIECE))
                    .for_each(|c| c.fill(0));
            }
        }
    }
}

/// Appends to `runs` the destination byte ranges `b` writes: its axes
/// ordered by destination stride, those that continue the innermost
/// run make one run, repeated at every position of the others (in
/// order of address where their strides nest). `false` when that takes
/// `runs` past `most`, or a destination stride is not positive.
fn written_runs(b: &BoxCopy, e: usize, most: usize, runs: &mut Vec<Range<usize>>) -> bool {
    let mut axes: Vec<Axis> = b.outer.clone();
    let mut len = e;
    match b.inner {
        Inner::Run(n) => len = n,
        Inner::Transpose { i, j } => axes.extend([i, j]),
        Inner::Strided(a) => axes.push(a),
    }
    axes.retain(|a| a.n > 1);
    if axes.iter().any(|a| a.d <= 0) || b.dst < 0 {
        return false;
    }
    axes.sort_unstable_by_key(|a| a.d);
    let mut dense = 0;
    for a in &axes {
        if a.d as usize != len {
            break;
        }
        len = match len.checked_mul(a.n) {
            Some(l) => l,
            None => return false,
        };
        dense += 1;
    }
    let rest = &axes[dense..];
    let count = rest
        .iter()
        .try_fold(1usize, |c, a| c.checked_mul(a.n))
        .unwrap_or(usize::MAX);
    if count > most.saturating_sub(runs.len()) {
        return false;
    }
    // Every position of `rest`, the largest stride outermost.
    let major_first: Vec<Axis> = rest.iter().rev().copied().collect();
    for_each_position(&major_first, 0, b.dst, |_, at| {
        // Inside the destination (the plan checked the boxes' bounds).
        let at = at as usize;
        runs.push(at..at + len);
    });
    true
}

#[cfg(test)]
mod tests {
    use super::Padding;
    use crate::relayout::Relayout;
    use crate::{ArrayShape, Layout, PrimitiveType, Tile};

    /// Tiled layouts of `dims` with padding: the gaps are exactly the
    /// bytes the copy does not write. Derived here by running the copy
    /// twice, into a destination of 0xFF and one of 0x00 with the
    /// padding step left out: a byte the copy writes is equal in both,
    /// one it does not keeps the fill; the gaps are the latter. (Rows a
    /// whole number of sub-tiles: a partial `(4,1)` sub-tile writes
    /// every fourth byte, runs too many to sort, and the whole
    /// destination is zeroed.)
    #[test]
    fn gaps_are_the_bytes_no_element_is_written_to() {
        for (t, dims, tiles) in [
            (PrimitiveType::U8, [36, 3000], vec![[32, 128], [4, 1]]),
            (PrimitiveType::Bf16, [18, 2570], vec![[8, 128], [2, 1]]),
            (PrimitiveType::F32, [10, 1300], vec![[8, 128]]),
            (PrimitiveType::F32, [6, 3], vec![[8, 128]]),
            (PrimitiveType::F64, [9, 2000], vec![[4, 128]]),
        ] {
            let plain = ArrayShape::new(t, dims).unwrap();
            let tiles = tiles.into_iter().map(|d| Tile::new(d).unwrap()).collect();
            let tiled = plain
                .clone()
                .with_layout(Some(Layout::new([1, 0]).with_tiles(tiles)))
                .unwrap();
            let plan = Relayout::new(&plain, &tiled).unwrap();
            let src: Vec<u8> = (0..plan.src_byte_size()).map(|k| (k % 251) as u8).collect();
            let n = plan.dst_byte_size();
            let written = |fill: u8| {
                let mut dst = vec![fill; n];
                plan.copy_elements(&src, &mut dst);
                dst
            };
            let (ff, zero) = (written(0xFF), written(0));
            let mut expected = Vec::new();
            for k in 0..n {
                let unwritten = ff[k] == 0xFF && zero[k] == 0;
                match expected.last_mut() {
                    Some(r @ std::ops::Range { .. }) if unwritten && r.end == k => r.end = k + 1,
                    _ if unwritten => expected.push(k..k + 1),
                    _ => {}
                }
            }
            assert!(!expected.is_empty(), "{t:?} {dims:?}: padding");
            assert_eq!(plan.padding, Padding::Gaps(expected), "{t:?} {dims:?}");
        }
    }

    /// A destination without padding zeroes nothing.
    #[test]
    fn no_padding_zeroes_nothing() {
        let plain = ArrayShape::new(PrimitiveType::F32, [64, 256]).unwrap();
        let tiled = plain
            .clone()
            .with_layout(Some(
                Layout::new([1, 0]).with_tiles(vec![Tile::new([8, 128]).unwrap()]),
            ))
            .unwrap();
        assert_eq!(
            Relayout::new(&plain, &tiled).unwrap().padding,
            Padding::None
        );
    }

    /// Boxes that write more runs than are sorted through, or whose
    /// destination stride is negative, zero the whole destination; runs
    /// of 4 bytes every 512 leave the 508 between them.
    #[test]
    fn many_runs_or_negative_strides_zero_everything() {
        use super::super::kernel::{Axis, BoxCopy, Inner};
        let every_8 = |n: usize, d: isize| BoxCopy {
            src: 0,
            dst: if d < 0 { 8 * (n as isize - 1) } else { 0 },
            outer: vec![Axis { n, s: 4, d }],
            inner: Inner::Run(4),
        };
        let size = |n: usize| 8 * n;
        let n = super::MAX_RUNS + 1;
        assert_eq!(Padding::of(&[every_8(n, 8)], 4, size(n)), Padding::All);
        // Fewer runs, but one per 8 bytes: zeroing the whole is cheaper.
        assert_eq!(
            Padding::of(&[every_8(1000, 8)], 4, size(1000)),
            Padding::All
        );
        assert_eq!(Padding::of(&[every_8(3, -8)], 4, size(3)), Padding::All);
        // One run per 512 bytes: its gaps.
        let every_512 = BoxCopy {
            outer: vec![Axis { n: 3, s: 4, d: 512 }],
            ..every_8(3, 8)
        };
        assert_eq!(
            Padding::of(&[every_512], 4, 3 * 512),
            Padding::Gaps(vec![4..512, 516..1024, 1028..1536])
        );
    }
}
