//! index_util and LayoutUtil::LinearIndex: the cases of upstream's
//! xla/index_util_test.cc and the examples of xla/index_util.h, each named
//! by its case number and what it checks, and the memory order XLA:CPU
//! stores arrays in (`tests/data/index.jsonl`).

use std::cmp::Ordering;

use crate::common::*;
use xla_shape::PrimitiveType as T;
use xla_shape::{ArrayShape, ErrorKind, Layout, PrimitiveType, Tile};
use xla_shape::{index_util as iu, layout_util, shape_util};

fn dense(t: PrimitiveType, dims: &[i64], mtm: &[i64]) -> ArrayShape {
    shape_util::make_shape_with_dense_layout(t, dims, mtm)
}

fn to_linear(s: &ArrayShape, index: &[i64]) -> i64 {
    iu::multidimensional_index_to_linear_index(s, index).unwrap()
}

fn to_index(s: &ArrayShape, linear: i64) -> Vec<i64> {
    iu::linear_index_to_multidimensional_index(s, linear).unwrap()
}

#[test]
fn i1_vector() {
    let s = shape_util::make_shape(T::F32, &[100]);
    assert_eq!(to_linear(&s, &[42]), 42);
    assert_eq!(to_index(&s, 42), [42]);
}

#[test]
fn i2_matrix_dim0_minor() {
    let s = dense(T::F32, &[10, 20], &[0, 1]);
    assert_eq!(to_linear(&s, &[0, 0]), 0);
    assert_eq!(to_linear(&s, &[9, 19]), 199);
    assert_eq!(to_linear(&s, &[3, 5]), 53);
}

#[test]
fn i3_matrix_dim0_minor_inverse() {
    assert_eq!(to_index(&dense(T::F32, &[10, 20], &[0, 1]), 53), [3, 5]);
}

#[test]
fn i4_matrix_dim0_major() {
    let s = dense(T::F32, &[10, 20], &[1, 0]);
    assert_eq!(to_linear(&s, &[0, 0]), 0);
    assert_eq!(to_linear(&s, &[9, 19]), 199);
    assert_eq!(to_linear(&s, &[3, 5]), 65);
}

#[test]
fn i5_matrix_dim0_major_inverse() {
    assert_eq!(to_index(&dense(T::F32, &[10, 20], &[1, 0]), 65), [3, 5]);
}

#[test]
fn i6_rank3_descending() {
    let s = dense(T::F32, &[10, 20, 30], &[2, 1, 0]);
    assert_eq!(to_linear(&s, &[3, 5, 7]), 1957);
    assert_eq!(to_linear(&s, &[8, 15, 27]), 5277);
}

#[test]
fn i7_rank3_permuted() {
    let s = dense(T::F32, &[10, 20, 30], &[1, 2, 0]);
    assert_eq!(to_linear(&s, &[3, 5, 7]), 1945);
    assert_eq!(to_linear(&s, &[8, 15, 27]), 5355);
}

#[test]
fn i8_rank4_descending() {
    let s = dense(T::F32, &[10, 20, 30, 40], &[3, 2, 1, 0]);
    assert_eq!(to_linear(&s, &[3, 5, 7, 9]), 78289);
    assert_eq!(to_linear(&s, &[8, 15, 27, 33]), 211113);
}

#[test]
fn i9_rank7_round_trips() {
    let dims = [10, 20, 30, 40, 30, 20, 10];
    for mtm in [
        [6, 5, 4, 3, 2, 1, 0],
        [0, 1, 2, 3, 4, 5, 6],
        [4, 5, 1, 2, 6, 0, 3],
    ] {
        let s = dense(T::F32, &dims, &mtm);
        for linear in [0, 1439999999, 1145567336, 43883404, 617295214, 1117613654] {
            assert_eq!(
                to_linear(&s, &to_index(&s, linear)),
                linear,
                "{mtm:?} {linear}"
            );
        }
    }
}

#[test]
fn i10_bump_indices() {
    let s = shape_util::make_shape(T::S32, &[2, 2]);
    let mut i = [0, 0];
    assert!(iu::bump_indices(&s, &mut i).unwrap());
    assert_eq!(i, [0, 1]);
    assert!(iu::bump_indices(&s, &mut i).unwrap());
    assert_eq!(i, [1, 0]);
    assert!(iu::bump_indices(&s, &mut i).unwrap());
    assert_eq!(i, [1, 1]);
    assert!(!iu::bump_indices(&s, &mut i).unwrap());
    assert_eq!(i, [1, 1]);
}

#[test]
fn i11_bump_indices_ignores_the_layout() {
    // Row-major whatever the layout (`IndexUtil::BumpIndices` in xla/index_util.cc ignores layouts).
    for mtm in [[1, 0], [0, 1]] {
        let s = dense(T::F32, &[2, 3], &mtm);
        let mut i = [0, 2];
        assert!(iu::bump_indices(&s, &mut i).unwrap());
        assert_eq!(i, [1, 0]);
    }
}

