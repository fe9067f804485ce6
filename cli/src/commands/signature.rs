//! `signature`: the entry computation layout of a module, StableHLO (text,
//! MLIR bytecode or a `jax.export` serialization: XLA's conversion, and
//! what compilation adds), HLO text or a binary HLO module.

use std::io::Write;

use serde_json::{Value, json};
use xla_shape::hlo::HloModule;
use xla_shape::stablehlo::{CompileLayout, LayoutMode, Signature, SignatureValue};
use xla_shape::{ProgramShape, Shape};

use crate::Context;
use crate::input::Module;
use crate::output::{Failure, Problem, printable, write_json};

/// The arguments of `signature`.
#[derive(Clone, Debug, Default, clap::Args)]
pub struct Args {
    /// The module (standard input when absent or '-').
    pub input: Option<String>,
}

/// `xla-shape signature [INPUT]`: the entry computation layout, with, for
/// StableHLO, the aliasing and what compilation applies; with `json`, one
/// document `{"entry_computation_layout", "parameters", "result", ...}`.
pub fn run(args: &Args, cx: &mut Context<impl Write>) -> Result<(), Failure> {
    let module = cx.read_module(args.input.as_deref())?;
    let (json, out) = (cx.json, &mut cx.out);
    match module {
        Module::StableHlo(module) => {
            let signature = module.signature()?;
            write_stablehlo(&signature, json, out)
        }
        Module::Hlo(module) => {
            let layout = module
                .entry_computation_layout
                .clone()
                .or_else(|| computed_layout(&module))
                .or_else(|| module.program_shape.clone())
                .ok_or_else(|| {
                    Problem::new("Format", "the module has no entry computation layout")
                })?;
            write_hlo(&module, &layout, json, out)
        }
    }
}

/// The entry computation layout XLA's HLO parser gives a module without
/// one: the entry computation's parameter instructions, by number, and its
/// root, with their layouts.
fn computed_layout(module: &HloModule) -> Option<ProgramShape> {
    let entry = module.entry()?;
    let mut parameters: Vec<(usize, Shape)> = Vec::new();
    for i in entry
        .instructions
        .iter()
        .filter(|i| i.opcode == "parameter")
    {
        let number = i.operands.as_deref()?.trim().parse().ok()?;
        parameters.push((number, i.shape.clone().ok()?));
    }
    parameters.sort_by_key(|p| p.0);
    if parameters.iter().enumerate().any(|(k, p)| k != p.0) {
        return None;
    }
    let result = entry.root()?.shape.clone().ok()?;
    Some(ProgramShape::new(
        parameters
            .into_iter()
            .map(|(_, s)| (String::new(), s))
            .collect(),
        result,
    ))
}

fn write_hlo(
    module: &HloModule,
    layout: &ProgramShape,
    json: bool,
    out: &mut impl Write,
) -> Result<(), Failure> {
    let printed = layout.to_computation_layout_string();
    if !json {
        writeln!(out, "{printed}")?;
        return Ok(());
    }
    let parameters: Vec<Value> = layout
        .parameters()
        .iter()
        .enumerate()
        .map(|(i, shape)| json!({"index": i, "shape": shape.to_string()}))
        .collect();
    let source = match module.source {
        xla_shape::hlo::ModuleSource::Text => "hlo_text",
        _ => "hlo_proto",
    };
    write_json(
        out,
        &json!({
            "entry_computation_layout": printed,
            "parameters": parameters,
            "result": layout.result().to_string(),
            "source": source,
            "module": module.name,
        }),
    )?;
    Ok(())
}

fn layout_mode(mode: &LayoutMode) -> String {
    match mode {
        LayoutMode::Default => "default".into(),
        LayoutMode::Auto => "auto".into(),
        LayoutMode::UserSpecified(l) => l.to_string(),
    }
}

fn compile_json(c: &CompileLayout) -> Value {
    match c {
        CompileLayout::Default { memory_space } => {
            json!({"layout": "default", "memory_space": memory_space})
        }
        CompileLayout::UserSpecified {
            layout,
            memory_space,
        } => json!({"layout": layout.to_string(), "memory_space": memory_space}),
        CompileLayout::Auto => json!({"layout": "auto", "memory_space": null}),
    }
}

fn value_json(i: usize, v: &SignatureValue) -> Value {
    json!({
        "index": i,
        "name": v.name,
        "type": v.ty.to_string(),
        "shape": v.shape.to_string(),
        "sharding": v.sharding,
        "memory_kind": v.memory_kind,
        "layout_mode": v.layout_mode.as_ref().map(layout_mode),
        "compile": compile_json(&v.compile),
        "layout_from_body": v.layout_from_body,
    })
}

fn write_stablehlo(signature: &Signature, json: bool, out: &mut impl Write) -> Result<(), Failure> {
    let layout = signature.entry_computation_layout();
    let printed = layout.to_computation_layout_string();
    let compiled = signature
        .compile_entry_computation_layout()
        .map(|p| p.to_computation_layout_string());
    if json {
        let parameters: Vec<Value> = signature
            .parameters
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let mut v = value_json(i, p);
                v["donated"] = json!(
                    signature
                        .input_output_alias
                        .iter()
                        .any(|a| a.parameter == i)
                        || signature.buffer_donors.contains(&i)
                );
                v
            })
            .collect();
        let results: Vec<Value> = signature
            .results
            .iter()
            .enumerate()
            .map(|(i, r)| value_json(i, r))
            .collect();
        let aliases: Vec<Value> = signature
            .input_output_alias
            .iter()
            .map(|a| json!({"output_index": a.output_index, "parameter": a.parameter}))
            .collect();
        write_json(
            out,
            &json!({
                "entry_computation_layout": printed,
                "parameters": parameters,
                "result": layout.result().to_string(),
                "results": results,
                "input_output_alias": aliases,
                "buffer_donors": signature.buffer_donors,
                "compile_entry_computation_layout": compiled,
                "num_partitions": signature.num_partitions,
                "num_replicas": signature.num_replicas,
                "notes": signature.notes(),
                "source": "stablehlo",
            }),
        )?;
        return Ok(());
    }
    writeln!(out, "{printed}")?;
    let alias = signature.input_output_alias_string();
    if !alias.is_empty() {
        writeln!(out, "input_output_alias={alias}")?;
    }
    let donors = signature.buffer_donor_string();
    if !donors.is_empty() {
        writeln!(out, "buffer_donor={donors}")?;
    }
    for (kind, values) in [
        ("parameter", &signature.parameters),
        ("result", &signature.results),
    ] {
        for (i, v) in values.iter().enumerate() {
            if let Some(s) = &v.sharding {
                writeln!(
                    out,
                    "{kind} {i} ({}): sharding {}",
                    printable(&v.name),
                    printable(s)
                )?;
            }
        }
    }
    if let Some(compiled) = compiled.filter(|c| *c != printed) {
        writeln!(out, "compiled (XLA:CPU): {compiled}")?;
    }
    for note in signature.notes() {
        writeln!(out, "note: {}", printable(&note))?;
    }
    Ok(())
}
