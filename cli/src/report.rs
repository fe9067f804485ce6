//! `report`: a static memory report of a whole HLO module, text or binary
//! `HloModuleProto`/`HloProto`/`HloSnapshot` (detected); and what `scan`
//! needs to say which instruction or computation each shape belongs to.

use std::collections::HashMap;
use std::io::Write;

use serde_json::json;
use xla_shape::hlo::{HloModule, MemoryReport, ModuleSource};
use xla_shape::text::ShapeRole;

use crate::input::{self, Limits};
use crate::output::{Failure, Problem, write_json};

/// The width of the terminal: `COLUMNS`, or 120.
fn terminal_width() -> usize {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.parse().ok())
        .filter(|&c| c >= 40)
        .unwrap_or(120)
}

/// `xla-shape report [INPUT] [--top N]`: the table, or with `json` one
/// JSON document.
pub fn run(
    input: Option<&str>,
    top: usize,
    width: Option<usize>,
    json: bool,
    limits: &Limits,
    out: &mut impl Write,
) -> Result<(), Failure> {
    let bytes = input::read_all(input, limits.max_input)?;
    let module = HloModule::read(&bytes)?;
    drop(bytes);
    let report = MemoryReport::new(&module)?;
    if json {
        out.write_all(report.to_json(top).as_bytes())?;
        out.write_all(b"\n")?;
    } else {
        out.write_all(
            report
                .to_table(top, width.unwrap_or_else(terminal_width))
                .as_bytes(),
        )?;
    }
    Ok(())
}

/// A binary module, if `bytes` are one (and not HLO text).
pub fn binary_module(bytes: &[u8]) -> Option<Result<HloModule, xla_shape::Error>> {
    let looks_binary = std::str::from_utf8(bytes).is_err();
    match HloModule::read(bytes) {
        Ok(m) if matches!(m.source, ModuleSource::Proto(_)) => Some(Ok(m)),
        Err(e) if looks_binary => Some(Err(e)),
        _ => None,
    }
}

/// `scan` of a binary module: the result shape of every instruction,
/// `COMPUTATION/INSTRUCTION`, byte size, shape and owner.
pub fn scan_binary(module: &HloModule, json: bool, out: &mut impl Write) -> Result<(), Failure> {
    let mut failed = false;
    for (c, i) in module.instructions() {
        let owner = format!("result of {} in {}", i.name, c.name);
        match (&i.shape, json) {
            (Ok(shape), _) => {
                let size = xla_shape::shape_util::byte_size_of(shape, 8).ok();
                if json {
                    write_json(
                        out,
                        &json!({
                            "computation": c.name, "instruction": i.name,
                            "shape": shape.to_string(), "byte_size": size, "owner": owner,
                        }),
                    )?;
                } else {
                    let size = size.map_or("?".to_string(), |n| n.to_string());
                    writeln!(out, "{}/{}\t{size}\t{shape}\t{owner}", c.name, i.name)?;
                }
            }
            (Err(rejected), false) => {
                failed = true;
                writeln!(
                    out,
                    "{}/{}\terror: {}\t{}\t{owner}",
                    c.name,
                    i.name,
                    Problem::from(&rejected.error).one_line(),
                    rejected.written
                )?;
            }
            (Err(rejected), true) => {
                failed = true;
                write_json(
                    out,
                    &json!({
                        "computation": c.name, "instruction": i.name,
                        "text": rejected.written, "owner": owner,
                        "error": Problem::from(&rejected.error).to_json(),
                    }),
                )?;
            }
        }
    }
    if failed {
        Err(Failure::Reported)
    } else {
        Ok(())
    }
}

/// What a line of module text holds: the header, a computation's
/// signature, or an instruction of a computation.
enum LineOwner<'a> {
    Header,
    Signature(&'a str),
    Instruction(&'a str, &'a str),
}

/// The owners of the lines of a module's text.
pub struct Owners<'a>(HashMap<usize, LineOwner<'a>>);

impl<'a> Owners<'a> {
    /// The owners of the lines of `text`, read as `module`.
    pub fn of(module: &'a HloModule, text: &str) -> Self {
        let mut owners = HashMap::new();
        if let Some(at) = text.find("HloModule") {
            let line = 1 + text.as_bytes()[..at]
                .iter()
                .filter(|&&b| b == b'\n')
                .count();
            owners.insert(line, LineOwner::Header);
        }
        for c in &module.computations {
            if let Some(at) = c.location {
                owners.insert(at.line, LineOwner::Signature(&c.name));
            }
            for i in &c.instructions {
                if let Some(at) = i.location {
                    owners.insert(at.line, LineOwner::Instruction(&i.name, &c.name));
                }
            }
        }
        Owners(owners)
    }

    /// What the shape found on `line` with `role` belongs to, in words
    /// (`result of add.1 in main`), or `-`.
    pub fn owner(&self, line: usize, role: ShapeRole) -> String {
        match (self.0.get(&line), role) {
            (Some(LineOwner::Header), ShapeRole::Parameter) => {
                "parameter of entry_computation_layout".into()
            }
            (Some(LineOwner::Header), ShapeRole::ComputationResult) => {
                "result of entry_computation_layout".into()
            }
            (Some(LineOwner::Header), _) => "module header".into(),
            (Some(LineOwner::Signature(c)), ShapeRole::Parameter) => format!("parameter of {c}"),
            (Some(LineOwner::Signature(c)), ShapeRole::ComputationResult) => {
                format!("result of {c}")
            }
            (Some(LineOwner::Signature(c)), _) => format!("signature of {c}"),
            (Some(LineOwner::Instruction(i, c)), ShapeRole::InstructionResult) => {
                format!("result of {i} in {c}")
            }
            (Some(LineOwner::Instruction(i, c)), ShapeRole::Operand) => {
                format!("operand of {i} in {c}")
            }
            (Some(LineOwner::Instruction(i, c)), _) => format!("in {i} in {c}"),
            (None, _) => "-".into(),
        }
    }
}
