//! Large transposes of 1-, 2-, 4- and 8-byte elements, straight from the
//! source rows to the destination rows: square blocks whose every row is
//! a whole 64-byte cache line on both sides when the buffers are so
//! aligned (16 x 16 four-byte elements, 64 x 64 bytes), then the SSE
//! squares of 16-byte rows along the edges, and the staged copy
//! ([`transpose`](super::scalar::transpose)) for what is left. Staging
//! costs more than it saves here: the rows of a block stay in the caches
//! however their addresses collide. The blocks are made of SSE2 squares,
//! AVX 8 x 8 transposes (4-byte elements), AVX2 pairs of squares (the
//! other sizes) or, streamed, AVX-512 quadruples of squares, whichever
//! the CPU has. One call copies a batch of
//! equal transposes (the innermost two loops around them, such as the
//! tiles of a row of tiles of XLA's `T(8,128)(2,1)` bf16 layout and the
//! pairs of rows in each): its bounds are checked and its loops chosen
//! once, and a streamed copy is fenced once at the end by the caller.
//! (One loop per call, that untiling ran at 0.41-0.55x of a memory copy
//! at 16 MiB; two, at 0.61-0.64x: medians of three paired runs each.)
//!
//! A large destination is written with non-temporal stores (whole
//! lines, never read first), in tiles of `TILE` x `TILE` elements
//! ([`TILE`](super::transposer::TILE)) so that the pages of the rows a
//! tile visits on both sides stay in the TLB; within a tile, a band of
//! source rows from left to right.
//! With AVX-512, blocks of 2-, 4- and 8-byte elements whose source rows
//! are long, or whose source is in the last-level cache, go straight from
//! the source, each register a whole destination line stored as it is
//! made ([`Order::Direct`]; 8-byte blocks two down at a time, 2- and
//! 4-byte ones too where the source is in the last-level cache and the
//! destination rows are a multiple of 512 bytes apart, and source rows a
//! multiple of 4 KiB apart loaded a whole aligned line at a time); 1-byte
//! elements whose source rows are long go in bands of 64 source rows
//! through a stage in the caches, read 8 rows at a time along their
//! length, four bands at a time so that each destination row gets four
//! adjacent lines at once ([`Tr::bands`]). Otherwise [`GATHER`] blocks at
//! a time ([`Order::Gathered`]): their source rows are first copied whole
//! into a buffer in L1 (rows a multiple of 4 KiB apart, read in pieces,
//! would evict each other before their lines are used up), while the
//! blocks of the previous gather are transposed from the other of two
//! buffers and the rows of the next gather are prefetched, so that
//! reading memory overlaps the shuffles; each block is transposed into
//! whole lines (AVX-512, 1-byte elements) or into a third buffer from
//! which every destination line is streamed whole. In every streamed
//! transpose, the lines that packed destination rows share are streamed
//! whole too ([`Tr::seams`]). Smaller copies go in destination order,
//! the source rows a sweep visits limited to about 2 MiB
//! (`transposer::SPAN`).

use super::cpu::{Isa, Kernel};
use super::narrow::NARROW;
use super::transposer::{GATHER, LINE, Order, Tr};
use super::{Axis, Batch, Buffers};

/// The direct transpose of `e`-byte elements ([`transpose`]), or `None`
/// when `e` is not 1, 2, 4 or 8. Chosen once for all the transposes of a
/// copy.
pub(crate) fn transpose_for(e: usize) -> Option<Transpose> {
    Some(match e {
        1 => transpose::<1>,
        2 => transpose::<2>,
        4 => transpose::<4>,
        8 => transpose::<8>,
        _ => return None,
    })
}

/// [`transpose`] of one element size.
pub(crate) type Transpose = fn(Kernel, Axis, Axis, Batch, Buffers) -> bool;

