//! `relayout`: XLA:CPU's sub-byte packing reproduced, copies checked
//! against the element offsets of `tiling`, round trips, strided sources
//! and buffer checks.

use crate::common;

use crate::common::every_index;

use proptest::prelude::*;
use xla_shape::relayout::{Relayout, StridedSource, relayout, relayout_strided, relayout_to_vec};
use xla_shape::tiling::TiledLayout;
use xla_shape::{ArrayShape, ErrorKind, Layout, PrimitiveType, Tile};

const STAR: i64 = Tile::COMBINE_DIMENSION;

pub(crate) fn shape(t: PrimitiveType, dims: &[i64], layout: Layout) -> ArrayShape {
    ArrayShape::new(t, dims.to_vec())
        .unwrap()
        .with_layout(Some(layout))
        .unwrap()
}

fn tiles(ts: &[Vec<i64>]) -> Vec<Tile> {
    ts.iter().map(|t| Tile::new(t.clone()).unwrap()).collect()
}

/// The `bits`-bit element at slot `o` (little-end first packing).
fn read(buf: &[u8], o: i64, bits: i64) -> u128 {
    let mut v = 0u128;
    for k in 0..bits {
        let b = (o * bits + k) as usize;
        v |= u128::from((buf[b / 8] >> (b % 8)) & 1) << k;
    }
    v
}

#[test]
fn subbyte_packing_of_xla_cpu() {
    // index.jsonl `subbyte_packing`: u4 values given in row-major order,
    // the raw bytes XLA:CPU holds for the E(4) layout.
    let mut checked = 0;
    for r in common::records("index.jsonl") {
        if r["kind"] != "subbyte_packing" {
            continue;
        }
        let dims: Vec<i64> = serde_json::from_value(r["dims"].clone()).unwrap();
        let mtm: Vec<i64> = serde_json::from_value(r["minor_to_major"].clone()).unwrap();
        let values: Vec<u8> = serde_json::from_value(r["values_row_major"].clone()).unwrap();
        let expected = common::hex(r["raw_hex"].as_str().unwrap());
        // One byte per element, row-major (u4 without E(4)), as NumPy holds it.
        let unpacked = ArrayShape::new(PrimitiveType::U4, dims.clone()).unwrap();
        let packed = shape(
            PrimitiveType::U4,
            &dims,
            Layout::new(mtm).with_element_size_in_bits(4),
        );
        let raw = relayout_to_vec(&unpacked, &values, &packed).unwrap();
        assert_eq!(
            common::to_hex(&raw),
            common::to_hex(&expected),
            "{}",
            r["shape"]
        );
        // And back.
        assert_eq!(relayout_to_vec(&packed, &raw, &unpacked).unwrap(), values);
        // From a strided view of the same values.
        let strides: Vec<i64> = (0..dims.len())
            .map(|d| dims[d + 1..].iter().product())
            .collect();
        let view = StridedSource::new(PrimitiveType::U4, dims.clone(), strides).unwrap();
        let mut out = vec![0xee; raw.len()];
        relayout_strided(&view, &values, &packed, &mut out).unwrap();
        assert_eq!(out, expected);
        checked += 1;
    }
    assert_eq!(checked, 2);
}

#[test]
fn figure_1_untiled_and_tiled() {
    // Figure 1 of XLA's tiled-layout document: row-major 0..15 into F32[3,5]{1,0:T(2,2)}; slot 17
    // holds (2,3) = 13, slots 9, 11, 14, 15 are padding (zero).
    let plain = ArrayShape::new(PrimitiveType::F32, [3, 5]).unwrap();
    let tiled = shape(
        PrimitiveType::F32,
        &[3, 5],
        Layout::new([1, 0]).with_tiles(tiles(&[vec![2, 2]])),
    );
    let src: Vec<u8> = (0..15)
        .flat_map(|v: i32| (v as f32).to_le_bytes())
        .collect();
    let out = relayout_to_vec(&plain, &src, &tiled).unwrap();
    let at = |o: usize| f32::from_le_bytes(out[o * 4..o * 4 + 4].try_into().unwrap());
    let expected = [
        0., 1., 5., 6., 2., 3., 7., 8., 4., -0., 9., -0., 10., 11., -0., -0., 12., 13., -0., -0.,
        14., -0., -0., -0.,
    ];
    for (o, &e) in expected.iter().enumerate() {
        if e == -0. {
            assert_eq!(out[o * 4..o * 4 + 4], [0; 4], "padding slot {o}");
        } else {
            assert_eq!(at(o), e, "slot {o}");
        }
    }
    assert_eq!(relayout_to_vec(&tiled, &out, &plain).unwrap(), src);
}

