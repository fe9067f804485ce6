//! `draw --sharding`: an SVG picture of how a sharding splits an array:
//! the array (or a 2-D slice of it) as a rectangle, each tile a block drawn
//! to scale, coloured, and labelled with the devices that hold it.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use xla_shape::sharding::HloSharding;
use xla_shape::{ArrayShape, Shape};

use super::parse_slice;
use crate::output::{Problem, comma_list, escape, svg_start};

/// The most blocks drawn: beyond, the picture would be unreadable.
pub(super) const MAX_BLOCKS: usize = 4096;

/// Fill colours of the blocks, in turn.
const PALETTE: [&str; 12] = [
    "#dbe8f5", "#f7e6cc", "#dff0d8", "#f2dede", "#e8dff5", "#fcf8e3", "#d9edf7", "#f5e0ec",
    "#e0f2f1", "#fbe9e7", "#ede7f6", "#f1f8e9",
];

const LEFT: i64 = 70;
const TOP: i64 = 120;

/// `[start, stop)` along one drawn dimension.
type Range = (i64, i64);

/// A block: the range it covers along the drawn dimensions and the devices
/// holding it.
struct Block {
    rows: Range,
    cols: Range,
    devices: Vec<i64>,
}

/// `0,1,2,3` or `0,1,...,7 (8)`.
fn device_label(devices: &[i64]) -> String {
    if devices.len() <= 4 {
        return comma_list(devices);
    }
    format!(
        "{},{},...,{} ({})",
        devices[0],
        devices[1],
        devices[devices.len() - 1],
        devices.len()
    )
}

