//! `index`: element offsets in a tiled layout, and back.

use std::io::Write;

use serde_json::json;
use xla_shape::tiling::{Slot, TiledLayout};

use crate::convert::{Format, read_array};
use crate::describe::comma_list;
use crate::input::{self, Limits, Line, Lines, Source};
use crate::output::{Failure, Problem, write_record};

/// Answers each line of standard input, one output line each: the offset
/// of the index `i,j,k`, or with `offsets` the index (or `padding`) at the
/// offset.
pub fn run(
    shape: &str,
    from: Option<Format>,
    offsets: bool,
    json: bool,
    limits: &Limits,
    out: &mut impl Write,
) -> Result<(), Failure> {
    if Source::of(Some(shape)) == Source::Stdin {
        return Err(Failure::Usage(
            "index reads the indices from standard input: give SHAPE as an argument or @FILE"
                .into(),
        ));
    }
    let array = read_array(&input::read_all(Some(shape), limits.max_input)?, from)?;
    let tiled = TiledLayout::new(&array)?;
    let mut lines = Lines::new(Source::Stdin, limits.max_line)?;
    let mut failed = false;
    while let Some((number, line)) = lines.next_line()? {
        let answer = match line {
            Line::TooLong(n) => Err(input::too_long(n, limits.max_line)),
            Line::Text(bytes) => input::line_text(bytes).and_then(|text| {
                if offsets {
                    slot(&tiled, text)
                } else {
                    offset(&tiled, text)
                }
            }),
        };
        failed |= write_record(out, json, number, answer)?;
    }
    if failed {
        Err(Failure::Reported)
    } else {
        Ok(())
    }
}

fn offset(tiled: &TiledLayout, text: &str) -> Result<(String, serde_json::Value), Problem> {
    let index = input::parse_index(text)?;
    let offset = tiled.offset(&index)?;
    Ok((
        offset.to_string(),
        json!({"index": index, "offset": offset, "padding": false}),
    ))
}

fn slot(tiled: &TiledLayout, text: &str) -> Result<(String, serde_json::Value), Problem> {
    let offset = input::parse_offset(text)?;
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