#[test]
fn buffer_sizes_are_checked() {
    let a = ArrayShape::new(PrimitiveType::F32, [2, 3]).unwrap();
    let b = shape(PrimitiveType::F32, &[2, 3], Layout::new([0, 1]));
    let mut dst = [0u8; 24];
    let e = relayout(&a, &[0; 23], &b, &mut dst).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::BufferSize);
    assert_eq!(
        e.to_string(),
        "source buffer has 23 bytes but f32[2,3]{1,0} takes 24 bytes"
    );
    let e = relayout(&a, &[0; 24], &b, &mut [0; 25]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::BufferSize);
    let c = ArrayShape::new(PrimitiveType::F32, [3, 2]).unwrap();
    assert_eq!(
        Relayout::new(&a, &c).unwrap_err().kind(),
        ErrorKind::InvalidArgument
    );
    let d = ArrayShape::new(PrimitiveType::S32, [2, 3]).unwrap();
    assert_eq!(
        Relayout::new(&a, &d).unwrap_err().kind(),
        ErrorKind::InvalidArgument
    );
}

#[test]
fn strided_sources() {
    let dst_shape = ArrayShape::new(PrimitiveType::U16, [2, 3]).unwrap();
    let src: Vec<u8> = (1..=6u16).flat_map(u16::to_le_bytes).collect();
    let mut dst = [0u8; 12];
    // NumPy a.T of a 3x2 u16 array [[1,2],[3,4],[5,6]]: strides (2, 4).
    let view = StridedSource::new(PrimitiveType::U16, [2, 3], [2, 4]).unwrap();
    relayout_strided(&view, &src, &dst_shape, &mut dst).unwrap();
    let got: Vec<u16> = dst
        .chunks(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect();
    assert_eq!(got, [1, 3, 5, 2, 4, 6]);
    // Broadcast: a zero stride repeats row [1,2,3].
    let view = StridedSource::new(PrimitiveType::U16, [2, 3], [0, 2]).unwrap();
    relayout_strided(&view, &src, &dst_shape, &mut dst).unwrap();
    let got: Vec<u16> = dst
        .chunks(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect();
    assert_eq!(got, [1, 2, 3, 1, 2, 3]);
    // Both strides negative: a[::-1, ::-1] of [[1,2,3],[4,5,6]] starts at
    // the last element (byte 10).
    let view = StridedSource::new(PrimitiveType::U16, [2, 3], [-6, -2])
        .unwrap()
        .with_byte_offset(10);
    relayout_strided(&view, &src, &dst_shape, &mut dst).unwrap();
    let got: Vec<u16> = dst
        .chunks(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect();
    assert_eq!(got, [6, 5, 4, 3, 2, 1]);
    // Reaching before the buffer, or past its end, is an error.
    let view = StridedSource::new(PrimitiveType::U16, [2, 3], [-6, -2]).unwrap();
    assert_eq!(
        Relayout::from_strided(&view, &dst_shape)
            .unwrap_err()
            .kind(),
        ErrorKind::InvalidArgument
    );
    let view = StridedSource::new(PrimitiveType::U16, [2, 3], [8, 2]).unwrap();
    let e = relayout_strided(&view, &src, &dst_shape, &mut dst).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::BufferSize);
    assert!(StridedSource::new(PrimitiveType::U16, [2, 3], [2]).is_err());
    assert!(StridedSource::new(PrimitiveType::Token, [], []).is_err());
}

/// Element `e` of a row-major array of `bits`-bit elements, for tests: a
/// pattern that differs between neighbours and never is all zeros.
fn pattern(n: i64, bits: i64) -> Vec<u8> {
    let bytes = ((n * bits + 7) / 8) as usize;
    (0..bytes)
        .map(|k| (k as u8).wrapping_mul(37).wrapping_add(11) | 1)
        .collect()
}

/// Copies checked element by element against `tiling` offsets.
fn check_against_offsets(t: PrimitiveType, dims: &[i64], from: &Layout, to: &Layout) {
    let a = shape(t, dims, from.clone());
    let b = shape(t, dims, to.clone());
    let (ta, tb) = (TiledLayout::new(&a).unwrap(), TiledLayout::new(&b).unwrap());
    let (ba, bb) = (ta.element_size_in_bits(), tb.element_size_in_bits());
    // A source with zero padding: row-major data relaid into `a`.
    let plain = ArrayShape::new(t, dims.to_vec()).unwrap();
    let plain_bits = TiledLayout::new(&plain).unwrap().element_size_in_bits();
    let mut data = pattern(ta.element_count(), plain_bits);
    // Valid values of a sub-byte type stored a byte each.
    let width = t.bit_width().unwrap();
    if width < 8 {
        data.iter_mut().for_each(|v| *v &= (1 << width) - 1);
    }
    let src = relayout_to_vec(&plain, &data, &a).unwrap();
    let out = relayout_to_vec(&a, &src, &b).unwrap();
    let mask = if ba.min(bb) >= 128 {
        u128::MAX
    } else {
        (1u128 << ba.min(bb)) - 1
    };
    let mut used = vec![false; tb.slot_count() as usize];
    for idx in every_index(dims) {
        let (oa, ob) = (ta.offset(&idx).unwrap(), tb.offset(&idx).unwrap());
        assert_eq!(
            read(&out, ob, bb) & mask,
            read(&src, oa, ba) & mask,
            "{a} -> {b} at {idx:?}"
        );
        used[ob as usize] = true;
    }
    for (o, u) in used.iter().enumerate() {
        if !u {
            assert_eq!(read(&out, o as i64, bb), 0, "{b}: padding slot {o}");
        }
    }
    // And back: the source bytes exactly (its padding is zero).
    assert_eq!(
        relayout_to_vec(&b, &out, &a).unwrap(),
        src,
        "{a} -> {b} -> {a}"
    );
}

#[test]
fn staged_transposes_with_partial_blocks() {
    // Sizes that are not multiples of the 64 (or 32) element blocks.
    for t in [
        PrimitiveType::U8,
        PrimitiveType::F16,
        PrimitiveType::F32,
        PrimitiveType::F64,
        PrimitiveType::C128,
    ] {
        check_against_offsets(t, &[70, 133], &Layout::new([1, 0]), &Layout::new([0, 1]));
        check_against_offsets(
            t,
            &[3, 67, 5],
            &Layout::new([2, 1, 0]),
            &Layout::new([1, 0, 2]),
        );
    }
    // 3-byte elements through E(24).
    let e24 = |mtm: [i64; 2]| Layout::new(mtm).with_element_size_in_bits(24);
    check_against_offsets(PrimitiveType::S32, &[5, 9], &e24([1, 0]), &e24([0, 1]));
}

/// Relays `src` from `from` into `to` into a buffer at byte `offset` of a
/// larger one filled with 0xA5, checks that no byte around it changed and
/// returns the destination bytes.
fn relayout_at(from: &ArrayShape, src: &[u8], to: &ArrayShape, offset: usize) -> Vec<u8> {
    let plan = Relayout::new(from, to).unwrap();
    let size = plan.dst_byte_size();
    let mut buf = vec![0xA5u8; offset + size + 64];
    plan.run(src, &mut buf[offset..offset + size]).unwrap();
    assert!(
        buf[..offset].iter().all(|&b| b == 0xA5),
        "{to}: bytes before"
    );
    assert!(
        buf[offset + size..].iter().all(|&b| b == 0xA5),
        "{to}: bytes after"
    );
    buf[offset..offset + size].to_vec()
}

fn u32s(b: &[u8]) -> Vec<u32> {
    b.chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[test]
fn large_transposes_of_four_byte_elements() {
    // Destinations of more than 8 MiB are written with non-temporal stores
    // (whole 64-byte lines; with AVX where the CPU has it), here starting
    // on a line, 16 and 52 bytes past one, and at an odd byte (no
    // streaming then); the sizes leave ragged edges for the 16 x 16 and
    // 4 x 4 blocks and the staged copy.
    let (rows, cols) = (2051i64, 1029i64);
    let src: Vec<u8> = (0..(rows * cols) as u32)
        .flat_map(u32::to_le_bytes)
        .collect();
    let a = shape(PrimitiveType::F32, &[rows, cols], Layout::new([1, 0]));
    let b = shape(PrimitiveType::F32, &[rows, cols], Layout::new([0, 1]));
    for offset in [0, 16, 52, 1] {
        let out = u32s(&relayout_at(&a, &src, &b, offset));
        for (k, &v) in out.iter().enumerate() {
            let (c, r) = (k as i64 / rows, k as i64 % rows);
            assert_eq!(v, (r * cols + c) as u32, "offset {offset}: ({r},{c})");
        }
    }
    // NCHW <-> NHWC, 64 channels: destination rows 256 bytes apart, each
    // starting 16 bytes past a line when the buffer does.
    let dims = [2i64, 64, 128, 130];
    let (n, c, hw) = (dims[0], dims[1], dims[2] * dims[3]);
    let src: Vec<u8> = (0..(n * c * hw) as u32)
        .flat_map(u32::to_le_bytes)
        .collect();
    let nchw = shape(PrimitiveType::F32, &dims, Layout::new([3, 2, 1, 0]));
    let nhwc = shape(PrimitiveType::F32, &dims, Layout::new([1, 3, 2, 0]));
    for offset in [0, 16] {
        let out = relayout_at(&nchw, &src, &nhwc, offset);
        let values = u32s(&out);
        for (k, &v) in values.iter().enumerate() {
            let k = k as i64;
            let (img, p, ch) = (k / (hw * c), k / c % hw, k % c);
            assert_eq!(v, ((img * c + ch) * hw + p) as u32, "offset {offset}: {k}");
        }
        assert_eq!(relayout_at(&nhwc, &out, &nchw, offset), src);
    }
}

#[test]
fn cached_transposes_of_four_byte_elements() {
    // Smaller destinations: the 16 x 16 blocks in destination order, and
    // destination rows 4 KiB apart (staged instead).
    for (rows, cols, offset) in [(300i64, 700i64, 0usize), (77, 530, 4), (1024, 40, 16)] {
        let src: Vec<u8> = (0..(rows * cols) as u32)
            .flat_map(u32::to_le_bytes)
            .collect();
        let a = shape(PrimitiveType::S32, &[rows, cols], Layout::new([1, 0]));
        let b = shape(PrimitiveType::S32, &[rows, cols], Layout::new([0, 1]));
        let out = relayout_at(&a, &src, &b, offset);
        for (k, &v) in u32s(&out).iter().enumerate() {
            let (c, r) = (k as i64 / rows, k as i64 % rows);
            assert_eq!(v, (r * cols + c) as u32, "{rows}x{cols}: ({r},{c})");
        }
        assert_eq!(relayout_at(&b, &out, &a, offset), src);
    }
}

#[test]
fn layouts_that_need_per_element_offsets() {
    // XLA's tiled-layout document's combined dimensions: (11,10) merged then split by 3.
    let star = Layout::new([4, 3, 2, 1, 0]).with_tiles(tiles(&[vec![STAR, STAR, 2, STAR, 3]]));
    check_against_offsets(
        PrimitiveType::F32,
        &[2, 7, 8, 11, 10],
        &Layout::new([4, 3, 2, 1, 0]),
        &star,
    );
    // A tile of 8 split again by 3, and tiles of 8 vs 3 on the same dim.
    let t83 = Layout::new([0]).with_tiles(tiles(&[vec![8], vec![3]]));
    check_against_offsets(PrimitiveType::U8, &[29], &Layout::new([0]), &t83);
    let t3 = Layout::new([0]).with_tiles(tiles(&[vec![3]]));
    let t8 = Layout::new([0]).with_tiles(tiles(&[vec![8]]));
    check_against_offsets(PrimitiveType::U8, &[20], &t3, &t8);
}

pub(crate) fn layout_strategy(rank: usize) -> impl Strategy<Value = Layout> {
    (
        Just((0..rank as i64).collect::<Vec<_>>()).prop_shuffle(),
        prop::collection::vec(
            prop::collection::vec(prop_oneof![5 => 1i64..=4, 1 => Just(STAR)], 1..=rank + 1),
            0..=2,
        ),
        prop_oneof![3 => Just(1i64), 1 => 1i64..=5],
        prop_oneof![2 => Just(0i64), 1 => Just(4i64)],
    )
        .prop_map(|(mtm, mut ts, align, bits)| {
            for t in &mut ts {
                if let Some(last) = t.last_mut()
                    && *last == STAR
                {
                    *last = 2;
                }
            }
            Layout::new(mtm)
                .with_tiles(tiles(&ts))
                .with_tail_padding_alignment_in_elements(align)
                .unwrap()
                .with_element_size_in_bits(bits)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// A -> B -> A is the identity, and row-major -> L puts element e at
    /// `tiling` offset(e) of L (both in `check_against_offsets`).
    #[test]
    fn relayout_round_trips_and_matches_offsets(
        (dims, a, b, t) in (1usize..=4).prop_flat_map(|rank| (
            prop::collection::vec(0i64..=7, rank),
            layout_strategy(rank),
            layout_strategy(rank),
            prop_oneof![Just(PrimitiveType::U4), Just(PrimitiveType::S8), Just(PrimitiveType::F32), Just(PrimitiveType::F64)],
        ))
    ) {
        // E(4) only where the type is 4 bits wide.
        let fix = |l: Layout| if t == PrimitiveType::U4 { l } else { l.with_element_size_in_bits(0) };
        let row_major = Layout::new((0..dims.len() as i64).rev().collect::<Vec<_>>());
        check_against_offsets(t, &dims, &row_major, &fix(a.clone()));
        check_against_offsets(t, &dims, &fix(a), &fix(b));
    }
}
