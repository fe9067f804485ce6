//! The JSON and text-format parsers accept what
//! Google's `json_format.Parse` and `text_format.Parse` accept, giving the
//! same message (`tests/data/oracle/formats_{json,text}_parse.jsonl`), and
//! malformed input of any kind is a clean error, never a panic.

use crate::common::*;
use proptest::prelude::*;
use prost::Message;
use prost_reflect::{DynamicMessage, ReflectMessage};
use xla_shape::ErrorKind;
use xla_shape::formats::{self, LosslessMessage};
use xla_shape::proto::{DESCRIPTOR_POOL, LayoutProto, ShapeProto};

fn descriptor(name: &str) -> prost_reflect::MessageDescriptor {
    DESCRIPTOR_POOL.get_message_by_name(name).expect("message")
}

/// A message's bytes as Google's runtime writes them (map entries in key
/// order, as we write them: the one difference in map order set aside,
/// see docs/differences.md ("Proto formats")).
fn canonical(descriptor: prost_reflect::MessageDescriptor, bytes: &[u8]) -> String {
    to_hex(
        &LosslessMessage::decode(descriptor, bytes)
            .expect("a parsed message encodes to bytes that decode")
            .encode_to_vec(),
    )
}

/// Text-format inputs where we and Google's parser disagree, and why; each
/// is in docs/differences.md ("Proto formats").
const TEXT_DIFFERENCES: &[(&str, &str)] = &[
    (
        "tuple_shapes [{ element_type: F32 }]",
        "a list of messages needs the `:` (prost-reflect); Google's makes it optional",
    ),
    (
        "dimensions: - 2",
        "prost-reflect allows space after a minus sign; Google's does not",
    ),
    (
        r#"parameter_names: "\x41\101\u00e9\U0001F600\n\t\\\"\'\a\b\f\v\?""#,
        r"`\?` is `?` (C, C++); Python keeps the backslash",
    ),
    (
        r#"parameter_names: "\z""#,
        "an unknown escape is an error (C++); Python keeps it as written",
    ),
    (
        "flop_count: -0.0",
        "-0.0 in a singular double without presence is dropped when encoded (prost)",
    ),
];

/// JSON inputs where we and `json_format.Parse` disagree, and why.
const JSON_DIFFERENCES: &[(&str, &str)] = &[
    (
        r#"{"elementType": "99"}"#,
        "an enum number in a string is not accepted",
    ),
    (
        r#"{"elementType": 11.0}"#,
        "an enum number written as a float is not accepted",
    ),
    (
        r#"{"elementType": true}"#,
        "a boolean is not an enum number (Python's bool is an int)",
    ),
    (
        r#"{"dimensions": ["2.0"]}"#,
        "an integer in a string must be written as an integer",
    ),
    (
        r#"{"dimensions": ["1e2"]}"#,
        "an integer in a string must be written as an integer",
    ),
    (
        r#"{"layout": []}"#,
        "an empty list is not a message (Python treats it as empty)",
    ),
    (
        "[]",
        "an empty list is not a message (Python treats it as empty)",
    ),
    (
        r#"{"f32s": ["nan"]}"#,
        "prost-reflect accepts `nan` in any case; Python wants `NaN`",
    ),
    (
        r#"{"s8s": "!!"}"#,
        "base64 with characters outside the alphabet is an error; Python skips them",
    ),
    (
        r#"{"flopCount": -0.0}"#,
        "-0.0 in a singular double without presence is dropped when encoded (prost)",
    ),
    (
        r#"{"flopCount": "-0"}"#,
        "-0.0 in a singular double without presence is dropped when encoded (prost)",
    ),
];

