//! What the golden set lacks, asked of Google's
//! runtime and the XLA oracle (`tests/data/oracle/formats_*.jsonl`, made
//! by `tests/data/oracle/formats_gen.py`): unknown fields at every level,
//! retired fields, unknown enum numbers, wrong wire types, malformed bytes,
//! and the other messages of the schema (floats, strings, bytes, maps,
//! oneofs).

use crate::common::*;
use prost::Message;
use serde_json::Value;
use xla_shape::ErrorKind;
use xla_shape::formats::{self, JsonOptions, LosslessMessage};
use xla_shape::proto::{DESCRIPTOR_POOL, LayoutProto, ShapeProto};

/// `assert_eq!` for long texts: reports the first line that differs.
fn same_text(ours: &str, theirs: &str, what: &str) {
    if ours == theirs {
        return;
    }
    let mut a = ours.lines();
    let mut b = theirs.lines();
    let mut n = 1;
    loop {
        match (a.next(), b.next()) {
            (Some(x), Some(y)) if x == y => n += 1,
            (x, y) => panic!("{what}: line {n} differs: ours {x:?}, Google's {y:?}"),
        }
    }
}

/// The hex of an oracle `line` (`hex:...` or `layouthex:...`), without
/// the spaces the generator puts between fields; `None` for a shape string.
fn line_hex(r: &Value) -> Option<(String, &'static str)> {
    let line = str_field(r, "line");
    let (body, message) = if let Some(body) = line.strip_prefix("hex:") {
        (body, "xla.ShapeProto")
    } else if let Some(body) = line.strip_prefix("layouthex:") {
        (body, "xla.LayoutProto")
    } else {
        return None;
    };
    Some((body.split_whitespace().collect(), message))
}

fn decode(message: &str, bytes: &[u8]) -> xla_shape::Result<LosslessMessage> {
    let descriptor = DESCRIPTOR_POOL
        .get_message_by_name(message)
        .expect("message in schema");
    LosslessMessage::decode(descriptor, bytes)
}

fn oracle_record(input: &str) -> Value {
    records("oracle/formats_oracle.jsonl")
        .into_iter()
        .find(|r| line_hex(r).is_some_and(|(h, _)| h == input))
        .unwrap_or_else(|| panic!("no oracle record for {input}"))
}

#[test]
fn unknown_fields_are_kept_and_reencoded_as_googles_runtime_does() {
    let mut checked = 0;
    for r in records("oracle/formats_oracle.jsonl") {
        let (Some((input, message)), Some(views)) = (line_hex(&r), r.get("input_py_views")) else {
            continue;
        };
        let m = decode(message, &hex(&input)).unwrap_or_else(|e| panic!("{input}: {e}"));
        let expected = views["py_reencode_hex"].as_str().unwrap_or(&input);
        assert_eq!(to_hex(&m.encode_to_vec()), expected, "{input}");
        let names = JsonOptions::new().preserve_proto_field_names(true);
        for (field, options) in [
            ("json", JsonOptions::new()),
            ("json_preserving_names", names),
        ] {
            let golden = str_field(views, field);
            assert_eq!(m.to_json(&options.pretty(true)), golden, "{input} {field}");
        }
        assert_eq!(
            m.to_text_format(),
            str_field(views, "text_format"),
            "{input}"
        );
        checked += 1;
    }
    assert_eq!(checked, 24);
}

#[test]
fn bytes_both_runtimes_reject_are_a_decode_error() {
    let mut checked = 0;
    for r in records("oracle/formats_oracle.jsonl") {
        if r["error_step"] != "wire_check" {
            continue;
        }
        // "the bytes are not valid protobuf wire format ...; C++ protobuf
        // rejects them" (and so did the Python runtime, which is asked
        // first).
        let (input, message) = line_hex(&r).expect("a proto input");
        let bytes = hex(&input);
        let err = decode(message, &bytes).expect_err(&input);
        assert_eq!(err.kind(), ErrorKind::Decode, "{input}");
        let err = ShapeProto::decode(&bytes[..])
            .map_err(xla_shape::Error::from)
            .expect_err(&input);
        assert_eq!(err.kind(), ErrorKind::Decode, "{input}");
        checked += 1;
    }
    assert_eq!(checked, 7);
}

