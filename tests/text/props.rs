//! HLO shape strings, property tests. Printing then parsing gives the
//! same shape or layout back; no input makes the parser or the scanner
//! panic.

use proptest::prelude::*;
use xla_shape::text::{ParseOptions, parse_layout, parse_shape, parse_shape_with, shapes_in_hlo};
use xla_shape::{ArrayShape, Layout, PrimitiveType, Shape, SplitConfig, Tile};

fn array_type() -> impl Strategy<Value = PrimitiveType> {
    let types: Vec<PrimitiveType> = PrimitiveType::ALL
        .into_iter()
        .filter(|t| t.is_array_type())
        .collect();
    proptest::sample::select(types)
}

fn integral_type() -> impl Strategy<Value = PrimitiveType> {
    let types: Vec<PrimitiveType> = PrimitiveType::ALL
        .into_iter()
        .filter(|t| t.is_integral())
        .collect();
    proptest::sample::select(types)
}

/// `(size, dynamic)`: static, bounded dynamic or unbounded.
fn dimension() -> impl Strategy<Value = (i64, bool)> {
    prop_oneof![
        6 => (0i64..2000).prop_map(|d| (d, false)),
        2 => (0i64..2000).prop_map(|d| (d, true)),
        1 => Just((ArrayShape::UNBOUNDED_SIZE, true)),
    ]
}

fn tile() -> impl Strategy<Value = Tile> {
    proptest::collection::vec(
        prop_oneof![4 => 1i64..300, 1 => Just(Tile::COMBINE_DIMENSION)],
        1..4,
    )
    .prop_map(|b| Tile::new(b).unwrap())
}

/// Layout attributes valid on a dense array of rank `rank`.
fn dense_layout(rank: usize) -> impl Strategy<Value = Layout> {
    let order = Just((0..rank as i64).collect::<Vec<_>>()).prop_shuffle();
    (
        order,
        proptest::collection::vec(tile(), 0..3),
        prop_oneof![3 => Just(1i64), 1 => 1i64..1000],
        prop_oneof![3 => Just(0i64), 1 => 0i64..64],
        prop_oneof![3 => Just(0i64), 1 => any::<i64>()],
        proptest::collection::vec(
            (0i64..4, proptest::collection::vec(0i64..10_000, 0..3))
                .prop_map(|(d, i)| SplitConfig::new(d, i)),
            0..3,
        ),
        prop_oneof![3 => Just(0i64), 1 => 0i64..4096],
    )
        .prop_map(|(mtm, tiles, l, e, s, sc, m)| {
            Layout::new(mtm)
                .with_tiles(tiles)
                .with_tail_padding_alignment_in_elements(l)
                .unwrap()
                .with_element_size_in_bits(e)
                .with_memory_space(s)
                .with_split_configs(sc)
                .with_dynamic_shape_metadata_prefix_bytes(m)
        })
}

fn array_shape(with_layout: bool) -> impl Strategy<Value = Shape> {
    (array_type(), proptest::collection::vec(dimension(), 0..5)).prop_flat_map(move |(t, dims)| {
        let rank = dims.len();
        let layout = if with_layout {
            dense_layout(rank).prop_map(Some).boxed()
        } else {
            Just(None).boxed()
        };
        layout.prop_map(move |layout| {
            let (sizes, dynamic): (Vec<i64>, Vec<bool>) = dims.iter().copied().unzip();
            // Sizes that overflow are rejected by validation: skip them.
            let a = ArrayShape::from_parts(t, sizes, dynamic, layout.clone())
                .unwrap_or_else(|_| ArrayShape::new(t, [2]).unwrap());
            Shape::Array(a)
        })
    })
}

fn shape(with_layout: bool) -> impl Strategy<Value = Shape> {
    let leaf = prop_oneof![
        8 => array_shape(with_layout),
        1 => Just(Shape::Token),
        1 => Just(Shape::Opaque),
        1 => array_shape(with_layout).prop_map(|a| Shape::Buffer(Box::new(a))),
    ];
    leaf.prop_recursive(3, 24, 7, |inner| {
        proptest::collection::vec(inner, 0..7).prop_map(Shape::Tuple)
    })
}

