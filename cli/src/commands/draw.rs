//! `draw`: an SVG picture of an array's memory layout, as the figures of
//! XLA's tiled-layout document (`docs/tiled_layout.md`) draw one: the
//! logical index grid, each element labelled with its offset in memory
//! (every tile applied, as `TiledLayout` computes it), the first tile's
//! boundaries outlined (dashed where the drawing stops), padding cells shown as padding.

use std::fmt::Write as _;
use std::io::Write;

use xla_shape::tiling::TiledLayout;
use xla_shape::{ArrayShape, Shape, Tile};

mod sharding;

use crate::Context;
use crate::input::{Format, read_sharding};
use crate::output::{Failure, Problem, comma_list, escape, svg_start};

/// The arguments of `draw`: what to draw, and how much of it.
#[derive(Clone, Debug, clap::Args)]
pub struct Args {
    /// An array shape with its layout (standard input when absent or '-').
    pub input: Option<String>,
    /// The input format (detected when absent).
    #[arg(long, value_enum)]
    pub from: Option<Format>,
    /// For rank 3 and up, the 2-D slice drawn: ':' for the two drawn
    /// dimensions, an index for each other one (default: the last two
    /// dimensions at index 0, such as 0,:,:).
    #[arg(long)]
    pub slice: Option<String>,
    /// The most rows drawn (whole tiles where they fit).
    #[arg(long, default_value_t = 16)]
    pub max_rows: i64,
    /// The most columns drawn (whole tiles where they fit).
    #[arg(long, default_value_t = 16)]
    pub max_cols: i64,
    /// Draw a 1-D array N elements a row, as a linearised array is
    /// pictured (up to --max-rows rows).
    #[arg(long, value_name = "N")]
    pub wrap: Option<i64>,
    /// Draw how this sharding splits the array instead: each device's
    /// block coloured and labelled. XLA's text (`{devices=[2,1]0,1}`), an
    /// `mhlo.sharding` value, OpSharding bytes as hex, or a Shardy
    /// sharding after its mesh line (or @FILE).
    #[arg(long, value_name = "SHARDING")]
    pub sharding: Option<String>,
}

/// One drawn dimension.
struct Axis {
    /// The logical dimension.
    dim: usize,
    /// Its size (the bound of a dynamic one).
    size: i64,
    /// The first tile's bound along it, if the tile covers it.
    tile: Option<i64>,
    /// The size padded to whole tiles.
    padded: i64,
    /// How many rows or columns are drawn.
    shown: i64,
}

fn ceil_div(a: i64, b: i64) -> i64 {
    a / b + i64::from(a % b != 0)
}

fn invalid(message: String) -> Problem {
    Problem::new("InvalidArgument", message)
}

