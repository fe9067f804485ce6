//! The signature's shardings read as `HloSharding`: on every golden jax
//! program (text with and without debug locations, and its portable
//! artifact), each parameter's sharding is the `sharding={...}` XLA's
//! conversion gives the entry parameter (`programs/NAME.hlo.txt`,
//! `lowered.compiler_ir('hlo')` of jaxlib 0.10.2), and the results'
//! shardings are the root's.

use xla_shape::hlo::{HloInstruction, HloModule};
use xla_shape::sharding::HloSharding;
use xla_shape::stablehlo::{Signature, StableHloModule};

use crate::common;

fn sharding_of(i: &HloInstruction) -> Option<HloSharding> {
    i.sharding
        .as_ref()
        .map(|s| s.clone().unwrap_or_else(|e| panic!("{}: {e}", i.name)))
}

/// Checks `signature` against XLA's converted module; returns how many
/// parameter and result shardings were compared.
fn check(name: &str, signature: &Signature, hlo: &HloModule) -> usize {
    let entry = hlo.entry().expect("entry");
    let mut params: Vec<&HloInstruction> = entry
        .instructions
        .iter()
        .filter(|i| i.opcode == "parameter")
        .collect();
    params.sort_by_key(|i| i.parameter_number);
    assert_eq!(params.len(), signature.parameters.len(), "{name}");
    let mut compared = 0;
    for (p, xla) in signature.parameters.iter().zip(&params) {
        let ours = p.hlo_sharding().map(|s| s.unwrap().clone());
        assert_eq!(ours, sharding_of(xla), "{name}: parameter {}", p.name);
        compared += usize::from(ours.is_some());
    }
    let results: Vec<Option<HloSharding>> = signature
        .results
        .iter()
        .map(|r| r.hlo_sharding().map(|s| s.unwrap().clone()))
        .collect();
    if !results.is_empty() && results.iter().all(Option::is_some) {
        let ours: Vec<HloSharding> = results.into_iter().flatten().collect();
        let ours = if ours.len() == 1 {
            ours.into_iter().next().unwrap()
        } else {
            HloSharding::tuple(ours)
        };
        let root = entry.root().expect("root");
        assert_eq!(Some(ours), sharding_of(root), "{name}: result");
        compared += 1;
    }
    compared
}

#[test]
fn signature_shardings_are_xlas_conversion() {
    let records = common::records("stablehlo/programs.jsonl");
    let (mut programs, mut compared) = (0, 0);
    for r in &records {
        let name = r["name"].as_str().unwrap();
        let hlo_text = std::fs::read_to_string(common::data_path(&format!(
            "stablehlo/programs/{name}.hlo.txt"
        )))
        .unwrap();
        let hlo = HloModule::from_text(&hlo_text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut modules = Vec::new();
        for suffix in [".mlir", ".debug.mlir"] {
            let text = std::fs::read_to_string(common::data_path(&format!(
                "stablehlo/programs/{name}{suffix}"
            )))
            .unwrap();
            modules.push((suffix, StableHloModule::from_text(&text).unwrap()));
        }
        let bytecode = common::data_path(&format!("stablehlo/bytecode/programs/{name}.mlirbc"));
        if let Ok(bytes) = std::fs::read(bytecode) {
            modules.push((".mlirbc", StableHloModule::from_bytecode(&bytes).unwrap()));
        }
        let mut n = 0;
        for (suffix, module) in &modules {
            let signature = module.signature().unwrap();
            n = check(&format!("{name}{suffix}"), &signature, &hlo);
        }
        if n > 0 {
            programs += 1;
            compared += n;
        }
    }
    // 23 programs carry shardings on `@main` (GSPMD and Shardy, donation,
    // memory kinds, layouts).
    assert!(programs >= 20, "{programs} programs with shardings");
    assert!(compared >= 30, "{compared} shardings compared");
}

#[test]
fn a_mesh_the_module_lacks_is_an_error() {
    let module = StableHloModule::from_text(
        r#"module @m {
  func.func public @main(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@nowhere, [{"x"}]>}) -> tensor<8xf32> {
    return %arg0 : tensor<8xf32>
  }
}"#,
    )
    .unwrap();
    let signature = module.signature().unwrap();
    let err = signature.parameters[0].hlo_sharding().unwrap().unwrap_err();
    assert!(err.message().contains("@nowhere"), "{err}");
    // The raw text is kept.
    assert_eq!(
        signature.parameters[0].sharding.as_deref(),
        Some(r#"#sdy.sharding<@nowhere, [{"x"}]>"#)
    );
}

#[test]
fn an_mhlo_sharding_that_does_not_read_is_an_error() {
    let module = StableHloModule::from_text(
        r#"module @m {
  func.func public @main(%arg0: tensor<8xf32> {mhlo.sharding = "{bogus}"}) -> tensor<8xf32> {
    return %arg0 : tensor<8xf32>
  }
}"#,
    )
    .unwrap();
    let signature = module.signature().unwrap();
    assert!(signature.parameters[0].hlo_sharding().unwrap().is_err());
}
