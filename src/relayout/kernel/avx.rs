//! AVX: 16 x 16 blocks of 4-byte elements as four 8 x 8 transposes; AVX2:
//! blocks of 1-, 2- and 8-byte elements whose squares go two at a time,
//! one in each 128-bit lane ([`Pairs`]); and pairs of 1- and 2-byte
//! elements split into two rows 32 or 16 at a time ([`split_pairs`]),
//! groups of four 1-byte elements into four rows 16 at a time
//! ([`split_quads`]).

use super::Block;
use super::sse::{Lanes, impl_lanes, load_rows, put, transpose_lanes};
use std::arch::x86_64::{
    __m256, __m256i, _mm_storeu_si128, _mm256_broadcastsi128_si256, _mm256_castsi256_si128,
    _mm256_extracti128_si256, _mm256_loadu_ps, _mm256_loadu_si256, _mm256_permute2f128_ps,
    _mm256_permute2x128_si256, _mm256_permute4x64_epi64, _mm256_permutevar8x32_epi32,
    _mm256_setr_epi8, _mm256_setr_epi32, _mm256_setzero_si256, _mm256_shuffle_epi8,
    _mm256_shuffle_ps, _mm256_storeu_ps, _mm256_unpackhi_epi8, _mm256_unpackhi_epi16,
    _mm256_unpackhi_epi32, _mm256_unpackhi_epi64, _mm256_unpackhi_ps, _mm256_unpacklo_epi8,
    _mm256_unpacklo_epi16, _mm256_unpacklo_epi32, _mm256_unpacklo_epi64, _mm256_unpacklo_ps,
};

/// 16 x 16 blocks in 8 x 8 transposes, the two halves of each
/// destination row one after the other.
pub(super) struct Block16;

impl Block for Block16 {
    const SIZE: usize = 16;

    /// # Safety
    ///
    /// As `sse::Line::copy` of 4-byte elements, and the CPU has AVX.
    #[inline]
    unsafe fn copy(pa: *const u8, sa: isize, pt: *mut u8, st: isize) {
        // SAFETY: the four 8 x 8 quarters of what the caller vouches
        // for, completing destination rows 0..8, then 8..16.
        unsafe {
            block8(pa, sa, pt, st);
            block8(pa.offset(8 * sa), sa, pt.add(32), st);
            block8(pa.add(32), sa, pt.offset(8 * st), st);
            block8(pa.offset(8 * sa).add(32), sa, pt.offset(8 * st).add(32), st);
        }
    }
}

/// An 8 x 8 block.
///
/// # Safety
///
/// The 32 bytes at `pa + r*sa` (`r < 8`) are readable, the 32 bytes
/// at `pt + c*st` (`c < 8`) writable and disjoint from them; the CPU
/// has AVX.
#[target_feature(enable = "avx")]
#[inline]
unsafe fn block8(pa: *const u8, sa: isize, pt: *mut u8, st: isize) {
    // SAFETY: the rows read and written and AVX are what the
    // caller vouches for; unaligned loads and stores need no
    // alignment.
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
            _mm256_storeu_ps(pt.offset(k as isize * st).cast(), v);
        }
    }
}

/// Squares of `64 / E` elements of `E` bytes, each row a 64-byte line,
/// with AVX2: each [`pair`] transposes two `16 / E`-element squares side
/// by side, one in each 128-bit lane, so the shuffles and the loads are
/// half those of the SSE2 blocks (`sse::Line`).
pub(super) struct Pairs<const E: usize>;

impl<const E: usize> Block for Pairs<E> {
    const SIZE: usize = 64 / E;

    /// # Safety
    ///
    /// The 64 bytes at `pa + r*sa` (`r < SIZE`) are readable, the 64
    /// bytes at `pt + c*st` (`c < SIZE`) writable and disjoint from
    /// them; `E` is 1, 2 or 8; the CPU has AVX2.
    #[inline]
    unsafe fn copy(pa: *const u8, sa: isize, pt: *mut u8, st: isize) {
        // SAFETY: as the caller vouches.
        unsafe { pairs::<E>(pa, sa, pt, st) }
    }
}

