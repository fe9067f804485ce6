//! HLO shape strings: the golden records (jaxlib 0.10.2) printed and
//! parsed as XLA prints and parses them.

use crate::common::*;
use serde_json::Value;
use xla_shape::text::{ParseOptions, parse_shape_with};
use xla_shape::{ErrorKind, Layout, Shape};

/// Memory spaces outside `i8`: XLA narrows them to `int8_t`, this crate
/// keeps the `i64` of the proto field (docs/differences.md ("HLO text")).
const MEMORY_SPACE_NOT_NARROWED: &[(&str, i64)] = &[
    ("memory_space/0294", 2147483647),
    ("memory_space/0295", i64::MAX),
];

fn hex_of(s: &Shape) -> String {
    to_hex(&s.to_proto_bytes())
}

#[test]
fn every_text_input_parses_prints_and_encodes_as_in_xla() {
    let mut checked = 0;
    for r in records("shapes.jsonl") {
        if r["input"]["kind"] != "text" {
            continue;
        }
        let id = id(&r);
        let text = str_field(&r["input"], "text");
        let parsed = text.parse::<Shape>();
        if let Some(message) = held_without_validation(id) {
            let err = parsed.expect_err(id);
            assert_eq!(err.kind(), ErrorKind::Parse, "{id}");
            assert!(
                err.message().contains(message),
                "{id}: {:?} lacks {message:?}",
                err.message()
            );
            continue;
        }
        let shape = parsed.unwrap_or_else(|e| panic!("{id}: {e}"));
        if let Some(&(_, space)) = MEMORY_SPACE_NOT_NARROWED.iter().find(|(i, _)| *i == id) {
            let layout = shape.layout().expect(id);
            assert_eq!(layout.memory_space(), space, "{id}");
            let xla: Shape = str_field(&r, "xla_str").parse().unwrap();
            assert_eq!(
                xla.layout().unwrap().memory_space(),
                i64::from(space as i8),
                "{id}"
            );
            continue;
        }
        assert_eq!(shape.to_string(), str_field(&r, "xla_str"), "{id}");
        assert_eq!(hex_of(&shape), str_field(&r, "proto_hex"), "{id}");
        checked += 1;
    }
    assert!(checked > 300, "only {checked} records checked");
}

#[test]
fn every_printed_string_reparses_as_in_xla() {
    let mut checked = 0;
    for r in records("shapes.jsonl") {
        let id = id(&r);
        let (Some(xla_str), Some(reparse)) = (r["xla_str"].as_str(), r["reparse_str"].as_str())
        else {
            continue;
        };
        if held_without_validation(id).is_some() {
            continue;
        }
        match xla_str.parse::<Shape>() {
            Ok(shape) => {
                assert_eq!(shape.to_string(), reparse, "{id}");
                if let Some(h) = r["reparse_proto_hex"].as_str() {
                    assert_eq!(hex_of(&shape), h, "{id}");
                }
                checked += 1;
            }
            // Strings of shapes that XLA holds without validating them.
            Err(e) => assert!(
                Shape::from_proto_bytes(&hex(str_field(&r, "proto_hex"))).is_err(),
                "{id}: {e}"
            ),
        }
    }
    assert!(checked > 400, "only {checked} records checked");
}

#[test]
fn every_decoded_proto_prints_as_in_xla_with_and_without_layout() {
    let mut checked = 0;
    for r in records("shapes.jsonl") {
        let id = id(&r);
        let Ok(shape) = Shape::from_proto_bytes(&hex(str_field(&r, "proto_hex"))) else {
            continue; // held without validation: see tests/model/proto_golden.rs
        };
        assert_eq!(shape.to_string(), str_field(&r, "xla_str"), "{id}");
        let mut appended = String::from("x");
        shape.print_to(&mut appended);
        assert_eq!(appended[1..], *str_field(&r, "xla_str"), "{id}");
        // Absent where XLA's HLO printer failed on the shape.
        if let Some(no_layout) = r["facts"]["xla_str_no_layout"].as_str() {
            assert_eq!(format!("{shape:#}"), no_layout, "{id}");
        }
        checked += 1;
    }
    assert!(checked > 400, "only {checked} records checked");
}

/// The `was parsing L:C: error: MSG` and `Extra content ...` lines of an
/// XLA status text.
fn xla_message_lines(xla_error: &str) -> Vec<&str> {
    xla_error
        .lines()
        .filter(|l| l.starts_with("was parsing ") || l.starts_with("Extra content"))
        .collect()
}

