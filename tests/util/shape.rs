//! shape_util: the cases of upstream's xla/shape_util_test.cc (and the
//! examples in xla/shape_util.h), each named by its case number and what it
//! checks.

use std::sync::Mutex;

use xla_shape::PrimitiveType as T;
use xla_shape::proto::{LayoutProto, ShapeProto};
use xla_shape::shape_util::{self as su, BitcastDecomposition};
use xla_shape::{ArrayShape, Error, ErrorKind, Layout, PrimitiveType, Shape, ShapeIndex};

fn dense(t: PrimitiveType, dims: &[i64], mtm: &[i64]) -> ArrayShape {
    su::make_shape_with_dense_layout(t, dims, mtm)
}

/// `MakeShape(t, dims)` as a `Shape`.
fn s(t: PrimitiveType, dims: &[i64]) -> Shape {
    su::make_shape(t, dims).into()
}

fn tuple(e: Vec<Shape>) -> Shape {
    su::make_tuple_shape(e)
}

/// `MakeShape(t, dims, dynamic)` as a `Shape`.
fn dynamic(t: PrimitiveType, dims: &[i64], dyn_: &[bool]) -> Shape {
    su::make_shape_with_dynamic_dimensions(t, dims, dyn_).into()
}

#[test]
fn u1_get_dimension_negative() {
    let a = su::make_shape(T::F32, &[2, 3]);
    assert_eq!(su::get_dimension(&a, -1), 3);
    assert_eq!(su::get_dimension(&a, -2), 2);
}

#[test]
fn u2_get_dimension_negative_rank4() {
    assert_eq!(
        su::get_dimension(&su::make_shape(T::F32, &[1, 2, 3, 4]), -1),
        4
    );
}

#[test]
#[should_panic(expected = "dimension_number >= 0")]
fn u3_get_dimension_too_negative() {
    su::get_dimension(&su::make_shape(T::F32, &[2, 3]), -3);
}

#[test]
fn u4_create_dimension_vector_from_shape() {
    assert_eq!(
        su::create_dimension_vector_from_shape(&s(T::F32, &[3, 2, 7])),
        [3, 2, 7]
    );
}

#[test]
fn u5_compatible_same() {
    assert!(su::compatible(&s(T::F32, &[3, 2]), &s(T::F32, &[3, 2])));
}

#[test]
fn u6_compatible_tokens() {
    let tok = su::make_token_shape;
    assert!(su::compatible(&tok(), &tok()));
    assert!(!su::compatible(&tok(), &s(T::F32, &[])));
    assert!(!su::compatible(&s(T::F32, &[]), &tok()));
    assert!(su::compatible(&tuple(vec![tok()]), &tuple(vec![tok()])));
}

#[test]
fn u7_equal_tokens() {
    let tok = su::make_token_shape;
    assert!(su::equal(&tok(), &tok()));
    assert!(!su::equal(&tok(), &s(T::F32, &[])));
    assert!(!su::equal(&s(T::F32, &[]), &tok()));
}

#[test]
fn u8_equal_tuples_with_layouts() {
    let t = |mtm: &[i64]| {
        tuple(vec![
            su::make_token_shape(),
            dense(T::S32, &[3, 4], mtm).into(),
        ])
    };
    assert!(su::equal(&t(&[0, 1]), &t(&[0, 1])));
    assert!(!su::equal(&t(&[0, 1]), &t(&[1, 0])));
}

#[test]
fn u9_layouts_matter_for_equal_not_compatible() {
    let a: Shape = dense(T::F32, &[3, 2], &[0, 1]).into();
    let b: Shape = dense(T::F32, &[3, 2], &[1, 0]).into();
    assert!(!su::equal(&a, &b));
    assert!(su::compatible(&a, &b));
}

#[test]
fn u10_compatible_ignoring_fp_precision() {
    assert!(su::compatible_ignoring_fp_precision(
        &s(T::Bf16, &[3, 2]),
        &s(T::F32, &[3, 2])
    ));
    assert!(!su::compatible_ignoring_fp_precision(
        &s(T::Bf16, &[3, 2]),
        &s(T::F32, &[2, 2])
    ));
}

#[test]
fn u11_incompatible_element_types() {
    assert!(!su::compatible(&s(T::F32, &[3, 2]), &s(T::Pred, &[3, 2])));
}

#[test]
fn u12_equal_ignoring_fp_precision() {
    let a: Shape = dense(T::F32, &[4, 3], &[0, 1]).into();
    let b: Shape = dense(T::F16, &[4, 3], &[0, 1]).into();
    assert!(su::equal_ignoring_fp_precision(&a, &b));
}

#[test]
fn u13_unequal_ignoring_fp_precision() {
    let d = |t, dims: &[i64], mtm: &[i64]| -> Shape { dense(t, dims, mtm).into() };
    assert!(!su::equal_ignoring_fp_precision(
        &d(T::F32, &[4, 3], &[0, 1]),
        &d(T::F16, &[3, 4], &[0, 1])
    ));
    assert!(!su::equal_ignoring_fp_precision(
        &d(T::F32, &[3, 4], &[0, 1]),
        &d(T::F16, &[3, 4], &[1, 0])
    ));
    assert!(!su::equal_ignoring_fp_precision(
        &d(T::F32, &[4, 3], &[0, 1]),
        &d(T::Pred, &[4, 3], &[0, 1])
    ));
}

#[test]
fn u14_equal_ignoring_element_type() {
    let d = |t| -> Shape { dense(t, &[4, 3], &[0, 1]).into() };
    assert!(su::equal_ignoring_element_type(&d(T::F32), &d(T::F16)));
    assert!(su::equal_ignoring_element_type(&d(T::S32), &d(T::F16)));
    assert!(su::equal_ignoring_element_type(&d(T::F32), &d(T::Pred)));
}

#[test]
fn u15_unequal_ignoring_element_type() {
    let d = |t, dims: &[i64], mtm: &[i64]| -> Shape { dense(t, dims, mtm).into() };
    assert!(!su::equal_ignoring_element_type(
        &d(T::F32, &[4, 3], &[0, 1]),
        &d(T::F16, &[3, 4], &[0, 1])
    ));
    assert!(!su::equal_ignoring_element_type(
        &d(T::F32, &[3, 4], &[0, 1]),
        &d(T::F16, &[3, 4], &[1, 0])
    ));
}