/// Any layout a `Layout` can hold, as `ParseLayout` reads it.
fn any_layout() -> impl Strategy<Value = Layout> {
    (
        proptest::collection::vec(any::<i64>(), 0..5),
        proptest::collection::vec(
            proptest::collection::vec(
                prop_oneof![3 => 0i64..300, 1 => Just(Tile::COMBINE_DIMENSION)],
                0..3,
            )
            .prop_map(|b| Tile::new(b).unwrap()),
            0..3,
        ),
        prop_oneof![Just(PrimitiveType::Invalid), integral_type()],
        prop_oneof![Just(PrimitiveType::Invalid), integral_type()],
        any::<i64>(),
        proptest::option::of(array_shape(true)),
    )
        .prop_map(|(mtm, tiles, index, pointer, e, physical)| {
            Layout::new(mtm)
                .with_tiles(tiles)
                .with_index_primitive_type(index)
                .with_pointer_primitive_type(pointer)
                .with_element_size_in_bits(e)
                .with_physical_shape(physical)
        })
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 512,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn printed_shapes_parse_back(s in shape(true)) {
        let printed = s.to_string();
        let back: Shape = printed.parse().unwrap();
        prop_assert_eq!(&back, &s);
        // Byte for byte, `M(n)` (which `==` ignores) included.
        prop_assert_eq!(back.to_proto_bytes(), s.to_proto_bytes());
        prop_assert_eq!(back.to_string(), printed);
    }

    /// The same valid shapes survive every other format: ShapeProto bytes,
    /// proto3 JSON (both name styles) and protobuf text format.
    #[test]
    fn valid_shapes_round_trip_through_every_proto_format(s in shape(true)) {
        use xla_shape::formats::{JsonOptions, ProtoFormats};
        let bytes = s.to_proto_bytes();
        let back = Shape::from_proto_bytes(&bytes).unwrap();
        prop_assert_eq!(&back, &s);
        prop_assert_eq!(back.to_proto_bytes(), bytes.clone());
        for names in [false, true] {
            let json = s.to_json_with(&JsonOptions::new().preserve_proto_field_names(names));
            prop_assert_eq!(Shape::from_json(&json).unwrap().to_proto_bytes(), bytes.clone());
        }
        prop_assert_eq!(Shape::from_text_format(&s.to_text_format()).unwrap().to_proto_bytes(), bytes.clone());
        let one_line = s.to_text_format_one_line();
        prop_assert_eq!(Shape::from_text_format(&one_line).unwrap().to_proto_bytes(), bytes);
    }

    #[test]
    fn printed_shapes_without_layouts_parse_back(s in shape(false)) {
        let keep = ParseOptions { fill_missing_layouts: false };
        let back = parse_shape_with(&s.to_string(), &keep).unwrap();
        prop_assert_eq!(back.to_string(), s.to_string());
        prop_assert_eq!(format!("{back:#}"), format!("{s:#}"));
    }

    #[test]
    fn printed_layouts_parse_back(l in any_layout()) {
        let back = parse_layout(&l.to_string()).unwrap();
        prop_assert_eq!(&back, &l);
        prop_assert_eq!(back.to_string(), l.to_string());
    }

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,64}") {
        let _ = parse_shape(&text);
        let _ = parse_layout(&text);
        let _ = shapes_in_hlo(&text).count();
    }

    #[test]
    fn shape_like_text_never_panics(
        pieces in proptest::collection::vec(
            proptest::sample::select(vec![
                "f32", "s4", "token", "opaque", "b", "(", ")", "[", "]", "{", "}", ",", ":", "*",
                "#", "?", "<=", "<", "-", "->", "0", "1", "7", "-1", "9223372036854775808",
                "18446744073709551616", "T", "L", "E", "S", "SC", "P", "M", "D", "C", "+", "~",
                "u8", " ", "\n", "/*", "*/", "//", "\"", "'", "=", "%x", "\0", "é", "2x3", "1_2",
                "1.5", "bf_io->bf", "nan", "-inf", "...", "/*index=5*/",
            ]),
            0..40,
        )
    ) {
        let text: String = pieces.concat();
        if let Ok(s) = parse_shape(&text) {
            // What parses prints as something that parses to the same.
            prop_assert_eq!(parse_shape(&s.to_string()).unwrap(), s);
        }
        if let Ok(l) = parse_layout(&text) {
            prop_assert_eq!(parse_layout(&l.to_string()).unwrap(), l);
        }
        for found in shapes_in_hlo(&text) {
            prop_assert_eq!(found.text, &text[found.range.clone()]);
        }
    }

    #[test]
    fn mutated_valid_strings_never_panic(
        s in shape(true),
        edits in proptest::collection::vec((any::<prop::sample::Index>(), 0u8..3, any::<u8>()), 1..6),
    ) {
        let mut bytes = s.to_string().into_bytes();
        for (at, op, byte) in edits {
            const ALPHABET: &[u8] = b"()[]{},:*#?<=-T0123456789LESCPMD fu8x";
            let byte = ALPHABET[usize::from(byte) % ALPHABET.len()];
            match op {
                0 if !bytes.is_empty() => { bytes.remove(at.index(bytes.len())); }
                1 => bytes.insert(at.index(bytes.len() + 1), byte),
                _ if !bytes.is_empty() => { let i = at.index(bytes.len()); bytes[i] = byte; }
                _ => {}
            }
        }
        let text = String::from_utf8(bytes).unwrap();
        if let Ok(s) = parse_shape(&text) {
            prop_assert_eq!(parse_shape(&s.to_string()).unwrap(), s);
        }
        let _ = parse_layout(&text);
        let _ = shapes_in_hlo(&text).count();
    }
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    for depth in [101, 10_000, 200_000] {
        let tuple = format!("{}f32[]{}", "(".repeat(depth), ")".repeat(depth));
        assert!(parse_shape(&tuple).is_err());
        let buffers = format!("{}f32[]{}", "b(".repeat(depth), ")".repeat(depth));
        assert!(parse_shape(&buffers).is_err());
        let physical = format!("{{:{}}}", "P(f32[]{:".repeat(depth));
        assert!(parse_layout(&physical).is_err());
        let _ = shapes_in_hlo(&tuple).count();
    }
    // 99 tuples around f32[]: its layout `{}` is the 100th level below
    // the root, as in its ShapeProto (tests/robustness/resource_bounds.rs has the rest).
    let ok = format!("{}f32[]{}", "(".repeat(100), ")".repeat(100));
    assert!(parse_shape(&ok[1..ok.len() - 1]).is_ok());
    assert!(parse_shape(&ok).is_err());
}

