//! `signature`: the entry computation layout of a module, StableHLO (text,
//! MLIR bytecode or a `jax.export` serialization: XLA's conversion, and
//! what compilation adds), HLO text or a binary HLO module; and `scan` of
//! StableHLO.

use std::borrow::Cow;
use std::io::Write;

use serde_json::{Value, json};
use xla_shape::hlo::HloModule;
use xla_shape::stablehlo::{
    CompileLayout, JaxExport, LayoutMode, Signature, SignatureValue, StableHloModule,
    is_jax_export, is_mlir_bytecode, looks_like_mlir,
};
use xla_shape::{ProgramShape, Shape};

use crate::input::{self, Limits};
use crate::output::{Failure, Problem, write_json};

/// Text for a terminal or a line format: control characters (ESC, CR, LF,
/// ...) escaped, so that names from the input cannot move the cursor or
/// forge lines.
pub fn printable(s: &str) -> Cow<'_, str> {
    if !s.chars().any(char::is_control) {
        return Cow::Borrowed(s);
    }
    Cow::Owned(
        s.chars()
            .map(|c| {
                if c.is_control() {
                    c.escape_default().to_string()
                } else {
                    c.to_string()
                }
            })
            .collect(),
    )
}

/// `xla-shape signature [INPUT]`: the entry computation layout, with, for
/// StableHLO, the aliasing and what compilation applies; with `json`, one
/// document `{"entry_computation_layout", "parameters", "result", ...}`.
pub fn run(
    input: Option<&str>,
    json: bool,
    limits: &Limits,
    out: &mut impl Write,
) -> Result<(), Failure> {
    let bytes = input::read_all(input, limits.max_input)?;
    match stablehlo_module(&bytes)? {
        Some(module) => {
            let signature = module.signature()?;
            write_stablehlo(&signature, json, out)
        }
        None => {
            let module = HloModule::read(&bytes)?;
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

/// StableHLO in any of the forms JAX writes: MLIR bytecode (a portable
/// artifact), `jax.export`'s serialization (its module), or text; `None`
/// for any other input.
pub fn stablehlo_module(bytes: &[u8]) -> Result<Option<StableHloModule>, Failure> {
    if is_mlir_bytecode(bytes) {
        return Ok(Some(StableHloModule::from_bytecode(bytes)?));
    }
    if is_jax_export(bytes) {
        return Ok(Some(JaxExport::from_bytes(bytes)?.module()?));
    }
    match std::str::from_utf8(bytes) {
        Ok(text) if looks_like_mlir(text) => Ok(Some(StableHloModule::from_text(text)?)),
        _ => Ok(None),
    }
}

/// `scan` of StableHLO: one line per function argument, function result
/// and operation result: `LINE:COLUMN` (1-based; `@OFFSET` in bytecode),
/// the byte size (`?` without one), the XLA shape and what it belongs to;
/// a type XLA has no shape for is `error: MESSAGE` and the type. With
/// `json`, one object each (`line` and `column`, or `offset`). Whether a
/// type had no shape.
pub fn scan(module: &StableHloModule, json: bool, out: &mut impl Write) -> Result<bool, Failure> {
    let mut failed = false;
    let mut write = |at: xla_shape::Location,
                     ty: &xla_shape::stablehlo::Type,
                     owner: String,
                     name: Option<String>,
                     out: &mut dyn Write|
     -> Result<(), Failure> {
        // Bytecode has no lines: its places are byte offsets.
        let (line, column) = (at.line, at.column + 1);
        let shape = ty.to_shape();
        let size = shape
            .as_ref()
            .ok()
            .and_then(|s| xla_shape::shape_util::byte_size_of(s, 8).ok());
        if json {
            let mut v = if line == 0 {
                json!({
                    "offset": at.offset, "type": ty.to_string(),
                    "owner": owner, "byte_size": size,
                })
            } else {
                json!({
                    "line": line, "column": column, "type": ty.to_string(),
                    "owner": owner, "byte_size": size,
                })
            };
            match &shape {
                Ok(s) => v["shape"] = json!(s.to_string()),
                Err(e) => {
                    failed = true;
                    v["error"] = Problem::from(e).to_json();
                }
            }
            if let Some(name) = name {
                v["location_name"] = json!(name);
            }
            write_json(&mut &mut *out, &v)?;
        } else {
            let size = size.map_or("?".to_string(), |n| n.to_string());
            let place = if line == 0 {
                format!("@{}", at.offset)
            } else {
                format!("{line}:{column}")
            };
            let owner = printable(&owner);
            let named = name
                .map(|n| format!(" ({})", printable(&n)))
                .unwrap_or_default();
            match &shape {
                Ok(s) => writeln!(out, "{place}\t{size}\t{s}\t{owner}{named}")?,
                Err(e) => {
                    failed = true;
                    writeln!(
                        out,
                        "{place}\terror: {}\t{ty}\t{owner}{named}",
                        Problem::from(e).one_line()
                    )?;
                }
            }
        }
        Ok(())
    };
    for f in &module.functions {
        let function = printable(&f.name);
        for (i, a) in f.arguments.iter().enumerate() {
            let name = a
                .debug_location
                .as_deref()
                .and_then(|l| module.location_name(l));
            let owner = format!("parameter {i} (%{}) of {function}", a.name);
            write(a.location, &a.ty, owner, name, out)?;
        }
        for (i, r) in f.results.iter().enumerate() {
            let owner = format!("result {i} of {function}");
            write(r.location, &r.ty, owner, None, out)?;
        }
        for op in &f.operations {
            let name = op
                .debug_location
                .as_deref()
                .and_then(|l| module.location_name(l));
            for (i, ty) in op.result_types.iter().enumerate() {
                let at = op.location;
                let which = if op.result_types.len() > 1 {
                    format!(" #{i}")
                } else {
                    String::new()
                };
                let owner = format!("result{which} of {} {} in {function}", op.results, op.name);
                write(at, ty, owner, name.clone(), out)?;
            }
        }
    }
    Ok(failed)
}

/// For `scan` and `report`, which read HLO text one line at a time:
/// StableHLO is read whole (an operation's types may follow its regions,
/// lines later), MLIR bytecode too. `Some(module)` for StableHLO text or
/// bytecode, `None` for any other input (a `jax.export` serialization is
/// found once a binary input is read: [`stablehlo_module`]).
pub fn whole_stablehlo(
    prefix: &[u8],
    reader: &mut dyn std::io::BufRead,
    source: input::Source<'_>,
    limits: &Limits,
) -> Result<Option<StableHloModule>, Failure> {
    if is_mlir_bytecode(prefix) {
        let bytes = input::read_rest(reader, source.size(), limits.max_input)?;
        return Ok(Some(StableHloModule::from_bytecode(&bytes)?));
    }
    if xla_shape::hlo::ModuleEncoding::detect(prefix) != xla_shape::hlo::ModuleEncoding::Text
        || !is_stablehlo(prefix)
    {
        return Ok(None);
    }
    let bytes = input::read_rest(reader, source.size(), limits.max_input)?;
    Ok(Some(StableHloModule::from_text(input::line_text(&bytes)?)?))
}

/// Whether `bytes` (or their start) are StableHLO text.
pub fn is_stablehlo(bytes: &[u8]) -> bool {
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or_default(),
    };
    looks_like_mlir(text)
}

/// The shape of an operation's results as one buffer: the one result's, or
/// the tuple of several.
pub fn results_shape(types: &[xla_shape::stablehlo::Type]) -> xla_shape::Result<Shape> {
    if types.len() == 1 {
        types[0].to_shape()
    } else {
        types
            .iter()
            .map(xla_shape::stablehlo::Type::to_shape)
            .collect::<xla_shape::Result<Vec<_>>>()
            .map(Shape::Tuple)
    }
}
