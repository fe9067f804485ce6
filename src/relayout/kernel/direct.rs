//! Large transposes of 4-byte elements, straight from the source rows to
//! the destination rows: 16 x 16 blocks, each row of a block a whole
//! 64-byte cache line on both sides when the buffers are so aligned, then
//! 4 x 4 blocks along the edges, and the staged copy ([`transpose`](super::scalar::transpose)) for
//! what is left (fewer than 4 rows or columns). Staging costs more than it
//! saves here: the 16 rows of a block stay in the caches however their
//! addresses collide.
//!
//! A large destination is written with non-temporal stores (whole lines,
//! never read first), the 16 x 16 blocks in source order: a band of 16
//! source rows from left to right, the destination rows it writes limited
//! to about [`SPAN`] bytes so that their pages stay in the TLB. Otherwise
//! the blocks go in destination order, likewise limited on the source side.

use std::ops::Range;

use super::{Axis, box_span};

/// Bytes of the rows a sweep visits on the far side.
const SPAN: usize = 2 << 20;

/// The instructions the 16 x 16 blocks are copied with. Only made for
/// a CPU that has them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Kernel(Isa);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Isa {
    /// SSE, part of the x86_64 baseline: 4 x 4 transposes.
    Sse,
    /// AVX: 8 x 8 transposes.
    #[cfg_attr(miri, allow(dead_code))]
    Avx,
}

impl Kernel {
    /// SSE.
    pub(crate) fn sse() -> Kernel {
        Kernel(Isa::Sse)
    }

    /// AVX, if the CPU has it (never under Miri, which cannot run it).
    pub(crate) fn avx() -> Option<Kernel> {
        #[cfg(not(miri))]
        if std::arch::is_x86_feature_detected!("avx") {
            return Some(Kernel(Isa::Avx));
        }
        None
    }

    /// AVX where the CPU has it, else SSE.
    pub(crate) fn best() -> Kernel {
        Kernel::avx().unwrap_or_else(Kernel::sse)
    }
}

/// Code that copies one square block of `SIZE x SIZE` elements.
pub(super) trait Block {
    const SIZE: usize;

    /// `pt[c*st + r*4 ..][..4] = pa[r*sa + c*4 ..][..4]` for `r`, `c` <
    /// `SIZE`.
    ///
    /// # Safety
    ///
    /// The rows read and written lie in the buffers and do not
    /// overlap, plus what the implementation asks.
    unsafe fn copy(pa: *const u8, sa: isize, pt: *mut u8, st: isize);
}

/// A transpose `dst[d + ii*4 + jj*j.d] = src[s + ii*i.s + jj*4]` for
/// `ii < i.n`, `jj < j.n` whose every byte lies in `src` and `dst`
/// (checked by [`Tr::new`]).
struct Tr<'a> {
    i: Axis,
    j: Axis,
    src: &'a [u8],
    s: isize,
    dst: &'a mut [u8],
    d: isize,
}

/// Whether every byte `base + a * sa + b * sb + k` (`a < na`, `b < nb`,
/// `k < 4`) lies in `0..len`.
fn inside(base: isize, a: (usize, isize), b: (usize, isize), len: usize) -> bool {
    let (lo, hi) = box_span(base as i128, [a, b]);
    lo >= 0 && hi + 4 <= len as i128
}

/// How many of the rows `stride` bytes apart a sweep visits: a
/// multiple of 16 spanning about [`SPAN`] bytes.
fn rows_per_sweep(stride: isize) -> usize {
    (SPAN / stride.unsigned_abs().max(1) / 16 * 16).max(16)
}

impl<'a> Tr<'a> {
    fn new(i: Axis, j: Axis, src: &'a [u8], s: isize, dst: &'a mut [u8], d: isize) -> Option<Self> {
        let fits = i.n > 0
            && j.n > 0
            && i.d == 4
            && j.s == 4
            && inside(s, (i.n, i.s), (j.n, 4), src.len())
            && inside(d, (j.n, j.d), (i.n, 4), dst.len());
        fits.then_some(Tr {
            i,
            j,
            src,
            s,
            dst,
            d,
        })
    }

    /// The source and destination offsets of element `(ii, jj)`.
    fn at(&self, ii: usize, jj: usize) -> (isize, isize) {
        (
            self.s + ii as isize * self.i.s + jj as isize * 4,
            self.d + jj as isize * self.j.d + ii as isize * 4,
        )
    }

