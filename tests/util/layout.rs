//! layout_util: the cases of upstream's xla/layout_util_test.cc, each named
//! by its case number and what it checks.

use xla_shape::PrimitiveType as T;
use xla_shape::{
    ArrayShape, Layout, LayoutEqual, PrimitiveType, ProgramShape, Shape, SplitConfig, Tile,
};
use xla_shape::{layout_util as lu, shape_util as su};

/// The test file's helper `L(t, dims, mtm)`: MakeShape with the layout
/// replaced by `MakeLayout(mtm)`.
fn l(t: PrimitiveType, dims: &[i64], mtm: &[i64]) -> Shape {
    su::make_shape(t, dims)
        .with_layout(Some(lu::make_layout(mtm)))
        .unwrap()
        .into()
}

fn dense(t: PrimitiveType, dims: &[i64], mtm: &[i64]) -> ArrayShape {
    su::make_shape_with_dense_layout(t, dims, mtm)
}

fn tuple(elements: Vec<Shape>) -> Shape {
    su::make_tuple_shape(elements)
}

fn layout_of(s: &Shape) -> Option<&Layout> {
    s.layout()
}

#[test]
fn y1_layouts_in_shapes_equal_tuples() {
    let s = l(T::F32, &[2, 3], &[0, 1]);
    let t0 = tuple(vec![]);
    let t1 = tuple(vec![s.clone()]);
    let t2 = tuple(vec![s.clone(), s.clone()]);
    let eq = lu::layouts_in_shapes_equal;
    assert!(eq(&t0, &t0));
    assert!(!eq(&t0, &t1));
    assert!(!eq(&t0, &t2));
    assert!(!eq(&t1, &t0));
    assert!(!eq(&t2, &t0));
    assert!(eq(&t1, &t1));
    assert!(!eq(&t1, &t2));
    assert!(!eq(&t2, &t1));
}

#[test]
fn y2_layouts_in_shapes_equal_ignores_dimensions() {
    let s = l(T::F32, &[2, 3], &[0, 1]);
    let o = l(T::F32, &[2, 2], &[0, 1]);
    let t2 = tuple(vec![s.clone(), s.clone()]);
    let t3 = tuple(vec![s, o]);
    assert!(lu::layouts_in_shapes_equal(&t2, &t2));
    assert!(lu::layouts_in_shapes_equal(&t2, &t3));
    assert!(lu::layouts_in_shapes_equal(&t3, &t2));
}

#[test]
fn y3_copy_layout_array() {
    let src = l(T::F32, &[2, 3], &[0, 1]);
    let mut dst = l(T::F32, &[2, 3], &[1, 0]);
    assert!(!lu::layouts_in_shapes_equal(&src, &dst));
    lu::copy_layout_between_shapes(&src, &mut dst).unwrap();
    assert!(lu::layouts_in_shapes_equal(&src, &dst));
}

#[test]
fn y4_copy_layout_into_shape_without_layout() {
    let src = l(T::F32, &[2, 3], &[0, 1]);
    let mut dst = l(T::F32, &[2, 3], &[1, 0]);
    lu::clear_layout(&mut dst);
    assert!(!lu::layouts_in_shapes_equal(&src, &dst));
    lu::copy_layout_between_shapes(&src, &mut dst).unwrap();
    assert!(lu::layouts_in_shapes_equal(&src, &dst));
    assert_eq!(layout_of(&dst), Some(&Layout::new([0, 1])));
}

#[test]
fn y5_copy_missing_layout_clears() {
    let mut src = l(T::F32, &[2, 3], &[0, 1]);
    lu::clear_layout(&mut src);
    let mut dst = l(T::F32, &[2, 3], &[1, 0]);
    assert!(!lu::layouts_in_shapes_equal(&src, &dst));
    assert!(lu::has_layout(&dst));
    lu::copy_layout_between_shapes(&src, &mut dst).unwrap();
    assert!(lu::layouts_in_shapes_equal(&src, &dst));
    assert!(!lu::has_layout(&dst));
}