#[test]
fn a_tuple_nested_past_the_limit_is_one_error_of_the_scan() {
    // 101 tuples around f32[]: the module reader rejects the shape, and
    // the scan reports that one error, not the f32[] inside (it used to).
    let tuple = format!("{}f32[]{}", "(".repeat(101), ")".repeat(101));
    let line = format!("  ROOT a = {tuple} parameter(0), x=f32[2]");
    let found: Vec<_> = shapes_in_hlo(&line).collect();
    assert_eq!(found.len(), 2, "{found:?}");
    assert_eq!(found[0].text, tuple);
    let err = found[0].shape.as_ref().unwrap_err();
    assert!(
        err.message().contains("nesting exceeds the limit of 100"),
        "{err}"
    );
    assert_eq!(found[1].text, "f32[2]");
    // Parentheses left open on their line are no tuple: the scan goes on
    // inside them, as for any unclosed tuple.
    let open = format!("a = {}f32[]\nb = f32[3] c()", "(".repeat(200));
    let found: Vec<_> = shapes_in_hlo(&open).collect();
    let texts: Vec<&str> = found.iter().map(|f| f.text).collect();
    assert_eq!(texts, ["f32[]", "f32[3]"]);
    // 100 tuples around token[] are within the limit, and one shape.
    let within = format!("{}token[]{}", "(".repeat(100), ")".repeat(100));
    let found: Vec<_> = shapes_in_hlo(&within).collect();
    assert_eq!(found.len(), 1);
    assert!(found[0].shape.is_ok());
}
