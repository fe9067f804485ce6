//! AVX: 16 x 16 blocks of 4-byte elements as four 8 x 8 transposes.

use super::direct::{Block, Lines};
use std::arch::x86_64::{
    __m256, _mm256_loadu_ps, _mm256_permute2f128_ps, _mm256_shuffle_ps, _mm256_storeu_ps,
    _mm256_stream_ps, _mm256_unpackhi_ps, _mm256_unpacklo_ps,
};
use std::mem::MaybeUninit;

/// 16 x 16 blocks in 8 x 8 transposes, the two halves of each
/// destination row one after the other, with non-temporal stores
/// if `NT`.
pub(super) struct Block16<const NT: bool>;

impl<const NT: bool> Block for Block16<NT> {
    const SIZE: usize = 16;

    /// # Safety
    ///
    /// As `sse::Line::copy` of 4-byte elements (with `NT`, 32-byte
    /// alignment), and
    /// the CPU has AVX.
    #[inline]
    unsafe fn copy(pa: *const u8, sa: isize, pt: *mut u8, st: isize) {
        if NT {
            // Streamed, each destination line is written whole from a
            // buffer in L1: two halves written apart would leave the
            // write-combining buffers with partial lines.
            let mut cols = MaybeUninit::<Lines>::uninit();
            let pc = cols.as_mut_ptr().cast::<u8>();
            // SAFETY: the source rows are what the caller vouches for;
            // the 16 rows of 64 bytes written lie in `cols` (more than 4096 bytes),
            // which `stream_lines` then reads, every byte written.
            unsafe {
                block16::<false>(pa, sa, pc, 64);
                super::sse::stream_lines(pc, 16, pt, st);
            }
            return;
        }
        // SAFETY: as the caller vouches.
        unsafe { block16::<false>(pa, sa, pt, st) }
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
