//! `tiling`: the figures of XLA's tiled-layout document and examples
//! worked by hand from its rules, the memory orders XLA:CPU
//! reports in `index.jsonl`, agreement with XLA's first-tile-only
//! `LayoutUtil::LinearIndex` (xla/layout_util.cc) for a single tile, and round trips.

use crate::common;

use crate::common::every_index;

use proptest::prelude::*;
use xla_shape::tiling::{Slot, TiledLayout};
use xla_shape::{ArrayShape, ErrorKind, Layout, PrimitiveType, Tile};

const STAR: i64 = Tile::COMBINE_DIMENSION;

fn shape(t: PrimitiveType, dims: &[i64], layout: Layout) -> ArrayShape {
    ArrayShape::new(t, dims.to_vec())
        .unwrap()
        .with_layout(Some(layout))
        .unwrap()
}

fn tiles(ts: &[&[i64]]) -> Vec<Tile> {
    ts.iter().map(|t| Tile::new(t).unwrap()).collect()
}

fn tiled(dims: &[i64], mtm: &[i64], ts: &[&[i64]]) -> TiledLayout {
    let l = Layout::new(mtm.to_vec()).with_tiles(tiles(ts));
    TiledLayout::new(&shape(PrimitiveType::F32, dims, l)).unwrap()
}

#[test]
fn figure_1_memory_order() {
    // Figure 1 of XLA's tiled-layout document: F32[3,5]{1,0:T(2,2)}, 24 slots, `_` = padding.
    let t = tiled(&[3, 5], &[1, 0], &[&[2, 2]]);
    let order = "(0,0) (0,1) (1,0) (1,1) (0,2) (0,3) (1,2) (1,3) (0,4) _ (1,4) _ \
                 (2,0) (2,1) _ _ (2,2) (2,3) _ _ (2,4) _ _ _";
    let slots: Vec<&str> = order.split_whitespace().collect();
    assert_eq!(t.slot_count(), 24);
    assert_eq!(slots.len(), 24);
    for (p, s) in slots.iter().enumerate() {
        let expected = if *s == "_" {
            Slot::Padding
        } else {
            let (a, b) = s
                .trim_matches(|c| c == '(' || c == ')')
                .split_once(',')
                .unwrap();
            let idx = vec![a.parse().unwrap(), b.parse().unwrap()];
            assert_eq!(t.offset(&idx).unwrap(), p as i64);
            Slot::Element(idx)
        };
        assert_eq!(t.slot(p as i64).unwrap(), expected, "slot {p}");
    }
    // (2,3): tile (1,1) of grid (2,3), within (0,1): (1*3+1)*2*2 + 1 = 17.
    assert_eq!(t.offset(&[2, 3]).unwrap(), 17);
    // ArraySize = 24 * 4 = 96 bytes; the 15 elements alone 60.
    assert_eq!(t.byte_size(), 96);
    assert_eq!(t.unpadded_byte_size(), 60);
    assert_eq!(t.padding_byte_size(), 36);
    assert_eq!(t.physical_shape(), [2, 3, 2, 2]);
}

#[test]
fn figure_2_offsets() {
    // Figure 2 of XLA's tiled-layout document: F32[4,8]{1,0:T(2,4)(2,1)}, offset of (row, col).
    let t = tiled(&[4, 8], &[1, 0], &[&[2, 4], &[2, 1]]);
    let table = [
        [0, 2, 4, 6, 8, 10, 12, 14],
        [1, 3, 5, 7, 9, 11, 13, 15],
        [16, 18, 20, 22, 24, 26, 28, 30],
        [17, 19, 21, 23, 25, 27, 29, 31],
    ];
    for (r, row) in table.iter().enumerate() {
        for (c, &o) in row.iter().enumerate() {
            let idx = vec![r as i64, c as i64];
            assert_eq!(t.offset(&idx).unwrap(), o, "({r},{c})");
            assert_eq!(t.slot(o).unwrap(), Slot::Element(idx));
        }
    }
    assert!(!t.has_padding());
    assert_eq!(t.byte_size(), 128);
}

