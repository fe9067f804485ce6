//! Small relayouts through every copy loop, including the `unsafe` SSE
//! transpose: `cargo +nightly miri test --test relayout_miri`.

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
