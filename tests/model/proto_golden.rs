//! Every golden ShapeProto decodes, validates and
//! re-encodes exactly as XLA does.

use crate::common::*;
use xla_shape::{ErrorKind, Shape};

#[test]
fn every_valid_golden_shape_round_trips_byte_for_byte() {
    let mut checked = 0;
    for r in records("shapes.jsonl") {
        let id = id(&r);
        let bytes = hex(str_field(&r, "proto_hex"));
        let decoded = Shape::from_proto_bytes(&bytes);
        if let Some(msg) = held_without_validation(id) {
            let err = decoded.expect_err(id);
            assert_eq!(err.message(), msg, "{id}");
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
        if r["input"]["kind"] != "proto" || held_without_validation(id).is_some() {
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
