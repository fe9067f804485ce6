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
//! lines, never read first), in tiles of [`TILE`] x [`TILE`] elements
//! so that the pages of the rows a tile visits on both sides stay in
//! the TLB; within a tile, a band of source rows from left to right.
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
//! the source rows a sweep visits limited to about [`SPAN`] bytes.

use std::cell::Cell;
use std::mem::MaybeUninit;
use std::ops::Range;
use std::sync::OnceLock;

use super::{Axis, Batch, Block, box_span};

/// The most positions on the short side of a transpose copied by
/// [`Tr::narrow`].
const NARROW: usize = 8;

/// Bytes of the rows a sweep visits on the far side.
const SPAN: usize = 2 << 20;

/// Elements on each side of the tiles a streamed transpose is copied in
/// (fewer under Miri, so that its tests reach past a tile).
const TILE: usize = if cfg!(miri) { 64 } else { 512 };

/// The instructions the blocks are copied with. Only made for a CPU
/// that has them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Kernel(Isa);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Isa {
    /// SSE2, part of the x86_64 baseline: squares of 16-byte rows.
    Sse,
    /// AVX: 8 x 8 transposes of 4-byte elements (SSE2 for the others).
    Avx,
    /// AVX2: as AVX, and the squares of other sizes two at a time
    /// (`avx::Pairs`).
    Avx2,
    /// AVX-512 F and BW (with AVX2): as AVX2, and streamed blocks with
    /// their squares four at a time, each register a whole destination
    /// line (`avx512::Quads`).
    Avx512,
}

impl Kernel {
    /// SSE.
    pub(crate) fn sse() -> Kernel {
        Kernel(Isa::Sse)
    }

    /// AVX, if the CPU has it. Under Miri, only when the crate is built
    /// with the feature enabled (`-C target-feature=+avx`):
    /// `is_x86_feature_detected!` then answers from the build.
    pub(crate) fn avx() -> Option<Kernel> {
        std::arch::is_x86_feature_detected!("avx").then_some(Kernel(Isa::Avx))
    }

    /// AVX2 (which includes AVX), if the CPU has it; under Miri as
    /// [`avx`](Self::avx).
    pub(crate) fn avx2() -> Option<Kernel> {
        let has = std::arch::is_x86_feature_detected!("avx")
            && std::arch::is_x86_feature_detected!("avx2");
        has.then_some(Kernel(Isa::Avx2))
    }

    /// AVX-512 F and BW with AVX2, if the CPU has them; under Miri as
    /// [`avx`](Self::avx) (Miri does not run these intrinsics).
    pub(crate) fn avx512() -> Option<Kernel> {
        let has = Kernel::avx2().is_some()
            && std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw");
        has.then_some(Kernel(Isa::Avx512))
    }

    /// AVX-512 where the CPU has it, else AVX2, else AVX, else SSE.
    pub(crate) fn best() -> Kernel {
        Kernel::avx512()
            .or_else(Kernel::avx2)
            .or_else(Kernel::avx)
            .unwrap_or_else(Kernel::sse)
    }
}

/// Bytes of a cache line.
const LINE: usize = 64;

/// Whether a source of `bytes` bytes is likely held in the last-level
/// cache (at most three quarters of it): the CPU's caches as CPUID
/// describes them (its deterministic cache parameters), read once;
/// never where CPUID does not describe them. Under Miri, which has no
/// CPUID, always: its tests' buffers are a few KiB.
fn in_last_level_cache(bytes: usize) -> bool {
    if cfg!(miri) {
        return true;
    }
    static LAST_LEVEL: OnceLock<usize> = OnceLock::new();
    let last = *LAST_LEVEL.get_or_init(|| {
        let caches = raw_cpuid::CpuId::new().get_cache_parameters();
        let sizes = caches.into_iter().flatten().map(|c| {
            let size = c.sets() * c.associativity() * c.physical_line_partitions();
            (c.level(), size.saturating_mul(c.coherency_line_size()))
        });
        sizes.max().map_or(0, |(_, size)| size)
    });
    bytes <= last / 4 * 3
}