#[test]
fn combined_dimensions() {
    // Combined dimensions, worked by hand: F32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)} is F32[112,110]
    // tiled (2,3): 56*37*6 = 12432 slots; (1,6,7,10,9) -> (111,109) ->
    // tile (55,36), within (1,1) -> (55*37+36)*6 + 1*3 + 1 = 12430.
    let t = tiled(
        &[2, 7, 8, 11, 10],
        &[4, 3, 2, 1, 0],
        &[&[STAR, STAR, 2, STAR, 3]],
    );
    assert_eq!(t.physical_shape(), [56, 37, 2, 3]);
    assert_eq!(t.tiled_element_count(), 12432);
    assert_eq!(t.offset(&[1, 6, 7, 10, 9]).unwrap(), 12430);
    assert_eq!(t.slot(12430).unwrap(), Slot::Element(vec![1, 6, 7, 10, 9]));
    // Slot 12431 is column 110 of the merged (110-wide) dimension: padding.
    assert_eq!(t.slot(12431).unwrap(), Slot::Padding);

    // Combined dimensions, worked by hand: bf16[2,3,1004]{2,1,0:T(2,*,128)} is (2, 3012) tiled (2,128):
    // 1*24*256 = 6144 slots; (1,2,1003) -> column 3011 -> tile (0,23),
    // within (1,67) -> 23*256 + 128 + 67 = 6083.
    let l = Layout::new([2, 1, 0]).with_tiles(tiles(&[&[2, STAR, 128]]));
    let t = TiledLayout::new(&shape(PrimitiveType::Bf16, &[2, 3, 1004], l)).unwrap();
    assert_eq!(t.physical_shape(), [1, 24, 2, 128]);
    assert_eq!(t.tiled_element_count(), 6144);
    assert_eq!(t.offset(&[1, 2, 1003]).unwrap(), 6083);
    assert_eq!(t.byte_size(), 6144 * 2);
}

#[test]
fn s4_with_element_size() {
    // xla/shape_util_test.cc's sub-byte tiled case: S4[9216,6144]{1,0:T(64,128)(8,1)E(4)}:
    // ArraySize = 9216*6144/2 = 28,311,552 bytes.
    let l = Layout::new([1, 0])
        .with_tiles(tiles(&[&[64, 128], &[8, 1]]))
        .with_element_size_in_bits(4);
    let t = TiledLayout::new(&shape(PrimitiveType::S4, &[9216, 6144], l)).unwrap();
    assert_eq!(t.byte_size(), 28_311_552);
    assert_eq!(t.unpadded_byte_size(), 28_311_552);
    assert_eq!(t.element_size_in_bits(), 4);
    // Without E(4) an s4 takes a byte (`ShapeUtil::ElementSizeInBits`).
    let t = TiledLayout::new(&ArrayShape::new(PrimitiveType::S4, [3]).unwrap()).unwrap();
    assert_eq!((t.element_size_in_bits(), t.byte_size()), (8, 3));
}

#[test]
fn tiles_longer_than_the_rank_and_tail_padding() {
    // Ranks that differ (XLA's tiled-layout document): f32[3]{0:T(8,128)} occupies 8*128 = 1024 elements.
    let t = tiled(&[3], &[0], &[&[8, 128]]);
    assert_eq!(t.physical_shape(), [1, 1, 8, 128]);
    assert_eq!((t.slot_count(), t.byte_size()), (1024, 4096));
    assert_eq!(t.slot(2).unwrap(), Slot::Element(vec![2]));
    // Slot 129 is row 1 of the tile, which the leading size-1 dimension
    // does not reach.
    assert_eq!(t.slot(129).unwrap(), Slot::Padding);

    // Tail padding: L(8) rounds f32[5] up to 8 slots, 32 bytes.
    let l = Layout::new([0])
        .with_tail_padding_alignment_in_elements(8)
        .unwrap();
    let t = TiledLayout::new(&shape(PrimitiveType::F32, &[5], l)).unwrap();
    assert_eq!(
        (t.tiled_element_count(), t.slot_count(), t.byte_size()),
        (5, 8, 32)
    );
    assert_eq!(t.slot(4).unwrap(), Slot::Element(vec![4]));
    assert_eq!(t.slot(5).unwrap(), Slot::Padding);
    // u4 E(4) with 3 elements: 12 bits, 2 bytes.
    let l = Layout::new([0]).with_element_size_in_bits(4);
    let t = TiledLayout::new(&shape(PrimitiveType::U4, &[3], l)).unwrap();
    assert_eq!((t.byte_size(), t.unpadded_byte_size()), (2, 2));
}