/// Copies the transpose `dst[d + ii*E + jj*j.d] = src[s + ii*i.s +
/// jj*E]` (`ii < i.n`, `jj < j.n`; `s`, `d` where `b` starts) of
/// `E`-byte elements with `kernel`, and again at every other position of
/// the two `batch` axes (one call for the innermost two loops around the
/// transpose: the bounds checked and the loops chosen once), streaming
/// the destination if `b.stream` and it can: blocks whose rows are 64-byte lines (`64 / E` elements
/// square), AVX 8 x 8 ones for 4-byte elements and AVX2 pairs of squares
/// for the others where the kernel has them. `false` (nothing copied)
/// when the transpose is too small for the blocks, or does not lie in
/// the buffers (for the caller's indexed copy to report). After its last
/// call that streamed, the caller runs [`fence`].
pub(crate) fn transpose<const E: usize>(
    kernel: Kernel,
    i: Axis,
    j: Axis,
    batch: Batch,
    b: Buffers,
) -> bool {
    let (d, stream) = (b.d, b.stream);
    let block = 64 / E;
    // A narrow transpose (a few planes interleaved or split apart) has
    // no square blocks: element by element, one side read or written in
    // order, however short its long side (the rows of a partial tile at
    // the end of each row of tiles, such as 62 of 128 bytes: staged one
    // by one, a u8 `T(8,128)(2,1)` untiling of `[5000, 3390]` spent a
    // quarter of its time on them).
    let narrow = i.n < block || j.n < block;
    if narrow && i.n.min(j.n) > NARROW {
        return false;
    }
    // Destination rows a multiple of 4 KiB apart fall in the same cache
    // sets: kept in the caches, they evict each other before their
    // lines are whole. The staged copy avoids that. (Every destination
    // offset is a multiple of `E`, so whether a transpose streams is
    // the same for the whole batch.)
    if !narrow && !streams::<E>(stream, j, b.dst, d) && j.d % 4096 == 0 {
        return false;
    }
    let Some(mut tr) = Tr::<E>::new(i, j, batch, b) else {
        return false;
    };
    if narrow {
        if !tr.in_lines(kernel, stream) {
            tr.narrow(kernel, stream);
        }
    } else {
        for x in 0..batch[0].n {
            for y in 0..batch[1].n {
                tr.to((x, y));
                tr.blocks(kernel, stream);
            }
        }
    }
    true
}

/// Whether the transpose at `d` is streamed: non-temporal stores write
/// whole lines, so the destination rows must be a multiple of 64 bytes
/// apart and start a whole number of elements from a line.
fn streams<const E: usize>(stream: bool, j: Axis, dst: &[u8], d: isize) -> bool {
    let first = (dst.as_ptr() as usize).wrapping_add(d as usize);
    stream && j.d % 64 == 0 && first.is_multiple_of(E)
}