#[test]
fn u16_equal_dynamic_shapes() {
    let a = dynamic(T::F32, &[4, 3], &[true, false]);
    assert!(su::equal(&a, &a.clone()));
    assert!(!su::equal(&a, &s(T::F32, &[4, 3])));
    let unbounded = dynamic(T::F32, &[ArrayShape::UNBOUNDED_SIZE], &[true]);
    assert!(!su::equal(&unbounded, &dynamic(T::F32, &[2], &[true])));
}

#[test]
fn u17_compatible_dynamic_shapes() {
    let a: Shape = su::make_shape_with_dynamic_dimensions(T::F32, &[4, 3], &[true, false]).into();
    let b: Shape = su::make_shape_with_dynamic_dimensions(T::F32, &[4, 3], &[true, false])
        .with_layout(Some(Layout::new([0, 1])))
        .unwrap()
        .into();
    let c: Shape = su::make_shape_with_dynamic_dimensions(T::F32, &[4, 3], &[false, true])
        .with_layout(Some(Layout::new([0, 1])))
        .unwrap()
        .into();
    assert!(su::compatible(&a, &a));
    assert!(su::compatible(&a, &b));
    assert!(su::compatible(&a, &c));
}

#[test]
fn u18_compatible_tuples() {
    let t = tuple(vec![s(T::F32, &[3, 2]), s(T::Pred, &[4, 5])]);
    assert!(su::compatible(&t, &t.clone()));
}

#[test]
fn u19_maybe_tuple_of_one_is_the_shape() {
    let m = su::make_validated_maybe_tuple_shape(vec![s(T::F32, &[3, 2])]).unwrap();
    assert!(!m.is_tuple());
    assert!(su::compatible(&m, &s(T::F32, &[3, 2])));
    assert!(su::make_maybe_tuple_shape(vec![]).is_tuple());
}

#[test]
fn u20_compatible_tuples_ignoring_fp_precision() {
    let a = tuple(vec![s(T::Bf16, &[3, 2]), s(T::F32, &[4, 5])]);
    let b = tuple(vec![s(T::F64, &[3, 2]), s(T::Bf16, &[4, 5])]);
    assert!(su::compatible_ignoring_fp_precision(&a, &b));
}

#[test]
fn u21_tuples_in_other_order() {
    let a = tuple(vec![s(T::Pred, &[4, 5]), s(T::F32, &[3, 2])]);
    let b = tuple(vec![s(T::F32, &[3, 2]), s(T::Pred, &[4, 5])]);
    assert!(!su::compatible(&a, &b));
    assert!(!su::compatible_ignoring_element_type(&a, &b));
}

#[test]
fn u22_tuples_in_other_order_ignoring_fp_precision() {
    let a = tuple(vec![s(T::Bf16, &[4, 5]), s(T::F32, &[3, 2])]);
    let b = tuple(vec![s(T::F32, &[3, 2]), s(T::Bf16, &[4, 5])]);
    assert!(!su::compatible_ignoring_fp_precision(&a, &b));
}

#[test]
fn u23_tuples_with_other_element_types() {
    let a = tuple(vec![s(T::Pred, &[4, 5]), s(T::F32, &[3, 2])]);
    let b = tuple(vec![s(T::Pred, &[4, 5]), s(T::S32, &[3, 2])]);
    assert!(!su::compatible(&a, &b));
    assert!(su::compatible_ignoring_element_type(&a, &b));
}

#[test]
fn u24_tuples_with_other_dimensions() {
    let a = tuple(vec![s(T::Pred, &[4, 5]), s(T::F32, &[3, 2])]);
    let b = tuple(vec![s(T::Pred, &[4, 5]), s(T::F32, &[4, 2])]);
    assert!(!su::compatible(&a, &b));
}

#[test]
fn u25_array_against_tuple() {
    let a = s(T::F32, &[]);
    let b = tuple(vec![s(T::F32, &[3, 2]), s(T::U32, &[])]);
    for (x, y) in [(&a, &b), (&b, &a)] {
        assert!(!su::compatible(x, y));
        assert!(!su::compatible_ignoring_element_type(x, y));
        assert!(!su::compatible_ignoring_fp_precision(x, y));
    }
}

#[test]
fn u26_array_against_opaque() {
    let a = s(T::F32, &[5, 7]);
    let b = su::make_opaque_shape();
    for (x, y) in [(&a, &b), (&b, &a)] {
        assert!(!su::compatible(x, y));
        assert!(!su::compatible_ignoring_element_type(x, y));
        assert!(!su::compatible_ignoring_fp_precision(x, y));
    }
}

#[test]
fn u27_scalar_default_layout() {
    let a = su::make_shape(T::F32, &[]);
    let b = su::make_shape_with_dense_layout(T::F32, &[], &[]);
    assert!(a.has_layout());
    assert!(b.has_layout());
    assert_eq!(a, b);
}

#[test]
fn u28_byte_size_of() {
    let cases = [
        (T::F32, &[][..], 4),
        (T::F32, &[10, 20][..], 800),
        (T::F64, &[][..], 8),
        (T::F64, &[10, 20][..], 1600),
        (T::C64, &[][..], 8),
        (T::C64, &[10, 20][..], 1600),
    ];
    for (t, dims, bytes) in cases {
        assert_eq!(
            su::byte_size_of(&s(t, dims), -1).unwrap(),
            bytes,
            "{t:?} {dims:?}"
        );
    }
}

#[test]
fn u29_byte_strides() {
    assert_eq!(
        su::byte_strides(&su::make_shape(T::F32, &[3, 5, 7])),
        Some(vec![140, 28, 4])
    );
    assert_eq!(
        su::byte_strides(&su::make_shape(T::F16, &[5, 7, 9])),
        Some(vec![126, 18, 2])
    );
}

#[test]
fn u30_is_empty_tuple() {
    assert!(su::is_empty_tuple(&su::make_nil()));
    assert!(!su::is_empty_tuple(&s(T::F32, &[1, 2, 3])));
    assert!(!su::is_empty_tuple(&s(T::F32, &[0, 1])));
    assert!(!su::is_empty_tuple(&tuple(vec![s(T::S32, &[])])));
    assert!(!su::is_empty_tuple(&tuple(vec![s(T::F32, &[0])])));
}

