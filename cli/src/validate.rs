//! `validate`: whether a shape (or layout) is one XLA accepts.

use std::io::Write;

use serde_json::json;

use crate::convert::{Format, Value, read_value};
use crate::input::{self, Limits};
use crate::output::{Failure, write_json};

/// Prints `ok` (or `{"valid": true, ...}`), or fails with XLA's error.
pub fn run(
    input: Option<&str>,
    from: Option<Format>,
    json: bool,
    limits: &Limits,
    out: &mut impl Write,
) -> Result<(), Failure> {
    let bytes = input::read_all(input, limits.max_input)?;
    let value = read_value(&bytes, from, false)?;
    if json {
        let doc = match &value {
            Value::Shape(read) => json!({"valid": true, "shape": read.shape.to_string()}),
            Value::Layout(layout) => json!({"valid": true, "layout": layout.to_string()}),
        };
        write_json(out, &doc)?;
    } else {
        writeln!(out, "ok")?;
    }
    Ok(())
}
