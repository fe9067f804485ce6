//! XLA's `(2,1)` and `(4,1)` sub-tiles split into their rows (untiling)
//! or merged from them (tiling) with AVX-512 in whole streamed lines,
//! the transposes of a whole row of tiles in one call where the
//! destination continues from one to the next ([`Tr::in_lines`]).
//!
//! A sub-tile transpose is small: the groups of one row of pairs or
//! quadruples of a tile, 128 of them. Copied one by one (`Tr::narrow`),
//! each writes its own piece of each destination row (untiling: 128
//! bytes of each of two u8 rows) or of the tile (tiling: 256 bytes), and
//! where the destination starts 16 bytes past a line (a large `malloc`
//! buffer), the lines each piece shares with the next go through
//! ordinary stores, each read from memory first: three in four for u8
//! untiling. Here a whole row of tiles goes in one pass: a merge writes
//! its destination in order, every line whole but the one it shares with
//! the next row of tiles; a split reads its source tile by tile and
//! carries each of up to eight groups of destination rows from one tile
//! to the next, every line whole but the one each row shares with the
//! next row (one in 32 of a `[R, 2048]` u8 array).

use super::avx512::{GROUPS, PER_ROW};
use super::cpu::{Isa, Kernel};
use super::transposer::Tr;
use super::{Axis, Batch};

/// Shortest stretch of the destination (of each destination row, for a
/// split and for the carried runs of `runs_in_lines`) one call writes:
/// at most one line in 16 then shared with the next call's, written with
/// ordinary stores.
pub(super) const LINES_MIN: usize = 1024;

/// Rows of a split shorter than this are gathered with the transposes
/// that continue them. Longer ones went faster on their own, each tile's
/// rows together, the source read in order (`Tr::narrow`), than gathered
/// one row of pairs of every tile a call (the first form of this
/// module): CPU time a pass at 16 MiB, f64 `T(16,128)(2,1)` untiling
/// (rows of 1 KiB a tile) 0.61 ms on their own, 0.75 gathered; ratios to
/// a memory copy at 16 / 256 MiB, bf16 `T(8,128)(2,1)` (256 bytes) 0.86
/// / 1.07 against 0.81 / 0.67. Where the destination rows do not all
/// start as far past a line (each row on its own would write a partial
/// line at both ends of every tile's piece), rows of any length are
/// gathered: bf16 `[R, 2000]` untiled from `T(8,128)(2,1)` at 16 MiB,
/// 1.82 ms a pass on their own (AVX2, ordinary stores), 0.86 gathered;
/// `T(16,128)(2,1)` 1.64 -> 0.75.
const GATHER_BELOW: usize = 256;

/// How [`Tr::in_lines`] goes over a batch: at each position of `rest`,
/// one call over the positions of `runs` (outer, inner), along which the
/// destination continues each transpose's; a split gathered along `runs`
/// takes up to [`GROUPS`] positions of `rest`'s inner axis a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Lines {
    runs: [Axis; 2],
    rest: [Axis; 2],
    /// The sub-tile groups are split into their rows (untiling), not
    /// merged from them.
    split: bool,
    /// Every destination row (split) or call (merge) starts as far past
    /// a line as the first: the strides between them are multiples of
    /// 64 bytes. Else multiples of 4, each at its own distance
    /// ([`PER_ROW`]).
    even: bool,
}

