//! The cases of upstream's xla/primitive_util_test.cc, xla/layout_test.cc
//! and xla/shape_test.cc that need no HLO text syntax, each named by its
//! case number and what it checks.

use xla_shape::proto::{LayoutProto, ShapeProto};
use xla_shape::{
    ArrayShape, Layout, LayoutEqual, PrimitiveType as P, ProgramShape, Shape, ShapeEqual,
    ShapeIndex, SplitConfig, Tile,
};

const STAR: i64 = Tile::COMBINE_DIMENSION;

fn make(t: P, dims: &[i64]) -> Shape {
    Shape::Array(ArrayShape::new(t, dims.to_vec()).unwrap())
}

fn dense(t: P, dims: &[i64], mtm: &[i64]) -> Shape {
    let a = ArrayShape::new(t, dims.to_vec()).unwrap();
    Shape::Array(a.with_layout(Some(Layout::new(mtm.to_vec()))).unwrap())
}

fn tile(b: &[i64]) -> Tile {
    Tile::new(b).unwrap()
}

fn dynamic(t: P, dims: &[i64], dynamic: &[bool]) -> Shape {
    Shape::Array(ArrayShape::with_dynamic_dimensions(t, dims.to_vec(), dynamic.to_vec()).unwrap())
}

fn round_trip(s: &Shape) -> Shape {
    Shape::try_from(&ShapeProto::from(s)).unwrap()
}

// --- primitive_util_test.cc ------------------------------------------------

#[test]
fn p1_to_p5_string_to_primitive_type() {
    assert_eq!(P::from_lowercase_name("f32").unwrap(), P::F32); // P1
    assert_eq!(P::from_lowercase_name("tuple").unwrap(), P::Tuple); // P2
    assert_eq!(P::from_lowercase_name("pred").unwrap(), P::Pred); // P3
    assert_eq!(P::from_lowercase_name("s32").unwrap(), P::S32); // P4
    for bad in ["F32", "Pred", "preD"] {
        // P5
        let e = P::from_lowercase_name(bad).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("Invalid element type string: \"{bad}\".")
        );
    }
    // primitive_util::StringToPrimitiveType: "opaque" is the name of OPAQUE_TYPE, "opaque_type" is not one.
    assert_eq!(P::from_lowercase_name("opaque").unwrap(), P::OpaqueType);
    assert!(P::from_lowercase_name("opaque_type").is_err());
    assert!(P::from_lowercase_name("primitive_type_invalid").is_err());
}

#[test]
fn p7_to_p10_float_properties() {
    assert_eq!(P::F32.significand_width(), Some(24)); // P7
    assert_eq!(P::Bf16.significand_width(), Some(8));
    assert_eq!(P::F32.exponent_width(), Some(8)); // P8
    assert_eq!(P::Bf16.exponent_width(), Some(8));
    assert_eq!(P::F32.underflow_exponent(), Some(-125)); // P9
    assert_eq!(P::Bf16.underflow_exponent(), Some(-125));
    assert_eq!(P::F32.overflow_exponent(), Some(128)); // P10
    assert_eq!(P::Bf16.overflow_exponent(), Some(128));
}

