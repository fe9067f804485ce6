//! The ShapeProto wire format as Google's runtimes read it: answers of
//! XLA (jaxlib 0.10.2, C++ protobuf underneath) to hand-built bytes, in
//! `tests/data/oracle/wire.jsonl` (inputs with their purpose in
//! `wire.inputs.txt`): wrong wire types and groups are unknown fields,
//! singular messages merge, packed and unpacked runs concatenate.

mod common;

use common::*;
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
