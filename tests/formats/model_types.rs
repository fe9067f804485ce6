//! The model types in every format, and their serde
//! implementations, against the golden data.

use crate::common::*;
use bytes::Bytes;
use prost::Message;
use xla_shape::formats::{self, JsonOptions, ProtoFormats};
use xla_shape::proto::ShapeProto;
use xla_shape::{ArrayShape, ErrorKind, Layout, PrimitiveType, ProgramShape, Shape, Tile};

/// The golden shapes XLA accepts as valid (see tests/model/proto_golden.rs for
/// the records it holds without validating).
fn valid_shapes() -> Vec<(String, Shape, serde_json::Value)> {
    records("shapes.jsonl")
        .into_iter()
        .filter_map(|r| {
            let shape = Shape::from_proto_bytes(&hex(str_field(&r, "proto_hex"))).ok()?;
            Some((id(&r).to_string(), shape, r))
        })
        .collect()
}

#[test]
fn shapes_in_every_format_are_googles_renderings_of_xlas_proto() {
    let shapes = valid_shapes();
    assert!(shapes.len() > 400, "{}", shapes.len());
    for (id, shape, r) in &shapes {
        let json = str_field(r, "json");
        let names = str_field(r, "json_preserving_names");
        assert_eq!(
            shape.to_json_with(&JsonOptions::new().pretty(true)),
            json,
            "{id}"
        );
        assert_eq!(
            shape.to_json_with(
                &JsonOptions::new()
                    .pretty(true)
                    .preserve_proto_field_names(true)
            ),
            names,
            "{id}"
        );
        assert_eq!(shape.to_text_format(), str_field(r, "text_format"), "{id}");
        assert_eq!(
            to_hex(&shape.to_proto_bytes()),
            str_field(r, "proto_hex"),
            "{id}"
        );

        // serde goes through the same mapping.
        let compact = shape.to_json();
        assert_eq!(serde_json::to_string(shape).unwrap(), compact, "{id}");
        assert_eq!(
            serde_json::to_value(shape).unwrap(),
            serde_json::from_str::<serde_json::Value>(json).unwrap(),
            "{id}"
        );

        // And every form reads back to the same shape.
        for text in [json, names, compact.as_str()] {
            assert_eq!(&Shape::from_json(text).unwrap(), shape, "{id}");
            assert_eq!(&serde_json::from_str::<Shape>(text).unwrap(), shape, "{id}");
        }
        assert_eq!(
            &Shape::from_text_format(str_field(r, "text_format")).unwrap(),
            shape,
            "{id}"
        );
        assert_eq!(
            &Shape::from_text_format(&shape.to_text_format_one_line()).unwrap(),
            shape,
            "{id}"
        );
        let bytes = hex(str_field(r, "proto_hex"));
        assert_eq!(&Shape::from_proto_bytes(&bytes[..]).unwrap(), shape, "{id}");
        assert_eq!(
            &Shape::from_proto_bytes(&Bytes::from(bytes)).unwrap(),
            shape,
            "{id}"
        );
    }
}

#[test]
fn invalid_protos_are_rejected_in_every_format_with_xlas_message() {
    let mut checked = 0;
    for r in records("invalid.jsonl") {
        if r["input"]["kind"] != "proto" {
            continue;
        }
        let id = id(&r);
        let bytes = hex(str_field(&r["input"], "hex"));
        let expected = Shape::from_proto_bytes(&bytes).expect_err(id);
        let p = ShapeProto::decode(&bytes[..]).unwrap();
        let json = formats::to_json(&p);
        let text = formats::to_text_format(&p);
        for err in [
            Shape::from_proto_bytes(&bytes[..]).unwrap_err(),
            Shape::from_json(&json).unwrap_err(),
            Shape::from_text_format(&text).unwrap_err(),
        ] {
            assert_eq!(err, expected, "{id}");
        }
        // serde's error carries the same message (serde_json adds the
        // position after it).
        let serde_err = serde_json::from_str::<Shape>(&json)
            .unwrap_err()
            .to_string();
        assert!(
            serde_err.starts_with(expected.message()),
            "{id}: {serde_err}"
        );
        checked += 1;
    }
    assert_eq!(checked, 3);
}