#[test]
fn float_table_of_spec_2_3() {
    // (type, significand, exponent width, underflow, overflow, bias, inf, nan)
    let table = [
        (P::F16, 11, 5, -13, 16, 15, true, true),
        (P::Bf16, 8, 8, -125, 128, 127, true, true),
        (P::F32, 24, 8, -125, 128, 127, true, true),
        (P::F64, 53, 11, -1021, 1024, 1023, true, true),
        (P::F8e5m2, 3, 5, -13, 16, 15, true, true),
        (P::F8e4m3, 4, 4, -5, 8, 7, true, true),
        (P::F8e4m3fn, 4, 4, -5, 9, 7, false, true),
        (P::F8e4m3b11fnuz, 4, 4, -9, 5, 11, false, true),
        (P::F8e3m4, 5, 3, -1, 4, 3, true, true),
        (P::F8e5m2fnuz, 3, 5, -14, 16, 16, false, true),
        (P::F8e4m3fnuz, 4, 4, -6, 8, 8, false, true),
        (P::F4e2m1fn, 2, 2, 1, 3, 1, false, false),
        (P::F8e8m0fnu, 1, 7, -126, 128, 128, false, true),
    ];
    for (t, sig, exp, under, over, bias, inf, nan) in table {
        assert_eq!(t.significand_width(), Some(sig), "{t}");
        assert_eq!(t.exponent_width(), Some(exp), "{t}");
        assert_eq!(t.underflow_exponent(), Some(under), "{t}");
        assert_eq!(t.overflow_exponent(), Some(over), "{t}");
        assert_eq!(t.exponent_bias(), Some(bias), "{t}");
        assert_eq!(t.has_infinity(), inf, "{t}");
        assert_eq!(t.has_nan(), nan, "{t}");
    }
    // HasNegativeZero: IEEE types, forced true for F4E2M1FN and F8E4M3FN,
    // false for the FNUZ types and F8E8M0FNU.
    for t in [P::F16, P::F32, P::F4e2m1fn, P::F8e4m3fn, P::F8e5m2] {
        assert!(t.has_negative_zero(), "{t}");
    }
    for t in [
        P::F8e4m3fnuz,
        P::F8e5m2fnuz,
        P::F8e4m3b11fnuz,
        P::F8e8m0fnu,
        P::S32,
        P::C64,
    ] {
        assert!(!t.has_negative_zero(), "{t}");
    }
}

#[test]
fn p16_and_the_size_table_of_spec_1_1() {
    assert_eq!(P::F32.byte_width(), Some(4)); // P16
    assert_eq!(P::F64.byte_width(), Some(8));
    assert_eq!(P::C64.byte_width(), Some(8));
    // Widths as xla_data.proto's comments on PrimitiveType give them; F6: 6 bits.
    let bits = [
        (P::Pred, 1),
        (P::S1, 1),
        (P::S2, 2),
        (P::S4, 4),
        (P::U1, 1),
        (P::U2, 2),
        (P::U4, 4),
        (P::F4e2m1fn, 4),
        (P::F6e3m2fn, 6),
        (P::F6e2m3fn, 6),
        (P::F8e8m0fnu, 8),
        (P::Bf16, 16),
        (P::C128, 128),
    ];
    for (t, b) in bits {
        assert_eq!(t.bit_width(), Some(b), "{t}");
        assert_eq!(t.byte_width(), Some(i64::from(b.div_ceil(8))), "{t}");
    }
    for t in [P::Invalid, P::Tuple, P::OpaqueType, P::Token, P::Buffer] {
        assert_eq!(t.bit_width(), None);
        assert!(!t.is_array_type());
    }
    // primitive_util::IsSubByteNonPredType.
    let sub: Vec<P> = P::ALL
        .into_iter()
        .filter(|t| t.is_sub_byte_non_pred())
        .collect();
    assert_eq!(
        sub,
        [
            P::S1,
            P::S2,
            P::S4,
            P::U1,
            P::U2,
            P::U4,
            P::F4e2m1fn,
            P::F6e3m2fn,
            P::F6e2m3fn
        ]
    );
    assert!(!P::F4e2m1fn.is_f8() && P::F8e8m0fnu.is_f8() && P::F8e8m0fnu.is_mx());
    assert!(!P::Pred.is_integral() && P::F6e2m3fn.is_floating_point());
}

// --- layout_test.cc -------------------------------------------------------