    /// Rows `r`, columns `c` through the staged copy.
    fn staged(&mut self, r: Range<usize>, c: Range<usize>) {
        if r.is_empty() || c.is_empty() {
            return;
        }
        let (so, dof) = self.at(r.start, c.start);
        let (i, j) = (
            Axis {
                n: r.len(),
                ..self.i
            },
            Axis {
                n: c.len(),
                ..self.j
            },
        );
        super::scalar::transpose(4, i, j, self.src, so, self.dst, dof);
    }

    /// As many blocks `B` of rows `r` (within `0..i.n`), columns `c`
    /// (within `0..j.n`) as fit from their start, in source order
    /// (`by_source`) or destination order; returns where the blocks
    /// end in `r` and in `c`.
    ///
    /// # Safety
    ///
    /// What `B::copy` asks beyond the bounds: for a streaming block,
    /// each destination row of each block is 64-byte aligned; for an
    /// AVX block, the CPU has AVX.
    unsafe fn grid<B: Block>(
        &mut self,
        r: Range<usize>,
        c: Range<usize>,
        by_source: bool,
    ) -> (usize, usize) {
        let b = B::SIZE;
        let r_end = r.start + r.len() / b * b;
        let c_end = c.start + c.len() / b * b;
        if r_end == r.start || c_end == c.start {
            return (r.start, c.start);
        }
        let (sa, st) = (self.i.s, self.j.d);
        let (ps, pd) = (self.src.as_ptr(), self.dst.as_mut_ptr());
        let copy = |(so, dof): (isize, isize)| {
            // SAFETY: the block starting at element `(ii, jj)` covers
            // rows `ii..ii + b` <= `i.n` and columns `jj..jj + b` <=
            // `j.n`, all of whose bytes `Tr::new` checked to lie in
            // `src` and `dst` (so `so`, `dof` are not negative);
            // `src` is shared and `dst` borrowed mutably, so they do
            // not overlap. The caller vouches for the rest.
            unsafe { B::copy(ps.add(so as usize), sa, pd.add(dof as usize), st) }
        };
        if by_source {
            let per = rows_per_sweep(st);
            for cm in (c.start..c_end).step_by(per) {
                for ii in (r.start..r_end).step_by(b) {
                    for jj in (cm..c_end.min(cm + per)).step_by(b) {
                        copy(self.at(ii, jj));
                    }
                }
            }
        } else {
            let per = rows_per_sweep(sa);
            for rm in (r.start..r_end).step_by(per) {
                for jj in (c.start..c_end).step_by(b) {
                    for ii in (rm..r_end.min(rm + per)).step_by(b) {
                        copy(self.at(ii, jj));
                    }
                }
            }
        }
        (r_end, c_end)
    }

    /// Rows `r`, columns `c`: 4 x 4 blocks, the rest staged.
    fn edge(&mut self, r: Range<usize>, c: Range<usize>) {
        // SAFETY: SSE is part of the x86_64 baseline; nothing streams.
        let (r4, c4) = unsafe { self.grid::<super::sse::Block4>(r.clone(), c.clone(), false) };
        self.staged(r4..r.end, c.clone());
        self.staged(r.start..r4, c4..c.end);
    }
}

