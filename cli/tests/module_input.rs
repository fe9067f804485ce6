//! How the module commands (`report`, `scan`, `memory`, `signature`) take
//! their input: a plain path to an existing file is the file, as `@FILE`
//! is (XLA's own `.pb` and `.txt` of compiled programs, `tests/data/hlo/`,
//! jaxlib 0.10.2).

#[path = "../../tests/common/mod.rs"]
mod common;
mod support;

use common::data_path;
use support::ok;

#[test]
fn a_plain_path_is_the_file_for_module_commands() {
    for name in ["hlo/matmul_bf16.pb", "hlo/matmul_bf16.txt"] {
        let path = data_path(name);
        let at = format!("@{path}");
        for command in ["report", "scan", "memory", "signature"] {
            let by_at = ok(&[command, &at], b"");
            assert_eq!(ok(&[command, &path], b""), by_at, "{command} {name}");
            assert!(!by_at.is_empty());
        }
    }
}

#[test]
fn a_plain_path_is_the_file_for_padding_s_log() {
    // A log with XLA's out-of-memory listing (tests/data/listings/).
    let path = data_path("listings/tensorflow_tensorflow_30803.txt");
    let by_at = ok(&["padding", &format!("@{path}")], b"");
    assert_eq!(ok(&["padding", &path], b""), by_at);
}

#[test]
fn text_that_is_not_a_file_is_still_text() {
    // No file has this name: it is read as module text.
    let text = "HloModule m, entry_computation_layout={(f32[2]{0})->f32[2]{0}}";
    let out = ok(&["signature", text], b"");
    assert!(out.starts_with("(f32[2]{0})->f32[2]{0}"), "{out}");
}

#[test]
fn a_missing_file_is_a_missing_file() {
    // A plain argument with no white space, bracket or brace cannot be a
    // module, a log or a shape: a mistyped path fails as the file it
    // names, as `@FILE` does, not as text that does not parse.
    let missing = format!("{}/no-such-module.pb", data_path("hlo"));
    for command in ["report", "scan", "memory", "signature", "padding"] {
        let plain = support::fails(&[command, &missing], b"", 1);
        let at = support::fails(&[command, &format!("@{missing}")], b"", 1);
        assert_eq!(plain, at, "{command}");
        assert!(
            plain.contains(&format!("{missing}: ")),
            "{command}: {plain}"
        );
    }
    // A shape is still a shape for `padding`.
    assert!(!ok(&["padding", "f32[2,3]"], b"").is_empty());
}

#[test]
fn an_empty_line_in_hex_or_text_format_is_the_empty_message() {
    // The empty ShapeProto: XLA reads it as `primitive_type_invalid[]`,
    // JSON `{}` (golden record proto/0358, jaxlib 0.10.2), which this crate
    // reads at the schema level (`--lossless`) and refuses, validated, with
    // XLA's validation message (docs/differences.md).
    let r = common::records("shapes.jsonl")
        .into_iter()
        .find(|r| r["id"] == "proto/0358")
        .expect("record proto/0358");
    assert_eq!(r["input"]["hex"], "");
    let refused = common::held_without_validation("proto/0358").expect("held");
    for from in ["hex", "pbtxt"] {
        for (to, golden) in [("json", "json"), ("hex", "proto_hex")] {
            let args = [
                "convert",
                "--lines",
                "--lossless",
                "--from",
                from,
                "--to",
                to,
            ];
            let out = ok(&args, b"\n");
            assert_eq!(out.trim_end(), r[golden], "{from} -> {to}");
        }
        let out = support::run(
            &["convert", "--lines", "--from", from, "--to", "hlo"],
            b"\n",
        );
        assert_eq!(out.status.code(), Some(1));
        let line = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(line.contains(refused), "{from}: {line}");
    }
    // Detected formats and JSON: an empty line is still no input.
    for args in [
        &["convert", "--lines", "--to", "hex"][..],
        &["convert", "--lines", "--from", "json", "--to", "hex"],
    ] {
        let out = support::run(args, b"\n");
        assert_eq!(out.status.code(), Some(1));
        assert!(String::from_utf8_lossy(&out.stdout).contains("no input"));
    }
}

#[test]
fn several_modules_are_one_section_each() {
    let (a, b) = (data_path("hlo/int4.txt"), data_path("hlo/matmul_bf16.pb"));
    for command in ["report", "scan", "memory"] {
        let (one, two) = (ok(&[command, &a], b""), ok(&[command, &b], b""));
        let both = ok(&[command, &a, &b], b"");
        assert_eq!(
            both,
            format!("==> {a} <==\n{one}\n==> {b} <==\n{two}"),
            "{command}"
        );
        // With --json, each section opens with {"input": ...}.
        let (one, two) = (
            ok(&[command, "--json", &a], b""),
            ok(&[command, "--json", &b], b""),
        );
        let both = ok(&[command, "--json", &a, &b], b"");
        let open = |p: &str| format!("{}\n", serde_json::json!({ "input": p }));
        assert_eq!(
            both,
            format!("{}{one}{}{two}", open(&a), open(&b)),
            "{command}"
        );
    }
}

#[test]
fn a_module_that_fails_is_reported_in_its_section_and_the_run_goes_on() {
    let (a, b) = (data_path("hlo/int4.txt"), data_path("hlo/matmul_bf16.pb"));
    let bad = "HloModule";
    let out = support::run(&["memory", &a, bad, &b], b"");
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains(&format!("==> {bad} <==\n\n==> {b} <==\n")),
        "{text}"
    );
    assert!(text.ends_with(&ok(&["memory", &b], b"")));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.starts_with(&format!("xla-shape: {bad}: ")), "{err}");
    // --json: the error object, in its section.
    let out = support::run(&["memory", "--json", bad, &b], b"");
    assert_eq!(out.status.code(), Some(1));
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["input"], bad);
    assert!(lines[1]["error"]["kind"].is_string());
    assert_eq!(lines[2]["input"], b.as_str());
    assert_eq!(lines.len(), 4);
    // One picture is one module.
    support::fails(&["memory", "--svg", &a, &b], b"", 2);
}