fn check_cases(
    file: &str,
    key: &str,
    known: &[(String, &str)],
    parse: impl Fn(&str, &str) -> xla_shape::Result<DynamicMessage>,
) {
    let mut mismatches = Vec::new();
    let mut checked = 0;
    for r in records(file) {
        let message = str_field(&r, "message");
        let input = str_field(&r, key);
        let ours = parse(message, input);
        if let Err(e) = &ours {
            assert_eq!(e.kind(), ErrorKind::Format, "{input:?}: {e}");
        }
        let same = match (&ours, r["hex"].as_str()) {
            (Ok(m), Some(g)) => {
                canonical(m.descriptor(), &m.encode_to_vec()) == canonical(m.descriptor(), &hex(g))
            }
            (Err(_), None) => true,
            _ => false,
        };
        let expected_difference = known.iter().any(|(i, _)| i == input);
        if same == expected_difference {
            mismatches.push(format!(
                "{message} {input:?}: ours {:?}, Google's {}",
                ours.as_ref()
                    .map(|m| to_hex(&m.encode_to_vec()))
                    .map_err(|e| e.to_string()),
                r.get("hex").or(r.get("error")).unwrap()
            ));
        }
        checked += 1;
    }
    assert!(
        mismatches.is_empty(),
        "{} of {checked}:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
}

/// `formats_gen.py`'s nested text: `levels` tuples around an f32.
fn nested_text(levels: usize) -> String {
    "tuple_shapes { ".repeat(levels) + "element_type: F32" + &" }".repeat(levels)
}

#[test]
fn text_format_parses_as_googles_parser_does() {
    let mut known: Vec<(String, &str)> = TEXT_DIFFERENCES
        .iter()
        .map(|(i, why)| (i.to_string(), *why))
        .collect();
    known.push((
        nested_text(101),
        "101 levels of messages: we stop at protobuf's limit of 100, Python's parser has none",
    ));
    check_cases("oracle/formats_text_parse.jsonl", "text", &known, |m, t| {
        formats::from_text_format_dynamic(descriptor(m), t)
    });
}

#[test]
fn json_parses_as_googles_parser_does() {
    let known: Vec<(String, &str)> = JSON_DIFFERENCES
        .iter()
        .map(|(i, why)| (i.to_string(), *why))
        .collect();
    check_cases("oracle/formats_json_parse.jsonl", "json", &known, |m, t| {
        formats::from_json_dynamic(descriptor(m), t)
    });
}

#[test]
fn an_empty_any_reads_as_json_format_reads_it() {
    // formats_json_any.jsonl: json_format.Parse reads `{}` at an `Any`
    // field (as MessageToJson writes the empty `Any`) as a present, empty
    // `Any`, also inside an `Any`'s payload and in a list; an `Any` with
    // other keys and no `@type` is an error.
    check_cases("oracle/formats_json_any.jsonl", "json", &[], |m, t| {
        formats::from_json_dynamic(descriptor(m), t)
    });
}

#[test]
fn bad_keys_before_a_late_type_are_quoted_in_the_inputs_order() {
    // formats_json_any.jsonl: with the `@type` of an `Any` after other
    // keys, json_format.Parse reads the payload's keys in the input's order
    // and quotes the first it does not know. prost-reflect alone buffers
    // the keys before the `@type` in a hash map and quotes either of two
    // bad ones; each call seeds a new map, so twenty calls would show it.
    let mut checked = 0;
    for r in records("oracle/formats_json_any.jsonl") {
        let Some(google) = r["error"].as_str() else {
            continue;
        };
        let Some((_, rest)) = google.split_once("has no field named \"") else {
            continue;
        };
        let name = &rest[..rest.find('"').unwrap()];
        let (message, input) = (str_field(&r, "message"), str_field(&r, "json"));
        for _ in 0..20 {
            let err = formats::from_json_dynamic(descriptor(message), input).unwrap_err();
            assert!(
                err.message()
                    .contains(&format!("unrecognized field name '{name}'")),
                "{input}: {err}, Google quotes {name:?}"
            );
        }
        checked += 1;
    }
    assert_eq!(checked, 4);
}

#[test]
fn binary_nesting_stops_where_protobufs_does() {
    // formats_messages.jsonl: upb decodes 100 levels below the outermost
    // message and rejects 101 ("Exceeded upb_DecodeOptions_MaxDepth").
    for r in records("oracle/formats_messages.jsonl") {
        let note = str_field(&r, "note");
        let levels = match note {
            n if n.starts_with("f32 nested in 100 tuples") => 100,
            n if n.starts_with("f32 nested in 101 tuples") => 101,
            _ => continue,
        };
        let bytes = hex(str_field(&r, "hex"));
        assert_eq!(bytes, nested_tuple_bytes(levels), "{note}");
        let lossless = LosslessMessage::decode_as::<ShapeProto>(&bytes[..]);
        let typed = ShapeProto::decode(&bytes[..]).map_err(xla_shape::Error::from);
        if r.get("error").is_some() {
            assert_eq!(lossless.unwrap_err().kind(), ErrorKind::Decode, "{note}");
            assert_eq!(typed.unwrap_err().kind(), ErrorKind::Decode, "{note}");
        } else {
            assert_eq!(
                to_hex(&lossless.unwrap().encode_to_vec()),
                str_field(&r, "reencode_hex")
            );
            assert_eq!(
                to_hex(&typed.unwrap().encode_to_vec()),
                str_field(&r, "reencode_hex")
            );
        }
    }
}

#[test]
fn very_deep_input_is_an_error_in_every_format() {
    let levels = 100_000;
    let bytes = nested_tuple_bytes(levels);
    assert_eq!(
        LosslessMessage::decode_as::<ShapeProto>(&bytes[..])
            .unwrap_err()
            .kind(),
        ErrorKind::Decode
    );
    assert_eq!(
        xla_shape::Error::from(ShapeProto::decode(&bytes[..]).unwrap_err()).kind(),
        ErrorKind::Decode
    );
    let json = "{\"tupleShapes\": [".repeat(levels) + &"]}".repeat(levels);
    let err = formats::from_json::<ShapeProto>(&json).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Format);
    assert_eq!(
        err.message(),
        "invalid JSON message: Message too deep. Max recursion depth is 100"
    );
    let unbalanced = "[".repeat(levels);
    assert_eq!(
        formats::from_json::<ShapeProto>(&unbalanced)
            .unwrap_err()
            .kind(),
        ErrorKind::Format
    );
    let text = "tuple_shapes { ".repeat(levels);
    let err = formats::from_text_format::<ShapeProto>(&text).unwrap_err();
    assert_eq!(
        err.message(),
        "invalid text format message: message nesting exceeds the limit of 100 levels"
    );
    let text = "layout < ".repeat(levels);
    assert_eq!(
        formats::from_text_format::<ShapeProto>(&text)
            .unwrap_err()
            .kind(),
        ErrorKind::Format
    );
}

