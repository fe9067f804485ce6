//! `scan`: every shape of an HLO module, text or binary, or of StableHLO
//! (text, MLIR bytecode or a `jax.export` serialization).

use std::io::{BufRead, Write};

use serde_json::json;
use xla_shape::hlo::{HloModule, ModuleSource, TextLine, TextReader};
use xla_shape::sharding::HloSharding;
use xla_shape::stablehlo::StableHloModule;
use xla_shape::text::{ShapeRole, shapes_in_hlo};
use xla_shape::{Location, Shape};

use crate::Context;
use crate::input::{self, Lines, ModuleInput, Source};
use crate::output::{Failure, Problem, printable, write_json};

/// The arguments of `scan`.
#[derive(Clone, Debug, Default, clap::Args)]
pub struct Args {
    /// The modules (standard input when absent or '-'); several are
    /// reported one after the other, a section each.
    pub input: Vec<String>,
}

/// One line per shape: `LINE:COLUMN` (both 1-based), the byte size (XLA's
/// `ByteSizeOf`, 8-byte pointers; `?` when it has none), the shape and what
/// it belongs to (`result of add.1 in main`, `parameter of
/// entry_computation_layout`; `-` in text that is not a module); or
/// `LINE:COLUMN`, `error: MESSAGE` and the text for a shape that does not
/// parse. With `json`, one object per shape.
///
/// Text is read one line at a time (each up to `--max-line` bytes; a
/// longer one is an error line and the scan goes on), lines numbered in the
/// whole input. A binary module is read whole (up to `--max-input` bytes).
pub fn run(args: &Args, cx: &mut Context<impl Write>) -> Result<(), Failure> {
    cx.each_input(&args.input, scan)
}

/// The scan of one module.
fn scan(input: Option<&str>, cx: &mut Context<impl Write>) -> Result<(), Failure> {
    let Scanned { failed, blank, .. } =
        match input::open_module(Source::module(input), cx.limits.max_input)? {
            ModuleInput::Text(reader) => scan_text(reader, cx)?,
            ModuleInput::StableHlo(module) => {
                return if scan_stablehlo(&module, cx.json, &mut cx.out)? {
                    Err(Failure::Reported)
                } else {
                    Ok(())
                };
            }
            // Read once for its errors, one instruction at a time, then
            // again for the shapes (see `scan_binary`).
            ModuleInput::Binary(bytes) => {
                match HloModule::read_streamed(&bytes, &mut |_, _| Ok(())) {
                    Ok(module) if matches!(module.source, ModuleSource::Proto(_)) => {
                        return scan_binary(&bytes, cx);
                    }
                    // Module text with a stray control character (see
                    // `HloModule::read`).
                    Ok(_) => scan_text(Box::new(&bytes[..]), cx)?,
                    // No module, but text (a log with terminal colours): its shapes,
                    // if it has any.
                    Err(e) => {
                        let text = match std::str::from_utf8(&bytes) {
                            Ok(_) => Some(scan_text(Box::new(&bytes[..]), cx)?),
                            Err(_) => None,
                        };
                        match text {
                            Some(scanned) if scanned.any || scanned.failed => scanned,
                            _ => {
                                return Err(Problem::new(
                                "Format",
                                format!(
                                    "the module is neither UTF-8 text nor a binary HLO module: {e}"
                                ),
                            )
                            .into());
                            }
                        }
                    }
                }
            }
        };
    if blank {
        return Err(input::no_input().into());
    }
    if failed {
        Err(Failure::Reported)
    } else {
        Ok(())
    }
}

/// What a line of module text holds: the header, a computation's
/// signature, or an instruction of a computation (and its sharding).
enum LineOwner<'a> {
    None,
    Header,
    Signature(&'a str),
    Instruction(&'a str, &'a str, Option<xla_shape::Result<HloSharding>>),
}

