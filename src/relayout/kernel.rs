//! The copy loops: a box of elements, each axis with a source and a
//! destination stride in bytes, copied as contiguous runs, as a blocked
//! 2-D transpose, or element by element.
//!
//! Every offset a box touches was checked against the buffers before the
//! loops run ([`BoxCopy::bounds`]); the loops index slices, so a bug here
//! panics instead of reading out of bounds. The exceptions on x86_64,
//! the direct transposes ([`direct`]) and the runs gathered into whole
//! lines (`runs_in_lines`), check the bounds of what they copy again
//! ([`box_span`]) before they use raw pointers.
//!
//! The code is split by instruction set: [`scalar`] (portable, and the
//! staged transposes every fast path falls back to), `sse` (the one
//! square transpose of a 16-byte-wide block and the blocks built from
//! it), `avx` (8 x 8 blocks of 4-byte elements with AVX, the squares
//! of other sizes two at a time with AVX2) and `avx512` (streamed blocks
//! whose squares go four at a time, each register a whole destination
//! line, the bands of 1-byte transposes, the sub-tiles' groups split
//! into whole lines of their rows or merged from them, and runs gathered
//! into whole lines or streamed as one). [`direct`] chooses between
//! them for each transpose, by what the CPU has (`cpu`): blocks laid over
//! the transpose by the transposer (`transposer`), or, for a transpose
//! with a short side, the sub-tiles of a whole row of tiles in whole
//! lines (`lines`) or a copy position by position (`narrow`). A large
//! untiling of 1-byte elements in sub-tiles that `lines` does not take
//! goes through a stage in L1 (`staged`), so that its destination is
//! written in whole lines.

/// Aligns the frame of the function it is written in to 64 bytes, so
/// that the vector registers the compiler spills there sit on whole
/// cache lines (with AVX-512, each spill slot is one line). For the
/// kernels that spill: `avx512::whole_quads` for 2-byte elements (five
/// registers), `avx512::bands` (two) and `avx::pairs` for 1-byte
/// elements (six).
///
/// Otherwise the compiler keeps such a frame 16-byte aligned and spills
/// with unaligned stores. Where a slot then crosses a 4 KiB page boundary,
/// each store to it and the load that follows are split across two pages
/// and stall, on every block. Where the slots lie depends on where the
/// stack happens to be, so some processes ran slowly throughout and the
/// others not. The s16 transpose of 16 MiB ran at 5.4-5.6 GiB/s at 10
/// of 128 stack places 32 bytes apart (without address randomisation),
/// exactly those whose slots crossed a page boundary, and at 12.6 at the
/// median place; one block down at a time, it was slow at 22 of 256
/// places 16 bytes apart. Aligned, it ran at 11.3-13.4 at every place.
/// (`objdump -d` shows whether a kernel's spills are aligned:
/// `vmovdqa64` to the stack, not `vmovdqu64`.)
///
/// The frame is aligned because it holds a 64-byte aligned line whose
/// address [`std::hint::black_box`] lets out: the compiler then keeps
/// that line in memory, aligns the frame before it allocates registers,
/// and the spill slots with it. The line is never read or written.
#[cfg(target_arch = "x86_64")]
macro_rules! align_frame {
    () => {
        #[repr(align(64))]
        struct Line(std::mem::MaybeUninit<[u8; 64]>);
        let line = Line(std::mem::MaybeUninit::uninit());
        std::hint::black_box(&line.0);
    };
}

#[cfg(target_arch = "x86_64")]
mod avx;
#[cfg(target_arch = "x86_64")]
mod avx512;
#[cfg(target_arch = "x86_64")]
mod cpu;
#[cfg(target_arch = "x86_64")]
pub(crate) mod direct;
#[cfg(target_arch = "x86_64")]
mod lines;
#[cfg(target_arch = "x86_64")]
mod narrow;
mod scalar;
#[cfg(target_arch = "x86_64")]
mod sse;
#[cfg(target_arch = "x86_64")]
mod staged;
#[cfg(target_arch = "x86_64")]
mod transposer;

use crate::index_util::next_row_major;

/// Destinations at least this large are written with non-temporal stores
/// where the loops can write whole cache lines: the array would not stay
/// in the caches anyway, and the lines are not read before they are
/// written.
pub(crate) const STREAM_MIN_BYTES: usize = 8 << 20;

/// The innermost two outer axes of a transpose, the innermost last: the
/// transposes one call of the direct kernels copies (x86_64's).
#[cfg(target_arch = "x86_64")]
pub(crate) type Batch = [Axis; 2];

/// One axis of a box: `n` positions, `s` bytes apart in the source and `d`
/// bytes apart in the destination.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Axis {
    pub(crate) n: usize,
    pub(crate) s: isize,
    pub(crate) d: isize,
}

/// The two buffers of a copy and where it starts in them: byte `s` of
/// `src` and byte `d` of `dst`; `stream`: the destination is large
/// enough for non-temporal stores ([`STREAM_MIN_BYTES`]) where the loops
/// write whole lines.
pub(crate) struct Buffers<'a> {
    pub(crate) src: &'a [u8],
    pub(crate) s: isize,
    pub(crate) dst: &'a mut [u8],
    pub(crate) d: isize,
    pub(crate) stream: bool,
}

impl<'a> Buffers<'a> {
    /// The copy from the start of `src` to the start of `dst`.
    pub(crate) fn new(src: &'a [u8], dst: &'a mut [u8], stream: bool) -> Self {
        Buffers {
            src,
            s: 0,
            dst,
            d: 0,
            stream,
        }
    }

