//! Untilings of 1-byte elements in XLA's `(2,1)` and `(4,1)` sub-tiles
//! through a stage in the caches: the box cut into chunks of whole
//! transposes (the rows of a sub-tile row, split apart) and of the axes
//! of the next destination strides, as many positions as 16 KiB hold or,
//! up to 64 KiB, until the chunk's source is one run (a whole row of
//! tiles: eight whole rows of a u8 `[R, 2048]` array in `T(8,128)(2,1)`,
//! 32 in `T(32,128)(4,1)`); each chunk copied into the stage by the
//! other loops, then written to the destination in runs as long as the
//! chunk allows, their whole lines with non-temporal stores.
//!
//! Untiling writes many destination rows a few bytes at a time: 32 rows
//! of 16 bytes for each step of a u8 `T(32,128)(4,1)` untiling, 128
//! bytes of each row per tile. Non-temporal stores need whole lines, so
//! where the destination does not start on a line (a large buffer from
//! `malloc` starts 16 bytes past one, as do the comparison suite's) those
//! rows were written with ordinary stores, each line read from memory
//! before it is written. Through the stage, a chunk leaves as runs of
//! whole lines wherever the destination starts; only the lines a run
//! shares with the next chunk's are written with ordinary stores.
//! Three interleaved runs of each, ratios to a memory copy at 16 and 256
//! MiB, without the stage and with it: u8 `T(32,128)(4,1)` 0.38/0.54
//! and 0.74/0.74, `T(16,128)(2,1)` 0.43/0.56 and 0.50/0.62,
//! `T(8,128)(2,1)` 0.34/0.54 and 0.50/0.60, `T(2,128)(2,1)` 0.45/0.66
//! and 0.57/0.79. For 2- and 4-byte elements, whose rows take 256 and
//! 512 bytes of each tile, the stage (chunks of 16 KiB) was slower (bf16
//! `T(32,128)(4,1)` at 256 MiB 0.46-0.52 against 0.61-0.64, f32
//! 0.29-0.30 against 0.63-0.67) and is not used.

use super::narrow::NARROW;
use super::{Axis, BoxCopy, Buffers, Inner, direct, for_each_position};

/// The most bytes of a chunk: a whole row of u8 `T(32,128)(4,1)` tiles
/// of a `[R, 2048]` array, in L2.
const STAGE: usize = 64 << 10;

/// The bytes of a chunk whose source is not one run: in L1 with the
/// source lines it reads. Chunks of a whole row of tiles, their source
/// read in order, ran faster than chunks of fewer rows from each tile
/// (u8 `T(32,128)(4,1)` at 16 and 256 MiB, three interleaved runs:
/// 0.74/0.74x of a memory copy against 0.47/0.54 with chunks of 16 KiB,
/// two of the eight rows of four of each tile; `T(16,128)(2,1)`,
/// 0.50/0.62 against 0.33/0.52), and chunks of several rows of tiles
/// slower than of one (`T(8,128)(2,1)` in chunks of 16 and 64 KiB:
/// 0.60/0.59 against 0.47/0.54).
const L1_STAGE: usize = 16 << 10;

/// Whether the source positions of `axes` (`e`-byte elements) are one
/// run: ordered by source stride, each axis's stride the extent of those
/// before it.
fn one_run(axes: &[Axis], e: usize) -> bool {
    let mut by_source = axes.to_vec();
    by_source.sort_by_key(|a| a.s.unsigned_abs());
    let mut packed = e as isize;
    by_source.iter().filter(|a| a.n > 1).all(|a| {
        let next = a.s == packed;
        packed = packed.saturating_mul(a.n as isize);
        next
    })
}

/// The shortest destination runs a staged copy writes.
const MIN_RUN: usize = 256;

/// The stage, on whole lines.
#[repr(C, align(64))]
struct Stage([u8; STAGE]);

/// A box copied through the stage ([`copy`](Self::copy)).
#[derive(Debug)]
pub(super) struct Staged {
    /// The axes around the chunks.
    outer: Vec<Axis>,
    /// The axis the chunks cut, `m` of its positions at a time (`n == 1`
    /// when a chunk holds whole axes only).
    cut: Axis,
    m: usize,
    /// The copy of one chunk of `m` positions of `cut` into the stage,
    /// and of the last chunk when fewer are left.
    whole: Chunk,
    rest: Option<Chunk>,
}

/// One chunk: its copy into the stage, and its runs in the destination:
/// `run` contiguous bytes at every position of `rows` (`s` the offset in
/// the stage, `d` in the destination).
#[derive(Debug)]
struct Chunk {
    copy: BoxCopy,
    run: usize,
    rows: Vec<Axis>,
}

