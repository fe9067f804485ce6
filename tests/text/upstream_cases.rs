//! HLO shape and layout strings: the cases of upstream's
//! xla/hlo/parser/hlo_parser_test.cc and hlo_lexer_test.cc, and the
//! printing cases of xla/layout_test.cc and xla/shape_test.cc, each named
//! by its case number and what it checks.

use xla_shape::text::{ParseOptions, parse_layout, parse_shape_with, shapes_in_hlo};
use xla_shape::{
    ArrayShape, ErrorKind, Layout, PrimitiveType as P, ProgramShape, Result, Shape, SplitConfig,
    Tile,
};

const STAR: i64 = Tile::COMBINE_DIMENSION;
const UNBOUNDED: i64 = ArrayShape::UNBOUNDED_SIZE;

fn parse(s: &str) -> Shape {
    s.parse().unwrap_or_else(|e| panic!("{s}: {e}"))
}

fn array(t: P, dims: &[i64]) -> Shape {
    Shape::from(ArrayShape::new(t, dims.to_vec()).unwrap())
}

fn dynamic(t: P, dims: &[i64], dynamic: &[bool]) -> Shape {
    Shape::from(ArrayShape::with_dynamic_dimensions(t, dims.to_vec(), dynamic.to_vec()).unwrap())
}

fn dense(t: P, dims: &[i64], layout: Layout) -> Shape {
    Shape::from(
        ArrayShape::new(t, dims.to_vec())
            .unwrap()
            .with_layout(Some(layout))
            .unwrap(),
    )
}

fn tile(bounds: &[i64]) -> Tile {
    Tile::new(bounds).unwrap()
}

fn parse_error(s: &str) -> String {
    let err = s.parse::<Shape>().expect_err(s);
    assert_eq!(err.kind(), ErrorKind::Parse, "{s}");
    err.message().to_owned()
}

// ------------------------------------------------------------  hlo_parser_test.cc

#[test]
fn h1_array() {
    assert_eq!(parse("f32[123,456]"), array(P::F32, &[123, 456]));
    assert_eq!(
        parse("f32[123,456]").layout().unwrap().minor_to_major(),
        [1, 0]
    );
}

#[test]
fn h2_unbounded() {
    assert_eq!(
        parse("f32[?,784]"),
        dynamic(P::F32, &[UNBOUNDED, 784], &[true, false])
    );
}

#[test]
fn h3_tuple() {
    assert_eq!(
        parse("(f32[1572864],s8[5120,1024])"),
        Shape::Tuple(vec![array(P::F32, &[1572864]), array(P::S8, &[5120, 1024])])
    );
}

#[test]
fn h4_nested_tuple() {
    assert_eq!(
        parse("(f32[1],(f32[2], token[]), opaque[], f32[3])"),
        Shape::Tuple(vec![
            array(P::F32, &[1]),
            Shape::Tuple(vec![array(P::F32, &[2]), Shape::Token]),
            Shape::Opaque,
            array(P::F32, &[3]),
        ])
    );
}

#[test]
fn h5_layout() {
    assert_eq!(
        parse("f32[123,456]{0,1}"),
        dense(P::F32, &[123, 456], Layout::new([0, 1]))
    );
}

#[test]
fn h6_tiled() {
    assert_eq!(
        parse("f32[123,456]{0,1:T(2,128)}"),
        dense(
            P::F32,
            &[123, 456],
            Layout::new([0, 1]).with_tiles(vec![tile(&[2, 128])])
        )
    );
}

#[test]
fn h7_combined_dimension_tile_with_spaces() {
    assert_eq!(
        parse("f32[123,456,789]{0,1,2:T(2, * , 128)}"),
        dense(
            P::F32,
            &[123, 456, 789],
            Layout::new([0, 1, 2]).with_tiles(vec![tile(&[2, STAR, 128])])
        )
    );
}

#[test]
fn h8_two_tiles() {
    assert_eq!(
        parse("bf16[123,456,789]{2,1,0:T(2,*,128)(2,1)}"),
        dense(
            P::Bf16,
            &[123, 456, 789],
            Layout::new([2, 1, 0]).with_tiles(vec![tile(&[2, STAR, 128]), tile(&[2, 1])])
        )
    );
}

#[test]
fn h9_minor_to_major_too_short() {
    assert!(
        parse_error("f32[123,456,789]{1:T(2, * , 128)}")
            .contains("Dimensions size is 3, but minor to major size is 1.")
    );
}

