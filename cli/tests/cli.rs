//! The `xla-shape` binary, run as a user runs it. Expected outputs come
//! from the golden records (XLA and Google's runtime), the oracle's record
//! of the built-in example, and the worked examples of XLA's tiled-layout
//! document (docs/tiled_layout.md).

#[path = "../../tests/common/mod.rs"]
mod common;
mod support;

use common::*;
use serde_json::Value;
use support::*;

/// A sample of golden records: arrays, tiled, dynamic, tuples, tokens.
fn sample() -> Vec<Value> {
    let wanted = ["f32[2,3]{1,0}", "(", "<=", ":T(", "token[]", "b(", "E(4)"];
    let mut picked: Vec<Value> = Vec::new();
    for r in records("shapes.jsonl") {
        let s = str_field(&r, "xla_str").to_string();
        let reparses = r["reparse_str"].as_str() == Some(s.as_str());
        if reparses
            && wanted.iter().any(|w| s.contains(w))
            && !picked.iter().any(|p| p["xla_str"] == s)
        {
            picked.push(r);
        }
        if picked.len() >= 12 {
            break;
        }
    }
    assert!(picked.len() >= 8);
    picked
}

#[test]
fn describe_without_input_shows_the_built_in_example() {
    let example = &records("oracle/example.jsonl")[0];
    // No command: the example; `describe` reads it from standard input.
    let runs: [(&[&str], &[u8]); 3] = [
        (&[], b""),
        (&["describe"], EXAMPLE.as_bytes()),
        (&["describe", "-"], EXAMPLE.as_bytes()),
    ];
    for (args, stdin) in runs {
        let out = ok(args, stdin);
        assert!(
            out.starts_with(&format!(
                "shape:          {}\n",
                str_field(example, "xla_str")
            )),
            "{out}"
        );
        assert!(out.contains("element type:   bf16 (16 bits)"), "{out}");
        assert!(out.contains("dimensions:     [8, 1, 1280, 16384]"), "{out}");
        // minor_to_major {3,2,0,1} read backwards: dims 1, 0, 2, 3.
        assert!(
            out.contains("major to minor: dim 1 (1), dim 0 (8), dim 2 (1280), dim 3 (16384)"),
            "{out}"
        );
        assert!(out.contains("tiles:          (8,128) then (2,1)"), "{out}");
        // xla_element_count and xla_cpu_shape_size_bytes of the oracle.
        let facts = &example["facts"];
        let elements = facts["xla_element_count"].as_i64().unwrap();
        let bytes = facts["xla_cpu_shape_size_bytes"].as_i64().unwrap();
        assert!(
            out.contains(&format!("elements:       {elements}\n")),
            "{out}"
        );
        assert!(out.contains(&format!("byte size:      {bytes} ")), "{out}");
        assert!(
            out.contains(&format!(
                "proto hex:      {}\n",
                str_field(example, "proto_hex")
            )),
            "{out}"
        );
    }
}

/// The built-in example (the oracle's record of it is
/// `tests/data/oracle/example.jsonl`).
const EXAMPLE: &str = "bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}";

#[test]
fn describe_groups_digits_only_when_asked() {
    let example = &records("oracle/example.jsonl")[0];
    let elements = example["facts"]["xla_element_count"].as_i64().unwrap();
    // 167772160 grouped in threes from the right.
    let digits = elements.to_string();
    let grouped: String = digits
        .chars()
        .enumerate()
        .flat_map(|(i, c)| {
            let sep = i > 0 && (digits.len() - i).is_multiple_of(3);
            sep.then_some('_').into_iter().chain(std::iter::once(c))
        })
        .collect();
    let out = ok(&["describe", "--group-digits", EXAMPLE], b"");
    assert!(
        out.contains(&format!("elements:       {grouped}\n")),
        "{out}"
    );
    let out = ok(&["describe", EXAMPLE], b"");
    // Only the numbers lines: the element type's other names (`DT_BFLOAT16`)
    // hold underscores of their own.
    let numbers: Vec<&str> = out
        .lines()
        .filter(|l| !l.trim_start().starts_with("known as:"))
        .collect();
    assert!(!numbers.iter().any(|l| l.contains('_')), "{out}");
    assert!(
        out.contains(&format!("elements:       {digits}\n")),
        "{out}"
    );
}

#[test]
fn describe_reports_tiled_sizes() {
    // Figure 1 of XLA's tiled-layout document: F32[3,5]{1,0:T(2,2)} occupies 24 slots (96 bytes)
    // for 15 elements (60 bytes).
    let out = ok(&["describe", "f32[3,5]{1,0:T(2,2)}"], b"");
    assert!(
        out.contains("in memory:      96 bytes padded, 60 unpadded (36 of padding)"),
        "{out}"
    );
    let out = ok(&["describe", "(f32[2], token[])"], b"");
    assert!(out.contains("tuple of 2 elements"), "{out}");
    assert!(out.contains("element {1}: token[]"), "{out}");
}

