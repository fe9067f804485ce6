//! `xla-shape memory` on the programs of `tests/data/memory/` (jax on the
//! CPU, jaxlib 0.10.2; `tests/data/oracle/memory_gen.py`): exact figures
//! equal to `compiled.memory_analysis()`, the estimate named as one, the
//! picture's structure, and bad input.

mod support;

use serde_json::Value;
use support::{fails, json_doc, ok, run};

fn data(path: &str) -> String {
    format!("{}/../tests/data/memory/{path}", env!("CARGO_MANIFEST_DIR"))
}

/// XLA's record of a program (`memory.jsonl`).
fn record(name: &str) -> Value {
    record_in("memory.jsonl", name)
}

/// The record named `name` of `file`.
fn record_in(file: &str, name: &str) -> Value {
    std::fs::read_to_string(data(file))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|r| r["name"] == name)
        .unwrap()
}

#[test]
fn an_hlo_proto_gives_xlas_own_figures() {
    for name in [
        "while_loop",
        "donate_inplace",
        "mlp_train_step",
        "attention",
    ] {
        let file = format!("@{}", data(&format!("{name}/hlo.pb")));
        let doc = json_doc(&["memory", "--json", &file], b"", 0);
        let xla = &record(name)["memory_analysis"];
        assert_eq!(doc["source"], "buffer_assignment");
        assert_eq!(doc["arguments"], xla["argument_size_in_bytes"], "{name}");
        assert_eq!(doc["outputs"], xla["output_size_in_bytes"], "{name}");
        assert_eq!(doc["aliased"], xla["alias_size_in_bytes"], "{name}");
        assert_eq!(doc["temporaries"], xla["temp_size_in_bytes"], "{name}");
        let total = &record(name)["memory_usage_report"][0]["total_bytes"];
        assert_eq!(&doc["allocations_total"], total, "{name}");
        let peak = doc["arguments"].as_i64().unwrap()
            + doc["outputs"].as_i64().unwrap()
            + doc["temporaries"].as_i64().unwrap()
            - doc["aliased"].as_i64().unwrap();
        assert_eq!(doc["peak"], peak);
        let buffers = doc["peak_buffers"].as_array().unwrap();
        assert!(!buffers.is_empty() && buffers.len() <= 10);
        for b in buffers {
            for key in [
                "instruction",
                "computation",
                "shape",
                "bytes",
                "kind",
                "shape_index",
            ] {
                assert!(b.get(key).is_some(), "{key} in {b}");
            }
        }
    }
}

#[test]
fn module_text_is_estimated_and_says_so() {
    let file = format!("@{}", data("while_loop/opt.txt"));
    let doc = json_doc(&["memory", "--json", "--top", "2", &file], b"", 0);
    assert_eq!(doc["source"], "estimate");
    assert_eq!(doc["allocations_total"], Value::Null);
    assert_eq!(doc["peak_buffers"].as_array().unwrap().len(), 2);
    // XLA:CPU's own temporaries for this program (memory.jsonl).
    assert_eq!(
        doc["temporaries"],
        record("while_loop")["memory_analysis"]["temp_size_in_bytes"]
    );
    let text = ok(&["memory", &file], b"");
    assert!(
        text.starts_with("module jit_while_loop\nestimated: "),
        "{text}"
    );
    assert!(text.contains("  peak "), "{text}");
    let exact = ok(&["memory", &format!("@{}", data("while_loop/hlo.pb"))], b"");
    assert!(
        exact.contains("\nexact: XLA's buffer assignment"),
        "{exact}"
    );
}

#[test]
fn standard_input_is_read_too() {
    let bytes = std::fs::read(data("add_small/hlo.pb")).unwrap();
    let doc = json_doc(&["memory", "--json", "-"], &bytes, 0);
    assert_eq!(doc["peak"], 96);
    let doc = json_doc(&["memory", "--json"], &bytes, 0);
    assert_eq!(doc["module"], "jit_add_small");
}