#[test]
fn h10_element_size() {
    assert_eq!(
        parse("s4[123,456]{1,0:T(2,128)E(4)}"),
        dense(
            P::S4,
            &[123, 456],
            Layout::new([1, 0])
                .with_tiles(vec![tile(&[2, 128])])
                .with_element_size_in_bits(4)
        )
    );
}

#[test]
fn h11_tiles_and_memory_space() {
    assert_eq!(
        parse("pred[123,456]{1,0:T(2,128)S(3)}"),
        dense(
            P::Pred,
            &[123, 456],
            Layout::new([1, 0])
                .with_tiles(vec![tile(&[2, 128])])
                .with_memory_space(3)
        )
    );
}

#[test]
fn h12_memory_space() {
    assert_eq!(
        parse("pred[123,456]{1,0:S(3)}"),
        dense(
            P::Pred,
            &[123, 456],
            Layout::new([1, 0]).with_memory_space(3)
        )
    );
}

#[test]
fn h13_dynamic_shape_metadata_prefix_bytes() {
    let s = parse("f32[123,456]{1,0:T(16,128)M(1024)}");
    let expected = Layout::new([1, 0])
        .with_tiles(vec![tile(&[16, 128])])
        .with_dynamic_shape_metadata_prefix_bytes(1024);
    assert_eq!(s, dense(P::F32, &[123, 456], expected));
    assert_eq!(
        s.layout().unwrap().dynamic_shape_metadata_prefix_bytes(),
        1024
    );
}

#[test]
fn h14_split_config() {
    assert_eq!(
        parse("pred[123,456]{1,0:T(2,128)S(3)SC(1:200)}"),
        dense(
            P::Pred,
            &[123, 456],
            Layout::new([1, 0])
                .with_tiles(vec![tile(&[2, 128])])
                .with_memory_space(3)
                .with_split_configs(vec![SplitConfig::new(1, [200])])
        )
    );
}

#[test]
fn h15_two_split_configs() {
    assert_eq!(
        parse("pred[123,456]{1,0:S(3)SC(0:10)(1:4,5)}"),
        dense(
            P::Pred,
            &[123, 456],
            Layout::new([1, 0])
                .with_memory_space(3)
                .with_split_configs(vec![SplitConfig::new(0, [10]), SplitConfig::new(1, [4, 5])])
        )
    );
}

#[test]
fn h16_split_config_with_two_indices() {
    assert_eq!(
        parse("pred[123,456]{1,0:SC(1:50,200)}"),
        dense(
            P::Pred,
            &[123, 456],
            Layout::new([1, 0]).with_split_configs(vec![SplitConfig::new(1, [50, 200])])
        )
    );
}

#[test]
fn h17_opaque_and_token() {
    assert_eq!(parse("opaque[]"), Shape::Opaque);
    assert_eq!(parse("token[]"), Shape::Token);
}

#[test]
fn h18_garbage_around_layouts() {
    for s in [
        "f32[123,456]foobar{0,1}",
        "f32[123,456]{foo}",
        "f32[123,456]dense{foo}",
    ] {
        parse_error(s);
    }
}

#[test]
fn h19_bounded_dynamic() {
    assert_eq!(
        parse("f32[123,<=456]"),
        dynamic(P::F32, &[123, 456], &[false, true])
    );
}

#[test]
fn h20_tuple_of_bounded_dynamic() {
    assert_eq!(
        parse("(f32[42], u32[<=123,<=456])"),
        Shape::Tuple(vec![
            array(P::F32, &[42]),
            dynamic(P::U32, &[123, 456], &[true, true])
        ])
    );
}

#[test]
fn h21_empty_buffer() {
    assert!(parse_error("b()").contains("expected primitive type"));
}

#[test]
fn h22_buffer_of_two() {
    assert!(parse_error("b(s32[], f32[])").contains("expects ')' at the end of buffer shape"));
}

#[test]
fn h23_buffers() {
    assert_eq!(
        parse("b(s32[])"),
        Shape::Buffer(Box::new(array(P::S32, &[])))
    );
    assert_eq!(
        parse("b(f32[8,16]{1,0})"),
        Shape::Buffer(Box::new(array(P::F32, &[8, 16])))
    );
}

/// The shapes that `shapes_in_hlo` finds in a module's text.
fn module_shapes(hlo: &str) -> Vec<Result<Shape>> {
    shapes_in_hlo(hlo).map(|s| s.shape).collect()
}