#[test]
fn u31_is_nested_tuple() {
    let nil = su::make_nil;
    let s32 = || s(T::S32, &[]);
    assert!(!su::is_nested_tuple(&nil()));
    assert!(!su::is_nested_tuple(&tuple(vec![s32()])));
    assert!(su::is_nested_tuple(&tuple(vec![nil()])));
    assert!(!su::is_nested_tuple(&tuple(vec![s32(), s32()])));
    assert!(su::is_nested_tuple(&tuple(vec![s32(), nil()])));
    assert!(su::is_nested_tuple(&tuple(vec![nil(), s32()])));
    assert!(su::is_nested_tuple(&tuple(vec![nil(), nil()])));
}

#[test]
fn u32_is_nested_tuple_with_ptrs() {
    let nil = su::make_nil();
    let s32 = s(T::S32, &[]);
    let p = |e: &[&Shape]| su::make_tuple_shape_with_ptrs(e);
    assert!(!su::is_nested_tuple(&p(&[])));
    assert!(!su::is_nested_tuple(&p(&[&s32])));
    assert!(su::is_nested_tuple(&p(&[&nil])));
    assert!(!su::is_nested_tuple(&p(&[&s32, &s32])));
    assert!(su::is_nested_tuple(&p(&[&s32, &nil])));
    assert!(su::is_nested_tuple(&p(&[&nil, &s32])));
    assert!(su::is_nested_tuple(&p(&[&nil, &nil])));
}

const U33_DIMS: [&[i64]; 11] = [
    &[],
    &[0],
    &[1],
    &[1, 1],
    &[2],
    &[2, 1],
    &[3, 5],
    &[3, 0, 5],
    &[0, 3, 0],
    &[1, 3, 5],
    &[13, 17],
];

#[test]
fn u33_elements_in() {
    let expected = [1, 0, 1, 1, 2, 2, 15, 0, 0, 15, 221];
    for (dims, n) in U33_DIMS.iter().zip(expected) {
        assert_eq!(
            su::elements_in(&su::make_shape(T::S32, dims)).unwrap(),
            n,
            "{dims:?}"
        );
    }
}

#[test]
fn u34_has_primitive_type() {
    assert!(su::has_primitive_type(&s(T::S32, &[]), T::S32));
    assert!(!su::has_primitive_type(&s(T::S32, &[]), T::S16));
    assert!(su::has_primitive_type(&s(T::S32, &[0]), T::S32));
    assert!(!su::has_primitive_type(&su::make_nil(), T::S32));
    assert!(su::has_primitive_type(
        &tuple(vec![s(T::S32, &[]), s(T::S32, &[])]),
        T::S32
    ));
    assert!(su::has_primitive_type(
        &tuple(vec![s(T::S32, &[]), tuple(vec![s(T::S16, &[])])]),
        T::S16
    ));
}

#[test]
fn u35_is_zero_element_array() {
    let expected = [
        false, true, false, false, false, false, false, true, true, false, false,
    ];
    for (dims, z) in U33_DIMS.iter().zip(expected) {
        assert_eq!(su::is_zero_element_array(&s(T::S32, dims)), z, "{dims:?}");
    }
    assert!(!su::is_zero_element_array(&su::make_nil()));
    assert!(!su::is_zero_element_array(&tuple(vec![])));
    assert!(!su::is_zero_element_array(&tuple(vec![s(
        T::S32,
        &[0, 3, 0]
    )])));
}

#[test]
fn u36_same_dimensions() {
    let m = su::make_shape;
    assert!(su::same_dimensions(&m(T::S32, &[]), &m(T::S32, &[])));
    assert!(su::same_dimensions(&m(T::S32, &[]), &m(T::F32, &[])));
    assert!(su::same_dimensions(&m(T::S32, &[1]), &m(T::S32, &[1])));
    assert!(su::same_dimensions(&m(T::S32, &[0]), &m(T::S32, &[0])));
    assert!(su::same_dimensions(&m(T::S32, &[2]), &m(T::S32, &[2])));
}

#[test]
fn u37_different_dimensions() {
    let m = su::make_shape;
    let pairs: [(&[i64], &[i64]); 6] = [
        (&[1], &[2]),
        (&[0, 0], &[0]),
        (&[1], &[1, 1]),
        (&[], &[1]),
        (&[1], &[1, 0]),
        (&[1, 1], &[1, 2]),
    ];
    for (a, b) in pairs {
        assert!(
            !su::same_dimensions(&m(T::S32, a), &m(T::S32, b)),
            "{a:?} {b:?}"
        );
    }
}

#[test]
fn u38_get_subshape() {
    let a = s(T::F32, &[42, 42, 123]);
    assert_eq!(su::get_subshape(&a, &[]), &a);
    let t = tuple(vec![a.clone(), a.clone(), a.clone()]);
    assert_eq!(su::get_subshape(&t, &[]), &t);
    for i in 0..3 {
        assert_eq!(su::get_subshape(&t, &[i]), &a);
    }
}

fn nested(a: &Shape) -> Shape {
    tuple(vec![
        a.clone(),
        tuple(vec![a.clone(), a.clone()]),
        tuple(vec![tuple(vec![a.clone(), a.clone()]), a.clone()]),
    ])
}

#[test]
fn u39_get_subshape_nested() {
    let a = s(T::F32, &[42, 42, 123]);
    let n = nested(&a);
    let pair = tuple(vec![a.clone(), a.clone()]);
    assert_eq!(su::get_subshape(&n, &[]), &n);
    assert_eq!(su::get_subshape(&n, &[0]), &a);
    assert_eq!(su::get_subshape(&n, &[1]), &pair);
    assert_eq!(su::get_subshape(&n, &[2, 0]), &pair);
}