#[test]
fn i12_get_dimension_stride() {
    let s = dense(T::F32, &[5, 8, 10, 4], &[3, 2, 1, 0]);
    assert_eq!(iu::get_dimension_stride(&s, 1).unwrap(), 40);
    // Hand derivation: dimension 3 is most minor (stride 1), 0 is most
    // major (4*10*8).
    assert_eq!(iu::get_dimension_stride(&s, 3).unwrap(), 1);
    assert_eq!(iu::get_dimension_stride(&s, 0).unwrap(), 320);
}

#[test]
fn i16_layout_util_linear_index_first_tile() {
    let s = shape_util::make_shape_with_dense_layout_from_layout(
        T::F32,
        &[3, 5],
        Layout::new([1, 0]).with_tiles(vec![Tile::new([2, 2]).unwrap()]),
    );
    assert_eq!(layout_util::linear_index(&s, &[2, 3]).unwrap(), 17);
}

#[test]
fn linear_index_examples_of_spec_7_2() {
    // F32[4,8]{1,0:T(2,4)(2,1)} (1,0) -> 4: only the first tile counts.
    let s = shape_util::make_shape_with_dense_layout_from_layout(
        T::F32,
        &[4, 8],
        Layout::new([1, 0])
            .with_tiles(vec![Tile::new([2, 4]).unwrap(), Tile::new([2, 1]).unwrap()]),
    );
    assert_eq!(layout_util::linear_index(&s, &[1, 0]).unwrap(), 4);
    // F32[5,7]{0,1:T(2,4)} (3,6) -> 51.
    let s = shape_util::make_shape_with_dense_layout_from_layout(
        T::F32,
        &[5, 7],
        Layout::new([0, 1]).with_tiles(vec![Tile::new([2, 4]).unwrap()]),
    );
    assert_eq!(layout_util::linear_index(&s, &[3, 6]).unwrap(), 51);
    // Rank 1: the tile is ignored.
    let s = shape_util::make_shape_with_dense_layout_from_layout(
        T::F32,
        &[100],
        Layout::new([0]).with_tiles(vec![Tile::new([8]).unwrap()]),
    );
    assert_eq!(layout_util::linear_index(&s, &[42]).unwrap(), 42);
}

#[test]
fn index_in_bounds_and_compare_indices() {
    let s = shape_util::make_shape(T::F32, &[2, 3]);
    assert!(iu::index_in_bounds(&s, &[1, 2]));
    assert!(!iu::index_in_bounds(&s, &[2, 0]));
    assert!(!iu::index_in_bounds(&s, &[1]));
    // IndexUtil::IndexInBounds (xla/index_util.cc): negative entries count as in bounds.
    assert!(iu::index_in_bounds(&s, &[-1, 0]));
    // Code, not header comment: -1 (Less) when lhs < rhs.
    assert_eq!(iu::compare_indices(&[0, 9], &[1, 0]), Ordering::Less);
    assert_eq!(iu::compare_indices(&[1, 0], &[1, 0]), Ordering::Equal);
    assert_eq!(iu::compare_indices(&[1, 1], &[1, 0]), Ordering::Greater);
}

#[test]
fn bad_indices_are_errors() {
    let s = shape_util::make_shape(T::F32, &[2, 3]);
    let e = iu::multidimensional_index_to_linear_index(&s, &[1]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert_eq!(
        e.to_string(),
        "index {1} has 1 elements, but shape f32[2,3]{1,0} has 2 dimensions"
    );
    // As upstream, entries are not bounds-checked: {2,0} in f32[2,3]{1,0}
    // is 2*3 + 0 = 6, one past the last element, and nothing panics.
    assert!(!iu::index_in_bounds(&s, &[2, 0]));
    assert_eq!(to_linear(&s, &[2, 0]), 6);
    assert_eq!(
        to_linear(&s, &[i64::MAX, i64::MIN]),
        i64::MIN.wrapping_add(i64::MAX.wrapping_mul(3))
    );
    assert!(iu::linear_index_to_multidimensional_index(&s, 6).is_err());
    assert!(iu::linear_index_to_multidimensional_index(&s, -1).is_err());
    assert!(iu::bump_indices(&s, &mut [0]).is_err());
    let e = iu::multidimensional_index_to_linear_index_with_minor_to_major(&s, &[0, 2], &[0, 0])
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "minor_to_major {0,2} is not a permutation of the dimensions of f32[2,3]{1,0}"
    );
    let mut no_layout = s.clone();
    no_layout.clear_layout();
    let e = iu::multidimensional_index_to_linear_index(&no_layout, &[0, 0]).unwrap_err();
    assert_eq!(e.to_string(), "shape f32[2,3] does not have a layout");
    // The explicit-order overload needs no layout.
    assert_eq!(
        iu::multidimensional_index_to_linear_index_with_minor_to_major(
            &no_layout,
            &[0, 1],
            &[1, 2]
        )
        .unwrap(),
        5
    );
}

