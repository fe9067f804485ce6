//! `TiledLayout::slot_ranges`, `byte_ranges` and `is_row_addressable`
//! checked against a brute force over `TiledLayout::offset`: every element
//! of the box, its slot and the bytes its bits touch, coalesced.

// One expected range reads best as a one-element array.
#![allow(clippy::single_range_in_vec_init)]

use std::collections::BTreeSet;
use std::ops::Range;

use proptest::prelude::*;
use xla_shape::tiling::TiledLayout;
use xla_shape::{ErrorKind, Layout, PrimitiveType, Shape, Tile};

use crate::common::every_index;
use crate::relayout::{layout_strategy, shape};
use crate::relayout_tilings::TPU_SYNC_665;

/// Runs of consecutive values.
fn runs(set: &BTreeSet<i64>) -> Vec<Range<i64>> {
    let mut out: Vec<Range<i64>> = Vec::new();
    for &v in set {
        match out.last_mut() {
            Some(r) if r.end == v => r.end = v + 1,
            _ => out.push(v..v + 1),
        }
    }
    out
}

fn in_box(index: &[i64], start: &[i64], limit: &[i64]) -> bool {
    index
        .iter()
        .zip(start.iter().zip(limit))
        .all(|(&i, (&s, &l))| s <= i && i < l)
}

/// The slots and the bytes of every element of the box, one by one.
fn brute(t: &TiledLayout, start: &[i64], limit: &[i64]) -> (Vec<Range<i64>>, Vec<Range<u64>>) {
    let bits = t.element_size_in_bits();
    let (mut slots, mut bytes) = (BTreeSet::new(), BTreeSet::new());
    for index in every_index(t.dimensions()) {
        if in_box(&index, start, limit) {
            let o = t.offset(&index).unwrap();
            slots.insert(o);
            for b in (o * bits) / 8..(o * bits + bits + 7) / 8 {
                bytes.insert(b);
            }
        }
    }
    let bytes = runs(&bytes)
        .into_iter()
        .map(|r| r.start as u64..r.end as u64)
        .collect();
    (runs(&slots), bytes)
}

/// Whether the slots of each index of `dim` are one run, one by one.
fn brute_row_addressable(t: &TiledLayout, dim: usize) -> bool {
    let dims = t.dimensions();
    (0..dims[dim]).all(|i| {
        let mut start = vec![0; dims.len()];
        let mut limit = dims.to_vec();
        start[dim] = i;
        limit[dim] = i + 1;
        brute(t, &start, &limit).0.len() <= 1
    })
}

fn check(t: &TiledLayout, start: &[i64], limit: &[i64]) {
    let (slots, bytes) = brute(t, start, limit);
    assert_eq!(
        t.slot_ranges(start, limit, usize::MAX).unwrap(),
        slots,
        "slots of {start:?}..{limit:?} in {t}"
    );
    assert_eq!(
        t.byte_ranges(start, limit, usize::MAX).unwrap(),
        bytes,
        "bytes of {start:?}..{limit:?} in {t}"
    );
}

/// Every box of a small shape, or a sample of boxes of a larger one.
fn check_boxes(t: &TiledLayout, every: bool) {
    let dims = t.dimensions().to_vec();
    let bounds_of = |n: i64| -> Vec<(i64, i64)> {
        if every || n <= 4 {
            (0..=n).flat_map(|s| (s..=n).map(move |l| (s, l))).collect()
        } else {
            let cuts = [0, 1, n / 3, n / 2, n - 1, n];
            cuts.iter()
                .flat_map(|&s| cuts.iter().filter(move |&&l| l >= s).map(move |&l| (s, l)))
                .collect()
        }
    };
    let mut boxes: Vec<(Vec<i64>, Vec<i64>)> = vec![(vec![], vec![])];
    for &n in &dims {
        let b = bounds_of(n);
        boxes = boxes
            .into_iter()
            .flat_map(|(s, l)| {
                b.iter().map(move |&(a, z)| {
                    let (mut s, mut l) = (s.clone(), l.clone());
                    s.push(a);
                    l.push(z);
                    (s, l)
                })
            })
            .collect();
    }
    for (s, l) in boxes {
        check(t, &s, &l);
    }
    for d in 0..dims.len() {
        assert_eq!(
            t.is_row_addressable(d).unwrap(),
            brute_row_addressable(t, d),
            "dimension {d} of {t}"
        );
    }
}