#[test]
fn u40_is_leaf_index() {
    let a = s(T::F32, &[42, 42, 123]);
    assert!(su::is_leaf_index(&a, &[]));
    let pair = tuple(vec![a.clone(), a.clone()]);
    assert!(!su::is_leaf_index(&pair, &[]));
    assert!(su::is_leaf_index(&pair, &[0]));
    assert!(su::is_leaf_index(&pair, &[1]));
    let n = tuple(vec![a.clone(), tuple(vec![a.clone(), a.clone()])]);
    assert!(!su::is_leaf_index(&n, &[]));
    assert!(su::is_leaf_index(&n, &[0]));
    assert!(!su::is_leaf_index(&n, &[1]));
    assert!(su::is_leaf_index(&n, &[1, 0]));
    assert!(su::is_leaf_index(&n, &[1, 1]));
}

#[test]
fn u41_for_each_subshape_array() {
    let a = s(T::F32, &[2, 3]);
    let mut calls = 0;
    su::for_each_subshape(&a, |sub, index| {
        calls += 1;
        assert!(std::ptr::eq(sub, &a));
        assert!(index.is_empty());
    });
    assert_eq!(calls, 1);
}

fn u42_shape() -> Shape {
    tuple(vec![
        s(T::F32, &[42]),
        tuple(vec![s(T::F32, &[101]), s(T::Pred, &[33])]),
    ])
}

#[test]
fn u42_for_each_subshape_nested() {
    let t = u42_shape();
    let mut seen: Vec<(ShapeIndex, Shape)> = Vec::new();
    su::for_each_subshape(&t, |sub, index| seen.push((index.clone(), sub.clone())));
    assert_eq!(seen.len(), 5);
    assert!(seen[0].0.is_empty());
    assert_eq!(seen[4].1, s(T::Pred, &[33]));
    assert_eq!(su::subshape_count(&t), 5);
}

#[test]
fn u43_for_each_mutable_leaf_shape() {
    let mut t = u42_shape();
    let mut counts = Vec::new();
    su::for_each_mutable_leaf_shape(&mut t, |sub, _| {
        counts.push(su::elements_in(sub.as_array().unwrap()).unwrap())
    });
    assert_eq!(counts, [42, 101, 33]);
}

#[test]
fn u44_inserted_or_deleted_1_sized_dimensions() {
    let m = su::make_shape;
    let d = su::inserted_or_deleted_1_sized_dimensions(
        &m(T::S32, &[9, 1, 4]),
        &m(T::S32, &[1, 9, 4, 1]),
    )
    .unwrap();
    assert_eq!(d.deleted_dimensions, [1]);
    assert_eq!(d.inserted_dimensions, [0, 3]);
    assert!(
        su::inserted_or_deleted_1_sized_dimensions(&m(T::S32, &[9, 1, 4]), &m(T::S32, &[3, 1, 12]))
            .is_none()
    );
}

fn count_indices(dims: &[i64]) -> i64 {
    let mut n = 0;
    su::for_each_index(&su::make_shape(T::F32, dims), |_| {
        n += 1;
        true
    })
    .unwrap();
    n
}

#[test]
fn u45_for_each_index_counts() {
    let cases: [(&[i64], i64); 8] = [
        (&[], 1),
        (&[0], 0),
        (&[16], 16),
        (&[3, 0], 0),
        (&[0, 2], 0),
        (&[4, 16], 64),
        (&[6, 11, 17], 1122),
        (&[6, 11, 5, 17], 5610),
    ];
    for (dims, n) in cases {
        assert_eq!(count_indices(dims), n, "{dims:?}");
    }
}

#[test]
fn u46_for_each_index_with_status_stops_at_the_error() {
    let shape = su::make_shape(T::F32, &[10, 10]);
    let mut calls = 0;
    let r = su::for_each_index_in_with_status(&shape, &[0, 0], &[10, 10], &[0, 1], |_| {
        calls += 1;
        if calls == 5 {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                "Cannot increment beyond 5.",
            ));
        }
        Ok(true)
    });
    assert!(
        r.unwrap_err()
            .to_string()
            .contains("Cannot increment beyond 5.")
    );
    assert_eq!(calls, 5);
}

#[test]
fn u47_for_each_index_parallel_fills_everything() {
    let shape = su::make_shape(T::F32, &[10, 10]);
    let out = Mutex::new([[0i64; 10]; 10]);
    su::for_each_index_parallel(&shape, |i, _| {
        out.lock().unwrap()[i[0] as usize][i[1] as usize] = 5 + i[0] + i[1];
        true
    })
    .unwrap();
    let out = out.into_inner().unwrap();
    for (i, row) in out.iter().enumerate() {
        for (j, &v) in row.iter().enumerate() {
            assert_eq!(v, 5 + i as i64 + j as i64);
        }
    }
}

fn parallel_visits(dims: &[i64], base: &[i64], count: &[i64], incr: &[i64]) -> Vec<Vec<i64>> {
    let seen = Mutex::new(Vec::new());
    su::for_each_index_parallel_in(
        &su::make_shape(T::F32, dims),
        base,
        count,
        incr,
        |i, thread| {
            assert!((0..su::get_for_each_index_parallel_thread_count().max(1)).contains(&thread));
            seen.lock().unwrap().push(i.to_vec());
            true
        },
    )
    .unwrap();
    let mut seen = seen.into_inner().unwrap();
    seen.sort();
    seen
}

#[test]
fn u48_for_each_index_parallel_scalar() {
    assert_eq!(parallel_visits(&[], &[], &[], &[]), [Vec::<i64>::new()]);
}

#[test]
fn u49_for_each_index_parallel_zero_elements() {
    assert!(parallel_visits(&[2, 0], &[0, 0], &[2, 0], &[1, 1]).is_empty());
}

#[test]
fn u50_for_each_index_parallel_pinned_dimension() {
    assert_eq!(
        parallel_visits(&[2, 2], &[1, 0], &[0, 2], &[0, 1]),
        [[1, 0], [1, 1]]
    );
}

#[test]
fn u51_for_each_index_parallel_strided() {
    assert_eq!(
        parallel_visits(&[10, 10], &[2, 3], &[3, 1], &[2, 1]),
        [[2, 3], [4, 3]]
    );
}

#[test]
fn u52_for_each_index_parallel_step_3() {
    let mut expected = Vec::new();
    for i in [0, 3, 6, 9] {
        for j in [0, 3, 6, 9] {
            expected.push(vec![i, j]);
        }
    }
    assert_eq!(
        parallel_visits(&[10, 10], &[0, 0], &[10, 10], &[3, 3]),
        expected
    );
}