#[test]
fn json_nesting_stops_where_json_format_does() {
    // formats_json_parse.jsonl: json_format.Parse takes 99 tuple levels
    // (100 messages counting the outermost) and rejects 100.
    let json = |levels: usize| {
        "{\"elementType\": \"TUPLE\", \"tupleShapes\": [".repeat(levels)
            + "{\"elementType\": \"F32\"}"
            + &"]}".repeat(levels)
    };
    let ok: ShapeProto = formats::from_json(&json(99)).unwrap();
    assert_eq!(ok.encode_to_vec(), nested_tuple_bytes(99));
    let err = formats::from_json::<ShapeProto>(&json(100)).unwrap_err();
    assert_eq!(
        err.message(),
        "invalid JSON message: Message too deep. Max recursion depth is 100"
    );
    // The deepest message we write, 100 levels below the outermost,
    // cannot be read back as JSON, as with Google's runtime.
    let deepest = ShapeProto::decode(&nested_tuple_bytes(100)[..]).unwrap();
    assert!(formats::from_json::<ShapeProto>(&formats::to_json(&deepest)).is_err());
    let text = formats::to_text_format(&deepest);
    let back: ShapeProto = formats::from_text_format(&text).unwrap();
    assert_eq!(back, deepest);
}

#[test]
fn errors_say_where_json_went_wrong() {
    let err = formats::from_json::<ShapeProto>("{\n  \"elementType\": \"F33\"\n}").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Format);
    assert!(err.message().contains("F33"), "{}", err.message());
    // serde_json stops after the bad value's closing quote: line 2,
    // column 22 counted from 1, i.e. byte 21 of the line.
    assert_eq!(
        err.location(),
        // Line 1 is `{` and its newline: 2 bytes.
        Some(xla_shape::Location {
            line: 2,
            column: 21,
            offset: 2 + 21
        })
    );
    let err = formats::from_json::<ShapeProto>(r#"{"elementType": "F32", "elementType": "S8"}"#)
        .unwrap_err();
    assert_eq!(
        err.message(),
        "invalid JSON message: duplicate key \"elementType\""
    );
    assert_eq!(
        err.location(),
        Some(xla_shape::Location {
            line: 1,
            column: 23,
            offset: 23
        })
    );
}

#[test]
fn layouts_and_model_types_parse_too() {
    let l: LayoutProto =
        formats::from_text_format("minor_to_major: [1, 0] tiles { dimensions: [8, 128] }").unwrap();
    assert_eq!(
        formats::from_json::<LayoutProto>(&formats::to_json(&l)).unwrap(),
        l
    );
    let layout = <xla_shape::Layout as formats::ProtoFormats>::from_text_format(
        "minor_to_major: [1, 0] tiles { dimensions: [8, 128] }",
    )
    .unwrap();
    assert_eq!(layout.to_string(), "{1,0:T(8,128)}");
}