    /// The same buffers, the copy starting at byte `s` of the source and
    /// `d` of the destination.
    pub(crate) fn at(&mut self, s: isize, d: isize) -> Buffers<'_> {
        Buffers {
            src: self.src,
            s,
            dst: self.dst,
            d,
            stream: self.stream,
        }
    }
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

/// Code that copies one square block of `SIZE x SIZE` elements: the
/// blocks of each instruction set (`sse`, `avx`, `avx512`), which the
/// direct transposes ([`direct`]) lay over a transpose.
#[cfg(target_arch = "x86_64")]
trait Block {
    const SIZE: usize;

    /// Whether `copy` writes each destination row as one whole line with
    /// a non-temporal store (the rows then 64-byte aligned), so that a
    /// gathered block needs no buffer on its way to the destination.
    const STREAMS: bool = false;

    /// `pt[c*st + r*E ..][..E] = pa[r*sa + c*E ..][..E]` for `r`, `c` <
    /// `SIZE`, `E`-byte elements (the transpose's).
    ///
    /// # Safety
    ///
    /// The rows read and written lie in the buffers and do not
    /// overlap, plus what the implementation asks.
    unsafe fn copy(pa: *const u8, sa: isize, pt: *mut u8, st: isize);
}

/// The lowest and the highest offset of the positions of a box starting
/// at `base` whose axes have these extents and strides (`n` positions
/// `stride` apart; an extent of 0 counts as 1). The bounds of every box
/// the crate copies: add the width of the last element to the second.
pub(crate) fn box_span(base: i128, axes: impl IntoIterator<Item = (usize, isize)>) -> (i128, i128) {
    let (mut lo, mut hi) = (base, base);
    for (n, stride) in axes {
        // Each span fits i128; their sum may not (many axes of huge
        // strides): saturated bounds are past every buffer all the same.
        let span = (n.max(1) as i128 - 1) * stride as i128;
        if span < 0 {
            lo = lo.saturating_add(span);
        } else {
            hi = hi.saturating_add(span);
        }
    }
    (lo, hi)
}

/// Calls `f` with the source and destination offsets of every position of
/// `axes` (most major first, the last axis fastest), starting at `src` and
/// `dst`; nothing when an axis is empty. The positions are counted by
/// [`next_row_major`], the crate's one index odometer.
pub(crate) fn for_each_position(
    axes: &[Axis],
    src: isize,
    dst: isize,
    mut f: impl FnMut(isize, isize),
) {
    if axes.iter().any(|a| a.n == 0) {
        return;
    }
    let extents: Vec<i64> = axes.iter().map(|a| a.n as i64).collect();
    // `carry[k]`: how the offsets move when axis `k` advances and every
    // more minor axis goes back to 0.
    let mut carry = vec![(0isize, 0isize); axes.len()];
    let (mut back_s, mut back_d) = (0isize, 0isize);
    for (k, a) in axes.iter().enumerate().rev() {
        carry[k] = (a.s - back_s, a.d - back_d);
        back_s += a.s * (a.n as isize - 1);
        back_d += a.d * (a.n as isize - 1);
    }
    let mut counters = vec![0i64; axes.len()];
    let (mut s, mut d) = (src, dst);
    loop {
        f(s, d);
        match next_row_major(&mut counters, &extents) {
            Some(k) => {
                s += carry[k].0;
                d += carry[k].1;
            }
            None => return,
        }
    }
}

/// Copies the `a.n` runs of `len` bytes at `s + k * a.s` in `src` to
/// `d + k * a.d` in `dst` (`s`, `d` where `b` starts). Runs of whole
/// 64-byte pieces go in a loop of their own, their bounds checked once:
/// on x86_64 with non-temporal stores when `b.stream` and the runs start
/// on lines, or are long and start 16 bytes from one (whether it
/// streamed is returned, for the caller's fence), else one `memcpy`
/// each (a loop of 16-byte moves here, as the compiler made it from
/// 64-byte ones, ran the u8 `T(8,128)` tiling and untiling at 16 MiB
/// slower than the call: 0.32-0.47x of a memory copy against
/// 0.38-0.87x, three interleaved runs); others by `copy_from_slice`, as
/// do runs that do not lie in the buffers (which then panics: the caller
/// checked the bounds).
fn runs_along(a: Axis, len: usize, b: Buffers) -> bool {
    let Buffers {
        src,
        s,
        dst,
        d,
        stream,
    } = b;
    let inside = |base: isize, stride: isize, buf: usize| {
        let (lo, hi) = box_span(base as i128, [(a.n, stride)]);
        lo >= 0 && hi.saturating_add(len as i128) <= buf as i128
    };
    if len < 64
        || !len.is_multiple_of(64)
        || !inside(s, a.s, src.len())
        || !inside(d, a.d, dst.len())
    {
        for k in 0..a.n as isize {
            let (s, d) = ((s + k * a.s) as usize, (d + k * a.d) as usize);
            dst[d..d + len].copy_from_slice(&src[s..s + len]);
        }
        return false;
    }
    let (ps, pd) = (src.as_ptr(), dst.as_mut_ptr());
    // Streamed where the runs start on lines; or, 16 bytes from one,
    // where the lines they share are completed soon: by the next run
    // (back to back), within a few open rows, or rarely (long runs). A
    // run of 128 bytes 16 bytes past a line writes three partial lines;
    // eight such rows open at once (untiling u8 `T(8,128)` in source
    // order) ran at 0.2-0.4x of a memory copy streamed at 16 MiB,
    // 0.6-0.65x with ordinary stores; four (`T(4,128)`), 1.1-1.3x
    // streamed, 0.6-0.7x not.
    let first = (pd as usize).wrapping_add(d as usize);
    #[cfg(target_arch = "x86_64")]
    if stream
        && ((first.is_multiple_of(64) && a.d % 64 == 0)
            || (first.is_multiple_of(16) && a.d % 16 == 0 && shared_lines_complete(a, len)))
    {
        for k in 0..a.n as isize {
            // SAFETY: the `a.n` runs of `len` bytes at `s + k * a.s` and
            // `d + k * a.d` lie in `src` and `dst` (checked above), which
            // do not overlap (one is shared, the other borrowed mutably);
            // every run of the destination starts 16-byte aligned.
            unsafe {
                direct::stream_run(ps.offset(s + k * a.s), len / 64, pd.offset(d + k * a.d));
            }
        }
        return true;
    }
    let _ = (stream, first);
    for k in 0..a.n as isize {
        // SAFETY: as above, run `k` on both sides.
        unsafe {
            std::ptr::copy_nonoverlapping(ps.offset(s + k * a.s), pd.offset(d + k * a.d), len);
        }
    }
    false
}

