//! `scan`: every shape of an HLO module, text or binary.

use std::io::Write;

use serde_json::json;
use xla_shape::text::{ShapeRole, shapes_in_hlo};

use xla_shape::hlo::HloModule;

use crate::input::{self, Limits, Source};
use crate::output::{Failure, Problem, write_json};
use crate::report::{self, Owners};

fn role(role: ShapeRole) -> &'static str {
    match role {
        ShapeRole::InstructionResult => "instruction_result",
        ShapeRole::Operand => "operand",
        ShapeRole::Parameter => "parameter",
        ShapeRole::ComputationResult => "computation_result",
        _ => "other",
    }
}

/// One line per shape: `LINE:COLUMN` (both 1-based), the byte size (XLA's
/// `ByteSizeOf`, 8-byte pointers; `?` when it has none), the shape and what
/// it belongs to (`result of add.1 in main`, `parameter of
/// entry_computation_layout`; `-` in text that is not a module); or
/// `LINE:COLUMN`, `error: MESSAGE` and the text for a shape that does not
/// parse. With `json`, one object per shape.
///
/// The module is read whole (up to `--max-input` bytes): the parse errors
/// give XLA's line and column in the whole module, which only a scan of the
/// whole text knows.
pub fn run(
    input: Option<&str>,
    json: bool,
    limits: &Limits,
    out: &mut impl Write,
) -> Result<(), Failure> {
    let bytes = input::read_all(input, limits.max_input)?;
    match report::binary_module(&bytes) {
        Some(Ok(module)) => return report::scan_binary(&module, json, out),
        Some(Err(e)) => {
            return Err(Problem::new(
                "Format",
                format!(
                    "the module is neither UTF-8 text nor a binary HLO module: {}",
                    e.message()
                ),
            )
            .into());
        }
        None => {}
    }
    let text = std::str::from_utf8(&bytes)
        .map_err(|e| Problem::new("Format", format!("the module is not UTF-8 text: {e}")))?;
    // Module text names the owner of each shape; other text is scanned too.
    let module = HloModule::from_text(text).ok();
    let owners = module.as_ref().map(|m| Owners::of(m, text));
    let owner = |line, role| owners.as_ref().map_or("-".into(), |o| o.owner(line, role));
    let mut failed = false;
    let mut any = false;
    for found in shapes_in_hlo(text) {
        any = true;
        let (line, column) = (found.location.line, found.location.column + 1);
        let owner = owner(line, found.role);
        match (&found.shape, json) {
            (Ok(shape), _) => {
                let size = xla_shape::shape_util::byte_size_of(shape, 8).ok();
                if json {
                    write_json(
                        out,
                        &json!({
                            "line": line, "column": column, "role": role(found.role),
                            "text": found.text, "shape": shape.to_string(), "byte_size": size,
                            "owner": owner,
                        }),
                    )?;
                } else {
                    let size = size.map_or("?".to_string(), |n| n.to_string());
                    writeln!(out, "{line}:{column}\t{size}\t{shape}\t{owner}")?;
                }
            }
            (Err(e), false) => {
                failed = true;
                writeln!(
                    out,
                    "{line}:{column}\terror: {}\t{}\t{owner}",
                    Problem::from(e).one_line(),
                    found.text
                )?;
            }
            (Err(e), true) => {
                failed = true;
                write_json(
                    out,
                    &json!({
                        "line": line, "column": column, "role": role(found.role),
                        "text": found.text, "error": Problem::from(e).to_json(), "owner": owner,
                    }),
                )?;
            }
        }
    }
    // `scan module.txt` reads the words `module.txt`: say how to read the file.
    if let (false, Some(arg)) = (any, input)
        && Source::of(Some(arg)) == Source::Literal(arg)
        && std::path::Path::new(arg).is_file()
    {
        return Err(Failure::Usage(format!(
            "{arg:?} is read as HLO text and holds no shape; to read the file, write @{arg}"
        )));
    }
    if failed {
        Err(Failure::Reported)
    } else {
        Ok(())
    }
}