fn json_token() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "{",
        "}",
        "[",
        "]",
        ":",
        ",",
        "\"elementType\"",
        "\"element_type\"",
        "\"dimensions\"",
        "\"layout\"",
        "\"tupleShapes\"",
        "\"minorToMajor\"",
        "\"tiles\"",
        "\"F32\"",
        "\"TUPLE\"",
        "\"2\"",
        "2",
        "-1",
        "1e400",
        "true",
        "null",
        "\"\\u0000\"",
        " ",
        "\"x",
        "99",
        "\"isDynamicDimension\"",
        "\"physicalShape\"",
        "\"NaN\"",
    ])
}

fn text_token() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "{",
        "}",
        "<",
        ">",
        "[",
        "]",
        ":",
        ",",
        ";",
        " ",
        "\n",
        "#",
        "element_type",
        "dimensions",
        "layout",
        "tuple_shapes",
        "minor_to_major",
        "tiles",
        "physical_shape",
        "F32",
        "TUPLE",
        "2",
        "-",
        "0x7f",
        "99999999999999999999",
        "\"",
        "'a'",
        "\\",
        "inf",
        "1.5",
        "is_dynamic_dimension",
        "true",
    ])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..64)) {
        if let Err(e) = LosslessMessage::decode_as::<ShapeProto>(&bytes[..]) {
            prop_assert_eq!(e.kind(), ErrorKind::Decode);
        }
        if let Err(e) = LosslessMessage::decode_as::<LayoutProto>(&bytes[..]) {
            prop_assert_eq!(e.kind(), ErrorKind::Decode);
        }
        if let Ok(m) = LosslessMessage::decode_as::<ShapeProto>(&bytes[..]) {
            // Whatever decodes re-encodes to bytes that decode to the same.
            let again = LosslessMessage::decode_as::<ShapeProto>(&m.encode_to_vec()[..]).unwrap();
            prop_assert_eq!(again.encode_to_vec(), m.encode_to_vec());
            let _ = m.to_json(&Default::default());
            let _ = m.to_text_format();
            let _ = m.retired_fields();
        }
        let _ = ShapeProto::decode(&bytes[..]);
        let _ = xla_shape::Shape::from_proto_bytes(&bytes[..]);
    }

    #[test]
    fn random_strings_never_panic(s in "\\PC{0,40}") {
        for result in [
            formats::from_json::<ShapeProto>(&s).map(drop),
            formats::from_text_format::<ShapeProto>(&s).map(drop),
        ] {
            if let Err(e) = result {
                prop_assert_eq!(e.kind(), ErrorKind::Format);
            }
        }
        let _ = formats::from_hex(&s);
    }

    #[test]
    fn json_token_soup_never_panics(tokens in prop::collection::vec(json_token(), 0..40)) {
        let s = tokens.concat();
        for result in [
            formats::from_json::<ShapeProto>(&s).map(drop),
            <xla_shape::Shape as formats::ProtoFormats>::from_json(&s).map(drop),
        ] {
            if let Err(e) = result {
                prop_assert!(matches!(
                    e.kind(),
                    ErrorKind::Format | ErrorKind::MalformedProto | ErrorKind::InvalidShape | ErrorKind::InvalidLayout
                ));
            }
        }
        let _ = serde_json::from_str::<xla_shape::Shape>(&s);
    }

    #[test]
    fn text_token_soup_never_panics(tokens in prop::collection::vec(text_token(), 0..40)) {
        let s = tokens.concat();
        if let Err(e) = formats::from_text_format::<ShapeProto>(&s) {
            prop_assert_eq!(e.kind(), ErrorKind::Format);
        }
        let _ = <xla_shape::Shape as formats::ProtoFormats>::from_text_format(&s);
    }
}

#[test]
fn the_deepest_inputs_parse_on_a_small_stack() {
    // A thread with 1 MiB of stack (half of what test and many worker
    // threads get) parses and writes the deepest messages every format
    // allows.
    std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(|| {
            let text = "element_type: TUPLE tuple_shapes { ".repeat(100)
                + "element_type: F32"
                + &" }".repeat(100);
            let p: ShapeProto = formats::from_text_format(&text).unwrap();
            assert_eq!(p.encode_to_vec(), nested_tuple_bytes(100));
            let m = LosslessMessage::decode_as::<ShapeProto>(&nested_tuple_bytes(100)[..]).unwrap();
            assert_eq!(m.to_text_format(), formats::to_text_format(&p));
            let json = formats::to_json(&p);
            assert_eq!(m.to_json(&Default::default()), json);
            let shallower = ShapeProto::decode(&nested_tuple_bytes(99)[..]).unwrap();
            let back: ShapeProto = formats::from_json(&formats::to_json(&shallower)).unwrap();
            assert_eq!(back, shallower);
        })
        .unwrap()
        .join()
        .unwrap();
}
