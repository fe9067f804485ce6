//! The copy loops: a box of elements, each axis with a source and a
//! destination stride in bytes, copied as contiguous runs, as a blocked
//! 2-D transpose, or element by element.
//!
//! Every offset a block touches was checked against the buffers before the
//! loops run ([`Block::bounds`]); the loops index slices, so a bug here
//! panics instead of reading out of bounds. The one exception, the direct
//! transpose of 4-byte elements on x86_64 ([`direct`]), checks the bounds
//! of its whole box again before it uses raw pointers.

/// Destinations at least this large are written with non-temporal stores
/// where the loops can write whole cache lines: the array would not stay
/// in the caches anyway, and the lines are not read before they are
/// written.
pub(crate) const STREAM_MIN_BYTES: usize = 8 << 20;

/// One axis of a box: `n` positions, `s` bytes apart in the source and `d`
/// bytes apart in the destination.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Axis {
    pub(crate) n: usize,
    pub(crate) s: isize,
    pub(crate) d: isize,
}

/// How the innermost part of a box is copied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Inner {
    /// Contiguous in both buffers: one copy of this many bytes.
    Run(usize),
    /// `i` is contiguous in the destination, `j` in the source: a
    /// cache-blocked transpose.
    Transpose { i: Axis, j: Axis },
    /// Anything else: element by element along this axis.
    Strided(Axis),
}

/// Calls `f` with the source and destination offsets of every position of
/// `axes` (most major first, the last axis fastest), starting at `src` and
/// `dst`; nothing when an axis is empty.
pub(crate) fn for_each_position(
    axes: &[Axis],
    src: isize,
    dst: isize,
    mut f: impl FnMut(isize, isize),
) {
    if axes.iter().any(|a| a.n == 0) {
        return;
    }
    let mut counters = vec![0usize; axes.len()];
    let (mut s, mut d) = (src, dst);
    loop {
        f(s, d);
        // Next position, most minor axis first.
        let mut k = axes.len();
        loop {
            if k == 0 {
                return;
            }
            k -= 1;
            let a = axes[k];
            counters[k] += 1;
            s += a.s;
            d += a.d;
            if counters[k] < a.n {
                break;
            }
            counters[k] = 0;
            s -= a.s * a.n as isize;
            d -= a.d * a.n as isize;
        }
    }
}

/// A box of elements to copy: the byte offsets of its first element, the
/// outer axes (most major first) and the inner copy.
#[derive(Clone, Debug)]
pub(crate) struct Block {
    pub(crate) src: isize,
    pub(crate) dst: isize,
    pub(crate) outer: Vec<Axis>,
    pub(crate) inner: Inner,
}

impl Block {
    /// A block for the box with these axes (any order, extents >= 1) of
    /// `e`-byte elements: drops single positions, orders the axes by
    /// destination stride, merges axes that are contiguous in both buffers
    /// and picks the inner copy.
    pub(crate) fn new(src: isize, dst: isize, axes: &[Axis], e: usize) -> Block {
        let e = e as isize;
        let mut axes: Vec<Axis> = axes.iter().copied().filter(|a| a.n > 1).collect();
        axes.sort_by_key(|a| (std::cmp::Reverse(a.d.unsigned_abs()), a.s.unsigned_abs()));
        let mut merged: Vec<Axis> = Vec::with_capacity(axes.len());
        for a in axes {
            match merged.last_mut() {
                Some(outer) if outer.s == a.s * a.n as isize && outer.d == a.d * a.n as isize => {
                    *outer = Axis {
                        n: outer.n * a.n,
                        s: a.s,
                        d: a.d,
                    };
                }
                _ => merged.push(a),
            }
        }
        let mut outer = merged;
        let inner = match outer.pop() {
            None => Inner::Run(e as usize),
            Some(last) if last.s == e && last.d == e => Inner::Run(last.n * e as usize),
            Some(last) if last.d == e => match outer.iter().rposition(|a| a.s == e) {
                Some(k) => {
                    let j = outer.remove(k);
                    Inner::Transpose { i: last, j }
                }
                None => Inner::Strided(last),
            },
            Some(last) => Inner::Strided(last),
        };
        Block {
            src,
            dst,
            outer,
            inner,
        }
    }

