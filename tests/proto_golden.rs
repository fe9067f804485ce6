//! Issue "Foundation": every golden ShapeProto decodes, validates and
//! re-encodes exactly as XLA does.

mod common;

use common::*;
use xla_shape::{ErrorKind, Shape};

/// Records XLA holds without validating them (its parser and `FromProto`
/// skip `ValidateShape`). Ours are always valid, so these are rejected with
/// the validation message that XLA's `ValidateShapeWithOptionalLayout`
/// gives (spec §5.4; listed in docs/differences.md).
const HELD_WITHOUT_VALIDATION: &[(&str, &str)] = &[
    // `#(f32)` on a dense array: rule 6 of ValidateLayoutForShape.
    (
        "layout_attrs/0299",
        "layout has a index_primitive_type, but is not a sparse array: f32[16,16]",
    ),
    // A negative static dimension: ValidateDimensions.
    (
        "proto/0345",
        "Shape Error: Negative dimension at index 0: -5. Shape(f32): f32[-5]",
    ),
    // An empty tile: rule 9.
    ("proto/0353", "layout has invalid tiles: f32[16]"),
    // `T()`, accepted by XLA's parser: rule 9.
    ("tiled/0265", "layout has invalid tiles: f32[2]"),
    ("tiled/0266", "layout has invalid tiles: f32[2]"),
    // `#(u16)`, `*(u32)`: rules 6 and 7 (the index type is checked first).
    (
        "layout_attrs/0296",
        "layout has a index_primitive_type, but is not a sparse array: f32[16,16]",
    ),
    (
        "layout_attrs/0297",
        "layout has a pointer_primitive_type, but is not a sparse array: f32[16,16]",
    ),
    (
        "layout_attrs/0307",
        "layout has a index_primitive_type, but is not a sparse array: f32[16,16]",
    ),
    // A bound of i64::MAX on f32: 4 bytes an element overflow
    // ValidateShapeSize.
    (
        "dynamic/0316",
        "Shape f32[<=9223372036854775807] size may overflow int64_t.",
    ),
    // E(-4): rule 10.
    (
        "proto/0355",
        "layout element_size_in_bits field is negative: -4",
    ),
    // The empty ShapeProto: element type PRIMITIVE_TYPE_INVALID.
    (
        "proto/0358",
        "Shape Error: Invalid element type. Shape(primitive_type_invalid): primitive_type_invalid[]",
    ),
];

#[test]
fn every_valid_golden_shape_round_trips_byte_for_byte() {
    let mut checked = 0;
    for r in records("shapes.jsonl") {
        let id = id(&r);
        let bytes = hex(str_field(&r, "proto_hex"));
        let decoded = Shape::from_proto_bytes(&bytes);
        if let Some((_, msg)) = HELD_WITHOUT_VALIDATION.iter().find(|(i, _)| *i == id) {
            let err = decoded.expect_err(id);
            assert_eq!(err.message(), *msg, "{id}");
            continue;
        }
        let shape = decoded.unwrap_or_else(|e| panic!("{id}: {e}"));
        assert_eq!(
            to_hex(&shape.to_proto_bytes()),
            str_field(&r, "proto_hex"),
            "{id}"
        );
        checked += 1;
    }
    assert!(checked > 400, "only {checked} records checked");
}

#[test]
fn proto_inputs_normalise_as_xla_does() {
    let mut checked = 0;
    for r in records("shapes.jsonl") {
        let id = id(&r);
        if r["input"]["kind"] != "proto" || HELD_WITHOUT_VALIDATION.iter().any(|(i, _)| *i == id) {
            continue;
        }
        let input = hex(r["input"]["hex"].as_str().unwrap_or(""));
        let shape = Shape::from_proto_bytes(&input).unwrap_or_else(|e| panic!("{id}: {e}"));
        assert_eq!(
            to_hex(&shape.to_proto_bytes()),
            str_field(&r, "proto_hex"),
            "{id}"
        );
        checked += 1;
    }
    assert!(checked > 60, "only {checked} records checked");
}

#[test]
fn invalid_protos_are_rejected_with_xlas_message() {
    let mut checked = 0;
    for r in records("invalid.jsonl") {
        if r["input"]["kind"] != "proto" {
            continue;
        }
        let id = id(&r);
        let err = Shape::from_proto_bytes(&hex(str_field(&r["input"], "hex"))).expect_err(id);
        if let Some(xla_error) = r["xla_error"].as_str() {
            // A RET_CHECK message is "<condition> <text>": ours is the text
            // (or, where XLA streams none, contains the condition).
            let message = xla_message(xla_error);
            let ok = message.ends_with(err.message()) || err.message().contains(&message);
            assert!(
                ok,
                "{id}: ours {:?} lacks XLA's {:?}",
                err.message(),
                message
            );
        }
        assert_eq!(err.kind(), ErrorKind::MalformedProto, "{id}");
        checked += 1;
    }
    assert_eq!(checked, 3);
}
