//! SSE (part of the x86_64 baseline): the crate's one 4 x 4 transpose of
//! 4-byte elements ([`block4`]), used by the staged copy
//! ([`transpose4x4`]) and by the direct blocks ([`Block4`], [`Block16`]).

use super::direct::Block;
use std::arch::x86_64::{
    __m128, _mm_loadu_ps, _mm_movehl_ps, _mm_movelh_ps, _mm_storeu_ps, _mm_stream_ps,
    _mm_unpackhi_ps, _mm_unpacklo_ps,
};

/// Transposes the 4 x 4 block of 4-byte elements at byte `x` of `a`
/// (rows `row` bytes apart) into the block at byte `y` of `t`.
///
/// # Panics
///
/// If a row of either block lies outside its slice.
#[inline(always)]
pub(super) fn transpose4x4(a: &[u8], x: usize, t: &mut [u8], y: usize, row: usize) {
    let span = 3 * row + 16;
    let (a, t) = (&a[x..x + span], &mut t[y..y + span]);
    // SAFETY: the four 16-byte rows read (bytes k*row .. k*row + 16,
    // k < 4) lie in `a`, which is `3*row + 16` bytes long; likewise the
    // rows written lie in `t`, a distinct slice.
    unsafe { block4::<false>(a.as_ptr(), row as isize, t.as_mut_ptr(), row as isize) }
}

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

/// The 4 x 4 transpose: `pt[c*st + r*4 ..][..4] = pa[r*sa + c*4 ..][..4]`
/// for `r`, `c` < 4.
///
/// # Safety
///
/// The 16 bytes at `pa + r*sa` (`r < 4`) are readable, the 16 bytes at
/// `pt + c*st` (`c < 4`) writable and disjoint from them; with `NT` each
/// `pt + c*st` is 16-byte aligned.
#[inline(always)]
unsafe fn block4<const NT: bool>(pa: *const u8, sa: isize, pt: *mut u8, st: isize) {
    // SAFETY: the four rows read and written are what the caller
    // vouches for; unaligned loads and stores need no alignment,
    // streaming ones the 16 bytes the caller gives. SSE is part of the
    // x86_64 baseline.
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