/// Copies the transpose `dst[d + ii*4 + jj*j.d] = src[s + ii*i.s +
/// jj*4]` (`ii < i.n`, `jj < j.n`) with `kernel`, streaming the
/// destination if `stream` and it can; `false` (nothing copied) when
/// the transpose is too small for it, or does not lie in the buffers
/// (for the caller's indexed copy to report).
#[allow(clippy::too_many_arguments)]
pub(crate) fn transpose(
    kernel: Kernel,
    i: Axis,
    j: Axis,
    src: &[u8],
    s: isize,
    dst: &mut [u8],
    d: isize,
    stream: bool,
) -> bool {
    if i.n < 16 || j.n < 16 {
        return false;
    }
    // Non-temporal stores write whole lines: the 16 x 16 blocks start
    // at the first row whose destination rows are 64-byte aligned.
    let first = (dst.as_ptr() as usize).wrapping_add(d as usize);
    let stream = stream && j.d % 64 == 0 && first.is_multiple_of(4);
    // Destination rows a multiple of 4 KiB apart fall in the same
    // cache sets: kept in the caches, they evict each other before
    // their lines are whole. The staged copy avoids that.
    if !stream && j.d % 4096 == 0 {
        return false;
    }
    let i_lo = if stream {
        (64 - first % 64) % 64 / 4
    } else {
        0
    };
    let Some(mut tr) = Tr::new(i, j, src, s, dst, d) else {
        return false;
    };
    let (rows, cols) = (i_lo..i.n, 0..j.n);
    // SAFETY: streaming, the blocks start at rows `i_lo + 16k`, whose
    // destination rows begin at `first + 4*i_lo + 64k + jj*j.d`,
    // 64-byte aligned; `Kernel(Avx)` is only made where the CPU has
    // AVX.
    let (i_hi, j_hi) = unsafe {
        match (kernel.0, stream) {
            (Isa::Sse, false) => tr.grid::<super::sse::Block16<false>>(rows, cols, false),
            (Isa::Sse, true) => tr.grid::<super::sse::Block16<true>>(rows, cols, true),
            (Isa::Avx, false) => tr.grid::<super::avx::Block16<false>>(rows, cols, false),
            (Isa::Avx, true) => tr.grid::<super::avx::Block16<true>>(rows, cols, true),
        }
    };
    if stream {
        fence();
    }
    // The edges: the streamed lines are whole, so these rows share no
    // line with them.
    tr.edge(0..i_lo, 0..j.n);
    tr.edge(i_hi..i.n, 0..j.n);
    tr.edge(i_lo..i_hi, j_hi..j.n);
    true
}

/// Orders the non-temporal stores before anything the thread does
/// next, as they require.
fn fence() {
    // SAFETY: `sfence` has no preconditions and SSE is part of the
    // x86_64 baseline (newer compilers make the intrinsic safe).
    #[allow(unused_unsafe)]
    unsafe {
        std::arch::x86_64::_mm_sfence()
    }
}

#[cfg(test)]
mod tests {
    use super::super::Axis;
    use super::{Kernel, transpose};

    /// Every kernel, streaming or not, at several alignments of the
    /// destination, on a transpose of `rows x cols` 4-byte elements whose
    /// destination rows are `pitch` bytes apart (gaps between them left
    /// alone): each element where it belongs, every other byte untouched.
    fn check(rows: usize, cols: usize, pitch: usize) {
        let src: Vec<u8> = (0..(rows * cols) as u32)
            .flat_map(u32::to_le_bytes)
            .collect();
        let i = Axis {
            n: rows,
            s: (cols * 4) as isize,
            d: 4,
        };
        let j = Axis {
            n: cols,
            s: 4,
            d: pitch as isize,
        };
        let kernels = [Some(Kernel::sse()), Kernel::avx()];
        for kernel in kernels.into_iter().flatten() {
            for stream in [false, true] {
                for offset in [0usize, 4, 16, 52, 1] {
                    let len = offset + pitch * cols + 64;
                    let mut dst = vec![0xA5u8; len];
                    let done = transpose(kernel, i, j, &src, 0, &mut dst, offset as isize, stream);
                    assert!(done, "{kernel:?} {rows}x{cols}");
                    let mut expected = vec![0xA5u8; len];
                    for r in 0..rows {
                        for c in 0..cols {
                            let at = offset + c * pitch + r * 4;
                            let v = (r * cols + c) as u32;
                            expected[at..at + 4].copy_from_slice(&v.to_le_bytes());
                        }
                    }
                    assert!(
                        dst == expected,
                        "{kernel:?} stream {stream} offset {offset}: {rows}x{cols}, pitch {pitch}"
                    );
                }
            }
        }
    }

    #[test]
    fn direct_kernels() {
        // Packed destination rows, 64-byte multiples (streamed when asked).
        check(48, 37, 48 * 4);
        check(64, 70, 64 * 4);
        // Rows with gaps, a multiple of 64 bytes apart; and not.
        check(50, 33, 256);
        check(21, 19, 21 * 4 + 12);
        // Too small for the 16 x 16 blocks: nothing done.
        let (i, j) = (Axis { n: 15, s: 64, d: 4 }, Axis { n: 16, s: 4, d: 60 });
        let (src, mut dst) = (vec![0u8; 15 * 64], vec![0u8; 16 * 60]);
        assert!(!transpose(Kernel::sse(), i, j, &src, 0, &mut dst, 0, false));
    }
}
