//! `convert --lossless` and `--message`: conversion at the schema level, as
//! Google's protobuf runtime does it, for shapes XLA accepts or not and for
//! any message of the schema.

#[path = "../../tests/common/mod.rs"]
mod common;
mod support;

use common::{data_path, records};
use serde_json::Value;
use support::{ok, run};

/// Every golden ShapeProto (`proto_hex` of shapes.jsonl, rendered by
/// Google's runtime), converted line by line at the schema level.
#[test]
fn lossless_converts_every_golden_record_as_google_does() {
    let golden: Vec<Value> = records("shapes.jsonl")
        .into_iter()
        // `--lines` reads an empty line as no input: the empty message is
        // left to the other tests.
        .filter(|r| r["proto_hex"].as_str().is_some_and(|h| !h.is_empty()))
        .collect();
    let hex: String = golden
        .iter()
        .map(|r| format!("{}\n", r["proto_hex"].as_str().unwrap()))
        .collect();
    let same = ok(
        &[
            "convert",
            "--lines",
            "--lossless",
            "--from",
            "hex",
            "--to",
            "hex",
        ],
        hex.as_bytes(),
    );
    for (line, r) in same.lines().zip(&golden) {
        assert_eq!(line, r["proto_hex"].as_str().unwrap());
    }
    for (to, key) in [("json", "json"), ("json-names", "json_preserving_names")] {
        let out = ok(
            &[
                "convert",
                "--lines",
                "--lossless",
                "--from",
                "hex",
                "--to",
                to,
            ],
            hex.as_bytes(),
        );
        assert_eq!(out.lines().count(), golden.len());
        for (line, r) in out.lines().zip(&golden) {
            let ours: Value = serde_json::from_str(line).unwrap();
            let google: Value = serde_json::from_str(r[key].as_str().unwrap()).unwrap();
            assert_eq!(ours, google, "{}", r["id"]);
        }
    }
}

/// `tests/data/oracle/lossless.jsonl`: Google's runtime on ShapeProto bytes
/// that XLA's validation rejects, and on `100b2800` (a known field with the
/// wrong wire type, kept as an unknown field). `--lossless` converts them
/// byte for byte as Google does, through every proto format.
#[test]
fn lossless_converts_shapes_xla_rejects() {
    let cases = records("oracle/lossless.jsonl");
    assert!(cases.iter().any(|r| r["hex"] == "100b2800"));
    for r in &cases {
        let hex = r["hex"].as_str().unwrap();
        let conv = |to: &str| {
            ok(
                &["convert", "--lossless", "--from", "hex", "--to", to, hex],
                b"",
            )
        };
        assert_eq!(conv("hex").trim_end(), r["reencoded_hex"].as_str().unwrap());
        assert_eq!(
            conv("json").trim_end(),
            r["json"].as_str().unwrap(),
            "{hex}"
        );
        assert_eq!(
            conv("json-names").trim_end(),
            r["json_preserving_names"].as_str().unwrap()
        );
        assert_eq!(conv("pbtxt"), r["text_format"].as_str().unwrap(), "{hex}");
        // Validation stays what `validate` does: XLA rejects all but
        // `100b2800`, whose unknown field leaves a valid f32[].
        let status = run(&["validate", "--from", "hex", hex], b"").status.code();
        assert_eq!(status, Some(i32::from(hex != "100b2800")), "{hex}");
    }
}

/// Whole modules and other messages: a golden `HloModuleProto` goes through
/// every proto format and comes back byte for byte.
#[test]
fn message_converts_any_message_of_the_schema() {
    let pb = std::fs::read(data_path("hlo/reduce_variadic.pb")).unwrap();
    let hex: String = pb.iter().map(|b| format!("{b:02x}")).collect();
    for to in ["json", "json-names", "pbtxt"] {
        let m = ["--message", "xla.HloModuleProto"];
        let text = ok(
            &[
                &["convert", "--from", "hex", "--to", to][..],
                &m[..],
                &[hex.as_str()][..],
            ]
            .concat(),
            b"",
        );
        assert!(text.contains("reduce"), "{to}");
        let from = if to == "json-names" { "json" } else { to };
        let back = ok(
            &[
                &["convert", "--from", from, "--to", "hex"][..],
                &m[..],
                &[text.as_str()][..],
            ]
            .concat(),
            b"",
        );
        assert_eq!(back.trim_end(), hex, "{to}");
    }
    // LayoutProto `minor_to_major: [1, 0]` (field 1, packed): 0a 02 01 00.
    let text = ok(
        &[
            "convert",
            "--message",
            "xla.LayoutProto",
            "--to",
            "pbtxt",
            "0a020100",
        ],
        b"",
    );
    assert_eq!(text, "minor_to_major: 1\nminor_to_major: 0\n");
    let out = run(
        &[
            "convert",
            "--message",
            "xla.NoSuchMessage",
            "--to",
            "hex",
            "00",
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(1));
}
