//! The ShapeProto wire format as Google's runtimes read it: answers of
//! XLA (jaxlib 0.10.2, C++ protobuf underneath) to hand-built bytes, in
//! `tests/data/oracle/wire.jsonl` (inputs with their purpose in
//! `wire.inputs.txt`): wrong wire types and groups are unknown fields,
//! singular messages merge, packed and unpacked runs concatenate.

use crate::common::*;
use xla_shape::{ErrorKind, Shape};

/// Shapes XLA holds without validating: ours are rejected by validation.
fn held_without_validation(xla_str: &str) -> bool {
    ["primitive_type_invalid[]", "f32[16]{0,0}", "f32[-1]"].contains(&xla_str)
}

#[test]
fn wire_format_edge_cases_match_xla() {
    let mut n = 0;
    for r in records("oracle/wire.jsonl") {
        let input = hex(r["input"]["hex"].as_str().unwrap());
        let line = str_field(&r, "line");
        let ours = Shape::from_proto_bytes(&input);
        match str_field(&r, "status") {
            "ok" if held_without_validation(str_field(&r, "xla_str")) => {
                let e = ours.expect_err(line);
                assert!(
                    matches!(e.kind(), ErrorKind::InvalidShape | ErrorKind::InvalidLayout),
                    "{line}: {e}"
                );
            }
            "ok" => {
                let s = ours.unwrap_or_else(|e| panic!("{line}: {e}"));
                assert_eq!(
                    to_hex(&s.to_proto_bytes()),
                    str_field(&r, "proto_hex"),
                    "{line}"
                );
                assert_eq!(s.to_string(), str_field(&r, "xla_str"), "{line}");
            }
            _ => {
                let e = ours.expect_err(line);
                let xla = str_field(&r, "xla_error");
                if xla.contains("Failed to deserialize") {
                    assert_eq!(e.kind(), ErrorKind::Decode, "{line}: {e}");
                } else {
                    assert!(xla.ends_with(e.message()), "{line}: {e} vs {xla}");
                }
            }
        }
        n += 1;
    }
    assert_eq!(n, 29);
}

/// The lossless path reads these bytes as Google's Python runtime does
/// (`input_py_views`): the same re-encoding (unknown fields kept) and the
/// same JSON.
#[test]
fn lossless_path_matches_googles_runtime_on_wire_edge_cases() {
    use xla_shape::formats::{JsonOptions, LosslessMessage};
    use xla_shape::proto::ShapeProto;
    let mut n = 0;
    for r in records("oracle/wire.jsonl") {
        let line = str_field(&r, "line");
        let input = hex(r["input"]["hex"].as_str().unwrap());
        let views = &r["input_py_views"];
        let ours = LosslessMessage::decode_as::<ShapeProto>(&input[..]);
        if views.is_null() {
            continue; // the oracle reports no views for inputs XLA rejected
        }
        if views.get("error").is_some() {
            assert!(ours.is_err(), "{line}: Google's runtime rejects it");
            continue;
        }
        let m = ours.unwrap_or_else(|e| panic!("{line}: {e}"));
        let expected = views["py_reencode_hex"]
            .as_str()
            .map(str::to_string)
            .unwrap_or_else(|| to_hex(&input));
        assert_eq!(to_hex(&m.encode_to_vec()), expected, "{line}");
        let json: serde_json::Value =
            serde_json::from_str(&m.to_json(&JsonOptions::new())).unwrap();
        let golden: serde_json::Value =
            serde_json::from_str(views["json"].as_str().unwrap()).unwrap();
        assert_eq!(json, golden, "{line}");
        n += 1;
    }
    assert!(n >= 20, "{n}");
}
