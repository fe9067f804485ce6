//! The transposer of the direct copies: [`Tr`], a transpose whose every
//! byte was checked to lie in the buffers, and its loops: square blocks
//! ([`Block`]) laid over it in one of three orders ([`Order`]), the bands
//! of 1-byte elements, the lines that packed destination rows share, and
//! the edges the blocks leave, through the SSE squares and the staged
//! copy.

use std::cell::Cell;
use std::mem::MaybeUninit;
use std::ops::Range;

use super::cpu::in_last_level_cache;
use super::{Axis, Batch, Block, Buffers, box_span};

/// Bytes of the rows a sweep visits on the far side.
const SPAN: usize = 2 << 20;

/// Elements on each side of the tiles a streamed transpose is copied in
/// (fewer under Miri, so that its tests reach past a tile).
pub(super) const TILE: usize = if cfg!(miri) { 64 } else { 512 };

/// Bytes of a cache line.
pub(super) const LINE: usize = 64;

/// Source columns (destination rows) of the widest band of a 1-byte
/// transpose (`avx512::bands`); its four stages take `256 * BAND` bytes
/// (4 MiB). The wider, the faster: the 256 MiB transpose (rows of 16
/// KiB) in bands of 4, 8 and 16 KiB ran at 7.5-7.7, 8.0-8.4 and 9.0-9.3
/// GiB/s (best of two runs of one build that took the width at run
/// time), and in a first form of the bands (one line per destination
/// row) of 2, 4, 8 and 16 KiB at 0.49-0.51, 0.53-0.55, 0.56-0.62 and
/// 0.57-0.61x of a memory copy (medians of two to five runs).
pub(super) const BAND: usize = 16384;

thread_local! {
    /// The stage of the thread's last [`Tr::bands`], for its next one.
    ///
    /// Allocated afresh by each call, the stage (1 MiB for rows of 4
    /// KiB, up to 4 MiB) did not always take the memory of the one
    /// before: in a benchmark's first rounds, each call's stage lay about
    /// its size above the last one's, in memory the process had not
    /// touched yet, whose pages the system zeroes on their first touch.
    /// The 16 MiB transpose (rows of 4 KiB) then ran at 8.3-9.4 GiB/s in
    /// 6 of the first 7 of 11 paired rounds and at 10.9-12.5 in the
    /// rest; reused, at 10.5-12.6 in every round (three runs each). So
    /// each thread that ran such a transpose keeps up to 4 MiB.
    static STAGE: Cell<Vec<std::arch::x86_64::__m512i>> = const { Cell::new(Vec::new()) };
}

/// Source lines of each row gathered at a time by a streamed transpose.
pub(super) const GATHER: usize = 4;

/// Up to 64 rows of [`GATHER`] cache lines each, in L1 on their way from
/// the source (two of them: one filled while the other is transposed).
#[repr(C, align(64))]
struct Lines([u8; 64 * GATHER * LINE]);

/// 64 cache lines in L1 on their way to the destination.
#[repr(C, align(64))]
struct Staged([u8; 64 * LINE]);

/// The order in which [`Tr::grid`] copies its blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Order {
    /// Destination order, the source rows a sweep visits limited to
    /// about [`SPAN`] bytes: a destination that stays in the caches.
    Destination,
    /// Streamed: in tiles, each block's source rows gathered into L1
    /// first (while the previous gather is transposed), its destination
    /// lines streamed whole from L1 or by the block itself
    /// ([`Block::STREAMS`]).
    Gathered,
    /// Streamed: in tiles, straight from the source rows to the
    /// destination lines, by blocks that write whole lines with
    /// non-temporal stores (`avx512::Quads`).
    Direct,
}