/// Whether the lines that runs of `len` bytes along `a` share, where
/// they start 16 bytes past a line, are completed soon enough for
/// [`runs_along`] to stream them: by the next run (back to back), within
/// a few open rows, or rarely (long runs).
#[cfg(target_arch = "x86_64")]
fn shared_lines_complete(a: Axis, len: usize) -> bool {
    !lines_left_open(a, len) || len >= 512
}

/// Whether runs of `len` bytes along `a` leave the lines they share
/// open for a while: the runs are not back to back, and more than four
/// rows are written at once.
#[cfg(target_arch = "x86_64")]
fn lines_left_open(a: Axis, len: usize) -> bool {
    a.d != len as isize && a.n > 4
}

/// Whether the runs of `len` bytes at every position of `a` and `last`
/// (the innermost two outer axes) are copied into whole lines with
/// AVX-512 ([`runs_in_lines`]): whole 64-byte pieces, `a`'s runs
/// continuing each other in the destination for at least
/// [`LINES_MIN`](lines::LINES_MIN) bytes (the tiles of a row of tiles,
/// untiling) and `last`'s rows a multiple of 4 bytes apart (of 64: all
/// as far past a line as the first), where the runs along `last` leave
/// the lines they share open ([`lines_left_open`]) and are shorter than
/// [`SOURCE_ORDER_RUN`]. Each of `last`'s rows is then
/// written in whole lines from one run to the next, up to
/// [`GROUPS`](avx512::GROUPS) of them at once, while the source is read
/// in order: untiling XLA's `T(8,128)` tiles of u8, bf16 or f32 (eight
/// rows of 128, 256 or 512 bytes each a tile). The u8 and bf16 runs went
/// through ordinary stores before ([`runs_along`] streams the lines runs
/// share only where [`shared_lines_complete`] says); the f32 runs were
/// streamed 16 bytes past a line, eight rows' shared lines open across
/// a row of tiles, at 1.08 ms a pass at 16 MiB (`[2048, 2048]`, CPU
/// time, best of three) against 0.71 here, 1.56 against 0.74 for `[2043,
/// 2000]`, 29.3 against 17.5 for `[32763, 2000]`. Where `runs_along`
/// streams four rows (f32 `T(4,128)`, runs of 512 bytes) it measured
/// faster than this: at 16 MiB 0.76-0.80 ms a pass against 0.96-1.89;
/// f64's runs of 1 KiB level (0.70-0.82 ms against 0.73-0.82).
#[cfg(target_arch = "x86_64")]
fn rows_in_lines(a: Axis, last: Axis, len: usize) -> bool {
    len >= 64
        && len.is_multiple_of(64)
        && a.d == len as isize
        && a.n.saturating_mul(len) >= lines::LINES_MIN
        && last.d % 4 == 0
        && last.d > 0
        && lines_left_open(last, len)
        && len < SOURCE_ORDER_RUN
        && cpu::Kernel::avx512().is_some()
}

/// The runs [`runs_in_lines`] copies a row at a time where the rows
/// start a multiple of 16 bytes past a line but not all as far past one
/// as the first (u8 `[R, 2000]`: each 16 bytes further than the one
/// before), each row's distance a constant of its own call, rather than
/// `PER_ROW` over eight rows at once: the 128-byte runs of u8 `T(8,128)`
/// tiles. CPU time a pass untiling u8 `[8187, 2000]`, `PER_ROW` and row
/// by row: 1.17-1.68 and 1.11-1.32 ms, `[131067, 2000]` 43.4-48.0 and
/// 32.8-33.0; for bf16's runs of 256 bytes it was slower (`[4091,
/// 2000]` 0.84 against 1.03-1.15 ms, `[65531, 2000]` 18.3-27.4 against
/// 31.8-34.9), and they stay with `PER_ROW`.
#[cfg(target_arch = "x86_64")]
const ROW_BY_ROW_RUN: usize = 128;

/// Whether the runs of `len` bytes at every position of `a` and `last`
/// from where `b` starts lie in both of its buffers.
#[cfg(target_arch = "x86_64")]
fn runs_inside(a: Axis, last: Axis, len: usize, b: &Buffers) -> bool {
    let inside = |base: isize, [x, y]: [(usize, isize); 2], buf: usize| {
        let (lo, hi) = box_span(base as i128, [x, y]);
        lo >= 0 && hi + len as i128 <= buf as i128
    };
    inside(b.s, [(a.n, a.s), (last.n, last.s)], b.src.len())
        && inside(b.d, [(a.n, a.d), (last.n, last.d)], b.dst.len())
}

