//! `ProgramShapeProto` bytes: read with the same Google wire semantics as
//! a standalone `ShapeProto` (XLA's answers in
//! `tests/data/oracle/wire.jsonl`), and written as prost writes them.

use crate::common::*;
use prost::Message;
use prost::encoding::{WireType, encode_key, encode_varint};
use xla_shape::proto::{DESCRIPTOR_POOL, ProgramShapeProto};
use xla_shape::{ProgramShape, Shape};

/// The number of `ProgramShapeProto.<name>` in the schema.
fn field(name: &str) -> u32 {
    DESCRIPTOR_POOL
        .get_message_by_name("xla.ProgramShapeProto")
        .unwrap()
        .get_field_by_name(name)
        .unwrap()
        .number()
}

/// Appends a length-delimited field `name` of `ProgramShapeProto`.
fn put(out: &mut Vec<u8>, name: &str, body: &[u8]) {
    encode_key(field(name), WireType::LengthDelimited, out);
    encode_varint(body.len() as u64, out);
    out.extend_from_slice(body);
}

/// Every `ShapeProto` of wire.jsonl, as the result and as a named
/// parameter of a `ProgramShapeProto`: decoded as the standalone bytes
/// are (XLA's verdict on those is checked by `proto_wire.rs`).
#[test]
fn program_shape_bytes_follow_googles_wire_semantics() {
    let mut n = 0;
    for r in records("oracle/wire.jsonl") {
        let line = str_field(&r, "line");
        let input = hex(r["input"]["hex"].as_str().unwrap());
        let standalone = Shape::from_proto_bytes(&input);

        let mut as_result = Vec::new();
        put(&mut as_result, "result", &input);
        // The parameter goes with a well-formed result, f32[].
        let f32_scalar = "f32[]".parse::<Shape>().unwrap().to_proto_bytes();
        let mut as_parameter = Vec::new();
        put(&mut as_parameter, "parameters", &input);
        put(&mut as_parameter, "result", &f32_scalar);
        put(&mut as_parameter, "parameter_names", b"x");

        let by_result = ProgramShape::from_proto_bytes(&as_result);
        let by_parameter = ProgramShape::from_proto_bytes(&as_parameter);
        match &standalone {
            Ok(s) => {
                let p = by_result.unwrap_or_else(|e| panic!("{line}: {e}"));
                assert_eq!(p.result(), s, "{line}");
                let p = by_parameter.unwrap_or_else(|e| panic!("{line}: {e}"));
                assert_eq!(p.parameters(), std::slice::from_ref(s), "{line}");
                assert_eq!(p.parameter_names(), ["x"], "{line}");
            }
            Err(e) => {
                for ours in [by_result, by_parameter] {
                    let ours = ours.expect_err(line);
                    assert_eq!(ours.kind(), e.kind(), "{line}");
                    assert_eq!(ours.message(), e.message(), "{line}");
                }
            }
        }
        n += 1;
    }
    assert_eq!(n, 29);
}

/// A result given twice is merged, as for any singular message field
/// (protobuf encoding guide, "Last One Wins" / merging of embedded
/// messages): `element_type: F32` (10 0b) then `dimensions: [2]`
/// (1a 01 02) read as one `f32[2]`.
#[test]
fn a_result_given_twice_is_merged() {
    let mut bytes = Vec::new();
    put(&mut bytes, "result", &[0x10, 0x0b]);
    put(&mut bytes, "result", &[0x1a, 0x01, 0x02]);
    let p = ProgramShape::from_proto_bytes(&bytes).unwrap();
    assert_eq!(p.result().to_string(), "f32[2]");
    // prost reads the same bytes the same way here; the two decoders part
    // only where Google's runtimes and prost do (see proto_wire.rs).
    let prost = ProgramShapeProto::decode(&bytes[..]).unwrap();
    assert_eq!(ProgramShape::try_from(&prost).unwrap(), p);
}

/// A parameter name that is not UTF-8 fails the parse, as proto3 strings
/// do in C++ and upb.
#[test]
fn parameter_names_must_be_utf8() {
    let mut bytes = Vec::new();
    put(&mut bytes, "parameters", &[0x10, 0x0b]);
    put(&mut bytes, "result", &[0x10, 0x0b]);
    put(&mut bytes, "parameter_names", &[0xff]);
    let err = ProgramShape::from_proto_bytes(&bytes).unwrap_err();
    assert_eq!(err.kind(), xla_shape::ErrorKind::Decode);
}

/// Our encoder of `ProgramShapeProto` writes what prost writes for the
/// same message (prost is the peer: both follow the C++ serializer's field
/// order), for every golden shape as result and parameter.
#[test]
fn program_shape_encoding_agrees_with_prost() {
    let mut buf = Vec::new();
    let mut n = 0;
    for r in records("shapes.jsonl") {
        let Ok(s) = Shape::from_proto_bytes(&hex(str_field(&r, "proto_hex"))) else {
            continue;
        };
        let p = ProgramShape::new(vec![("a".into(), s.clone()), (String::new(), s.clone())], s);
        let ours = p.to_proto_bytes();
        assert_eq!(
            ours,
            ProgramShapeProto::from(&p).encode_to_vec(),
            "{}",
            id(&r)
        );
        assert_eq!(ProgramShape::from_proto_bytes(&ours).unwrap(), p);
        buf.clear();
        p.encode_to(&mut buf);
        assert_eq!(buf, ours);
        n += 1;
    }
    assert!(n > 100, "{n}");
}