impl<const E: usize> Tr<'_, E> {
    /// The transpose in blocks of `64 / E` elements square, the edges
    /// through [`edge`](Self::edge).
    fn blocks(&mut self, kernel: Kernel, stream: bool) {
        let (i, j) = (self.i, self.j);
        let stream = streams::<E>(stream, j, self.dst, self.d);
        // Streamed, the blocks start at the first row whose destination
        // rows are 64-byte aligned.
        let first = (self.dst.as_ptr() as usize).wrapping_add(self.d as usize);
        let i_lo = if stream {
            ((64 - first % 64) % 64 / E).min(i.n)
        } else {
            0
        };
        // With AVX-512 (2-, 4- and 8-byte elements), where the source
        // rows are a multiple of 4 KiB apart (so at least 4 KiB long,
        // when they do not overlap) and each starts as far from a line,
        // at the first column whose source lines are aligned, for blocks
        // that load them whole (`avx512::Quads`): a line loaded
        // across two lines of memory touches both.
        let long_rows = i.s.unsigned_abs() > GATHER * LINE;
        // Straight from the source rows (below).
        let direct = stream && kernel.0 == Isa::Avx512 && E != 1 && (long_rows || self.cached);
        let start = (self.src.as_ptr() as usize).wrapping_add(self.s as usize);
        let whole = direct && i.s % 4096 == 0 && j.n * E >= 4096 && start.is_multiple_of(E);
        let j_lo = if whole {
            ((64 - start % 64) % 64 / E).min(j.n)
        } else {
            0
        };
        let (rows, cols) = (i_lo..i.n, j_lo..j.n);
        // SAFETY: streaming, the blocks and bands start at rows `i_lo +
        // b*k`, whose destination rows begin at `first + E*i_lo + 64k +
        // jj*j.d`, 64-byte aligned; `Kernel(Avx)`, `Kernel(Avx2)` and
        // `Kernel(Avx512)` are only made where the CPU has AVX (AVX2;
        // AVX-512 F and BW with AVX2); the AVX blocks are only used for
        // 4-byte elements, the AVX2 ones for the others, the AVX-512
        // blocks and bands (which stream) only streamed, the bands for
        // 1-byte elements.
        let (i_hi, j_hi) = unsafe {
            let order = if stream {
                Order::Gathered
            } else {
                Order::Destination
            };
            match (kernel.0, E == 4) {
                // Streamed with AVX-512, whole lines: straight from the
                // source for 2-, 4- and 8-byte elements whose source rows
                // are longer than a gather, or whose source is in the
                // last-level cache (2-byte elements measured no faster
                // gathered at 16 MiB and slower at 256 MiB). Rows that
                // one gather reads whole ran faster straight from a
                // source in that cache: best of two runs at 16 MiB,
                // source rows of 80 to 256 bytes, 16.2-20.0 GiB/s
                // against 11.3-15.2 gathered (NHWC -> NCHW with 64
                // channels, 12.0-14.1 against 10.2-10.5, best of four);
                // at 256 MiB, level for f32 and f64 and slower for s16
                // (rows of 80 bytes, 6.5 against 8.5). From the
                // gathered rows for 1-byte elements, whose blocks span
                // 64 source rows (straight from the source, 3.5-4.6
                // GiB/s at 16 MiB against 6.0 gathered), or in bands
                // ([`bands`](Self::bands)) where their source rows are
                // long.
                (Isa::Avx512, _) if stream && E == 1 && long_rows => self.bands(rows, cols),
                _ if whole => self.grid::<super::avx512::Quads<E, true>>(rows, cols, Order::Direct),
                _ if direct => self.grid::<super::avx512::Quads<E>>(rows, cols, Order::Direct),
                (Isa::Avx512, _) if stream && E == 1 => {
                    self.grid::<super::avx512::Quads<E>>(rows, cols, Order::Gathered)
                }
                (Isa::Sse, _) | (Isa::Avx, false) => {
                    self.grid::<super::sse::Line<E>>(rows, cols, order)
                }
                (Isa::Avx | Isa::Avx2 | Isa::Avx512, true) => {
                    self.grid::<super::avx::Block16>(rows, cols, order)
                }
                (Isa::Avx2 | Isa::Avx512, false) => {
                    self.grid::<super::avx::Pairs<E>>(rows, cols, order)
                }
            }
        };
        // The edges: the streamed lines are whole, so these rows share no
        // line with them. Where the destination rows are packed, the line
        // each shares with the next is whole too ([`seams`](Self::seams)):
        // the last rows of columns `..seamed` and the first rows of
        // columns `1..=seamed` are in them.
        let (head, tail) = (i_lo, i.n - i_hi);
        let seamed = if stream && head > 0 && head + tail == LINE / E && j.d == (i.n * E) as isize {
            self.seams(tail)
        } else {
            0
        };
        if seamed > 0 {
            self.edge(0..i_lo, 0..1);
            self.edge(0..i_lo, seamed + 1..j.n);
        } else {
            self.edge(0..i_lo, 0..j.n);
        }
        self.edge(i_hi..i.n, seamed..j.n);
        self.edge(i_lo..i_hi, 0..j_lo);
        self.edge(i_lo..i_hi, j_hi..j.n);
    }
}

/// Copies the `lines` pieces of 64 bytes at `ps` (one run) to `pd` with
/// non-temporal stores ([`sse::stream_lines`](super::sse::stream_lines)):
/// a run of an untiling or a tiling whose destination is not kept in the
/// caches. After its last call, the caller runs [`fence`].
///
/// # Safety
///
/// The `64 * lines` bytes at `ps` are readable, those at `pd` writable,
/// 16-byte aligned and disjoint from them.
#[inline(always)]
pub(crate) unsafe fn stream_run(ps: *const u8, lines: usize, pd: *mut u8) {
    // SAFETY: as the caller vouches: `lines` rows of 64 bytes, 64 bytes
    // apart on both sides.
    unsafe { super::sse::stream_lines(ps, lines, pd, 64) }
}