#[test]
fn u53_dimensions_unmodified_by_reshape_all_ones() {
    let (a, b) = (
        su::make_shape(T::S32, &[1, 1, 1, 1]),
        su::make_shape(T::S32, &[1, 1, 1]),
    );
    assert_eq!(
        su::dimensions_unmodified_by_reshape(&a, &b),
        [(0, 0), (1, 1), (2, 2)]
    );
    assert_eq!(
        su::dimensions_unmodified_by_reshape(&b, &a),
        [(0, 0), (1, 1), (2, 2)]
    );
}

#[test]
fn u54_dimensions_unmodified_by_reshape() {
    let a = su::make_shape(T::S32, &[4, 1, 3, 5, 6, 7]);
    let b = su::make_shape(T::S32, &[2, 6, 1, 5, 1, 42]);
    assert_eq!(su::dimensions_unmodified_by_reshape(&a, &b), [(3, 3)]);
}

#[test]
fn u55_header_example() {
    // T[a,b,x,y,cd] -> T[ab,x,1,y,c,d] with a=2, b=3, x=5, y=7, c=5, d=6.
    let a = su::make_shape(T::F32, &[2, 3, 5, 7, 30]);
    let b = su::make_shape(T::F32, &[6, 5, 1, 7, 5, 6]);
    assert_eq!(
        su::dimensions_unmodified_by_reshape(&a, &b),
        [(2, 1), (3, 3)]
    );
    assert_eq!(
        su::reshape_leaves_dimensions_unmodified(&a, &b, &[2, 3]),
        Some(vec![1, 3])
    );
    assert_eq!(
        su::reshape_leaves_dimensions_unmodified(&a, &b, &[3, 2]),
        None
    );
    assert_eq!(su::reshape_leaves_dimensions_unmodified(&a, &b, &[0]), None);
}

#[test]
fn u56_reshape_is_bitcast_2d() {
    for in_mtm in [[1, 0], [0, 1]] {
        for out_mtm in [[1, 0], [0, 1]] {
            let a = dense(T::F32, &[3, 4], &in_mtm);
            let b = dense(T::F32, &[6, 2], &out_mtm);
            let expected = in_mtm == [1, 0] && out_mtm == [1, 0];
            assert_eq!(su::reshape_is_bitcast(&a, &b, false).unwrap(), expected);
        }
    }
}

#[test]
fn u57_reshape_is_bitcast_3d() {
    let a = dense(T::F32, &[3, 2, 2], &[1, 0, 2]);
    assert!(su::reshape_is_bitcast(&a, &dense(T::F32, &[6, 2], &[0, 1]), false).unwrap());
}

#[test]
fn u58_reshape_is_bitcast_ignoring_element_type() {
    let a = dense(T::F32, &[3, 2, 2], &[1, 0, 2]);
    let b = dense(T::F16, &[6, 2], &[0, 1]);
    assert!(su::reshape_is_bitcast(&a, &b, true).unwrap());
    assert!(!su::reshape_is_bitcast(&a, &b, false).unwrap());
}

#[test]
fn u59_reshape_is_not_bitcast() {
    let a = dense(T::F32, &[3, 2, 2], &[0, 1, 2]);
    assert!(!su::reshape_is_bitcast(&a, &dense(T::F32, &[6, 2], &[0, 1]), false).unwrap());
}

#[test]
fn u60_transpose_is_bitcast_ignoring_element_type() {
    let a = dense(T::F32, &[10, 5], &[1, 0]);
    let b = dense(T::F16, &[5, 10], &[0, 1]);
    assert!(su::transpose_is_bitcast(&a, &b, &[1, 0], true).unwrap());
    assert!(!su::transpose_is_bitcast(&a, &b, &[1, 0], false).unwrap());
}

#[test]
fn u61_is_reshape_or_transpose_bitcast() {
    let a = dense(T::F32, &[10, 5], &[1, 0]);
    let b = dense(T::F32, &[5, 10], &[0, 1]);
    assert!(su::is_reshape_or_transpose_bitcast(&a, &b, false).unwrap());
}

#[test]
fn u62_has_degenerate_dimensions() {
    let m = su::make_shape;
    assert!(su::has_degenerate_dimensions(&m(T::F32, &[3, 1, 2])));
    assert!(su::has_degenerate_dimensions(&m(T::F32, &[3, 1, 1])));
    assert!(!su::has_degenerate_dimensions(&m(T::F32, &[3, 3, 5])));
    assert!(!su::has_degenerate_dimensions(&m(T::F32, &[3, 0, 5])));
}

const PERMS3: [[i64; 3]; 6] = [
    [0, 1, 2],
    [0, 2, 1],
    [1, 0, 2],
    [1, 2, 0],
    [2, 0, 1],
    [2, 1, 0],
];

#[test]
fn u63_permute_dimensions_is_a_bitcast_transpose() {
    for layout in PERMS3 {
        let shape = dense(T::F32, &[10, 100, 1000], &layout);
        for perm in PERMS3 {
            let permuted = su::permute_dimensions(&perm, &shape).unwrap();
            assert!(
                su::transpose_is_bitcast(&shape, &permuted, &perm, false).unwrap(),
                "{layout:?} {perm:?}"
            );
        }
    }
}

#[test]
fn u64_permute_dimensions_moves_dynamic_flags() {
    let shape =
        su::make_shape_with_dynamic_dimensions(T::F32, &[10, 100, 1000], &[false, true, true]);
    for perm in PERMS3 {
        let p = su::permute_dimensions(&perm, &shape).unwrap();
        for (i, &from) in perm.iter().enumerate() {
            let from = from as usize;
            assert_eq!(p.dimensions()[i], shape.dimensions()[from]);
            assert_eq!(p.dynamic_dimensions()[i], shape.dynamic_dimensions()[from]);
        }
    }
}

#[test]
fn u65_update_dynamic_dimension() {
    let mut t = tuple(vec![s(T::F32, &[10, 100, 1000])]);
    su::update_dynamic_dimension(&mut t, &[0], 1, true).unwrap();
    assert!(
        su::get_subshape(&t, &[0])
            .as_array()
            .unwrap()
            .is_dynamic_dimension(1)
    );
    assert_eq!(t.to_string(), "(f32[10,<=100,1000]{2,1,0})");
    assert!(su::update_dynamic_dimension(&mut t, &[], 1, true).is_err()); // a tuple
    assert!(su::update_dynamic_dimension(&mut t, &[3], 1, true).is_err()); // no element 3
}