/// The `64 / E`-element block of [`Pairs`]: four bands of `16 / E` rows,
/// each two [`pair`]s of 32 bytes wide.
///
/// # Safety
///
/// As [`Pairs::copy`].
#[target_feature(enable = "avx2")]
unsafe fn pairs<const E: usize>(pa: *const u8, sa: isize, pt: *mut u8, st: isize) {
    if E == 1 {
        // Six registers spill for 1-byte elements (16 rows a pair).
        align_frame!();
    }
    let n = (16 / E) as isize;
    for c0 in 0..2isize {
        for r0 in 0..4isize {
            // SAFETY: rows `n*r0 .. n*r0 + n`, bytes `32*c0 .. 32*c0 + 32`
            // of the block the caller vouches for, into destination rows
            // `2n*c0 .. 2n*c0 + 2n`, bytes `16*r0 .. 16*r0 + 16`.
            unsafe {
                let a = pa.offset(n * r0 * sa + 32 * c0);
                let t = pt.offset(2 * n * c0 * st + 16 * r0);
                pair::<E>(a, sa, t, st);
            }
        }
    }
}

// With AVX (`zero`) and AVX2 (`unpack`), as the callers vouch.
impl_lanes!(
    __m256i,
    _mm256_setzero_si256,
    [_mm256_unpacklo_epi8, _mm256_unpackhi_epi8],
    [_mm256_unpacklo_epi16, _mm256_unpackhi_epi16],
    [_mm256_unpacklo_epi32, _mm256_unpackhi_epi32],
    [_mm256_unpacklo_epi64, _mm256_unpackhi_epi64],
    _mm256_loadu_si256,
    _mm256_stream_si256,
    _mm256_storeu_si256,
);

/// Two squares side by side: `n = 16 / E` rows of 32 bytes at `pa`
/// (`sa` bytes apart), the first `n` elements of each row one square and
/// the next `n` the other, transposed so that column `c < 2n` goes to
/// the 16 bytes at `pt + c*st`. Each lane goes through the rounds of
/// [`transpose_lanes`]; row `c` then holds column `c` in its low lane and
/// column `n + c` in its high lane.
///
/// # Safety
///
/// `E` is 1, 2, 4 or 8; the 32 bytes at `pa + r*sa` (`r < n`) are
/// readable, the 16 bytes at `pt + c*st` (`c < 2n`) writable and
/// disjoint from them; the CPU has AVX2.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn pair<const E: usize>(pa: *const u8, sa: isize, pt: *mut u8, st: isize) {
    let n = 16 / E;
    // SAFETY: the rows read and written are what the caller vouches
    // for; unaligned loads and stores need no alignment.
    unsafe {
        let r = transpose_lanes::<__m256i, E>(load_rows(pa, sa, n));
        for (k, v) in r.into_iter().enumerate().take(n) {
            let k = k as isize;
            _mm_storeu_si128(pt.offset(k * st).cast(), _mm256_castsi256_si128(v));
            let high = _mm256_extracti128_si256::<1>(v);
            _mm_storeu_si128(pt.offset((k + n as isize) * st).cast(), high);
        }
    }
}