impl Chunk {
    /// The chunk of these axes (`d` their destination strides, all
    /// positive), staged in their order by destination stride, packed.
    fn new(mut axes: Vec<Axis>, e: usize) -> Option<Chunk> {
        axes.retain(|a| a.n > 1);
        axes.sort_by_key(|a| a.d);
        let mut packed = e;
        // The destination runs: the innermost axes that continue each
        // other.
        let mut run = None;
        let mut staged = Vec::with_capacity(axes.len());
        let mut rows = Vec::new();
        for a in &axes {
            if run.is_none() && a.d != packed as isize {
                run = Some(packed);
            }
            if run.is_some() {
                rows.push(Axis {
                    n: a.n,
                    s: packed as isize,
                    d: a.d,
                });
            }
            staged.push(Axis {
                d: packed as isize,
                ..*a
            });
            packed = packed.checked_mul(a.n)?;
        }
        rows.reverse();
        Some(Chunk {
            copy: BoxCopy::new(0, 0, &staged, e)?,
            run: run.unwrap_or(packed),
            rows,
        })
    }
}

impl Staged {
    /// The staged copy of `b` (of `e`-byte elements), when its inner copy
    /// splits pairs or quadruples of bytes of the source into as many
    /// destination rows (untiling XLA's `(2,1)` and `(4,1)` sub-tiles of
    /// 1-byte elements): each chunk holds the whole transpose and as
    /// many positions of the axes of the next destination strides as the
    /// stage holds. `None` for other copies, and where the transpose is
    /// too large for the stage.
    pub(super) fn new(b: &BoxCopy, e: usize) -> Option<Staged> {
        let Inner::Transpose { i, j } = b.inner else {
            return None;
        };
        if e != 1 || !matches!(j.n, 2 | 4) || i.n <= NARROW {
            return None;
        }
        let mut axes = b.outer.clone();
        if axes.iter().chain([&i, &j]).any(|a| a.d <= 0) {
            return None;
        }
        axes.sort_by_key(|a| a.d);
        let mut chunk = vec![i, j];
        let mut bytes = e.checked_mul(i.n)?.checked_mul(j.n)?;
        if bytes > L1_STAGE {
            return None;
        }
        // Whole axes while [`L1_STAGE`] holds them, or the stage holds
        // them and the next makes the chunk's source one run (a whole
        // row of tiles); then a piece of the next.
        let mut k = 0;
        while k < axes.len() {
            let next = bytes.checked_mul(axes[k].n)?;
            let with = || [&chunk[..], &axes[k..=k]].concat();
            let completes = next <= STAGE && !one_run(&chunk, e) && one_run(&with(), e);
            if next > L1_STAGE && !completes {
                break;
            }
            bytes = next;
            chunk.push(axes[k]);
            k += 1;
        }
        let (cut, m) = match axes.get(k) {
            Some(_) => (axes.remove(k), (L1_STAGE / bytes).max(1)),
            None => (Axis { n: 1, s: 0, d: 0 }, 1),
        };
        let outer = axes.split_off(k);
        let piece = |n: usize| {
            let mut axes = chunk.clone();
            axes.push(Axis { n, ..cut });
            Chunk::new(axes, e)
        };
        let m = m.min(cut.n);
        let whole = piece(m)?;
        // Runs shorter than this pay for the stage and stream few lines
        // (the last, partial tile of each row).
        if whole.run < MIN_RUN {
            return None;
        }
        let rest = match cut.n % m {
            0 => None,
            r => Some(piece(r)?),
        };
        Some(Staged {
            outer,
            cut,
            m,
            whole,
            rest,
        })
    }

    /// Copies the box from where `b` starts: each chunk into the stage
    /// (never streamed), then its runs to the destination
    /// ([`write_out`]). The caller checked the box's bounds.
    pub(super) fn copy(&self, e: usize, b: Buffers) {
        let mut stage = Stage([0; STAGE]);
        let Buffers { src, dst, .. } = b;
        let (cut, m) = (self.cut, self.m);
        for_each_position(&self.outer, b.s, b.d, |s, d| {
            for k in (0..cut.n).step_by(m) {
                let chunk = match &self.rest {
                    Some(rest) if k + m > cut.n => rest,
                    _ => &self.whole,
                };
                let (s, d) = (s + k as isize * cut.s, d + k as isize * cut.d);
                let to_stage = Buffers {
                    src,
                    s,
                    dst: &mut stage.0,
                    d: 0,
                    stream: false,
                };
                chunk.copy.copy(e, to_stage);
                for_each_position(&chunk.rows, 0, d, |at, d| {
                    let at = at as usize;
                    write_out(&stage.0[at..at + chunk.run], dst, d as usize);
                });
            }
        });
        direct::fence();
    }
}

/// Writes `stage` to `dst` from byte `d`: the lines it fills whole with
/// non-temporal stores, the bytes before the first and after the last
/// with ordinary ones (panics if they do not lie in `dst`).
fn write_out(stage: &[u8], dst: &mut [u8], d: usize) {
    let out = &mut dst[d..d + stage.len()];
    let head = ((64 - out.as_ptr() as usize % 64) % 64).min(out.len());
    let lines = (out.len() - head) / 64;
    let tail = head + 64 * lines;
    out[..head].copy_from_slice(&stage[..head]);
    // SAFETY: the `64 * lines` bytes from `head` lie in `stage` and in
    // `out` (`tail <= out.len() == stage.len()`), which do not overlap
    // (one is shared, the other borrowed mutably); `out + head` starts
    // on a line.
    unsafe {
        direct::stream_run(stage.as_ptr().add(head), lines, out.as_mut_ptr().add(head));
    }
    out[tail..].copy_from_slice(&stage[tail..]);
}