#[test]
fn u66_unbounded_dimension_marked_static() {
    let u = ArrayShape::UNBOUNDED_SIZE;
    let e = su::make_validated_shape_with_dynamic_dimensions(T::F32, &[u, u], &[true, false])
        .unwrap_err();
    assert!(e.to_string().contains("Invalid dimension size"), "{e}");
}

#[test]
fn u67_prepend_major_dimension() {
    let p = su::prepend_major_dimension(40, &su::make_shape(T::F32, &[10, 20, 30])).unwrap();
    assert_eq!(p, su::make_shape(T::F32, &[40, 10, 20, 30]));
}

#[test]
fn u68_prepend_major_dimension_layout() {
    let p = su::prepend_major_dimension(40, &dense(T::F32, &[10, 20, 30], &[0, 2, 1])).unwrap();
    assert_eq!(p, dense(T::F32, &[40, 10, 20, 30], &[1, 3, 2, 0]));
}

#[test]
fn u69_prepend_major_dimension_descending() {
    let p = su::prepend_major_dimension(40, &dense(T::F32, &[10, 20, 30], &[2, 1, 0])).unwrap();
    assert_eq!(p, dense(T::F32, &[40, 10, 20, 30], &[3, 2, 1, 0]));
}

#[test]
fn u70_append_minor_dimension() {
    let mut a = su::make_shape(T::F32, &[10, 20, 30]);
    su::append_minor_dimension(40, &mut a).unwrap();
    // MakeShape's default layout {2,1,0} gains the new dimension as most
    // minor: {3,2,1,0}, which is MakeShape(F32,{10,20,30,40})'s.
    assert_eq!(a, su::make_shape(T::F32, &[10, 20, 30, 40]));
}

#[test]
fn u71_append_minor_dimension_layouts() {
    let mut a = dense(T::F32, &[10, 20, 30], &[2, 1, 0]);
    su::append_minor_dimension(40, &mut a).unwrap();
    assert_eq!(a, dense(T::F32, &[10, 20, 30, 40], &[3, 2, 1, 0]));
    let mut b = dense(T::F32, &[10, 20, 30], &[0, 2, 1]);
    su::append_minor_dimension(40, &mut b).unwrap();
    assert_eq!(b, dense(T::F32, &[10, 20, 30, 40], &[3, 0, 2, 1]));
}

#[test]
fn u72_move_dim_to_major() {
    let a: Shape = dense(T::F32, &[10, 10, 10], &[2, 1, 0]).into();
    assert_eq!(su::move_dim_to_major(&a, 0), a);
    assert_eq!(
        su::move_dim_to_major(&a, 1),
        dense(T::F32, &[10, 10, 10], &[2, 0, 1]).into()
    );
}

#[test]
fn u73_move_dim_to_major_permuted() {
    let a: Shape = dense(T::F32, &[10, 10, 10], &[0, 2, 1]).into();
    assert_eq!(
        su::move_dim_to_major(&a, 0),
        dense(T::F32, &[10, 10, 10], &[2, 1, 0]).into()
    );
}

#[test]
fn u74_move_dim_to_major_tuple() {
    let t = tuple(vec![
        dense(T::F32, &[10, 10, 10], &[2, 1, 0]).into(),
        dense(T::F32, &[10, 10, 10], &[0, 2, 1]).into(),
    ]);
    let expected = tuple(vec![
        dense(T::F32, &[10, 10, 10], &[2, 1, 0]).into(),
        dense(T::F32, &[10, 10, 10], &[2, 1, 0]).into(),
    ]);
    assert_eq!(su::move_dim_to_major(&t, 0), expected);
}

#[test]
fn u75_delete_dimensions_one() {
    let a = dense(T::F32, &[5, 3, 2], &[2, 0, 1]);
    assert_eq!(
        su::delete_dimensions(&[1], &a).unwrap(),
        dense(T::F32, &[5, 2], &[1, 0])
    );
    assert_eq!(
        su::delete_dimension(1, &a).unwrap(),
        dense(T::F32, &[5, 2], &[1, 0])
    );
}

#[test]
fn u76_delete_dimensions_any_order() {
    let a = dense(T::F32, &[5, 3, 2, 7, 9], &[2, 0, 1, 4, 3]);
    let expected = dense(T::F32, &[5, 9], &[0, 1]);
    assert_eq!(su::delete_dimensions(&[1, 2, 3], &a).unwrap(), expected);
    assert_eq!(su::delete_dimensions(&[3, 2, 1], &a).unwrap(), expected);
}

#[test]
fn u77_descending_layout_same_physical_layout() {
    let a = dense(T::F32, &[128, 24, 4, 48, 48], &[2, 4, 3, 1, 0]);
    assert_eq!(
        su::make_shape_with_descending_layout_and_same_physical_layout(&a),
        dense(T::F32, &[128, 24, 48, 48, 4], &[4, 3, 2, 1, 0])
    );
}

#[test]
fn u78_descending_layout_same_physical_layout_dynamic() {
    let u = ArrayShape::UNBOUNDED_SIZE;
    let a = su::make_shape(T::F32, &[128, 24, u, 48, 48])
        .with_layout(Some(Layout::new([2, 4, 3, 1, 0])))
        .unwrap();
    let d = su::make_shape_with_descending_layout_and_same_physical_layout(&a);
    assert_eq!(d.to_string(), "f32[128,24,48,48,?]{4,3,2,1,0}");
}

#[test]
fn u79_deduce_transpose_dimensions() {
    let a = dense(T::F32, &[5, 3], &[1, 0]);
    let b = dense(T::F32, &[3, 5], &[0, 1]);
    assert_eq!(
        su::deduce_transpose_dimensions_for_bitcast(&a, &b).unwrap(),
        Some(vec![1, 0])
    );
}

