//! `report` and `scan` on whole modules: XLA's own `.pb` and `.txt` of the
//! same compiled programs (`tests/data/hlo/`, jaxlib 0.10.2), and bad input.

#[path = "../../tests/common/mod.rs"]
mod common;
mod support;

use common::data_path;
use serde_json::Value;
use support::{fails, ok, run};
use xla_shape::hlo::HloModule;

#[test]
fn report_gives_the_same_totals_on_the_binary_and_the_text_module() {
    for name in common::HLO_PROGRAMS {
        let pb = format!("@{}", data_path(&format!("hlo/{name}.pb")));
        let txt = format!("@{}", data_path(&format!("hlo/{name}.txt")));
        let a: Value = serde_json::from_str(&ok(&["report", "--json", &pb], b"")).unwrap();
        let b: Value = serde_json::from_str(&ok(&["report", "--json", &txt], b"")).unwrap();
        for key in ["total", "by_memory_space", "by_element_type"] {
            assert_eq!(a[key], b[key], "{name}: {key}");
        }
        let module = HloModule::read(&std::fs::read(&pb[1..]).unwrap()).unwrap();
        assert_eq!(
            a["instructions"].as_array().unwrap().len(),
            module.instructions().count()
        );
        // The table names every instruction.
        let table = ok(&["report", &pb], b"");
        for (_, i) in module.instructions() {
            assert!(table.contains(&i.opcode), "{name}: {}", i.opcode);
        }
    }
}

/// Figure 1 of XLA's tiled-layout document: F32[3,5] in 2x2 tiles is 2x3
/// tiles of 4 elements, 24 slots (96 bytes) for 15 elements (60 bytes).
/// `S(1)` puts the buffer in memory space 1.
#[test]
fn report_counts_what_tiles_cost_by_memory_space() {
    let text = "HloModule m, entry_computation_layout={(f32[3,5]{1,0:T(2,2)S(1)})->f32[3,5]{1,0}}\n\n\
                ENTRY %main (p: f32[3,5]) -> f32[3,5] {\n  \
                %p = f32[3,5]{1,0:T(2,2)S(1)} parameter(0)\n  \
                ROOT %c = f32[3,5]{1,0} copy(%p)\n}\n";
    let v: Value = serde_json::from_str(&ok(
        &["report", "--json", "--top", "1", "-"],
        text.as_bytes(),
    ))
    .unwrap();
    let spaces = v["by_memory_space"].as_array().unwrap();
    assert_eq!(spaces.len(), 2);
    assert_eq!(
        (
            spaces[1]["memory_space"].as_i64(),
            spaces[1]["byte_size"].as_i64()
        ),
        (Some(1), Some(60))
    );
    assert_eq!(
        (
            spaces[1]["padded_byte_size"].as_i64(),
            spaces[1]["padding"].as_i64()
        ),
        (Some(96), Some(36))
    );
    assert_eq!(v["total"]["padded_byte_size"].as_i64(), Some(96 + 60));
    let largest = v["largest"].as_array().unwrap();
    assert_eq!(largest.len(), 1);
    assert_eq!(largest[0]["name"], "p");
}

#[test]
fn scan_of_a_binary_module_lists_every_instruction() {
    let pb = data_path("hlo/scan_tuple.pb");
    let module = HloModule::read(&std::fs::read(&pb).unwrap()).unwrap();
    let out = ok(&["scan", &format!("@{pb}")], b"");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), module.instructions().count());
    for (line, (c, i)) in lines.iter().zip(module.instructions()) {
        let fields: Vec<&str> = line.split('\t').collect();
        assert_eq!(fields[0], format!("{}/{}", c.name, i.name));
        assert_eq!(fields[2], i.shape.as_ref().unwrap().to_string());
        assert_eq!(fields[3], format!("result of {} in {}", i.name, c.name));
    }
}

#[test]
fn scan_of_module_text_names_the_owner_of_each_shape() {
    let txt = data_path("hlo/int4.txt");
    let text = std::fs::read_to_string(&txt).unwrap();
    let out = ok(&["scan", &format!("@{txt}")], b"");
    let module = HloModule::read(text.as_bytes()).unwrap();
    for (c, i) in module.instructions() {
        let at = i.location.unwrap();
        let prefix = format!("{}:{}\t", at.line, at.column + 1);
        let line = out
            .lines()
            .find(|l| l.starts_with(&prefix))
            .expect("the instruction's shape");
        assert!(
            line.ends_with(&format!("\tresult of {} in {}", i.name, c.name)),
            "{line}"
        );
    }
    assert!(out.contains("\tresult of entry_computation_layout\n"));
    assert!(out.contains("\tparameter of fused_computation\n"));
}