#[test]
fn h24_whitespace_inside_a_shape_in_a_module() {
    let hlo = "HloModule m\n\nENTRY %e () -> f32[1,2,3,4,5] {\n  \
               ROOT %c = f32[ 1, 2,3, 4, 5]{0, 1, 2,3, 4 } constant({...})\n}\n";
    let shapes = module_shapes(hlo);
    assert_eq!(shapes.len(), 2);
    assert_eq!(
        shapes[1].as_ref().unwrap(),
        &dense(P::F32, &[1, 2, 3, 4, 5], Layout::new([0, 1, 2, 3, 4]))
    );
}

#[test]
fn h25_scalar_with_tiled_layout_in_a_module() {
    let hlo = "ENTRY %e () -> u32[] {\n  ROOT %c = u32[]{:T(128)} constant(0)\n}";
    let shapes = module_shapes(hlo);
    let s = shapes[1].as_ref().unwrap();
    assert!(!s.layout().unwrap().tiles().is_empty());
    assert_eq!(s.to_string(), "u32[]{:T(128)}");
}

#[test]
fn h26_physical_shape_in_a_module() {
    let hlo = "ENTRY %e (p: f32[10,10]) -> f32[10,10] {\n  \
               ROOT %p = f32[10,10]{1,0:T(128,8)P(f32[10,10])} parameter(0)\n}";
    let shapes = module_shapes(hlo);
    let err = shapes[2].as_ref().unwrap_err();
    assert!(
        err.message()
            .contains("Layout has physical shape, but is not for a sparse array"),
        "{err}"
    );
    // Positions are in the module.
    assert!(err.message().contains("was parsing 2:"), "{err}");
}

#[test]
fn h27_unknown_dim_level_type_in_a_module() {
    let hlo = "ENTRY %e (p: f32[10,10]) -> f32[10,10] {\n  \
               ROOT %p = f32[10,10]{1,0:D(X,C)} parameter(0)\n}";
    let shapes = module_shapes(hlo);
    let err = shapes[2].as_ref().unwrap_err();
    assert!(
        err.message()
            .contains("expected a DimLevelType abbreviation"),
        "{err}"
    );
}

#[test]
fn h28_memory_spaces_round_trip_in_a_module() {
    let hlo = "ENTRY %e (p: f32[2,3]) -> (f32[2,3], f32[2,3], u32[]) {\n  \
               %p = f32[2,3]{1,0:S(1)} parameter(0)\n  \
               ROOT %t = (f32[2,3]{1,0:S(2)}, f32[2,3]{1,0:S(1)}, u32[]) tuple(%p, %p, %c)\n}";
    let found: Vec<_> = shapes_in_hlo(hlo).collect();
    for s in &found[2..] {
        assert_eq!(s.shape.as_ref().unwrap().to_string(), s.text);
    }
    assert_eq!(
        found[3].text,
        "(f32[2,3]{1,0:S(2)}, f32[2,3]{1,0:S(1)}, u32[])"
    );
}

#[test]
fn h29_unknown_type() {
    parse_error("g32[]{}");
    // In a module, `g32[` is no shape at all.
    assert!(module_shapes("ENTRY %e () -> g32[] {\n ROOT %c = g32[]{} constant(0)\n}").is_empty());
}

/// The split indices of `{:SC(0:<list>)}`: any `i64` is kept as written,
/// which shows what the lexer made of each integer.
fn lexed_integers(list: &str) -> std::result::Result<Vec<i64>, String> {
    parse_layout(&format!("{{:SC(0:{list})}}"))
        .map(|l| l.split_configs()[0].split_indices().to_vec())
        .map_err(|e| e.to_string())
}

#[test]
fn h30_unsigned_literals_are_bit_cast() {
    assert_eq!(
        lexed_integers(
            "0,1,2147483647,2147483648,4294967295,4294967296,9223372036854775807,9223372036854775808,18446744073709551615"
        )
        .unwrap(),
        [
            0,
            1,
            2147483647,
            2147483648,
            4294967295,
            4294967296,
            i64::MAX,
            i64::MIN,
            -1
        ]
    );
}

#[test]
fn h31_negative_literals() {
    assert_eq!(
        lexed_integers("-1,-2,-2147483648,-9223372036854775807,-9223372036854775808").unwrap(),
        [-1, -2, -2147483648, -i64::MAX, i64::MIN]
    );
}

#[test]
fn h32_literals_out_of_range() {
    for bad in [
        "18446744073709551616",
        "184467440737095516150",
        "20496382304121724020",
        "23058430092136939520",
        "-9223372036854775809",
        "-92233720368547758080",
        "-,-1",
    ] {
        let err = lexed_integers(bad).unwrap_err();
        assert!(err.contains("expects integer"), "{bad}: {err}");
    }
}