fn tiled(s: &str) -> TiledLayout {
    let s: Shape = s.parse().unwrap();
    TiledLayout::new(s.as_array().unwrap()).unwrap()
}

/// google/tpu-sync#665's shapes, in TPU's bf16 and f32 tilings.
#[test]
fn tpu_sync_shapes() {
    for [r, c] in TPU_SYNC_665 {
        for layout in [
            "bf16[{r},{c}]{1,0:T(8,128)(2,1)}",
            "f32[{r},{c}]{1,0:T(8,128)}",
        ] {
            let t = tiled(
                &layout
                    .replace("{r}", &r.to_string())
                    .replace("{c}", &c.to_string()),
            );
            check_boxes(&t, false);
            // Every single row of the major dimension, and the slabs of
            // rows from 0.
            for i in 0..r {
                let (rows, _) = brute(&t, &[i, 0], &[i + 1, c]);
                let bytes = t.row_byte_ranges(i..i + 1, usize::MAX).unwrap();
                assert_eq!(bytes.len(), rows.len(), "row {i} of {t}");
                check(&t, &[0, 0], &[i + 1, c]);
            }
        }
    }
}

/// Worked by hand from the tiled-layout document's rules.
#[test]
fn hand_derived_ranges() {
    // f32[10,130]{1,0:T(8,128)}: tiles of 8x128 (4096 bytes), 2x2 of them.
    // Row 9 is row 1 of the tiles of the second tile row: slots 2*1024 +
    // 128 .. +128 and 3*1024 + 128 .. +2 (columns 128, 129).
    let t = tiled("f32[10,130]{1,0:T(8,128)}");
    assert_eq!(
        t.slot_ranges(&[9, 0], &[10, 130], 8).unwrap(),
        [2176..2304, 3200..3202]
    );
    assert_eq!(
        t.byte_ranges(&[9, 0], &[10, 130], 8).unwrap(),
        [8704..9216, 12800..12808]
    );
    assert_eq!((t.byte_size(), t.unpadded_byte_size()), (16384, 5200));
    assert!(!t.is_row_addressable(0).unwrap());
    assert!(!t.is_row_addressable(1).unwrap());
    // Row-major: a dimension is row-addressable when the dimensions minor
    // to it are whole; the minor-most one only when it has one element
    // per row (a column of one).
    let t = tiled("u8[4,5]{1,0}");
    assert!(t.is_row_addressable(0).unwrap());
    assert!(!t.is_row_addressable(1).unwrap());
    assert!(tiled("u8[4,1]{1,0}").is_row_addressable(1).unwrap());
}

/// XLA:CPU packs `E(4)` two to a byte, the first element in the low bits:
/// element 1 and element 2 of s4[5]{0:E(4)} share no byte; 1 and 0 do.
#[test]
fn sub_byte_ranges_round_out_to_bytes() {
    let t = tiled("s4[5]{0:E(4)}");
    // Element 1: bits 4..8, byte 0 (shared with element 0).
    assert_eq!(t.slot_ranges(&[1], &[2], 4).unwrap(), [1..2]);
    assert_eq!(t.byte_ranges(&[1], &[2], 4).unwrap(), [0..1]);
    // Elements 1..3: bits 4..12, bytes 0 and 1.
    assert_eq!(t.byte_ranges(&[1], &[3], 4).unwrap(), [0..2]);
    check_boxes(&t, true);
}

