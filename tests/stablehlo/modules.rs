//! Hand-written modules through XLA's conversion (`modules.jsonl`): every
//! element type and type form, the entry layout attributes, aliasing,
//! tuples, unknown attributes, and bodies whose layouts reach the result.

use xla_shape::ErrorKind;
use xla_shape::stablehlo::StableHloModule;

use crate::common;

/// XLA's conversion refuses these and the reader takes them, on purpose
/// (`docs/differences.md`): quantized element types are read as their
/// storage type, and attributes of dialects XLA does not register are
/// kept as written.
fn deliberately_read(name: &str) -> bool {
    name.contains("!quant.") || name == "unknown_attributes"
}

#[test]
fn modules_convert_as_xla_converts_them() {
    let records = common::records("stablehlo/modules.jsonl");
    assert!(records.len() > 90);
    for r in &records {
        let name = r["name"].as_str().unwrap();
        let text = r["text"].as_str().unwrap();
        let ours = StableHloModule::from_text(text).and_then(|m| m.signature());
        match (r["entry_computation_layout"].as_str(), &ours) {
            (Some(want), Ok(sig)) => assert_eq!(
                sig.entry_computation_layout()
                    .to_computation_layout_string(),
                want,
                "{name}"
            ),
            (Some(want), Err(e)) => panic!("{name}: XLA gives {want}, we fail: {e}"),
            (None, Ok(sig)) => assert!(
                deliberately_read(name),
                "{name}: XLA fails ({}), we give {}",
                r["error"],
                sig.entry_computation_layout()
                    .to_computation_layout_string()
            ),
            (None, Err(e)) => {
                let xla = r["error"].as_str().unwrap();
                if xla.contains("Shape Error: Invalid element type") {
                    assert!(
                        e.message()
                            .starts_with("Shape Error: Invalid element type."),
                        "{name}: {e}"
                    );
                }
            }
        }
    }
}

#[test]
fn quantized_types_are_their_storage_type() {
    let records = common::records("stablehlo/modules.jsonl");
    let quantized: Vec<_> = records
        .iter()
        .filter(|r| r["name"].as_str().unwrap().contains("!quant."))
        .collect();
    assert_eq!(quantized.len(), 3);
    for r in quantized {
        // XLA's conversion of jaxlib 0.10.2 has no element type for them.
        assert!(
            r["error"]
                .as_str()
                .unwrap()
                .contains("Invalid element type")
        );
        let m = StableHloModule::from_text(r["text"].as_str().unwrap()).unwrap();
        let sig = m.signature().unwrap();
        let p = sig.entry_computation_layout().parameters()[0].to_string();
        assert!(p == "s8[2]{0}" || p == "u8[2]{0}", "{p}");
    }
}

#[test]
fn text_that_is_not_mlir_is_a_located_error() {
    let records = common::records("stablehlo/modules.jsonl");
    let r = records.iter().find(|r| r["name"] == "not_mlir").unwrap();
    let err = StableHloModule::from_text(r["text"].as_str().unwrap()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Parse);
    assert_eq!(err.location().unwrap().line, 1);
    // XLA: `custom op 'HloModule' is unknown`.
    assert!(
        r["error"]
            .as_str()
            .unwrap()
            .contains("'HloModule' is unknown")
    );
}
