//! jax programs (`programs/NAME.mlir`, with and without debug locations):
//! the signature read from the text is what XLA's conversion printed
//! (`programs.jsonl`, `programs/NAME.hlo.txt`), and what compilation asks
//! for is what XLA:CPU compiled.

use serde_json::Value;
use xla_shape::hlo::HloModule;
use xla_shape::stablehlo::StableHloModule;
use xla_shape::{ProgramShape, Shape};

use crate::common;

fn read(path: &str) -> String {
    std::fs::read_to_string(common::data_path(path)).expect("golden program")
}

fn field<'a>(r: &'a Value, name: &str) -> Option<&'a str> {
    r[name].as_str()
}

#[test]
fn signatures_are_xlas_conversion() {
    let records = common::records("stablehlo/programs.jsonl");
    assert!(records.len() > 100, "{} programs", records.len());
    for r in &records {
        let name = field(r, "name").unwrap();
        for suffix in [".mlir", ".debug.mlir"] {
            let text = read(&format!("stablehlo/programs/{name}{suffix}"));
            let module =
                StableHloModule::from_text(&text).unwrap_or_else(|e| panic!("{name}{suffix}: {e}"));
            let signature = module
                .signature()
                .unwrap_or_else(|e| panic!("{name}{suffix}: {e}"));
            let layout = signature.entry_computation_layout();
            assert_eq!(
                layout.to_computation_layout_string(),
                field(r, "entry_computation_layout").unwrap(),
                "{name}{suffix}"
            );
            let params: Vec<String> = layout.parameters().iter().map(Shape::to_string).collect();
            let want: Vec<&str> = r["parameters"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p.as_str().unwrap())
                .collect();
            assert_eq!(params, want, "{name}{suffix}");
            assert_eq!(
                layout.result().to_string(),
                field(r, "result").unwrap(),
                "{name}"
            );
            let alias = signature.input_output_alias_string();
            let want_alias = field(r, "input_output_alias").map(|a| format!("{{{a}}}"));
            assert_eq!(
                (!alias.is_empty()).then_some(alias),
                want_alias,
                "{name}{suffix}"
            );
            let donors = signature.buffer_donor_string();
            let want_donors = field(r, "buffer_donor").map(|a| format!("{{{a}}}"));
            assert_eq!(
                (!donors.is_empty()).then_some(donors),
                want_donors,
                "{name}{suffix}"
            );
        }
    }
}

#[test]
fn every_operation_has_its_types() {
    for r in common::records("stablehlo/programs.jsonl") {
        let name = field(&r, "name").unwrap();
        let plain =
            StableHloModule::from_text(&read(&format!("stablehlo/programs/{name}.mlir"))).unwrap();
        let debug =
            StableHloModule::from_text(&read(&format!("stablehlo/programs/{name}.debug.mlir")))
                .unwrap();
        // The same operations, with the same types, in both forms; only
        // the debug form has locations.
        let ops = |m: &StableHloModule| {
            m.operations()
                .map(|(f, o)| {
                    (
                        f.name.clone(),
                        o.name.clone(),
                        o.results.clone(),
                        o.result_types.clone(),
                    )
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(ops(&plain), ops(&debug), "{name}");
        assert!(plain.operations().all(|(_, o)| o.debug_location.is_none()));
        assert!(
            debug.operations().all(|(_, o)| o.debug_location.is_some()),
            "{name}"
        );
        for (_, op) in plain.operations() {
            let results = if op.results.is_empty() {
                0
            } else {
                op.results
                    .split(',')
                    .map(|g| {
                        g.split_once(':')
                            .map_or(1, |(_, n)| n.trim().parse().unwrap())
                    })
                    .sum()
            };
            assert_eq!(op.result_types.len(), results, "{name}: {op:?}");
        }
    }
}

#[test]
fn the_conversions_text_has_the_same_entry_layout() {
    // XLA's HLO text of the conversion, read by the crate's HLO reader.
    for r in common::records("stablehlo/programs.jsonl") {
        let name = field(&r, "name").unwrap();
        let hlo =
            HloModule::from_text(&read(&format!("stablehlo/programs/{name}.hlo.txt"))).unwrap();
        let layout = hlo.entry_computation_layout.unwrap();
        assert_eq!(
            layout.to_computation_layout_string(),
            field(&r, "entry_computation_layout").unwrap(),
            "{name}"
        );
    }
}

/// The layouts of every leaf of `shape`, with memory spaces.
fn leaf_layouts(shape: &Shape, out: &mut Vec<String>) {
    match shape {
        Shape::Tuple(t) => t.iter().for_each(|s| leaf_layouts(s, out)),
        Shape::Array(a) => {
            let mut l = String::new();
            if let Some(layout) = a.layout() {
                layout.print_to(&mut l);
            }
            out.push(l);
        }
        other => out.push(other.to_string()),
    }
}

fn layouts(p: &ProgramShape) -> Vec<String> {
    let mut out = Vec::new();
    for s in p.parameters() {
        leaf_layouts(s, &mut out);
    }
    out.push("->".into());
    leaf_layouts(p.result(), &mut out);
    out
}

#[test]
fn compilation_asks_for_what_xla_cpu_compiled() {
    let mut checked = 0;
    for r in common::records("stablehlo/programs.jsonl") {
        let name = field(&r, "name").unwrap();
        let Some(compiled) = field(&r, "compiled_entry_computation_layout") else {
            continue;
        };
        let module =
            StableHloModule::from_text(&read(&format!("stablehlo/programs/{name}.mlir"))).unwrap();
        let signature = module.signature().unwrap();
        let Some(ours) = signature.compile_entry_computation_layout() else {
            // `auto`: the compiler chose.
            assert!(name.contains("auto"), "{name}");
            continue;
        };
        let text = format!("HloModule m, entry_computation_layout={{{compiled}}}\n");
        let xla = HloModule::from_text(&text)
            .unwrap()
            .entry_computation_layout
            .unwrap();
        // Sharded programs compile per-device shapes: compare the layouts.
        assert_eq!(layouts(&ours), layouts(&xla), "{name}: {compiled}");
        if signature.num_partitions.unwrap_or(1) == 1 {
            assert_eq!(ours.to_computation_layout_string(), compiled, "{name}");
        }
        checked += 1;
    }
    assert!(checked > 100, "{checked}");
}