#[test]
fn l1_to_l14_layout_to_string() {
    let base = || Layout::new([3, 2, 1, 0]);
    assert_eq!(Layout::default().to_string(), "{}"); // L1
    assert_eq!(Layout::new([1, 2, 0]).to_string(), "{1,2,0}"); // L2
    let l3 = base().with_tiles(vec![tile(&[42, 123]), tile(&[4, 5])]);
    assert_eq!(l3.to_string(), "{3,2,1,0:T(42,123)(4,5)}"); // L3
    let l4 = base().with_tiles(vec![tile(&[STAR, STAR, 42, 123])]);
    assert_eq!(l4.to_string(), "{3,2,1,0:T(*,*,42,123)}"); // L4
    let l5 = base().with_tail_padding_alignment_in_elements(100).unwrap();
    assert_eq!(l5.to_string(), "{3,2,1,0:L(100)}"); // L5
    assert_eq!(
        base().with_index_primitive_type(P::U32).to_string(),
        "{3,2,1,0:#(u32)}"
    ); // L6
    assert_eq!(
        base().with_pointer_primitive_type(P::U16).to_string(),
        "{3,2,1,0:*(u16)}"
    ); // L7
    assert_eq!(
        base().with_element_size_in_bits(42).to_string(),
        "{3,2,1,0:E(42)}"
    ); // L8
    assert_eq!(base().with_memory_space(3).to_string(), "{3,2,1,0:S(3)}"); // L9
    let l10 = Layout::new([0, 1])
        .with_split_configs(vec![SplitConfig::new(0, [3]), SplitConfig::new(1, [0, 4])]);
    assert_eq!(l10.to_string(), "{0,1:SC(0:3)(1:0,4)}"); // L10
    let l11 = Layout::new([0, 1]).with_physical_shape(Some(make(P::S32, &[10, 20])));
    assert_eq!(l11.to_string(), "{0,1:P(s32[10,20]{1,0})}"); // L11
    let l12 = Layout::new([0, 1]).with_dynamic_shape_metadata_prefix_bytes(123);
    assert_eq!(l12.to_string(), "{0,1:M(123)}"); // L12
    let l13 = l3
        .clone()
        .with_tail_padding_alignment_in_elements(100)
        .unwrap()
        .with_element_size_in_bits(42);
    assert_eq!(l13.to_string(), "{3,2,1,0:T(42,123)(4,5)L(100)E(42)}"); // L13
    assert_eq!(tile(&[7, 8]).to_string(), "(7,8)"); // L14
    assert_eq!(Layout::new([0, 1, 2]).to_string(), "{0,1,2}");
    // Tile::ToString: Tile({}) prints "()"; Layout::ToString: an empty minor_to_major with a tile.
    assert_eq!(tile(&[]).to_string(), "()");
    assert_eq!(
        Layout::new([]).with_tiles(vec![tile(&[256])]).to_string(),
        "{:T(256)}"
    );
}

#[test]
fn l15_to_l24_layout_equality() {
    assert_eq!(Layout::default(), Layout::default()); // L15
    assert_eq!(Layout::new([]), Layout::new([]));
    assert_eq!(Layout::default(), Layout::new([]));
    assert_eq!(Layout::new([0, 1, 2, 3]), Layout::new([0, 1, 2, 3])); // L16
    assert_ne!(Layout::new([0, 1, 2, 3]), Layout::new([0, 1, 2]));
    let t = |b: &[i64]| Layout::new([0, 1, 2]).with_tiles(vec![tile(b)]);
    assert_eq!(t(&[42, 44]), t(&[42, 44])); // L17
    assert_ne!(t(&[42, 44]), t(&[42, 45]));
    assert_ne!(t(&[42, 44]), Layout::new([0, 1, 2, 3]));
    let e = |n| Layout::new([0, 1, 2]).with_element_size_in_bits(n);
    assert_eq!(e(33), e(33)); // L18
    assert_ne!(e(33), e(7));
    let m = |n| Layout::new([0, 1, 2]).with_memory_space(n);
    assert_eq!(m(3), m(3)); // L19
    assert_ne!(m(1), m(3));
    assert!(!t(&[42, 44]).equal_with(&Layout::new([0, 1, 2]), &LayoutEqual::default())); // L20
    let s = |i: i64| Layout::new([0, 1, 2]).with_split_configs(vec![SplitConfig::new(0, [i])]);
    assert_eq!(s(2), s(2)); // L21
    assert_ne!(s(2), s(3));
    assert!(t(&[42, 44]).equal_with(
        &Layout::new([0, 1, 2]),
        &LayoutEqual::default().ignore_tiles()
    )); // L22
    assert_ne!(e(32), e(1)); // L23
    assert!(e(32).equal_with(&e(1), &LayoutEqual::default().ignore_element_size())); // L24
    assert!(m(1).equal_with(&m(3), &LayoutEqual::default().ignore_memory_space()));
    assert!(s(2).equal_with(&s(3), &LayoutEqual::default().ignore_split_configs()));
    // Layout::Equal: M(n) is never compared; MinorToMajorOnly keeps split configs.
    let p = |n| Layout::new([0, 1]).with_dynamic_shape_metadata_prefix_bytes(n);
    assert_eq!(p(1), p(2));
    assert!(!s(2).equal_with(&s(3), &LayoutEqual::default().minor_to_major_only()));
    assert!(t(&[1]).equal_with(&e(4), &LayoutEqual::default().minor_to_major_only()));
}

