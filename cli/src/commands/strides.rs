//! `strides`: element and byte strides of an array's layout.

use std::io::Write;

use serde_json::json;

use crate::Context;
use crate::input::Format;
use crate::output::{Failure, Problem, list};

/// The arguments of `strides`.
#[derive(Clone, Debug, Default, clap::Args)]
pub struct Args {
    /// An array shape (standard input when absent or '-').
    pub input: Option<String>,
    /// The input format (detected when absent).
    #[arg(long, value_enum)]
    pub from: Option<Format>,
}

/// Prints the strides, or fails with the reason the layout has none.
/// Sub-byte elements have element strides but no byte strides: that is
/// said, not a failure.
pub fn run(args: &Args, cx: &mut Context<impl Write>) -> Result<(), Failure> {
    let array = cx.read_array(args.input.as_deref(), args.from)?;
    let element = xla_shape::strides::element_strides(&array)?;
    let bytes = xla_shape::strides::byte_strides(&array);
    if cx.json {
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
        cx.write_json(&doc)?;
        return Ok(());
    }
    writeln!(cx.out, "element strides: {}", list(&element))?;
    match bytes {
        Ok(bytes) => writeln!(cx.out, "byte strides:    {}", list(&bytes))?,
        Err(e) => writeln!(
            cx.out,
            "byte strides:    none: {}",
            Problem::from(&e).one_line()
        )?,
    }
    Ok(())
}
