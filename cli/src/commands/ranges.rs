//! `ranges`: the byte ranges of an array's buffer that hold a box of it.

use std::io::Write;

use serde_json::json;
use xla_shape::tiling::TiledLayout;

use crate::Context;
use crate::input::Format;
use crate::output::{Failure, Problem, list};

/// The arguments of `ranges`.
#[derive(Clone, Debug, clap::Args)]
pub struct Args {
    /// An array shape with its layout (standard input when absent or '-').
    pub input: Option<String>,
    /// The input format (detected when absent).
    #[arg(long, value_enum)]
    pub from: Option<Format>,
    /// The first index of the box, one per dimension (default: zeros).
    #[arg(
        long,
        value_name = "I0,I1,...",
        value_delimiter = ',',
        allow_negative_numbers = true
    )]
    pub start: Option<Vec<i64>>,
    /// One past the last index of the box (default: the dimensions).
    #[arg(
        long,
        value_name = "L0,L1,...",
        value_delimiter = ',',
        allow_negative_numbers = true
    )]
    pub limit: Option<Vec<i64>>,
    /// Rows START..STOP of the layout's most major dimension, every index
    /// of the others (instead of --start and --limit).
    #[arg(long, value_name = "START..STOP", conflicts_with_all = ["start", "limit"])]
    pub rows: Option<String>,
    /// The most ranges printed; more is an error.
    #[arg(long, value_name = "N", default_value_t = 1 << 20)]
    pub max: usize,
}

fn parse_rows(text: &str) -> Result<(i64, i64), Problem> {
    let bad = || {
        Problem::new(
            "InvalidArgument",
            format!("--rows takes START..STOP, not {text:?}"),
        )
    };
    let (a, b) = text.split_once("..").ok_or_else(bad)?;
    Ok((
        a.trim().parse().map_err(|_| bad())?,
        b.trim().parse().map_err(|_| bad())?,
    ))
}

/// Prints the buffer's sizes, the row-addressable dimensions and the byte
/// ranges `START..STOP` of the box, one per line.
pub fn run(args: &Args, cx: &mut Context<impl Write>) -> Result<(), Failure> {
    let array = cx.read_array(args.input.as_deref(), args.from)?;
    let tiled = TiledLayout::new(&array)?;
    let dims = tiled.dimensions().to_vec();
    let (start, limit) = match &args.rows {
        Some(rows) => {
            let (a, b) = parse_rows(rows)?;
            let major = array
                .layout()
                .and_then(|l| l.minor_to_major().last())
                .map(|&d| d as usize)
                .ok_or_else(|| {
                    Problem::new(
                        "InvalidArgument",
                        format!("{array} has no dimension to take rows of"),
                    )
                })?;
            let (mut s, mut l) = (vec![0; dims.len()], dims.clone());
            (s[major], l[major]) = (a, b);
            (s, l)
        }
        None => (
            args.start.clone().unwrap_or_else(|| vec![0; dims.len()]),
            args.limit.clone().unwrap_or_else(|| dims.clone()),
        ),
    };
    let ranges = tiled.byte_ranges(&start, &limit, args.max)?;
    let addressable = (0..dims.len())
        .map(|d| tiled.is_row_addressable(d))
        .collect::<Result<Vec<bool>, _>>()?;
    let shape = xla_shape::Shape::Array(array.clone()).to_string();
    if cx.json {
        let doc = json!({
            "shape": shape,
            "byte_size": tiled.byte_size(),
            "unpadded_byte_size": tiled.unpadded_byte_size(),
            "row_addressable": addressable,
            "start": start,
            "limit": limit,
            "ranges": ranges.iter().map(|r| [r.start, r.end]).collect::<Vec<_>>(),
        });
        cx.write_json(&doc)?;
        return Ok(());
    }
    let rows: Vec<i64> = (0..dims.len() as i64)
        .filter(|&d| addressable[d as usize])
        .collect();
    writeln!(cx.out, "shape:           {shape}")?;
    writeln!(
        cx.out,
        "byte size:       {} ({} without padding)",
        tiled.byte_size(),
        tiled.unpadded_byte_size()
    )?;
    writeln!(cx.out, "row-addressable: {}", list(&rows))?;
    writeln!(
        cx.out,
        "box:             {}..{}",
        list(&start),
        list(&limit)
    )?;
    writeln!(cx.out, "byte ranges:     {}", ranges.len())?;
    for r in &ranges {
        writeln!(cx.out, "{}..{}", r.start, r.end)?;
    }
    Ok(())
}