/// The row-major index of `linear` in `dims` (hand arithmetic, no
/// index_util).
fn row_major_index(dims: &[i64], mut linear: i64) -> Vec<i64> {
    let mut index = vec![0; dims.len()];
    for (i, &d) in dims.iter().enumerate().rev() {
        index[i] = linear % d;
        linear /= d;
    }
    index
}

fn record_shape(r: &serde_json::Value) -> (PrimitiveType, Vec<i64>, Vec<i64>) {
    let text = str_field(r, "shape");
    let t = PrimitiveType::from_lowercase_name(text.split('[').next().unwrap()).unwrap();
    let ints = |k: &str| -> Vec<i64> {
        r[k].as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_i64().unwrap())
            .collect()
    };
    (t, ints("dims"), ints("minor_to_major"))
}

#[test]
fn golden_memory_order_of_xla_cpu() {
    let mut checked = 0;
    for r in records("index.jsonl") {
        if r["kind"] != "index" {
            continue;
        }
        let id = str_field(&r, "shape").to_string();
        let (t, dims, mtm) = record_shape(&r);
        let s = dense(t, &dims, &mtm);
        assert_eq!(s.to_string(), str_field(&r, "xla_str"), "{id}");
        let order: Vec<i64> = r["memory_order"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_i64().unwrap())
            .collect();
        assert_eq!(
            order.len() as i64,
            shape_util::elements_in(&s).unwrap(),
            "{id}"
        );
        for (p, &row_major) in order.iter().enumerate() {
            let index = row_major_index(&dims, row_major);
            assert_eq!(to_linear(&s, &index), p as i64, "{id} {index:?}");
            assert_eq!(to_index(&s, p as i64), index, "{id} {p}");
            // Without tiles, LayoutUtil::LinearIndex is the same order.
            assert_eq!(
                layout_util::linear_index(&s, &index).unwrap(),
                p as i64,
                "{id}"
            );
        }
        assert_eq!(
            shape_util::byte_size_of_elements(&s).unwrap(),
            r["on_device_size_in_bytes"].as_i64().unwrap(),
            "{id}"
        );
        checked += 1;
    }
    assert_eq!(checked, 72);
}

#[test]
fn golden_subbyte_packing_of_xla_cpu() {
    let mut checked = 0;
    for r in records("index.jsonl") {
        if r["kind"] != "subbyte_packing" {
            continue;
        }
        let id = str_field(&r, "shape").to_string();
        let (t, dims, mtm) = record_shape(&r);
        let s = shape_util::make_shape_with_dense_layout_from_layout(
            t,
            &dims,
            Layout::new(mtm).with_element_size_in_bits(4),
        );
        assert_eq!(s.to_string(), id);
        let raw = hex(str_field(&r, "raw_hex"));
        let size = r["on_device_size_in_bytes"].as_i64().unwrap();
        assert_eq!(raw.len() as i64, size, "{id}");
        assert_eq!(
            shape_util::byte_size_of(&s.clone().into(), 8).unwrap(),
            size,
            "{id}"
        );
        assert_eq!(shape_util::array_size(&s).unwrap(), size, "{id}");
        let values: Vec<i64> = r["values_row_major"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_i64().unwrap())
            .collect();
        // The packing rule: the element at physical position p is the
        // nibble p % 2 (low first) of byte p / 2.
        let n = shape_util::elements_in(&s).unwrap();
        for p in 0..n {
            let nibble = (raw[(p / 2) as usize] >> (4 * (p % 2))) & 0xf;
            let index = to_index(&s, p);
            let row_major = iu::multidimensional_index_to_linear_index(
                &shape_util::make_shape(t, &dims),
                &index,
            )
            .unwrap();
            assert_eq!(nibble as i64, values[row_major as usize], "{id} {p}");
        }
        checked += 1;
    }
    assert_eq!(checked, 2);
}

#[test]
fn repeated_minor_to_major_entries_are_rejected() {
    // {0,0} is not a permutation: XLA would compute a meaningless number.
    let s = shape_util::make_shape(T::F32, &[2, 3]);
    assert!(
        iu::multidimensional_index_to_linear_index_with_minor_to_major(&s, &[0, 0], &[1, 1])
            .is_err()
    );
}

#[test]
fn ranks_past_the_unrolled_ones_use_the_same_order() {
    // Rank 8 (the generic loop) against the row-major formula.
    let dims = [2, 3, 2, 3, 2, 3, 2, 3];
    let s = shape_util::make_shape(T::S8, &dims);
    let index = [1, 2, 0, 1, 1, 0, 1, 2];
    let mut expected = 0;
    for (&i, &d) in index.iter().zip(&dims) {
        expected = expected * d + i;
    }
    assert_eq!(to_linear(&s, &index), expected);
    assert_eq!(to_index(&s, expected), index);
}