#[test]
fn the_benchmark_shape_is_xlas() {
    // bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}, as the oracle has XLA
    // parse and encode it (formats_oracle.jsonl).
    let r = records("oracle/formats_oracle.jsonl")
        .into_iter()
        .find(|r| r["line"] == "bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}")
        .expect("oracle record");
    let layout = Layout::new([3, 2, 0, 1]).with_tiles(vec![
        Tile::new([8, 128]).unwrap(),
        Tile::new([2, 1]).unwrap(),
    ]);
    let shape = Shape::from(
        ArrayShape::new(PrimitiveType::Bf16, [8, 1, 1280, 16384])
            .unwrap()
            .with_layout(Some(layout))
            .unwrap(),
    );
    assert_eq!(shape.to_string(), str_field(&r, "xla_str"));
    assert_eq!(to_hex(&shape.to_proto_bytes()), str_field(&r, "proto_hex"));
    assert_eq!(
        shape.to_json_with(&JsonOptions::new().pretty(true)),
        str_field(&r, "json")
    );
    assert_eq!(shape.to_text_format(), str_field(&r, "text_format"));
}

#[test]
fn layouts_in_every_format() {
    for r in records("layouts.jsonl") {
        let id = id(&r);
        let bytes = hex(str_field(&r, "proto_hex"));
        let layout = Layout::from_proto_bytes(&bytes[..]).unwrap();
        assert_eq!(layout.to_string(), str_field(&r, "xla_str"), "{id}");
        assert_eq!(
            to_hex(&layout.to_proto_bytes()),
            str_field(&r, "proto_hex"),
            "{id}"
        );
        assert_eq!(
            layout.to_json_with(&JsonOptions::new().pretty(true)),
            str_field(&r, "json"),
            "{id}"
        );
        assert_eq!(
            layout.to_text_format(),
            str_field(&r, "text_format"),
            "{id}"
        );
        assert_eq!(
            serde_json::to_string(&layout).unwrap(),
            layout.to_json(),
            "{id}"
        );
        assert_eq!(
            serde_json::from_str::<Layout>(str_field(&r, "json_preserving_names")).unwrap(),
            layout,
            "{id}"
        );
        assert_eq!(
            Layout::from_text_format(str_field(&r, "text_format")).unwrap(),
            layout
        );
    }
}

#[test]
fn program_shapes_in_every_format() {
    let f32_2 = Shape::from(ArrayShape::new(PrimitiveType::F32, [2]).unwrap());
    let p = ProgramShape::new(
        vec![("x".into(), f32_2.clone()), ("é".into(), Shape::Token)],
        Shape::Tuple(vec![f32_2]),
    );
    // ProgramShapeProto: parameters (1), result (2), parameter_names (3),
    // the shapes as Google writes XLA's protos of them (shapes.jsonl
    // rank/0160 `f32[2]{0}`, special/0154 `token[]`, tuple/0326
    // `(f32[2]{0})`), the name escaped to ASCII as `MessageToJson` does
    // (formats_messages.jsonl: "ééx" is "\u00e9\u00e9x").
    let golden = |id: &str| {
        let r = records("shapes.jsonl")
            .into_iter()
            .find(|r| r["id"] == id)
            .unwrap();
        compact_json(str_field(&r, "json"))
    };
    let expected = format!(
        r#"{{"parameters":[{},{}],"result":{},"parameterNames":["x","\u00e9"]}}"#,
        golden("rank/0160"),
        golden("special/0154"),
        golden("tuple/0326")
    );
    let json = p.to_json();
    assert_eq!(json, expected);
    assert_eq!(ProgramShape::from_json(&json).unwrap().to_json(), json);
    // serde_json writes the name as UTF-8 (the same JSON value).
    let via_serde = serde_json::to_string(&p).unwrap();
    assert_eq!(via_serde, json.replace("\\u00e9", "é"));
    let back: ProgramShape = serde_json::from_str(&via_serde).unwrap();
    assert_eq!(back.to_json(), json);
    let text = p.to_text_format();
    assert!(
        text.ends_with("parameter_names: \"x\"\nparameter_names: \"é\"\n"),
        "{text}"
    );
    assert_eq!(
        ProgramShape::from_text_format(&text).unwrap().to_json(),
        json
    );
    assert_eq!(
        ProgramShape::from_proto_bytes(&p.to_proto_bytes()[..])
            .unwrap()
            .to_json(),
        json
    );

    // XLA's check: as many names as parameters.
    let err = ProgramShape::from_json(
        r#"{"parameters": [{"elementType": "TOKEN"}], "result": {"elementType": "TOKEN"}}"#,
    )
    .unwrap_err();
    assert_eq!(
        err.message(),
        "ProgramShapeProto has different numbers of parameters and parameter names: 1 vs 0"
    );
}