#[test]
fn y6_copy_layout_tuple() {
    let src = tuple(vec![
        l(T::F32, &[2, 3], &[0, 1]),
        l(T::F32, &[42, 123], &[1, 0]),
        tuple(vec![l(T::F32, &[], &[]), l(T::F32, &[1, 2, 3], &[0, 2, 1])]),
    ]);
    let mut dst = tuple(vec![
        l(T::F32, &[2, 3], &[1, 0]),
        l(T::F32, &[42, 123], &[1, 0]),
        tuple(vec![l(T::F32, &[], &[]), l(T::F32, &[1, 2, 3], &[1, 2, 0])]),
    ]);
    assert!(!lu::layouts_in_shapes_equal(&src, &dst));
    lu::copy_layout_between_shapes(&src, &mut dst).unwrap();
    assert!(lu::layouts_in_shapes_equal(&src, &dst));
}

#[test]
fn y7_copy_layout_different_dimensions_same_rank() {
    let src = l(T::F32, &[123, 42, 7], &[2, 0, 1]);
    let mut dst = l(T::F32, &[2, 3, 5], &[1, 0, 2]);
    lu::copy_layout_between_shapes(&src, &mut dst).unwrap();
    assert!(lu::layouts_in_shapes_equal(&src, &dst));
}

#[test]
fn y8_copy_layout_different_ranks_fails() {
    let src = l(T::F32, &[123, 42, 7], &[2, 0, 1]);
    let mut dst = l(T::F32, &[2, 3], &[1, 0]);
    let e = lu::copy_layout_between_shapes(&src, &mut dst).unwrap_err();
    assert!(
        e.to_string().contains("cannot copy layout from shape"),
        "{e}"
    );
}

#[test]
fn y9_copy_layout_tuple_count_differs_fails() {
    let src = tuple(vec![
        l(T::F32, &[2, 3], &[0, 1]),
        l(T::F32, &[42, 123], &[1, 0]),
        tuple(vec![l(T::F32, &[1, 2, 3], &[0, 2, 1])]),
    ]);
    let mut dst = tuple(vec![
        l(T::F32, &[2, 3], &[1, 0]),
        l(T::F32, &[42, 123], &[1, 0]),
        tuple(vec![l(T::F32, &[], &[]), l(T::F32, &[1, 2, 3], &[1, 2, 0])]),
    ]);
    let e = lu::copy_layout_between_shapes(&src, &mut dst).unwrap_err();
    assert!(
        e.to_string().contains("cannot copy layout from shape"),
        "{e}"
    );
}

#[test]
fn y10_bogus_layout_is_rejected() {
    // Our shapes cannot hold the bogus layout {1,2,3,4} on f32[2,3]; the
    // same validation rejects it when it is put there.
    let e = su::make_shape(T::F32, &[2, 3])
        .with_layout(Some(Layout::new([1, 2, 3, 4])))
        .unwrap_err();
    assert!(
        e.to_string().starts_with(
            "layout minor_to_major field contains 4 elements, but shape has 2 dimensions"
        ),
        "{e}"
    );
    let e = lu::validate_layout_for_shape(
        &Layout::new([1, 2, 3, 4]),
        &su::make_shape(T::F32, &[2, 3]).into(),
    )
    .unwrap_err();
    assert!(e.to_string().contains("elements, but shape has"), "{e}");
}

#[test]
fn y11_token_and_opaque() {
    for s in [su::make_token_shape(), su::make_opaque_shape()] {
        let mut dst = s.clone();
        assert!(lu::layouts_in_shapes_equal(&s, &dst));
        lu::copy_layout_between_shapes(&s, &mut dst).unwrap();
        assert_eq!(dst, s);
    }
}