fn short(s: &str) -> String {
    s.chars().take(300).collect()
}

/// Checks that `err` is a parse error carrying every message line of XLA's
/// `xla_error` (or the text of its abort), located where XLA's last message
/// is.
fn assert_matches_xla(what: &str, err: &xla_shape::Error, r: &Value) {
    assert_eq!(err.kind(), ErrorKind::Parse, "{what}");
    let ours = err.message();
    assert!(ours.starts_with("Syntax error:"), "{what}: {ours:?}");
    if let Some(xla_error) = r["xla_error"].as_str() {
        let lines = xla_message_lines(xla_error);
        for line in &lines {
            assert!(
                ours.contains(line),
                "{what}: {:?} lacks {line:?}",
                short(ours)
            );
        }
        // Same line:column as XLA's last message (XLA's columns are 0-based
        // on line 1 and 1-based after).
        if let Some(last) = lines.iter().rev().find(|l| l.starts_with("was parsing ")) {
            let at = last["was parsing ".len()..].split(": ").next().unwrap();
            let loc = err.location().expect(what);
            let column = loc.column + usize::from(loc.line > 1);
            assert_eq!(format!("{}:{}", loc.line, column), at, "{what}");
        }
    }
    if let Some(crash) = r["xla_crash"].as_str() {
        // XLA aborts; we report its check, up to its values.
        let check = crash.split(" (").next().unwrap().trim();
        assert!(
            ours.contains(check),
            "{what}: {:?} lacks {check:?}",
            short(ours)
        );
    }
}

#[test]
fn every_invalid_text_input_is_rejected_with_xlas_message_and_position() {
    let mut checked = 0;
    for r in records("invalid.jsonl") {
        if r["input"]["kind"] != "text" {
            continue;
        }
        let id = id(&r);
        let err = str_field(&r["input"], "text")
            .parse::<Shape>()
            .expect_err(id);
        assert_matches_xla(id, &err, &r);
        checked += 1;
    }
    assert_eq!(checked, 18);
}

#[test]
fn golden_layouts_parse_print_and_encode_as_in_xla() {
    for r in records("layouts.jsonl") {
        let id = id(&r);
        let text = str_field(&r, "xla_str");
        let layout: Layout = text.parse().unwrap_or_else(|e| panic!("{id}: {e}"));
        assert_eq!(layout.to_string(), text, "{id}");
        let mut appended = String::new();
        layout.print_to(&mut appended);
        assert_eq!(appended, text, "{id}");
        let proto = xla_shape::proto::LayoutProto::from(&layout);
        assert_eq!(
            to_hex(&prost::Message::encode_to_vec(&proto)),
            str_field(&r, "proto_hex"),
            "{id}"
        );
    }
}

/// Inputs of `tests/data/oracle/text_parse.jsonl` that XLA accepts and this
/// crate rejects, with the reason (docs/differences.md ("HLO text")).
const ORACLE_REJECTED: &[(&str, &str)] = &[
    // Validation XLA's parser skips (`ParseShape` in xla/hlo/parser/hlo_parser.cc validates no top-level array).
    ("b(f32[2]{0:T(0)})", "layout has invalid tiles: f32[2]"),
    (
        "f32[9223372036854775807]",
        "Shape f32[9223372036854775807] size may overflow int64_t.",
    ),
    (
        "f32[9223372036854775807,2]",
        "Shape Error: Dimensions overflow.",
    ),
    ("f32[2]{0:T()}", "layout has invalid tiles"),
    ("f32[2]{0:T}", "layout has invalid tiles"),
    ("f32[2]{0:T(0)}", "layout has invalid tiles"),
    ("f32[2]{0:T(1)(}", "layout has invalid tiles"),
    ("f32[2]{0:#(s32)}", "layout has a index_primitive_type"),
    ("f32[2]{0:#(f32)}", "layout has a index_primitive_type"),
    ("f32[2]{0:#(u32}", "layout has a index_primitive_type"),
    ("f32[2]{0:#u32)}", "layout has a index_primitive_type"),
    ("f32[2]{0:*(u32)}", "layout has a pointer_primitive_type"),
    ("f32[2]{0:*(s8)}", "layout has a pointer_primitive_type"),
    ("f32[2]{0:*(u8}", "layout has a pointer_primitive_type"),
    (
        "f32[2]{0:E(-1)}",
        "layout element_size_in_bits field is negative: -1",
    ),
    (
        "f32[2]{0:T(2)L(2)#(u8)*(u16)E(4)S(1)SC(0:1)M(5)}",
        "layout has a index_primitive_type",
    ),
    (
        "f32[2]{1}",
        "layout minor_to_major field has out-of-bounds value: {1}",
    ),
    (
        "f32[2]{-1}",
        "layout minor_to_major field has out-of-bounds value: {-1}",
    ),
    (
        "f32[2,3]{0,0}",
        "layout minor_to_major field has duplicate values: {0, 0}",
    ),
    // A physical shape must be a valid shape, parsed in full.
    ("{0:P(}", "expected primitive type, saw kRbrace"),
    (
        "{0:P(f32[2]{0,0})}",
        "Dimensions size is 1, but minor to major size is 2.",
    ),
    (
        "{0:P(f32[2]{0:P(f32[2])})}",
        "Layout has physical shape, but is not for a sparse array",
    ),
    (
        "{0:P(f32[-1])}",
        "Invalid dimension size -1, is_dynamic=false",
    ),
];