#[test]
fn fill_missing_layouts_false_keeps_them_absent_but_scalars_get_one() {
    let keep = ParseOptions {
        fill_missing_layouts: false,
    };
    let s = parse_shape_with("(f32[2,3], f32[], f32[2]{0})", &keep).unwrap();
    let t = s.tuple_shapes().unwrap();
    assert!(t[0].layout().is_none());
    assert_eq!(t[1].layout(), Some(&Layout::default()));
    assert_eq!(t[2].layout(), Some(&Layout::new([0])));
}

// ------------------------------------------------------------ ---- layout_test.cc

#[test]
fn l1_to_l14_layout_strings() -> Result<()> {
    let l3210 = || Layout::new([3, 2, 1, 0]);
    let cases = [
        ("L1", Layout::default(), "{}"),
        ("L2", Layout::new([1, 2, 0]), "{1,2,0}"),
        (
            "L3",
            l3210().with_tiles(vec![tile(&[42, 123]), tile(&[4, 5])]),
            "{3,2,1,0:T(42,123)(4,5)}",
        ),
        (
            "L4",
            l3210().with_tiles(vec![tile(&[STAR, STAR, 42, 123])]),
            "{3,2,1,0:T(*,*,42,123)}",
        ),
        (
            "L5",
            l3210().with_tail_padding_alignment_in_elements(100)?,
            "{3,2,1,0:L(100)}",
        ),
        (
            "L6",
            l3210().with_index_primitive_type(P::U32),
            "{3,2,1,0:#(u32)}",
        ),
        (
            "L7",
            l3210().with_pointer_primitive_type(P::U16),
            "{3,2,1,0:*(u16)}",
        ),
        (
            "L8",
            l3210().with_element_size_in_bits(42),
            "{3,2,1,0:E(42)}",
        ),
        ("L9", l3210().with_memory_space(3), "{3,2,1,0:S(3)}"),
        (
            "L10",
            Layout::new([0, 1])
                .with_split_configs(vec![SplitConfig::new(0, [3]), SplitConfig::new(1, [0, 4])]),
            "{0,1:SC(0:3)(1:0,4)}",
        ),
        (
            "L11",
            Layout::new([0, 1]).with_physical_shape(Some(array(P::S32, &[10, 20]))),
            "{0,1:P(s32[10,20]{1,0})}",
        ),
        (
            "L12",
            Layout::new([0, 1]).with_dynamic_shape_metadata_prefix_bytes(123),
            "{0,1:M(123)}",
        ),
        (
            "L13",
            l3210()
                .with_tiles(vec![tile(&[42, 123]), tile(&[4, 5])])
                .with_tail_padding_alignment_in_elements(100)?
                .with_element_size_in_bits(42),
            "{3,2,1,0:T(42,123)(4,5)L(100)E(42)}",
        ),
        ("L14", Layout::new([0, 1, 2]), "{0,1,2}"),
    ];
    for (id, layout, expected) in cases {
        assert_eq!(layout.to_string(), expected, "{id}");
        // And back: ParseLayout reads what Layout::ToString writes.
        let back: Layout = expected.parse()?;
        assert_eq!(back, layout, "{id}");
        assert_eq!(
            back.dynamic_shape_metadata_prefix_bytes(),
            layout.dynamic_shape_metadata_prefix_bytes(),
            "{id}"
        );
    }
    assert_eq!(tile(&[7, 8]).to_string(), "(7,8)", "L14");
    assert_eq!(Tile::default().to_string(), "()");
    Ok(())
}

// -------------------------------------------------------------- shape_test.cc

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
}

fn fixtures() -> Fixtures {
    let scalar = array(P::F32, &[]);
    let matrix = array(P::U32, &[1, 2]);
    let matrix2 = dense(P::S32, &[3, 4], Layout::new([0, 1]));
    let tuple = Shape::Tuple(vec![
        Shape::Opaque,
        scalar.clone(),
        matrix.clone(),
        matrix2.clone(),
    ]);
    Fixtures {
        opaque: Shape::Opaque,
        token: Shape::Token,
        scalar_with_tile: dense(
            P::F32,
            &[],
            Layout::default().with_tiles(vec![tile(&[256])]),
        ),
        matrix_buffer: Shape::Buffer(Box::new(array(P::S32, &[3, 4]))),
        nested_tuple: Shape::Tuple(vec![tuple.clone(), matrix.clone(), Shape::Token]),
        scalar,
        matrix,
        matrix2,
        tuple,
    }
}

