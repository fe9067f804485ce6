//! AVX-512 (F and BW): streamed blocks of 64-byte lines whose squares go
//! four at a time, one in each 128-bit lane, the lanes taken from four
//! bands of source rows so that every register ends as a whole
//! destination line, stored with one non-temporal store ([`Quads`]).

use super::direct::Block;
use super::sse::{Lanes, transpose_lanes};
use std::arch::x86_64::{
    __m512i, _mm_loadu_si128, _mm512_castsi128_si512, _mm512_inserti32x4, _mm512_setzero_si512,
    _mm512_unpackhi_epi8, _mm512_unpackhi_epi16, _mm512_unpackhi_epi32, _mm512_unpackhi_epi64,
    _mm512_unpacklo_epi8, _mm512_unpacklo_epi16, _mm512_unpacklo_epi32, _mm512_unpacklo_epi64,
};

/// Squares of `64 / E` elements of `E` bytes, each row a 64-byte line,
/// with AVX-512: for each 16-byte column of the block, the four `16 /
/// E`-element squares down it go through the rounds of
/// [`transpose_lanes`] together, one per 128-bit lane, so that each
/// register then holds a whole destination line, written with a
/// non-temporal store (no buffer in L1 on the way to the destination,
/// unlike the other streamed blocks). Used straight from the source rows
/// or from the gathered ones.
pub(super) struct Quads<const E: usize>;

impl<const E: usize> Block for Quads<E> {
    const SIZE: usize = 64 / E;
    const STREAMS: bool = true;

    /// # Safety
    ///
    /// The 64 bytes at `pa + r*sa` (`r < SIZE`) are readable, the 64
    /// bytes at `pt + c*st` (`c < SIZE`) writable, 64-byte aligned and
    /// disjoint from them; `E` is 1, 2, 4 or 8; the CPU has AVX-512 F
    /// and BW.
    #[inline]
    unsafe fn copy(pa: *const u8, sa: isize, pt: *mut u8, st: isize) {
        // SAFETY: as the caller vouches.
        unsafe { quads::<E>(pa, sa, pt, st) }
    }
}

impl Lanes for __m512i {
    #[inline(always)]
    unsafe fn zero() -> Self {
        // SAFETY: the caller vouches for AVX-512 F.
        unsafe { _mm512_setzero_si512() }
    }

    #[inline(always)]
    unsafe fn unpack<const E: usize>(a: Self, b: Self) -> (Self, Self) {
        // SAFETY: the caller vouches for AVX-512 F and BW; no memory is
        // touched.
        unsafe {
            match E {
                1 => (_mm512_unpacklo_epi8(a, b), _mm512_unpackhi_epi8(a, b)),
                2 => (_mm512_unpacklo_epi16(a, b), _mm512_unpackhi_epi16(a, b)),
                4 => (_mm512_unpacklo_epi32(a, b), _mm512_unpackhi_epi32(a, b)),
                _ => (_mm512_unpacklo_epi64(a, b), _mm512_unpackhi_epi64(a, b)),
            }
        }
    }
}

/// The block of [`Quads`]: for each 16-byte column `c0` of the source
/// rows, register `k < n = 16 / E` holds that column's 16 bytes of rows
/// `k`, `k + n`, `k + 2n` and `k + 3n` in its four lanes; after the
/// `log2(n)` rounds, register `k` holds in lane `q` the column `n*c0 + k`
/// of rows `q*n .. q*n + n`, which is destination row `n*c0 + k`.
///
/// # Safety
///
/// As [`Quads::copy`].
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn quads<const E: usize>(pa: *const u8, sa: isize, pt: *mut u8, st: isize) {
    let n = 16 / E;
    let band = n as isize * sa;
    for c0 in 0..4isize {
        // SAFETY: rows `k + q*n < 4n = SIZE`, bytes `16*c0 .. 16*c0 + 16`
        // of the block the caller vouches for are read; destination rows
        // `n*c0 + k < SIZE`, 64 bytes each (aligned), written. Unaligned
        // loads need no alignment.
        unsafe {
            let mut r = [__m512i::zero(); 16];
            for (k, v) in r.iter_mut().enumerate().take(n) {
                let p = pa.offset(k as isize * sa + 16 * c0);
                let piece = |q: isize| _mm_loadu_si128(p.offset(q * band).cast());
                let mut x = _mm512_castsi128_si512(piece(0));
                x = _mm512_inserti32x4::<1>(x, piece(1));
                x = _mm512_inserti32x4::<2>(x, piece(2));
                *v = _mm512_inserti32x4::<3>(x, piece(3));
            }
            let r = transpose_lanes::<__m512i, E>(r);
            for (k, v) in r.into_iter().enumerate().take(n) {
                let row = n as isize * c0 + k as isize;
                stream(pt.offset(row * st), v);
            }
        }
    }
}

/// Stores `v` at `p` with a non-temporal store. Under Miri, which cannot
/// run the instruction, an ordinary store of the same 64 bytes (as
/// `sse::stream`).
///
/// # Safety
///
/// The 64 bytes at `p` are writable; `p` is 64-byte aligned; the CPU has
/// AVX-512 F.
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn stream(p: *mut u8, v: __m512i) {
    debug_assert!(p.addr().is_multiple_of(64), "a streamed store is aligned");
    // SAFETY: as the caller vouches.
    unsafe {
        #[cfg(not(miri))]
        std::arch::x86_64::_mm512_stream_si512(p.cast(), v);
        #[cfg(miri)]
        std::arch::x86_64::_mm512_storeu_si512(p.cast(), v);
    }
}