/// Copies the runs of `len` bytes at every position of `a` and `last`
/// where [`rows_in_lines`] says, with AVX-512, every whole line streamed,
/// the rows starting on a line or 16, 32 or 48 bytes past one, or each
/// a multiple of 4 bytes past its own
/// ([`gather_lines`](avx512::gather_lines)); `false` (nothing copied)
/// where it cannot: not streamed, another CPU, other runs or starts, or
/// runs outside the buffers (for the caller to report).
#[cfg(target_arch = "x86_64")]
fn runs_in_lines(a: Axis, last: Axis, len: usize, b: Buffers) -> bool {
    let first = (b.dst.as_ptr() as usize).wrapping_add(b.d as usize);
    if !(b.stream && first.is_multiple_of(4) && rows_in_lines(a, last, len)) {
        return false;
    }
    if !runs_inside(a, last, len, &b) {
        return false;
    }
    // The kernel for rows that start `first % 64` bytes past a line, or
    // each at its own distance (`PER_ROW`).
    type Gather = unsafe fn(*const u8, (usize, isize), (usize, isize, isize), usize, [*mut u8; 4]);
    // The kernel of `G` groups for rows that start `at % 64` bytes past
    // a line (a multiple of 16).
    fn gather_at<const G: usize>(at: usize) -> Gather {
        match at % 64 {
            0 => avx512::gather_lines::<1, 1, 0, G, true>,
            16 => avx512::gather_lines::<1, 1, 16, G, true>,
            32 => avx512::gather_lines::<1, 1, 32, G, true>,
            _ => avx512::gather_lines::<1, 1, 48, G, true>,
        }
    }
    let even = first.is_multiple_of(16) && last.d % 64 == 0;
    let gather: Gather = if even {
        gather_at::<{ avx512::GROUPS }>(first)
    } else {
        avx512::gather_lines::<1, 1, { avx512::PER_ROW }, { avx512::GROUPS }, true>
    };
    let (ps, pd) = (b.src.as_ptr(), b.dst.as_mut_ptr());
    if !even && len == ROW_BY_ROW_RUN && first.is_multiple_of(16) && last.d % 16 == 0 {
        // Each row on its own, at its own distance past a line as a
        // constant.
        for r in 0..last.n as isize {
            let row = gather_at::<1>(first.wrapping_add((r * last.d) as usize));
            let (s, d) = (b.s + r * last.s, b.d + r * last.d);
            // SAFETY: the runs of row `r` (`len` bytes, `len / 64`
            // chunks, at `s + o * a.s`) lie in `src`, and at `d + o *
            // a.d` in `dst` (checked above), which do not overlap (one
            // is shared, the other borrowed mutably); the row starts
            // as many bytes past a line as `row` takes, a multiple of
            // 16 (`first` and `last.d` are), and takes the runs
            // back to back (`a.d == len`); one group a call; the CPU has
            // AVX-512 F and BW (`Kernel::avx512`).
            unsafe {
                row(
                    ps.offset(s),
                    (a.n, a.s),
                    (1, 0, 0),
                    len / 64,
                    [pd.offset(d); 4],
                )
            }
        }
        return true;
    }
    for g in (0..last.n).step_by(avx512::GROUPS) {
        let groups = ((last.n - g).min(avx512::GROUPS), last.s, last.d);
        let (s, d) = (b.s + g as isize * last.s, b.d + g as isize * last.d);
        // SAFETY: every run (`len` bytes, `len / 64` chunks, at `s + o *
        // a.s + g * last.s`) lies in `src`, and at `d + o * a.d + g *
        // last.d` in `dst` (checked above), which do not overlap (one is
        // shared, the other borrowed mutably); each row (a position of
        // `last`) starts `first % 64` bytes past a line, a multiple of
        // 16 (`last.d` is a multiple of 64), or a multiple of 4 of its
        // own (`PER_ROW`: `first` and `last.d` multiples of 4), as
        // `gather` takes them, and takes the runs along `a` back to
        // back (`a.d == len`); at most
        // `GROUPS` rows a call; the CPU has AVX-512 F and BW
        // (`Kernel::avx512`).
        unsafe {
            gather(
                ps.offset(s),
                (a.n, a.s),
                groups,
                len / 64,
                [pd.offset(d); 4],
            )
        }
    }
    true
}

