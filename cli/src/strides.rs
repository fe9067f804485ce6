//! `strides`: element and byte strides of an array's layout.

use std::io::Write;

use serde_json::json;

use crate::convert::{Format, read_array};
use crate::describe::list;
use crate::input::{self, Limits};
use crate::output::{Failure, Problem, one_line, write_json};

/// Prints the strides, or fails with the reason the layout has none.
/// Sub-byte elements have element strides but no byte strides: that is
/// said, not a failure.
pub fn run(
    input: Option<&str>,
    from: Option<Format>,
    json: bool,
    limits: &Limits,
    out: &mut impl Write,
) -> Result<(), Failure> {
    let array = read_array(&input::read_all(input, limits.max_input)?, from)?;
    let element = xla_shape::strides::element_strides(&array)?;
    let bytes = xla_shape::strides::byte_strides(&array);
    if json {
        let (byte_strides, error) = match &bytes {
            Ok(b) => (json!(b), json!(null)),
            Err(e) => (json!(null), Problem::from(e).to_json()),
        };
        let doc = json!({
            "shape": xla_shape::Shape::Array(array.clone()).to_string(),
            "element_strides": element,
            "byte_strides": byte_strides,
            "byte_strides_error": error,
        });
        write_json(out, &doc)?;
        return Ok(());
    }
    writeln!(out, "element strides: {}", list(&element))?;
    match bytes {
        Ok(bytes) => writeln!(out, "byte strides:    {}", list(&bytes))?,
        Err(e) => writeln!(out, "byte strides:    none: {}", one_line(e.message()))?,
    }
    Ok(())
}
