//! The fast copy loops of `relayout` (direct transposes of 1-, 2-, 4- and
//! 8-byte elements, narrow transposes of a few planes, the SSE squares of
//! the staged copy, and with the `rayon` feature the parallel copy)
//! checked against element offsets computed one by one from
//! `TiledLayout::offset` (or the strides of a view): every element size,
//! odd sizes, padded tiles and strided sources.

use crate::common::every_index;

use xla_shape::relayout::{Relayout, StridedSource};
use xla_shape::tiling::TiledLayout;
use xla_shape::{ArrayShape, Layout, PrimitiveType, Tile};

use PrimitiveType::{Bf16, C128, F32, F64, S16, U8};

fn shape(t: PrimitiveType, dims: &[i64], mtm: &[i64], tiles: &[&[i64]]) -> ArrayShape {
    let tiles = tiles.iter().map(|t| Tile::new(*t).unwrap()).collect();
    ArrayShape::new(t, dims.to_vec())
        .unwrap()
        .with_layout(Some(Layout::new(mtm.to_vec()).with_tiles(tiles)))
        .unwrap()
}

fn bytes(n: usize) -> Vec<u8> {
    (0..n).map(|k| (k * 31 + k / 253) as u8).collect()
}

/// The destination of `plan` computed element by element: `src_at(idx)`
/// is the byte offset of element `idx` in `src`.
fn reference(dst_shape: &ArrayShape, src: &[u8], src_at: impl Fn(&[i64]) -> usize) -> Vec<u8> {
    let tb = TiledLayout::new(dst_shape).unwrap();
    let e = dst_shape.element_type().byte_width().unwrap() as usize;
    let mut out = vec![0u8; tb.byte_size() as usize];
    for idx in every_index(dst_shape.dimensions()) {
        let (s, d) = (src_at(&idx), tb.offset(&idx).unwrap() as usize * e);
        out[d..d + e].copy_from_slice(&src[s..s + e]);
    }
    out
}

/// `run` (and `run_parallel` on two threads) against [`reference`].
fn check_plan(plan: &Relayout, src: &[u8], expected: &[u8], what: &str) {
    let mut dst = vec![0xA5u8; plan.dst_byte_size()];
    plan.run(src, &mut dst).unwrap();
    assert!(dst == expected, "{what}");
    #[cfg(feature = "rayon")]
    {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let mut dst = vec![0xA5u8; plan.dst_byte_size()];
        pool.install(|| plan.run_parallel(src, &mut dst)).unwrap();
        assert!(dst == expected, "{what} (parallel)");
    }
}

/// `from` -> `to`, both layouts of the same array.
fn check(from: &ArrayShape, to: &ArrayShape) {
    let ta = TiledLayout::new(from).unwrap();
    let e = from.element_type().byte_width().unwrap() as usize;
    // A source whose padding (if any) is zero, as `relayout` writes it.
    let plain = ArrayShape::new(from.element_type(), from.dimensions().to_vec()).unwrap();
    let data = bytes(TiledLayout::new(&plain).unwrap().byte_size() as usize);
    let src = Relayout::new(&plain, from).unwrap();
    let mut a = vec![0u8; src.dst_byte_size()];
    src.run(&data, &mut a).unwrap();
    let expected = reference(to, &a, |idx| ta.offset(idx).unwrap() as usize * e);
    check_plan(
        &Relayout::new(from, to).unwrap(),
        &a,
        &expected,
        &format!("{from} -> {to}"),
    );
}

#[test]
fn transposes_of_every_element_size() {
    for t in [U8, S16, F32, F64, C128] {
        // Whole blocks for every size (64 x 64 bytes), ragged edges, and
        // rows a multiple of 4 KiB apart.
        for dims in [[128, 192], [67, 131], [200, 1024], [1024, 200], [33, 4096]] {
            check(
                &shape(t, &dims, &[1, 0], &[]),
                &shape(t, &dims, &[0, 1], &[]),
            );
        }
    }
}