#[test]
fn y12_tuples_with_token_and_opaque() {
    let src = tuple(vec![
        l(T::F32, &[2, 3], &[0, 1]),
        su::make_opaque_shape(),
        tuple(vec![
            su::make_token_shape(),
            l(T::F32, &[1, 2, 3], &[0, 2, 1]),
        ]),
    ]);
    let mut dst = tuple(vec![
        l(T::F32, &[2, 3], &[1, 0]),
        su::make_opaque_shape(),
        tuple(vec![
            su::make_token_shape(),
            l(T::F32, &[1, 2, 3], &[1, 2, 0]),
        ]),
    ]);
    assert!(!lu::layouts_in_shapes_equal(&src, &dst));
    lu::copy_layout_between_shapes(&src, &mut dst).unwrap();
    assert!(lu::layouts_in_shapes_equal(&src, &dst));
}

#[test]
fn y13_clear_layout_tuple() {
    let mut s = tuple(vec![
        l(T::F32, &[2, 3], &[1, 0]),
        l(T::F32, &[42, 123], &[1, 0]),
        tuple(vec![l(T::F32, &[], &[]), l(T::F32, &[1, 2, 3], &[1, 2, 0])]),
    ]);
    assert!(lu::has_layout(&s));
    assert!(lu::has_layout(su::get_subshape(&s, &[0])));
    lu::clear_layout(&mut s);
    assert!(!lu::has_layout(&s));
    assert!(!lu::has_any_layout(&s));
    assert!(su::get_subshape(&s, &[0]).layout().is_none());
    assert!(su::get_subshape(&s, &[2, 1]).layout().is_none());
}

#[test]
fn y14_clear_layout_opaque_and_token() {
    for mut s in [su::make_opaque_shape(), su::make_token_shape()] {
        assert!(lu::has_layout(&s));
        lu::clear_layout(&mut s);
        assert!(lu::has_layout(&s));
    }
}

#[test]
fn y15_set_to_default_layout_tuple() {
    let mut s = tuple(vec![
        l(T::F32, &[2, 3, 4], &[1, 0, 2]),
        l(T::F32, &[42, 123, 7], &[1, 2, 0]),
        tuple(vec![
            l(T::F32, &[], &[]),
            l(T::F32, &[1, 2, 3, 4], &[3, 1, 2, 0]),
        ]),
    ]);
    lu::set_to_default_layout(&mut s);
    let e0 = su::get_subshape(&s, &[0]);
    let e1 = su::get_subshape(&s, &[1]);
    assert_eq!(layout_of(e0), layout_of(e1));
    assert_eq!(
        layout_of(e0).unwrap(),
        &lu::get_default_layout_for_shape(e0).unwrap()
    );
    assert_eq!(layout_of(e0).unwrap(), &Layout::new([2, 1, 0]));
    assert_eq!(
        layout_of(su::get_subshape(&s, &[2, 1])).unwrap(),
        &Layout::new([3, 2, 1, 0])
    );
}

#[test]
fn y16_default_layouts_for_r2_r3_r4() {
    assert_eq!(lu::get_default_layout_for_r2(), Layout::new([1, 0]));
    assert_eq!(lu::get_default_layout_for_r3(), Layout::new([2, 1, 0]));
    assert_eq!(lu::get_default_layout_for_r4(), Layout::new([3, 2, 1, 0]));
}

#[test]
fn y17_default_layout_for_shape() {
    let s: Shape = su::make_shape(T::F32, &[10, 20, 30, 15, 25]).into();
    assert_eq!(
        lu::get_default_layout_for_shape(&s).unwrap(),
        Layout::new([4, 3, 2, 1, 0])
    );
    assert_eq!(
        lu::get_default_layout_for_shape(&su::make_token_shape()).unwrap(),
        Layout::default()
    );
    assert!(lu::get_default_layout_for_shape(&su::make_nil()).is_err());
}

