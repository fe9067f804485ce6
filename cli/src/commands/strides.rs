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
    /// Element strides, one per dimension (`3,1`): the array takes the
    /// layout they describe.
    #[arg(
        long,
        value_name = "S0,S1,...",
        value_delimiter = ',',
        allow_negative_numbers = true,
        conflicts_with = "byte_strides"
    )]
    pub element_strides: Option<Vec<i64>>,
    /// Byte strides, one per dimension, as NumPy's `a.strides` (`12,4`):
    /// the array takes the layout they describe
    /// (read in units of the element type's bytes).
    #[arg(
        long,
        value_name = "B0,B1,...",
        value_delimiter = ',',
        allow_negative_numbers = true
    )]
    pub byte_strides: Option<Vec<i64>>,
}

/// Prints the strides, or fails with the reason the layout has none.
/// Sub-byte elements have element strides but no byte strides: that is
/// said, not a failure. With `--element-strides` or `--byte-strides`, the
/// way back: the array takes the layout the strides describe, printed
/// first (`shape: f32[2,3]{0,1}`), or the reason no layout has them.
pub fn run(args: &Args, cx: &mut Context<impl Write>) -> Result<(), Failure> {
    let mut array = cx.read_array(args.input.as_deref(), args.from)?;
    let given = match (&args.element_strides, &args.byte_strides) {
        (Some(s), _) => Some(xla_shape::strides::layout_from_strides(
            array.dimensions(),
            s,
        )?),
        (None, Some(b)) => Some(xla_shape::strides::layout_from_byte_strides(
            array.element_type(),
            array.dimensions(),
            b,
        )?),
        (None, None) => None,
    };
    if let Some(layout) = given {
        array = array.with_layout(Some(layout))?;
    }
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
    if args.element_strides.is_some() || args.byte_strides.is_some() {
        writeln!(
            cx.out,
            "shape:           {}",
            xla_shape::Shape::Array(array.clone())
        )?;
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