#[test]
fn index_jsonl_memory_orders() {
    // memory_order[p] is the row-major linear index of the element XLA:CPU
    // stores at position p.
    let mut checked = 0;
    for r in common::records("index.jsonl") {
        let dims: Vec<i64> = serde_json::from_value(r["dims"].clone()).unwrap();
        let mtm: Vec<i64> = serde_json::from_value(r["minor_to_major"].clone()).unwrap();
        let size = r["on_device_size_in_bytes"].as_i64().unwrap();
        match r["kind"].as_str().unwrap() {
            "index" => {
                let order: Vec<i64> = serde_json::from_value(r["memory_order"].clone()).unwrap();
                let t =
                    TiledLayout::new(&shape(PrimitiveType::S32, &dims, Layout::new(mtm))).unwrap();
                assert_eq!(t.slot_count(), order.len() as i64, "{}", r["shape"]);
                assert_eq!(t.byte_size(), size);
                for (p, &linear) in order.iter().enumerate() {
                    let Slot::Element(idx) = t.slot(p as i64).unwrap() else {
                        panic!("{}: slot {p} is padding", r["shape"]);
                    };
                    let row_major = idx.iter().zip(&dims).fold(0, |acc, (&i, &d)| acc * d + i);
                    assert_eq!(row_major, linear, "{}: slot {p}", r["shape"]);
                    assert_eq!(t.offset(&idx).unwrap(), p as i64);
                }
                checked += 1;
            }
            "subbyte_packing" => {
                let l = Layout::new(mtm).with_element_size_in_bits(4);
                let t = TiledLayout::new(&shape(PrimitiveType::U4, &dims, l)).unwrap();
                assert_eq!(t.byte_size(), size, "{}", r["shape"]);
            }
            other => panic!("unknown record kind {other}"),
        }
    }
    assert!(checked >= 70, "only {checked} records");
}

/// XLA's `LayoutUtil::LinearIndex` (xla/layout_util.cc): only the first tile, tiles
/// ignored for rank 1, bounds beyond the rank ignored, truncating division.
fn first_tile_linear_index(dims: &[i64], mtm: &[i64], tile: &[i64], index: &[i64]) -> i64 {
    let n = dims.len();
    if n == 0 {
        return 0;
    }
    if n == 1 {
        return index[0];
    }
    let k = tile.len();
    let mut lin = 0;
    let mut tile_mult: i64 = tile.iter().product();
    let mut within = 1;
    for p in 0..n {
        let d = mtm[p] as usize;
        let (size, i) = (dims[d], index[d]);
        if p < k {
            let td = tile[k - 1 - p];
            lin += tile_mult * (i / td) + within * (i % td);
            tile_mult *= (size + td - 1) / td;
            within *= td;
        } else {
            lin += i * tile_mult;
            tile_mult *= size;
        }
    }
    lin
}

#[test]
fn first_tile_reference_matches_spec_examples() {
    // Figure 1 of XLA's tiled-layout document, through `LinearIndex`.
    assert_eq!(
        first_tile_linear_index(&[3, 5], &[1, 0], &[2, 2], &[2, 3]),
        17
    );
    assert_eq!(
        first_tile_linear_index(&[4, 8], &[1, 0], &[2, 4], &[1, 0]),
        4
    );
    assert_eq!(
        first_tile_linear_index(&[5, 7], &[0, 1], &[2, 4], &[3, 6]),
        51
    );
    // Figure 2 "for comparison" row 1: 4 5 6 7 12 13 14 15.
    let row1: Vec<i64> = (0..8)
        .map(|c| first_tile_linear_index(&[4, 8], &[1, 0], &[2, 4], &[1, c]))
        .collect();
    assert_eq!(row1, [4, 5, 6, 7, 12, 13, 14, 15]);
    // The full model agrees for that single tile.
    let t = tiled(&[5, 7], &[0, 1], &[&[2, 4]]);
    assert_eq!(t.offset(&[3, 6]).unwrap(), 51);
}