/// Where [`Tr::in_lines`] copies the transpose `i`, `j` of `e`-byte
/// elements at every position of `batch`: groups of 2 or 4 elements (the
/// short side) each one run of whole 64-byte pieces on one side (the
/// source for a split, the destination for a merge), the rows a multiple
/// of 4 bytes apart on the other; every destination stride that starts
/// a call a multiple of 4 bytes (64: all start as far past a line as the
/// first, [`Lines::even`]), and each call at least [`LINES_MIN`] bytes
/// long. Along a batch axis that continues a transpose's destination
/// (the next tile of a row of tiles, the next row of pairs of a tile),
/// and the other axis too where it continues that one's. A split gathers
/// only rows shorter than [`GATHER_BELOW`], or rows that are not a
/// multiple of 64 bytes apart; a merge's groups of 8-byte elements go in
/// pairs only. `None` outside.
pub(super) fn lines(i: Axis, j: Axis, batch: Batch, e: usize) -> Option<Lines> {
    let one = Axis { n: 1, s: 0, d: 0 };
    // The rows' side `rows`, the groups' `groups`, and the bytes of the
    // destination each transpose continues: a row (split) or all its
    // groups (merge).
    let (split, rows, groups) = if matches!(j.n, 2 | 4) && i.s == (j.n * e) as isize {
        (true, j, i)
    } else if matches!(i.n, 2 | 4) && j.d == (i.n * e) as isize && i.n * e <= 16 {
        (false, i, j)
    } else {
        return None;
    };
    let piece = groups.n.checked_mul(e)?;
    let ext = if split {
        piece
    } else {
        piece.checked_mul(rows.n)?
    };
    if !(piece.is_multiple_of(64) && (!split || (j.d % 4 == 0 && j.d > 0))) {
        return None;
    }
    let continues = |a: &Axis, bytes: usize| a.n > 1 && a.d == bytes as isize;
    let gathers = !split || piece < GATHER_BELOW || j.d % 64 != 0;
    let (runs, rest) = match (0..2).find(|&k| gathers && continues(&batch[k], ext)) {
        Some(k) => {
            let (inner, other) = (batch[k], batch[1 - k]);
            if !split && continues(&other, ext * inner.n) {
                ([other, inner], [one, one])
            } else {
                ([one, inner], [one, other])
            }
        }
        None => ([one, one], batch),
    };
    let bytes = ext.saturating_mul(runs[0].n).saturating_mul(runs[1].n);
    let strides = |m: isize| rest.iter().all(|a| a.n <= 1 || a.d % m == 0);
    let even = strides(64) && (!split || j.d % 64 == 0);
    (bytes >= LINES_MIN && strides(4)).then_some(Lines {
        runs,
        rest,
        split,
        even,
    })
}

/// [`lines`] for a copy with `kernel` whose destination starts at the
/// address `first`, or `None` where [`Tr::in_lines`] does not copy:
/// another CPU than AVX-512's, or a destination that does not start on
/// 4 bytes. (Also where the stage is not wanted: `staged`.)
pub(super) fn lines_at(
    kernel: Kernel,
    first: usize,
    (i, j, batch): (Axis, Axis, Batch),
    e: usize,
) -> Option<Lines> {
    let on = kernel.0 == Isa::Avx512 && first.is_multiple_of(4);
    if on { lines(i, j, batch, e) } else { None }
}

