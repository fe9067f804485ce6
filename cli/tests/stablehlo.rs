//! `signature`, `scan` and `report` on StableHLO text (the jax programs of
//! `tests/data/stablehlo/`, jaxlib 0.10.2), and `signature` on HLO text and
//! binary modules.

#[path = "../../tests/common/mod.rs"]
mod common;
mod support;

use common::data_path;
use serde_json::Value;
use support::{fails, ok};

fn program(name: &str) -> String {
    format!("@{}", data_path(&format!("stablehlo/programs/{name}")))
}

#[test]
fn signature_prints_xlas_entry_computation_layout() {
    for r in common::records("stablehlo/programs.jsonl") {
        let name = r["name"].as_str().unwrap();
        let want = r["entry_computation_layout"].as_str().unwrap();
        // StableHLO text, and XLA's own HLO text of its conversion.
        for file in [format!("{name}.mlir"), format!("{name}.hlo.txt")] {
            let out = ok(&["signature", &program(&file)], b"");
            assert_eq!(out.lines().next(), Some(want), "{file}");
        }
    }
}

#[test]
fn signature_json_has_the_parameters_and_result() {
    let out = ok(
        &[
            "--json",
            "signature",
            &program("donate_second_output.debug.mlir"),
        ],
        b"",
    );
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v["entry_computation_layout"],
        "(f32[2,3]{1,0}, f32[2,3]{1,0})->(f32[], f32[2,3]{1,0})"
    );
    assert_eq!(v["result"], "(f32[], f32[2,3]{1,0})");
    let params = v["parameters"].as_array().unwrap();
    assert_eq!(params.len(), 2);
    assert_eq!(params[0]["name"], "x");
    assert_eq!(params[1]["donated"], true);
    assert_eq!(params[1]["type"], "tensor<2x3xf32>");
    assert_eq!(
        v["input_output_alias"],
        serde_json::json!([{"output_index": [1], "parameter": 1}])
    );
    let text = ok(&["signature", &program("donate_second_output.mlir")], b"");
    assert!(
        text.contains("input_output_alias={ {1}: (1, {}, may-alias) }"),
        "{text}"
    );
    // An HLO module: the layout, its parameters and result.
    let pb = format!("@{}", data_path("hlo/transpose.pb"));
    let v: Value = serde_json::from_str(&ok(&["--json", "signature", &pb], b"")).unwrap();
    let layout = v["entry_computation_layout"].as_str().unwrap();
    assert!(layout.starts_with("(f32[2,3,4,5]{3,2,1,0}"), "{layout}");
    assert_eq!(v["parameters"].as_array().unwrap().len(), 2);
    assert_eq!(v["source"], "hlo_proto");
}

#[test]
fn signature_says_what_compilation_applies() {
    let out = ok(&["signature", &program("memory_out_pinned_host.mlir")], b"");
    assert!(
        out.contains("compiled (XLA:CPU): (f32[8,4]{1,0})->f32[8,4]{1,0:S(5)}"),
        "{out}"
    );
    assert!(out.contains("memory space S(5)"), "{out}");
    let out = ok(&["signature", &program("transpose.mlir")], b"");
    assert_eq!(
        out,
        "(f32[2,3]{1,0})->f32[3,2]{0,1}\n\
         compiled (XLA:CPU): (f32[2,3]{1,0})->f32[3,2]{1,0}\n\
         note: result 0 (result): the conversion's layout comes from the body; compilation asks for the device's default layout ({1,0} on XLA:CPU)\n"
    );
}

#[test]
fn scan_lists_every_operation_result_with_its_location() {
    let out = ok(&["scan", &program("transpose_cond.debug.mlir")], b"");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        "3:26\t24\tf32[2,3]{1,0}\tparameter 0 (%arg0) of main (x)"
    );
    assert!(
        lines.contains(&"10:7\t24\tf32[3,2]{1,0}\tresult of %5 stablehlo.transpose in main (jit(<lambda>)/cond/branch_0_fun/transpose)"),
        "{out}"
    );
    let json = ok(&["--json", "scan", &program("transpose_cond.mlir")], b"");
    for line in json.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        assert!(v["shape"].is_string() && v["line"].is_u64(), "{line}");
    }
    // A type XLA has no shape for: an error line, exit 1.
    let text = "func.func @main(%a: tensor<2xtf32>) {\n  return\n}\n";
    let out = support::run(&["scan", "-"], text.as_bytes());
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.starts_with("1:17\terror: Shape Error: Invalid element type."),
        "{stdout}"
    );
}

#[test]
fn report_takes_stablehlo_text() {
    let v: Value =
        serde_json::from_str(&ok(&["report", "--json", &program("linalg_qr.mlir")], b"")).unwrap();
    assert_eq!(v["module"], "jit_qr");
    let rows = v["instructions"].as_array().unwrap();
    assert!(rows.iter().any(|r| r["opcode"] == "stablehlo.custom_call"));
    assert!(v["total"]["byte_size"].as_i64().unwrap() > 0);
}