#[test]
fn convert_between_every_format_pair() {
    for r in sample() {
        let xla_str = str_field(&r, "xla_str");
        let hex = str_field(&r, "proto_hex");
        let forms = [
            ("hlo", format!("{xla_str}\n")),
            (
                "hlo-no-layout",
                format!("{}\n", r["facts"]["xla_str_no_layout"].as_str().unwrap()),
            ),
            ("hex", format!("{hex}\n")),
            ("json", format!("{}\n", str_field(&r, "json"))),
            (
                "json-names",
                format!("{}\n", str_field(&r, "json_preserving_names")),
            ),
            ("pbtxt", str_field(&r, "text_format").to_string()),
        ];
        for (from, input) in &forms {
            if *from == "hlo-no-layout" {
                continue; // loses the layout: checked below
            }
            for (to, expected) in &forms {
                let got = ok(
                    &["convert", "--from", from, "--to", to, input.trim_end()],
                    b"",
                );
                assert_eq!(&got, expected, "{from} -> {to} of {xla_str}");
                // Detected input format gives the same.
                let detected = ok(&["convert", "--to", to], input.as_bytes());
                assert_eq!(
                    &detected, expected,
                    "(detected {from}) -> {to} of {xla_str}"
                );
            }
            let pb = run(
                &["convert", "--from", from, "--to", "pb", input.trim_end()],
                b"",
            );
            assert_eq!(to_hex(&pb.stdout), hex, "{from} -> pb of {xla_str}");
            let back = ok(&["convert", "--from", "pb", "--to", "hlo"], &pb.stdout);
            assert_eq!(back, format!("{xla_str}\n"));
        }
    }
}

#[test]
fn hlo_without_layout_converts_without_one() {
    // XLA's parser fills f32[2,3] with {1,0}; `hlo-no-layout` input keeps
    // the array layout-less, whose proto (proto/0339) has no layout field.
    let golden = records("shapes.jsonl");
    let r = golden.iter().find(|r| r["id"] == "proto/0339").unwrap();
    assert_eq!(str_field(r, "xla_str"), "f32[2,3]");
    let out = ok(
        &[
            "convert",
            "--from",
            "hlo-no-layout",
            "--to",
            "hex",
            "f32[2,3]",
        ],
        b"",
    );
    assert_eq!(out.trim(), str_field(r, "proto_hex"));
    let filled = ok(
        &["convert", "--from", "hlo", "--to", "hlo", "f32[2,3]"],
        b"",
    );
    assert_eq!(filled, "f32[2,3]{1,0}\n");
}

#[test]
fn lines_mode_writes_one_line_per_input() {
    let sample = sample();
    let invalid = records("invalid.jsonl");
    let bad = invalid
        .iter()
        .find(|r| r["input"]["text"] == "f32[2]{0")
        .unwrap();
    let mut input = String::new();
    for r in &sample {
        input.push_str(str_field(r, "xla_str"));
        input.push('\n');
    }
    input.push_str("f32[2]{0\n");
    input.push('\n');
    for (to, field) in [
        ("hex", "proto_hex"),
        ("json", "json"),
        ("json-names", "json_preserving_names"),
    ] {
        let out = run(
            &["convert", "--lines", "--from", "hlo", "--to", to],
            input.as_bytes(),
        );
        assert_eq!(out.status.code(), Some(1));
        let text = String::from_utf8(out.stdout).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), sample.len() + 2, "{text}");
        for (line, r) in lines.iter().zip(&sample) {
            let expected = match to {
                "hex" => str_field(r, field).to_string(),
                _ => compact_json(str_field(r, field)),
            };
            assert_eq!(*line, expected);
        }
        let xla = xla_message(str_field(bad, "xla_error"));
        let first = xla.lines().nth(1).unwrap(); // "was parsing 1:8: error: ..."
        assert!(
            lines[sample.len()].starts_with("error: "),
            "{}",
            lines[sample.len()]
        );
        assert!(
            lines[sample.len()].contains(first),
            "{} lacks {first}",
            lines[sample.len()]
        );
        assert!(lines[sample.len() + 1].starts_with("error: "));
    }
    // Text format on one line, as `text_format.MessageToString(as_one_line=True)`.
    let out = ok(&["convert", "--lines", "--to", "pbtxt"], b"f32[2,3]{1,0}\n");
    assert_eq!(
        out,
        "element_type: F32 dimensions: 2 dimensions: 3 layout { minor_to_major: 1 minor_to_major: 0 tail_padding_alignment_in_elements: 1 } is_dynamic_dimension: false is_dynamic_dimension: false\n"
    );
}