#[test]
fn encoding_appends_to_a_buffer() {
    let shape = Shape::from(ArrayShape::new(PrimitiveType::F32, [2]).unwrap());
    let mut buf = b"\xff".to_vec();
    shape.encode_to(&mut buf);
    // One byte already there, then XLA's f32[2]{0} (shapes.jsonl).
    assert_eq!(to_hex(&buf), "ff100b1a01022a060a0100800101320100");
    let p = shape.to_proto();
    let mut buf = Vec::new();
    shape.encode_to(&mut buf);
    shape.encode_to(&mut buf);
    assert_eq!(buf.len(), 2 * p.encode_to_vec().len());
    assert_eq!(ShapeProto::decode(Bytes::from(buf).slice(..16)).unwrap(), p);
}

#[test]
fn hex_dumps_from_logs_decode() {
    // f32[2]{0} as XLA writes it, pasted in three ways.
    for text in [
        "100b1a01022a060a0100800101320100",
        "10 0b 1a 01 02 2a 06 0a 01 00 80 01 01 32 01 00",
        "0x100B1A01022A060A0100800101320100\n",
    ] {
        let shape = Shape::from_proto_bytes(&formats::from_hex(text).unwrap()[..]).unwrap();
        assert_eq!(shape.to_string(), "f32[2]{0}");
    }
    let err = formats::from_hex("10 0b 1a 01 0").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Decode);
}

#[test]
fn lossless_messages_convert_to_model_types() {
    // f32[2]{0} (XLA's bytes) with an unknown field 20 in its layout.
    let bytes = formats::from_hex("100b1a01022a090a0100800101a00105320100").unwrap();
    let m = formats::LosslessMessage::decode_as::<ShapeProto>(&bytes[..]).unwrap();
    assert_eq!(m.encode_to_vec(), bytes);
    let shape = Shape::from_lossless(&m).unwrap();
    assert_eq!(shape.to_string(), "f32[2]{0}");
    let err = Layout::from_lossless(&m).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidArgument);
    assert_eq!(
        err.message(),
        "a xla.ShapeProto cannot be read as a xla.LayoutProto"
    );
}

#[test]
fn lossless_messages_with_fields_of_another_wire_type_convert() {
    // Every ShapeProto of the oracle's lossless file (jaxlib 0.10.2's
    // protobuf runtime, tests/data/oracle/lossless_gen.py): its known
    // fields, which Google's JSON gives, make the shape; unknown fields
    // play no part. `100b2800` (field 5, `layout`, as a varint) was
    // refused: "invalid wire type: Varint".
    for row in records("oracle/lossless.jsonl") {
        let hex = row["hex"].as_str().unwrap();
        let m =
            formats::LosslessMessage::decode_as::<ShapeProto>(&formats::from_hex(hex).unwrap()[..])
                .unwrap();
        let known: ShapeProto = formats::from_json(row["json"].as_str().unwrap()).unwrap();
        assert_eq!(
            Shape::from_lossless(&m).map(|s| s.to_string()),
            Shape::try_from(&known).map(|s| s.to_string()),
            "{hex}"
        );
    }
}

#[test]
fn well_known_types_use_their_json_form() {
    // The proto3 JSON mapping writes a Timestamp as RFC 3339 text in UTC
    // ("1972-01-01T10:00:20.021Z" in the spec's example); one second after
    // the epoch is:
    let t = prost_types::Timestamp {
        seconds: 1,
        nanos: 0,
    };
    assert_eq!(formats::to_json(&t), r#""1970-01-01T00:00:01Z""#);
    // A value the mapping cannot write (past year 9999, which Google's
    // runtime refuses) is written field by field rather than failing.
    let t = prost_types::Timestamp {
        seconds: i64::MAX,
        nanos: 0,
    };
    assert_eq!(formats::to_json(&t), r#"{"seconds":"9223372036854775807"}"#);
}