#[test]
fn bad_stablehlo_is_an_error_with_its_place() {
    let err = fails(
        &["signature", "-"],
        b"module {\n  func.func @main(%a: tensor<2xfoo>) {\n  }\n}\n",
        1,
    );
    assert_eq!(
        err.trim_end(),
        "xla-shape: 2:32: expected element type, found 'foo'"
    );
    let out = support::run(
        &["--json", "signature", "-"],
        b"module {\n  %0 = a.b : \n}\n",
    );
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["error"]["line"], 2);
    let err = fails(&["signature", "-"], b"func.func @f() {\n  return\n}\n", 1);
    assert!(err.contains("no function @main"), "{err}");
}

#[test]
fn names_from_the_input_are_escaped() {
    let text = "func.func @main(%a: tensor<2xf32> loc(\"x\\1B[31m\\0Ay\")) {\n  return\n}\n";
    let out = ok(&["scan", "-"], text.as_bytes());
    assert!(!out.contains('\u{1b}'), "{out:?}");
    assert_eq!(out.lines().count(), 1, "{out:?}");
    assert!(out.contains("(x\\u{1b}[31m\\ny)"), "{out:?}");
}

/// MLIR bytecode and `jax.export`'s serialization (detected by their
/// magic, the latter by the bytecode it holds) give the signature XLA's
/// conversion prints (`bytecode/exports.jsonl`), and `scan` and `report`
/// list their operations.
#[test]
fn bytecode_and_serialized_exports_are_read() {
    for r in common::records("stablehlo/bytecode/exports.jsonl") {
        let name = r["name"].as_str().unwrap();
        let Some(want) = r["entry_computation_layout"].as_str() else {
            continue;
        };
        for ext in ["mlirbc", "bin"] {
            let file = format!(
                "@{}",
                data_path(&format!("stablehlo/bytecode/exports/{name}.{ext}"))
            );
            let out = ok(&["signature", &file], b"");
            assert_eq!(out.lines().next(), Some(want), "{name}.{ext}");
            let json: Value =
                serde_json::from_str(&ok(&["signature", "--json", &file], b"")).unwrap();
            assert_eq!(json["entry_computation_layout"], want, "{name}.{ext}");
            let scan = ok(&["scan", &file], b"");
            let no_args = r["in_avals"].as_array().unwrap().is_empty();
            assert!(
                no_args
                    || scan
                        .lines()
                        .any(|l| l.starts_with('@') && l.contains("parameter 0")),
                "{name}.{ext}: {scan}"
            );
            let report = ok(&["report", &file], b"");
            assert!(report.contains("jit__lambda"), "{name}.{ext}: {report}");
        }
    }
    // The transposed result's layout, from the bytes through stdin too.
    let bytes = std::fs::read(data_path("stablehlo/export/transpose.mlirbc")).unwrap();
    let out = ok(&["signature", "-"], &bytes);
    assert_eq!(out.lines().next(), Some("(f32[2,3]{1,0})->f32[3,2]{0,1}"));
    let scan = ok(&["scan", "--json", "-"], &bytes);
    let first: Value = serde_json::from_str(scan.lines().next().unwrap()).unwrap();
    assert!(
        first["offset"].as_u64().is_some() && first.get("line").is_none(),
        "{first}"
    );
    // A serialization longer than a reader's buffer (8 KiB) is judged from
    // the whole input, not its first bytes.
    let bytes = std::fs::read(data_path("stablehlo/bytecode/exports/all_dtypes.bin")).unwrap();
    assert!(bytes.len() > 8 << 10);
    for command in ["scan", "report"] {
        let out = ok(&[command, "-"], &bytes);
        assert!(out.contains("f4e2m1fn[3,2]"), "{command}: {out}");
    }
}

/// Bytecode cut short: a clear error naming the byte, exit 1.
#[test]
fn broken_bytecode_names_the_byte() {
    let bytes = std::fs::read(data_path("stablehlo/export/transpose.mlirbc")).unwrap();
    for command in ["signature", "scan", "report"] {
        let err = fails(&[command, "-"], &bytes[..bytes.len() / 2], 1);
        assert!(err.contains("MLIR bytecode: byte "), "{command}: {err}");
    }
}

/// HLO text without `entry_computation_layout`: XLA's parser takes the
/// entry's parameter instructions and root, layouts and all
/// (`hlo_texts.jsonl`).
#[test]
fn signature_of_hlo_text_without_a_layout_is_xlas() {
    for r in common::records("stablehlo/hlo_texts.jsonl") {
        let text = r["text"].as_str().unwrap();
        let out = ok(&["signature", "-"], text.as_bytes());
        assert_eq!(
            out.trim_end(),
            r["entry_computation_layout"].as_str().unwrap(),
            "{text}"
        );
    }
}