    /// The lowest and one past the highest byte offset the block touches
    /// in the source and in the destination.
    pub(crate) fn bounds(&self, e: usize) -> [(i128, i128); 2] {
        let mut axes: Vec<Axis> = self.outer.clone();
        match self.inner {
            Inner::Run(len) => {
                return self.with_extra(axes, len);
            }
            Inner::Transpose { i, j } => {
                axes.push(i);
                axes.push(j);
            }
            Inner::Strided(a) => axes.push(a),
        }
        self.with_extra(axes, e)
    }

    fn with_extra(&self, axes: Vec<Axis>, last: usize) -> [(i128, i128); 2] {
        let mut out = [
            (self.src as i128, self.src as i128),
            (self.dst as i128, self.dst as i128),
        ];
        for a in &axes {
            let k = a.n as i128 - 1;
            for (side, stride) in [(0, a.s), (1, a.d)] {
                let span = k * stride as i128;
                if span < 0 {
                    out[side].0 += span;
                } else {
                    out[side].1 += span;
                }
            }
        }
        out[0].1 += last as i128;
        out[1].1 += last as i128;
        out
    }

    /// Copies the block. The caller has checked [`bounds`](Self::bounds)
    /// against both buffers. `stream`: the destination is large enough
    /// for non-temporal stores ([`STREAM_MIN_BYTES`]).
    pub(crate) fn copy(&self, e: usize, src: &[u8], dst: &mut [u8], stream: bool) {
        for_each_position(&self.outer, self.src, self.dst, |s, d| {
            self.copy_inner(e, src, s, dst, d, stream)
        });
    }

    fn copy_inner(&self, e: usize, src: &[u8], s: isize, dst: &mut [u8], d: isize, stream: bool) {
        match self.inner {
            Inner::Run(len) => {
                let (s, d) = (s as usize, d as usize);
                dst[d..d + len].copy_from_slice(&src[s..s + len]);
            }
            Inner::Strided(a) => match e {
                1 => strided::<1>(a, src, s, dst, d),
                2 => strided::<2>(a, src, s, dst, d),
                4 => strided::<4>(a, src, s, dst, d),
                8 => strided::<8>(a, src, s, dst, d),
                16 => strided::<16>(a, src, s, dst, d),
                _ => {
                    for k in 0..a.n as isize {
                        let (s, d) = ((s + k * a.s) as usize, (d + k * a.d) as usize);
                        dst[d..d + e].copy_from_slice(&src[s..s + e]);
                    }
                }
            },
            Inner::Transpose { i, j } => match e {
                1 => transpose::<1>(i, j, src, s, dst, d),
                2 => transpose::<2>(i, j, src, s, dst, d),
                4 => transpose4(i, j, src, s, dst, d, stream),
                8 => transpose::<8>(i, j, src, s, dst, d),
                16 => transpose::<16>(i, j, src, s, dst, d),
                _ => {
                    for jj in 0..j.n as isize {
                        for ii in 0..i.n as isize {
                            let s = (s + ii * i.s + jj * j.s) as usize;
                            let d = (d + ii * i.d + jj * j.d) as usize;
                            dst[d..d + e].copy_from_slice(&src[s..s + e]);
                        }
                    }
                }
            },
        }
    }
}

#[inline(always)]
fn strided<const E: usize>(a: Axis, src: &[u8], s: isize, dst: &mut [u8], d: isize) {
    for k in 0..a.n as isize {
        let (s, d) = ((s + k * a.s) as usize, (d + k * a.d) as usize);
        dst[d..d + E].copy_from_slice(&src[s..s + E]);
    }
}