/// The slice: `None` for a drawn dimension, the index of the others.
fn parse_slice(text: Option<&str>, dims: &[i64]) -> Result<Vec<Option<i64>>, Problem> {
    let rank = dims.len();
    let Some(text) = text else {
        let drawn = rank.min(2);
        return Ok((0..rank)
            .map(|d| if d + drawn >= rank { None } else { Some(0) })
            .collect());
    };
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    if parts.len() != rank {
        return Err(invalid(format!(
            "--slice {text} has {} entries; the array has rank {rank}",
            parts.len()
        )));
    }
    let slice = parts
        .iter()
        .zip(dims)
        .enumerate()
        .map(|(d, (&part, &size))| {
            if part == ":" {
                return Ok(None);
            }
            match part.parse::<i64>() {
                Ok(i) if (0..size).contains(&i) => Ok(Some(i)),
                _ => Err(invalid(format!(
                    "--slice {text}: {part:?} is not ':' nor an index of dimension {d} (size {size})"
                ))),
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    let drawn = slice.iter().filter(|s| s.is_none()).count();
    if rank > 0 && !(1..=2).contains(&drawn) {
        return Err(invalid(format!(
            "--slice {text} draws {drawn} dimensions: mark one or two with ':'"
        )));
    }
    Ok(slice)
}

/// The first tile's bound along logical dimension `dim`: tiles apply to
/// the most minor dimensions (XLA's tiled-layout document). `None` when
/// the tile does not reach `dim` or combines dimensions (`*`), which the
/// grid of one dimension cannot outline.
fn tile_bound(array: &ArrayShape, dim: usize) -> Option<i64> {
    let layout = array.layout()?;
    let tile = layout.tiles().first()?;
    let bounds = tile.dimensions();
    if bounds.contains(&Tile::COMBINE_DIMENSION) {
        return None;
    }
    let rank = array.rank();
    let minor_position = layout
        .minor_to_major()
        .iter()
        .position(|&d| d == dim as i64)?;
    // Physical position from the most major (0) to the most minor.
    let physical = rank - 1 - minor_position;
    let j = (physical + bounds.len()).checked_sub(rank)?;
    bounds.get(j).copied().filter(|&b| b > 0)
}

fn axis(array: &ArrayShape, dims: &[i64], dim: usize, max: i64) -> Axis {
    let size = dims[dim];
    let tile = tile_bound(array, dim);
    let padded = match tile {
        Some(b) => ceil_div(size, b).checked_mul(b).unwrap_or(i64::MAX),
        None => size,
    };
    let shown = match tile {
        Some(b) if b <= max => padded.min(max / b * b),
        _ => padded.min(max),
    };
    Axis {
        dim,
        size,
        tile,
        padded,
        shown,
    }
}

/// The most rows or columns `--max-rows` and `--max-cols` allow.
pub const MAX_DRAWN: i64 = 1024;

/// The most bytes of `data-index` labels in one picture. Each cell's label
/// is its whole index, as long as the shape's rank: a rank-1,200,002
/// shape (2.4 MB of text) drew 256 labels of 2.4 MB each and ran out of
/// memory; rank 120,000 wrote 64 MB.
const INDEX_LABEL_BYTES: i64 = 16 << 20;

/// The most rows and columns drawn: `max_rows` and `max_cols`, fewer when
/// that many cells' index labels would pass `INDEX_LABEL_BYTES` (at least
/// one cell is drawn).
fn cells_allowed(dims: &[i64], max_rows: i64, max_cols: i64) -> (i64, i64) {
    // The longest label: every index's digits and a comma.
    let label = dims.iter().fold(0i64, |n, &d| {
        let digits = d.saturating_sub(1).max(1).checked_ilog10().unwrap_or(0) as i64 + 1;
        n.saturating_add(digits + 1)
    });
    let cells = (INDEX_LABEL_BYTES / label.max(1)).max(1);
    let cols = max_cols.min(cells);
    let rows = max_rows.min((cells / cols).max(1));
    (rows, cols)
}

const CELL_HEIGHT: i64 = 28;
const LEFT: i64 = 70;
const TOP: i64 = 110;

/// One cell of the picture.
enum Cell {
    /// An element: its index (`i,j`), offset, and the number of its tile
    /// (for the fill colour).
    Element { at: String, offset: i64, tile: i64 },
    /// A padding slot of a whole tile, at an index past the array's bounds.
    Padding { at: String },
    /// Nothing (past the last tile of a wrapped 1-D array).
    Empty,
}

/// A tile's outline in grid units; a cut side is where the drawing stops.
struct Outline {
    row: i64,
    col: i64,
    rows: i64,
    cols: i64,
    cut_right: bool,
    cut_bottom: bool,
}

/// What the picture shows, before it is drawn.
struct Grid {
    rows: i64,
    cols: i64,
    /// Row by row.
    cells: Vec<Cell>,
    row_labels: Vec<String>,
    col_labels: Vec<String>,
    row_axis: Option<String>,
    col_axis: Option<String>,
    outlines: Vec<Outline>,
    summary: String,
}

/// `{drawn} of {total} tiles[ (cut at the edge)][, N more not drawn]`.
fn tile_count(drawn: i64, total: i64, cut: bool) -> String {
    let mut s = format!("{drawn} of {total} tiles");
    if cut {
        s.push_str(" (cut at the edge)");
    }
    let more = total.saturating_sub(drawn);
    if more > 0 {
        let _ = write!(s, ", {more} more not drawn");
    }
    s
}

/// The grid of a 1-D or 2-D array, or of a 2-D slice.
fn grid(array: &ArrayShape, tiled: &TiledLayout, options: &Args) -> Result<Grid, Problem> {
    let dims = tiled.dimensions().to_vec();
    let slice = parse_slice(options.slice.as_deref(), &dims)?;
    let drawn: Vec<usize> = (0..dims.len()).filter(|&d| slice[d].is_none()).collect();
    let (max_rows, max_cols) = cells_allowed(&dims, options.max_rows, options.max_cols);
    let (rows, cols) = match drawn[..] {
        [] => (None, None),
        [c] => (None, Some(axis(array, &dims, c, max_cols))),
        [r, c] => (
            Some(axis(array, &dims, r, max_rows)),
            Some(axis(array, &dims, c, max_cols)),
        ),
        _ => unreachable!("parse_slice allows at most two drawn dimensions"),
    };
    let shown_rows = rows.as_ref().map_or(1, |a| a.shown);
    let shown_cols = cols.as_ref().map_or(1, |a| a.shown);
    let tile_of = |a: &Option<Axis>, i: i64| a.as_ref().and_then(|a| a.tile).map_or(0, |b| i / b);

    let mut index: Vec<i64> = slice.iter().map(|s| s.unwrap_or(0)).collect();
    let mut cells = Vec::new();
    for r in 0..shown_rows {
        for c in 0..shown_cols {
            if let Some(a) = &rows {
                index[a.dim] = r;
            }
            if let Some(a) = &cols {
                index[a.dim] = c;
            }
            let inside = rows.as_ref().is_none_or(|a| r < a.size)
                && cols.as_ref().is_none_or(|a| c < a.size);
            cells.push(if inside {
                Cell::Element {
                    at: comma_list(&index),
                    offset: tiled.offset(&index)?,
                    tile: tile_of(&rows, r) + tile_of(&cols, c),
                }
            } else {
                Cell::Padding {
                    at: comma_list(&index),
                }
            });
        }
    }

    let mut caption = Vec::new();
    let mut tiles_total: i64 = 1;
    let mut tiles_drawn: i64 = 1;
    let mut partial = false;
    for (a, what) in [(&rows, "rows"), (&cols, "columns")] {
        let Some(a) = a else { continue };
        caption.push(format!(
            "{what} 0-{} of {} (dim {})",
            a.shown.min(a.size) - 1,
            a.size,
            a.dim
        ));
        let b = a.tile.unwrap_or(a.padded).max(1);
        tiles_total = tiles_total.saturating_mul(ceil_div(a.padded, b));
        tiles_drawn = tiles_drawn.saturating_mul(ceil_div(a.shown, b));
        partial |= a.shown % b != 0 && a.shown < a.padded;
    }
    let mut summary = if caption.is_empty() {
        "a scalar: one element".to_string()
    } else {
        format!("Drawn: {}", caption.join(", "))
    };
    let tiled_axes = [&rows, &cols]
        .iter()
        .any(|a| a.as_ref().is_some_and(|a| a.tile.is_some()));
    if tiled_axes {
        let _ = write!(
            summary,
            "; {}",
            tile_count(tiles_drawn, tiles_total, partial)
        );
    }
    if !slice.iter().all(Option::is_none) {
        let at: Vec<String> = slice
            .iter()
            .map(|s| s.map_or(":".to_string(), |i| i.to_string()))
            .collect();
        let _ = write!(summary, "; slice [{}]", at.join(","));
    }

    // Tile outlines, clipped to the drawn region.
    let mut outlines = Vec::new();
    if tiled_axes {
        let row_step = rows.as_ref().and_then(|a| a.tile).unwrap_or(shown_rows);
        let col_step = cols.as_ref().and_then(|a| a.tile).unwrap_or(shown_cols);
        let rows_cut = rows.as_ref().is_some_and(|a| a.shown < a.padded);
        let cols_cut = cols.as_ref().is_some_and(|a| a.shown < a.padded);
        let mut r = 0;
        while r < shown_rows {
            let h = row_step.min(shown_rows - r);
            let mut c = 0;
            while c < shown_cols {
                let w = col_step.min(shown_cols - c);
                outlines.push(Outline {
                    row: r,
                    col: c,
                    rows: h,
                    cols: w,
                    cut_right: cols_cut && c + w == shown_cols,
                    cut_bottom: rows_cut && r + h == shown_rows,
                });
                c += w;
            }
            r += h;
        }
    }
    let axis_label = |a: &Axis| format!("dim {} (size {})", a.dim, a.size);
    Ok(Grid {
        rows: shown_rows,
        cols: shown_cols,
        cells,
        row_labels: match &rows {
            Some(_) => (0..shown_rows).map(|r| r.to_string()).collect(),
            None => Vec::new(),
        },
        col_labels: match &cols {
            Some(_) => (0..shown_cols).map(|c| c.to_string()).collect(),
            None => Vec::new(),
        },
        row_axis: rows.as_ref().map(axis_label),
        col_axis: cols.as_ref().map(axis_label),
        outlines,
        summary,
    })
}

/// The grid of a 1-D array written `per_row` elements a row, as a
/// linearised array is pictured: element `i` at row `i / per_row`, column
/// `i % per_row`.
fn wrapped_grid(
    array: &ArrayShape,
    tiled: &TiledLayout,
    per_row: i64,
    max_rows: i64,
) -> Result<Grid, Problem> {
    let dims = tiled.dimensions();
    if dims.len() != 1 {
        return Err(invalid(format!(
            "--wrap draws 1-D arrays; {} has rank {}",
            Shape::Array(array.clone()),
            dims.len()
        )));
    }
    let size = dims[0];
    let tile = tile_bound(array, 0);
    let padded = match tile {
        Some(b) => ceil_div(size, b).checked_mul(b).unwrap_or(i64::MAX),
        None => size,
    };
    let rows = ceil_div(padded, per_row).min(max_rows).max(1);
    let shown = (rows * per_row).min(padded);
    let mut cells = Vec::new();
    for i in 0..rows * per_row {
        cells.push(if i < size.min(shown) {
            Cell::Element {
                at: i.to_string(),
                offset: tiled.offset(&[i])?,
                tile: tile.map_or(0, |b| i / b),
            }
        } else if i < shown {
            Cell::Padding { at: i.to_string() }
        } else {
            Cell::Empty
        });
    }
    let mut summary = format!(
        "Drawn: elements 0-{} of {size} (dim 0), {per_row} a row",
        size.min(shown) - 1
    );
    let mut outlines = Vec::new();
    if let Some(b) = tile {
        let cut = shown < padded && shown % b != 0;
        let _ = write!(
            summary,
            "; {}",
            tile_count(ceil_div(shown, b), padded / b, cut)
        );
        // Tiles of whole rows are outlined.
        if b % per_row == 0 {
            let step = b / per_row;
            let mut r = 0;
            while r < rows {
                let h = step.min(rows - r);
                outlines.push(Outline {
                    row: r,
                    col: 0,
                    rows: h,
                    cols: per_row,
                    cut_right: false,
                    cut_bottom: cut && r + h == rows,
                });
                r += h;
            }
        }
    }
    Ok(Grid {
        rows,
        cols: per_row,
        cells,
        row_labels: (0..rows).map(|r| (r * per_row).to_string()).collect(),
        col_labels: (0..per_row).map(|c| format!("+{c}")).collect(),
        row_axis: Some(format!("dim 0 (size {size})")),
        col_axis: Some(format!("dim 0, {per_row} a row")),
        outlines,
        summary,
    })
}

/// The SVG picture of `array`.
pub fn svg(array: &ArrayShape, options: &Args) -> Result<String, Problem> {
    let tiled = TiledLayout::new(array)?;
    let grid = match options.wrap {
        Some(per_row) => wrapped_grid(array, &tiled, per_row, options.max_rows)?,
        None => grid(array, &tiled, options)?,
    };
    Ok(render(array, &grid))
}

/// Where the parts of the picture go, in pixels.
struct Frame {
    /// The width of a cell: its widest label, and room around it.
    cell_width: i64,
    /// The grid's width.
    grid_width: i64,
    /// The length of the row axis: the grid's height, or its label's.
    row_axis_length: i64,
    /// The height from the top of the grid to the text under it.
    below: i64,
    /// The picture's width and height.
    width: i64,
    height: i64,
}

impl Frame {
    /// The frame of `grid`, under the title `shape_text`.
    fn of(grid: &Grid, shape_text: &str) -> Frame {
        let widest = grid
            .cells
            .iter()
            .filter_map(|c| match c {
                Cell::Element { offset, .. } => Some(offset.to_string().len()),
                _ => None,
            })
            .chain(grid.col_labels.iter().map(String::len))
            .max()
            .unwrap_or(1) as i64;
        let cell_width = (widest * 8 + 16).max(32);
        let grid_width = grid.cols * cell_width;
        let grid_height = grid.rows * CELL_HEIGHT;
        // The row axis is as long as the grid, or as its label.
        let row_label_len = grid.row_axis.as_ref().map_or(0, String::len) as i64;
        let row_axis_length = grid_height.max(8 * row_label_len + 8);
        // Monospace text of 13 pixels is about 8 pixels a character.
        let text_width = 20 + 8 * grid.summary.chars().count().max(shape_text.len() + 4) as i64;
        let below = if grid.row_axis.is_some() {
            row_axis_length
        } else {
            grid_height
        };
        Frame {
            cell_width,
            grid_width,
            row_axis_length,
            below,
            width: (LEFT + grid_width + 40).max(text_width).max(560),
            height: TOP + below + 110,
        }
    }
}

/// Draws `grid`: the heading, the axes, the cells, the tile outlines and
/// the text under them, in that order.
fn render(array: &ArrayShape, grid: &Grid) -> String {
    let shape_text = Shape::Array(array.clone()).to_string();
    let frame = Frame::of(grid, &shape_text);
    let mut s = String::new();
    heading(&mut s, &frame, &shape_text);
    axes(&mut s, &frame, grid);
    cells(&mut s, &frame, grid);
    outlines(&mut s, &frame, grid);
    footer(&mut s, &frame, array, grid);
    s.push_str("</svg>\n");
    s
}

/// The `svg` element, its definitions (the padding hatch, the arrow
/// head), the background and the title.
fn heading(s: &mut String, frame: &Frame, shape_text: &str) {
    let defs = concat!(
        "<defs>\n",
        r##"<pattern id="padding" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#f2f2f2"/><line x1="0" y1="0" x2="0" y2="6" stroke="#bbbbbb" stroke-width="2"/></pattern>"##,
        "\n",
        r##"<marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="8" markerHeight="8" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#333333"/></marker>"##,
        "\n</defs>\n"
    );
    svg_start(
        s,
        (frame.width, frame.height),
        defs,
        shape_text,
        "each element: its offset in memory, in elements, every tile applied",
    );
}

/// The axis arrows, their labels and the row and column numbers.
fn axes(s: &mut String, frame: &Frame, grid: &Grid) {
    let cell_width = frame.cell_width;
    if let Some(label) = &grid.col_axis {
        let y = TOP - 34;
        let _ = writeln!(
            s,
            r##"<line class="axis" x1="{LEFT}" y1="{y}" x2="{}" y2="{y}" stroke="#333333" marker-end="url(#arrow)"/>"##,
            LEFT + frame.grid_width.max(60)
        );
        let _ = writeln!(
            s,
            r#"<text x="{LEFT}" y="{}">{}</text>"#,
            y - 6,
            escape(label)
        );
        for (c, text) in grid.col_labels.iter().enumerate() {
            let _ = writeln!(
                s,
                r##"<text x="{}" y="{}" text-anchor="middle" fill="#666666">{text}</text>"##,
                LEFT + c as i64 * cell_width + cell_width / 2,
                TOP - 8
            );
        }
    }
    if let Some(label) = &grid.row_axis {
        let x = 16;
        let _ = writeln!(
            s,
            r##"<line class="axis" x1="{x}" y1="{TOP}" x2="{x}" y2="{}" stroke="#333333" marker-end="url(#arrow)"/>"##,
            TOP + frame.row_axis_length
        );
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" transform="rotate(-90 {} {})" text-anchor="end">{}</text>"#,
            x - 4,
            TOP,
            x - 4,
            TOP,
            escape(label)
        );
        for (r, text) in grid.row_labels.iter().enumerate() {
            let _ = writeln!(
                s,
                r##"<text x="{}" y="{}" text-anchor="end" fill="#666666">{text}</text>"##,
                LEFT - 8,
                TOP + r as i64 * CELL_HEIGHT + 19
            );
        }
    }
}

/// Every cell: an element (its offset, coloured by tile) or padding.
fn cells(s: &mut String, frame: &Frame, grid: &Grid) {
    let cell_width = frame.cell_width;
    for r in 0..grid.rows {
        for c in 0..grid.cols {
            let x = LEFT + c * cell_width;
            let y = TOP + r * CELL_HEIGHT;
            match &grid.cells[(r * grid.cols + c) as usize] {
                Cell::Element { at, offset, tile } => {
                    let fill = if tile % 2 == 0 { "#dbe8f5" } else { "#f7e6cc" };
                    let _ = writeln!(
                        s,
                        r##"<g class="cell" data-index="{at}" data-offset="{offset}"><rect x="{x}" y="{y}" width="{cell_width}" height="{CELL_HEIGHT}" fill="{fill}" stroke="#999999"/><text x="{}" y="{}" text-anchor="middle">{offset}</text></g>"##,
                        x + cell_width / 2,
                        y + 19
                    );
                }
                Cell::Padding { at } => {
                    let _ = writeln!(
                        s,
                        r##"<g class="padding" data-index="{at}"><rect x="{x}" y="{y}" width="{cell_width}" height="{CELL_HEIGHT}" fill="url(#padding)" stroke="#bbbbbb"/></g>"##
                    );
                }
                Cell::Empty => {}
            }
        }
    }
}

/// The tile outlines: a side where the drawing cuts a tile is dashed.
fn outlines(s: &mut String, frame: &Frame, grid: &Grid) {
    let cell_width = frame.cell_width;
    for o in &grid.outlines {
        let (x0, y0) = (LEFT + o.col * cell_width, TOP + o.row * CELL_HEIGHT);
        let (x1, y1) = (x0 + o.cols * cell_width, y0 + o.rows * CELL_HEIGHT);
        let mut d = format!("M {x0} {y0} H {x1} M {x0} {y0} V {y1}");
        let mut cuts = Vec::new();
        if o.cut_right {
            cuts.push((x1, y0, x1, y1));
        } else {
            let _ = write!(d, " M {x1} {y0} V {y1}");
        }
        if o.cut_bottom {
            cuts.push((x0, y1, x1, y1));
        } else {
            let _ = write!(d, " M {x0} {y1} H {x1}");
        }
        let _ = writeln!(
            s,
            r##"<path class="tile" d="{d}" fill="none" stroke="#1f3b73" stroke-width="3" stroke-linecap="square"/>"##
        );
        for (xa, ya, xb, yb) in cuts {
            let _ = writeln!(
                s,
                r##"<line class="cut" x1="{xa}" y1="{ya}" x2="{xb}" y2="{yb}" stroke="#1f3b73" stroke-width="2" stroke-dasharray="5 4"/>"##
            );
        }
    }
}

/// Under the grid: the minor-to-major order as an arrow from the most
/// minor dimension, the summary and the legend.
fn footer(s: &mut String, frame: &Frame, array: &ArrayShape, grid: &Grid) {
    let y = TOP + frame.below + 30;
    if let Some(layout) = array.layout() {
        let order: Vec<String> = layout
            .minor_to_major()
            .iter()
            .map(|d| format!("dim {d}"))
            .collect();
        if !order.is_empty() {
            let label = format!("minor to major: {}", order.join(" \u{2192} "));
            let _ = writeln!(
                s,
                r##"<line class="minor-to-major" x1="10" y1="{}" x2="60" y2="{}" stroke="#333333" marker-end="url(#arrow)"/>"##,
                y - 4,
                y - 4
            );
            let _ = writeln!(s, r#"<text x="70" y="{y}">{}</text>"#, escape(&label));
        }
    }
    let _ = writeln!(
        s,
        r#"<text class="summary" x="10" y="{}">{}</text>"#,
        y + 24,
        escape(&grid.summary)
    );
    let mut legend =
        String::from("hatched: padding, the slots of whole tiles that hold no element");
    if grid.outlines.iter().any(|o| o.cut_right || o.cut_bottom) {
        legend.push_str("; dashed: where the drawing stops");
    }
    let _ = writeln!(
        s,
        r##"<text x="10" y="{}" fill="#666666">{legend}</text>"##,
        y + 48
    );
}

/// `draw`: writes the SVG picture of INPUT.
pub fn run(args: &Args, cx: &mut Context<impl Write>) -> Result<(), Failure> {
    let allowed = 1..=MAX_DRAWN;
    let wrap_ok = args.wrap.is_none_or(|w| allowed.contains(&w));
    if !allowed.contains(&args.max_rows) || !allowed.contains(&args.max_cols) || !wrap_ok {
        return Err(Failure::Usage(format!(
            "--max-rows, --max-cols and --wrap must be from 1 to {MAX_DRAWN}"
        )));
    }
    let array = cx.read_array(args.input.as_deref(), args.from)?;
    let picture = match &args.sharding {
        Some(text) => {
            let (s, _) = read_sharding(&cx.read_all(Some(text))?, None, None)?;
            sharding::svg(&s, &array, args.slice.as_deref())?
        }
        None => svg(&array, args)?,
    };
    cx.out.write_all(picture.as_bytes())?;
    Ok(())
}