/// `tests/data/oracle/text_parse.jsonl`: the XLA oracle script (which
/// asks jaxlib 0.10.2) on 270 shape (`text`)
/// and layout (`layout_text`) strings chosen to reach every branch of the
/// lexer and of `ParseShape`/`ParseLayout`. Fields as in the golden set
/// (`status`, `xla_str`, `proto_hex`, `xla_error`, `xla_crash`);
/// `ok_parse_only` marks the two deep tuples that XLA parsed but the
/// oracle's protobuf step then refused.
#[test]
fn oracle_answers_on_odd_text() {
    let mut checked = 0;
    for r in records("oracle/text_parse.jsonl") {
        let kind = str_field(&r["input"], "kind");
        let text = str_field(&r["input"], "text");
        let what: String = format!("{kind} {text:?}").chars().take(80).collect();
        let ours = if kind == "layout_text" {
            text.parse::<Layout>().map(|l| l.to_string())
        } else {
            text.parse::<Shape>().map(|s| s.to_string())
        };
        let status = str_field(&r, "status");
        if text.matches('(').count() > 100 {
            // XLA has no nesting limit (its parse succeeds, or fails on
            // something deeper); we stop at MAX_NESTING_DEPTH levels.
            let err = ours.expect_err(&what);
            assert!(err.message().contains("nesting exceeds the limit of 100"));
            checked += 1;
            continue;
        }
        if let Some((_, message)) = ORACLE_REJECTED.iter().find(|(t, _)| *t == text) {
            let err = ours.expect_err(&what);
            assert!(err.message().contains(message), "{what}: {err}");
            checked += 1;
            continue;
        }
        match status {
            "ok" => {
                let xla = str_field(&r, "xla_str");
                let ours = ours.unwrap_or_else(|e| panic!("{what}: {e}"));
                if xla.contains(":S(") && ours != xla {
                    // XLA narrows the memory space to int8_t; we do not.
                    assert!(text.contains("S(300)") || text.contains("S(128)"), "{what}");
                } else {
                    assert_eq!(ours, xla, "{what}");
                }
            }
            _ => assert_matches_xla(&what, &ours.expect_err(&what), &r),
        }
        checked += 1;
    }
    assert!(checked > 250, "only {checked} records checked");
}

#[test]
fn missing_layouts_can_be_left_absent() {
    let keep = ParseOptions {
        fill_missing_layouts: false,
    };
    for r in records("shapes.jsonl") {
        let Some(text) = r["input"]["text"].as_str() else {
            continue;
        };
        let Ok(filled) = text.parse::<Shape>() else {
            continue;
        };
        let kept = parse_shape_with(text, &keep).unwrap();
        // The same shape but for the layouts that were not written.
        assert!(
            kept.equal_with(&filled, &xla_shape::ShapeEqual::default().ignore_layout()),
            "{text}"
        );
        assert_eq!(format!("{kept:#}"), format!("{filled:#}"), "{text}");
        if !text.contains('{') {
            // Nothing written, so nothing but scalars has a layout.
            assert!(!kept.to_string().contains('{'), "{text}");
        }
    }
}
