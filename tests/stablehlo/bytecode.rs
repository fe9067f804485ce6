//! MLIR bytecode as jax.export ships it (StableHLO portable artifacts,
//! written by `tests/data/oracle/stablehlo_bytecode_gen.py` with jaxlib
//! 0.10.2): every golden program's artifact gives the signature XLA's
//! conversion of the deserialized artifact prints (`bytecode/programs.jsonl`),
//! and the same functions, operations and types as the program's text.

use serde_json::Value;
use xla_shape::stablehlo::{StableHloModule, Type};

use crate::common;

fn bytes(path: &str) -> Vec<u8> {
    std::fs::read(common::data_path(path)).expect("golden artifact")
}

fn text(path: &str) -> String {
    std::fs::read_to_string(common::data_path(path)).expect("golden program")
}

/// The header's field as the test of text compares it (`{...}` or none).
fn header(r: &Value, name: &str) -> Option<String> {
    r[name].as_str().map(|a| format!("{{{a}}}"))
}

fn check_signature(name: &str, module: &StableHloModule, r: &Value) {
    let signature = module.signature().unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(
        signature
            .entry_computation_layout()
            .to_computation_layout_string(),
        r["entry_computation_layout"].as_str().unwrap(),
        "{name}"
    );
    let alias = signature.input_output_alias_string();
    assert_eq!(
        (!alias.is_empty()).then_some(alias),
        header(r, "input_output_alias"),
        "{name}"
    );
    let donors = signature.buffer_donor_string();
    assert_eq!(
        (!donors.is_empty()).then_some(donors),
        header(r, "buffer_donor"),
        "{name}"
    );
}