#[test]
fn y18_make_descending_layout() {
    assert_eq!(lu::make_descending_layout(5), Layout::new([4, 3, 2, 1, 0]));
    assert_eq!(lu::make_descending_layout(1), Layout::new([0]));
    assert_eq!(lu::make_descending_layout(0), Layout::new([]));
}

#[test]
fn y19_make_ascending_layout() {
    assert_eq!(lu::make_ascending_layout(5), Layout::new([0, 1, 2, 3, 4]));
    assert_eq!(lu::make_ascending_layout(1), Layout::new([0]));
    assert_eq!(lu::make_ascending_layout(0), Layout::new([]));
}

fn with_layout(s: &ArrayShape, layout: Layout) -> Shape {
    s.clone().with_layout(Some(layout)).unwrap().into()
}

#[test]
fn y20_human_string_with_layout() {
    let s = dense(T::F32, &[2, 3, 4], &[0, 1, 2]);
    assert_eq!(su::human_string_with_layout(&s.into()), "f32[2,3,4]{0,1,2}");
}

#[test]
fn y21_human_string_with_tiles() {
    let s = dense(T::F32, &[2, 3, 4], &[0, 1, 2]);
    let t1 = with_layout(
        &s,
        Layout::new([0, 1, 2]).with_tiles(vec![Tile::new([512, 1024]).unwrap()]),
    );
    assert_eq!(
        su::human_string_with_layout(&t1),
        "f32[2,3,4]{0,1,2:T(512,1024)}"
    );
    let t2 = with_layout(
        &s,
        Layout::new([0, 1, 2]).with_tiles(vec![Tile::new([512]).unwrap()]),
    );
    assert_eq!(
        su::human_string_with_layout(&t2),
        "f32[2,3,4]{0,1,2:T(512)}"
    );
}

#[test]
fn y22_human_string_two_tiles() {
    let s = dense(T::Bf16, &[2, 3, 4], &[1, 2, 0]);
    let t = with_layout(
        &s,
        Layout::new([1, 2, 0]).with_tiles(vec![
            Tile::new([16, 256]).unwrap(),
            Tile::new([2, 1]).unwrap(),
        ]),
    );
    assert_eq!(
        su::human_string_with_layout(&t),
        "bf16[2,3,4]{1,2,0:T(16,256)(2,1)}"
    );
}

#[test]
fn y23_to_y25_human_string_pred_tiles_and_element_size() {
    let s = dense(T::Pred, &[8, 8, 8], &[0, 2, 1]);
    let tiled = Layout::new([0, 2, 1]).with_tiles(vec![Tile::new([8, 128]).unwrap()]);
    let t = with_layout(&s, tiled.clone());
    assert_eq!(
        su::human_string_with_layout(&t),
        "pred[8,8,8]{0,2,1:T(8,128)}"
    ); // Y23
    let mut e = with_layout(&s, tiled.with_element_size_in_bits(32));
    assert_eq!(
        su::human_string_with_layout(&e),
        "pred[8,8,8]{0,2,1:T(8,128)E(32)}"
    ); // Y24
    lu::clear_tiles(&mut e);
    assert_eq!(su::human_string_with_layout(&e), "pred[8,8,8]{0,2,1:E(32)}"); // Y25
}

#[test]
fn y26_y27_combined_dimension_tiles() {
    let s = dense(T::Bf16, &[2, 3, 1004], &[2, 1, 0]);
    let t = with_layout(
        &s,
        Layout::new([2, 1, 0])
            .with_tiles(vec![Tile::new([2, Tile::COMBINE_DIMENSION, 128]).unwrap()]),
    );
    assert_eq!(
        su::human_string_with_layout(&t),
        "bf16[2,3,1004]{2,1,0:T(2,*,128)}"
    );
    let s = dense(T::Bf16, &[8, 2, 3, 1004], &[3, 2, 1, 0]);
    let star = Tile::COMBINE_DIMENSION;
    let t = with_layout(
        &s,
        Layout::new([3, 2, 1, 0]).with_tiles(vec![Tile::new([2, star, star, 128]).unwrap()]),
    );
    assert_eq!(
        su::human_string_with_layout(&t),
        "bf16[8,2,3,1004]{3,2,1,0:T(2,*,*,128)}"
    );
}

