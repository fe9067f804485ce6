//! `validate`: whether a shape (or layout) is one XLA accepts.

use std::io::Write;

use serde_json::json;

use crate::Context;
use crate::input::{Format, Value};
use crate::output::Failure;

/// The arguments of `validate`.
#[derive(Clone, Debug, Default, clap::Args)]
pub struct Args {
    /// The input (standard input when absent or '-').
    pub input: Option<String>,
    /// The input format (detected when absent).
    #[arg(long, value_enum)]
    pub from: Option<Format>,
}

/// Prints `ok` (or `{"valid": true, ...}`), or fails with XLA's error.
pub fn run(args: &Args, cx: &mut Context<impl Write>) -> Result<(), Failure> {
    let value = cx.read_value(args.input.as_deref(), args.from)?;
    if cx.json {
        let doc = match &value {
            Value::Shape(shape) => json!({"valid": true, "shape": shape.to_string()}),
            Value::Layout(layout) => json!({"valid": true, "layout": layout.to_string()}),
        };
        cx.write_json(&doc)?;
    } else {
        writeln!(cx.out, "ok")?;
    }
    Ok(())
}