/// The functions, arguments, results and operations of two modules agree
/// in everything but the places and names that only text has.
fn same_module(name: &str, from_bytes: &StableHloModule, from_text: &StableHloModule) {
    assert_eq!(from_bytes.name, from_text.name, "{name}");
    let attrs = |m: &StableHloModule| -> Vec<(String, String)> {
        m.attributes
            .iter()
            .map(|a| (a.name.clone(), a.value.clone()))
            .collect()
    };
    assert_eq!(
        attrs(from_bytes),
        attrs(from_text),
        "{name}: module attributes"
    );
    let meshes = |m: &StableHloModule| -> Vec<(String, String)> {
        m.meshes
            .iter()
            .map(|a| (a.name.clone(), a.value.clone()))
            .collect()
    };
    assert_eq!(meshes(from_bytes), meshes(from_text), "{name}: meshes");
    assert_eq!(
        from_bytes.functions.len(),
        from_text.functions.len(),
        "{name}: functions"
    );
    for (b, t) in from_bytes.functions.iter().zip(&from_text.functions) {
        let f = format!("{name} @{}", t.name);
        assert_eq!(b.name, t.name, "{f}");
        assert_eq!(
            b.visibility.as_deref().unwrap_or("public"),
            t.visibility.as_deref().unwrap_or("public"),
            "{f}"
        );
        let args = |f: &xla_shape::stablehlo::Function| -> Vec<(Type, Vec<(String, String)>)> {
            f.arguments
                .iter()
                .map(|a| {
                    (
                        a.ty.clone(),
                        a.attributes
                            .iter()
                            .map(|a| (a.name.clone(), a.value.clone()))
                            .collect(),
                    )
                })
                .collect()
        };
        assert_eq!(args(b), args(t), "{f}: arguments");
        let results = |f: &xla_shape::stablehlo::Function| -> Vec<(Type, Vec<(String, String)>)> {
            f.results
                .iter()
                .map(|a| {
                    (
                        a.ty.clone(),
                        a.attributes
                            .iter()
                            .map(|a| (a.name.clone(), a.value.clone()))
                            .collect(),
                    )
                })
                .collect()
        };
        assert_eq!(results(b), results(t), "{f}: results");
        let ops = |f: &xla_shape::stablehlo::Function| -> Vec<(String, Vec<Type>, usize)> {
            f.operations
                .iter()
                .map(|o| {
                    let name = match o.name.as_str() {
                        "return" => "func.return".to_owned(),
                        "call" => "func.call".to_owned(),
                        n => n.to_owned(),
                    };
                    (name, o.result_types.clone(), o.depth)
                })
                .collect()
        };
        // The same operations of the function's own body, each with its
        // types and place; serializing may move constants first and merge equal ones, and the
        // text's short forms (`reduce(...) applies stablehlo.add`) hide
        // the regions that the bytecode holds, so nested operations of the
        // text are among the bytecode's.
        let located = |m: &StableHloModule, f: &xla_shape::stablehlo::Function| {
            let mut ops: Vec<_> = ops(f)
                .into_iter()
                .zip(&f.operations)
                .map(|(o, op)| {
                    // Serializing merges equal constants (their location
                    // then unknown).
                    let place = op
                        .debug_location
                        .as_deref()
                        .and_then(|l| m.location_name(l))
                        .filter(|_| o.0 != "stablehlo.constant");
                    (o.2, o.0, format!("{:?}", o.1), place)
                })
                .collect();
            ops.sort();
            ops.dedup();
            ops
        };
        let (ob, ot) = (located(from_bytes, b), located(from_text, t));
        // Serializing also hoists constants out of regions: constants are
        // compared by their types alone.
        let constants = |ops: &[(usize, String, String, Option<String>)]| -> Vec<String> {
            let mut c: Vec<String> = ops
                .iter()
                .filter(|o| o.1 == "stablehlo.constant")
                .map(|o| o.2.clone())
                .collect();
            c.dedup();
            c.sort();
            c.dedup();
            c
        };
        assert_eq!(constants(&ob), constants(&ot), "{f}: constants");
        // And casts between VHLO's types and other dialects' around the
        // operations of other dialects (`sdy.sharding_constraint`).
        let (ob, ot): (Vec<_>, Vec<_>) = (
            ob.into_iter()
                .filter(|o| {
                    o.1 != "stablehlo.constant" && o.1 != "builtin.unrealized_conversion_cast"
                })
                .collect(),
            ot.into_iter()
                .filter(|o| o.1 != "stablehlo.constant")
                .collect(),
        );
        let top = |ops: &[(usize, String, String, Option<String>)]| -> Vec<_> {
            ops.iter().filter(|o| o.0 == 0).cloned().collect()
        };
        assert_eq!(top(&ob), top(&ot), "{f}: operations");
        for o in ot.iter().filter(|o| o.0 > 0) {
            assert!(ob.contains(o), "{f}: nested operation {o:?}");
        }
        for (ab, at) in b.arguments.iter().zip(&t.arguments) {
            let lb = ab
                .debug_location
                .as_deref()
                .and_then(|l| from_bytes.location_name(l));
            let lt = at
                .debug_location
                .as_deref()
                .and_then(|l| from_text.location_name(l));
            assert_eq!(lb, lt, "{f}: location of argument {}", at.name);
        }
    }
}

#[test]
fn every_programs_artifact_is_its_text() {
    let records = common::records("stablehlo/bytecode/programs.jsonl");
    assert!(records.len() > 100, "{} programs", records.len());
    for r in &records {
        let name = r["name"].as_str().unwrap();
        let b = bytes(&format!("stablehlo/bytecode/programs/{name}.mlirbc"));
        let module = StableHloModule::from_bytecode(&b).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            module.producer.as_deref(),
            Some("StableHLO_v1.15.0"),
            "{name}"
        );
        check_signature(name, &module, r);
        let source = text(&format!("stablehlo/programs/{name}.debug.mlir"));
        // Serializing decomposes CHLO operations into composites of
        // functions of their own: only the signature is the text's.
        if source.contains(" chlo.") {
            continue;
        }
        same_module(name, &module, &StableHloModule::from_text(&source).unwrap());
    }
}