#[test]
fn lossless_keeps_unknown_and_retired_fields() {
    // f32[2] with field 250 (unknown) appended: tag (250 << 3) | 2 = 0xd2 0x0f,
    // length 3, "abc". Google's runtime keeps it after the known fields.
    let input = "100b1a0102d20f03616263";
    let out = ok(&["convert", "--lossless", "--to", "hex", input], b"");
    assert_eq!(out.trim(), input);
    let plain = ok(&["convert", "--to", "hex", input], b"");
    assert_eq!(plain.trim(), "100b1a0102320100"); // XLA's ToProto, as in wire.jsonl
    assert!(fails(&["convert", "--lossless", "--to", "hlo", input], b"", 2).contains("--lossless"));
}

#[test]
fn validate_reports_xlas_errors() {
    assert_eq!(ok(&["validate", "f32[2,3]{1,0}"], b""), "ok\n");
    assert_eq!(
        ok(&["validate"], b"100b1a0202032a070a02010080010132020000"),
        "ok\n"
    );
    // Invalid protos: XLA's message (the RET_CHECK text).
    for r in records("invalid.jsonl") {
        if r["input"]["kind"] != "proto" {
            continue;
        }
        let err = fails(&["validate", r["input"]["hex"].as_str().unwrap()], b"", 1);
        let xla = xla_message(str_field(&r, "xla_error"));
        let text = xla
            .split_once(" Malformed")
            .map(|(_, t)| format!("Malformed{t}"))
            .unwrap_or(xla);
        assert!(err.contains(&text), "{err} lacks {text}");
    }
    // A shape XLA's parser accepts but validation rejects.
    let err = fails(&["validate", "f32[2,3]{0,0}"], b"", 1);
    assert!(
        err.contains("layout minor_to_major field has duplicate values: {0, 0}"),
        "{err}"
    );
}

#[test]
fn bad_input_in_every_format_fails_cleanly() {
    let cases: [(&str, &[u8]); 7] = [
        ("hlo", b"f32[2"),
        ("hlo-no-layout", b"f32[2,"),
        ("hex", b"10zz"),
        ("pb", b"\x10\x0b\x1a\x05\x01"),
        ("json", b"{\"elementType\": 3"),
        ("json-names", b"{\"element_type\": \"NOT_A_TYPE\"}"),
        ("pbtxt", b"element_type: NOT_A_TYPE"),
    ];
    for (from, input) in cases {
        let err = fails(&["convert", "--from", from, "--to", "hlo"], input, 1);
        assert!(err.starts_with("xla-shape: "), "{from}: {err}");
        assert!(!err.contains("panicked"), "{from}: {err}");
    }
    let err = fails(&["describe", "@/nonexistent/file"], b"", 1);
    assert!(err.contains("/nonexistent/file"), "{err}");
}

#[test]
fn usage_errors_exit_with_2() {
    fails(&["frobnicate"], b"", 2);
    fails(&["convert", "f32[2]"], b"", 2); // --to is required
    fails(&["convert", "--to", "yaml", "f32[2]"], b"", 2);
    fails(&["convert", "--lines", "--to", "pb"], b"", 2);
    fails(&["convert", "--json", "--to", "pb", "f32[2]"], b"", 2);
    fails(
        &["convert", "--lines", "--from", "pb", "--to", "hex"],
        b"",
        2,
    );
    fails(&["convert", "--lossless", "--to", "hlo", "f32[2]"], b"", 2);
    fails(&["index", "-"], b"0\n", 2);
    fails(&["draw", "--max-rows", "0", "f32[2]"], b"", 2);
    fails(&["draw", "--max-cols", "100000", "f32[2]"], b"", 2);
    fails(&["completions", "tcsh"], b"", 2);
}

#[test]
fn scan_lists_every_shape_with_line_and_size() {
    let path = data_path("hlo/matmul_bf16.txt");
    let out = ok(&["scan", &format!("@{path}")], b"");
    let text = std::fs::read_to_string(&path).unwrap();
    let found: Vec<_> = xla_shape::text::shapes_in_hlo(&text).collect();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), found.len());
    // The first shape is the first parameter of entry_computation_layout on
    // line 1: bf16[64,128] is 64 * 128 * 2 = 16384 bytes.
    let first = text.find("bf16[64,128]{1,0}").unwrap() + 1;
    assert_eq!(
        lines[0],
        format!("1:{first}\t16384\tbf16[64,128]{{1,0}}\tparameter of entry_computation_layout")
    );
    for (line, f) in lines.iter().zip(&found) {
        let fields: Vec<&str> = line.split('\t').collect();
        assert_eq!(fields.len(), 4, "{line}");
        assert_eq!(
            fields[0],
            format!("{}:{}", f.location.line, f.location.column + 1)
        );
        assert_eq!(fields[2], f.shape.as_ref().unwrap().to_string());
    }
}