#[test]
fn l25_layout_proto_round_trip() {
    let layouts = [
        Layout::default(),
        Layout::new([1, 3, 2, 0]),
        Layout::new([0, 1]).with_element_size_in_bits(42),
        Layout::new([3, 2, 1, 0]).with_tiles(vec![tile(&[42, 123]), tile(&[4, 5])]),
        Layout::new([1, 0]),
        Layout::new([1, 0]).with_physical_shape(Some(make(P::S32, &[10, 10]))),
        Layout::new([0, 1])
            .with_tiles(vec![tile(&[123])])
            .with_split_configs(vec![SplitConfig::new(0, [3]), SplitConfig::new(1, [0, 4])]),
    ];
    for l in layouts {
        let back = Layout::try_from(&LayoutProto::from(&l)).unwrap();
        assert_eq!(back, l, "{l}");
        assert_eq!(
            Layout::from_proto_bytes(&l.to_proto_bytes()).unwrap(),
            l,
            "{l}"
        );
    }
}

#[test]
fn l26_l27_delete_dimension() {
    let mut a = Layout::new([0, 1]);
    a.delete_dimension(1);
    assert_eq!(a, Layout::new([0])); // L26
    let mut b = Layout::new([1, 0]);
    b.delete_dimension(0);
    assert_eq!(b, Layout::new([0])); // L27
}

// --- shape_test.cc -------------------------------------------------------

struct Fixtures {
    opaque: Shape,
    token: Shape,
    scalar: Shape,
    scalar_with_tile: Shape,
    matrix: Shape,
    matrix2: Shape,
    matrix_buffer: Shape,
    tuple: Shape,
    nested_tuple: Shape,
    dynamic_matrix: Shape,
    unbounded: Shape,
}

fn fixtures() -> Fixtures {
    let opaque = Shape::Opaque;
    let token = Shape::Token;
    let scalar = make(P::F32, &[]);
    let scalar_with_tile = Shape::Array(
        ArrayShape::from_parts(
            P::F32,
            vec![],
            vec![],
            Some(Layout::new([]).with_tiles(vec![tile(&[256])])),
        )
        .unwrap(),
    );
    let matrix = make(P::U32, &[1, 2]);
    let matrix2 = dense(P::S32, &[3, 4], &[0, 1]);
    let matrix_buffer = Shape::Buffer(Box::new(make(P::S32, &[3, 4])));
    let tuple = Shape::Tuple(vec![
        opaque.clone(),
        scalar.clone(),
        matrix.clone(),
        matrix2.clone(),
    ]);
    let nested_tuple = Shape::Tuple(vec![tuple.clone(), matrix.clone(), token.clone()]);
    let dynamic_matrix = dynamic(P::S32, &[5, 2], &[true, false]);
    let unbounded = dynamic(P::F32, &[ArrayShape::UNBOUNDED_SIZE, 784], &[true, false]);
    Fixtures {
        opaque,
        token,
        scalar,
        scalar_with_tile,
        matrix,
        matrix2,
        matrix_buffer,
        tuple,
        nested_tuple,
        dynamic_matrix,
        unbounded,
    }
}

#[test]
fn s1_static_dimensions() {
    let a = ArrayShape::with_dynamic_dimensions(P::F32, [1, 2, 3], [false; 3]).unwrap();
    let b = ArrayShape::new(P::F32, [1, 2, 3]).unwrap();
    for s in [a, b] {
        assert!(s.is_static());
        assert!((0..3).all(|i| s.is_static_dimension(i)));
    }
}