#[test]
fn y28_validate_layout_in_shape_ok() {
    let s: Shape = dense(T::F32, &[2, 3], &[0, 1]).into();
    assert!(lu::validate_layout_in_shape(&s, false).is_ok());
    assert!(lu::validate_layout_in_shape(&s, true).is_ok());
}

#[test]
fn y29_validate_layout_with_too_many_entries() {
    let s: Shape = su::make_shape(T::F32, &[2, 3]).into();
    let e = lu::validate_layout_for_shape(&Layout::new([0, 1, 2]), &s).unwrap_err();
    assert!(
        e.to_string().contains(
            "layout minor_to_major field contains 3 elements, but shape has 2 dimensions"
        ),
        "{e}"
    );
}

#[test]
fn y30_validate_missing_layout() {
    let mut s: Shape = su::make_shape(T::F32, &[2, 3]).into();
    lu::clear_layout(&mut s);
    let e = lu::validate_layout_in_shape(&s, false).unwrap_err();
    assert_eq!(e.to_string(), "shape f32[2,3] does not have a layout");
    assert!(lu::validate_layout_in_shape(&s, true).is_ok());
}

fn y31_shape() -> Shape {
    // (((f32[1,2]), f32[1,2]•), (f32[9]•)) with • = layout cleared.
    let a: Shape = su::make_shape(T::F32, &[1, 2]).into();
    let mut cleared_a = a.clone();
    lu::clear_layout(&mut cleared_a);
    let mut cleared_9: Shape = su::make_shape(T::F32, &[9]).into();
    lu::clear_layout(&mut cleared_9);
    tuple(vec![
        tuple(vec![tuple(vec![a]), cleared_a]),
        tuple(vec![cleared_9]),
    ])
}

#[test]
fn y31_validate_missing_layout_in_nested_tuple() {
    let s = y31_shape();
    let e = lu::validate_layout_in_shape(&s, false).unwrap_err();
    assert_eq!(e.to_string(), "shape f32[1,2] does not have a layout");
    assert!(lu::validate_layout_in_shape(&s, true).is_ok());
}

#[test]
fn y32_bad_layout_in_nested_tuple() {
    // Upstream puts {0,2,3} on subshape {1,0} (f32[9]) and validates; our
    // shapes reject it when it is put there, with the same message.
    let s = y31_shape();
    let sub = su::get_subshape(&s, &[1, 0]);
    let e = lu::validate_layout_for_shape(&Layout::new([0, 2, 3]), sub).unwrap_err();
    assert!(
        e.to_string().contains(
            "layout minor_to_major field contains 3 elements, but shape has 1 dimensions"
        ),
        "{e}"
    );
    let mut arr = sub.as_array().unwrap().clone();
    assert!(
        arr.clone()
            .with_layout(Some(Layout::new([0, 2, 3])))
            .is_err()
    );
    arr.clear_layout();
}

#[test]
fn y33_layout_util_move_dim_to_major() {
    let l210 = Layout::new([2, 1, 0]);
    assert_eq!(lu::move_dim_to_major(&l210, 0), l210);
    assert_eq!(lu::move_dim_to_major(&l210, 1), Layout::new([2, 0, 1]));
    // Other attributes are kept (unlike `ShapeUtil::MoveDimToMajor`, which rebuilds a bare layout).
    let tiled = Layout::new([2, 1, 0])
        .with_tiles(vec![Tile::new([8]).unwrap()])
        .with_memory_space(2);
    assert_eq!(
        lu::move_dim_to_major(&tiled, 1).to_string(),
        "{2,0,1:T(8)S(2)}"
    );
}