impl<const E: usize> Tr<'_, E> {
    /// The whole batch's sub-tile groups split into their rows or merged
    /// from them in whole lines ([`gather_lines`], [`merge_lines`]), as
    /// [`lines`] goes over it, where the destination starts a multiple
    /// of 4 bytes past a line (every row as far past one as the first,
    /// or each as far as its own address says) and the CPU has AVX-512;
    /// `false` (nothing copied) elsewhere. The lines are streamed if
    /// `stream`, else written with ordinary stores (a destination under
    /// `STREAM_MIN_BYTES`, or the stage of a staged copy).
    ///
    /// [`gather_lines`]: super::avx512::gather_lines
    /// [`merge_lines`]: super::avx512::merge_lines
    #[inline(never)]
    pub(super) fn in_lines(&mut self, kernel: Kernel, stream: bool) -> bool {
        let first = (self.dst.as_ptr() as usize).wrapping_add(self.d as usize);
        let transposes = (self.i, self.j, self.batch);
        let Some(lines) = lines_at(kernel, first, transposes, E) else {
            return false;
        };
        // Every row as far past a line as the first, a multiple of 16
        // bytes: that distance for all; else each row's own.
        let m = if lines.even && first.is_multiple_of(16) {
            first % 64
        } else {
            PER_ROW
        };
        if stream {
            self.shifted::<true>(lines, m);
        } else {
            self.shifted::<false>(lines, m);
        }
        true
    }

    /// [`copy`](Self::copy) for the groups of `lines` and a destination
    /// `m` (0, 16, 32 or 48, or [`PER_ROW`]) bytes past a line, streamed
    /// if `NT`.
    fn shifted<const NT: bool>(&mut self, lines: Lines, m: usize) {
        match (self.i.n.min(self.j.n), m) {
            (2, PER_ROW) => self.copy::<2, PER_ROW, NT>(lines),
            (_, PER_ROW) => self.copy::<4, PER_ROW, NT>(lines),
            (2, 0) => self.copy::<2, 0, NT>(lines),
            (2, 16) => self.copy::<2, 16, NT>(lines),
            (2, 32) => self.copy::<2, 32, NT>(lines),
            (2, _) => self.copy::<2, 48, NT>(lines),
            (_, 0) => self.copy::<4, 0, NT>(lines),
            (_, 16) => self.copy::<4, 16, NT>(lines),
            (_, 32) => self.copy::<4, 32, NT>(lines),
            (_, _) => self.copy::<4, 48, NT>(lines),
        }
    }

    /// [`in_lines`](Self::in_lines) of groups of `K`, the destination `M`
    /// bytes past a line: at each position of `lines.rest`, one call of
    /// the merge over `lines.runs`; for a split, the positions of the
    /// inner axis of `rest` [`GROUPS`] at a time, each call reading the
    /// source of its runs in order (a row of tiles, tile by tile).
    fn copy<const K: usize, const M: usize, const NT: bool>(&mut self, lines: Lines) {
        let (ps, pd) = (self.src.as_ptr(), self.dst.as_mut_ptr());
        // The rows' side: the rows `r < K` at `at + r * stride`.
        let rows = |at: isize, stride: isize| {
            [0, 1, 2, 3].map(|r: isize| at + r.min(K as isize - 1) * stride)
        };
        // Pieces of 64 bytes of each row a run.
        let per = self.i.n.max(self.j.n) * E / 64;
        let [a, b] = lines.rest;
        let runs = lines.runs.map(|r| (r.n, r.s));
        // A split gathered along a row of tiles takes up to `GROUPS`
        // positions of `b` a call, the source of each tile then read in
        // order. (Long rows on their own go one at a time: eight a call
        // measured slower, f64 `T(16,128)(2,1)` untiling at 16 MiB
        // 0.84-0.98 against 0.65-0.77 ms a pass.)
        let grouped = lines.split && lines.runs[1].n > 1;
        let step = if grouped { GROUPS } else { 1 };
        for x in 0..a.n as isize {
            for y in (0..b.n).step_by(step) {
                let groups = (step.min(b.n - y), b.s, b.d);
                let y = y as isize;
                let so = self.s + x * a.s + y * b.s;
                let dof = self.d + x * a.d + y * b.d;
                // SAFETY: what the calls read and write is the source and
                // the destination of the transposes at the positions of
                // the batch they cover (each run's stride on, and for a
                // split each group's, at most `GROUPS` of them; `per`
                // pieces of 64 bytes of each row a run, the groups `64 *
                // K` bytes a piece, contiguous: `i.s == K * E` for a
                // split, `j.d == K * E` for a merge; the runs continue the
                // destination), each checked by `Tr::new` to lie in the
                // buffers, which do not overlap (nor do the rows, of
                // distinct positions); the destination, or every row of
                // it, starts `M` bytes past a line (the first does, and
                // `j.d` and the strides of `rest` are multiples of 64:
                // `Lines::even`) or, for `PER_ROW`, a multiple of 4 bytes
                // past one (the first does, `lines_at`, and those strides
                // are multiples of 4: `lines`); `K` is 2 or 4, and a
                // merge's `K * E` at most
                // 16 (`lines`); a split's `runs[0]` is a single position
                // (`lines`); `Kernel(Avx512)` is only made where the CPU
                // has AVX-512 F and BW.
                unsafe {
                    if lines.split {
                        let p = rows(dof, self.j.d).map(|o| pd.offset(o));
                        let pa = ps.offset(so);
                        if grouped {
                            super::avx512::gather_lines::<E, K, M, GROUPS, NT>(
                                pa, runs[1], groups, per, p,
                            );
                        } else {
                            super::avx512::gather_lines::<E, K, M, 1, NT>(
                                pa, runs[1], groups, per, p,
                            );
                        }
                    } else {
                        let p = rows(so, self.i.s).map(|o| ps.offset(o));
                        super::avx512::merge_lines::<E, K, M, NT>(p, runs, per, pd.offset(dof));
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{GROUPS, Kernel, Lines, lines};
    use crate::relayout::kernel::{Buffers, Inner};
    use crate::relayout::{Exec, Relayout};
    use crate::{ArrayShape, Shape};

    /// How [`lines`] goes over the one box of the plan from `a` to `b`
    /// (HLO shape strings).
    fn plan_lines(a: &str, b: &str) -> Option<Lines> {
        let shape = |s: &str| s.parse::<Shape>().unwrap().as_array().cloned().unwrap();
        let (a, b): (ArrayShape, ArrayShape) = (shape(a), shape(b));
        let plan = Relayout::new(&a, &b).unwrap();
        let Exec::Bytes { e, boxes } = &plan.exec else {
            panic!("a copy of whole bytes");
        };
        let [copy] = &boxes[..] else {
            panic!("one box");
        };
        let Inner::Transpose { i, j } = copy.inner else {
            panic!("a transpose");
        };
        lines(i, j, copy.batch().1, *e)
    }

    #[test]
    fn sub_tiles_go_a_row_of_tiles_at_a_time() {
        let plain = "u8[64,2048]{1,0}";
        // Untiling u8 `T(8,128)(2,1)`: each pair of rows gathered from
        // the 16 tiles of a row of tiles (2048 / 128), the 4 pairs of a
        // tile's 8 rows one call each.
        let tiled = "u8[64,2048]{1,0:T(8,128)(2,1)}";
        let split = plan_lines(tiled, plain).unwrap();
        assert!(split.split);
        assert_eq!(split.runs.map(|a| a.n), [1, 2048 / 128]);
        assert_eq!(split.rest.map(|a| a.n).iter().product::<usize>(), 8 / 2);
        // Tiling: the tile's 4 pairs of rows and the row's 16 tiles
        // continue each other in the destination, all in one call.
        let merge = plan_lines(plain, tiled).unwrap();
        assert!(!merge.split);
        assert_eq!(merge.runs.map(|a| a.n), [2048 / 128, 8 / 2]);
        assert_eq!(merge.rest.map(|a| a.n), [1, 1]);
        // `T(2,128)(2,1)`: the tiles of a row are one transpose of 2048
        // pairs, long enough on its own.
        let tiled = "u8[64,2048]{1,0:T(2,128)(2,1)}";
        let long = plan_lines(tiled, plain).unwrap();
        assert_eq!(long.runs.map(|a| a.n), [1, 1]);
        // bf16 rows of 256 bytes a tile go on their own (`GATHER_BELOW`),
        // too short for whole lines here; f64 quadruples are not merged.
        let bf16 = ("bf16[64,2048]{1,0:T(8,128)(2,1)}", "bf16[64,2048]{1,0}");
        assert_eq!(plan_lines(bf16.0, bf16.1), None);
        let f64 = ("f64[64,2048]{1,0}", "f64[64,2048]{1,0:T(32,128)(4,1)}");
        assert_eq!(plan_lines(f64.0, f64.1), None);
    }

    /// Untiling u8 tiles of more rows than `GROUPS`, streamed, the
    /// destination on a line and 16 and 48 bytes past one, against the
    /// same copy not streamed: the `T(16,128)` and `T(32,128)` runs and
    /// the 16 rows of pairs of a `T(32,128)(2,1)` tile carried a group of
    /// rows at a time.
    #[test]
    fn more_rows_than_groups_go_a_group_at_a_time() {
        if cfg!(miri) {
            return;
        }
        let shape = |s: &str| s.parse::<Shape>().unwrap().as_array().cloned().unwrap();
        let plain = shape("u8[64,2048]{1,0}");
        for tiled in ["T(16,128)", "T(32,128)", "T(32,128)(2,1)"] {
            let tiled = shape(&format!("u8[64,2048]{{1,0:{tiled}}}"));
            let plan = Relayout::new(&tiled, &plain).unwrap();
            let src: Vec<u8> = (0..plan.src_byte_size())
                .map(|k| (k * 7 + k / 251) as u8)
                .collect();
            let mut expected = vec![0; plan.dst_byte_size()];
            plan.run(&src, &mut expected).unwrap();
            let Exec::Bytes { e, boxes } = &plan.exec else {
                panic!("a copy of whole bytes");
            };
            // More groups of rows than a call carries, on either path.
            let [copy] = &boxes[..] else {
                panic!("one box");
            };
            let more = match copy.inner {
                Inner::Run(len) => {
                    let [a, last] = copy.batch().1;
                    super::super::rows_in_lines(a, last, len) && last.n > GROUPS
                }
                Inner::Transpose { i, j } => {
                    let lines = lines(i, j, copy.batch().1, *e).unwrap();
                    lines.split && lines.rest[1].n > GROUPS
                }
                Inner::Strided(_) => false,
            };
            assert_eq!(more, Kernel::avx512().is_some(), "{tiled:?}");
            for offset in [0, 16, 48] {
                let mut out = vec![0xA5u8; expected.len() + 128];
                let at = (64 - out.as_ptr() as usize % 64) % 64 + offset;
                let dst = &mut out[at..at + expected.len()];
                for b in boxes {
                    b.copy(*e, Buffers::new(&src, &mut *dst, true));
                }
                assert!(dst == expected, "{tiled:?} at {offset}");
                assert!(
                    out[..at]
                        .iter()
                        .chain(&out[at + expected.len()..])
                        .all(|&v| v == 0xA5)
                );
            }
        }
    }

    /// Rows a multiple of 4 bytes long but not of 64, so that each
    /// starts at its own distance past a line (`PER_ROW`): u8, bf16 and
    /// f32 in each sub-tile tiling and `T(8,128)` and `T(4,128)` (runs
    /// carried from tile to tile: `runs_in_lines`; tiling, one stream:
    /// `runs_in_one_stream`), tiled and untiled,
    /// streamed with the destination 0, 4, 16 and 36 bytes past a line
    /// and not streamed, against the copy element by element (each
    /// element's offsets from the layouts); the partial tile at the end
    /// of each row and the partial row of tiles included. With them, f32
    /// rows of 2560 bytes (all as far past a line as the first), whose
    /// `T(8,128)` runs of 512 bytes go through `runs_in_lines` too.
    #[test]
    fn rows_at_their_own_distance_past_a_line() {
        use crate::{Layout, PrimitiveType, Tile};
        // u8 rows of 2000 bytes (16 bytes past a line more each row),
        // 2052 and 1156 (4 more): untiling `T(8,128)(2,1)` goes
        // `PER_ROW` with AVX-512.
        let split = |dims: [i64; 2]| {
            let plain = ArrayShape::new(PrimitiveType::U8, dims).unwrap();
            let tiles = [[8, 128], [2, 1]].map(|t| Tile::new(t).unwrap()).to_vec();
            let layout = Layout::new([1, 0]).with_tiles(tiles);
            let tiled = plain.clone().with_layout(Some(layout)).unwrap();
            let plan = Relayout::new(&tiled, &plain).unwrap();
            let Exec::Bytes { e, boxes } = &plan.exec else {
                panic!("a copy of whole bytes");
            };
            let Inner::Transpose { i, j } = boxes[0].inner else {
                panic!("a transpose");
            };
            lines(i, j, boxes[0].batch().1, *e)
        };
        for dims in [[40, 2000], [40, 2052], [8, 1156]] {
            let lines = split(dims).unwrap();
            assert!(lines.split && !lines.even, "{dims:?}");
        }
        // Under Miri (one lane at a time), u8 rows of 1156 bytes: nine
        // whole tiles and a partial one, 4 bytes further past a line
        // each row; and of 1040, 16 bytes further (`T(8,128)` untiled a
        // row at a time where the first starts 16 bytes past a line).
        let (shapes, tilings, offsets): (&[_], &[_], &[_]) = if cfg!(miri) {
            (
                &[
                    (PrimitiveType::U8, [8, 1156]),
                    (PrimitiveType::U8, [8, 1040]),
                ],
                &[[8, 2], [8, 0]],
                &[(4, true), (16, true), (4, false)],
            )
        } else {
            (
                &[
                    (PrimitiveType::U8, [40, 2000]),
                    (PrimitiveType::U8, [40, 2052]),
                    (PrimitiveType::Bf16, [40, 1026]),
                    (PrimitiveType::F32, [40, 513]),
                    (PrimitiveType::F32, [40, 640]),
                ],
                &[[8, 2], [16, 2], [32, 4], [2, 2], [8, 0], [4, 0]],
                &[(0, true), (4, true), (16, true), (36, true), (4, false)],
            )
        };
        for &(t, dims) in shapes {
            let plain = ArrayShape::new(t, dims).unwrap();
            for &[rows, k] in tilings {
                let sub = (k > 0).then(|| Tile::new([k, 1]).unwrap());
                let tiling = [Tile::new([rows, 128]).unwrap()]
                    .into_iter()
                    .chain(sub)
                    .collect();
                let layout = Layout::new([1, 0]).with_tiles(tiling);
                let tiled = plain.clone().with_layout(Some(layout)).unwrap();
                for (a, b) in [(&plain, &tiled), (&tiled, &plain)] {
                    let plan = Relayout::new(a, b).unwrap();
                    let (ns, nd) = (plan.src_byte_size(), plan.dst_byte_size());
                    let src: Vec<u8> = (0..ns).map(|k| (k * 7 + k / 251) as u8).collect();
                    let mut expected = vec![0; nd];
                    plan.per_element(&src, &mut expected);
                    let Exec::Bytes { e, boxes } = &plan.exec else {
                        panic!("a copy of whole bytes");
                    };
                    for &(offset, stream) in offsets {
                        let mut out = vec![0xA5u8; nd + 128];
                        let at = (64 - out.as_ptr() as usize % 64) % 64 + offset;
                        let dst = &mut out[at..at + nd];
                        plan.padding.zero(dst);
                        for b in boxes {
                            b.copy(*e, Buffers::new(&src, &mut *dst, stream));
                        }
                        super::super::direct::fence();
                        assert!(dst == expected, "{a} -> {b} at {offset}, streamed {stream}");
                        let outside = out[..at].iter().chain(&out[at + nd..]);
                        assert!(outside.into_iter().all(|&v| v == 0xA5));
                    }
                }
            }
        }
    }
}