#[test]
fn s2_proto_round_trip_of_every_fixture() {
    let f = fixtures();
    for s in [
        &f.opaque,
        &f.token,
        &f.scalar,
        &f.scalar_with_tile,
        &f.matrix,
        &f.matrix2,
        &f.matrix_buffer,
        &f.tuple,
        &f.nested_tuple,
        &f.dynamic_matrix,
        &f.unbounded,
    ] {
        assert_eq!(&round_trip(s), s, "{s}");
    }
}

#[test]
fn s3_to_s14_to_string() {
    let f = fixtures();
    let h = |s: &Shape| format!("{s:#}");
    assert_eq!(h(&f.opaque), "opaque[]"); // S3
    assert_eq!(h(&f.token), "token[]");
    assert_eq!(h(&f.scalar), "f32[]");
    assert_eq!(h(&f.matrix), "u32[1,2]");
    assert_eq!(h(&f.matrix2), "s32[3,4]");
    assert_eq!(h(&f.tuple), "(opaque[], f32[], u32[1,2], s32[3,4])"); // S4
    assert_eq!(
        h(&f.nested_tuple),
        "((opaque[], f32[], u32[1,2], s32[3,4]), u32[1,2], token[])"
    ); // S5
    assert_eq!(f.opaque.to_string(), "opaque[]"); // S6
    assert_eq!(f.scalar.to_string(), "f32[]");
    assert_eq!(f.scalar_with_tile.to_string(), "f32[]{:T(256)}"); // S7
    assert_eq!(f.matrix.to_string(), "u32[1,2]{1,0}"); // S8
    assert_eq!(f.matrix2.to_string(), "s32[3,4]{0,1}");
    assert_eq!(f.matrix_buffer.to_string(), "b(s32[3,4]{1,0})"); // S9
    assert_eq!(
        f.tuple.to_string(),
        "(opaque[], f32[], u32[1,2]{1,0}, s32[3,4]{0,1})"
    ); // S10
    assert_eq!(
        f.nested_tuple.to_string(),
        "((opaque[], f32[], u32[1,2]{1,0}, s32[3,4]{0,1}), u32[1,2]{1,0}, token[])"
    ); // S11
    assert_eq!(
        h(&dynamic(P::F32, &[23, 44, 55], &[true, false, true])),
        "f32[<=23,44,<=55]"
    ); // S12
    assert_eq!(
        h(&dynamic(P::F32, &[23, 44, 55], &[true, false, false])),
        "f32[<=23,44,55]"
    ); // S13
    assert_eq!(h(&f.unbounded), "f32[?,784]"); // S14
}

#[test]
fn s16_to_s19_equality() {
    assert_ne!(
        dense(P::F32, &[23, 44], &[1, 0]),
        dense(P::F32, &[23, 44], &[0, 1])
    ); // S16
    assert_ne!(
        dense(P::F32, &[44, 23], &[1, 0]),
        dense(P::F32, &[23, 44], &[1, 0])
    ); // S17
    assert_ne!(
        dense(P::S32, &[44, 23], &[1, 0]),
        dense(P::F32, &[23, 44], &[1, 0])
    ); // S18
    assert_eq!(
        dense(P::F32, &[23, 44], &[1, 0]),
        dense(P::F32, &[23, 44], &[1, 0])
    ); // S19
}

#[test]
fn s20_buffer_equality() {
    let buffer = Shape::Buffer(Box::new(make(P::S32, &[3, 4])));
    let array = make(P::S32, &[3, 4]);
    assert!(buffer.equal_with(&array, &ShapeEqual::default().ignore_buffer()));
    assert!(!buffer.equal_with(&array, &ShapeEqual::default()));
}

#[test]
fn s21_s22_are_all_leaves_integers() {
    let f = fixtures();
    assert!(!f.opaque.are_all_leaves_integers());
    assert!(!f.token.are_all_leaves_integers());
    assert!(f.matrix.are_all_leaves_integers());
    assert!(!f.tuple.are_all_leaves_integers());
    assert!(!f.nested_tuple.are_all_leaves_integers());
    let u = make(P::U32, &[1]);
    let fl = make(P::F32, &[1]);
    assert!(u.are_all_leaves_integers()); // S22
    assert!(!fl.are_all_leaves_integers());
    assert!(Shape::Tuple(vec![u.clone(), u.clone()]).are_all_leaves_integers());
    assert!(!Shape::Tuple(vec![u, fl]).are_all_leaves_integers());
}