#[test]
fn y34_byte_strides_is_major_to_minor() {
    assert!(lu::byte_strides_is_major_to_minor(
        &[3960, 440, 44, 4],
        &[8, 9, 10, 11],
        T::F32
    ));
}

#[test]
fn y35_byte_strides_not_major_to_minor() {
    assert!(!lu::byte_strides_is_major_to_minor(
        &[1880, 220, 22, 2],
        &[8, 9, 10, 11],
        T::F32
    ));
    assert!(!lu::byte_strides_is_major_to_minor(
        &[1880, 440, 44, 4],
        &[8, 9, 10, 11],
        T::F32
    ));
}

#[test]
fn y36_has_custom_element_size_in_bits() {
    let plain: Shape = su::make_shape(T::F32, &[1, 2]).into();
    assert!(!lu::has_custom_element_size_in_bits(&plain));
    let e0 = with_layout(
        &su::make_shape(T::F32, &[1, 2]),
        Layout::new([1, 0]).with_element_size_in_bits(0),
    );
    assert!(!lu::has_custom_element_size_in_bits(&e0));
    let e32 = with_layout(
        &su::make_shape(T::F32, &[1, 2]),
        Layout::new([1, 0]).with_element_size_in_bits(32),
    );
    assert!(lu::has_custom_element_size_in_bits(&e32));
    let t = tuple(vec![
        tuple(vec![plain.clone(), plain.clone()]),
        plain.clone(),
    ]);
    assert!(!lu::has_custom_element_size_in_bits(&t));
    let e32_01 = with_layout(
        &su::make_shape(T::F32, &[1, 2]),
        Layout::new([0, 1]).with_element_size_in_bits(32),
    );
    let t = tuple(vec![tuple(vec![plain.clone(), e32_01]), plain]);
    assert!(lu::has_custom_element_size_in_bits(&t));
}

fn y37_shape() -> ArrayShape {
    su::make_shape_with_dense_layout_from_layout(
        T::F32,
        &[150, 200, 100],
        Layout::new([0, 1, 2]).with_split_configs(vec![
            SplitConfig::new(0, [30]),
            SplitConfig::new(1, [40, 130]),
        ]),
    )
}

#[test]
fn y37_max_split_size() {
    let s = y37_shape();
    assert_eq!(lu::max_split_size(&s, 0).unwrap(), 150);
    assert_eq!(lu::max_split_size(&s, 1).unwrap(), 90);
    assert_eq!(lu::max_split_size(&s, 2).unwrap(), 70);
}

#[test]
fn y38_max_elements_in_per_split() {
    let plain = dense(T::F32, &[150, 200, 100], &[0, 1, 2]);
    assert_eq!(lu::max_elements_in_per_split(&plain).unwrap(), 3_000_000);
    assert_eq!(
        lu::max_elements_in_per_split(&y37_shape()).unwrap(),
        150 * 90 * 70
    );
}

#[test]
fn split_config_errors_and_get_split_config() {
    let s = y37_shape();
    assert!(lu::get_split_config(&s).is_err()); // two configs: XLA CHECK-fails
    let one = dense(T::F32, &[4, 8], &[1, 0])
        .with_layout(Some(
            Layout::new([1, 0]).with_split_configs(vec![SplitConfig::new(1, [2])]),
        ))
        .unwrap();
    assert_eq!(
        lu::get_split_config(&one).unwrap(),
        Some(SplitConfig::new(1, [2]))
    );
    // Physical dimension 1 of {1,0} is logical dimension 1 (Major(l, 1)).
    assert_eq!(lu::max_split_size(&one, 1).unwrap(), 6);
    // A split config naming no physical dimension: XLA CHECK-fails.
    let bad = dense(T::F32, &[4, 8], &[1, 0])
        .with_layout(Some(
            Layout::new([1, 0]).with_split_configs(vec![SplitConfig::new(5, [2])]),
        ))
        .unwrap();
    assert!(lu::max_split_size(&bad, 0).is_err());
}