#[cfg(test)]
mod tests {
    use super::super::Buffers;
    use crate::relayout::{Exec, Relayout};
    use crate::{ArrayShape, Layout, PrimitiveType, Tile};

    /// XLA's TPU tilings: `T(rows,128)`, with sub-tiles `(k,1)` where
    /// `k` is not 0.
    const TILINGS: [(i64, i64); 6] = [(8, 0), (8, 2), (16, 2), (32, 4), (4, 0), (2, 2)];

    /// `plan` run with its destination streamed (as for a large one),
    /// from `src` into `dst`; whether a box went through the stage.
    fn streamed(plan: &Relayout, src: &[u8], dst: &mut [u8]) -> bool {
        plan.padding.zero(dst);
        let Exec::Bytes { e, boxes } = &plan.exec else {
            panic!("a copy of whole bytes");
        };
        let mut staged = false;
        for b in boxes {
            let mut buffers = Buffers::new(src, &mut *dst, true);
            staged |= b.staged(*e, &buffers.at(b.src, b.dst)).is_some();
            b.copy(*e, buffers);
        }
        staged
    }

    /// Tiling and untiling `dims` of each width in each tiling, streamed,
    /// the destination at each of `offsets` bytes past a line and the
    /// source 5 bytes past one, against the same copy not streamed
    /// (checked against XLA's offsets by `tests/layout_math`); `staged`:
    /// how many of the copies went through the stage.
    fn check(dims: [i64; 2], widths: &[PrimitiveType], offsets: &[usize]) -> usize {
        let mut staged = 0;
        for &t in widths {
            let plain = ArrayShape::new(t, dims).unwrap();
            for (rows, k) in TILINGS {
                let sub = (k > 0).then(|| Tile::new([k, 1]).unwrap());
                let tiles = [Tile::new([rows, 128]).unwrap()]
                    .into_iter()
                    .chain(sub)
                    .collect();
                let tiled = plain
                    .clone()
                    .with_layout(Some(Layout::new([1, 0]).with_tiles(tiles)))
                    .unwrap();
                for (a, b) in [(&plain, &tiled), (&tiled, &plain)] {
                    let plan = Relayout::new(a, b).unwrap();
                    let (ns, nd) = (plan.src_byte_size(), plan.dst_byte_size());
                    let buffer: Vec<u8> = (0..ns + 64).map(|k| (k * 7 + k / 251) as u8).collect();
                    let lead = (64 - buffer.as_ptr() as usize % 64) % 64 + 5;
                    let src = &buffer[lead % 64..][..ns];
                    let mut expected = vec![0xA5; nd];
                    plan.run(src, &mut expected).unwrap();
                    for &offset in offsets {
                        let mut out = vec![0xA5u8; nd + 128];
                        let at = (64 - out.as_ptr() as usize % 64) % 64 + offset;
                        let dst = &mut out[at..at + nd];
                        staged += usize::from(streamed(&plan, src, dst));
                        assert!(
                            dst == expected,
                            "{t:?} {dims:?} T({rows},128)({k},1) offset {offset}"
                        );
                        assert!(out[..at].iter().chain(&out[at + nd..]).all(|&v| v == 0xA5));
                    }
                }
            }
        }
        staged
    }

    #[test]
    fn staged_tilings() {
        use PrimitiveType::{Bf16, F32, F64, U8};
        if cfg!(miri) {
            // Rows of 300 bytes (two whole tiles, staged in runs of 256
            // bytes, and a partial one, not staged), the destination 16
            // bytes past a line; and tilings, streamed and not staged.
            assert!(check([57, 300], &[U8], &[16]) > 0);
            assert_eq!(check([9, 140], &[F32], &[16]), 0);
            // Rows of 9 tiles, 1152 bytes: with AVX-512 the sub-tiles
            // split into whole lines of rows carried across a row of
            // tiles (`Tr::in_lines`) and the `T(8,128)` runs likewise
            // (`runs_in_lines`), not staged; 48 bytes past a line.
            let staged = check([16, 1152], &[U8], &[48]);
            assert_eq!(staged == 0, super::super::cpu::Kernel::avx512().is_some());
            return;
        }
        // Rows of 520 to 20,000 bytes (chunks of whole rows, or of a
        // stage's worth of a row's tiles: 32 or 64 tiles, then the 28
        // left), partial tiles at the end of each row and at the end of
        // the array, and no partial tile; the wider elements streamed,
        // not staged.
        // With AVX-512, rows of tiles 2 KiB and longer go in whole lines
        // instead (`Tr::in_lines`), wherever the destination starts on
        // 16 bytes.
        for dims in [[70, 2048 + 131], [64, 2048], [37, 520], [128, 20000]] {
            assert!(check(dims, &[U8], &[0, 16, 32, 48, 1]) > 0, "{dims:?}");
        }
        assert_eq!(check([37, 520], &[Bf16, F32, F64], &[0, 16, 32, 48, 1]), 0);
    }
}