/// The SVG picture of `sharding` over `array`; `slice` chooses the drawn
/// dimensions of arrays of rank 3 and up, as `draw --slice` does.
pub(super) fn svg(
    sharding: &HloSharding,
    array: &ArrayShape,
    slice: Option<&str>,
) -> Result<String, Problem> {
    let shape = Shape::Array(array.clone());
    sharding.validate(&shape, None)?;
    let dims = array.dimensions().to_vec();
    let chosen = parse_slice(slice, &dims)?;
    let drawn: Vec<usize> = (0..dims.len()).filter(|&d| chosen[d].is_none()).collect();
    let (row_dim, col_dim) = match drawn[..] {
        [] => (None, None),
        [c] => (None, Some(c)),
        [r, c] => (Some(r), Some(c)),
        _ => {
            return Err(Problem::new(
                "InvalidArgument",
                "draw --sharding draws one or two dimensions: choose them with --slice",
            ));
        }
    };
    let size = |d: Option<usize>| d.map_or(1, |d| dims[d]);
    let (rows, cols) = (size(row_dim), size(col_dim));

    // Each device's slice, grouped by the block it covers in the drawn
    // plane (devices whose slice misses the chosen index of another
    // dimension hold nothing of this slice).
    let slices = if sharding.is_replicated()
        || sharding.is_manual()
        || sharding.is_unreduced()
        || sharding.is_unknown()
    {
        Vec::new()
    } else {
        sharding.device_slices(&dims)?
    };
    let mut blocks: BTreeMap<(Range, Range), Vec<i64>> = BTreeMap::new();
    let mut empty: Vec<i64> = Vec::new();
    let mut elsewhere = 0usize;
    for s in &slices {
        let in_slice = chosen.iter().enumerate().all(|(d, c)| match c {
            Some(i) => s.offsets[d] <= *i && *i < s.limits[d],
            None => true,
        });
        let span = |d: Option<usize>, n: i64| d.map_or((0, n), |d| (s.offsets[d], s.limits[d]));
        let (r, c) = (span(row_dim, 1), span(col_dim, 1));
        if r.0 >= r.1 || c.0 >= c.1 || s.shape().contains(&0) {
            empty.push(s.device);
        } else if in_slice {
            blocks.entry((r, c)).or_default().push(s.device);
        } else {
            elsewhere += 1;
        }
    }
    if blocks.len() > MAX_BLOCKS {
        return Err(Problem::new(
            "InvalidArgument",
            format!(
                "the sharding splits the drawn plane into {} blocks; at most {MAX_BLOCKS} are drawn (choose a slice with --slice)",
                blocks.len()
            ),
        ));
    }
    let whole = match sharding.unique_device() {
        _ if !slices.is_empty() => None,
        Some(d) => Some(format!("device {d}: the whole array")),
        None if sharding.is_replicated() => Some("every device: the whole array".to_string()),
        None => Some(format!("{sharding}: not split into tiles")),
    };
    let blocks: Vec<Block> = match &whole {
        Some(_) => vec![Block {
            rows: (0, rows),
            cols: (0, cols),
            devices: Vec::new(),
        }],
        None => blocks
            .into_iter()
            .map(|((r, c), devices)| Block {
                rows: r,
                cols: c,
                devices,
            })
            .collect(),
    };

    // The plane is drawn 720 pixels wide (or tall), to scale, each side at
    // least 40 pixels.
    let (w, h) = if rows <= 0 || cols <= 0 || row_dim.is_none() {
        (720, 80)
    } else {
        let ratio = rows as f64 / cols as f64;
        if ratio <= 1.0 {
            (720, ((720.0 * ratio) as i64).max(40))
        } else {
            (((480.0 / ratio) as i64).max(40), 480)
        }
    };
    let x_of = |c: i64| LEFT + if cols > 0 { c * w / cols.max(1) } else { 0 };
    let y_of = |r: i64| TOP + if rows > 0 { r * h / rows.max(1) } else { 0 };
    let title = format!("{shape} sharded {sharding}");
    let mut summary = match &whole {
        Some(w) => w.clone(),
        None => {
            let holders: usize = blocks.iter().map(|b| b.devices.len()).sum();
            let replicas = blocks.iter().map(|b| b.devices.len()).max().unwrap_or(0);
            let mut s = format!("{} blocks on {holders} devices", blocks.len());
            if replicas > 1 {
                let _ = write!(s, ", up to {replicas} devices each");
            }
            s
        }
    };
    if !empty.is_empty() {
        let _ = write!(
            summary,
            "; devices holding nothing: {}",
            device_label(&empty)
        );
    }
    if chosen.iter().any(Option::is_some) {
        let at: Vec<String> = chosen
            .iter()
            .map(|c| c.map_or(":".to_string(), |i| i.to_string()))
            .collect();
        let _ = write!(summary, "; slice [{}]", at.join(","));
        if elsewhere > 0 {
            let _ = write!(
                summary,
                " (the other {elsewhere} devices hold other slices)"
            );
        }
    }
    // Monospace characters are about 0.6 of the font size wide: 9 pixels
    // at the title's 15, 8 at 13.
    let text_width = (9 * title.chars().count()).max(8 * summary.chars().count()) as i64;
    let width = (LEFT + w + 40).max(20 + text_width).max(560);
    let height = TOP + h + 90;
    let mut s = String::new();
    svg_start(
        &mut s,
        (width, height),
        "",
        &title,
        "each block: the part of the array the devices it names hold",
    );
    if let Some(c) = col_dim {
        let _ = writeln!(
            s,
            r#"<text x="{LEFT}" y="{}">dim {c} (size {})</text>"#,
            TOP - 40,
            dims[c]
        );
    }
    if let Some(r) = row_dim {
        let _ = writeln!(
            s,
            r#"<text x="12" y="{TOP}" transform="rotate(-90 12 {TOP})" text-anchor="end">dim {r} (size {})</text>"#,
            dims[r]
        );
    }
    // Block boundaries along each axis, labelled with their index.
    let mut col_marks: Vec<i64> = blocks.iter().flat_map(|b| [b.cols.0, b.cols.1]).collect();
    col_marks.sort_unstable();
    col_marks.dedup();
    let mut row_marks: Vec<i64> = blocks.iter().flat_map(|b| [b.rows.0, b.rows.1]).collect();
    row_marks.sort_unstable();
    row_marks.dedup();
    if col_dim.is_some() && col_marks.len() <= 64 {
        for c in &col_marks {
            let _ = writeln!(
                s,
                r##"<text x="{}" y="{}" text-anchor="middle" fill="#666666">{c}</text>"##,
                x_of(*c),
                TOP - 8
            );
        }
    }
    if row_dim.is_some() && row_marks.len() <= 64 {
        for r in &row_marks {
            let _ = writeln!(
                s,
                r##"<text x="{}" y="{}" text-anchor="end" fill="#666666">{r}</text>"##,
                LEFT - 8,
                y_of(*r) + 4
            );
        }
    }
    for (i, b) in blocks.iter().enumerate() {
        let (x0, x1) = (x_of(b.cols.0), x_of(b.cols.1));
        let (y0, y1) = (y_of(b.rows.0), y_of(b.rows.1));
        let fill = PALETTE[i % PALETTE.len()];
        let label = match &whole {
            Some(_) => String::new(),
            None => device_label(&b.devices),
        };
        let _ = write!(
            s,
            r##"<g class="block" data-devices="{}" data-rows="{}:{}" data-cols="{}:{}"><rect x="{x0}" y="{y0}" width="{}" height="{}" fill="{fill}" stroke="#1f3b73" stroke-width="2"/>"##,
            comma_list(&b.devices),
            b.rows.0,
            b.rows.1,
            b.cols.0,
            b.cols.1,
            (x1 - x0).max(1),
            (y1 - y0).max(1)
        );
        // A label only where it fits (8 pixels a character).
        if !label.is_empty() && (x1 - x0) >= 8 * label.len() as i64 + 4 && (y1 - y0) >= 16 {
            let _ = write!(
                s,
                r#"<text x="{}" y="{}" text-anchor="middle">{}</text>"#,
                (x0 + x1) / 2,
                (y0 + y1) / 2 + 5,
                escape(&label)
            );
        }
        s.push_str("</g>\n");
    }
    let _ = writeln!(
        s,
        r#"<text class="summary" x="10" y="{}">{}</text>"#,
        TOP + h + 40,
        escape(&summary)
    );
    s.push_str("</svg>\n");
    Ok(s)
}
