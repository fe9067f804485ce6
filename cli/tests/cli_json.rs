//! Every command in both output modes: the text and the `--json` output
//! say the same thing, and every error path gives exit 1 (2 for usage)
//! with a message, or the error object with kind, message, line and
//! column. Expected values come from the golden records (XLA), the
//! library's own functions (which the library's tests check against XLA),
//! and XLA's tiled-layout document.

#[path = "../../tests/common/mod.rs"]
mod common;
mod support;

use common::*;
use serde_json::{Value, json};
use support::*;
use xla_shape::text::parse_shape;
use xla_shape::{Shape, shape_util};

/// An error object's kind and message.
fn error_of(doc: &Value) -> (&str, &str) {
    let e = &doc["error"];
    (
        e["kind"].as_str().expect("kind"),
        e["message"].as_str().expect("message"),
    )
}

#[test]
fn describe_json_agrees_with_the_golden_records() {
    for r in records("shapes.jsonl").iter().take(400) {
        let xla_str = str_field(r, "xla_str");
        // Shapes this crate reads (it validates what XLA holds unvalidated;
        // docs/differences.md).
        if r["reparse_str"].as_str() != Some(xla_str) || parse_shape(xla_str).is_err() {
            continue;
        }
        let doc = json_doc(&["describe", "--json", xla_str], b"", 0);
        assert_eq!(doc["shape"], xla_str, "{}", id(r));
        assert_eq!(doc["proto_hex"], str_field(r, "proto_hex"), "{}", id(r));
        let shape: Shape = xla_str.parse().unwrap();
        if let Shape::Array(a) = &shape {
            let array = &doc["arrays"][0];
            assert_eq!(doc["kind"], "array");
            assert_eq!(array["dimensions"].as_array().unwrap().len(), a.rank());
            // XLA's count of an unbounded shape is INT64_MIN; ours is null
            // (ElementsIn is undefined there).
            let count = r["facts"]["xla_element_count"].as_i64();
            if let (Some(n), false) = (count, shape.is_unbounded_dynamic()) {
                assert_eq!(array["elements"], n, "{}", id(r));
            }
            // The CPU client's size adds dynamic-size metadata to
            // ByteSizeOf: compare static shapes only.
            let size = r["facts"]["xla_cpu_shape_size_bytes"].as_i64();
            if let (Some(n), true) = (size, r["facts"]["is_static"] == true) {
                assert_eq!(array["byte_size"], n, "{}", id(r));
            }
            // The text says the same numbers.
            let text = ok(&["describe", xla_str], b"");
            if let Some(n) = array["elements"].as_i64() {
                assert!(text.contains(&format!("elements:       {n}\n")), "{text}");
            }
        }
    }
}

