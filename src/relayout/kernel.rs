//! The copy loops: a box of elements, each axis with a source and a
//! destination stride in bytes, copied as contiguous runs, as a blocked
//! 2-D transpose, or element by element.
//!
//! Every offset a block touches was checked against the buffers before the
//! loops run ([`Block::bounds`]); the loops index slices, so a bug here
//! panics instead of reading out of bounds.

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
    /// against both buffers.
    pub(crate) fn copy(&self, e: usize, src: &[u8], dst: &mut [u8]) {
        let mut counters = vec![0usize; self.outer.len()];
        let (mut s, mut d) = (self.src, self.dst);
        loop {
            self.copy_inner(e, src, s, dst, d);
            // Next position of the outer axes, most minor first.
            let mut k = self.outer.len();
            loop {
                if k == 0 {
                    return;
                }
                k -= 1;
                let a = self.outer[k];
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

    fn copy_inner(&self, e: usize, src: &[u8], s: isize, dst: &mut [u8], d: isize) {
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
                4 => transpose::<4>(i, j, src, s, dst, d),
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