/// Copies the runs of `len` bytes at every position of `a` and `last`
/// (the innermost two outer axes) where they continue each other in the
/// destination, `last`'s runs back to back and `a`'s positions after
/// them: one stream of whole lines with AVX-512
/// ([`stream_runs`](avx512::stream_runs)), wherever it starts (a
/// multiple of 4 bytes past a line), for runs shorter than 512 bytes,
/// where [`runs_along`] streams each run with 16-byte stores. Tiling u8
/// `[8187, 2000]` into `T(4,128)` ran at 1.08-1.14 ms a pass so and
/// 0.87-0.95 this way, into `T(8,128)` at 0.87-0.99 and 0.76-0.78, bf16
/// `[65531, 2000]` into `T(4,128)` at 29.7-30.0 and 27.7-28.6 (best of
/// 20 or 30 passes, the two builds in turn, the destination 16 bytes
/// past a line); the runs of f32 and f64 (512 bytes and 1 KiB) were
/// level or slower (f32 `[2048, 2048]` into `T(8,128)` 0.71 against
/// 0.73-0.77) and stay with `runs_along`. `false` (nothing copied) where
/// it cannot: not streamed, another CPU, other runs or starts, or runs
/// outside the buffers (for the caller to report).
#[cfg(target_arch = "x86_64")]
fn runs_in_one_stream(a: Axis, last: Axis, len: usize, b: Buffers) -> bool {
    let first = (b.dst.as_ptr() as usize).wrapping_add(b.d as usize);
    if !(b.stream
        && first.is_multiple_of(4)
        && (64..512).contains(&len)
        && len.is_multiple_of(64)
        && last.d == len as isize
        && a.d == (last.n * len) as isize
        && cpu::Kernel::avx512().is_some())
    {
        return false;
    }
    if !runs_inside(a, last, len, &b) {
        return false;
    }
    type Stream = unsafe fn(*const u8, [(usize, isize); 2], usize, *mut u8);
    let stream: Stream = match first % 64 {
        0 => avx512::stream_runs::<0>,
        16 => avx512::stream_runs::<16>,
        32 => avx512::stream_runs::<32>,
        48 => avx512::stream_runs::<48>,
        _ => avx512::stream_runs::<{ avx512::PER_ROW }>,
    };
    let (ps, pd) = (b.src.as_ptr(), b.dst.as_mut_ptr());
    // SAFETY: every run (`len` bytes, `len / 64` pieces, at `s + o * a.s
    // + i * last.s`) lies in `src`, and the destination, `a.n * last.n *
    // len` bytes from `d` (the runs back to back: `last.d == len`, `a.d
    // == last.n * len`), in `dst` (checked above), which do not overlap
    // (one is shared, the other borrowed mutably); the destination
    // starts `first % 64` bytes past a line, a multiple of 4, as `stream`
    // takes it; the CPU has AVX-512 F (`Kernel::avx512`).
    unsafe {
        stream(
            ps.offset(b.s),
            [(a.n, a.s), (last.n, last.s)],
            len / 64,
            pd.offset(b.d),
        )
    }
    true
}

/// Most destination streams the innermost two outer axes of a transpose
/// may write at once for [`read_in_order`] to swap them: 32, the rows of
/// XLA's `T(32,128)(4,1)` tiles. Untiling those at 256 MiB in source
/// order ran at 0.46-0.77x of a memory copy, against 0.39-0.65x in
/// destination order (u8, bf16, f32 and f64; two interleaved runs, 16
/// rows then the limit); at 16 MiB the two orders were level within the
/// noise of a shared machine.
const READ_IN_ORDER_STREAMS: usize = 32;

/// Swaps the innermost two `outer` axes of the transpose `i`, `j` of
/// `e`-byte elements (`i.d == e`, `j.s == e`) when that makes the source
/// one run read from start to end (each transpose's source bytes
/// contiguous, and each axis's source stride the extent of what it
/// holds) and the order by destination stride does not, as long as the
/// innermost axis then writes to at most [`READ_IN_ORDER_STREAMS`]
/// destination rows at once. Untiling XLA's `T(8,128)(2,1)` bf16 layout
/// is such a copy: by destination stride, the split pairs of each tile
/// row go to their two destination rows whole, reading the source in
/// four passes of 512-byte runs; swapped, the source is read in order
/// and eight destination rows are written at a time (at 256 MiB, 1.4
/// times as fast).
fn read_in_order(outer: &mut [Axis], i: Axis, j: Axis, e: usize) {
    let [.., a, b] = outer else {
        return;
    };
    let Some(span) = (i.s == (j.n * e) as isize).then(|| i.n as isize * i.s) else {
        return;
    };
    let in_order =
        |inner: &Axis, outer: &Axis| inner.s == span && outer.s == inner.n as isize * inner.s;
    if !in_order(b, a) && in_order(a, b) && a.n.saturating_mul(j.n) <= READ_IN_ORDER_STREAMS {
        std::mem::swap(a, b);
    }
}

/// Most source runs a copy of runs in destination order may read at once
/// (the runs of its innermost axis, each from another place) before
/// [`runs_in_order`] reads the source in order instead.
const DESTINATION_ORDER_RUNS: usize = 8;

/// Runs at least this long are read in source order by [`runs_in_order`]
/// whatever the destination order reads at once.
const SOURCE_ORDER_RUN: usize = 1024;

/// Swaps the innermost two outer axes of a copy of runs of `len` bytes
/// when that makes the source one run read from start to end (the
/// innermost axis's runs back to back, the next axis's stride the extent
/// of what the innermost holds) and the order by destination stride
/// does not, as long as the innermost axis then writes at most
/// [`READ_IN_ORDER_STREAMS`] destination rows at once, and in
/// destination order it reads more than [`DESTINATION_ORDER_RUNS`]
/// source runs at once or the runs are [`SOURCE_ORDER_RUN`] bytes or
/// longer. Untiling XLA's `T(8,128)` layout of a `[R, 2048]`
/// array is such a copy: by destination stride, each destination row
/// takes one run of 128 elements from each of the 16 tiles of a row of
/// tiles, reading the source in eight passes; swapped, each tile is read
/// in order and its eight rows go to eight destination rows. Tiling into
/// it is not: in destination order each tile takes a run from each of
/// eight source rows, where the source order would write 16 tiles at
/// once, unstreamed, unless its runs are long (f64: 1 KiB, each written
/// in whole lines wherever it goes). CPU time a pass at 256 MiB, best of three, the
/// buffers from `malloc`, in destination and in source order: u8, bf16
/// and f32 `T(8,128)` untiling 31.5 / 33.4, 33.9 / 26.8 and 26.1 / 20.6
/// ms, bf16 `T(4,128)` 36.3 / 19.0; tiling 28.9 / 33.6, 22.0 / 31.1 and
/// 21.1 / 22.8 ms, bf16 `T(4,128)` 28.0 / 37.7, but f64 23.4 / 15.3-17.9
/// (at 16 MiB, best of four: 1.58 / 2.62, 0.76 / 2.44 and 0.68 / 1.03
/// ms, bf16 `T(4,128)` 0.78 / 1.59, f64 0.73 / 0.76).
fn runs_in_order(outer: &mut [Axis], len: usize) {
    let [.., a, b] = outer else {
        return;
    };
    let len = len as isize;
    let in_order = |inner: &Axis, outer: &Axis| inner.s == len && outer.s == inner.n as isize * len;
    if !in_order(b, a)
        && in_order(a, b)
        && a.n <= READ_IN_ORDER_STREAMS
        && (b.n > DESTINATION_ORDER_RUNS || len >= SOURCE_ORDER_RUN as isize)
    {
        std::mem::swap(a, b);
    }
}