#[test]
fn index_maps_elements_to_tiled_offsets_and_back() {
    // Figure 1 of XLA's tiled-layout document, F32[3,5]{1,0:T(2,2)}: (2,3) is at 17, (0,4) at 8,
    // slot 9 is padding, (2,4) is at 20.
    let out = run(
        &["index", "f32[3,5]{1,0:T(2,2)}"],
        b"2,3\n0,4\n2, 4\n7,0\nx\n",
    );
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(&lines[..3], ["17", "8", "20"]);
    assert!(
        lines[3].starts_with("error: ") && lines[4].starts_with("error: "),
        "{text}"
    );
    let out = ok(
        &["index", "--offset", "f32[3,5]{1,0:T(2,2)}"],
        b"17\n9\n20\n",
    );
    assert_eq!(out, "2,3\npadding\n2,4\n");
    // Figure 2, F32[4,8]{1,0:T(2,4)(2,1)}: row 2 is 16 18 20 22 24 26 28 30.
    let out = ok(&["index", "f32[4,8]{1,0:T(2,4)(2,1)}"], b"2,0\n2,1\n2,7\n");
    assert_eq!(out, "16\n18\n30\n");
}

#[test]
fn byte_ranges_of_a_box() {
    // f32[10,130] in (8,128) tiles of 4096 bytes, 2x2 of them: row 9 is
    // row 1 of the second tile row, bytes 2*4096 + 512 .. +512 in the
    // first tile and the two columns 128, 129 (8 bytes) of the second.
    let out = ok(
        &[
            "ranges",
            "--start",
            "9,0",
            "--limit",
            "10,130",
            "f32[10,130]{1,0:T(8,128)}",
        ],
        b"",
    );
    assert_eq!(
        out,
        "shape:           f32[10,130]{1,0:T(8,128)}\n\
         byte size:       16384 (5200 without padding)\n\
         row-addressable: []\n\
         box:             [9, 0]..[10, 130]\n\
         byte ranges:     2\n\
         8704..9216\n\
         12800..12808\n"
    );
    // Rows 8..16 of bf16[24,384] in T(8,128)(2,1): the second tile row,
    // three tiles of 8*128*2 bytes from 6144.
    let doc = ok(
        &[
            "--json",
            "ranges",
            "--rows",
            "8..16",
            "bf16[24,384]{1,0:T(8,128)(2,1)}",
        ],
        b"",
    );
    let doc: serde_json::Value = serde_json::from_str(&doc).unwrap();
    assert_eq!(doc["ranges"], serde_json::json!([[6144, 12288]]));
    assert_eq!(doc["row_addressable"], serde_json::json!([false, false]));
    // Row-major: dimension 0's rows are contiguous.
    let out = ok(&["ranges", "--rows", "1..2", "u8[3,4]"], b"");
    assert!(out.contains("row-addressable: [0]\n"), "{out}");
    assert!(out.ends_with("byte ranges:     1\n4..8\n"), "{out}");
    for (args, message) in [
        (
            &["ranges", "--rows", "8", "f32[4]"][..],
            "--rows takes START..STOP",
        ),
        (
            &["ranges", "--start", "0", "--limit", "5", "f32[4]"][..],
            "not within 0..4",
        ),
        (
            &["ranges", "--max", "1", "--limit", "2,1", "f32[2,2]"][..],
            "more than 1 byte ranges",
        ),
        (&["ranges", "(f32[2])"][..], "not an array shape"),
    ] {
        let err = fails(args, b"", 1);
        assert!(err.contains(message), "{args:?}: {err}");
    }
}

#[test]
fn strides_or_why_there_are_none() {
    // XLA's shape_util_test.cc, ByteStrides: f32[3,5,7] has byte strides
    // [140,28,4]; in elements, /4.
    let out = ok(&["strides", "f32[3,5,7]"], b"");
    assert_eq!(
        out,
        "element strides: [35, 7, 1]\nbyte strides:    [140, 28, 4]\n"
    );
    // One (8,128) tile covering f32[8,128] is plain row-major ...
    let out = ok(&["strides", "f32[8,128]{1,0:T(8,128)}"], b"");
    assert_eq!(
        out,
        "element strides: [128, 1]\nbyte strides:    [512, 4]\n"
    );
    // ... but on f32[16,256] the tiles split both dimensions: no strides.
    let err = fails(&["strides", "f32[16,256]{1,0:T(8,128)}"], b"", 1);
    assert!(err.contains("tile"), "{err}");
    // Two u4 elements share a byte: element strides, but no byte strides.
    let out = ok(&["strides", "u4[8]{0:E(4)}"], b"");
    assert!(
        out.starts_with("element strides: [1]\nbyte strides:    none: "),
        "{out}"
    );
    fails(&["strides", "(f32[2])"], b"", 1);
}