/// The transpose of 4-byte elements: on x86_64 straight from source to
/// destination ([`direct`]) when it is large enough, else staged.
fn transpose4(i: Axis, j: Axis, src: &[u8], s: isize, dst: &mut [u8], d: isize, stream: bool) {
    #[cfg(target_arch = "x86_64")]
    if direct::transpose(direct::Kernel::best(), i, j, src, s, dst, d, stream) {
        return;
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = stream;
    transpose::<4>(i, j, src, s, dst, d);
}

/// A block of the transpose, staged in cache: rows of the source are
/// gathered into `a`, `a` is transposed into `b`, and the rows of `b` are
/// scattered to the destination, so that memory is only ever read and
/// written in runs of `B * E` bytes (power-of-two strides would otherwise
/// make the rows of a block collide in the same cache sets).
#[repr(C, align(64))]
struct Stage([u8; STAGE]);

/// Bytes of each staging buffer: 64 rows of up to 320 bytes, or 32 of up
/// to 576.
const STAGE: usize = 20 << 10;

/// `dst[d + ii*E + jj*j.d] = src[s + ii*i.s + jj*E]` for every `ii < i.n`,
/// `jj < j.n`, in staged blocks of `B x B` elements.
fn transpose<const E: usize>(i: Axis, j: Axis, src: &[u8], s: isize, dst: &mut [u8], d: isize) {
    if i.n == 0 || j.n == 0 {
        return;
    }
    // 64 x 64 elements of up to 4 bytes, 32 x 32 of 8 or 16.
    let b = if E <= 4 { 64 } else { 32 };
    // Rows one cache line longer than needed, so that the staged rows do
    // not all fall in the same cache sets.
    let row = b * E + 64;
    let mut a = Stage([0; STAGE]);
    let mut t = Stage([0; STAGE]);
    for j0 in (0..j.n).step_by(b) {
        let bj = b.min(j.n - j0);
        for i0 in (0..i.n).step_by(b) {
            let bi = b.min(i.n - i0);
            for r in 0..bi {
                let so = (s + (i0 + r) as isize * i.s) as usize + j0 * E;
                a.0[r * row..r * row + bj * E].copy_from_slice(&src[so..so + bj * E]);
            }
            transpose_staged::<E>(&a.0, &mut t.0, row, bi, bj);
            for c in 0..bj {
                let dof = (d + (j0 + c) as isize * j.d) as usize + i0 * E;
                dst[dof..dof + bi * E].copy_from_slice(&t.0[c * row..c * row + bi * E]);
            }
        }
    }
}

/// `t[c][r] = a[r][c]` for `r < bi`, `c < bj`, rows `row` bytes apart.
fn transpose_staged<const E: usize>(a: &[u8], t: &mut [u8], row: usize, bi: usize, bj: usize) {
    let mut r0 = 0;
    #[cfg(target_arch = "x86_64")]
    if E == 4 {
        while r0 + 4 <= bi {
            let mut c0 = 0;
            while c0 + 4 <= bj {
                sse::transpose4x4(a, r0 * row + c0 * 4, t, c0 * row + r0 * 4, row);
                c0 += 4;
            }
            transpose_scalar::<E>(a, t, row, r0..r0 + 4, c0..bj);
            r0 += 4;
        }
    }
    transpose_scalar::<E>(a, t, row, r0..bi, 0..bj);
}

fn transpose_scalar<const E: usize>(
    a: &[u8],
    t: &mut [u8],
    row: usize,
    rows: std::ops::Range<usize>,
    cols: std::ops::Range<usize>,
) {
    for r in rows {
        for c in cols.clone() {
            let (x, y) = (r * row + c * E, c * row + r * E);
            t[y..y + E].copy_from_slice(&a[x..x + E]);
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod sse {
    use std::arch::x86_64::{
        __m128, _mm_loadu_ps, _mm_movehl_ps, _mm_movelh_ps, _mm_storeu_ps, _mm_unpackhi_ps,
        _mm_unpacklo_ps,
    };

    /// Transposes the 4 x 4 block of 4-byte elements at byte `x` of `a`
    /// (rows `row` bytes apart) into the block at byte `y` of `t`.
    #[inline(always)]
    pub(super) fn transpose4x4(a: &[u8], x: usize, t: &mut [u8], y: usize, row: usize) {
        let span = 3 * row + 16;
        let (a, t) = (&a[x..x + span], &mut t[y..y + span]);
        let (pa, pt) = (a.as_ptr(), t.as_mut_ptr());
        // SAFETY: the four 16-byte rows read (bytes k*row .. k*row + 16,
        // k < 4) lie in `a`, which is `3*row + 16` bytes long; likewise the
        // rows written lie in `t`. Unaligned loads and stores need no
        // alignment, and SSE is part of the x86_64 baseline.
        unsafe {
            let r0: __m128 = _mm_loadu_ps(pa.cast());
            let r1 = _mm_loadu_ps(pa.add(row).cast());
            let r2 = _mm_loadu_ps(pa.add(2 * row).cast());
            let r3 = _mm_loadu_ps(pa.add(3 * row).cast());
            let t0 = _mm_unpacklo_ps(r0, r1);
            let t1 = _mm_unpacklo_ps(r2, r3);
            let t2 = _mm_unpackhi_ps(r0, r1);
            let t3 = _mm_unpackhi_ps(r2, r3);
            _mm_storeu_ps(pt.cast(), _mm_movelh_ps(t0, t1));
            _mm_storeu_ps(pt.add(row).cast(), _mm_movehl_ps(t1, t0));
            _mm_storeu_ps(pt.add(2 * row).cast(), _mm_movelh_ps(t2, t3));
            _mm_storeu_ps(pt.add(3 * row).cast(), _mm_movehl_ps(t3, t2));
        }
    }
}

/// Large transposes of 4-byte elements, straight from the source rows to
/// the destination rows: 16 x 16 blocks, each row of a block a whole
/// 64-byte cache line on both sides when the buffers are so aligned, then
/// 4 x 4 blocks along the edges, and the staged copy ([`transpose`](super::transpose)) for
/// what is left (fewer than 4 rows or columns). Staging costs more than it
/// saves here: the 16 rows of a block stay in the caches however their
/// addresses collide.
///
/// A large destination is written with non-temporal stores (whole lines,
/// never read first), the 16 x 16 blocks in source order: a band of 16
/// source rows from left to right, the destination rows it writes limited
/// to about [`SPAN`] bytes so that their pages stay in the TLB. Otherwise
/// the blocks go in destination order, likewise limited on the source side.
#[cfg(target_arch = "x86_64")]
pub(crate) mod direct {
    use std::ops::Range;

    use super::Axis;

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
    trait Block {
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
    fn inside(base: isize, (na, sa): (usize, isize), (nb, sb): (usize, isize), len: usize) -> bool {
        let (mut lo, mut hi) = (base as i128, base as i128);
        for (n, stride) in [(na, sa), (nb, sb)] {
            let span = (n as i128 - 1) * stride as i128;
            if span < 0 {
                lo += span;
            } else {
                hi += span;
            }
        }
        lo >= 0 && hi + 4 <= len as i128
    }

    /// How many of the rows `stride` bytes apart a sweep visits: a
    /// multiple of 16 spanning about [`SPAN`] bytes.
    fn rows_per_sweep(stride: isize) -> usize {
        (SPAN / stride.unsigned_abs().max(1) / 16 * 16).max(16)
    }

    impl<'a> Tr<'a> {
        fn new(
            i: Axis,
            j: Axis,
            src: &'a [u8],
            s: isize,
            dst: &'a mut [u8],
            d: isize,
        ) -> Option<Self> {
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
            super::transpose::<4>(i, j, self.src, so, self.dst, dof);
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
            let (r4, c4) = unsafe { self.grid::<sse::Block4>(r.clone(), c.clone(), false) };
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
                (Isa::Sse, false) => tr.grid::<sse::Block16<false>>(rows, cols, false),
                (Isa::Sse, true) => tr.grid::<sse::Block16<true>>(rows, cols, true),
                (Isa::Avx, false) => tr.grid::<avx::Block16<false>>(rows, cols, false),
                (Isa::Avx, true) => tr.grid::<avx::Block16<true>>(rows, cols, true),
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

    mod sse {
        use super::Block;
        use std::arch::x86_64::{
            __m128, _mm_loadu_ps, _mm_movehl_ps, _mm_movelh_ps, _mm_storeu_ps, _mm_stream_ps,
            _mm_unpackhi_ps, _mm_unpacklo_ps,
        };

        /// 4 x 4 blocks.
        pub(super) struct Block4;

        impl Block for Block4 {
            const SIZE: usize = 4;

            /// # Safety
            ///
            /// The 16 bytes at `pa + r*sa` (`r < 4`) are readable, the 16
            /// bytes at `pt + c*st` (`c < 4`) writable and disjoint from
            /// them.
            #[inline(always)]
            unsafe fn copy(pa: *const u8, sa: isize, pt: *mut u8, st: isize) {
                // SAFETY: as the caller vouches.
                unsafe { block4::<false>(pa, sa, pt, st) }
            }
        }

        /// 16 x 16 blocks in 4 x 4 transposes, with non-temporal stores if
        /// `NT`.
        pub(super) struct Block16<const NT: bool>;

        impl<const NT: bool> Block for Block16<NT> {
            const SIZE: usize = 16;

            /// # Safety
            ///
            /// The 64 bytes at `pa + r*sa` (`r < 16`) are readable, the 64
            /// bytes at `pt + c*st` (`c < 16`) writable and disjoint from
            /// them; with `NT` each `pt + c*st` is 16-byte aligned.
            #[inline]
            unsafe fn copy(pa: *const u8, sa: isize, pt: *mut u8, st: isize) {
                for c0 in 0..4 {
                    for r0 in 0..4 {
                        // SAFETY: the 4 x 4 block at rows `4*r0..`, columns
                        // `4*c0..` of what the caller vouches for; its
                        // destination rows start 16-byte aligned if the
                        // block's do.
                        unsafe {
                            let a = pa.offset(4 * r0 * sa).add(16 * c0);
                            let t = pt.offset(4 * c0 as isize * st).add(16 * r0 as usize);
                            block4::<NT>(a, sa, t, st);
                        }
                    }
                }
            }
        }

        /// A 4 x 4 block.
        ///
        /// # Safety
        ///
        /// As `Block4::copy`; with `NT` each `pt + c*st` is 16-byte
        /// aligned.
        #[inline(always)]
        unsafe fn block4<const NT: bool>(pa: *const u8, sa: isize, pt: *mut u8, st: isize) {
            // SAFETY: the four rows read and written are what the caller
            // vouches for; unaligned loads and stores need no alignment,
            // streaming ones the 16 bytes the caller gives.
            unsafe {
                let row = |k: isize| -> __m128 { _mm_loadu_ps(pa.offset(k * sa).cast()) };
                let (r0, r1, r2, r3) = (row(0), row(1), row(2), row(3));
                let t0 = _mm_unpacklo_ps(r0, r1);
                let t1 = _mm_unpacklo_ps(r2, r3);
                let t2 = _mm_unpackhi_ps(r0, r1);
                let t3 = _mm_unpackhi_ps(r2, r3);
                let out = [
                    _mm_movelh_ps(t0, t1),
                    _mm_movehl_ps(t1, t0),
                    _mm_movelh_ps(t2, t3),
                    _mm_movehl_ps(t3, t2),
                ];
                for (k, v) in out.into_iter().enumerate() {
                    let p = pt.offset(k as isize * st).cast();
                    if NT {
                        _mm_stream_ps(p, v);
                    } else {
                        _mm_storeu_ps(p, v);
                    }
                }
            }
        }
    }

    mod avx {
        use super::Block;
        use std::arch::x86_64::{
            __m256, _mm256_loadu_ps, _mm256_permute2f128_ps, _mm256_shuffle_ps, _mm256_storeu_ps,
            _mm256_stream_ps, _mm256_unpackhi_ps, _mm256_unpacklo_ps,
        };

        /// 16 x 16 blocks in 8 x 8 transposes, the two halves of each
        /// destination row one after the other, with non-temporal stores
        /// if `NT`.
        pub(super) struct Block16<const NT: bool>;

        impl<const NT: bool> Block for Block16<NT> {
            const SIZE: usize = 16;

            /// # Safety
            ///
            /// As `sse::Block16::copy` (with `NT`, 32-byte alignment), and
            /// the CPU has AVX.
            #[inline]
            unsafe fn copy(pa: *const u8, sa: isize, pt: *mut u8, st: isize) {
                // SAFETY: as the caller vouches.
                unsafe { block16::<NT>(pa, sa, pt, st) }
            }
        }

        /// # Safety
        ///
        /// As `Block16::copy`.
        #[target_feature(enable = "avx")]
        unsafe fn block16<const NT: bool>(pa: *const u8, sa: isize, pt: *mut u8, st: isize) {
            // SAFETY: the four 8 x 8 quarters of what the caller vouches
            // for, completing destination rows 0..8, then 8..16.
            unsafe {
                block8::<NT>(pa, sa, pt, st);
                block8::<NT>(pa.offset(8 * sa), sa, pt.add(32), st);
                block8::<NT>(pa.add(32), sa, pt.offset(8 * st), st);
                block8::<NT>(pa.offset(8 * sa).add(32), sa, pt.offset(8 * st).add(32), st);
            }
        }

        /// An 8 x 8 block.
        ///
        /// # Safety
        ///
        /// The 32 bytes at `pa + r*sa` (`r < 8`) are readable, the 32 bytes
        /// at `pt + c*st` (`c < 8`) writable and disjoint from them; with
        /// `NT` each `pt + c*st` is 32-byte aligned; the CPU has AVX.
        #[target_feature(enable = "avx")]
        #[inline]
        unsafe fn block8<const NT: bool>(pa: *const u8, sa: isize, pt: *mut u8, st: isize) {
            // SAFETY: the rows read and written and AVX are what the
            // caller vouches for; unaligned loads and stores need no
            // alignment, streaming ones the 32 bytes the caller gives.
            unsafe {
                let row = |k: isize| -> __m256 { _mm256_loadu_ps(pa.offset(k * sa).cast()) };
                let r = [
                    row(0),
                    row(1),
                    row(2),
                    row(3),
                    row(4),
                    row(5),
                    row(6),
                    row(7),
                ];
                let t0 = _mm256_unpacklo_ps(r[0], r[1]);
                let t1 = _mm256_unpackhi_ps(r[0], r[1]);
                let t2 = _mm256_unpacklo_ps(r[2], r[3]);
                let t3 = _mm256_unpackhi_ps(r[2], r[3]);
                let t4 = _mm256_unpacklo_ps(r[4], r[5]);
                let t5 = _mm256_unpackhi_ps(r[4], r[5]);
                let t6 = _mm256_unpacklo_ps(r[6], r[7]);
                let t7 = _mm256_unpackhi_ps(r[6], r[7]);
                let u0 = _mm256_shuffle_ps::<0x44>(t0, t2);
                let u1 = _mm256_shuffle_ps::<0xEE>(t0, t2);
                let u2 = _mm256_shuffle_ps::<0x44>(t1, t3);
                let u3 = _mm256_shuffle_ps::<0xEE>(t1, t3);
                let u4 = _mm256_shuffle_ps::<0x44>(t4, t6);
                let u5 = _mm256_shuffle_ps::<0xEE>(t4, t6);
                let u6 = _mm256_shuffle_ps::<0x44>(t5, t7);
                let u7 = _mm256_shuffle_ps::<0xEE>(t5, t7);
                let out = [
                    _mm256_permute2f128_ps::<0x20>(u0, u4),
                    _mm256_permute2f128_ps::<0x20>(u1, u5),
                    _mm256_permute2f128_ps::<0x20>(u2, u6),
                    _mm256_permute2f128_ps::<0x20>(u3, u7),
                    _mm256_permute2f128_ps::<0x31>(u0, u4),
                    _mm256_permute2f128_ps::<0x31>(u1, u5),
                    _mm256_permute2f128_ps::<0x31>(u2, u6),
                    _mm256_permute2f128_ps::<0x31>(u3, u7),
                ];
                for (k, v) in out.into_iter().enumerate() {
                    let p = pt.offset(k as isize * st).cast();
                    if NT {
                        _mm256_stream_ps(p, v);
                    } else {
                        _mm256_storeu_ps(p, v);
                    }
                }
            }
        }
    }
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::Axis;
    use super::direct::{Kernel, transpose};

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
