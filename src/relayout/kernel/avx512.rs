//! AVX-512 (F and BW): streamed blocks of 64-byte lines whose squares go
//! four at a time, one in each 128-bit lane, the lanes taken from four
//! bands of source rows so that every register ends as a whole
//! destination line, stored with one non-temporal store ([`Quads`]);
//! 1-byte transposes in groups of four bands of 64 source rows that go
//! through a stage in the caches in two passes ([`bands`]); groups of
//! two or four elements split into their rows, whole lines
//! ([`split_lines`], [`gather_lines`], which also gathers runs into one
//! destination), or merged from them ([`merge_lines`]); runs that
//! continue each other in the destination streamed as one
//! ([`stream_runs`]).

use std::mem::MaybeUninit;

use super::Block;
use super::sse::{Lanes, impl_lanes, stream, transpose_lanes};
use std::arch::x86_64::{
    __m512i, _mm_loadu_si128, _mm512_alignr_epi32, _mm512_broadcast_i32x4, _mm512_castsi128_si512,
    _mm512_inserti32x4, _mm512_loadu_si512, _mm512_setzero_si512, _mm512_shuffle_epi8,
    _mm512_shuffle_i64x2, _mm512_storeu_si512, _mm512_unpackhi_epi8, _mm512_unpackhi_epi16,
    _mm512_unpackhi_epi32, _mm512_unpackhi_epi64, _mm512_unpacklo_epi8, _mm512_unpacklo_epi16,
    _mm512_unpacklo_epi32, _mm512_unpacklo_epi64,
};

/// Squares of `64 / E` elements of `E` bytes, each row a 64-byte line,
/// with AVX-512: for each 16-byte column of the block, the four `16 /
/// E`-element squares down it go through the rounds of
/// [`transpose_lanes`] together, one per 128-bit lane, so that each
/// register then holds a whole destination line, written with a
/// non-temporal store (no buffer in L1 on the way to the destination,
/// unlike the other streamed blocks). Used straight from the source rows
/// or from the gathered ones.
///
/// `WHOLE`: each source line loaded once, whole ([`whole_quads`]),
/// rather than a 16-byte column of every row at a time ([`quads`]): for
/// source rows a multiple of 4 KiB apart, whose lines share a set of L1
/// (a block's lines were evicted before their next column was read),
/// with the lines aligned (unaligned, each load touches two). The 16 MiB
/// s16 transpose (rows of 8 KiB) ran at 8.0-8.4 GiB/s so, against
/// 7.3-7.5 a column at a time; at 256 MiB (rows of 32 KiB) within the
/// runs' spread (6.4-7.3 against 6.5-7.1 over eleven interleaved runs).
/// Elsewhere the columns measured faster: NHWC -> NCHW with 256
/// channels (rows of 1 KiB, lines not aligned) at 256 MiB, 8.9-9.4 GiB/s
/// against 8.2-8.3.
pub(super) struct Quads<const E: usize, const WHOLE: bool = false>;

impl<const E: usize, const WHOLE: bool> Block for Quads<E, WHOLE> {
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
        unsafe {
            if WHOLE {
                whole_quads::<E>(pa, sa, pt, st)
            } else {
                quads::<E>(pa, sa, pt, st)
            }
        }
    }
}

// With AVX-512 F (`zero`) and BW (`unpack`), as the callers vouch.
impl_lanes!(
    __m512i,
    _mm512_setzero_si512,
    [_mm512_unpacklo_epi8, _mm512_unpackhi_epi8],
    [_mm512_unpacklo_epi16, _mm512_unpackhi_epi16],
    [_mm512_unpacklo_epi32, _mm512_unpackhi_epi32],
    [_mm512_unpacklo_epi64, _mm512_unpackhi_epi64],
    _mm512_loadu_si512,
    _mm512_stream_si512,
    _mm512_storeu_si512,
);