#[test]
fn s23_to_s30_static_and_dynamic() {
    let f = fixtures();
    for s in [&f.opaque, &f.token, &f.matrix, &f.tuple, &f.nested_tuple] {
        assert!(s.is_static(), "{s}"); // S23
    }
    // S24: matrix_ with dimension 1 dynamic; tuple_ with that at {2}.
    let dyn_matrix = dynamic(P::U32, &[1, 2], &[false, true]);
    assert!(!dyn_matrix.is_static());
    let Shape::Tuple(mut elements) = f.tuple.clone() else {
        unreachable!()
    };
    elements[2] = dyn_matrix;
    let dyn_tuple = Shape::Tuple(elements.clone());
    assert!(!dyn_tuple.is_static());
    assert!(!f.unbounded.is_static()); // S25
    assert!(!f.matrix.is_dynamic() && !f.matrix.is_unbounded_dynamic()); // S26
    assert!(f.dynamic_matrix.is_dynamic() && !f.dynamic_matrix.is_unbounded_dynamic()); // S27
    assert!(f.unbounded.is_dynamic() && f.unbounded.is_unbounded_dynamic()); // S28
    assert!(!dyn_tuple.is_unbounded_dynamic()); // S29
    elements[2] = dynamic(P::U32, &[1, ArrayShape::UNBOUNDED_SIZE], &[false, true]);
    assert!(Shape::Tuple(elements).is_unbounded_dynamic());
    let u = f.unbounded.as_array().unwrap(); // S30
    assert!(u.is_dynamic_dimension(0) && !u.is_dynamic_dimension(1));
    assert!(!u.is_static_dimension(0) && u.is_static_dimension(1));
}

#[test]
fn s31_program_shape_proto_round_trip() {
    let p = ProgramShape::new(
        vec![
            ("foo".into(), make(P::F32, &[1, 2, 3])),
            ("bar".into(), Shape::Token),
            ("baz".into(), make(P::S64, &[])),
            (
                "qux qux".into(),
                Shape::Tuple(vec![
                    make(P::S32, &[]),
                    Shape::Tuple(vec![Shape::Token]),
                    make(P::F32, &[42, 42]),
                ]),
            ),
        ],
        make(P::F32, &[7]),
    );
    let back = ProgramShape::from_proto_bytes(&p.to_proto_bytes()).unwrap();
    assert_eq!(back, p);
    assert_eq!(back.parameter_names(), ["foo", "bar", "baz", "qux qux"]);
}

#[test]
fn s32_s33_program_shape_strings() {
    let f = fixtures();
    let params = [
        &f.opaque,
        &f.scalar,
        &f.matrix,
        &f.matrix2,
        &f.tuple,
        &f.nested_tuple,
    ];
    let unnamed = ProgramShape::new(
        params
            .iter()
            .map(|s| (String::new(), (*s).clone()))
            .collect(),
        f.nested_tuple.clone(),
    );
    assert_eq!(
        unnamed.to_string(),
        "((unknown): opaque[], (unknown): f32[], (unknown): u32[1,2], (unknown): s32[3,4], (unknown): (opaque[], f32[], u32[1,2], s32[3,4]), (unknown): ((opaque[], f32[], u32[1,2], s32[3,4]), u32[1,2], token[])) -> ((opaque[], f32[], u32[1,2], s32[3,4]), u32[1,2], token[])"
    );
    let names = [
        "arg0",
        "scalar",
        "matrix",
        "matrix2",
        "tuple",
        "nested_tuple",
    ];
    let named = ProgramShape::new(
        names
            .iter()
            .zip(params)
            .map(|(n, s)| (n.to_string(), s.clone()))
            .collect(),
        f.nested_tuple.clone(),
    );
    assert_eq!(
        named.to_string(),
        "(arg0: opaque[], scalar: f32[], matrix: u32[1,2], matrix2: s32[3,4], tuple: (opaque[], f32[], u32[1,2], s32[3,4]), nested_tuple: ((opaque[], f32[], u32[1,2], s32[3,4]), u32[1,2], token[])) -> ((opaque[], f32[], u32[1,2], s32[3,4]), u32[1,2], token[])"
    );
}