/// A transpose `dst[d + ii*E + jj*j.d] = src[s + ii*i.s + jj*E]` of
/// `E`-byte elements for `ii < i.n`, `jj < j.n` whose every byte lies in
/// `src` and `dst` (checked by [`Tr::new`] for every `s`, `d` the
/// transpose is moved to by [`Tr::to`]: the positions of its batch).
pub(super) struct Tr<'a, const E: usize> {
    pub(super) i: Axis,
    pub(super) j: Axis,
    pub(super) src: &'a [u8],
    pub(super) s: isize,
    pub(super) dst: &'a mut [u8],
    pub(super) d: isize,
    /// The two axes of the batch of equal transposes, and where its
    /// first is.
    pub(super) batch: Batch,
    origin: (isize, isize),
    /// Whether `src` is likely held in the last-level cache
    /// ([`in_last_level_cache`]).
    pub(super) cached: bool,
}

/// How many of the rows `stride` bytes apart a sweep visits: a
/// multiple of `b` spanning about [`SPAN`] bytes.
fn rows_per_sweep(stride: isize, b: usize) -> usize {
    (SPAN / stride.unsigned_abs().max(1) / b * b).max(b)
}

/// The tiles of rows `rows` by columns `cols` (whole blocks of `b`
/// elements) a streamed transpose is copied in, a row of tiles at a time:
/// [`TILE`] x [`TILE`] elements (a multiple of `b`), so that the source
/// rows and the destination rows a tile visits (`2 * TILE` pages at most
/// when both are a page or more apart) stay in the TLB, and each is
/// visited for `TILE` elements in a row. Within a tile, a band of source
/// rows from left to right.
fn tiles(rows: Range<usize>, cols: Range<usize>, b: usize) -> impl Iterator<Item = Area> {
    let t = (TILE / b * b).max(b);
    let (r_end, (c_start, c_end)) = (rows.end, (cols.start, cols.end));
    rows.step_by(t).flat_map(move |ib| {
        (c_start..c_end)
            .step_by(t)
            .map(move |jb| (ib..r_end.min(ib + t), jb..c_end.min(jb + t)))
    })
}

/// Rows and columns of a transpose.
type Area = (Range<usize>, Range<usize>);

/// A gather of a streamed transpose: the first row of its band, its
/// first column, and its number of blocks (at most [`GATHER`]).
type Gather = (usize, usize, usize);

impl<'a, const E: usize> Tr<'a, E> {
    /// The transpose where `b` starts (`s`, `d`), and the others `x * batch[0].s + y *
    /// batch[1].s` and `x * batch[0].d + y * batch[1].d` bytes further
    /// (`x < batch[0].n`, `y < batch[1].n`), all checked to lie in the
    /// buffers.
    #[inline]
    pub(super) fn new(i: Axis, j: Axis, batch: Batch, b: Buffers<'a>) -> Option<Self> {
        let Buffers { src, s, dst, d, .. } = b;
        // Whether every byte of the transposes lies in a buffer of `len`
        // bytes, on the side whose offsets are `base`, the transpose's
        // two axes there and the batch's strides there.
        let inside = |base: isize, [a, b]: [(usize, isize); 2], side: fn(&Axis) -> isize, len| {
            let [x, y] = batch.map(|c| (c.n, side(&c)));
            let (lo, hi) = box_span(base as i128, [a, b, x, y]);
            lo >= 0 && hi + E as i128 <= len as i128
        };
        let fits = i.n > 0
            && j.n > 0
            && batch.iter().all(|a| a.n > 0)
            && i.d == E as isize
            && j.s == E as isize
            && inside(s, [(i.n, i.s), (j.n, E as isize)], |a| a.s, src.len())
            && inside(d, [(j.n, j.d), (i.n, E as isize)], |a| a.d, dst.len());
        fits.then(|| Tr {
            i,
            j,
            src,
            s,
            dst,
            d,
            batch,
            origin: (s, d),
            cached: in_last_level_cache(src.len()),
        })
    }