/// Source columns (destination rows) of the widest band of a 1-byte
/// transpose (`avx512::bands`); its four stages take `256 * BAND` bytes
/// (4 MiB). The wider, the faster: the 256 MiB transpose (rows of 16
/// KiB) in bands of 4, 8 and 16 KiB ran at 7.5-7.7, 8.0-8.4 and 9.0-9.3
/// GiB/s (best of two runs of one build that took the width at run
/// time), and in a first form of the bands (one line per destination
/// row) of 2, 4, 8 and 16 KiB at 0.49-0.51, 0.53-0.55, 0.56-0.62 and
/// 0.57-0.61x of a memory copy (medians of two to five runs).
const BAND: usize = 16384;

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
const GATHER: usize = 4;

/// Up to 64 rows of [`GATHER`] cache lines each, in L1 on their way from
/// the source (two of them: one filled while the other is transposed).
#[repr(C, align(64))]
struct Lines([u8; 64 * GATHER * LINE]);

/// 64 cache lines in L1 on their way to the destination.
#[repr(C, align(64))]
struct Staged([u8; 64 * LINE]);

/// The order in which [`Tr::grid`] copies its blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Order {
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
/// transpose is moved to by [`Tr::to`]).
struct Tr<'a, const E: usize> {
    i: Axis,
    j: Axis,
    src: &'a [u8],
    s: isize,
    dst: &'a mut [u8],
    d: isize,
    /// Whether `src` is likely held in the last-level cache
    /// ([`in_last_level_cache`]).
    cached: bool,
}

/// Whether every byte `base + sum(x[k] * axes[k].1) + b` (`x[k] <
/// axes[k].0`, `b < e`) lies in `0..len`.
fn inside(base: isize, axes: [(usize, isize); 4], e: usize, len: usize) -> bool {
    let (lo, hi) = box_span(base as i128, axes);
    lo >= 0 && hi + e as i128 <= len as i128
}

/// How many of the rows `stride` bytes apart a sweep visits: a
/// multiple of `b` spanning about [`SPAN`] bytes.
fn rows_per_sweep(stride: isize, b: usize) -> usize {
    (SPAN / stride.unsigned_abs().max(1) / b * b).max(b)
}

impl<'a, const E: usize> Tr<'a, E> {
    /// The transpose at `s`, `d`, and the others `x * batch[0].s + y *
    /// batch[1].s` and `x * batch[0].d + y * batch[1].d` bytes further
    /// (`x < batch[0].n`, `y < batch[1].n`), all checked to lie in the
    /// buffers.
    fn new(
        i: Axis,
        j: Axis,
        batch: Batch,
        src: &'a [u8],
        s: isize,
        dst: &'a mut [u8],
        d: isize,
    ) -> Option<Self> {
        let fits = i.n > 0
            && j.n > 0
            && batch.iter().all(|a| a.n > 0)
            && i.d == E as isize
            && j.s == E as isize
            && inside(
                s,
                [
                    (i.n, i.s),
                    (j.n, E as isize),
                    (batch[0].n, batch[0].s),
                    (batch[1].n, batch[1].s),
                ],
                E,
                src.len(),
            )
            && inside(
                d,
                [
                    (j.n, j.d),
                    (i.n, E as isize),
                    (batch[0].n, batch[0].d),
                    (batch[1].n, batch[1].d),
                ],
                E,
                dst.len(),
            );
        fits.then(|| Tr {
            i,
            j,
            src,
            s,
            dst,
            d,
            cached: in_last_level_cache(src.len()),
        })
    }