/// Splits `n` groups of `32 / E` pairs of `E`-byte elements at `pa` (64
/// bytes a group) into the first elements of each pair (32 bytes a group
/// at `p0`) and the second (at `p1`), with non-temporal stores if `NT`:
/// per group, each 128-bit lane's firsts and seconds gathered by one byte
/// shuffle, the lanes put in order by one permute of 64-bit pieces, and
/// the two loads' halves joined by one more.
///
/// # Safety
///
/// The `64 * n` bytes at `pa` are readable, the `32 * n` bytes at `p0`
/// and at `p1` writable and disjoint from them; with `NT`, `p0` and `p1`
/// are 32-byte aligned; `E` is 1 or 2; the CPU has AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn split_pairs<const E: usize, const NT: bool>(
    pa: *const u8,
    p0: *mut u8,
    p1: *mut u8,
    n: usize,
) {
    // SAFETY: the bytes read and written are what the caller vouches
    // for; unaligned loads and stores need no alignment.
    unsafe {
        // In each lane, the firsts, then the seconds: bytes 0-1, 4-5,
        // 8-9, 12-13, then 2-3, 6-7, 10-11, 14-15 (2-byte elements);
        // the even bytes, then the odd ones (1-byte elements).
        let order = if E == 2 {
            _mm256_setr_epi8(
                0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15, 0, 1, 4, 5, 8, 9, 12, 13, 2,
                3, 6, 7, 10, 11, 14, 15,
            )
        } else {
            _mm256_setr_epi8(
                0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15, 0, 2, 4, 6, 8, 10, 12, 14, 1,
                3, 5, 7, 9, 11, 13, 15,
            )
        };
        for k in 0..n {
            let at = |p: *const u8, half: usize| {
                let v = _mm256_loadu_si256(p.add(64 * k + 32 * half).cast());
                // Lane 0's firsts, lane 1's firsts, lane 0's seconds,
                // lane 1's seconds.
                _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_shuffle_epi8(v, order))
            };
            let (a, b) = (at(pa, 0), at(pa, 1));
            let first = _mm256_permute2x128_si256::<0x20>(a, b);
            let second = _mm256_permute2x128_si256::<0x31>(a, b);
            let (q0, q1) = (p0.add(32 * k), p1.add(32 * k));
            put::<NT, _>(q0, first);
            put::<NT, _>(q1, second);
        }
    }
}

/// Splits `n` groups of 16 quadruples of 1-byte elements at `pa` (64
/// bytes a group) into the four elements of each quadruple, 16 bytes a
/// group at `p[0]`, `p[1]`, `p[2]` and `p[3]`, with non-temporal stores if
/// `NT`: per 32 bytes, one byte shuffle gathers each 128-bit lane's four
/// bytes of each row, one permute of 32-bit pieces puts the two lanes'
/// pieces of a row side by side (row `r` in 64-bit piece `r`), and the
/// two halves' pieces are joined by 64-bit unpacks.
///
/// # Safety
///
/// The `64 * n` bytes at `pa` are readable, the `16 * n` bytes at each
/// `p[r]` writable and disjoint from them and from each other; with
/// `NT`, each `p[r]` is 16-byte aligned; the CPU has AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn split_quads<const NT: bool>(pa: *const u8, p: [*mut u8; 4], n: usize) {
    // SAFETY: the bytes read and written are what the caller vouches
    // for; unaligned loads and stores need no alignment.
    unsafe {
        let order = _mm256_broadcastsi128_si256(super::sse::quad_order());
        // Lane 0's piece of each row, then lane 1's.
        let lanes = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
        for k in 0..n {
            let at = |half: usize| {
                let v = _mm256_loadu_si256(pa.add(64 * k + 32 * half).cast());
                _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(v, order), lanes)
            };
            let (a, b) = (at(0), at(1));
            // Rows 0 and 2 (one per lane), rows 1 and 3.
            let (even, odd) = (_mm256_unpacklo_epi64(a, b), _mm256_unpackhi_epi64(a, b));
            let rows = [
                _mm256_castsi256_si128(even),
                _mm256_castsi256_si128(odd),
                _mm256_extracti128_si256::<1>(even),
                _mm256_extracti128_si256::<1>(odd),
            ];
            for (r, v) in rows.into_iter().enumerate() {
                let q = p[r].add(16 * k);
                put::<NT, _>(q, v);
            }
        }
    }
}