/// The copy of a box of elements: the byte offsets of its first element,
/// the outer axes (most major first) and the inner copy.
#[derive(Clone, Debug)]
pub(crate) struct BoxCopy {
    pub(crate) src: isize,
    pub(crate) dst: isize,
    pub(crate) outer: Vec<Axis>,
    pub(crate) inner: Inner,
}

impl BoxCopy {
    /// The copy of the box with these axes (any order, extents >= 1) of
    /// `e`-byte elements: drops single positions, orders the axes by
    /// destination stride, merges axes that are contiguous in both buffers
    /// and picks the inner copy (for a transpose, the innermost two outer
    /// axes then possibly swapped by [`read_in_order`]). `None` when an
    /// axis's extent times its stride (on either side), or the whole box,
    /// is more than `isize` holds: no buffer is that large.
    pub(crate) fn new(src: isize, dst: isize, axes: &[Axis], e: usize) -> Option<BoxCopy> {
        for a in axes {
            let n = isize::try_from(a.n).ok()?;
            a.s.checked_mul(n)?;
            a.d.checked_mul(n)?;
        }
        let e_wide = e as i128;
        let sides: [fn(&Axis) -> isize; 2] = [|a| a.s, |a| a.d];
        for stride in sides {
            let (lo, hi) = box_span(0, axes.iter().map(|a| (a.n, stride(a))));
            isize::try_from(hi.checked_sub(lo)?.checked_add(e_wide)?).ok()?;
        }
        let e = isize::try_from(e).ok()?;
        let mut axes: Vec<Axis> = axes.iter().copied().filter(|a| a.n > 1).collect();
        axes.sort_by_key(|a| (std::cmp::Reverse(a.d.unsigned_abs()), a.s.unsigned_abs()));
        let mut merged: Vec<Axis> = Vec::with_capacity(axes.len());
        for a in axes {
            // Checked above: `a.n` times either stride fits.
            let n = a.n as isize;
            match merged.last_mut() {
                Some(outer) if outer.s == a.s * n && outer.d == a.d * n => {
                    *outer = Axis {
                        n: outer.n.checked_mul(a.n)?,
                        s: a.s,
                        d: a.d,
                    };
                }
                _ => merged.push(a),
            }
        }
        let mut outer = merged;
        let e_len = e as usize;
        let inner = match outer.pop() {
            None => Inner::Run(e_len),
            Some(last) if last.s == e && last.d == e => Inner::Run(last.n.checked_mul(e_len)?),
            Some(last) if last.d == e => match outer.iter().rposition(|a| a.s == e) {
                Some(k) => {
                    let j = outer.remove(k);
                    read_in_order(&mut outer, last, j, e_len);
                    Inner::Transpose { i: last, j }
                }
                None => Inner::Strided(last),
            },
            Some(last) => Inner::Strided(last),
        };
        if let Inner::Run(len) = inner {
            runs_in_order(&mut outer, len);
        }
        Some(BoxCopy {
            src,
            dst,
            outer,
            inner,
        })
    }

    /// The lowest and one past the highest byte offset the copy touches
    /// in the source and in the destination.
    pub(crate) fn bounds(&self, e: usize) -> [(i128, i128); 2] {
        let mut axes: Vec<Axis> = self.outer.clone();
        let last = match self.inner {
            Inner::Run(len) => len,
            Inner::Transpose { i, j } => {
                axes.extend([i, j]);
                e
            }
            Inner::Strided(a) => {
                axes.push(a);
                e
            }
        };
        let side = |base: isize, stride: fn(&Axis) -> isize| {
            let (lo, hi) = box_span(base as i128, axes.iter().map(|a| (a.n, stride(a))));
            (lo, hi.saturating_add(last as i128))
        };
        [side(self.src, |a| a.s), side(self.dst, |a| a.d)]
    }