#[test]
fn unknown_fields_nested_in_layouts_survive() {
    // Field 3 (length-delimited, 1 byte 07) then field 2 (varint 1) inside
    // the layout of f32[2]{0}: the retired `padding_value` and
    // `padded_dimensions` numbers, here with the wrong wire type for
    // field 3, in reverse order. Google keeps them as they came.
    let input = "100b1a01022a080a01001a01071001";
    let r = oracle_record(input);
    assert_eq!(r["input_py_views"]["py_reencode_hex"], Value::Null);
    let m = decode("xla.ShapeProto", &hex(input)).unwrap();
    assert!(m.unknown_fields().is_empty());
    assert!(m.has_unknown_fields());
    assert_eq!(to_hex(&m.encode_to_vec()), input);
    let retired: Vec<String> = m.retired_fields().iter().map(|f| f.to_string()).collect();
    assert_eq!(
        retired,
        [
            "layout: padded_dimensions (xla.LayoutProto field 2, retired 2018-11-02)",
            "layout: padding_value (xla.LayoutProto field 3, retired 2018-11-02)",
        ]
    );
    // XLA reads the shape as if the fields were not there.
    assert_eq!(str_field(&r, "xla_str"), "f32[2]{0}");
    let shape: xla_shape::Shape =
        <xla_shape::Shape as formats::ProtoFormats>::from_lossless(&m).unwrap();
    assert_eq!(to_hex(&shape.to_proto_bytes()), str_field(&r, "proto_hex"));
}

#[test]
fn retired_fields_are_reported_where_they_are() {
    // (oracle input, [(path, name)]) — the numbers are read off the hex:
    // 12 = field 2 length-delimited, 18 = field 3 varint, 20 = field 4
    // varint, 28 = field 5 varint; f0 01 = field 30 varint.
    /// (message type, oracle input, expected (path, name) pairs)
    type Case<'a> = (&'a str, &'a str, &'a [(&'a str, &'a str)]);
    let cases: &[Case] = &[
        (
            "xla.ShapeProto",
            "100b1a0202032a0b0a0201001203088001 1801",
            &[("layout", "padded_dimensions"), ("layout", "padding_value")],
        ),
        (
            "xla.ShapeProto",
            "100b1a0202032a080a02010020012810",
            &[("layout", "format"), ("layout", "max_sparse_elements")],
        ),
        (
            "xla.LayoutProto",
            "0a0201001203088001 1801",
            &[("", "padded_dimensions"), ("", "padding_value")],
        ),
        ("xla.LayoutProto", "0a0201002001f00105", &[("", "format")]),
        // Field 20 in the second tuple element's layout is not retired.
        (
            "xla.ShapeProto",
            "100d2205100b1a0102220d100b1a01022a060a0100a00105",
            &[],
        ),
    ];
    for (message, input, expected) in cases {
        let input: String = input.split_whitespace().collect();
        let r = oracle_record(&input);
        assert_eq!(r["status"], "ok", "{input}");
        let m = decode(message, &hex(&input)).unwrap();
        let found: Vec<(String, &str)> = formats::retired_fields(&m)
            .iter()
            .map(|f| (f.path().to_string(), f.name()))
            .collect();
        let expected: Vec<(String, &str)> =
            expected.iter().map(|(p, n)| (p.to_string(), *n)).collect();
        assert_eq!(found, expected, "{input}");
        // Google's runtime writes these bytes back unchanged.
        assert_eq!(
            r["input_py_views"]["py_reencode_hex"],
            Value::Null,
            "{input}"
        );
        assert_eq!(to_hex(&m.encode_to_vec()), input);
    }
    // The unknown field 20 of the tuple case sits in `tuple_shapes[1].layout`.
    let m = decode(
        "xla.ShapeProto",
        &hex("100d2205100b1a0102220d100b1a01022a060a0100a00105"),
    )
    .unwrap();
    assert!(m.has_unknown_fields());
    assert!(m.unknown_fields().is_empty());
}