/// Orders the non-temporal stores before anything the thread does
/// next, as they require.
pub(crate) fn fence() {
    // Under Miri the streamed stores are ordinary ones (`sse::stream`).
    #[cfg(not(miri))]
    // SAFETY: `sfence` has no preconditions and SSE is part of the
    // x86_64 baseline (newer compilers make the intrinsic safe).
    #[allow(unused_unsafe)]
    unsafe {
        std::arch::x86_64::_mm_sfence()
    }
}

#[cfg(test)]
mod tests {
    use super::super::transposer::{BAND, GATHER, TILE};
    use super::super::{Axis, Buffers};
    use super::{Kernel, NARROW, fence, transpose_for};

    /// Every kernel, streaming or not, at several alignments of the
    /// destination, on a transpose of `rows x cols` `e`-byte elements
    /// whose destination rows are `pitch` bytes apart (gaps between them
    /// left alone): each element where it belongs, every other byte
    /// untouched.
    fn check(e: usize, rows: usize, cols: usize, pitch: usize) {
        check_rows(e, rows, cols, pitch, false, 0);
    }

    /// As [`check`], the source rows read last to first if `reversed`
    /// (a negative row stride, as a reversed NumPy view has), the source
    /// starting `lead` bytes after a 64-byte line.
    fn check_rows(e: usize, rows: usize, cols: usize, pitch: usize, reversed: bool, lead: usize) {
        // Offset 5 puts the destination on a 64-byte line, where the
        // streamed loops write whole lines, and the three after it 16,
        // 32 and 48 bytes past one. Under Miri, only 1 byte from the
        // buffer's start and the line, and where the rows are packed 16
        // bytes past a line too (the lines they share streamed whole).
        let offsets: &[usize] = match (cfg!(miri), pitch == rows * e) {
            (false, _) => &[0, 1, 2, 3, 4, 5, 6, 7, 8],
            (true, true) => &[4, 5, 6],
            (true, false) => &[4, 5],
        };
        check_at(e, rows, cols, pitch, reversed, lead, offsets);
    }

    /// As [`check_rows`], the destination at each of `offsets`: indices
    /// into 0, 4, 16, 52 and 1 bytes from the start of its buffer, and 0,
    /// 16, 32 and 48 bytes past the first line in it.
    fn check_at(
        e: usize,
        rows: usize,
        cols: usize,
        pitch: usize,
        reversed: bool,
        lead: usize,
        offsets: &[usize],
    ) {
        let bytes = rows * cols * e;
        // Room for the way to a line (< 64) and `lead` (< 64).
        let buffer: Vec<u8> = (0..bytes + 128).map(|k| (k * 7 + k / 251) as u8).collect();
        let skip = (64 - buffer.as_ptr() as usize % 64) % 64 + lead;
        let src = &buffer[skip..skip + bytes];
        let row = (cols * e) as isize;
        let (first, i) = if reversed {
            ((rows - 1) as isize * row, -row)
        } else {
            (0, row)
        };
        let i = Axis {
            n: rows,
            s: i,
            d: e as isize,
        };
        let j = Axis {
            n: cols,
            s: e as isize,
            d: pitch as isize,
        };
        let kernels = [
            Some(Kernel::sse()),
            Kernel::avx(),
            Kernel::avx2(),
            Kernel::avx512(),
        ];
        for kernel in kernels.into_iter().flatten() {
            for stream in [false, true] {
                for &k in offsets {
                    let len = 128 + pitch * cols + 64;
                    let mut dst = vec![0xA5u8; len];
                    let aligned = (64 - dst.as_ptr() as usize % 64) % 64;
                    let past = [0, 16, 32, 48].map(|o| aligned + o);
                    let offset = [0usize, 4, 16, 52, 1, past[0], past[1], past[2], past[3]][k];
                    let one = [Axis { n: 1, s: 0, d: 0 }; 2];
                    let b = Buffers {
                        src,
                        s: first,
                        dst: &mut dst,
                        d: offset as isize,
                        stream,
                    };
                    let done = transpose_for(e).unwrap()(kernel, i, j, one, b);
                    assert!(done, "{kernel:?} {e} {rows}x{cols}");
                    fence();
                    let mut expected = vec![0xA5u8; len];
                    for r in 0..rows {
                        let from_row = if reversed { rows - 1 - r } else { r };
                        for c in 0..cols {
                            let (at, from) =
                                (offset + c * pitch + r * e, (from_row * cols + c) * e);
                            expected[at..at + e].copy_from_slice(&src[from..from + e]);
                        }
                    }
                    assert!(
                        dst == expected,
                        "{kernel:?} stream {stream} offset {offset}: {e}-byte {rows}x{cols}, pitch {pitch}"
                    );
                }
            }
        }
    }