#[test]
fn bad_boxes_are_errors() {
    let t = tiled("f32[4,5]{1,0:T(2,2)}");
    for (s, l) in [
        (vec![0, 0], vec![5, 5]),
        (vec![-1, 0], vec![1, 1]),
        (vec![2, 0], vec![1, 1]),
        (vec![0], vec![1]),
        (vec![0, 0, 0], vec![1, 1, 1]),
    ] {
        let e = t.byte_ranges(&s, &l, 8).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{s:?}..{l:?}");
    }
    assert!(
        t.byte_ranges(&[0, 0], &[5, 5], 8)
            .unwrap_err()
            .message()
            .contains("the box 0..5 of dimension 0 is not within 0..4")
    );
    // Column 0 of 4 rows: 4 ranges, refused beyond a limit of 3.
    let e = t.slot_ranges(&[0, 0], &[4, 1], 3).unwrap_err();
    assert!(e.message().contains("more than 3 byte ranges"), "{e}");
    assert_eq!(t.slot_ranges(&[0, 0], &[4, 1], 4).unwrap().len(), 4);
    assert!(t.is_row_addressable(2).is_err());
    assert!(tiled("f32[]").row_byte_ranges(0..1, 4).is_err());
}

/// The walk's work follows the ranges: one range for the whole of a 2^40
/// element array, and a row of it in a few.
#[test]
fn huge_shapes_cost_their_ranges() {
    let t = tiled("bf16[1048576,1048576]{1,0:T(8,128)(2,1)}");
    assert_eq!(
        t.byte_ranges(&[0, 0], &[1048576, 1048576], 4).unwrap(),
        [0..(1u64 << 41)]
    );
    // Rows 8..16: the second row of tiles, whole.
    assert_eq!(
        t.row_byte_ranges(8..16, 4).unwrap(),
        [(1u64 << 24)..(2u64 << 24)]
    );
    // One row: 8192 pieces of 256 bytes, each pair of elements of it
    // interleaved with the next row's.
    let e = t.row_byte_ranges(9..10, 100).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
}

#[test]
fn layouts_without_a_digit_walk() {
    let star = Tile::COMBINE_DIMENSION;
    // The tiled-layout document's combined dimensions, and a 1-D tile of 4
    // re-tiled by (2,2), which puts the dimension's digits out of order.
    for (dims, layout) in [
        (
            vec![2, 3, 4, 5],
            Layout::new([3, 2, 1, 0]).with_tiles(vec![Tile::new([star, 2, 3]).unwrap()]),
        ),
        (
            vec![13],
            Layout::new([0]).with_tiles(vec![Tile::new([4]).unwrap(), Tile::new([2, 2]).unwrap()]),
        ),
    ] {
        let t = TiledLayout::new(&shape(PrimitiveType::F32, &dims, layout)).unwrap();
        check_boxes(&t, dims.len() == 1);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(150))]

    #[test]
    fn ranges_match_offsets(
        (dims, layout, t, cut) in (1usize..=3).prop_flat_map(|rank| (
            prop::collection::vec(0i64..=7, rank),
            layout_strategy(rank),
            prop_oneof![Just(PrimitiveType::U4), Just(PrimitiveType::Bf16), Just(PrimitiveType::F32)],
            prop::collection::vec((0i64..=7, 0i64..=7), rank),
        ))
    ) {
        let layout = if t == PrimitiveType::U4 { layout } else { layout.with_element_size_in_bits(0) };
        let tl = TiledLayout::new(&shape(t, &dims, layout)).unwrap();
        let (start, limit): (Vec<i64>, Vec<i64>) = cut
            .iter()
            .zip(&dims)
            .map(|(&(a, b), &n)| {
                let (a, b) = (a.min(n), b.min(n));
                (a.min(b), a.max(b))
            })
            .unzip();
        check(&tl, &start, &limit);
        for d in 0..dims.len() {
            prop_assert_eq!(tl.is_row_addressable(d).unwrap(), brute_row_addressable(&tl, d));
        }
    }
}