#[test]
fn errors() {
    let t = tiled(&[3, 5], &[1, 0], &[&[2, 2]]);
    let e = t.offset(&[1]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert_eq!(
        t.offset(&[3, 0]).unwrap_err().to_string(),
        "index 3 is out of bounds for dimension 0 of size 3 in f32[3,5]{1,0:T(2,2)}"
    );
    assert!(t.offset(&[0, -1]).is_err());
    assert!(t.slot(24).is_err());
    assert!(t.slot(-1).is_err());
    assert!(t.slot_into(0, &mut [0; 3]).is_err());

    let no_layout = ArrayShape::new(PrimitiveType::F32, [2])
        .unwrap()
        .with_layout(None)
        .unwrap();
    assert_eq!(
        TiledLayout::new(&no_layout).unwrap_err().kind(),
        ErrorKind::InvalidArgument
    );
    let unbounded = ArrayShape::new(PrimitiveType::F32, [ArrayShape::UNBOUNDED_SIZE, 2]).unwrap();
    assert_eq!(
        TiledLayout::new(&unbounded).unwrap_err().kind(),
        ErrorKind::InvalidArgument
    );
    let star_last = Layout::new([1, 0]).with_tiles(tiles(&[&[2, STAR]]));
    let e = TiledLayout::new(&shape(PrimitiveType::F32, &[2, 2], star_last)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    // A valid shape whose tiles overflow int64.
    let huge = Layout::new([1, 0]).with_tiles(tiles(&[&[1 << 40, 1 << 40]]));
    let e = TiledLayout::new(&shape(PrimitiveType::F32, &[2, 2], huge)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Overflow);
}

#[test]
fn zero_sized_and_scalar() {
    let t = tiled(&[3, 0], &[1, 0], &[&[2, 2]]);
    assert_eq!(
        (t.element_count(), t.slot_count(), t.byte_size()),
        (0, 0, 0)
    );
    assert!(t.slot(0).is_err());
    let scalar = TiledLayout::new(&ArrayShape::new(PrimitiveType::F64, []).unwrap()).unwrap();
    assert_eq!(scalar.offset(&[]).unwrap(), 0);
    assert_eq!(scalar.slot(0).unwrap(), Slot::Element(vec![]));
    assert_eq!(scalar.byte_size(), 8);
}

/// A random valid layout: rank 1..=4, dims 0..=6, any permutation, up to
/// two tiles of up to rank+1 bounds (1..=5 or `*`, never `*` last),
/// optional L(n).
fn layouts() -> impl Strategy<Value = (Vec<i64>, Layout)> {
    (1usize..=4)
        .prop_flat_map(|rank| {
            (
                prop::collection::vec(0i64..=6, rank),
                Just((0..rank as i64).collect::<Vec<_>>()).prop_shuffle(),
                prop::collection::vec(
                    prop::collection::vec(
                        prop_oneof![4 => 1i64..=5, 1 => Just(STAR)],
                        1..=rank + 1,
                    ),
                    0..=2,
                ),
                prop_oneof![3 => Just(1i64), 1 => 1i64..=9],
            )
        })
        .prop_map(|(dims, mtm, mut ts, align)| {
            for t in &mut ts {
                if let Some(last) = t.last_mut()
                    && *last == STAR
                {
                    *last = 2;
                }
            }
            let l = Layout::new(mtm)
                .with_tiles(tiles(&ts.iter().map(|t| t.as_slice()).collect::<Vec<_>>()))
                .with_tail_padding_alignment_in_elements(align)
                .unwrap();
            (dims, l)
        })
}

proptest! {
    #[test]
    fn offsets_and_slots_round_trip((dims, layout) in layouts()) {
        let t = TiledLayout::new(&shape(PrimitiveType::F32, &dims, layout)).unwrap();
        let mut elements = 0;
        for o in 0..t.slot_count() {
            if let Slot::Element(idx) = t.slot(o).unwrap() {
                prop_assert_eq!(t.offset(&idx).unwrap(), o);
                elements += 1;
            }
        }
        prop_assert_eq!(elements, t.element_count());
        for idx in every_index(&dims) {
            let o = t.offset(&idx).unwrap();
            prop_assert_eq!(t.slot(o).unwrap(), Slot::Element(idx));
        }
    }

    #[test]
    fn single_tile_agrees_with_first_tile_linear_index(
        (dims, mtm, tile) in (2usize..=4).prop_flat_map(|rank| (
            prop::collection::vec(1i64..=7, rank),
            Just((0..rank as i64).collect::<Vec<_>>()).prop_shuffle(),
            prop::collection::vec(1i64..=5, 1..=rank + 1),
        ))
    ) {
        let t = tiled(&dims, &mtm, &[&tile]);
        for idx in every_index(&dims) {
            prop_assert_eq!(
                t.offset(&idx).unwrap(),
                first_tile_linear_index(&dims, &mtm, &tile, &idx)
            );
        }
    }
}