#[test]
fn u80_deduce_transpose_dimensions_none() {
    let a = dense(T::F32, &[5, 3], &[1, 0]);
    let b = dense(T::F32, &[3, 5], &[1, 0]);
    assert_eq!(
        su::deduce_transpose_dimensions_for_bitcast(&a, &b).unwrap(),
        None
    );
}

#[test]
fn u81_to_u83_is_effectively_most_major_dimension() {
    let dims = [1, 1, 16, 1, 279];
    let f = |mtm: &[i64], d| {
        su::is_effectively_most_major_dimension(&dense(T::F32, &dims, mtm), d).unwrap()
    };
    assert!(f(&[4, 0, 1, 2, 3], 2)); // U81
    assert!(f(&[4, 1, 2, 3, 0], 2)); // U82
    assert!(!f(&[0, 1, 2, 3, 4], 2)); // U83
    assert!(f(&[0, 1, 2, 3, 4], 4)); // U83
}

#[test]
fn u84_invalid_physical_shape_is_rejected() {
    // FromProto accepts, ValidateShape rejects; our decoding does both.
    let element = ShapeProto {
        element_type: T::S8 as i32,
        dimensions: vec![137438953472],
        is_dynamic_dimension: vec![false],
        layout: Some(Box::new(LayoutProto {
            minor_to_major: vec![0],
            physical_shape: Some(Box::new(ShapeProto {
                element_type: T::Tuple as i32,
                tuple_shapes: vec![ShapeProto::default()],
                ..Default::default()
            })),
            ..Default::default()
        })),
        ..Default::default()
    };
    let p = ShapeProto {
        element_type: T::Tuple as i32,
        tuple_shapes: vec![element],
        ..Default::default()
    };
    assert!(Shape::try_from(&p).is_err());
}

#[test]
fn u85_invalid_layout_is_rejected() {
    let p = ShapeProto {
        element_type: T::S8 as i32,
        dimensions: vec![0, 8, 0, 0, 4, 1, 1, 6, 281474976710657, 1],
        layout: Some(Box::new(LayoutProto {
            minor_to_major: vec![1, 3, 0, 5, 4, 6, 8, 7, 6, 9],
            physical_shape: Some(Box::new(ShapeProto {
                element_type: -562,
                ..Default::default()
            })),
            ..Default::default()
        })),
        ..Default::default()
    };
    assert!(Shape::try_from(&p).is_err());
}

#[test]
fn u86_invalid_element_types_are_rejected() {
    for t in [2000, -1] {
        let p = ShapeProto {
            element_type: t,
            ..Default::default()
        };
        let e = Shape::try_from(&p).unwrap_err();
        assert!(e.to_string().contains("Invalid element type"), "{e}");
    }
}

fn s4_e4(dims: &[i64], layout: Layout) -> ArrayShape {
    su::make_shape_with_dense_layout_from_layout(T::S4, dims, layout.with_element_size_in_bits(4))
}

#[test]
fn u87_s4_sizes() {
    let a = s4_e4(&[64, 128], Layout::new([1, 0]));
    assert_eq!(su::array_data_size(&a).unwrap(), 4096);
    assert_eq!(su::array_size(&a).unwrap(), 4096);
}

#[test]
fn u88_s4_tiled_sizes() {
    let tiles = vec![
        xla_shape::Tile::new([64, 128]).unwrap(),
        xla_shape::Tile::new([8, 1]).unwrap(),
    ];
    let a = s4_e4(&[9216, 6144], Layout::new([1, 0]).with_tiles(tiles));
    assert_eq!(su::array_data_size(&a).unwrap(), 28311552);
    assert_eq!(su::array_size(&a).unwrap(), 28311552);
}

#[test]
fn u89_change_element_type_element_size() {
    let a: Shape = s4_e4(&[64, 128], Layout::new([1, 0])).into();
    let e = |t| {
        su::change_element_type(&a, t)
            .unwrap()
            .layout()
            .unwrap()
            .element_size_in_bits()
    };
    assert_eq!(e(T::Pred), 0);
    assert_eq!(e(T::U8), 0);
    assert_eq!(e(T::U4), 4);
}

#[test]
fn u90_zero_element_sizes() {
    let cases: [&[i64]; 6] = [
        &[0, 64, 128],
        &[128, 0, 64],
        &[64, 128, 0],
        &[0, 63, 127],
        &[127, 0, 63],
        &[63, 127, 0],
    ];
    for dims in cases {
        let a = s4_e4(dims, Layout::new([2, 1, 0]));
        assert_eq!(su::array_data_size(&a).unwrap(), 0, "{dims:?}");
        assert_eq!(su::array_size(&a).unwrap(), 0, "{dims:?}");
    }
}

#[test]
fn u91_decompose_bitcast_reshape() {
    let a = dense(T::F32, &[1, 16, 17, 3], &[3, 2, 1, 0]);
    let b = dense(T::F32, &[16, 51], &[1, 0]);
    assert_eq!(
        su::decompose_bitcast(&a, &b).unwrap(),
        BitcastDecomposition::Reshape
    );
}

#[test]
fn u92_decompose_bitcast_reshape_permuted() {
    let a = dense(T::F32, &[17, 3, 1, 16], &[1, 0, 3, 2]);
    let b = dense(T::F32, &[51, 16], &[0, 1]);
    assert_eq!(
        su::decompose_bitcast(&a, &b).unwrap(),
        BitcastDecomposition::Reshape
    );
}

#[test]
fn u93_decompose_bitcast_transpose() {
    let a = dense(T::F32, &[3, 7, 6, 4], &[3, 2, 1, 0]);
    let b = dense(T::F32, &[3, 6, 4, 7], &[2, 1, 3, 0]);
    assert_eq!(
        su::decompose_bitcast(&a, &b).unwrap(),
        BitcastDecomposition::Transpose(vec![0, 2, 3, 1])
    );
}

fn trt(a: &ArrayShape, b: &ArrayShape) -> su::BitcastDecompositionTrt {
    match su::decompose_bitcast(a, b).unwrap() {
        BitcastDecomposition::Trt(t) => *t,
        other => panic!("expected Trt, got {other:?}"),
    }
}