#[test]
fn bad_modules_are_errors() {
    let pb = std::fs::read(data_path("hlo/matmul_bf16.pb")).unwrap();
    let err = fails(&["report", "-"], &pb[..pb.len() / 2], 1);
    assert!(err.contains("not a valid xla.HloModuleProto"), "{err}");
    let err = fails(&["report", "-"], b"this is not HLO\n", 1);
    assert!(err.contains("expects HloModule"), "{err}");
    let text = std::fs::read_to_string(data_path("hlo/int4.txt")).unwrap();
    let bad = text.replacen("s8[16,33]{1,0} multiply", "s8[16,,33]{1,0} multiply", 1);
    let line = bad.lines().position(|l| l.contains("[16,,33]")).unwrap() + 1;
    // The error takes the instruction's place in the report, which goes on.
    let out = run(&["report", "-"], bad.as_bytes());
    assert_eq!(out.status.code(), Some(1));
    let table = String::from_utf8(out.stdout).unwrap();
    let error = format!("error: line {line}: Syntax error: was parsing {line}:");
    assert!(table.contains(&error), "{table}");
    assert!(table.contains("\nsum "), "{table}");
    let err = fails(&["report", "@/nonexistent/module.pb"], b"", 1);
    assert!(err.contains("/nonexistent/module.pb"), "{err}");
}

/// `scan` reads module text one line at a time; its lines and columns are
/// those of the library's scan of the whole text.
#[test]
fn scan_line_by_line_gives_the_places_of_a_scan_of_the_whole_module() {
    for name in common::HLO_PROGRAMS {
        let path = data_path(&format!("hlo/{name}.txt"));
        let text = std::fs::read_to_string(&path).unwrap();
        let whole: Vec<String> = xla_shape::text::shapes_in_hlo(&text)
            .map(|s| format!("{}:{}", s.location.line, s.location.column + 1))
            .collect();
        let out = ok(&["scan", &format!("@{path}")], b"");
        let streamed: Vec<&str> = out.lines().map(|l| l.split('\t').next().unwrap()).collect();
        assert!(!whole.is_empty(), "{name}");
        assert_eq!(streamed, whole, "{name}");
    }
}

/// A binary module whose errors are nested: the JSON error object's kind
/// is the library error's `ErrorKind::as_str`, and its message the
/// library's `Display`, which puts the context (message, field, index and
/// name) before the inner error's message.
#[test]
fn module_errors_keep_their_kind_and_context_in_json() {
    // An HloModuleProto (field numbers of proto/xla/service/hlo.proto and
    // proto/xla/xla_data.proto): name (1) "m", one computation (3) named
    // (1) "main" whose program_shape (4) has one parameter name (3) "x"
    // and no parameter. Without entry_computation_id or name, the entry is
    // the computation of id 0: this one. XLA's ProgramShape::FromProto
    // rejects different numbers of parameters and names.
    let program_shape = [0x1a, 0x01, b'x'];
    let mut computation = vec![0x0a, 0x04, b'm', b'a', b'i', b'n', 0x22, 0x03];
    computation.extend_from_slice(&program_shape);
    let mut module = vec![0x0a, 0x01, b'm', 0x1a, computation.len() as u8];
    module.extend_from_slice(&computation);
    let expected = HloModule::read(&module).unwrap_err();
    assert_eq!(expected.kind(), xla_shape::ErrorKind::MalformedProto);
    let doc = support::json_doc(&["report", "--json", "-"], &module, 1);
    assert_eq!(doc["error"]["kind"], "MalformedProto");
    assert_eq!(doc["error"]["message"], expected.to_string());
    // `scan` says the input is no module it can scan, and why.
    let doc = support::json_doc(&["scan", "--json", "-"], &module, 1);
    assert_eq!(doc["error"]["kind"], "Format");
    let message = doc["error"]["message"].as_str().unwrap();
    assert!(message.ends_with(&expected.to_string()), "{message}");
    let message = expected.to_string();
    assert!(
        message
            .starts_with("not a valid xla.HloModuleProto: computations[0] (main): program_shape: "),
        "{message}"
    );
    assert!(message.ends_with(expected.message()), "{message}");

    // Truncated: the kind of the wire error, in its computation.
    let pb = std::fs::read(data_path("hlo/matmul_bf16.pb")).unwrap();
    let cut = &pb[..pb.len() / 2];
    let expected = HloModule::read(cut).unwrap_err();
    let doc = support::json_doc(&["report", "--json", "-"], cut, 1);
    assert_eq!(doc["error"]["kind"], "Decode");
    assert_eq!(doc["error"]["kind"], expected.kind().as_str());
    assert_eq!(doc["error"]["message"], expected.to_string());
    assert!(!expected.context().is_empty());
}
