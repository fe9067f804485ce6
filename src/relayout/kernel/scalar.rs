//! Portable copy loops: element by element along a strided axis, and the
//! staged transpose every fast path falls back to for its edges.

use super::{Axis, Buffers};

/// `dst[d + k*a.d] = src[s + k*a.s]` for `k < a.n`, `e`-byte elements.
pub(super) fn strided(e: usize, a: Axis, src: &[u8], s: isize, dst: &mut [u8], d: isize) {
    match e {
        1 => strided_e::<1>(a, src, s, dst, d),
        2 => strided_e::<2>(a, src, s, dst, d),
        4 => strided_e::<4>(a, src, s, dst, d),
        8 => strided_e::<8>(a, src, s, dst, d),
        16 => strided_e::<16>(a, src, s, dst, d),
        _ => {
            for k in 0..a.n as isize {
                let (s, d) = ((s + k * a.s) as usize, (d + k * a.d) as usize);
                dst[d..d + e].copy_from_slice(&src[s..s + e]);
            }
        }
    }
}

#[inline(always)]
fn strided_e<const E: usize>(a: Axis, src: &[u8], s: isize, dst: &mut [u8], d: isize) {
    for k in 0..a.n as isize {
        let (s, d) = ((s + k * a.s) as usize, (d + k * a.d) as usize);
        dst[d..d + E].copy_from_slice(&src[s..s + E]);
    }
}

/// `dst[d + ii*e + jj*j.d] = src[s + ii*i.s + jj*e]` for every `ii < i.n`,
/// `jj < j.n` (`s`, `d` where `b` starts; never streamed), staged
/// ([`transpose_e`]) for the usual element sizes.
pub(crate) fn transpose(e: usize, i: Axis, j: Axis, b: Buffers) {
    let Buffers { src, s, dst, d, .. } = b;
    match e {
        1 => transpose_e::<1>(i, j, src, s, dst, d),
        2 => transpose_e::<2>(i, j, src, s, dst, d),
        4 => transpose_e::<4>(i, j, src, s, dst, d),
        8 => transpose_e::<8>(i, j, src, s, dst, d),
        16 => transpose_e::<16>(i, j, src, s, dst, d),
        _ => by_element(e, i, j, src, s, dst, d),
    }
}

/// The transpose of [`transpose`], element by element.
fn by_element(e: usize, i: Axis, j: Axis, src: &[u8], s: isize, dst: &mut [u8], d: isize) {
    for jj in 0..j.n as isize {
        for ii in 0..i.n as isize {
            let s = (s + ii * i.s + jj * j.s) as usize;
            let d = (d + ii * i.d + jj * j.d) as usize;
            dst[d..d + e].copy_from_slice(&src[s..s + e]);
        }
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

/// The most elements of a transpose [`transpose_e`] copies without its
/// stages.
const DIRECT_MAX: usize = 1024;

/// `dst[d + ii*E + jj*j.d] = src[s + ii*i.s + jj*E]` for every `ii < i.n`,
/// `jj < j.n`, in staged blocks of `B x B` elements.
fn transpose_e<const E: usize>(i: Axis, j: Axis, src: &[u8], s: isize, dst: &mut [u8], d: isize) {
    if i.n == 0 || j.n == 0 {
        return;
    }
    // A transpose smaller than the stages' set-up (two buffers of 20 KiB
    // zeroed): element by element.
    if i.n.saturating_mul(j.n) <= DIRECT_MAX {
        return by_element(E, i, j, src, s, dst, d);
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

/// `t[c][r] = a[r][c]` for `r < bi`, `c < bj`, rows `row` bytes apart: on
/// x86_64 in SSE squares of `16 / E` elements where they fit.
fn transpose_staged<const E: usize>(a: &[u8], t: &mut [u8], row: usize, bi: usize, bj: usize) {
    #[cfg_attr(not(target_arch = "x86_64"), allow(unused_mut))]
    let mut r0 = 0;
    #[cfg(target_arch = "x86_64")]
    if super::sse::has_square(E) {
        let n = 16 / E;
        while r0 + n <= bi {
            let mut c0 = 0;
            while c0 + n <= bj {
                super::sse::transpose_square::<E>(a, r0 * row + c0 * E, t, c0 * row + r0 * E, row);
                c0 += n;
            }
            transpose_scalar::<E>(a, t, row, r0..r0 + n, c0..bj);
            r0 += n;
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