#[test]
fn every_exports_module_is_its_text() {
    let mut records = common::records("stablehlo/bytecode/exports.jsonl");
    let dir = "stablehlo/bytecode/exports";
    let mut old = common::records("stablehlo/export.jsonl");
    records.append(&mut old);
    assert!(records.len() >= 20);
    for r in &records {
        let name = r["name"].as_str().unwrap();
        let path = if r.get("fun_name").is_some() {
            format!("{dir}/{name}.mlirbc")
        } else {
            format!("stablehlo/export/{name}.mlirbc")
        };
        let module =
            StableHloModule::from_bytecode(&bytes(&path)).unwrap_or_else(|e| panic!("{name}: {e}"));
        let t = StableHloModule::from_text(r["mlir"].as_str().unwrap()).unwrap();
        same_module(name, &module, &t);
        if r.get("error").is_none() {
            check_signature(name, &module, r);
        }
    }
}

/// `Exported.serialize()` read back: what jax read from the same bytes
/// (`exports.jsonl`, `export.jsonl`), and the module is the artifact.
#[test]
fn serialized_exports_are_what_jax_reads() {
    use xla_shape::stablehlo::{JaxExport, is_jax_export};
    let strs = |v: &Value| -> Vec<Option<String>> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().map(str::to_owned))
            .collect()
    };
    let mut checked = 0;
    for (file, dir) in [
        (
            "stablehlo/bytecode/exports.jsonl",
            "stablehlo/bytecode/exports",
        ),
        ("stablehlo/export.jsonl", "stablehlo/export"),
    ] {
        for r in common::records(file) {
            let name = r["name"].as_str().unwrap();
            let b = bytes(&format!("{dir}/{name}.bin"));
            assert!(is_jax_export(&b), "{name}");
            let e = JaxExport::from_bytes(&b).unwrap_or_else(|e| panic!("{name}: {e}"));
            let shown = |v: &[xla_shape::stablehlo::Aval]| -> Vec<Option<String>> {
                v.iter().map(|a| Some(a.to_string())).collect()
            };
            assert_eq!(shown(&e.in_avals), strs(&r["in_avals"]), "{name}");
            assert_eq!(shown(&e.out_avals), strs(&r["out_avals"]), "{name}");
            if r.get("in_shardings").is_some() {
                let shown = |v: &[Option<xla_shape::stablehlo::Sharding>]| -> Vec<Option<String>> {
                    v.iter()
                        .map(|s| s.as_ref().map(ToString::to_string))
                        .collect()
                };
                assert_eq!(shown(&e.in_shardings), strs(&r["in_shardings"]), "{name}");
                assert_eq!(shown(&e.out_shardings), strs(&r["out_shardings"]), "{name}");
                assert_eq!(e.function_name, r["fun_name"].as_str().unwrap(), "{name}");
                let kept: Vec<u64> = r["module_kept_var_idx"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v.as_u64().unwrap())
                    .collect();
                let got: Vec<u64> = e
                    .module_kept_var_idx
                    .iter()
                    .map(|&v| u64::from(v))
                    .collect();
                assert_eq!(got, kept, "{name}");
                assert_eq!(
                    e.uses_global_constants,
                    r["uses_global_constants"].as_bool().unwrap(),
                    "{name}"
                );
            }
            assert_eq!(
                u64::from(e.nr_devices),
                r["nr_devices"].as_u64().unwrap(),
                "{name}"
            );
            let platforms: Vec<Option<String>> = e.platforms.iter().cloned().map(Some).collect();
            assert_eq!(platforms, strs(&r["platforms"]), "{name}");
            assert_eq!(
                u64::from(e.calling_convention_version),
                r["calling_convention_version"].as_u64().unwrap(),
                "{name}"
            );
            assert!(
                e.ordered_effects.is_empty() && e.unordered_effects.is_empty(),
                "{name}"
            );
            assert_eq!(
                e.mlir_module_serialized,
                bytes(&format!("{dir}/{name}.mlirbc")),
                "{name}"
            );
            let module = e.module().unwrap();
            if r.get("error").is_none() {
                check_signature(name, &module, &r);
            }
            checked += 1;
        }
    }
    assert_eq!(checked, 21);
}