    /// Every case of `e`-byte elements, one test per size (named
    /// `direct_kernels_*`, so that `direct_kernels` selects them all).
    fn cases(e: usize) {
        let b = 64 / e;
        if cfg!(miri) {
            // The fewest elements that still reach every loop (Miri
            // runs the SIMD intrinsics one lane at a time): more than
            // a tile (64 elements under Miri) each way, ragged, so
            // that a streamed copy has whole and partial tiles, whole
            // `GATHER`s of blocks (4- and 8-byte elements) and
            // partial ones, whole blocks after the unaligned rows
            // before the first line, and edges on every side; rows a
            // multiple of 64 bytes apart with gaps.
            let rows = (2 * b).max(TILE) + 2;
            let cols = if b >= TILE { 2 * b } else { TILE + 2 * b } + 1;
            check(e, rows, cols, (rows * e).div_ceil(64) * 64 + 64);
            if e == 1 {
                // Source rows longer than a gather (the case above has
                // 129-byte rows): gathers overlapped with the blocks,
                // and with AVX-512 bands: on a line six, four at a time
                // (four lines per destination row) and a pair; after
                // the unaligned rows five, four and one alone.
                check(e, 6 * b + 2, 4 * b + 1, (6 * b + 2).div_ceil(64) * 64 + 64);
            }
            if e != 1 {
                // Long rows, three blocks down: a pair, then one alone
                // (2- and 4-byte blocks go two down where the destination
                // rows are a multiple of 512 bytes apart).
                check(e, 3 * b + 2, 4 * b + 6, 512);
            }
            if e == 8 {
                // Rows 4 KiB apart, the source 16 bytes past a line (a
                // line at a time after the first columns) or 1 byte (a
                // 16-byte column at a time).
                for lead in [16, 1] {
                    check_rows(e, b + 3, 4096 / e, 128, false, lead);
                }
            }
            // Packed destination rows (the lines they share streamed
            // whole, a line's worth of them).
            check(e, 2 * b, b + 3, 2 * b * e);
            // Blocks in destination order, rows not a multiple of 64
            // bytes apart; and the same with the source rows last to
            // first.
            check(e, b + 5, b + 3, (b + 5) * e + 12);
            check_rows(e, b + 5, b + 3, (b + 5) * e + 12, true, 0);
        } else {
            // Packed destination rows, 64-byte multiples (streamed
            // when asked).
            check(e, 3 * b, 2 * b + 5, 3 * b * e);
            check(e, 4 * b, 4 * b + 6, 4 * b * e);
            // Rows with gaps, a multiple of 64 bytes apart; and not.
            check(e, 3 * b + 2, 2 * b + 1, (3 * b + 2) * e / 64 * 64 + 128);
            // Long rows (streamed straight from the source or in bands
            // with AVX-512) with an odd number of blocks down (blocks of
            // 8-byte elements go two at a time).
            check(e, 3 * b + 2, 4 * b + 6, (3 * b + 2) * e / 64 * 64 + 64);
            // The same with the destination rows 512 bytes apart (2- and
            // 4-byte blocks two down too).
            check(e, 3 * b + 2, 4 * b + 6, 512);
            check(e, b + 5, b + 3, (b + 5) * e + 12);
            // More than a tile each way, ragged: whole tiles, partial
            // ones, and gathers of fewer than `GATHER` blocks.
            let big = TILE + 2 * b + 3;
            check(e, big, TILE + GATHER * b + b + 1, big * e / 64 * 64 + 64);
            // The same, the source rows last to first.
            check_rows(
                e,
                big,
                TILE + GATHER * b + b + 1,
                big * e / 64 * 64 + 64,
                true,
                0,
            );
            // Rows 4 KiB apart (with AVX-512, blocks of 2-, 4- and
            // 8-byte elements load a line at a time where the source
            // lines are aligned): the source on a line, `e` or 16 bytes
            // past one (the first columns before the blocks), or 1 byte
            // (not a whole number of elements from one: a 16-byte
            // column at a time); read last row first, too.
            let rows = 2 * b + 3;
            let pitch = (rows * e).div_ceil(64) * 64 + 64;
            for lead in [0, e, 16, 1] {
                check_rows(e, rows, 4096 / e, pitch, false, lead);
            }
            check_rows(e, rows, 4096 / e, pitch, true, 16);
            if e == 1 {
                // Bands of 1-byte elements (with AVX-512) wider than one
                // [`BAND`]: a whole one, then a narrower one.
                check(e, 2 * b + 3, BAND + b + 5, 3 * b);
                // Seven bands down: four at a time, a pair and one alone
                // (six or five after the unaligned rows).
                check(e, 7 * b + 2, 4 * b + 6, (7 * b + 2).div_ceil(64) * 64 + 64);
            }
        }
        // Narrow: a few planes interleaved, or split apart (2-byte
        // pairs into rows a multiple of 64 bytes apart: streamed).
        let ks: &[usize] = if cfg!(miri) {
            &[2, 3, 4, 5]
        } else {
            &[2, 3, 4, 7]
        };
        for &k in ks {
            check(e, k, 2 * b + 3, k * e);
            check_rows(e, k, 2 * b + 3, k * e, true, 4);
            check(e, k, b, k * e + 8);
            check(e, 2 * b + 3, k, (2 * b + 3) * e);
            check(e, 2 * b + 3, k, ((2 * b + 3) * e).div_ceil(64) * 64);
            // Past whole 32-pair splits by 8 pairs and 3 (2-byte
            // elements, `k == 2`).
            check(e, 2 * b + 11, k, ((2 * b + 11) * e).div_ceil(64) * 64);
            // A long side shorter than a block (a partial tile's rows).
            check(e, k, 5, k * e);
            check(e, 5, k, 5 * e + 8);
        }
        // Quadruples of bytes split into rows on a line (with AVX-512,
        // 64 at a time, then 16 with AVX2, then one by one), and 16, 32
        // and 48 bytes past one.
        let rows = 5 * 64 + 16 + 3;
        check_at(
            e,
            rows,
            4,
            (rows * e).div_ceil(64) * 64,
            false,
            0,
            &[5, 6, 7, 8],
        );
        // Too small for the blocks, and more than `NARROW` each way:
        // nothing done (8-byte blocks are `NARROW` wide: none such).
        if b - 1 <= NARROW {
            return;
        }
        let (i, j) = (
            Axis {
                n: b - 1,
                s: (b * e) as isize,
                d: e as isize,
            },
            Axis {
                n: b - 1,
                s: e as isize,
                d: (b * e) as isize,
            },
        );
        let (src, mut dst) = (vec![0u8; b * b * e], vec![0u8; b * b * e]);
        assert!(!transpose_for(e).unwrap()(
            Kernel::sse(),
            i,
            j,
            [Axis { n: 1, s: 0, d: 0 }; 2],
            Buffers::new(&src, &mut dst, false),
        ));
    }

    #[test]
    fn direct_kernels_1_byte() {
        cases(1);
    }

    #[test]
    fn direct_kernels_2_bytes() {
        cases(2);
    }

    #[test]
    fn direct_kernels_4_bytes() {
        cases(4);
    }

    #[test]
    fn direct_kernels_8_bytes() {
        cases(8);
    }
}
