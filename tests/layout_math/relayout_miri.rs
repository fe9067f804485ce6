//! Small relayouts through every copy loop, including the `unsafe` SSE
//! transposes (the staged squares, the direct blocks of 1-, 2-, 4- and
//! 8-byte elements and their edges, the narrow transposes and the bf16
//! pair split; under Miri the AVX blocks and
//! non-temporal stores are never used, see `tests/layout_math/relayout.rs`
//! for those), and XLA's TPU tilings of every width at small sizes
//! (`relayout_tilings.rs` has the whole set):
//! `cargo +nightly miri test --test layout_math relayout_miri::`. The
//! copies only a large destination takes (streamed, and the u8 untilings
//! through a stage) are checked at small sizes by the library's unit
//! tests, which ask for them directly:
//! `cargo +nightly miri test --lib relayout::kernel::staged`.

use xla_shape::relayout::{StridedSource, relayout_strided, relayout_to_vec};
use xla_shape::{ArrayShape, Layout, PrimitiveType, Tile};

fn shape(t: PrimitiveType, dims: &[i64], layout: Layout) -> ArrayShape {
    ArrayShape::new(t, dims.to_vec())
        .unwrap()
        .with_layout(Some(layout))
        .unwrap()
}

fn u32s(b: &[u8]) -> Vec<u32> {
    b.chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[test]
fn transpose_of_four_byte_elements() {
    // [9,70] row-major -> column-major: out[c*9 + r] = r*70 + c; the blocks
    // are 64 wide, so both full 4x4 squares and ragged edges are copied.
    let (rows, cols) = (9i64, 70i64);
    let src: Vec<u8> = (0..(rows * cols) as u32)
        .flat_map(u32::to_le_bytes)
        .collect();
    let a = shape(PrimitiveType::F32, &[rows, cols], Layout::new([1, 0]));
    let b = shape(PrimitiveType::F32, &[rows, cols], Layout::new([0, 1]));
    let out = u32s(&relayout_to_vec(&a, &src, &b).unwrap());
    for r in 0..rows {
        for c in 0..cols {
            assert_eq!(out[(c * rows + r) as usize], (r * cols + c) as u32);
        }
    }
    // And back, through the transposes the other way.
    assert_eq!(
        relayout_to_vec(&b, &relayout_to_vec(&a, &src, &b).unwrap(), &a).unwrap(),
        src
    );
}

#[test]
fn transpose_of_other_sizes_and_runs() {
    for t in [
        PrimitiveType::U8,
        PrimitiveType::S16,
        PrimitiveType::F64,
        PrimitiveType::C128,
    ] {
        let e = t.byte_width().unwrap() as usize;
        let src: Vec<u8> = (0..5 * 6 * e).map(|k| k as u8).collect();
        let a = shape(t, &[5, 6], Layout::new([1, 0]));
        let b = shape(t, &[5, 6], Layout::new([0, 1]));
        let out = relayout_to_vec(&a, &src, &b).unwrap();
        for r in 0..5 {
            for c in 0..6 {
                let (s, d) = ((r * 6 + c) * e, (c * 5 + r) * e);
                assert_eq!(out[d..d + e], src[s..s + e]);
            }
        }
    }
    // Untiling (2,4) tiles: runs of 4 elements.
    let tiled = shape(
        PrimitiveType::S32,
        &[4, 8],
        Layout::new([1, 0]).with_tiles(vec![Tile::new([2, 4]).unwrap()]),
    );
    let plain = shape(PrimitiveType::S32, &[4, 8], Layout::new([1, 0]));
    let src: Vec<u8> = (0..32u32).flat_map(u32::to_le_bytes).collect();
    let back = relayout_to_vec(
        &tiled,
        &relayout_to_vec(&plain, &src, &tiled).unwrap(),
        &plain,
    );
    assert_eq!(back.unwrap(), src);
}

#[test]
fn strided_and_packed() {
    let src: Vec<u8> = (0..12u32).flat_map(u32::to_le_bytes).collect();
    // A 3x4 u32 view read transposed (4x3, strides 4 and 16 bytes).
    let view = StridedSource::new(PrimitiveType::U32, [4, 3], [4, 16]).unwrap();
    let dst_shape = ArrayShape::new(PrimitiveType::U32, [4, 3]).unwrap();
    let mut dst = vec![0u8; 48];
    relayout_strided(&view, &src, &dst_shape, &mut dst).unwrap();
    assert_eq!(u32s(&dst), [0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11]);
    // u4 packing: 0..9 row-major into {0,1:E(4)} (index.jsonl's
    // u4[3,3]{0,1:E(4)}: 30 16 74 52 08).
    let vals: Vec<u8> = (0..9).collect();
    let unpacked = ArrayShape::new(PrimitiveType::U4, [3, 3]).unwrap();
    let packed = shape(
        PrimitiveType::U4,
        &[3, 3],
        Layout::new([0, 1]).with_element_size_in_bits(4),
    );
    assert_eq!(
        relayout_to_vec(&unpacked, &vals, &packed).unwrap(),
        [0x30, 0x16, 0x74, 0x52, 0x08]
    );
}

/// Checks `out` (the transpose of `rows x cols` 4-byte elements whose
/// source holds their row-major positions) element by element.
fn check_transposed(out: &[u8], rows: i64, cols: i64) {
    let out = u32s(out);
    for r in 0..rows {
        for c in 0..cols {
            assert_eq!(
                out[(c * rows + r) as usize],
                (r * cols + c) as u32,
                "({r},{c})"
            );
        }
    }
}

#[test]
fn direct_transposes_of_four_byte_elements() {
    // At least 16 x 16 and ragged both ways: 16 x 16 blocks, 4 x 4 blocks
    // on the edges, and fewer than 4 rows or columns staged.
    for (rows, cols) in [(37i64, 53i64), (53, 37), (16, 16), (18, 35)] {
        let src: Vec<u8> = (0..(rows * cols) as u32)
            .flat_map(u32::to_le_bytes)
            .collect();
        let a = shape(PrimitiveType::F32, &[rows, cols], Layout::new([1, 0]));
        let b = shape(PrimitiveType::F32, &[rows, cols], Layout::new([0, 1]));
        let out = relayout_to_vec(&a, &src, &b).unwrap();
        check_transposed(&out, rows, cols);
        assert_eq!(relayout_to_vec(&b, &out, &a).unwrap(), src);
    }
    // NCHW -> NHWC with 20 channels: per image a 20 x 18 transpose.
    let (n, c, hw) = (2i64, 20i64, 18i64);
    let src: Vec<u8> = (0..(n * c * hw) as u32)
        .flat_map(u32::to_le_bytes)
        .collect();
    let nchw = shape(PrimitiveType::S32, &[n, c, 3, 6], Layout::new([3, 2, 1, 0]));
    let nhwc = shape(PrimitiveType::S32, &[n, c, 3, 6], Layout::new([1, 3, 2, 0]));
    let out = relayout_to_vec(&nchw, &src, &nhwc).unwrap();
    let values = u32s(&out);
    for img in 0..n {
        for ch in 0..c {
            for p in 0..hw {
                let at = ((img * hw + p) * c + ch) as usize;
                assert_eq!(values[at], ((img * c + ch) * hw + p) as u32);
            }
        }
    }
    assert_eq!(relayout_to_vec(&nhwc, &out, &nchw).unwrap(), src);
}

#[test]
fn direct_transpose_from_a_reversed_view() {
    // NumPy's a[::-1] of a 20 x 24 u32 array a (strides -96 and 4 bytes)
    // into column-major order: a transpose whose source rows run
    // backwards.
    let (rows, cols) = (20i64, 24i64);
    let src: Vec<u8> = (0..(rows * cols) as u32)
        .flat_map(u32::to_le_bytes)
        .collect();
    let view = StridedSource::new(PrimitiveType::U32, [rows, cols], [-4 * cols, 4])
        .unwrap()
        .with_byte_offset((4 * cols * (rows - 1)) as usize);
    let col_major = shape(PrimitiveType::U32, &[rows, cols], Layout::new([0, 1]));
    let mut dst = vec![0u8; src.len()];
    relayout_strided(&view, &src, &col_major, &mut dst).unwrap();
    // Element (i, j) of the view, a[rows - 1 - i][j], is at j*rows + i.
    let out = u32s(&dst);
    for i in 0..rows {
        for j in 0..cols {
            assert_eq!(
                out[(j * rows + i) as usize],
                ((rows - 1 - i) * cols + j) as u32,
                "({i},{j})"
            );
        }
    }
}

/// The direct SSE2 blocks of 1-, 2- and 8-byte elements, their edges and
/// the narrow transposes (a few planes), each against its definition.
#[test]
fn direct_and_narrow_transposes_of_other_sizes() {
    for (t, rows, cols) in [
        (PrimitiveType::U8, 66, 65),
        (PrimitiveType::S16, 35, 33),
        (PrimitiveType::F64, 9, 11),
        (PrimitiveType::F32, 3, 40),
        (PrimitiveType::S16, 40, 2),
        (PrimitiveType::U8, 5, 70),
    ] {
        let e = t.byte_width().unwrap() as usize;
        let (r, c) = (rows as usize, cols as usize);
        let src: Vec<u8> = (0..r * c * e).map(|k| (k * 13 + k / 256) as u8).collect();
        let a = shape(t, &[rows, cols], Layout::new([1, 0]));
        let b = shape(t, &[rows, cols], Layout::new([0, 1]));
        let out = relayout_to_vec(&a, &src, &b).unwrap();
        for i in 0..r {
            for j in 0..c {
                let (at, from) = ((j * r + i) * e, (i * c + j) * e);
                assert_eq!(out[at..at + e], src[from..from + e], "{t:?} ({i},{j})");
            }
        }
    }
    // bf16 in `(2,1)` sub-tiles: the pairs split with SSE2 (or AVX2 in a
    // build for it); two rows of two tiles, so that one call copies the
    // tiles of a row of tiles and the pairs of rows in each, the source
    // read in order.
    let tiled = shape(
        PrimitiveType::Bf16,
        &[16, 256],
        Layout::new([1, 0]).with_tiles(vec![
            Tile::new([8, 128]).unwrap(),
            Tile::new([2, 1]).unwrap(),
        ]),
    );
    let plain = shape(PrimitiveType::Bf16, &[16, 256], Layout::new([1, 0]));
    let src: Vec<u8> = (0..16 * 256 * 2).map(|k| (k * 7 + k / 256) as u8).collect();
    let out = relayout_to_vec(&tiled, &src, &plain).unwrap();
    for i in 0..16 {
        for j in 0..256 {
            // Tile (i/8, j/128), 1024 elements each, two to a row of
            // tiles; slot of (i, j) in it: row pair (i%8)/2, column
            // j%128, then i%2.
            let tile = (i / 8) * 2 + j / 128;
            let slot = tile * 1024 + (((i % 8) / 2) * 128 + j % 128) * 2 + i % 2;
            let at = (i * 256 + j) * 2;
            assert_eq!(out[at..at + 2], src[slot * 2..slot * 2 + 2], "({i},{j})");
        }
    }
}

/// Tiling and untiling in every tiling of issue 32 for each element width
/// and the sub-byte packings, on one of google/tpu-sync#665's shapes
/// (ragged in both dimensions, a tile and two columns wide), at unaligned
/// addresses: the copies XLA's TPU layouts take, under Miri.
#[test]
fn xla_tilings_of_every_width() {
    use crate::relayout_tilings::{SKEWS, SUB_BYTE, TILINGS, check_tiling};
    for t in [
        PrimitiveType::U8,
        PrimitiveType::Bf16,
        PrimitiveType::F32,
        PrimitiveType::F64,
    ] {
        for tiling in TILINGS {
            check_tiling(
                t,
                8 * t.byte_width().unwrap(),
                [10, 130],
                tiling,
                &SKEWS[1..2],
            );
        }
    }
    for (t, bits, tiling) in SUB_BYTE {
        check_tiling(t, bits, [10, 130], tiling, &SKEWS[1..2]);
    }
}