    /// This copy cut into at most `parts` copies along the axis with the
    /// largest destination stride (for a plain run, into runs of whole
    /// `e`-byte elements): pieces that together copy what this one
    /// copies, each to its own range of the destination when this one
    /// writes its elements once.
    ///
    /// A transpose of 1- or 2-byte elements cut across its source rows
    /// (along `j`) goes into fewer pieces where that keeps 4 KiB of each
    /// source row in each, but into at least `floor`: the 1-byte bands
    /// are then wider, and 2-byte blocks whose source rows are a multiple
    /// of 4 KiB apart load them a whole line at a time, which they only
    /// do over 4 KiB of a row. On 2 threads, 8 pieces (512 bytes of each
    /// u8 row, 1 KiB of each s16 row) against 2 (2 and 4 KiB), the 16 MiB
    /// transposes in ten interleaved runs:
    /// s16 median ratios to a memory copy 0.29-0.64 (6 runs below 0.5)
    /// against 0.48-0.81 (2), u8 0.49-0.77 against 0.62-0.92; f32, whose
    /// pieces of 4 KiB were slower (5 runs below 0.5 against 2), is cut
    /// as before.
    pub(crate) fn split(&self, e: usize, parts: usize, floor: usize) -> Vec<BoxCopy> {
        /// Where the axis to cut is.
        #[derive(Clone, Copy)]
        enum At {
            Outer(usize),
            I,
            J,
            Strided,
        }
        let mut axes: Vec<(At, Axis)> = self
            .outer
            .iter()
            .enumerate()
            .map(|(k, a)| (At::Outer(k), *a))
            .collect();
        match self.inner {
            Inner::Run(len) if self.outer.is_empty() => {
                let n = len / e.max(1);
                let step = n.div_ceil(parts.max(1)).max(1) * e;
                return (0..len)
                    .step_by(step)
                    .map(|at| BoxCopy {
                        src: self.src + at as isize,
                        dst: self.dst + at as isize,
                        outer: Vec::new(),
                        inner: Inner::Run(step.min(len - at)),
                    })
                    .collect();
            }
            Inner::Run(_) => {}
            Inner::Transpose { i, j } => axes.extend([(At::I, i), (At::J, j)]),
            Inner::Strided(a) => axes.push((At::Strided, a)),
        }
        let Some(&(at, axis)) = axes
            .iter()
            .filter(|(_, a)| a.n > 1)
            .max_by_key(|(_, a)| a.d.unsigned_abs())
        else {
            return vec![self.clone()];
        };
        let parts = match at {
            At::J if e <= 2 => parts.min((axis.n * e / 4096).max(floor)),
            _ => parts,
        };
        let step = axis.n.div_ceil(parts.max(1));
        (0..axis.n)
            .step_by(step)
            .map(|first| {
                let mut piece = self.clone();
                let cut = Axis {
                    n: step.min(axis.n - first),
                    ..axis
                };
                match (&mut piece.inner, at) {
                    (_, At::Outer(k)) => piece.outer[k] = cut,
                    (Inner::Transpose { i, .. }, At::I) => *i = cut,
                    (Inner::Transpose { j, .. }, At::J) => *j = cut,
                    (Inner::Strided(a), At::Strided) => *a = cut,
                    _ => unreachable!("the axis was taken from this copy"),
                }
                piece.src += first as isize * axis.s;
                piece.dst += first as isize * axis.d;
                piece
            })
            .collect()
    }

    /// Copies the box, its offsets counted from where `b` starts. The
    /// caller has checked [`bounds`](Self::bounds) against both buffers.
    pub(crate) fn copy(&self, e: usize, mut b: Buffers) {
        let (s, d) = (b.s + self.src, b.d + self.dst);
        #[cfg(target_arch = "x86_64")]
        if let Some(staged) = self.staged(e, &b.at(s, d)) {
            return staged.copy(e, b.at(s, d));
        }
        match self.inner {
            Inner::Run(len) => self.runs(len, b.at(s, d)),
            Inner::Strided(a) => for_each_position(&self.outer, s, d, |s, d| {
                scalar::strided(e, a, b.src, s, b.dst, d)
            }),
            Inner::Transpose { i, j } => self.transposes(e, i, j, b.at(s, d)),
        }
    }

    /// The copy through the stage in the caches, for the copy at `b`
    /// (where it starts) streamed: 1-byte sub-tile untilings
    /// ([`staged::Staged`]), but not those whose groups the direct
    /// transposes split into whole lines of their rows with AVX-512
    /// (`Tr::in_lines`), which the stage would only slow down.
    #[cfg(target_arch = "x86_64")]
    fn staged(&self, e: usize, b: &Buffers) -> Option<staged::Staged> {
        if !b.stream {
            return None;
        }
        if let Inner::Transpose { i, j } = self.inner {
            // As `transposes` calls the direct kernels.
            let first = (b.dst.as_ptr() as usize).wrapping_add(b.d as usize);
            let transposes = (i, j, self.batch().1);
            if lines::lines_at(cpu::Kernel::best(), first, transposes, e).is_some() {
                return None;
            }
        }
        staged::Staged::new(self, e)
    }

    /// The outer axes around the innermost two, and those two: the batch
    /// of transposes one call of the direct kernels copies (single
    /// positions where there are fewer).
    fn batch(&self) -> (&[Axis], [Axis; 2]) {
        let one = Axis { n: 1, s: 0, d: 0 };
        match *self.outer.as_slice() {
            [ref rest @ .., a, b] => (rest, [a, b]),
            [b] => (&[][..], [one, b]),
            [] => (&[][..], [one, one]),
        }
    }