#[test]
fn narrow_transposes() {
    for t in [U8, S16, F32, F64] {
        for c in [2, 3, 4, 5, 8] {
            let dims = [2, c, 9, 15];
            let nchw = shape(t, &dims, &[3, 2, 1, 0], &[]);
            let nhwc = shape(t, &dims, &[1, 3, 2, 0], &[]);
            check(&nchw, &nhwc);
            check(&nhwc, &nchw);
            let dims = [c, 300];
            check(
                &shape(t, &dims, &[1, 0], &[]),
                &shape(t, &dims, &[0, 1], &[]),
            );
            check(
                &shape(t, &dims, &[0, 1], &[]),
                &shape(t, &dims, &[1, 0], &[]),
            );
        }
    }
}

#[test]
fn untiling_tpu_layouts() {
    // XLA's TPU layouts: `T(8,128)(2,1)` for bf16, `T(8,128)` for f32,
    // whole tiles and padded ones, both ways.
    for dims in [[16, 256], [13, 300], [64, 1024]] {
        let bf16 = shape(Bf16, &dims, &[1, 0], &[&[8, 128], &[2, 1]]);
        let f32 = shape(F32, &dims, &[1, 0], &[&[8, 128]]);
        for tiled in [bf16, f32] {
            let plain = shape(tiled.element_type(), &dims, &[1, 0], &[]);
            check(&tiled, &plain);
            check(&plain, &tiled);
        }
    }
}

#[test]
fn strided_sources_through_the_fast_loops() {
    for t in [U8, S16, F32, F64] {
        let e = t.byte_width().unwrap();
        let (rows, cols) = (70i64, 150i64);
        // Column-major data read as a row-major array, with a gap of 3
        // elements after each column; and the same, rows reversed.
        let pitch = (rows + 3) * e;
        let data = bytes((cols * pitch) as usize);
        let dst_shape = shape(t, &[rows, cols], &[1, 0], &[]);
        for reversed in [false, true] {
            let (stride, offset) = if reversed {
                (-e, (rows - 1) * e)
            } else {
                (e, 0)
            };
            let view = StridedSource::new(t, [rows, cols], [stride, pitch])
                .unwrap()
                .with_byte_offset(offset as usize);
            let expected = reference(&dst_shape, &data, |idx| {
                (offset + idx[0] * stride + idx[1] * pitch) as usize
            });
            let plan = Relayout::from_strided(&view, &dst_shape).unwrap();
            check_plan(
                &plan,
                &data,
                &expected,
                &format!("{t:?} reversed {reversed}"),
            );
        }
    }
}

/// Copies large enough (1 MiB or more) for `run_parallel` to cut them
/// into pieces.
#[cfg(feature = "rayon")]
#[test]
fn parallel_copies_of_large_arrays() {
    check(
        &shape(F32, &[1024, 1024], &[1, 0], &[]),
        &shape(F32, &[1024, 1024], &[0, 1], &[]),
    );
    check(
        &shape(U8, &[1000, 1100], &[0, 1], &[]),
        &shape(U8, &[1000, 1100], &[1, 0], &[]),
    );
    // 2-byte source rows of 18,000 bytes: cut into four pieces of 4,500
    // bytes of each row, rather than eight.
    check(
        &shape(S16, &[120, 9000], &[1, 0], &[]),
        &shape(S16, &[120, 9000], &[0, 1], &[]),
    );
    let dims = [4, 3, 200, 256];
    check(
        &shape(F32, &dims, &[3, 2, 1, 0], &[]),
        &shape(F32, &dims, &[1, 3, 2, 0], &[]),
    );
    // Padded tiles: the destination's padding is zeroed in parallel too.
    check(
        &shape(Bf16, &[509, 1030], &[1, 0], &[]),
        &shape(Bf16, &[509, 1030], &[1, 0], &[&[8, 128], &[2, 1]]),
    );
    // Untiling a ragged array: the whole tiles and the partial tile of
    // each row of tiles, two boxes whose pieces of the same rows of tiles
    // go to one task.
    check(
        &shape(U8, &[1021, 1100], &[1, 0], &[&[8, 128]]),
        &shape(U8, &[1021, 1100], &[1, 0], &[]),
    );
    // A plain copy, cut into runs.
    check(
        &shape(S16, &[700, 1000], &[1, 0], &[]),
        &shape(S16, &[700, 1000], &[1, 0], &[]),
    );
}