impl LineOwner<'_> {
    /// What the shape found with `role` belongs to, in words (`result of
    /// add.1 in main`), or `-`.
    fn owner(&self, role: ShapeRole) -> String {
        match (self, role) {
            (LineOwner::Header, ShapeRole::Parameter) => {
                "parameter of entry_computation_layout".into()
            }
            (LineOwner::Header, ShapeRole::ComputationResult) => {
                "result of entry_computation_layout".into()
            }
            (LineOwner::Header, _) => "module header".into(),
            (LineOwner::Signature(c), ShapeRole::Parameter) => format!("parameter of {c}"),
            (LineOwner::Signature(c), ShapeRole::ComputationResult) => format!("result of {c}"),
            (LineOwner::Signature(c), _) => format!("signature of {c}"),
            (LineOwner::Instruction(i, c, _), ShapeRole::InstructionResult) => {
                format!("result of {i} in {c}")
            }
            (LineOwner::Instruction(i, c, _), ShapeRole::Operand) => {
                format!("operand of {i} in {c}")
            }
            (LineOwner::Instruction(i, c, _), _) => format!("in {i} in {c}"),
            (LineOwner::None, _) => "-".into(),
        }
    }

    /// The sharding of the instruction whose result `role` is.
    fn sharding(&self, role: ShapeRole) -> Option<&xla_shape::Result<HloSharding>> {
        match (self, role) {
            (LineOwner::Instruction(_, _, s), ShapeRole::InstructionResult) => s.as_ref(),
            _ => None,
        }
    }
}

/// What a scan of text found.
struct Scanned {
    /// Whether it found a shape.
    any: bool,
    /// Whether a line failed.
    failed: bool,
    /// Whether the text was only white space.
    blank: bool,
}

/// Scans text line by line.
fn scan_text(
    reader: Box<dyn BufRead + '_>,
    cx: &mut Context<impl Write>,
) -> Result<Scanned, Failure> {
    let json = cx.json;
    let out = &mut cx.out;
    let mut lines = Lines::of(reader, cx.limits.max_line);
    let mut module = TextReader::new();
    let mut computation = String::new();
    let mut failed = false;
    let mut any = false;
    let mut blank = true;
    while let Some((number, start, text)) = input::next_text(&mut lines, &mut module, &mut blank)? {
        let text = match text {
            Ok(text) => text,
            Err(problem) => {
                failed = true;
                if json {
                    let p = problem.on_line(number);
                    write_json(out, &json!({"line": number, "error": p.to_json()}))?;
                } else {
                    writeln!(out, "{number}:1\terror: {}\t\t-", problem.one_line())?;
                }
                continue;
            }
        };
        // Module text names the owner of each shape; other text is scanned
        // too, its owners `-`.
        let owner = match module.line(text, start) {
            Ok(TextLine::Header { .. }) => LineOwner::Header,
            Ok(TextLine::Computation { name, .. }) => {
                name.clone_into(&mut computation);
                LineOwner::Signature(&computation)
            }
            Ok(TextLine::Instruction(i)) => {
                LineOwner::Instruction(i.name, &computation, i.sharding())
            }
            _ => LineOwner::None,
        };
        for found in shapes_in_hlo(text).from_line(number) {
            any = true;
            let (line, column) = (found.location.line, found.location.one_based_column());
            let place = Place {
                text: format!("{line}:{column}"),
                json: json!({
                    "line": line, "column": column, "role": found.role.as_str(), "text": found.text,
                }),
            };
            let shape = found.shape.as_ref().map_err(|e| (e, found.text));
            let owner_text = owner.owner(found.role);
            let sharding = owner.sharding(found.role);
            failed |= write_shape(out, json, place, shape, &owner_text, sharding)?;
        }
    }
    Ok(Scanned { any, failed, blank })
}

/// `scan` of a binary module: the result shape of every instruction,
/// `COMPUTATION/INSTRUCTION`, byte size, shape and owner. The instructions
/// are read one at a time (`HloModule::read_streamed`): the view of the
/// whole module held hundreds of bytes per instruction, which can take two
/// bytes of input.
fn scan_binary(bytes: &[u8], cx: &mut Context<impl Write>) -> Result<(), Failure> {
    let (json, out) = (cx.json, &mut cx.out);
    let mut failed = false;
    let mut written = Ok(());
    HloModule::read_streamed(bytes, &mut |c, i| {
        if written.is_err() {
            return Ok(());
        }
        let place = Place {
            text: format!("{c}/{}", i.name),
            json: json!({"computation": c, "instruction": i.name}),
        };
        let shape = i.shape.as_ref().map_err(|r| (&r.error, r.written.as_str()));
        let owner = format!("result of {} in {c}", i.name);
        let sharding = i.sharding.as_ref();
        written = write_shape(&mut *out, json, place, shape, &owner, sharding).map(|f| failed |= f);
        Ok(())
    })?;
    written?;
    if failed {
        Err(Failure::Reported)
    } else {
        Ok(())
    }
}