    /// Moves the transpose to the one at batch position `(x, y)` (`x <
    /// batch[0].n`, `y < batch[1].n`, the batch [`new`](Self::new)
    /// checked).
    pub(super) fn to(&mut self, (x, y): (usize, usize)) {
        let ([a, b], (s, d)) = (self.batch, self.origin);
        self.s = s + x as isize * a.s + y as isize * b.s;
        self.d = d + x as isize * a.d + y as isize * b.d;
    }

    /// The source and destination offsets of element `(ii, jj)`.
    fn at(&self, ii: usize, jj: usize) -> (isize, isize) {
        (
            self.s + ii as isize * self.i.s + (jj * E) as isize,
            self.d + jj as isize * self.j.d + (ii * E) as isize,
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
        let b = Buffers {
            src: self.src,
            s: so,
            dst: self.dst,
            d: dof,
            stream: false,
        };
        super::scalar::transpose(E, i, j, b);
    }

    /// As many blocks `B` of rows `r` (within `0..i.n`), columns `c`
    /// (within `0..j.n`) as fit from their start, in the `order` given;
    /// returns where the blocks end in `r` and in `c`.
    ///
    /// # Safety
    ///
    /// What `B::copy` asks beyond the bounds: for [`Order::Gathered`]
    /// and [`Order::Direct`] (streamed), each destination row of each
    /// block is 64-byte aligned; for an AVX (AVX2, AVX-512) block, the
    /// CPU has AVX (AVX2, AVX-512 F and BW); a block that streams
    /// ([`Block::STREAMS`]) only with those two orders.
    ///
    /// Kept out of the caller, one function per block, as
    /// [`narrow`](Self::narrow) is; its steps are inlined into it.
    #[inline(never)]
    pub(super) unsafe fn grid<B: Block>(
        &mut self,
        r: Range<usize>,
        c: Range<usize>,
        order: Order,
    ) -> (usize, usize) {
        let b = B::SIZE;
        let r_end = r.start + r.len() / b * b;
        let c_end = c.start + c.len() / b * b;
        if r_end == r.start || c_end == c.start {
            return (r.start, c.start);
        }
        let (rows, cols) = (r.start..r_end, c.start..c_end);
        // SAFETY: `rows` and `cols` are whole blocks within `r` and `c`,
        // so within the transpose; the caller vouches for what `B::copy`
        // asks in this order.
        unsafe {
            match order {
                Order::Destination => self.in_destination_order::<B>(rows, cols),
                Order::Direct => self.straight::<B>(rows, cols),
                Order::Gathered => self.gathered::<B>(rows, cols),
            }
        }
        (r_end, c_end)
    }

    /// Block `B` at element `(ii, jj)` (its source and destination
    /// offsets `(so, dof)`, from [`at`](Self::at)), copied by `B::copy`.
    ///
    /// # Safety
    ///
    /// The block's rows `ii..ii + B::SIZE` and columns `jj..jj +
    /// B::SIZE` lie within the transpose; what [`grid`](Self::grid) asks
    /// of `B` holds.
    #[inline(always)]
    unsafe fn block<B: Block>(&mut self, (so, dof): (isize, isize)) {
        let (sa, st) = (self.i.s, self.j.d);
        let (ps, pd) = (self.src.as_ptr(), self.dst.as_mut_ptr());
        // SAFETY: the block starting at element `(ii, jj)` covers rows
        // `ii..ii + B::SIZE` <= `i.n` and columns `jj..jj + B::SIZE` <=
        // `j.n`, as the caller vouches, all of whose bytes `Tr::new` checked to lie in
        // `src` and `dst` (so `so`, `dof` are not negative); `src` is
        // shared and `dst` borrowed mutably, so they do not overlap. The
        // caller vouches for the rest.
        unsafe { B::copy(ps.add(so as usize), sa, pd.add(dof as usize), st) }
    }

    /// [`Order::Destination`]: the blocks of rows `rows`, columns `cols`
    /// (whole blocks) in destination order, the source rows a sweep
    /// visits limited to about [`SPAN`] bytes.
    ///
    /// # Safety
    ///
    /// `rows` x `cols` (whole blocks) lie within the transpose; as
    /// [`block`](Self::block) for each of their blocks.
    #[inline(always)]
    unsafe fn in_destination_order<B: Block>(&mut self, rows: Range<usize>, cols: Range<usize>) {
        let b = B::SIZE;
        let per = rows_per_sweep(self.i.s, b);
        for rm in rows.clone().step_by(per) {
            for jj in cols.clone().step_by(b) {
                for ii in (rm..rows.end.min(rm + per)).step_by(b) {
                    // SAFETY: a block of `rows` x `cols`, as the caller
                    // vouches.
                    unsafe { self.block::<B>(self.at(ii, jj)) };
                }
            }
        }
    }

    /// [`Order::Direct`]: the blocks of rows `rows`, columns `cols`
    /// (whole blocks) tile by tile ([`tiles`]), straight from the source
    /// rows, two down at a time where that was measured faster.
    ///
    /// # Safety
    ///
    /// `rows` x `cols` (whole blocks) lie within the transpose; as
    /// [`block`](Self::block) for each of their blocks.
    #[inline(always)]
    unsafe fn straight<B: Block>(&mut self, rows: Range<usize>, cols: Range<usize>) {
        let b = B::SIZE;
        // Blocks of 8-byte elements two down at a time, so that each
        // destination row gets two adjacent lines at once: f64 ran at
        // 13.5-14.9 GiB/s against 8.4-9.8 one block at a time at 16
        // MiB, 12.7 against 10.2 at 64 MiB, 11.5 against 10.5 at 128
        // MiB and 11.1-12.1 against 11.1-11.5 at 256 MiB.
        //
        // Blocks of 2- and 4-byte elements (32 and 16 source rows)
        // go two down where the source is in the last-level cache and
        // the destination rows are a multiple of 512 bytes apart.
        // Best of two runs each on a CPU with 32 MiB of that cache,
        // in GiB/s, two down against one:
        // - f32 with destination rows 4-16 KiB apart: 14.0-14.1 against
        //   8.2-8.5 at 8 MiB, 12.1-12.2 against 9.2-9.4 at 16 MiB,
        //   11.2-11.4 against 9.5-9.8 at 24 MiB, 9.6-10.5 against
        //   9.7-9.8 at 32 MiB, 9.5-9.6 against 9.9-10.0 at 64 MiB
        //   (and earlier 8.6-8.7 against 9.1-9.4 at 256 MiB);
        // - at 8-16 MiB, rows 6, 7, 7.5 or 8 KiB apart (f32): 14.5-14.7
        //   against 8.6-9.2; 2, 3, 3.5, 4 or 5 KiB (s16): 11.2-14.1
        //   against 7.8-9.1;
        // - rows not a multiple of 512 bytes apart, at 12-16 MiB:
        //   slower or level for f32 rows 5.9 and 7.9 KiB apart
        //   (16.8-17.6 against 19.8-20.9) and s16 rows 3.9 and 5.9
        //   KiB apart (11.6-16.5 against 14.2-16.5); faster only for
        //   f32 rows 11.8 KiB apart (19.9 against 15.2) and s16 rows
        //   3.75 KiB apart (15.2 against 13.1), where one down
        //   already copies at 0.74x of a memory copy or more.
        let two = E == 8 || self.j.d % 512 == 0 && self.cached;
        let down = if two { 2 } else { 1 };
        for (rows, cols) in tiles(rows, cols, b) {
            let mut ii = rows.start;
            while ii < rows.end {
                // The rows left that fill no pair: a block at a time.
                let k = if ii + down * b <= rows.end { down } else { 1 };
                for jj in cols.clone().step_by(b) {
                    for u in 0..k {
                        // SAFETY: a block of the tile, so of `rows` x
                        // `cols` (`ii + u * b + b <= rows.end`), as the
                        // caller vouches.
                        unsafe { self.block::<B>(self.at(ii + u * b, jj)) };
                    }
                }
                ii += k * b;
            }
        }
    }

    /// [`Order::Gathered`]: the blocks of rows `rows`, columns `cols`
    /// (whole blocks) tile by tile ([`tiles`]), [`GATHER`] blocks at a
    /// time, their source rows first copied whole into a buffer in L1
    /// ([`fill`](Self::fill)), each block transposed from there
    /// ([`gathered_block`](Self::gathered_block)).
    ///
    /// # Safety
    ///
    /// As [`gathered_block`](Self::gathered_block) for each block of
    /// `rows` x `cols`.
    #[inline(always)]
    unsafe fn gathered<B: Block>(&mut self, rows: Range<usize>, cols: Range<usize>) {
        // Gathered: `GATHER` blocks at a time, their source rows first
        // copied whole into a buffer in L1, each row's `GATHER` lines in
        // one go, so that the rows (often a multiple of 4 KiB apart) do
        // not evict each other from the caches between the pieces of a
        // row, and memory is read in runs. The copy is spread over the
        // blocks of the previous gather (a row range after each block),
        // from the other buffer, and the rows of the gather after it are
        // prefetched likewise: the loads then find their lines in the
        // caches instead of stalling the shuffles. (Copied in one go
        // before its blocks, the gather and the shuffles took turns: at
        // 16 MiB, 1-byte elements ran at 4.8 GiB/s, 6.0 overlapped.)
        assert_eq!(B::SIZE * E, LINE, "streamed blocks have rows of a line");
        let mut staged = MaybeUninit::<Staged>::uninit();
        let pc = staged.as_mut_ptr().cast::<u8>();
        let tiles = tiles(rows, cols, B::SIZE);
        // SAFETY: `staged` holds 64 lines, distinct from `src` and `dst`;
        // the blocks are those of the tiles of `rows` x `cols`, as the
        // caller vouches.
        unsafe {
            if self.i.s.unsigned_abs() <= GATHER * LINE {
                self.gathers_in_runs::<B>(tiles, pc);
            } else {
                self.gathers_overlapped::<B>(tiles, pc);
            }
        }
    }

    /// Copies rows `ks` of the source rows of `gather` into `buf`: row `k`
    /// of the gather (`g * LINE` bytes) into row `k` (`GATHER * LINE`
    /// bytes) of the buffer.
    ///
    /// # Safety
    ///
    /// The gather `(ii, jg, g)` covers rows `ii..ii + b` and the `g * b`
    /// columns from `jg` (`b * E == LINE`) of the transpose; `ks` lies
    /// within `0..b`; `buf` holds 64 rows of `GATHER * LINE` bytes,
    /// distinct from `src`.
    #[inline(always)]
    unsafe fn fill(&self, buf: *mut u8, (ii, jg, g): Gather, ks: Range<usize>) {
        let (sa, w) = (self.i.s, (GATHER * LINE) as isize);
        let ps = self.src.as_ptr();
        let (so, _) = self.at(ii, jg);
        for k in ks {
            let k = k as isize;
            // SAFETY: row `k < b <= 64` of the gather, `g * LINE` bytes
            // that `Tr::new` checked to lie in `src`, copied into row `k`
            // (`w` bytes) of the buffer, distinct from `src`, as the
            // caller vouches.
            unsafe {
                let from = ps.offset(so + k * sa);
                std::ptr::copy_nonoverlapping(from, buf.offset(k * w), g * LINE);
            }
        }
    }

    /// Prefetches rows `ks` of the source rows of `gather` into L1, line
    /// by line.
    ///
    /// # Safety
    ///
    /// As [`fill`](Self::fill) for the gather and `ks`.
    #[inline(always)]
    unsafe fn prefetch(&self, (ii, jg, g): Gather, ks: Range<usize>) {
        let (so, _) = self.at(ii, jg);
        for k in ks {
            for l in 0..g {
                let at = so + k as isize * self.i.s + (l * LINE) as isize;
                // The hint is into L1: into L2 only (`T1`) measured
                // slower. Compiled out under Miri: a prefetch has no
                // effect a test could see.
                #[cfg(not(miri))]
                // SAFETY: a line of row `k` of the gather, which lies in
                // `src` as the caller vouches (a prefetch reads nothing in
                // any case); SSE is part of the x86_64 baseline.
                unsafe {
                    use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
                    _mm_prefetch::<_MM_HINT_T0>(self.src.as_ptr().offset(at).cast());
                }
                #[cfg(miri)]
                let _ = at;
            }
        }
    }

    /// Block `q` of the gather from column `jg` of rows `ii..`, whose
    /// source rows [`fill`](Self::fill) copied into `from`, written to the
    /// destination whole: straight from the block (`B::STREAMS`), or
    /// through the lines of `staged` it is transposed into.
    ///
    /// # Safety
    ///
    /// The block lies within the transpose and `from` holds its source
    /// rows as `fill` copies them; `staged` holds 64 lines, distinct from
    /// `src`, `dst` and `from`; what [`grid`](Self::grid) asks of `B` in
    /// [`Order::Gathered`] holds (the destination rows are 64-byte
    /// aligned).
    #[inline(always)]
    unsafe fn gathered_block<B: Block>(
        &mut self,
        from: *const u8,
        staged: *mut u8,
        (ii, jg): (usize, usize),
        q: usize,
    ) {
        let (b, w, st) = (B::SIZE, (GATHER * LINE) as isize, self.j.d);
        let (_, dof) = self.at(ii, jg + q * b);
        let pd = self.dst.as_mut_ptr();
        // SAFETY: as for [`block`](Self::block), block `q` of the gather,
        // whose source rows are in `from` (row `k` at `k * w`, the block's
        // lines at `q * LINE`); its destination rows are 64-byte aligned,
        // as the caller vouches, and written whole: straight from the
        // block (`B::STREAMS`), or from the `b <= 64` lines of `staged` it
        // is transposed into. The buffers are distinct from `src`, `dst`
        // and each other; every byte read from them was just written.
        unsafe {
            let (pa, pt) = (from.add(q * LINE), pd.add(dof as usize));
            if B::STREAMS {
                B::copy(pa, w, pt, st);
            } else {
                B::copy(pa, w, staged, LINE as isize);
                super::sse::stream_lines(staged, b, pt, st);
            }
        }
    }

    /// The gathers of `tiles`, each copied in one go before its
    /// blocks, into one buffer: for source rows no further apart than a
    /// gather's width, which are one run of memory that the hardware
    /// prefetches by itself (NHWC -> NCHW with 64 channels at 256 MiB:
    /// 8.0-8.6 GiB/s overlapped; copied in one go, 9.4-10.4 within the
    /// overlapped loop, 10.5-10.9 in this loop of its own). (Nested
    /// loops: through the `gathers` iterator this case ran at 8.9-9.2
    /// GiB/s, in these loops 10.4-10.8.)
    ///
    /// # Safety
    ///
    /// As [`gathered_block`](Self::gathered_block) for each block of
    /// `tiles`, with `staged`.
    #[inline(always)]
    unsafe fn gathers_in_runs<B: Block>(
        &mut self,
        tiles: impl Iterator<Item = Area>,
        staged: *mut u8,
    ) {
        let mut one = MaybeUninit::<Lines>::uninit();
        let (pg, b) = (one.as_mut_ptr().cast::<u8>(), B::SIZE);
        for (rows, cols) in tiles {
            for ii in rows.step_by(b) {
                for jg in cols.clone().step_by(GATHER * b) {
                    let g = ((cols.end - jg) / b).min(GATHER);
                    // SAFETY: a gather of the tile, its source rows copied into `one` (64 rows of
                    // `GATHER * LINE` bytes, distinct from the rest) and
                    // its blocks transposed from there; the caller
                    // vouches for the rest.
                    unsafe {
                        self.fill(pg, (ii, jg, g), 0..b);
                        for q in 0..g {
                            self.gathered_block::<B>(pg, staged, (ii, jg), q);
                        }
                    }
                }
            }
        }
    }

    /// The gathers of `tiles` overlapped with the blocks: the
    /// source rows of the next gather copied into the other of two buffers
    /// a row range after each block of the current one, and those of the
    /// gather after it prefetched likewise.
    ///
    /// # Safety
    ///
    /// As [`gathered_block`](Self::gathered_block) for each block of
    /// `tiles`, with `staged`.
    #[inline(always)]
    unsafe fn gathers_overlapped<B: Block>(
        &mut self,
        tiles: impl Iterator<Item = Area>,
        staged: *mut u8,
    ) {
        let b = B::SIZE;
        let mut lines = [
            MaybeUninit::<Lines>::uninit(),
            MaybeUninit::<Lines>::uninit(),
        ];
        let [l0, l1] = &mut lines;
        let bufs = [l0.as_mut_ptr().cast::<u8>(), l1.as_mut_ptr().cast::<u8>()];
        let mut gathers = tiles.flat_map(|(rows, cols)| {
            rows.step_by(b).flat_map(move |ii| {
                let end = cols.end;
                cols.clone()
                    .step_by(GATHER * b)
                    .map(move |jg| (ii, jg, ((end - jg) / b).min(GATHER)))
            })
        });
        // Every gather below is of a tile; each row
        // range `ks` lies within `0..b`; the two buffers hold 64 rows of
        // `GATHER * LINE` bytes each, distinct from `src`, `dst`, `staged`
        // and each other.
        let (mut cur, mut next, mut after) = (gathers.next(), gathers.next(), gathers.next());
        if let Some(first) = cur {
            // SAFETY: as above.
            unsafe { self.fill(bufs[0], first, 0..b) };
        }
        if let Some(second) = next {
            // SAFETY: as above.
            unsafe { self.prefetch(second, 0..b) };
        }
        let mut t = 0;
        while let Some((ii, jg, g)) = cur {
            let (from, to) = (bufs[t % 2], bufs[(t + 1) % 2]);
            for q in 0..g {
                // SAFETY: as above; `from` holds the current gather's
                // source rows, all of them copied (before the loop, or
                // over the blocks of the gather before); the caller
                // vouches for the rest.
                unsafe { self.gathered_block::<B>(from, staged, (ii, jg), q) };
                let ks = q * b / g..(q + 1) * b / g;
                if let Some(n) = next {
                    // SAFETY: as above.
                    unsafe { self.fill(to, n, ks.clone()) };
                }
                if let Some(n) = after {
                    // SAFETY: as above.
                    unsafe { self.prefetch(n, ks) };
                }
            }
            (cur, next, after) = (next, after, gathers.next());
            t += 1;
        }
    }

    /// As many bands of 64 rows of `r` (within `0..i.n`) by whole lines
    /// of `c` (within `0..j.n`) as fit from their start, with
    /// [`avx512::bands`](super::avx512::bands), at most [`BAND`] columns
    /// wide; returns where the bands end in `r` and in `c`. For 1-byte
    /// elements.
    ///
    /// # Safety
    ///
    /// Each destination row of each band is 64-byte aligned; the CPU has
    /// AVX-512 F and BW.
    #[inline(never)]
    pub(super) unsafe fn bands(&mut self, r: Range<usize>, c: Range<usize>) -> (usize, usize) {
        debug_assert_eq!(E, 1, "bands are of bytes");
        let n = r.len() / 64;
        let c_end = c.start + c.len() / 64 * 64;
        if n == 0 || c_end == c.start {
            return (r.start, c.start);
        }
        let width = BAND.min(c_end - c.start);
        // Four stages (four bands) of a line per destination row, kept
        // for the thread's next call.
        let mut stage = STAGE.take();
        if stage.capacity() < 4 * width {
            stage = Vec::with_capacity(4 * width);
        }
        let (sa, st) = (self.i.s, self.j.d);
        let (ps, pd) = (self.src.as_ptr(), self.dst.as_mut_ptr());
        for jb in (c.start..c_end).step_by(width) {
            let nb = (c_end - jb).min(width) / 64;
            let (so, dof) = self.at(r.start, jb);
            // SAFETY: the bands cover rows `r.start .. r.start + 64n` <=
            // `i.n` and columns `jb .. jb + 64nb` <= `j.n` (1-byte
            // elements), whose bytes `Tr::new` checked to lie in `src`
            // and `dst` (so `so`, `dof` are not negative); `src` is
            // shared and `dst` borrowed mutably, so they do not overlap,
            // and the stage (room for `4 * width >= 256 * nb` registers,
            // each written before it is read) is neither. The caller
            // vouches for the rest.
            unsafe {
                super::avx512::bands(
                    ps.add(so as usize),
                    sa,
                    pd.add(dof as usize),
                    st,
                    (n, nb),
                    stage.as_mut_ptr(),
                );
            }
        }
        STAGE.set(stage);
        (r.start + 64 * n, c_end)
    }

    /// The lines that packed destination rows share, each row's last
    /// `tail` elements (source rows `i.n - tail..`) and the next row's
    /// first `64 / E - tail` (the first source rows): `64 / E` of them at
    /// a time, their source pieces (the last rows at columns `c..c +
    /// 64/E`, the first rows one column further) copied into L1,
    /// transposed and streamed as whole lines, instead of each written in
    /// two parts with ordinary stores. Returns the number of columns
    /// whose line with the next it wrote. (s16 at 16 MiB, both buffers
    /// 16 bytes past a line: 9.2 GiB/s against 7.9.)
    pub(super) fn seams(&mut self, tail: usize) -> usize {
        let b = LINE / E;
        let mut pieces = Staged([0; 64 * LINE]);
        let mut lines = Staged([0; 64 * LINE]);
        let mut c = 0;
        while c + b < self.j.n {
            for k in 0..b {
                // Source row `i.n - tail + k` at column `c`, or `k - tail`
                // at column `c + 1`.
                let (ii, jj) = if k < tail {
                    (self.i.n - tail + k, c)
                } else {
                    (k - tail, c + 1)
                };
                let so = self.at(ii, jj).0 as usize;
                pieces.0[k * LINE..][..LINE].copy_from_slice(&self.src[so..so + LINE]);
            }
            let (_, dof) = self.at(self.i.n - tail, c);
            // SAFETY: the pieces and the lines are `b` rows of a line in
            // L1, distinct; destination row `c + m` (`m < b`) from source
            // row `i.n - tail`, and on into row `c + m + 1` (`c + b <
            // j.n`, the rows packed) for the rest of `b` elements, is one
            // line, 64-byte aligned (the blocks ended at that row),
            // inside `dst` as `Tr::new` checked.
            unsafe {
                let pt = self.dst.as_mut_ptr().offset(dof);
                super::sse::Line::<E>::copy(
                    pieces.0.as_ptr(),
                    LINE as isize,
                    lines.0.as_mut_ptr(),
                    LINE as isize,
                );
                super::sse::stream_lines(lines.0.as_ptr(), b, pt, self.j.d);
            }
            c += b;
        }
        c
    }

    /// Rows `r`, columns `c`: SSE squares, the rest staged.
    pub(super) fn edge(&mut self, r: Range<usize>, c: Range<usize>) {
        // SAFETY: SSE is part of the x86_64 baseline; nothing streams.
        let (r4, c4) =
            unsafe { self.grid::<super::sse::Square<E>>(r.clone(), c.clone(), Order::Destination) };
        self.staged(r4..r.end, c.clone());
        self.staged(r.start..r4, c4..c.end);
    }
}