    /// The runs of `len` bytes at every position of the outer axes, the
    /// innermost outer axis in a loop of its own ([`runs_along`]): XLA's
    /// `T(8,128)` and `T(4,128)` tiles of a row-major array (and the
    /// other way) are runs of 128 elements, 128 bytes for 1-byte
    /// elements, too short for a call of `memcpy` each. One call of
    /// `memcpy` per run and an odometer step per run ran the 16 MiB u8
    /// untiling at 0.4-0.6x of a memory copy. With AVX-512, the
    /// innermost two outer axes go in one call where `rows_in_lines`
    /// says (`runs_in_lines`).
    fn runs(&self, len: usize, mut b: Buffers) {
        let (outer, [a, last]) = self.batch();
        let mut streamed = false;
        for_each_position(outer, b.s, b.d, |s, d| {
            #[cfg(target_arch = "x86_64")]
            if runs_in_lines(a, last, len, b.at(s, d))
                || runs_in_one_stream(a, last, len, b.at(s, d))
            {
                streamed = true;
                return;
            }
            for_each_position(&[a], s, d, |s, d| {
                streamed |= runs_along(last, len, b.at(s, d));
            });
        });
        #[cfg(target_arch = "x86_64")]
        if streamed {
            direct::fence();
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = streamed;
    }

    /// The transposes `dst[d + ii*e + jj*j.d] = src[s + ii*i.s + jj*e]`
    /// (`ii < i.n`, `jj < j.n`) at every position of the outer axes from
    /// where `b` starts: on x86_64 straight from source to destination
    /// ([`direct`]) where it can, the innermost two outer axes in one
    /// call, else staged ([`scalar::transpose`]).
    fn transposes(&self, e: usize, i: Axis, j: Axis, mut b: Buffers) {
        let (outer, batch) = self.batch();
        #[cfg(target_arch = "x86_64")]
        let (kernel, direct) = (cpu::Kernel::best(), direct::transpose_for(e));
        let stream = b.stream;
        for_each_position(outer, b.s, b.d, |s, d| {
            #[cfg(target_arch = "x86_64")]
            if let Some(transpose) = direct
                && transpose(kernel, i, j, batch, b.at(s, d))
            {
                return;
            }
            for_each_position(&batch, s, d, |s, d| {
                scalar::transpose(e, i, j, b.at(s, d));
            });
        });
        #[cfg(not(target_arch = "x86_64"))]
        let _ = stream;
        #[cfg(target_arch = "x86_64")]
        if stream {
            direct::fence();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Axis, BoxCopy, Inner};

    fn axis(n: usize, s: isize, d: isize) -> Axis {
        Axis { n, s, d }
    }

    /// Untiling two rows of tiles of XLA's `T(8,128)(2,1)` bf16 layout
    /// (16 x 2048 elements): each tile 2 KiB, four rows of 128 pairs,
    /// each pair split into two destination rows 4 KiB apart. By
    /// destination stride the tiles of a row would be the innermost
    /// loop (source read in four passes); the pairs of rows of a tile
    /// are, so that the source is read in order.
    #[test]
    fn untiling_reads_the_source_in_order() {
        let (tile_rows, pair_rows, tiles) = (
            axis(2, 32768, 32768),
            axis(4, 512, 8192),
            axis(16, 2048, 256),
        );
        let (pairs, two) = (axis(128, 4, 2), axis(2, 2, 4096));
        let b = BoxCopy::new(0, 0, &[two, tiles, pairs, tile_rows, pair_rows], 2).unwrap();
        assert_eq!(b.outer, [tile_rows, tiles, pair_rows]);
        assert_eq!(b.inner, Inner::Transpose { i: pairs, j: two });
        // Tiling, the other way: each transpose reads two rows 4 KiB
        // apart, so no order reads the source in one run; by destination
        // stride, as ever.
        let back = |a: Axis| axis(a.n, a.d, a.s);
        let b = BoxCopy::new(
            0,
            0,
            &[two, tiles, pairs, tile_rows, pair_rows].map(back),
            2,
        )
        .unwrap();
        assert_eq!(b.outer, [back(tile_rows), back(tiles), back(pair_rows)]);
        assert_eq!(
            b.inner,
            Inner::Transpose {
                i: back(two),
                j: back(pairs)
            }
        );
        // More destination rows at once than `READ_IN_ORDER_STREAMS`:
        // 32 pairs of rows (a tile of 64 rows) stay in destination order.
        let (pair_rows, tiles) = (axis(32, 512, 8192), axis(16, 16384, 256));
        let tile_rows = axis(2, 262144, 262144);
        let b = BoxCopy::new(0, 0, &[two, tiles, pairs, tile_rows, pair_rows], 2).unwrap();
        assert_eq!(b.outer, [tile_rows, pair_rows, tiles]);
    }

    /// Runs of XLA's `T(8,128)` tiles of a `[16, 2048]` array: each tile
    /// eight runs of 128 elements, its rows `2048 * e` bytes apart in the
    /// row-major array. Untiling u8 reads the source in order (each tile's
    /// eight runs innermost, not one run of each of the 16 tiles); tiling
    /// u8 stays in destination order (the eight runs of a tile, from eight
    /// source rows, innermost), but tiling f64, whose runs are 1 KiB, reads
    /// in source order; and untiling a u8 array of four tiles a row
    /// (`[16, 512]`) stays in destination order, whose innermost axis then
    /// reads only four runs at once.
    #[test]
    fn runs_of_tiles_read_the_source_in_order_only_where_it_pays() {
        // Tile rows, rows of a tile, tiles of a row, untiling, in bytes.
        let untiling = |width: usize, e: isize| {
            let (row, tile) = (width as isize * e, 1024 * e);
            [
                axis(2, 8 * row, 8 * row),
                axis(8, 128 * e, row),
                axis(width / 128, tile, 128 * e),
            ]
        };
        let copy = |axes: [Axis; 3], e: isize| {
            let run = axis(128 * e as usize, 1, 1);
            let b = BoxCopy::new(0, 0, &[axes[0], axes[1], axes[2], run], 1).unwrap();
            assert_eq!(b.inner, Inner::Run(128 * e as usize));
            b.outer
        };
        let back = |a: Axis| axis(a.n, a.d, a.s);
        let [tile_rows, rows, tiles] = untiling(2048, 1);
        assert_eq!(copy(untiling(2048, 1), 1), [tile_rows, tiles, rows]);
        let [tile_rows, rows, tiles] = untiling(2048, 1).map(back);
        assert_eq!(copy([tile_rows, rows, tiles], 1), [tile_rows, tiles, rows]);
        let [tile_rows, rows, tiles] = untiling(2048, 8).map(back);
        assert_eq!(copy([tile_rows, rows, tiles], 8), [tile_rows, rows, tiles]);
        assert_eq!(copy(untiling(512, 1), 1), untiling(512, 1));
    }
}
