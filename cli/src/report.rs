//! `report` and `scan`: whole HLO modules, as text or as binary
//! `HloModuleProto`/`HloProto`/`HloSnapshot` (detected).

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

use xla_shape::hlo::{HloModule, MemoryReport, ModuleSource};
use xla_shape::text::ShapeRole;

use crate::{Failure, input, one_line};

/// The bytes of FILE ('-' is standard input).
fn read_file(file: &Path) -> Result<Vec<u8>, Failure> {
    if file.as_os_str() == "-" {
        return Ok(input::read(None)?);
    }
    std::fs::read(file).map_err(|e| Failure::Input(format!("{}: {e}", file.display())))
}

/// The width of the terminal: `COLUMNS`, or 120.
fn terminal_width() -> usize {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.parse().ok())
        .filter(|&c| c >= 40)
        .unwrap_or(120)
}

/// `xla-shape report FILE [--top N] [--json]`.
pub fn report(file: &Path, top: usize, json: bool, out: &mut impl Write) -> Result<(), Failure> {
    let bytes = read_file(file)?;
    let module =
        HloModule::read(&bytes).map_err(|e| Failure::Input(format!("{}: {e}", file.display())))?;
    drop(bytes);
    let report = MemoryReport::new(&module)?;
    if json {
        writeln!(out, "{}", report.to_json(top))?;
    } else {
        out.write_all(report.to_table(top, terminal_width()).as_bytes())?;
    }
    Ok(())
}

/// One shape of `scan`'s output: where it is, its size and shape, and what
/// it belongs to.
fn scan_line(
    out: &mut impl Write,
    at: &str,
    shape: &Result<xla_shape::Shape, String>,
    written: &str,
    owner: &str,
) -> Result<bool, Failure> {
    match shape {
        Ok(shape) => {
            let size = match xla_shape::shape_util::byte_size_of(shape, 8) {
                Ok(n) => n.to_string(),
                Err(_) => "?".to_string(),
            };
            writeln!(out, "{at}\t{size}\t{shape}\t{owner}")?;
            Ok(true)
        }
        Err(message) => {
            writeln!(out, "{at}\terror: {message}\t{written}\t{owner}")?;
            Ok(false)
        }
    }
}

/// `xla-shape scan FILE`: every shape of a module with what it belongs to.
/// HLO text is scanned for shape strings (any text is accepted); a binary
/// module lists the result shape of every instruction.
pub fn scan(file: &Path, out: &mut impl Write) -> Result<(), Failure> {
    let bytes = read_file(file)?;
    let module = HloModule::read(&bytes);
    let text = match (std::str::from_utf8(&bytes), &module) {
        (_, Ok(m)) if matches!(m.source, ModuleSource::Proto(_)) => None,
        (Ok(text), _) => Some(text),
        (Err(_), Err(e)) => {
            return Err(Failure::Input(format!(
                "{}: neither HLO text nor a binary HLO module: {e}",
                file.display()
            )));
        }
        (Err(_), Ok(_)) => None,
    };
    let mut all_ok = true;
    match (text, module) {
        (Some(text), module) => {
            let owners = module
                .as_ref()
                .map(|m| line_owners(m, text))
                .unwrap_or_default();
            for found in xla_shape::text::shapes_in_hlo(text) {
                let at = format!("{}:{}", found.location.line, found.location.column + 1);
                let owner = owner_of(&owners, found.location.line, found.role);
                let shape = found.shape.map_err(|e| one_line(e.message()));
                all_ok &= scan_line(out, &at, &shape, found.text, &owner)?;
            }
        }
        (None, module) => {
            let module = module.map_err(|e| Failure::Input(format!("{}: {e}", file.display())))?;
            for (computation, instruction) in module.instructions() {
                let at = format!("{}/{}", computation.name, instruction.name);
                let (shape, written) = match &instruction.shape {
                    Ok(s) => (Ok(s.clone()), String::new()),
                    Err(r) => (Err(one_line(r.error.message())), r.written.clone()),
                };
                let owner = format!("result of {} in {}", instruction.name, computation.name);
                all_ok &= scan_line(out, &at, &shape, &written, &owner)?;
            }
        }
    }
    if all_ok {
        Ok(())
    } else {
        Err(Failure::Reported)
    }
}

/// What a line of module text holds: the header, a computation's
/// signature, or an instruction of a computation.
enum LineOwner<'a> {
    Header,
    Signature(&'a str),
    Instruction(&'a str, &'a str),
}

fn line_owners<'a>(module: &'a HloModule, text: &str) -> HashMap<usize, LineOwner<'a>> {
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
    owners
}

fn owner_of(owners: &HashMap<usize, LineOwner<'_>>, line: usize, role: ShapeRole) -> String {
    match (owners.get(&line), role) {
        (Some(LineOwner::Header), ShapeRole::Parameter) => {
            "parameter of entry_computation_layout".into()
        }
        (Some(LineOwner::Header), ShapeRole::ComputationResult) => {
            "result of entry_computation_layout".into()
        }
        (Some(LineOwner::Header), _) => "module header".into(),
        (Some(LineOwner::Signature(c)), ShapeRole::Parameter) => format!("parameter of {c}"),
        (Some(LineOwner::Signature(c)), ShapeRole::ComputationResult) => format!("result of {c}"),
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