#[test]
fn major_minor_and_logical_to_physical() {
    let layout = Layout::new([2, 0, 1]);
    assert_eq!(lu::minor(&layout, 0), 2);
    assert_eq!(lu::major(&layout, 0), 1);
    // LayoutUtil::MakeLogicalToPhysical: {2,0,1} -> [1,0,2].
    assert_eq!(lu::make_logical_to_physical(&layout).unwrap(), [1, 0, 2]);
    assert_eq!(
        lu::make_logical_to_physical(&Layout::new([0, 1, 2])).unwrap(),
        [2, 1, 0]
    );
    assert!(lu::make_logical_to_physical(&Layout::new([0, 0])).is_err());
}

#[test]
#[should_panic(expected = "out of range")]
fn major_panics_past_the_rank() {
    lu::major(&Layout::new([1, 0]), 2);
}

#[test]
fn monotonic_and_consecutive_queries() {
    assert!(lu::is_monotonic_with_dim0_major(&Layout::new([2, 1, 0])));
    assert!(!lu::is_monotonic_with_dim0_minor(&Layout::new([2, 1, 0])));
    assert!(lu::is_monotonic_with_dim0_minor(&Layout::new([0, 1, 2])));
    assert!(lu::has_descending_layout(&Layout::new([])));
    assert!(lu::are_dimensions_consecutive(
        &Layout::new([2, 0, 1, 3]),
        &[1, 0]
    ));
    assert!(!lu::are_dimensions_consecutive(
        &Layout::new([2, 0, 1, 3]),
        &[2, 1]
    ));
    // A dimension missing from minor_to_major counts as position len.
    assert!(lu::are_dimensions_consecutive(
        &Layout::new([0, 1]),
        &[1, 7]
    ));
}

#[test]
fn layouts_in_shapes_equal_with_options_is_not_forwarded() {
    // LayoutUtil::LayoutsInShapesEqual does not pass its Layout::Equal into tuples.
    let a = with_layout(
        &su::make_shape(T::F32, &[4]),
        Layout::new([0]).with_memory_space(1),
    );
    let b = with_layout(&su::make_shape(T::F32, &[4]), Layout::new([0]));
    let ignore = LayoutEqual::default().ignore_memory_space();
    assert!(lu::layouts_in_shapes_equal_with(&a, &b, &ignore));
    let (ta, tb) = (tuple(vec![a]), tuple(vec![b]));
    assert!(!lu::layouts_in_shapes_equal_with(&ta, &tb, &ignore));
}

#[test]
fn program_shape_layouts() {
    let mut p = ProgramShape::new(
        vec![("x".into(), dense(T::F32, &[2, 3], &[0, 1]).into())],
        su::make_shape(T::F32, &[3]).into(),
    );
    assert!(lu::has_layout_program_shape(&p));
    lu::clear_layout_program_shape(&mut p);
    assert!(!lu::has_layout_program_shape(&p));
    assert_eq!(p.parameter_names(), ["x"]);
    lu::set_to_default_layout_program_shape(&mut p);
    assert_eq!(p.parameters()[0].to_string(), "f32[2,3]{1,0}");
}

#[test]
fn set_to_default_layout_keeps_other_attributes() {
    // LayoutUtil::SetToDefaultLayout keeps the other layout attributes.
    let s = with_layout(
        &su::make_shape(T::F32, &[2, 3]),
        Layout::new([0, 1])
            .with_tiles(vec![Tile::new([8]).unwrap()])
            .with_memory_space(1),
    );
    assert_eq!(
        lu::get_with_default_layout(&s).to_string(),
        "f32[2,3]{1,0:T(8)S(1)}"
    );
    assert_eq!(lu::memory_space(&s), 1);
    assert_eq!(lu::memory_space(&su::make_token_shape()), 0);
    assert_eq!(lu::minor_to_major(s.as_array().unwrap()).unwrap(), [0, 1]);
}