/// Where a shape was found: as the text output writes it, and the JSON
/// object's keys that say it.
struct Place {
    text: String,
    json: serde_json::Value,
}

/// Writes one shape that `scan` found: its place, byte size (XLA's
/// `ByteSizeOf`, 8-byte pointers; `?` when it has none), shape and owner;
/// or, for a shape that does not read, `error: MESSAGE` and its text. The
/// result of an instruction with a sharding has it last
/// (`sharding={...}`, or `sharding error: MESSAGE`). Returns whether the
/// shape or the sharding failed.
fn write_shape(
    out: &mut impl Write,
    json: bool,
    place: Place,
    shape: Result<&Shape, (&xla_shape::Error, &str)>,
    owner: &str,
    sharding: Option<&xla_shape::Result<HloSharding>>,
) -> Result<bool, Failure> {
    let Place {
        text: at,
        json: mut fields,
    } = place;
    // Names and shapes as written come from the input: printable on a
    // line of their own.
    let (at, text_owner) = (printable(&at), printable(owner));
    let sharding_column = match sharding {
        None => String::new(),
        Some(Ok(s)) => format!("\tsharding={}", printable(&s.to_string())),
        Some(Err(e)) => format!("\tsharding error: {}", Problem::from(e).one_line()),
    };
    if json {
        match sharding {
            Some(Ok(s)) => fields["sharding"] = json!(s.to_string()),
            Some(Err(e)) => fields["sharding_error"] = Problem::from(e).to_json(),
            None => {}
        }
    }
    match (shape, json) {
        (Ok(shape), false) => {
            let owner = text_owner;
            let size = xla_shape::shape_util::byte_size_of(shape, 8)
                .ok()
                .map_or("?".to_string(), |n| n.to_string());
            writeln!(out, "{at}\t{size}\t{shape}\t{owner}{sharding_column}")?;
        }
        (Ok(shape), true) => {
            fields["shape"] = json!(shape.to_string());
            fields["byte_size"] = json!(xla_shape::shape_util::byte_size_of(shape, 8).ok());
            fields["owner"] = json!(owner);
            write_json(out, &fields)?;
        }
        (Err((e, text)), false) => {
            let message = Problem::from(e).one_line();
            let (text, owner) = (printable(text), text_owner);
            writeln!(
                out,
                "{at}\terror: {message}\t{text}\t{owner}{sharding_column}"
            )?;
        }
        (Err((e, text)), true) => {
            fields["text"] = json!(text);
            fields["error"] = Problem::from(e).to_json();
            fields["owner"] = json!(owner);
            write_json(out, &fields)?;
        }
    }
    Ok(shape.is_err() || matches!(sharding, Some(Err(_))))
}

/// `scan` of StableHLO: one line per function argument, function result
/// and operation result: `LINE:COLUMN` (1-based; `@OFFSET` in bytecode,
/// which has no lines), the byte size (`?` without one), the XLA shape and
/// what it belongs to; a type XLA has no shape for is `error: MESSAGE` and
/// the type. With `json`, one object each (`line` and `column`, or
/// `offset`). Whether a type had no shape.
fn scan_stablehlo(
    module: &StableHloModule,
    json: bool,
    out: &mut impl Write,
) -> Result<bool, Failure> {
    let mut failed = false;
    let mut write = |at: Location,
                     ty: &xla_shape::stablehlo::Type,
                     owner: String,
                     name: Option<String>,
                     out: &mut dyn Write|
     -> Result<(), Failure> {
        // Bytecode has no lines (line 0): its places are byte offsets.
        let (line, column) = (at.line, at.one_based_column());
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
                let which = if op.result_types.len() > 1 {
                    format!(" #{i}")
                } else {
                    String::new()
                };
                let owner = format!("result{which} of {} {} in {function}", op.results, op.name);
                write(op.location, ty, owner, name.clone(), out)?;
            }
        }
    }
    Ok(failed)
}
