//! `index`: element offsets in a tiled layout, and back.

use std::io::Write;

use serde_json::json;
use xla_shape::tiling::{Slot, TiledLayout};

use crate::Context;
use crate::input::{self, Format, Line, Source};
use crate::output::{Failure, Problem, comma_list};

/// The arguments of `index`.
#[derive(Clone, Debug, clap::Args)]
pub struct Args {
    /// An array shape with its layout, in any format (an argument or
    /// @FILE: standard input holds the indices).
    pub shape: String,
    /// The format of SHAPE (detected when absent).
    #[arg(long, value_enum)]
    pub from: Option<Format>,
    /// Read offsets instead and print indices (or `padding`).
    #[arg(long)]
    pub offset: bool,
}

/// Answers each line of standard input, one output line each: the offset
/// of the index `i,j,k`, or with `--offset` the index (or `padding`) at the
/// offset.
pub fn run(args: &Args, cx: &mut Context<impl Write>) -> Result<(), Failure> {
    if Source::of(Some(&args.shape)) == Source::Stdin {
        return Err(Failure::Usage(
            "index reads the indices from standard input: give SHAPE as an argument or @FILE"
                .into(),
        ));
    }
    let array = cx.read_array(Some(&args.shape), args.from)?;
    let tiled = TiledLayout::new(&array)?;
    let mut lines = cx.lines(Source::Stdin)?;
    let mut failed = false;
    while let Some((number, line)) = lines.next_line()? {
        let answer = match line {
            Line::TooLong(n) => Err(input::too_long(n, cx.limits.max_line)),
            Line::Text(bytes) => input::line_text(bytes).and_then(|text| {
                if args.offset {
                    slot(&tiled, text)
                } else {
                    offset(&tiled, text)
                }
            }),
        };
        failed |= cx.write_record(number, answer)?;
    }
    if failed {
        Err(Failure::Reported)
    } else {
        Ok(())
    }
}

fn offset(tiled: &TiledLayout, text: &str) -> Result<(String, serde_json::Value), Problem> {
    let index = parse_index(text)?;
    let offset = tiled.offset(&index)?;
    Ok((
        offset.to_string(),
        json!({"index": index, "offset": offset, "padding": false}),
    ))
}

fn slot(tiled: &TiledLayout, text: &str) -> Result<(String, serde_json::Value), Problem> {
    let offset = parse_offset(text)?;
    Ok(match tiled.slot(offset)? {
        Slot::Element(index) => (
            comma_list(&index),
            json!({"index": index, "offset": offset, "padding": false}),
        ),
        Slot::Padding => (
            "padding".to_string(),
            json!({"index": null, "offset": offset, "padding": true}),
        ),
    })
}

/// An element index written `i,j,k` (spaces allowed; an empty line is the
/// index of a scalar).
fn parse_index(line: &str) -> Result<Vec<i64>, Problem> {
    let line = line.trim();
    if line.is_empty() {
        return Ok(Vec::new());
    }
    line.split(',')
        .map(|part| {
            let part = part.trim();
            part.parse::<i64>().map_err(|_| {
                Problem::new(
                    "InvalidArgument",
                    format!("not an index: {part:?} in {line:?}"),
                )
            })
        })
        .collect()
}

/// An element offset.
fn parse_offset(line: &str) -> Result<i64, Problem> {
    let line = line.trim();
    line.parse::<i64>()
        .map_err(|_| Problem::new("InvalidArgument", format!("not an offset: {line:?}")))
}