/// The picture: an SVG document with the live bytes, the peak marked (at
/// the step the JSON names), and one labelled bar per buffer at the peak,
/// largest first.
#[test]
fn the_picture_marks_the_peak_and_labels_the_largest_buffers() {
    let file = format!("@{}", data("mlp_train_step/hlo.pb"));
    let svg = ok(&["memory", "--svg", "--top", "5", &file], b"");
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "svg");
    let class = |c: &str| {
        doc.descendants()
            .filter(move |n| n.attribute("class") == Some(c))
            .collect::<Vec<_>>()
    };
    assert_eq!(class("live").len(), 1);
    let points = class("live")[0]
        .attribute("points")
        .unwrap()
        .split(' ')
        .count();
    let json = json_doc(&["memory", "--json", &file], b"", 0);
    let steps = json["peak_step"]["steps"].as_u64().unwrap() as usize;
    // The steps, and the two corners on the axis.
    assert_eq!(points, steps + 2);
    let peak = &class("peak-step")[0];
    assert_eq!(
        peak.attribute("data-step"),
        Some(json["peak_step"]["step"].to_string().as_str())
    );
    assert_eq!(class("peak-level").len(), 1);
    let bars = class("buffer");
    assert_eq!(bars.len(), 5);
    let bytes: Vec<i64> = bars
        .iter()
        .map(|b| b.attribute("data-bytes").unwrap().parse().unwrap())
        .collect();
    assert!(bytes.windows(2).all(|w| w[0] >= w[1]), "{bytes:?}");
    let expected = &json["peak_buffers"][0];
    let label = bars[0]
        .descendants()
        .find(|n| n.has_tag_name("text"))
        .and_then(|t| t.text())
        .unwrap();
    assert!(
        label.contains(expected["instruction"].as_str().unwrap()),
        "{label}"
    );
    assert!(
        label.contains(expected["shape"].as_str().unwrap()),
        "{label}"
    );
    assert!(label.contains("MiB") || label.contains("KiB"), "{label}");
    let title = class("title")[0].text().unwrap();
    assert!(title.starts_with("jit_mlp_train_step: "), "{title}");
}

#[test]
fn bad_input_is_an_error_not_a_crash() {
    // XLA's memory-usage report is a protobuf message, but no module.
    let report = format!("@{}", data("add_small/memory-usage-report.pb"));
    let err = fails(&["memory", &report], b"", 1);
    assert!(err.contains("not an HLO module"), "{err}");
    let doc = json_doc(&["memory", "--json", &report], b"", 1);
    assert!(
        doc["error"]["message"]
            .as_str()
            .unwrap()
            .contains("hold no instruction")
    );
    // Text that is no module.
    let err = fails(&["memory", "-"], b"hello\n", 1);
    assert!(err.contains("expects HloModule"), "{err}");
    // An operand the module does not hold, at its line.
    let text = b"HloModule m\nENTRY e {\n  ROOT n = f32[2]{0} negate(nope)\n}\n";
    let doc = json_doc(&["memory", "--json", "-"], text, 1);
    assert_eq!(doc["error"]["line"], 3, "{doc}");
    // Nothing at all, and truncated bytes.
    fails(&["memory", "-"], b"", 1);
    let bytes = std::fs::read(data("attention/hlo.pb")).unwrap();
    let out = run(&["memory", "-"], &bytes[..bytes.len() / 2]);
    assert_eq!(out.status.code(), Some(1));
    // A module over --max-input.
    let err = fails(&["memory", "--max-input", "100", "-"], &bytes, 1);
    assert!(err.contains("larger than 100 bytes"), "{err}");
}

/// XLA's record of a sharded program (`memory_devices/devices.jsonl`, written by
/// `tests/data/oracle/memory_devices_gen.py`).
fn device_record(name: &str) -> Value {
    record_in("../memory_devices/devices.jsonl", name)
}

#[test]
fn stablehlo_gives_arguments_outputs_and_each_devices_bytes() {
    for (name, ext) in [
        ("sdy_two_in_two_out", "mlir"),
        ("gspmd_partial", "mlirbc"),
        ("sdy_donated", "hlo.txt"),
    ] {
        let file = format!("@{}", data(&format!("../memory_devices/{name}.{ext}")));
        let doc = json_doc(&["memory", "--json", &file], b"", 0);
        let xla = device_record(name);
        assert_eq!(doc["source"], "estimate");
        let devices = doc["devices"].as_array().unwrap();
        assert_eq!(devices.len() as u64, xla["num_devices"].as_u64().unwrap());
        for (i, d) in devices.iter().enumerate() {
            assert_eq!(d["device"], i, "{name}");
            assert_eq!(d["arguments"], xla["argument_size_in_bytes"], "{name}");
            assert_eq!(d["outputs"], xla["output_size_in_bytes"], "{name}");
        }
        assert_eq!(
            doc["device_max"]["arguments"],
            xla["argument_size_in_bytes"]
        );
        if ext == "hlo.txt" {
            assert_eq!(doc["temporaries_counted"], true);
        } else {
            // StableHLO: the operations are not simulated.
            assert_eq!(doc["temporaries_counted"], false);
            assert_eq!(doc["temporaries"], Value::Null);
        }
    }
    let text = ok(
        &[
            "memory",
            &format!("@{}", data("../memory_devices/sdy_in_out.mlir")),
        ],
        b"",
    );
    assert!(text.contains("temporaries\nare not counted"), "{text}");
    assert!(
        text.contains("per device, after partitioning (8 devices, each the same)"),
        "{text}"
    );
    assert!(text.contains("arguments 1_024 B"), "{text}");
}

#[test]
fn a_module_without_shardings_has_no_devices() {
    let doc = json_doc(
        &[
            "memory",
            "--json",
            "HloModule m\nENTRY e {\n  ROOT p = f32[4]{0} parameter(0)\n}\n",
        ],
        b"",
        0,
    );
    assert_eq!(doc["devices"], serde_json::json!([]));
    assert_eq!(doc["device_max"], Value::Null);
}