#[test]
fn s34_split_configs_ignored() {
    let a = dense(P::F32, &[256, 256], &[1, 0]);
    let l = Layout::new([1, 0]).with_split_configs(vec![SplitConfig::new(0, [128])]);
    let b = Shape::Array(
        ArrayShape::new(P::F32, [256, 256])
            .unwrap()
            .with_layout(Some(l))
            .unwrap(),
    );
    assert_ne!(a, b);
    assert!(a.equal_with(&b, &ShapeEqual::default().ignore_split_config_in_layout()));
}

#[test]
fn u106_shape_index_strings() {
    // ShapeIndex::ToString examples.
    assert_eq!(ShapeIndex::new().to_string(), "{}");
    assert_eq!(ShapeIndex::from([1]).to_string(), "{1}");
    assert_eq!(ShapeIndex::from([1, 2, 42]).to_string(), "{1,2,42}");
}

#[test]
fn tuple_separators_carry_index_comments() {
    // ShapeUtil::HumanString: with 6 elements the 6th is preceded by ", /*index=5*/".
    let t = Shape::Tuple(vec![make(P::F32, &[]); 11]);
    assert_eq!(
        format!("{t:#}"),
        "(f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[], f32[], f32[], f32[], f32[], /*index=10*/f32[])"
    );
    assert_eq!(Shape::Tuple(vec![]).to_string(), "()");
}

#[test]
fn constructor_errors_carry_xlas_messages() {
    // MakeValidatedShape errors (ShapeUtil::ValidateShape's messages).
    let e = ArrayShape::with_dynamic_dimensions(
        P::F32,
        [ArrayShape::UNBOUNDED_SIZE, ArrayShape::UNBOUNDED_SIZE],
        [true, false],
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "Invalid dimension size -9223372036854775808, is_dynamic=false"
    );
    let e = ArrayShape::with_dynamic_dimensions(P::F32, [2, 3], [true]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "dynamic dimensions size 1 did not match number of dimensions 2"
    );
    let e = ArrayShape::new(P::F32, [1 << 62, 2]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "overflow in static extent product: dimes=[4611686018427387904,2]"
    );
    let e = ArrayShape::new(P::Token, [2]).unwrap_err();
    assert_eq!(e.to_string(), "Unsupported element type: TOKEN");
    // ValidateLayoutForShape messages (LayoutUtil::ValidateLayoutForShape).
    let a = ArrayShape::new(P::F32, [2, 3]).unwrap();
    let msg = |l: Layout| a.clone().with_layout(Some(l)).unwrap_err().to_string();
    assert_eq!(
        msg(Layout::new([0, 1, 2])),
        "layout minor_to_major field contains 3 elements, but shape has 2 dimensions: {0, 1, 2}; shape: f32[2,3]"
    );
    assert_eq!(
        msg(Layout::new([0, 2])),
        "layout minor_to_major field has out-of-bounds value: {0, 2}; shape: f32[2,3]"
    );
    assert_eq!(
        msg(Layout::new([1, 1])),
        "layout minor_to_major field has duplicate values: {1, 1}; shape: f32[2,3]"
    );
    assert_eq!(
        msg(Layout::new([1, 0]).with_tiles(vec![tile(&[0])])),
        "layout has invalid tiles: f32[2,3]"
    );
    assert_eq!(
        msg(Layout::new([1, 0]).with_element_size_in_bits(-1)),
        "layout element_size_in_bits field is negative: -1"
    );
    // Tiles with negative bounds other than `*` cannot be built.
    assert_eq!(
        Tile::new([-2]).unwrap_err().to_string(),
        "Tile dimension size needs to be minimum int64_t value if it's negative. Value is -2"
    );
    assert!(
        Layout::new([0])
            .with_tail_padding_alignment_in_elements(0)
            .is_err()
    );
}
