//! `scan`: every shape in the text of an HLO module.

use std::io::Write;

use serde_json::json;
use xla_shape::text::{ShapeRole, shapes_in_hlo};

use crate::input::{self, Limits};
use crate::output::{Failure, Problem, one_line, write_json};

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
/// `ByteSizeOf`, 8-byte pointers; `?` when it has none), the shape; or
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
    let text = std::str::from_utf8(&bytes)
        .map_err(|e| Problem::new("Format", format!("the module is not UTF-8 text: {e}")))?;
    let mut failed = false;
    for found in shapes_in_hlo(text) {
        let (line, column) = (found.location.line, found.location.column + 1);
        match (&found.shape, json) {
            (Ok(shape), _) => {
                let size = xla_shape::shape_util::byte_size_of(shape, 8).ok();
                if json {
                    write_json(
                        out,
                        &json!({
                            "line": line, "column": column, "role": role(found.role),
                            "text": found.text, "shape": shape.to_string(), "byte_size": size,
                        }),
                    )?;
                } else {
                    let size = size.map_or("?".to_string(), |n| n.to_string());
                    writeln!(out, "{line}:{column}\t{size}\t{shape}")?;
                }
            }
            (Err(e), false) => {
                failed = true;
                writeln!(
                    out,
                    "{line}:{column}\terror: {}\t{}",
                    one_line(e.message()),
                    found.text
                )?;
            }
            (Err(e), true) => {
                failed = true;
                write_json(
                    out,
                    &json!({
                        "line": line, "column": column, "role": role(found.role),
                        "text": found.text, "error": Problem::from(e).to_json(),
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