#[test]
fn describe_reads_every_input_form() {
    let shape = "f32[3,5]{1,0:T(2,2)}";
    let dir = std::env::temp_dir().join(format!("xla-shape-describe-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("shape.txt");
    std::fs::write(&file, format!("{shape}\n")).unwrap();
    let literal = ok(&["describe", shape], b"");
    let at_file = ok(&["describe", &format!("@{}", file.display())], b"");
    let stdin = ok(&["describe", "-"], shape.as_bytes());
    let piped = ok(&["describe"], shape.as_bytes());
    let hex = ok(&["convert", "--to", "hex", shape], b"");
    let from_hex = ok(&["describe", hex.trim()], b"");
    assert_eq!(literal, at_file);
    assert_eq!(literal, stdin);
    assert_eq!(literal, piped);
    assert_eq!(literal, from_hex);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_layout_string_is_read_as_a_layout() {
    // A tiled layout's LayoutProto is the layout field of its array's
    // ShapeProto in the golden records (XLA's bytes).
    let golden = records("shapes.jsonl");
    let mut tiled = 0;
    for r in &golden {
        let xla_str = str_field(r, "xla_str");
        let Some(at) = xla_str.find("]{") else {
            continue;
        };
        if !xla_str.contains(":T(") || xla_str.starts_with('(') || parse_shape(xla_str).is_err() {
            continue;
        }
        let layout = &xla_str[at + 1..];
        let layout_hex = ok(&["convert", "--to", "hex", layout], b"");
        let shape_hex = str_field(r, "proto_hex");
        assert!(
            shape_hex.contains(layout_hex.trim()),
            "{layout}: {layout_hex} in {shape_hex}"
        );
        assert_eq!(
            ok(&["convert", "--to", "layout", xla_str], b""),
            format!("{layout}\n")
        );
        tiled += 1;
        if tiled == 10 {
            break;
        }
    }
    assert_eq!(tiled, 10);
    let layout_hex = ok(&["convert", "--to", "hex", "{1,0:T(2,2)}"], b"");
    assert_eq!(ok(&["validate", "{1,0:T(2,2)}"], b""), "ok\n");
    let doc = json_doc(&["describe", "--json", "{1,0:T(2,2)}"], b"", 0);
    assert_eq!(doc["kind"], "layout");
    assert_eq!(doc["minor_to_major"], json!([1, 0]));
    assert_eq!(doc["tiles"], json!([[2, 2]]));
    assert_eq!(doc["proto_hex"], layout_hex.trim());
    // Commands that need a shape say so, in both modes.
    for cmd in ["strides", "draw"] {
        let err = fails(&[cmd, "{1,0}"], b"", 1);
        assert!(err.contains("is a layout, not a shape"), "{err}");
        let doc = json_doc(&[cmd, "--json", "{1,0}"], b"", 1);
        assert_eq!(error_of(&doc).0, "InvalidArgument");
    }
    let doc = json_doc(
        &["convert", "--json", "--to", "hlo-no-layout", "{1,0}"],
        b"",
        1,
    );
    assert_eq!(error_of(&doc).0, "InvalidArgument");
    let doc = json_doc(&["convert", "--json", "--to", "layout", "(f32[2])"], b"", 1);
    assert_eq!(error_of(&doc).0, "InvalidArgument");
}

#[test]
fn empty_input_is_no_input_everywhere() {
    for args in [
        &["describe", "-"][..],
        &["validate"][..],
        &["convert", "--to", "hex"][..],
        &["scan"][..],
        &["strides"][..],
        &["draw"][..],
        &["index", ""][..],
    ] {
        for stdin in [&b""[..], b"  \n\t\n"] {
            let err = fails(args, stdin, 1);
            assert_eq!(err, "xla-shape: no input\n", "{args:?}");
            let mut with_json = args.to_vec();
            with_json.push("--json");
            let doc = json_doc(&with_json, stdin, 1);
            assert_eq!(error_of(&doc), ("NoInput", "no input"), "{args:?}");
            assert_eq!(doc["error"]["line"], Value::Null);
        }
    }
}

#[test]
fn validate_errors_carry_xlas_message_kind_and_place() {
    let mut checked = 0;
    for r in records("invalid.jsonl") {
        // Empty text is the tool's "no input" (tested below), not a parse.
        let Some(text) = r["input"]["text"].as_str().filter(|t| !t.trim().is_empty()) else {
            continue;
        };
        let Some(xla_error) = r["xla_error"].as_str() else {
            continue;
        };
        let expected = match parse_shape(text) {
            Err(e) => e,
            Ok(_) => continue,
        };
        let doc = json_doc(&["validate", "--json", text], b"", 1);
        let (kind, message) = error_of(&doc);
        assert_eq!(kind, format!("{:?}", expected.kind()), "{}", id(&r));
        assert_eq!(message, expected.message());
        let xla = xla_message(xla_error);
        let first = xla.lines().next().unwrap_or("");
        assert!(
            message.contains(first),
            "{}: {message} lacks {first}",
            id(&r)
        );
        match expected.location() {
            Some(l) => {
                assert_eq!(doc["error"]["line"], l.line);
                assert_eq!(doc["error"]["column"], l.column + 1);
            }
            None => assert_eq!(doc["error"]["line"], Value::Null),
        }
        let diagnostics: Vec<Value> = expected
            .diagnostics()
            .iter()
            .map(|d| {
                json!({
                    "line": d.location().line,
                    "column": d.location().column + 1,
                    "message": d.message(),
                })
            })
            .collect();
        assert_eq!(
            doc["error"]["diagnostics"],
            json!(diagnostics),
            "{}",
            id(&r)
        );
        let err = fails(&["validate", text], b"", 1);
        assert_eq!(
            err,
            format!("xla-shape: {}\n", expected.message().trim_end())
        );
        checked += 1;
    }
    assert!(checked >= 10, "{checked}");
    let doc = json_doc(&["validate", "--json", "f32[2]"], b"", 0);
    assert_eq!(doc, json!({"valid": true, "shape": "f32[2]{0}"}));
}

#[test]
fn convert_json_wraps_the_text_output() {
    for (to, input) in [
        ("hex", "f32[2,3]"),
        ("json", "f32[2,3]"),
        ("pbtxt", "(f32[2], token[])"),
        ("hlo", "100b1a0202032a070a02010080010132020000"),
    ] {
        let text = ok(&["convert", "--to", to, input], b"");
        let doc = json_doc(&["convert", "--json", "--to", to, input], b"", 0);
        assert_eq!(doc["output"].as_str().unwrap().trim_end(), text.trim_end());
    }
    let doc = json_doc(&["convert", "--json", "--to", "hex", "f32[2"], b"", 1);
    assert_eq!(error_of(&doc).0, "Parse");
    let doc = json_doc(
        &["convert", "--json", "--to", "hex", "@/nonexistent/x"],
        b"",
        1,
    );
    let (kind, message) = error_of(&doc);
    assert_eq!(kind, "Io");
    assert!(message.starts_with("/nonexistent/x: "), "{message}");
    let doc = json_doc(&["convert", "--json", "--lines", "--to", "pb"], b"", 2);
    assert_eq!(error_of(&doc).0, "Usage");
    // clap's own usage errors too; --help stays text, exit 0.
    for args in [
        &["convert", "--json", "f32[2]"][..],
        &["--json", "frobnicate"][..],
    ] {
        let doc = json_doc(args, b"", 2);
        assert_eq!(error_of(&doc).0, "Usage", "{args:?}");
    }
    assert!(ok(&["--json", "--help"], b"").starts_with("Inspect"));
}

#[test]
fn convert_lines_json_answers_every_line_in_order() {
    // Not UTF-8: read as binary ShapeProto, which it is not.
    let input = b"f32[2]\n\nf32[2\n\xff\n{1,0}\r\n(f32[2], s32[])";
    let text = run(&["convert", "--lines", "--to", "hex"], input);
    assert_eq!(text.status.code(), Some(1));
    let text = String::from_utf8(text.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let objects = json_lines(&["convert", "--lines", "--json", "--to", "hex"], input, 1);
    assert_eq!(lines.len(), 6, "{text}");
    assert_eq!(objects.len(), 6);
    for (n, (line, object)) in lines.iter().zip(&objects).enumerate() {
        assert_eq!(object["line"], n + 1);
        match object["output"].as_str() {
            Some(output) => assert_eq!(*line, output),
            None => {
                let message = object["error"]["message"].as_str().unwrap();
                assert_eq!(object["error"]["line"], n + 1);
                assert!(line.starts_with("error: "), "{line}");
                // The text line is the message on one line.
                let first = message.lines().last().unwrap_or("");
                assert!(!first.is_empty());
            }
        }
    }
    let kinds: Vec<Value> = objects.iter().map(|o| o["error"]["kind"].clone()).collect();
    assert_eq!(
        kinds,
        [
            json!(null),
            json!("NoInput"),
            json!("Parse"),
            json!("Decode"),
            json!(null),
            json!(null)
        ]
    );
    // XLA on f32[2 (tests/data/oracle/cli.jsonl): `was parsing 1:5: error:
    // MESSAGE`, column 5 counted from 0 on the first line: 6, 1-based; the
    // diagnostic is on input line 3.
    let xla = records("oracle/cli.jsonl");
    let xla = xla_message(str_field(&xla[0], "xla_error"));
    let was_parsing = xla.lines().nth(1).unwrap();
    let (at, message) = was_parsing.split_once(": error: ").unwrap();
    assert_eq!(at, "was parsing 1:5");
    assert_eq!(objects[2]["error"]["column"], 6);
    assert_eq!(
        objects[2]["error"]["diagnostics"],
        json!([{"line": 3, "column": 6, "message": message}])
    );
    // The text line gives XLA's `was parsing` line, without source and caret.
    assert_eq!(lines[2], format!("error: Syntax error: {was_parsing}"));
    assert_eq!(
        objects[0]["output"],
        to_hex(&parse_shape("f32[2]").unwrap().to_proto_bytes())
    );
}

#[test]
fn scan_json_lists_what_the_text_lists() {
    let path = data_path("hlo/matmul_bf16.txt");
    let arg = format!("@{path}");
    let text = ok(&["scan", &arg], b"");
    let objects = json_lines(&["scan", "--json", &arg], b"", 0);
    let module = std::fs::read_to_string(&path).unwrap();
    let found: Vec<_> = xla_shape::text::shapes_in_hlo(&module).collect();
    assert_eq!(objects.len(), found.len());
    assert_eq!(text.lines().count(), found.len());
    for ((o, f), line) in objects.iter().zip(&found).zip(text.lines()) {
        let shape = f.shape.as_ref().unwrap();
        assert_eq!(o["line"], f.location.line);
        assert_eq!(o["column"], f.location.column + 1);
        assert_eq!(o["text"], f.text);
        assert_eq!(o["shape"], shape.to_string());
        assert_eq!(o["byte_size"], shape_util::byte_size_of(shape, 8).unwrap());
        assert_eq!(
            line,
            format!(
                "{}:{}\t{}\t{}\t{}",
                o["line"],
                o["column"],
                o["byte_size"],
                shape,
                o["owner"].as_str().unwrap()
            )
        );
    }
    // A shape that does not parse: an error line in both modes, exit 1.
    let bad = "ENTRY e {\n  ROOT p = f32[2]{5} parameter(0)\n}\n";
    let expected: Vec<_> = xla_shape::text::shapes_in_hlo(bad).collect();
    let e = expected[0].shape.as_ref().unwrap_err();
    let objects = json_lines(&["scan", "--json"], bad.as_bytes(), 1);
    assert_eq!(objects.len(), 1);
    assert_eq!(objects[0]["error"]["message"], e.message());
    assert_eq!(objects[0]["error"]["kind"], format!("{:?}", e.kind()));
    assert_eq!(objects[0]["text"], "f32[2]{5}");
    let out = run(&["scan"], bad.as_bytes());
    assert_eq!(out.status.code(), Some(1));
    let line = String::from_utf8(out.stdout).unwrap();
    assert!(line.starts_with("2:12\terror: "), "{line}");
    assert!(line.trim_end().ends_with("\tf32[2]{5}\t-"), "{line}");
    // A file name given without @ is the file, as with @.
    assert_eq!(ok(&["scan", &path], b""), text);
    // Not UTF-8.
    let doc = json_doc(&["scan", "--json"], b"\xff\xfe", 1);
    assert_eq!(error_of(&doc).0, "Format");
}

#[test]
fn scan_json_keys_are_the_documented_ones() {
    // docs/cli.md lists the keys of each line of `scan --json`: every key
    // the tool writes, for a shape and for a shape that does not read.
    let docs =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/cli.md")).unwrap();
    let row = docs
        .lines()
        .find(|l| l.starts_with("| `scan` |"))
        .expect("the scan row of docs/cli.md");
    let good = json_lines(
        &[
            "scan",
            "--json",
            &format!("@{}", data_path("hlo/matmul_bf16.txt")),
        ],
        b"",
        0,
    );
    let bad = json_lines(
        &["scan", "--json"],
        b"ENTRY e {\n  ROOT p = f32[2]{5} parameter(0)\n}\n",
        1,
    );
    for o in good.iter().chain(&bad) {
        for key in o.as_object().unwrap().keys() {
            assert!(row.contains(&format!("\"{key}\"")), "{key} is not in {row}");
        }
    }
}

#[test]
fn index_json_answers_every_line() {
    // Figure 1 of XLA's tiled-layout document, F32[3,5]{1,0:T(2,2)}:
    // (2,3) is at 17, slot 9 is padding, (2,4) is at 20.
    let shape = "f32[3,5]{1,0:T(2,2)}";
    let objects = json_lines(&["index", "--json", shape], b"2,3\n9,9\nx\n\xff\n", 1);
    assert_eq!(objects.len(), 4);
    assert_eq!(
        objects[0],
        json!({"line": 1, "index": [2, 3], "offset": 17, "padding": false})
    );
    for (o, kind) in objects[1..]
        .iter()
        .zip(["InvalidArgument", "InvalidArgument", "Format"])
    {
        assert_eq!(o["error"]["kind"], kind, "{o}");
    }
    let objects = json_lines(&["index", "--json", "--offset", shape], b"9\n20\n24\n", 1);
    assert_eq!(
        objects[0],
        json!({"line": 1, "index": null, "offset": 9, "padding": true})
    );
    assert_eq!(
        objects[1],
        json!({"line": 2, "index": [2, 4], "offset": 20, "padding": false})
    );
    assert_eq!(objects[2]["error"]["kind"], "InvalidArgument");
    // SHAPE errors end the run before any line is read.
    let doc = json_doc(&["index", "--json", "(f32[2])"], b"0\n", 1);
    assert_eq!(error_of(&doc).0, "InvalidArgument");
    let doc = json_doc(&["index", "--json", "f32[?]"], b"0\n", 1);
    assert_eq!(error_of(&doc).0, "InvalidArgument");
    let doc = json_doc(&["index", "--json", "-"], b"0\n", 2);
    assert_eq!(error_of(&doc).0, "Usage");
}

#[test]
fn strides_in_both_modes() {
    // XLA's shape_util_test.cc, ByteStrides: f32[3,5,7] -> [140,28,4].
    let doc = json_doc(&["strides", "--json", "f32[3,5,7]"], b"", 0);
    assert_eq!(doc["byte_strides"], json!([140, 28, 4]));
    assert_eq!(doc["element_strides"], json!([35, 7, 1]));
    assert_eq!(doc["byte_strides_error"], Value::Null);
    // Packed 4-bit elements: element strides, no byte strides.
    let packed = "s4[2,4]{1,0:E(4)}";
    let array = match parse_shape(packed).unwrap() {
        Shape::Array(a) => a,
        _ => unreachable!(),
    };
    let element = xla_shape::strides::element_strides(&array).unwrap();
    let bytes_error = xla_shape::strides::byte_strides(&array).unwrap_err();
    let doc = json_doc(&["strides", "--json", packed], b"", 0);
    assert_eq!(doc["element_strides"], json!(element));
    assert_eq!(doc["byte_strides"], Value::Null);
    assert_eq!(doc["byte_strides_error"]["message"], bytes_error.message());
    let text = ok(&["strides", packed], b"");
    assert!(text.contains("byte strides:    none: "), "{text}");
    // No strides at all: exit 1 in both modes.
    let tiled = "f32[16,256]{1,0:T(8,128)}";
    let doc = json_doc(&["strides", "--json", tiled], b"", 1);
    assert!(error_of(&doc).1.contains("has no strides"));
    assert!(fails(&["strides", tiled], b"", 1).contains("has no strides"));
    assert!(fails(&["strides", "(f32[2])"], b"", 1).contains("is not an array shape"));
}

#[test]
fn too_large_inputs_are_refused_with_their_limit() {
    let doc = json_doc(
        &["describe", "--json", "--max-input", "4", "-"],
        b"f32[2,3]",
        1,
    );
    let (kind, message) = error_of(&doc);
    assert_eq!(kind, "TooLarge");
    assert!(message.contains("larger than 4 bytes"), "{message}");
    // Exactly at the limit is fine.
    ok(&["describe", "--max-input", "8", "-"], b"f32[2,3]");
    let objects = json_lines(
        &[
            "convert",
            "--lines",
            "--json",
            "--to",
            "hex",
            "--max-line",
            "8",
        ],
        b"f32[2]\nf32[2,3,4,5]\nf32[3]\n",
        1,
    );
    assert_eq!(objects.len(), 3);
    assert_eq!(objects[1]["error"]["kind"], "TooLarge");
    assert!(objects[2]["output"].is_string());
}

#[test]
fn help_shows_an_example_for_every_command() {
    let commands = commands();
    assert!(commands.len() >= 8, "{commands:?}");
    for cmd in &commands {
        let cmd = cmd.as_str();
        let help = ok(&[cmd, "--help"], b"");
        assert!(help.contains("Example"), "{cmd} --help:\n{help}");
        assert!(
            help.contains(&format!("xla-shape {cmd}"))
                || help.contains(&format!("| xla-shape {cmd}")),
            "{help}"
        );
    }
}

#[test]
fn completions_cover_every_command() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let script = ok(&["completions", shell], b"");
        for cmd in [
            "describe", "convert", "validate", "scan", "index", "strides", "draw",
        ] {
            assert!(script.contains(cmd), "{shell} completions lack {cmd}");
        }
        assert!(script.contains("json"), "{shell}");
    }
}

/// The `kind` of an error object is the library's `ErrorKind::as_str` of
/// the error, for every library kind a command reaches from its input.
#[test]
fn error_kinds_are_the_librarys_names() {
    use xla_shape::ErrorKind;
    let from_hex = |h: &str| Shape::from_proto_bytes(&hex(h)).unwrap_err();
    let cases = [
        ("f32[2", parse_shape("f32[2").unwrap_err()),
        // ShapeProto bytes (proto/xla/xla_data.proto): element_type (2)
        // F32 (11), dimensions (3) [2, 3], layout (5) with minor_to_major
        // (1) [0, 0]; element_type 99, no such type; a key without value.
        (
            "100b1a0202032a040a020000",
            from_hex("100b1a0202032a040a020000"),
        ),
        ("1063", from_hex("1063")),
        ("10", from_hex("10")),
    ];
    let kinds: Vec<ErrorKind> = cases.iter().map(|(_, e)| e.kind()).collect();
    assert_eq!(
        kinds,
        [
            ErrorKind::Parse,
            ErrorKind::InvalidLayout,
            ErrorKind::InvalidShape,
            ErrorKind::Decode
        ]
    );
    for (input, library) in &cases {
        let doc = json_doc(&["validate", "--json", input], b"", 1);
        assert_eq!(
            error_of(&doc),
            (library.kind().as_str(), &*library.to_string()),
            "{input}"
        );
    }
    // The library's InvalidArgument, from a command that needs an array.
    let doc = json_doc(&["strides", "--json", "(f32[2])"], b"", 1);
    assert_eq!(error_of(&doc).0, ErrorKind::InvalidArgument.as_str());
}