#[test]
fn an_old_style_layout_round_trips_and_reports_its_retired_fields() {
    // f32[2,3]{1,0} as a 2017 TensorFlow wrote it (the initial
    // `message Layout { repeated int64 minor_to_major = 1; repeated int64
    // padded_dimensions = 2; PaddingValue padding_value = 3; }`, proto3,
    // so repeated numbers packed), padded to [8, 128] with ZERO_PAD (= 1):
    let layout = [
        0x0a, 0x02, 0x01, 0x00, // minor_to_major: field 1, wire type 2, 2 bytes: 1, 0
        0x12, 0x03, 0x08, 0x80,
        0x01, // padded_dimensions: field 2, wire type 2, 3 bytes: 8, 128 (80 01)
        0x18, 0x01, // padding_value: field 3, wire type 0, ZERO_PAD
    ];
    let mut shape = vec![
        0x10, 0x0b, // element_type: field 2, varint, F32 = 11
        0x1a, 0x02, 0x02, 0x03, // dimensions: field 3, packed: 2, 3
        0x2a, // layout: field 5, wire type 2
    ];
    shape.push(layout.len() as u8);
    shape.extend_from_slice(&layout);

    let m = LosslessMessage::decode_as::<ShapeProto>(&shape[..]).unwrap();
    assert_eq!(m.encode_to_vec(), shape);
    let retired = formats::retired_fields(&m);
    let found: Vec<_> = retired
        .iter()
        .map(|f| (f.path(), f.name(), f.number(), f.message_type()))
        .collect();
    assert_eq!(
        found,
        [
            ("layout", "padded_dimensions", 2, "xla.LayoutProto"),
            ("layout", "padding_value", 3, "xla.LayoutProto"),
        ]
    );
    // The known fields read as XLA reads them; the JSON and text format
    // leave the retired fields out, as Google's do.
    assert_eq!(
        m.to_json(&JsonOptions::new()),
        r#"{"elementType":"F32","dimensions":["2","3"],"layout":{"minorToMajor":["1","0"]}}"#
    );
    let plain = ShapeProto::decode(&shape[..]).unwrap();
    assert_eq!(m.to_message::<ShapeProto>().unwrap(), plain);
    // The same bytes are one of the oracle's inputs: Google's runtime
    // writes them back unchanged.
    let r = oracle_record(&to_hex(&shape));
    assert_eq!(r["input_py_views"]["py_reencode_hex"], Value::Null);
    assert_eq!(str_field(&r, "xla_str"), "f32[2,3]{1,0}");

    // The layout alone.
    let l = LosslessMessage::decode_as::<LayoutProto>(&layout[..]).unwrap();
    assert_eq!(l.encode_to_vec(), layout);
    let names: Vec<_> = l.retired_fields().iter().map(|f| f.name()).collect();
    assert_eq!(names, ["padded_dimensions", "padding_value"]);
    // Dropping unknown fields gives what prost (and XLA) would write.
    assert_eq!(
        l.without_unknown_fields().encode_to_vec(),
        [0x0a, 0x02, 0x01, 0x00]
    );
}

/// Records of `formats_messages.jsonl` whose maps have several entries:
/// Google writes them in its hash table's order, we in key order, so bytes
/// and JSON are compared as values (docs/differences.md ("Proto formats")).
const MAP_ORDER: &[&str] = &[
    "string map, several keys",
    "map entries without key, then without value",
    "map with message values",
];

#[test]
fn other_messages_render_as_googles_runtime_does() {
    let mut checked = 0;
    for r in records("oracle/formats_messages.jsonl") {
        let note = str_field(&r, "note");
        let message = str_field(&r, "message");
        let input = hex(str_field(&r, "hex"));
        let decoded = decode(message, &input);
        if let Some(error) = r.get("error") {
            let err = decoded.expect_err(note);
            assert_eq!(err.kind(), ErrorKind::Decode, "{note}: {error}");
            checked += 1;
            continue;
        }
        let m = decoded.unwrap_or_else(|e| panic!("{note}: {e}"));
        let reencoded = m.encode_to_vec();
        let names = JsonOptions::new().preserve_proto_field_names(true);
        if MAP_ORDER.contains(&note) {
            let google = decode(message, &hex(str_field(&r, "reencode_hex"))).unwrap();
            assert_eq!(m.to_dynamic(), google.to_dynamic(), "{note}");
            for (field, options) in [
                ("json", JsonOptions::new()),
                ("json_preserving_names", names),
            ] {
                let ours: Value = serde_json::from_str(&m.to_json(&options)).unwrap();
                let theirs: Value = serde_json::from_str(str_field(&r, field)).unwrap();
                assert_eq!(ours, theirs, "{note} {field}");
            }
        } else {
            assert_eq!(to_hex(&reencoded), str_field(&r, "reencode_hex"), "{note}");
            for (field, options) in [
                ("json", JsonOptions::new()),
                ("json_preserving_names", names),
            ] {
                same_text(
                    &m.to_json(&options.pretty(true)),
                    str_field(&r, field),
                    &format!("{note} {field}"),
                );
            }
        }
        same_text(&m.to_text_format(), str_field(&r, "text_format"), note);
        assert_eq!(
            m.to_text_format_one_line(),
            str_field(&r, "text_format_one_line"),
            "{note}"
        );
        checked += 1;
    }
    assert_eq!(checked, 28);
}