/// The block of [`Quads`] with whole lines: the rows go in four groups
/// of `n = 16 / E`; after the rounds of [`transpose_lanes`] on group
/// `g`, its register `k` holds in lane `c0` the column `n*c0 + k` of
/// the group's rows, a quarter of destination row `n*c0 + k`, whose four
/// quarters [`lanes`] puts together.
///
/// # Safety
///
/// As [`Quads::copy`].
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn whole_quads<const E: usize>(pa: *const u8, sa: isize, pt: *mut u8, st: isize) {
    let n = 16 / E;
    // SAFETY: the caller vouches for AVX-512 F.
    let zero = unsafe { __m512i::zero() };
    // `quarters[k][g]`: register `k` of group `g`.
    let mut quarters = [[zero; 4]; 16];
    if E == 2 {
        // Five registers spill for 2-byte elements (32 quarters).
        align_frame!();
    }
    for g in 0..4 {
        let mut r = [zero; 16];
        for (k, v) in r.iter_mut().enumerate().take(n) {
            // SAFETY: row `g*n + k < 4n = SIZE` of the block the caller
            // vouches for, 64 bytes; unaligned loads need no alignment.
            *v = unsafe { _mm512_loadu_si512(pa.offset((g * n + k) as isize * sa).cast()) };
        }
        // SAFETY: as the caller vouches.
        let r = unsafe { transpose_lanes::<__m512i, E>(r) };
        for (quarter, v) in quarters.iter_mut().zip(r).take(n) {
            quarter[g] = v;
        }
    }
    for (k, quarter) in quarters.into_iter().enumerate().take(n) {
        for (c0, v) in lanes(quarter).into_iter().enumerate() {
            // SAFETY: destination row `n*c0 + k < SIZE`, 64 bytes
            // (aligned), as the caller vouches.
            unsafe { stream(pt.offset((n * c0 + k) as isize * st), v) };
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

/// Splits `n` runs of `64 / E` groups of `K` (2 or 4) `E`-byte elements
/// at `pa` (`64 * K` bytes a run) into the `K` elements of each group,
/// 64 bytes a run at each of `p[0] .. p[K]` (untiling XLA's `(2,1)` and
/// `(4,1)` sub-tiles), every whole line of the rows streamed. Where `K *
/// E` is at most 16, a 128-bit lane holds whole groups, `16 / (K * E)` of
/// them (quadruples of 8-byte elements, two lanes each, are the 4 x 8
/// transpose of their words: [`lanes`] and one 8-byte unpack).
///
/// Load `q` of a run holds the groups of blocks `4q .. 4q + 4`, one
/// block (`16 / K` bytes of each row) per lane. One byte shuffle per load
/// puts each lane's elements of row `r` together, in its piece `r` of
/// `16 / K` bytes; line `r` then takes, in lane `L`, piece `r` of blocks
/// `KL .. KL + K`. For `K = 4`, a 4 x 4 transpose of the loads' lanes
/// ([`lanes`]) and one of 4-byte pieces within the lanes; for `K = 2`,
/// two lane shuffles (the even lanes of both loads, the odd ones) and one
/// 8-byte unpack. (Lane-crossing permutes of pieces would take fewer
/// instructions, but Miri does not run them.)
///
/// Rows that start `M` bytes past a line (a buffer from `malloc` starts
/// 16 bytes past one) get their lines whole too: each line streamed is
/// the last `M` bytes of one run's register and the first `64 - M` of the
/// next one's (one `valignd`); the first `64 - M` bytes of each row and
/// its last `M` are written with ordinary stores.
///
/// # Safety
///
/// The `64 * K * n` bytes at `pa` are readable, the `64 * n` bytes at
/// each `p[r]` (`r < K`) writable and disjoint from them and from each
/// other; each `p[r]` is `M` bytes past a 64-byte line, `M` 0, 16, 32 or
/// 48; `K` is 2 or 4 and `E` 1, 2, 4 or 8; the CPU has AVX-512 F and
/// BW.
#[target_feature(enable = "avx512f,avx512bw")]
pub(super) unsafe fn split_lines<const E: usize, const K: usize, const M: usize>(
    pa: *const u8,
    p: [*mut u8; 4],
    n: usize,
) {
    // SAFETY: as the caller vouches: one run of `n` chunks.
    unsafe { gather_lines::<E, K, M, 1, true>(pa, (1, 0), (1, 0, 0), n, p) }
}

/// Most groups of rows [`gather_lines`] carries at once.
pub(super) const GROUPS: usize = 8;

/// [`split_lines`] of chunks (`64 * K` bytes each) taken from runs of
/// `per` chunks, back to back, at every position of `runs` (a count and
/// a source stride: the tiles of a row of tiles), the rows continuing
/// from one run to the next; and at each of those, for every position of
/// `groups` (a count of at most [`GROUPS`], a source and a destination
/// stride: the rows of pairs of a tile), whose rows are others, each
/// group's rows carried on their own. The source is read in order where
/// the groups of a run are back to back and the runs too (a row of
/// tiles, tile by tile), while every group's rows are written in whole
/// lines. With `K = 1`, each chunk is one 64-byte piece of its run,
/// copied as it is: runs of whole lines (untiling XLA's `T(8,128)` or
/// `T(4,128)` tiles, each destination row made of a run from every tile
/// of a row of tiles, the rows of a tile the groups), every whole line
/// streamed wherever the rows start.
///
/// # Safety
///
/// The `64 * K * per` bytes at `pa + o * runs.1 + g * groups.1` are
/// readable (`o < runs.0`, `g < groups.0`); with `n` the count of chunks
/// a row (`runs.0 * per`), the `64 * n` bytes at each `p[r] + g *
/// groups.2` (`r < K`) are writable and disjoint from the source and
/// from each other; each `p[r] + g * groups.2` is `M` bytes past a
/// 64-byte line, `M` 0, 16, 32 or 48, or a multiple of 4 bytes past one
/// for `M` [`PER_ROW`]; `groups.0` is at most `G` (the
/// groups carried in registers: one for a single group, which then keeps
/// its rows' registers out of memory, else [`GROUPS`]);
/// `K` is 1, 2 or 4 and `E` 1, 2, 4 or 8; the CPU has AVX-512 F and BW.
#[target_feature(enable = "avx512f,avx512bw")]
pub(super) unsafe fn gather_lines<
    const E: usize,
    const K: usize,
    const M: usize,
    const G: usize,
    const NT: bool,
>(
    pa: *const u8,
    runs: (usize, isize),
    groups: (usize, isize, isize),
    per: usize,
    p: [*mut u8; 4],
) {
    // SAFETY: the bytes read and written are what the caller vouches
    // for: chunk `k` of a group writes bytes `64k - M .. 64k + 64 - M` of
    // each of its rows (from its first byte for the first chunk), the end
    // of the last chunk their last `M` bytes; the streamed lines are
    // aligned, the other stores and the loads unaligned.
    unsafe {
        let order = group_order::<E, K, true>();
        let run = |at: *const u8| {
            let x =
                |q: usize| _mm512_shuffle_epi8(_mm512_loadu_si512(at.add(64 * q).cast()), order);
            if K == 1 {
                let x0 = _mm512_loadu_si512(at.cast());
                [x0, x0, x0, x0]
            } else if K * E == 32 {
                // Quadruples of 8-byte elements, two a load, each across
                // two lanes. Lane `L` of `y[m]` is lane `m` of load `L`:
                // rows `2(m % 2)` and `2(m % 2) + 1` of quadruple `2L`
                // (`m` 0 or 1) or `2L + 1` (`m` 2 or 3).
                let y = lanes([0, 1, 2, 3].map(|q| _mm512_loadu_si512(at.add(64 * q).cast())));
                let (r0, r1) = __m512i::unpack::<8>(y[0], y[2]);
                let (r2, r3) = __m512i::unpack::<8>(y[1], y[3]);
                [r0, r1, r2, r3]
            } else if K == 2 {
                // Lane `L` of `y0`: block `2L`, of `y1`: block `2L + 1`.
                let (x0, x1) = (x(0), x(1));
                let y0 = _mm512_shuffle_i64x2::<0x88>(x0, x1);
                let y1 = _mm512_shuffle_i64x2::<0xDD>(x0, x1);
                let (r0, r1) = __m512i::unpack::<8>(y0, y1);
                [r0, r1, r0, r1]
            } else {
                // Lane `L` of `y[m]`: block `4L + m`.
                let y = lanes([0, 1, 2, 3].map(x));
                let (a, b) = __m512i::unpack::<4>(y[0], y[1]);
                let (c, d) = __m512i::unpack::<4>(y[2], y[3]);
                let (r0, r1) = __m512i::unpack::<8>(a, c);
                let (r2, r3) = __m512i::unpack::<8>(b, d);
                [r0, r1, r2, r3]
            }
        };
        // The last register of each row of each group, written by the
        // first run before any other reads it. (Not zeroed: for eight
        // groups, a `memset` of 2 KiB a call, 8% of the samples of an
        // f64 `T(16,128)(2,1)` untiling.)
        let mut prev = [const { MaybeUninit::<[__m512i; 4]>::uninit() }; G];
        let groups = (groups.0.min(G), groups.1, groups.2);
        for o in 0..runs.0 {
            for (g, carried) in prev.iter_mut().enumerate().take(groups.0) {
                let g = g as isize;
                let from = pa.offset(o as isize * runs.1 + g * groups.1);
                // The group's registers in a local through the run (a
                // reference into `prev` kept them in memory: one group's
                // split, at 16 MiB, 0.68-1.00 -> 1.15-1.23 ms a pass).
                let mut last = if o == 0 {
                    [__m512i::zero(); 4]
                } else {
                    carried.assume_init()
                };
                for c in 0..per {
                    let rows = run(from.add(64 * K * c));
                    for r in 0..K {
                        let row = p[r].offset(g * groups.2);
                        shifted::<M, NT>(row, o * per + c, rows[r], last[r]);
                    }
                    last = rows;
                }
                carried.write(last);
            }
        }
        let n = runs.0 * per;
        if n > 0 {
            // Every group's registers were written (`runs.0 > 0`).
            for (g, carried) in prev.iter().enumerate().take(groups.0) {
                let last = carried.assume_init();
                for r in 0..K {
                    shifted_end::<M>(p[r].offset(g as isize * groups.2), n, last[r]);
                }
            }
        }
    }
}

/// The other way: `K` (2 or 4) rows of `E`-byte elements merged into
/// groups of `K` (tiling into XLA's `(2,1)` and `(4,1)` sub-tiles), the
/// groups written to one contiguous destination at `pt` in whole lines,
/// streamed wherever it starts. The rows are read in runs of `per`
/// 64-byte pieces at `p[r] + o * runs[0].1 + i * runs[1].1` (`o <
/// runs[0].0`, `i < runs[1].0`, in that order), each piece of the `K`
/// rows making `K` lines of groups: the steps of [`gather_lines`]'s
/// split undone in reverse order (the 4 x 4 transposes of lanes and of
/// 4-byte pieces are their own inverses; for `K = 2`, the 8-byte unpack's
/// and the lane shuffles' inverses), then the byte shuffle's inverse.
///
/// # Safety
///
/// The `64 * per` bytes at `p[r] + o * runs[0].1 + i * runs[1].1` are
/// readable (`r < K`, `o < runs[0].0`, `i < runs[1].0`); with `n` the
/// count of pieces (`runs[0].0 * runs[1].0 * per`), the `64 * K * n`
/// bytes at `pt` are writable and disjoint from them; `pt` is `M` bytes
/// past a 64-byte line, `M` 0, 16, 32 or 48, or a multiple of 4 bytes
/// past one for `M` [`PER_ROW`]; `K` is 2 or 4 and `K * E`
/// at most 16; the CPU has AVX-512 F and BW.
#[target_feature(enable = "avx512f,avx512bw")]
pub(super) unsafe fn merge_lines<const E: usize, const K: usize, const M: usize, const NT: bool>(
    p: [*const u8; 4],
    runs: [(usize, isize); 2],
    per: usize,
    pt: *mut u8,
) {
    // SAFETY: the bytes read and written are what the caller vouches
    // for: line `k` of groups writes bytes `64k - M .. 64k + 64 - M` of
    // the destination (from its first byte for the first), the last its
    // last `M` bytes; the streamed lines are aligned, the other stores
    // and the loads unaligned.
    unsafe {
        let order = group_order::<E, K, false>();
        let mut prev = __m512i::zero();
        let mut k = 0;
        for o in 0..runs[0].0 as isize {
            for i in 0..runs[1].0 as isize {
                let at = o * runs[0].1 + i * runs[1].1;
                for c in 0..per {
                    let r = |q: usize| _mm512_loadu_si512(p[q].offset(at).add(64 * c).cast());
                    let x = if K == 2 {
                        let (y0, y1) = __m512i::unpack::<8>(r(0), r(1));
                        // `x0`: blocks 0 to 3, lanes 0 and 1 of `y0` and
                        // `y1` in turn; `x1`: blocks 4 to 7, their lanes
                        // 2 and 3.
                        let low = _mm512_shuffle_i64x2::<0x44>(y0, y1);
                        let high = _mm512_shuffle_i64x2::<0xEE>(y0, y1);
                        let x0 = _mm512_shuffle_i64x2::<0xD8>(low, low);
                        let x1 = _mm512_shuffle_i64x2::<0xD8>(high, high);
                        [x0, x1, x0, x1]
                    } else {
                        let (a, b) = __m512i::unpack::<4>(r(0), r(1));
                        let (c, d) = __m512i::unpack::<4>(r(2), r(3));
                        let (y0, y1) = __m512i::unpack::<8>(a, c);
                        let (y2, y3) = __m512i::unpack::<8>(b, d);
                        lanes([y0, y1, y2, y3])
                    };
                    for &v in x.iter().take(K) {
                        let v = _mm512_shuffle_epi8(v, order);
                        shifted::<M, NT>(pt, k, v, prev);
                        prev = v;
                        k += 1;
                    }
                }
            }
        }
        if k > 0 {
            shifted_end::<M>(pt, k, prev);
        }
    }
}

/// Runs of `per` 64-byte pieces at `pa + o * runs[0].1 + i * runs[1].1`
/// (`o < runs[0].0`, `i < runs[1].0`, in that order) copied back to back
/// to one destination at `pt`, every whole line of it streamed wherever
/// it starts: tiling into XLA's `T(4,128)` and `T(8,128)` tiles, whose
/// tiles and rows of a tile continue each other in the destination while
/// each row of a tile is a run of its own source row.
///
/// # Safety
///
/// The `64 * per` bytes at each run are readable; with `n` the count of
/// pieces (`runs[0].0 * runs[1].0 * per`), the `64 * n` bytes at `pt` are
/// writable and disjoint from them; `pt` is `M` bytes past a 64-byte
/// line, `M` 0, 16, 32 or 48, or a multiple of 4 bytes past one for `M`
/// [`PER_ROW`]; the CPU has AVX-512 F.
#[target_feature(enable = "avx512f")]
pub(super) unsafe fn stream_runs<const M: usize>(
    pa: *const u8,
    runs: [(usize, isize); 2],
    per: usize,
    pt: *mut u8,
) {
    // SAFETY: as the caller vouches: piece `k` writes bytes `64k - M ..
    // 64k + 64 - M` of the destination (from its first byte for the
    // first), the end its last `M` bytes; the streamed lines aligned,
    // the other stores and the loads unaligned.
    unsafe {
        let mut prev = __m512i::zero();
        let mut k = 0;
        for o in 0..runs[0].0 as isize {
            for i in 0..runs[1].0 as isize {
                let at = pa.offset(o * runs[0].1 + i * runs[1].1);
                for c in 0..per {
                    let v = _mm512_loadu_si512(at.add(64 * c).cast());
                    shifted::<M, true>(pt, k, v, prev);
                    prev = v;
                    k += 1;
                }
            }
        }
        if k > 0 {
            shifted_end::<M>(pt, k, prev);
        }
    }
}

/// The in-lane byte shuffle of [`gather_lines`] (`SPLIT`: byte `r * 16 /
/// K + g * E + t` of a lane takes byte `g * K * E + r * E + t`, the
/// elements of each row of the lane's groups together) or of
/// [`merge_lines`] (its inverse), in every lane.
#[target_feature(enable = "avx512f")]
#[inline]
fn group_order<const E: usize, const K: usize, const SPLIT: bool>() -> __m512i {
    let mut bytes = [0u8; 16];
    for k in 0..16 {
        let (r, g, t) = (k / (16 / K), k % (16 / K) / E, k % E);
        let grouped = g * K * E + r * E + t;
        if SPLIT {
            bytes[k] = grouped as u8;
        } else if let Some(b) = bytes.get_mut(grouped) {
            // (Every byte for `K * E` at most 16, as merges have.)
            *b = k as u8;
        }
    }
    // SAFETY: the 16 bytes read are `bytes`'.
    _mm512_broadcast_i32x4(unsafe { _mm_loadu_si128(bytes.as_ptr().cast()) })
}

/// The `M` of [`shifted`] and of the kernels that call it for rows that
/// each start as far past a line as their address says, a multiple of 4
/// bytes (rows of a length that is not a whole number of lines: each
/// starts at another distance).
pub(super) const PER_ROW: usize = 1;

/// Register `k` of a row of 64-byte registers at `at` (the `64 * k` bytes
/// from `at`), `prev` register `k - 1`, where `at` is `M` bytes past a
/// line: streamed whole (`M` 0); else the line that ends with the last
/// `M` bytes of `prev` is streamed, and the first register's first `64 -
/// M` bytes written with an ordinary store ([`shifted_end`] writes the
/// last register's last `M`). Not `NT` (a destination meant to stay in
/// the caches, such as the stage of `staged`): the lines with ordinary
/// stores too.
///
/// # Safety
///
/// The `64` bytes at `at + 64 * k` are writable and so, for `k > 0`, the
/// `M` before them; `at` is `M` bytes past a 64-byte line, `M` 0, 16, 32
/// or 48, or `M` is [`PER_ROW`] and `at` a multiple of 4 bytes past one
/// (taken as `M`); the CPU has AVX-512 F.
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn shifted<const M: usize, const NT: bool>(
    at: *mut u8,
    k: usize,
    v: __m512i,
    prev: __m512i,
) {
    // SAFETY: as the caller vouches: bytes `64k - M .. 64k + 64 - M` (from
    // `64k` for the first register), the streamed line aligned.
    unsafe {
        let at = at.add(64 * k);
        // The whole line at `line`: streamed, or an ordinary store.
        let put = |line: *mut u8, v| {
            if NT {
                stream(line, v)
            } else {
                _mm512_storeu_si512(line.cast(), v)
            }
        };
        if M == PER_ROW {
            // The row's own distance past a line, a multiple of 4: the
            // line that ends with its last `m` bytes of `prev`, picked
            // a 4-byte word at a time (word `t` of it is word `16 - m/4
            // + t` of `prev` then `v`).
            let m = at as usize % 64;
            if m == 0 {
                put(at, v);
            } else if k == 0 {
                part(at, v, 0, 64 - m);
            } else {
                put(at.sub(m), joined(prev, v, m / 4));
            }
        } else if M == 0 {
            put(at, v);
        } else if k == 0 {
            part(at, v, 0, 64 - M);
        } else {
            // The last `M` bytes of `prev` and the first `64 - M` of `v`.
            let line = match M {
                16 => _mm512_alignr_epi32::<12>(v, prev),
                32 => _mm512_alignr_epi32::<8>(v, prev),
                _ => _mm512_alignr_epi32::<4>(v, prev),
            };
            put(at.sub(M), line);
        }
    }
}

/// The last `w` 4-byte words of `prev` then the first `16 - w` of `v`
/// (`0 < w < 16`): one `vpermt2d`. (Miri has no `vpermt2d`: there, the
/// same words by `valignd`, whose count is a constant.)
#[target_feature(enable = "avx512f")]
#[inline]
fn joined(prev: __m512i, v: __m512i, w: usize) -> __m512i {
    #[cfg(not(miri))]
    {
        use std::arch::x86_64::{
            _mm512_add_epi32, _mm512_permutex2var_epi32, _mm512_set_epi32, _mm512_set1_epi32,
        };
        let words = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
        let idx = _mm512_add_epi32(words, _mm512_set1_epi32(16 - w as i32));
        _mm512_permutex2var_epi32(prev, idx, v)
    }
    #[cfg(miri)]
    {
        macro_rules! by {
            ($($w:literal)*) => {
                match w {
                    $($w => _mm512_alignr_epi32::<{ 16 - $w }>(v, prev),)*
                    _ => v,
                }
            };
        }
        by!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15)
    }
}

/// The last `M` bytes of register `n - 1` of a row written by
/// [`shifted`], `last`, with an ordinary store.
///
/// # Safety
///
/// The `M` bytes before `at + 64 * n` are writable; `n > 0`; the CPU has
/// AVX-512 F.
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn shifted_end<const M: usize>(at: *mut u8, n: usize, last: __m512i) {
    if M == PER_ROW {
        let m = at as usize % 64;
        if m != 0 {
            // SAFETY: as the caller vouches (`M` is `m`).
            unsafe { part(at.add(64 * n - m), last, 64 - m, 64) }
        }
    } else if M != 0 {
        // SAFETY: as the caller vouches.
        unsafe { part(at.add(64 * n - M), last, 64 - M, 64) }
    }
}

/// Bytes `from .. to` of `v` to `at`, with an ordinary store.
///
/// # Safety
///
/// The `to - from` bytes at `at` are writable; `from <= to <= 64`; the
/// CPU has AVX-512 F.
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn part(at: *mut u8, v: __m512i, from: usize, to: usize) {
    let mut line = [0u8; 64];
    // SAFETY: `line` holds the 64 bytes stored; bytes `from .. to` of it
    // are copied to `at`, as the caller vouches.
    unsafe {
        _mm512_storeu_si512(line.as_mut_ptr().cast(), v);
        std::ptr::copy_nonoverlapping(line.as_ptr().add(from), at, to - from);
    }
}

/// The 8 x 16 bytes of each 128-bit lane of `r` (row `k` in `r[k]`)
/// transposed: three rounds of byte unpacks, each interleaving register
/// `k` with `k + 4` into `2k` and `2k + 1`, leave in 8-byte word `h` of
/// each lane of register `m` the 8 rows of that lane's column `2m + h`
/// (24 unpacks).
///
/// # Safety
///
/// The CPU has AVX-512 BW.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
unsafe fn columns(mut r: [__m512i; 8]) -> [__m512i; 8] {
    for _ in 0..3 {
        // SAFETY: as the caller vouches.
        let [(a, b), (c, d), (e, f), (g, h)] =
            [0, 1, 2, 3].map(|k| unsafe { __m512i::unpack::<1>(r[k], r[k + 4]) });
        r = [a, b, c, d, e, f, g, h];
    }
    r
}

/// The 4 x 4 transpose of the 128-bit lanes of `x`: lane `q` of result
/// `c` is lane `c` of `x[q]`. Two rounds of lane shuffles, each taking
/// lanes 0 and 2 (`0x88`) or 1 and 3 (`0xDD`) of two registers.
#[target_feature(enable = "avx512f")]
#[inline]
fn lanes([x0, x1, x2, x3]: [__m512i; 4]) -> [__m512i; 4] {
    let even = |a: __m512i, b: __m512i| _mm512_shuffle_i64x2::<0x88>(a, b);
    let odd = |a: __m512i, b: __m512i| _mm512_shuffle_i64x2::<0xDD>(a, b);
    let (e01, o01, e23, o23) = (even(x0, x1), odd(x0, x1), even(x2, x3), odd(x2, x3));
    [even(e01, e23), even(o01, o23), odd(e01, e23), odd(o01, o23)]
}

/// The 8 x 8 transpose of the 8-byte words of `r`: word `k` of result
/// `q` is word `q` of `r[k]`. Unpacks pair the words of neighbouring
/// registers within each 128-bit lane, then [`lanes`] puts the lanes in
/// order (24 instructions).
#[target_feature(enable = "avx512f")]
#[inline]
fn words(r: [__m512i; 8]) -> [__m512i; 8] {
    // `lo[m]`: lane `l` holds words `2l` of `r[2m]` and `r[2m + 1]`;
    // `hi[m]` words `2l + 1`.
    let lo = lanes([0, 2, 4, 6].map(|k| _mm512_unpacklo_epi64(r[k], r[k + 1])));
    let hi = lanes([0, 2, 4, 6].map(|k| _mm512_unpackhi_epi64(r[k], r[k + 1])));
    std::array::from_fn(|q| if q % 2 == 0 { lo[q / 2] } else { hi[q / 2] })
}

/// Copies `n` bands of the transpose of 1-byte elements: band `t` is the
/// 64 source rows from `pa + 64t * sa` (`sa` bytes apart), `64 * nb`
/// bytes of each, whose transpose is bytes `64t .. 64t + 64` of the `64 *
/// nb` destination rows from `pt` (`st` bytes apart). The bands go four
/// at a time (then a pair and one alone, as many as are left), each
/// through a stage of `64 * nb` lines, in two passes. First, band by
/// band, 8 source rows at a time along their length: each 8 whole lines,
/// one per row, become 8 bytes of each of 64 destination rows
/// ([`columns`]), staged by destination row ([`fill`]). Then 8
/// destination rows at a time: their 8-byte pieces from the 8 groups of
/// source rows are put together ([`words`]), each row's four lines (one
/// per band, adjacent) stored one after the other with non-temporal
/// stores ([`drain`]).
///
/// Reading the source 8 rows at a time, instead of one line of each of
/// 64 rows in turn as the gathered [`Quads`] do, made the 256 MiB
/// transpose (rows of 16 KiB) run at 0.62-0.71x of a memory copy
/// instead of 0.42-0.51x, in interleaved runs; 16 rows at a time (16 x
/// 16 squares in each lane, then 4 x 4 lanes), at 0.48-0.54x. Two lines
/// per destination row instead of one (the second pass of each band
/// interleaved with the first pass of the next) raised the 16 MiB
/// transpose (rows of 4 KiB) from 7.3-7.8 to 9.6-10.0 GiB/s, the 256
/// MiB one from 7.7-7.8 to 9.0-9.3; four lines, in eight and four
/// interleaved runs, from 9.1-10.3 to 10.4-12.4 GiB/s at 16 MiB and from
/// 8.8-9.1 to 9.4-9.9 at 256 MiB (with bands of 8 KiB, whose four stages
/// take as much as two of 16 KiB, 8.1-8.9 at 256 MiB).
///
/// # Safety
///
/// For `t < n`, `k < 64`: the `64 * nb` bytes at `pa + (64t + k) * sa`
/// are readable, and for `r < 64 * nb` the 64 bytes at `pt + r * st +
/// 64t` writable, 64-byte aligned and disjoint from them; `stage` points
/// to `256 * nb` writable registers, disjoint from both; the CPU has
/// AVX-512 F and BW.
#[target_feature(enable = "avx512f,avx512bw")]
pub(super) unsafe fn bands(
    pa: *const u8,
    sa: isize,
    pt: *mut u8,
    st: isize,
    (n, nb): (usize, usize),
    stage: *mut __m512i,
) {
    // Two registers spill in the drain of four bands (32 lines).
    align_frame!();
    // SAFETY: `stage` holds `4 * 64 * nb` registers.
    let stages: [*mut __m512i; 4] = std::array::from_fn(|k| unsafe { stage.add(64 * nb * k) });
    let band = |t: usize| pa.wrapping_offset(64 * t as isize * sa);
    let mut t = 0;
    while t + 4 <= n {
        // SAFETY: bands `t .. t + 4 <= n`, their destination and the four
        // stages, as the caller vouches.
        unsafe { group(band(t), sa, stages, pt.add(64 * t), st, nb) };
        t += 4;
    }
    if t + 2 <= n {
        // SAFETY: as above, for bands `t .. t + 2 <= n`.
        unsafe { group(band(t), sa, [stages[0], stages[1]], pt.add(64 * t), st, nb) };
        t += 2;
    }
    if t < n {
        // SAFETY: as above, for band `t < n` alone.
        unsafe { group(band(t), sa, [stages[0]], pt.add(64 * t), st, nb) };
    }
}

/// `K` bands of [`bands`] from the one at `pa` (band `k` at `pa + 64k *
/// sa`), each through the first pass into its stage, then drained
/// together to the destination at `pt`.
///
/// # Safety
///
/// As [`bands`], for the `K` bands from `pa` and their destination from
/// `pt`; each stage holds `64 * nb` registers.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
unsafe fn group<const K: usize>(
    pa: *const u8,
    sa: isize,
    stages: [*mut __m512i; K],
    pt: *mut u8,
    st: isize,
    nb: usize,
) {
    // SAFETY: as the caller vouches; each stage is filled before it is
    // drained.
    unsafe {
        for (k, &s) in stages.iter().enumerate() {
            fill(pa.wrapping_offset(64 * k as isize * sa), sa, s, nb);
        }
        drain(stages, pt, st, nb);
    }
}

/// The first pass of [`bands`] for the band at `pa` into the stage
/// `fill`: group `g = 8b + m` of the stage holds the 8 pieces (one per 8
/// source rows) of the destination rows `64b + 16l + 2m + h` (`l < 4`,
/// `h < 2`: the words of register `m` of [`columns`] for line `b`).
///
/// # Safety
///
/// As [`bands`], for the band at `pa`; `fill` holds `64 * nb`
/// registers.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
unsafe fn fill(pa: *const u8, sa: isize, fill: *mut __m512i, nb: usize) {
    for p in 0..8 {
        for b in 0..nb {
            // SAFETY: rows `8p + k < 64` of the band, line `b < nb` of
            // each; piece `p` of groups `8b + m < 8 * nb`, as the caller
            // vouches.
            unsafe {
                let r = std::array::from_fn(|k| {
                    let row = (8 * p + k) as isize * sa;
                    _mm512_loadu_si512(pa.offset(row + 64 * b as isize).cast())
                });
                for (m, v) in columns(r).into_iter().enumerate() {
                    fill.add((8 * b + m) * 8 + p).write(v);
                }
            }
        }
    }
}

/// The second pass of [`bands`] for `K` bands staged in `stages` (as
/// [`fill`] leaves them) to the destination at `pt`: each destination
/// row's `K` lines, from the bands in turn, one after the other.
///
/// # Safety
///
/// As [`bands`], for the destination of `K` bands from `pt`; each stage
/// holds `64 * nb` registers, filled.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
unsafe fn drain<const K: usize>(stages: [*mut __m512i; K], pt: *mut u8, st: isize, nb: usize) {
    for g in 0..8 * nb {
        let (gb, m) = (g / 8, g % 8);
        // SAFETY: the 8 pieces of group `g < 8 * nb` of each stage, and
        // its destination rows (`< 64 * nb`), `K` lines of each, as the
        // caller vouches.
        unsafe {
            // Loops, not closures: a closure over `words` was compiled
            // out of line once the crate grew (the 16 MiB u8 transpose
            // 1.33 -> 1.63 ms a pass, 14% of it in the closure).
            let mut lines = [[__m512i::zero(); 8]; K];
            for (line, s) in lines.iter_mut().zip(stages) {
                let mut x = [__m512i::zero(); 8];
                for (p, v) in x.iter_mut().enumerate() {
                    *v = s.add(8 * g + p).read();
                }
                *line = words(x);
            }
            for q in 0..8 {
                let row = 64 * gb + 16 * (q / 2) + 2 * m + q % 2;
                let to = pt.offset(row as isize * st);
                for (u, line) in lines.iter().enumerate() {
                    stream(to.add(64 * u), line[q]);
                }
            }
        }
    }
}