#[test]
fn s3_to_s5_human_strings() {
    let f = fixtures();
    let human = |s: &Shape| format!("{s:#}");
    assert_eq!(human(&f.opaque), "opaque[]", "S3");
    assert_eq!(human(&f.token), "token[]", "S3");
    assert_eq!(human(&f.scalar), "f32[]", "S3");
    assert_eq!(human(&f.matrix), "u32[1,2]", "S3");
    assert_eq!(human(&f.matrix2), "s32[3,4]", "S3");
    assert_eq!(
        human(&f.tuple),
        "(opaque[], f32[], u32[1,2], s32[3,4])",
        "S4"
    );
    assert_eq!(
        human(&f.nested_tuple),
        "((opaque[], f32[], u32[1,2], s32[3,4]), u32[1,2], token[])",
        "S5"
    );
}

#[test]
fn s6_to_s11_human_strings_with_layout() {
    let f = fixtures();
    let cases = [
        ("S6", &f.opaque, "opaque[]"),
        ("S6", &f.scalar, "f32[]"),
        ("S7", &f.scalar_with_tile, "f32[]{:T(256)}"),
        ("S8", &f.matrix, "u32[1,2]{1,0}"),
        ("S8", &f.matrix2, "s32[3,4]{0,1}"),
        ("S9", &f.matrix_buffer, "b(s32[3,4]{1,0})"),
        (
            "S10",
            &f.tuple,
            "(opaque[], f32[], u32[1,2]{1,0}, s32[3,4]{0,1})",
        ),
        (
            "S11",
            &f.nested_tuple,
            "((opaque[], f32[], u32[1,2]{1,0}, s32[3,4]{0,1}), u32[1,2]{1,0}, token[])",
        ),
    ];
    for (id, shape, expected) in cases {
        assert_eq!(shape.to_string(), expected, "{id}");
        assert_eq!(&parse(expected), shape, "{id} parses back");
    }
}

#[test]
fn s12_to_s14_dynamic_dimensions() {
    let s12 = dynamic(P::F32, &[23, 44, 55], &[true, false, true]);
    assert_eq!(format!("{s12:#}"), "f32[<=23,44,<=55]", "S12");
    let s13 = dynamic(P::F32, &[23, 44, 55], &[true, false, false]);
    assert_eq!(format!("{s13:#}"), "f32[<=23,44,55]", "S13");
    let s14 = dynamic(P::F32, &[UNBOUNDED, 784], &[true, false]);
    assert_eq!(format!("{s14:#}"), "f32[?,784]", "S14");
    for s in [s12, s13, s14] {
        assert_eq!(parse(&s.to_string()), s);
    }
}

#[test]
fn s32_s33_program_shapes() {
    let f = fixtures();
    let params = [
        f.opaque.clone(),
        f.scalar.clone(),
        f.matrix.clone(),
        f.matrix2.clone(),
        f.tuple.clone(),
        f.nested_tuple.clone(),
    ];
    let unnamed = ProgramShape::new(
        params.iter().map(|p| (String::new(), p.clone())).collect(),
        f.nested_tuple.clone(),
    );
    assert_eq!(
        unnamed.to_string(),
        "((unknown): opaque[], (unknown): f32[], (unknown): u32[1,2], (unknown): s32[3,4], \
         (unknown): (opaque[], f32[], u32[1,2], s32[3,4]), (unknown): ((opaque[], f32[], u32[1,2], \
         s32[3,4]), u32[1,2], token[])) -> ((opaque[], f32[], u32[1,2], s32[3,4]), u32[1,2], token[])",
        "S32"
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
            .zip(&params)
            .map(|(n, p)| (n.to_string(), p.clone()))
            .collect(),
        f.nested_tuple.clone(),
    );
    assert_eq!(
        named.to_string(),
        "(arg0: opaque[], scalar: f32[], matrix: u32[1,2], matrix2: s32[3,4], \
         tuple: (opaque[], f32[], u32[1,2], s32[3,4]), nested_tuple: ((opaque[], f32[], u32[1,2], \
         s32[3,4]), u32[1,2], token[])) -> ((opaque[], f32[], u32[1,2], s32[3,4]), u32[1,2], token[])",
        "S33"
    );
}

#[test]
fn tuple_index_comments_every_fifth_element() {
    let s = Shape::Tuple(vec![array(P::F32, &[]); 11]);
    let printed = s.to_string();
    assert_eq!(
        printed,
        "(f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[], f32[], f32[], f32[], f32[], \
         /*index=10*/f32[])"
    );
    assert_eq!(parse(&printed), s);
}