    /// Moves the transpose to the one at batch position `(x, y)` from
    /// `(s, d)` (`x < batch[0].n`, `y < batch[1].n`, the batch
    /// [`new`](Self::new) checked).
    fn to(&mut self, batch: Batch, s: isize, d: isize, (x, y): (usize, usize)) {
        self.s = s + x as isize * batch[0].s + y as isize * batch[1].s;
        self.d = d + x as isize * batch[0].d + y as isize * batch[1].d;
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
        super::scalar::transpose(E, i, j, self.src, so, self.dst, dof);
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
    /// [`narrow`](Self::narrow) is.
    #[inline(never)]
    unsafe fn grid<B: Block>(
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
        let (sa, st) = (self.i.s, self.j.d);
        let (ps, pd) = (self.src.as_ptr(), self.dst.as_mut_ptr());
        let copy = |(so, dof): (isize, isize)| {
            // SAFETY: the block starting at element `(ii, jj)` covers
            // rows `ii..ii + b` <= `i.n` and columns `jj..jj + b` <=
            // `j.n`, all of whose bytes `Tr::new` checked to lie in
            // `src` and `dst` (so `so`, `dof` are not negative);
            // `src` is shared and `dst` borrowed mutably, so they do
            // not overlap. The caller vouches for the rest.
            unsafe { B::copy(ps.add(so as usize), sa, pd.add(dof as usize), st) }
        };
        if order == Order::Destination {
            let per = rows_per_sweep(sa, b);
            for rm in (r.start..r_end).step_by(per) {
                for jj in (c.start..c_end).step_by(b) {
                    for ii in (rm..r_end.min(rm + per)).step_by(b) {
                        copy(self.at(ii, jj));
                    }
                }
            }
            return (r_end, c_end);
        }
        // Tiles of `TILE x TILE` elements: the source rows and the
        // destination rows a tile visits (`2 * TILE` pages at most when
        // both are a page or more apart) stay in the TLB, and each is
        // visited for `TILE` elements in a row. Within a tile, a band of
        // source rows from left to right.
        let t = (TILE / b * b).max(b);
        let tiles = (r.start..r_end).step_by(t).flat_map(|ib| {
            (c.start..c_end)
                .step_by(t)
                .map(move |jb| (ib..r_end.min(ib + t), jb..c_end.min(jb + t)))
        });
        if order == Order::Direct {
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
            for (rows, cols) in tiles {
                let mut ii = rows.start;
                while ii < rows.end {
                    // The rows left that fill no pair: a block at a time.
                    let k = if ii + down * b <= rows.end { down } else { 1 };
                    for jj in cols.clone().step_by(b) {
                        for u in 0..k {
                            copy(self.at(ii + u * b, jj));
                        }
                    }
                    ii += k * b;
                }
            }
            return (r_end, c_end);
        }
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
        assert_eq!(b * E, LINE, "streamed blocks have rows of a line");
        let mut staged = MaybeUninit::<Staged>::uninit();
        let pc = staged.as_mut_ptr().cast::<u8>();
        let w = GATHER * LINE;
        let this = &*self;
        // The gather `(ii, jg, g)` covers rows `ii..ii + b` and the `g *
        // b` columns from `jg`, within the blocks `grid` copies, whose
        // bytes `Tr::new` checked to lie in `src`; row `k < b <= 64` of
        // it is `g * LINE` bytes (`b * E == LINE`), copied into row `k`
        // (`w` bytes) of a buffer of `64 * w` bytes, distinct from `src`.
        let fill = |buf: *mut u8, (ii, jg, g): (usize, usize, usize), ks: Range<usize>| {
            let (so, _) = this.at(ii, jg);
            for k in ks {
                let k = k as isize;
                // SAFETY: row `k` of the gather and of the buffer, as
                // above.
                unsafe {
                    let from = ps.offset(so + k * sa);
                    std::ptr::copy_nonoverlapping(from, buf.offset(k * w as isize), g * LINE);
                }
            }
        };
        // Block `q` of the gather from column `jg` of rows `ii..`, whose
        // source rows `fill` copied into `from`.
        let block = |from: *const u8, ii: usize, jg: usize, q: usize| {
            let (_, dof) = this.at(ii, jg + q * b);
            // SAFETY: as for `copy`, block `q` of the gather, whose source
            // rows are in `from` (row `k` at `k * w`, the block's lines at
            // `q * LINE`); its destination rows are 64-byte aligned, as
            // the caller vouches, and written whole: straight from the
            // block (`B::STREAMS`), or from the `b <= 64` lines of
            // `staged` it is transposed into. The buffers are distinct
            // from `src`, `dst` and each other; every byte read from them
            // was just written.
            unsafe {
                let (pa, pt) = (from.add(q * LINE), pd.add(dof as usize));
                if B::STREAMS {
                    B::copy(pa, w as isize, pt, st);
                } else {
                    B::copy(pa, w as isize, pc, LINE as isize);
                    super::sse::stream_lines(pc, b, pt, st);
                }
            }
        };
        if sa.unsigned_abs() <= w {
            // Rows no further apart than a gather's width are one run of
            // memory, which the hardware prefetches by itself: each gather
            // is copied in one go before its blocks, into one buffer
            // (NHWC -> NCHW with 64 channels at 256 MiB: 8.0-8.6 GiB/s
            // overlapped; copied in one go, 9.4-10.4 within the
            // overlapped loop, 10.5-10.9 in this loop of its own).
            // (Nested loops: through the `gathers` iterator this case ran
            // at 8.9-9.2 GiB/s, in these loops 10.4-10.8.)
            let mut one = MaybeUninit::<Lines>::uninit();
            let pg = one.as_mut_ptr().cast::<u8>();
            for (rows, cols) in tiles {
                for ii in rows.step_by(b) {
                    for jg in cols.clone().step_by(GATHER * b) {
                        let g = ((cols.end - jg) / b).min(GATHER);
                        fill(pg, (ii, jg, g), 0..b);
                        for q in 0..g {
                            block(pg, ii, jg, q);
                        }
                    }
                }
            }
            return (r_end, c_end);
        }
        let mut lines = [
            MaybeUninit::<Lines>::uninit(),
            MaybeUninit::<Lines>::uninit(),
        ];
        let [l0, l1] = &mut lines;
        let bufs = [l0.as_mut_ptr().cast::<u8>(), l1.as_mut_ptr().cast::<u8>()];
        // Each gather: the band's first row, its first column and its
        // number of blocks (at most `GATHER`).
        let mut gathers = tiles.flat_map(|(rows, cols)| {
            rows.step_by(b).flat_map(move |ii| {
                let end = cols.end;
                cols.clone()
                    .step_by(GATHER * b)
                    .map(move |jg| (ii, jg, ((end - jg) / b).min(GATHER)))
            })
        });
        let (mut cur, mut next, mut after) = (gathers.next(), gathers.next(), gathers.next());
        let prefetch = |(ii, jg, g): (usize, usize, usize), ks: Range<usize>| {
            let (so, _) = this.at(ii, jg);
            for k in ks {
                for l in 0..g {
                    let at = so + k as isize * sa + (l * LINE) as isize;
                    // The hint is into L1: into L2 only (`T1`) measured
                    // slower. Compiled out under Miri: a prefetch has no
                    // effect a test could see.
                    #[cfg(not(miri))]
                    // SAFETY: a line of row `k` of the gather, as above
                    // (a prefetch reads nothing in any case); SSE is part
                    // of the x86_64 baseline.
                    unsafe {
                        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
                        _mm_prefetch::<_MM_HINT_T0>(ps.offset(at).cast());
                    }
                    #[cfg(miri)]
                    let _ = at;
                }
            }
        };
        if let Some(first) = cur {
            fill(bufs[0], first, 0..b);
        }
        if let Some(second) = next {
            prefetch(second, 0..b);
        }
        let mut t = 0;
        while let Some((ii, jg, g)) = cur {
            let (from, to) = (bufs[t % 2], bufs[(t + 1) % 2]);
            for q in 0..g {
                block(from, ii, jg, q);
                let ks = q * b / g..(q + 1) * b / g;
                if let Some(n) = next {
                    fill(to, n, ks.clone());
                }
                if let Some(n) = after {
                    prefetch(n, ks);
                }
            }
            (cur, next, after) = (next, after, gathers.next());
            t += 1;
        }
        (r_end, c_end)
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
    unsafe fn bands(&mut self, r: Range<usize>, c: Range<usize>) -> (usize, usize) {
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

    /// The whole transpose when one side has at most [`NARROW`]
    /// positions: for each position of the long side, the few elements
    /// of the short side, so that the long side is read (or written) in
    /// order and each of the few rows on the other side too. Groups of 4
    /// bytes (pairs of 2-byte elements, quadruples of bytes: XLA's
    /// `(2,1)` and `(4,1)` sub-tiles) and groups of three 4-byte
    /// elements (NCHW <-> NHWC f32 with 3 channels) are split into their
    /// rows or merged from them with SIMD, the rest element by element.
    /// `stream`: the destination may be written with non-temporal
    /// stores where whole lines can be. Kept out of the caller: inlined
    /// into the one function that holds every other loop of a
    /// transpose, its loops lost a fifth of their speed (3 planes
    /// interleaved at 16 MiB, 6.3-7.7 GiB/s against 8.5-9.6) when that
    /// function grew.
    #[inline(never)]
    fn narrow(&mut self, kernel: Kernel, stream: bool) {
        match self.i.n.min(self.j.n) {
            2 => self.narrow_k::<2>(kernel, stream),
            3 => self.narrow_k::<3>(kernel, false),
            4 => self.narrow_k::<4>(kernel, stream),
            _ => self.narrow_k::<0>(kernel, false),
        }
    }

    /// [`narrow`](Self::narrow) with `K` positions on the short side
    /// (`0`: any number).
    #[inline(always)]
    fn narrow_k<const K: usize>(&mut self, kernel: Kernel, stream: bool) {
        let (i, j) = (self.i, self.j);
        let short_i = i.n <= j.n;
        let (long, k) = if short_i { (j.n, i.n) } else { (i.n, j.n) };
        let k = if K == 0 { k } else { K };
        // Strides along the long side and the short side.
        let (ls, ld, ms, md) = if short_i {
            (j.s, j.d, i.s, i.d)
        } else {
            (i.s, i.d, j.s, j.d)
        };
        let (ps, pd) = (self.src.as_ptr(), self.dst.as_mut_ptr());
        let (mut so, mut dof) = (self.s, self.d);
        let mut done = 0;
        // The splits below stream their rows when every row starts on a
        // line.
        let first = (pd as usize).wrapping_add(dof as usize);
        let nt = stream && first.is_multiple_of(64) && md % 64 == 0;
        if E == 2 && K == 2 && !short_i && ls == 4 {
            // Pairs of 2-byte elements split into two rows (bf16 in
            // `(2,1)` sub-tiles): 16 pairs at a time with AVX2 (6-15%
            // faster than SSE2's 8), then 8 at a time. (AVX-512 splits of
            // 32 pairs into whole lines measured no faster than SSE2 at
            // 16 MiB and slower at 256 MiB: 4.6-4.8 against 5.0-5.3
            // GiB/s.) Streamed when both destination rows start on a
            // line: each row is then written in order, 32 or 16 bytes at
            // a time, two lines open at once.
            if matches!(kernel.0, Isa::Avx2 | Isa::Avx512) {
                let n = long / 16;
                // SAFETY: the `16 * n` pairs at `so` (`64 * n` bytes, `ls
                // == 4`) and the `16 * n` elements at `dof` and `dof + md`
                // of each row are elements `0 .. 16 * n` of the
                // transpose, checked by `Tr::new` to lie in the buffers;
                // with `nt`, both destination rows start on a 64-byte
                // line; `Kernel(Avx2)` and `Kernel(Avx512)` are only made
                // where the CPU has AVX2.
                unsafe {
                    let (p0, p1) = (pd.offset(dof), pd.offset(dof + md));
                    if nt {
                        super::avx::split_pairs::<true>(ps.offset(so), p0, p1, n);
                    } else {
                        super::avx::split_pairs::<false>(ps.offset(so), p0, p1, n);
                    }
                }
                so += 16 * n as isize * ls;
                dof += 16 * n as isize * ld;
                done = 16 * n;
            }
            for _ in done / 8..long / 8 {
                // SAFETY: the 8 pairs at `so` (32 bytes, `ls == 4`) and
                // the 8 elements at `dof` and `dof + md` of each row are
                // elements `ii .. ii + 8` of the transpose, checked by
                // `Tr::new` to lie in the buffers; with `nt`, both
                // destination rows start `16k` bytes after a multiple of 64.
                unsafe {
                    let (p0, p1) = (pd.offset(dof), pd.offset(dof + md));
                    if nt {
                        super::sse::split_pairs16::<true>(ps.offset(so), p0, p1);
                    } else {
                        super::sse::split_pairs16::<false>(ps.offset(so), p0, p1);
                    }
                }
                so += 8 * ls;
                dof += 8 * ld;
            }
            done = long / 8 * 8;
        }
        if E == 1 && K == 4 && !short_i && ls == 4 && matches!(kernel.0, Isa::Avx2 | Isa::Avx512) {
            // Groups of four 1-byte elements split into four rows (8-bit
            // types in `(4,1)` sub-tiles): streamed when the rows start
            // on a line, with AVX-512 64 groups at a time, whole lines
            // (at 256 MiB, 16.5-17.8 GiB/s against 7.5-8.6 with AVX2,
            // best of three runs); then 16 at a time with AVX2. (Rows 16
            // bytes past a line, their whole lines streamed and the rest
            // written with ordinary stores, ran slower than all with
            // ordinary stores: 5.3-5.5 against 5.8-6.1.)
            if nt && kernel.0 == Isa::Avx512 {
                let n = long / 64;
                // SAFETY: the `64 * n` groups at `so` (`256 * n` bytes,
                // `ls == 4`) and the `64 * n` elements at `dof + m * md`
                // of each of the four rows are elements `0 .. 64 * n` of
                // the transpose, checked by `Tr::new` to lie in the
                // buffers (the rows, elements of distinct columns, do not
                // overlap); with `nt`, every row starts on a 64-byte
                // line; `Kernel(Avx512)` is only made where the CPU has
                // AVX-512 F and BW.
                unsafe {
                    let p = [0, 1, 2, 3].map(|m| pd.offset(dof + m * md));
                    super::avx512::split_quads(ps.offset(so), p, n);
                }
                so += 64 * n as isize * ls;
                dof += 64 * n as isize * ld;
                done = 64 * n;
            }
            let n = (long - done) / 16;
            // SAFETY: the `16 * n` groups at `so` (`64 * n` bytes, `ls ==
            // 4`) and the `16 * n` elements at `dof + m * md` of each of
            // the four rows are elements `done .. done + 16 * n` of the
            // transpose, checked by `Tr::new` to lie in the buffers (the
            // rows, elements of distinct columns, do not overlap); with
            // `nt`, every row starts on a 64-byte line; `Kernel(Avx2)`
            // and `Kernel(Avx512)` are only made where the CPU has AVX2.
            unsafe {
                let p = [0, 1, 2, 3].map(|m| pd.offset(dof + m * md));
                if nt {
                    super::avx::split_quads::<true>(ps.offset(so), p, n);
                } else {
                    super::avx::split_quads::<false>(ps.offset(so), p, n);
                }
            }
            so += 16 * n as isize * ls;
            dof += 16 * n as isize * ld;
            done += 16 * n;
        }
        if E * K == 4 && short_i && ld == 4 {
            // The other way: `K` rows merged into groups of 4 bytes, the
            // groups one run in the destination (tiling into `(2,1)` or
            // `(4,1)` sub-tiles), 16 bytes of each row at a time.
            let per = 16 / E;
            for _ in 0..long / per {
                // SAFETY: the `per` elements at `so + m * ms` (`m < K`,
                // `ls == E`) and the `per` groups of `K` at `dof` (`ld ==
                // 4 == K * E`, `md == E`) are elements `jj .. jj + per` of
                // the transpose, checked by `Tr::new` to lie in the
                // buffers; `E * K == 4` with `K` at least 2: `K` is 2 or
                // 4.
                unsafe {
                    let p = [0, 1, 2, 3].map(|m| ps.offset(so + m.min(K as isize - 1) * ms));
                    super::sse::merge_groups::<K>(p, pd.offset(dof));
                }
                so += per as isize * ls;
                dof += per as isize * ld;
            }
            done = long / per * per;
        }
        let merge = ls == 4 && ld == 12 && md == 4;
        if E == 4 && K == 3 && (merge || (ls == 12 && ms == 4 && ld == 4)) {
            // Three planes of 4-byte elements into groups of three, or
            // groups into planes (NCHW <-> NHWC with 3 channels, f32): 4
            // groups at a time with SSE2 shuffles. (Best of three
            // paired runs, both ways: 14.3-16.8 GiB/s at 16 MiB against
            // 8.8-10.7 element by element, 10.3-11.6 at 256 MiB against
            // 7.3-7.7.)
            for _ in 0..long / 4 {
                // SAFETY: the 4 elements of each of the 3 rows at `so +
                // m * ms` (`ls == 4`) and the 4 groups of three at `dof`
                // (`ld == 12`, `md == 4`), or the other way round, are
                // elements `jj .. jj + 4` of the transpose, checked by
                // `Tr::new` to lie in the buffers (the source and the
                // destination do not overlap; the three rows, elements of
                // distinct positions, do not either).
                unsafe {
                    if merge {
                        let p = [0, 1, 2].map(|m| ps.offset(so + m * ms));
                        super::sse::merge_triples(p, pd.offset(dof));
                    } else {
                        let p = [0, 1, 2].map(|m| pd.offset(dof + m * md));
                        super::sse::split_triples(ps.offset(so), p);
                    }
                }
                so += 4 * ls;
                dof += 4 * ld;
            }
            done = long / 4 * 4;
        }
        for _ in done..long {
            for m in 0..k as isize {
                // SAFETY: `so + m*ms`, `dof + m*md` are the offsets of an
                // element `(ii, jj)` with `ii < i.n`, `jj < j.n`, all of
                // whose bytes `Tr::new` checked to lie in `src` and `dst`;
                // the two do not overlap (one is shared, the other
                // borrowed mutably).
                unsafe {
                    let v = ps.offset(so + m * ms).cast::<[u8; E]>().read_unaligned();
                    pd.offset(dof + m * md).cast::<[u8; E]>().write_unaligned(v);
                }
            }
            so += ls;
            dof += ld;
        }
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
    fn seams(&mut self, tail: usize) -> usize {
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
    fn edge(&mut self, r: Range<usize>, c: Range<usize>) {
        // SAFETY: SSE is part of the x86_64 baseline; nothing streams.
        let (r4, c4) =
            unsafe { self.grid::<super::sse::Square<E>>(r.clone(), c.clone(), Order::Destination) };
        self.staged(r4..r.end, c.clone());
        self.staged(r.start..r4, c4..c.end);
    }
}

/// Copies the transpose `dst[d + ii*e + jj*j.d] = src[s + ii*i.s +
/// jj*e]` (`ii < i.n`, `jj < j.n`) of `e`-byte elements with `kernel`,
/// and again at every other position of the two `batch` axes (one call
/// for the innermost two loops around the transpose: the bounds checked
/// and the loops chosen once), streaming the destination if
/// `stream` and it can. `false` (nothing copied) when `e` is not 1, 2, 4
/// or 8, the transpose is too small for the blocks, or does not lie in
/// the buffers (for the caller's indexed copy to report). After its last
/// call that streamed, the caller runs [`fence`].
#[allow(clippy::too_many_arguments)]
pub(crate) fn transpose(
    kernel: Kernel,
    e: usize,
    i: Axis,
    j: Axis,
    batch: Batch,
    src: &[u8],
    s: isize,
    dst: &mut [u8],
    d: isize,
    stream: bool,
) -> bool {
    match e {
        1 => transpose_e::<1>(kernel, i, j, batch, src, s, dst, d, stream),
        2 => transpose_e::<2>(kernel, i, j, batch, src, s, dst, d, stream),
        4 => transpose_e::<4>(kernel, i, j, batch, src, s, dst, d, stream),
        8 => transpose_e::<8>(kernel, i, j, batch, src, s, dst, d, stream),
        _ => false,
    }
}

/// [`transpose`] of `E`-byte elements: blocks whose rows are 64-byte
/// lines (`64 / E` elements square), AVX 8 x 8 ones for 4-byte elements
/// and AVX2 pairs of squares for the others where the kernel has them.
#[allow(clippy::too_many_arguments)]
fn transpose_e<const E: usize>(
    kernel: Kernel,
    i: Axis,
    j: Axis,
    batch: Batch,
    src: &[u8],
    s: isize,
    dst: &mut [u8],
    d: isize,
    stream: bool,
) -> bool {
    let b = 64 / E;
    // A narrow transpose (a few planes interleaved or split apart) has
    // no square blocks: element by element, one side read or written in
    // order.
    let narrow = i.n < b || j.n < b;
    if narrow && !(i.n.min(j.n) <= NARROW && i.n.max(j.n) >= b) {
        return false;
    }
    // Destination rows a multiple of 4 KiB apart fall in the same cache
    // sets: kept in the caches, they evict each other before their
    // lines are whole. The staged copy avoids that. (Every destination
    // offset is a multiple of `E`, so whether a transpose streams is
    // the same for the whole batch.)
    if !narrow && !streams::<E>(stream, j, dst, d) && j.d % 4096 == 0 {
        return false;
    }
    let Some(mut tr) = Tr::<E>::new(i, j, batch, src, s, dst, d) else {
        return false;
    };
    let positions = (0..batch[0].n).flat_map(|x| (0..batch[1].n).map(move |y| (x, y)));
    if narrow {
        for at in positions {
            tr.to(batch, s, d, at);
            tr.narrow(kernel, stream);
        }
    } else {
        for at in positions {
            tr.to(batch, s, d, at);
            tr.blocks(kernel, stream);
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
    use super::super::Axis;
    use super::{BAND, GATHER, Kernel, TILE, fence, transpose};

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
                    let at = offset as isize;
                    let done = transpose(kernel, e, i, j, one, src, first, &mut dst, at, stream);
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
        // Too small for the blocks: nothing done.
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
        assert!(!transpose(
            Kernel::sse(),
            e,
            i,
            j,
            [Axis { n: 1, s: 0, d: 0 }; 2],
            &src,
            0,
            &mut dst,
            0,
            false
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