#[test]
fn u94_decompose_bitcast_trt_second_transpose() {
    let a = dense(T::F32, &[16, 17, 3], &[2, 1, 0]);
    let t = trt(&a, &dense(T::F32, &[51, 16], &[0, 1]));
    assert_eq!(t.transpose1_dims, [0, 1, 2]);
    assert!(t.is_transpose1_identity());
    assert_eq!(t.transpose1_shape, a);
    assert_eq!(t.reshape_shape, dense(T::F32, &[16, 51], &[1, 0]));
    assert_eq!(t.transpose2_dims, [1, 0]);
    assert!(!t.is_transpose2_identity());
}

#[test]
fn u95_decompose_bitcast_trt_rank3_output() {
    let a = dense(T::F32, &[16, 17, 3, 7], &[3, 2, 1, 0]);
    let t = trt(&a, &dense(T::F32, &[7, 16, 51], &[0, 2, 1]));
    assert_eq!(t.transpose1_dims, [0, 1, 2, 3]);
    assert_eq!(t.transpose1_shape, a);
    assert_eq!(t.reshape_shape, dense(T::F32, &[16, 51, 7], &[2, 1, 0]));
    assert_eq!(t.transpose2_dims, [2, 0, 1]);
}

#[test]
fn u96_decompose_bitcast_trt_first_transpose() {
    let b = dense(T::F32, &[51, 16], &[1, 0]);
    let t = trt(&dense(T::F32, &[16, 3, 17], &[1, 2, 0]), &b);
    assert_eq!(t.transpose1_dims, [0, 2, 1]);
    assert_eq!(t.transpose1_shape, dense(T::F32, &[16, 17, 3], &[2, 1, 0]));
    assert_eq!(t.reshape_shape, b);
    assert_eq!(t.transpose2_dims, [0, 1]);
    assert!(t.is_transpose2_identity());
}

#[test]
fn u97_decompose_bitcast_trt_both() {
    let t = trt(
        &dense(T::F32, &[16, 3, 17], &[1, 2, 0]),
        &dense(T::F32, &[16, 51], &[0, 1]),
    );
    assert_eq!(t.transpose1_dims, [0, 2, 1]);
    assert_eq!(t.transpose1_shape, dense(T::F32, &[16, 17, 3], &[2, 1, 0]));
    assert_eq!(t.reshape_shape, dense(T::F32, &[51, 16], &[1, 0]));
    assert_eq!(t.transpose2_dims, [1, 0]);
}

#[test]
fn u98_reorder_logical_dimensions() {
    let a = dense(T::F32, &[16, 3, 12, 17], &[1, 2, 0, 3]);
    let r = su::reorder_logical_dimensions(&a, &[0, 2, 1, 3]).unwrap();
    assert_eq!(r.to_string(), "f32[16,12,3,17]{2,1,0,3}");
}

#[test]
fn u99_align_layouts() {
    let a = dense(T::F32, &[3, 8, 5, 7, 11], &[3, 2, 1, 0, 4]);
    let out = su::align_layouts(&a, &su::make_shape(T::F32, &[4, 3, 2, 7, 5, 11]))
        .unwrap()
        .unwrap();
    assert_eq!(out.layout().unwrap().minor_to_major(), [4, 3, 2, 1, 0, 5]);
    assert!(su::reshape_is_bitcast(&a, &out, false).unwrap());
}

#[test]
fn u100_align_layouts_merge() {
    let a = dense(T::F32, &[3, 8, 5, 7, 11], &[3, 2, 1, 0, 4]);
    let out = su::align_layouts(&a, &su::make_shape(T::F32, &[3, 2, 4, 35, 11]))
        .unwrap()
        .unwrap();
    assert_eq!(out.layout().unwrap().minor_to_major(), [3, 2, 1, 0, 4]);
}

#[test]
fn u101_align_layouts_degenerate_dimensions() {
    let a = dense(
        T::F32,
        &[1, 3, 8, 1, 5, 7, 1, 11, 1, 1],
        &[5, 0, 4, 2, 1, 3, 6, 7, 9, 8],
    );
    let out = su::align_layouts(&a, &su::make_shape(T::F32, &[1, 4, 1, 3, 2, 7, 5, 11, 1]))
        .unwrap()
        .unwrap();
    assert!(su::reshape_is_bitcast(&a, &out, false).unwrap());
}

#[test]
fn u102_align_layouts_all_ones() {
    let a = dense(T::F32, &[1, 1, 1, 1], &[0, 1, 3, 2]);
    let out = su::align_layouts(&a, &su::make_shape(T::F32, &[1, 1, 1, 1, 1]))
        .unwrap()
        .unwrap();
    assert!(su::reshape_is_bitcast(&a, &out, false).unwrap());
}

#[test]
fn u103_align_layouts_impossible() {
    let a = dense(T::F32, &[3, 8, 5, 7, 11], &[2, 3, 1, 0, 4]);
    assert_eq!(
        su::align_layouts(&a, &su::make_shape(T::F32, &[4, 3, 2, 7, 5, 11])).unwrap(),
        None
    );
}

#[test]
fn u104_align_layouts_impossible_split() {
    let a = dense(T::F32, &[3, 8, 5, 7, 11], &[3, 2, 1, 0, 4]);
    assert_eq!(
        su::align_layouts(&a, &su::make_shape(T::F32, &[4, 3, 2, 5, 77])).unwrap(),
        None
    );
}

#[test]
fn u105_flatten_tuple_shape() {
    let t = tuple(vec![
        s(T::F32, &[2, 3]),
        tuple(vec![s(T::F32, &[4, 5]), su::make_nil(), s(T::F32, &[6, 7])]),
        s(T::F32, &[8, 9]),
    ]);
    let flat: Vec<String> = su::flatten_tuple_shape(&t)
        .iter()
        .map(|x| su::human_string(x))
        .collect();
    assert_eq!(flat, ["f32[2,3]", "f32[4,5]", "f32[6,7]", "f32[8,9]"]);
}

#[test]
fn u106_shape_index_round_trip() {
    // ShapeIndexProto is `repeated int64 indexes` (shape_util.proto, not in
    // xla_data.proto): the round trip through that list.
    for idx in [
        ShapeIndex::new(),
        ShapeIndex::from([1]),
        ShapeIndex::from([1, 2, 42]),
    ] {
        let indexes: Vec<i64> = idx.clone().into();
        assert_eq!(ShapeIndex::from(indexes), idx);
    }
}
