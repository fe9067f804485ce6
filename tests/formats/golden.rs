//! JSON and text format of every golden ShapeProto
//! and LayoutProto are Google's, byte for byte, and parse back to the same
//! bytes; proto inputs survive the lossless path as Google's runtime
//! re-encodes them.

use crate::common::*;
use prost::Message;
use serde_json::Value;
use xla_shape::formats::{self, JsonOptions, LosslessMessage};
use xla_shape::proto::{LayoutProto, ShapeProto};

fn json_value(s: &str) -> Value {
    serde_json::from_str(s).expect("JSON")
}

/// Checks every rendering of `proto_hex` against the record's golden
/// `json`, `json_preserving_names` and `text_format`, and that each parses
/// back to `proto_hex`.
fn check_views<M>(id: &str, proto_hex: &str, r: &Value)
where
    M: prost_reflect::ReflectMessage + Default + PartialEq + std::fmt::Debug,
{
    let bytes = hex(proto_hex);
    let m = M::decode(&bytes[..]).unwrap_or_else(|e| panic!("{id}: {e}"));
    let camel = JsonOptions::new();
    let names = JsonOptions::new().preserve_proto_field_names(true);
    for (field, options) in [("json", camel), ("json_preserving_names", names)] {
        let golden = str_field(r, field);
        let ours = formats::to_json_with(&m, &options);
        assert_eq!(json_value(&ours), json_value(golden), "{id} {field}");
        assert_eq!(ours, compact_json(golden), "{id} {field} compact");
        assert_eq!(
            formats::to_json_with(&m, &options.pretty(true)),
            golden,
            "{id} {field} pretty"
        );
        for text in [golden.to_string(), compact_json(golden)] {
            let parsed: M = formats::from_json(&text).unwrap_or_else(|e| panic!("{id}: {e}"));
            assert_eq!(
                to_hex(&parsed.encode_to_vec()),
                proto_hex,
                "{id} {field} parse"
            );
        }
    }
    let text = str_field(r, "text_format");
    assert_eq!(formats::to_text_format(&m), text, "{id} text_format");
    let parsed: M = formats::from_text_format(text).unwrap_or_else(|e| panic!("{id}: {e}"));
    assert_eq!(
        to_hex(&parsed.encode_to_vec()),
        proto_hex,
        "{id} text parse"
    );
    // Google's runtime re-encodes these bytes unchanged
    // (`py_reencode_identical`), and so does the lossless path.
    assert_eq!(r["py_reencode_identical"], true, "{id}");
    let lossless = LosslessMessage::decode_as::<M>(&bytes[..]).unwrap();
    assert_eq!(
        to_hex(&lossless.encode_to_vec()),
        proto_hex,
        "{id} lossless"
    );
    assert!(!lossless.has_unknown_fields(), "{id}");
}

#[test]
fn every_golden_shape_renders_as_googles_runtime_does() {
    let mut checked = 0;
    for r in records("shapes.jsonl") {
        let id = id(&r);
        check_views::<ShapeProto>(id, str_field(&r, "proto_hex"), &r);
        checked += 1;
    }
    assert_eq!(checked, 447);
}

#[test]
fn every_golden_layout_renders_as_googles_runtime_does() {
    let mut checked = 0;
    for r in records("layouts.jsonl") {
        assert_eq!(str_field(&r, "message"), "xla.LayoutProto");
        check_views::<LayoutProto>(id(&r), str_field(&r, "proto_hex"), &r);
        checked += 1;
    }
    assert_eq!(checked, 5);
}

#[test]
fn proto_inputs_survive_the_lossless_path() {
    let mut checked = 0;
    for r in records("shapes.jsonl") {
        if r["input"]["kind"] != "proto" {
            continue;
        }
        let id = id(&r);
        let input = str_field(&r["input"], "hex");
        let views = &r["input_py_views"];
        let expected = views["py_reencode_hex"].as_str().unwrap_or(input);
        let m = LosslessMessage::decode_as::<ShapeProto>(&hex(input)[..])
            .unwrap_or_else(|e| panic!("{id}: {e}"));
        assert_eq!(to_hex(&m.encode_to_vec()), expected, "{id} re-encoding");
        let names = JsonOptions::new().preserve_proto_field_names(true);
        for (field, options) in [
            ("json", JsonOptions::new()),
            ("json_preserving_names", names),
        ] {
            let golden = str_field(views, field);
            assert_eq!(m.to_json(&options.pretty(true)), golden, "{id} {field}");
            assert_eq!(m.to_json(&options), compact_json(golden), "{id} {field}");
        }
        assert_eq!(
            m.to_text_format(),
            str_field(views, "text_format"),
            "{id} text"
        );
        checked += 1;
    }
    assert_eq!(checked, 80);
}

/// `formats_one_line.jsonl`: `MessageToString(as_one_line=True)` of every
/// golden proto, from Google's runtime.
#[test]
fn one_line_text_format_is_googles() {
    let mut checked = 0;
    for r in records("oracle/formats_one_line.jsonl") {
        let id = id(&r);
        let bytes = hex(str_field(&r, "hex"));
        let expected = str_field(&r, "text_format_one_line");
        let (ours, reparsed) = match str_field(&r, "message") {
            "xla.ShapeProto" => {
                let m = LosslessMessage::decode_as::<ShapeProto>(&bytes[..]).unwrap();
                let p = ShapeProto::decode(&bytes[..]).unwrap();
                assert_eq!(formats::to_text_format_one_line(&p), expected, "{id}");
                let back: ShapeProto = formats::from_text_format(expected).unwrap();
                (m.to_text_format_one_line(), back == p)
            }
            "xla.LayoutProto" => {
                let m = LosslessMessage::decode_as::<LayoutProto>(&bytes[..]).unwrap();
                let p = LayoutProto::decode(&bytes[..]).unwrap();
                assert_eq!(formats::to_text_format_one_line(&p), expected, "{id}");
                let back: LayoutProto = formats::from_text_format(expected).unwrap();
                (m.to_text_format_one_line(), back == p)
            }
            other => panic!("{id}: unexpected message {other}"),
        };
        assert_eq!(ours, expected, "{id} lossless");
        assert!(reparsed, "{id}: the one-line form parses back");
        checked += 1;
    }
    // 447 + 5 golden protos and the 80 proto inputs of shapes.jsonl.
    assert_eq!(checked, 532);
}
