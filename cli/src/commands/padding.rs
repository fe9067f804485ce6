//! `padding`: what a shape's tiled layout costs and why, for a shape
//! string or for every shape of XLA's out-of-memory listings in a log
//! (XLA:TPU's "Largest program allocations in hbm", XLA:GPU's
//! "BufferAssignment OOM Debugging"): unpadded and padded bytes, the
//! expansion, the dimensions whose rounding to a tile causes it, the
//! changes that pad less under the same tiles, and for a listing its own
//! figures beside ours (`xla_shape::memory::padding_entries`,
//! docs/memory.md).

use std::fmt::Write as _;
use std::io::Write;

use serde_json::{Value, json};
use xla_shape::memory::{
    self, Cause, Change, Figure, ListedAllocation, ListingCheck, ListingFormat, Padding,
    PaddingEntry, PaddingOptions, Suggestion,
};
use xla_shape::tiling::RoundedPart;

use crate::Context;
use crate::input::format::utf8;
use crate::output::{Failure, Problem, bytes, printable};

/// The arguments of `padding`.
#[derive(Clone, Debug, clap::Args)]
pub struct Args {
    /// A shape string, or a log holding XLA's out-of-memory listing
    /// (standard input when absent or '-').
    pub input: Option<String>,
    /// Tiles to assume for arrays printed without any (XLA:TPU's listings
    /// before 2020): `(8,128)` for every element type, or
    /// `bf16=(8,128)(2,1)` for one; repeat for several.
    #[arg(long = "tiles", value_name = "TILES")]
    pub tiles: Vec<String>,
}

/// `xla-shape padding [--json] [--tiles TILES]... [INPUT]`.
pub fn run(args: &Args, cx: &mut Context<impl Write>) -> Result<(), Failure> {
    let mut options = PaddingOptions::new();
    for t in &args.tiles {
        options = options
            .with_tiles_text(t)
            .map_err(|e| Failure::Usage(format!("--tiles {t}: {}", e.message())))?;
    }
    let bytes = cx.read_all(args.input.as_deref())?;
    let text = utf8(&bytes)?;
    let mut failed = false;
    // One entry held at a time: the JSON document is written as it goes
    // (the one error of an input with no entry comes first, before
    // anything is written).
    for (n, entry) in memory::padding_entries(text, &options).enumerate() {
        let entry = entry?;
        failed |= matches!(entry.explanation, Some(Err(_)));
        let out = &mut cx.out;
        match (cx.json, n) {
            (true, 0) => out.write_all(b"{\"shapes\":[")?,
            (true, _) => out.write_all(b",")?,
            (false, 0) => {}
            (false, _) => out.write_all(b"\n")?,
        }
        if cx.json {
            serde_json::to_writer(&mut *out, &entry_json(&entry)).map_err(std::io::Error::from)?;
        } else {
            out.write_all(entry_text(&entry).as_bytes())?;
        }
    }
    if cx.json {
        cx.out.write_all(b"]}\n")?;
    }
    if failed {
        return Err(Failure::Reported);
    }
    Ok(())
}

/// `n` as the listings print an expansion: `32.0x`.
fn times(x: f64) -> String {
    format!("{x:.1}x")
}

/// One entry, for a reader.
fn entry_text(entry: &PaddingEntry<'_>) -> String {
    let mut s = String::new();
    if let Some(l) = &entry.listed {
        let _ = writeln!(s, "{}", listed_heading(l));
    }
    let indent = if entry.listed.is_some() { "  " } else { "" };
    let Some(shape) = entry.shape else {
        let _ = writeln!(s, "{indent}no shape listed");
        return s;
    };
    let _ = writeln!(s, "{indent}{}", printable(shape));
    match &entry.explanation {
        Some(Ok(p)) => {
            let gpu = entry
                .listed
                .as_ref()
                .is_some_and(|l| l.format == ListingFormat::BufferAssignment);
            explanation_text(&mut s, indent, p, entry.check().as_ref(), gpu);
        }
        Some(Err(e)) => {
            let _ = writeln!(s, "{indent}  error: {}", Problem::from(e).one_line());
        }
        None => {}
    }
    s
}

/// `1. hbm, line 17: Size 16.00G, HLO temp, fusion.1`.
fn listed_heading(l: &ListedAllocation<'_>) -> String {
    let mut parts = Vec::new();
    if let Some(space) = l.memory_space {
        parts.push(printable(space).into_owned());
    }
    parts.push(format!("line {}", l.line));
    let mut s = match l.number {
        Some(n) => format!("{n}. "),
        None => String::new(),
    };
    let _ = write!(s, "{}", parts.join(", "));
    let mut more = Vec::new();
    if let Some(size) = l.size {
        more.push(format!("Size {}", printable(size)));
    }
    if let Some(t) = l.allocation_type {
        more.push(printable(t).into_owned());
    }
    if let Some(i) = l.instruction() {
        more.push(printable(i).into_owned());
    } else if l.shape.is_none()
        && let Some(label) = l.label
    {
        more.push(printable(label).into_owned());
    }
    if !more.is_empty() {
        let _ = write!(s, ": {}", more.join(", "));
    }
    s
}

/// The explanation; `gpu`: of an XLA:GPU listing, whose buffers are never
/// tiled.
fn explanation_text(
    s: &mut String,
    indent: &str,
    p: &Padding,
    check: Option<&ListingCheck>,
    gpu: bool,
) {
    if p.tiles_assumed {
        let _ = writeln!(s, "{indent}  with the tiles assumed: {}", p.shape);
    }
    let _ = writeln!(s, "{indent}  unpadded  {:>32}", bytes(p.unpadded));
    let _ = writeln!(s, "{indent}  padded    {:>32}", bytes(p.padded));
    let _ = writeln!(s, "{indent}  expansion {:>32}", times(p.expansion()));
    if let Some(check) = check {
        let figures: Vec<String> = [
            ("Size", &check.size),
            ("Unpadded size", &check.unpadded),
            ("Extra memory", &check.extra),
            ("expansion", &check.expansion),
        ]
        .into_iter()
        .filter_map(|(name, f)| {
            let unit = if name == "expansion" { "x" } else { "" };
            f.as_ref().map(|f| figure_text(name, f, unit))
        })
        .collect();
        if !figures.is_empty() {
            let verdict = match check.agrees() {
                Some(true) => "the same",
                _ if !p.is_tiled() => {
                    "differs: the shape has no tiles; give those XLA used with --tiles"
                }
                _ => "differs",
            };
            let _ = writeln!(s, "{indent}  listing   {}: {verdict}", figures.join(", "));
        }
    }
    if !p.causes.is_empty() {
        let _ = writeln!(s, "{indent}  caused by");
        for c in &p.causes {
            let _ = writeln!(s, "{indent}    {c}");
        }
    } else if gpu {
        let _ = writeln!(
            s,
            "{indent}  no tiles, no padding (XLA:GPU does not tile buffers)"
        );
    } else if !p.is_tiled() {
        let _ = writeln!(
            s,
            "{indent}  no tiles, no padding (XLA:TPU tiles every array: give its tiles with --tiles)"
        );
    }
    if !p.suggestions.is_empty() {
        let _ = writeln!(s, "{indent}  under the same tiles");
        for sg in &p.suggestions {
            let _ = writeln!(
                s,
                "{indent}    {}: {}, {}",
                sg.change,
                bytes(sg.padded),
                times(sg.expansion())
            );
        }
    }
}

/// `Size 16.00G`, with ours (`(ours 1.5K)`) where it differs; `unit`
/// after each number.
fn figure_text(name: &str, f: &Figure, unit: &str) -> String {
    if f.agrees {
        format!("{name} {}{unit}", printable(&f.printed))
    } else {
        format!(
            "{name} {}{unit} (ours {}{unit})",
            printable(&f.printed),
            f.ours
        )
    }
}

/// One entry as JSON.
fn entry_json(entry: &PaddingEntry<'_>) -> Value {
    let mut map = serde_json::Map::new();
    map.insert("shape".into(), json!(entry.shape));
    if let Some(l) = &entry.listed {
        map.insert("listed".into(), listed_json(l));
    }
    match &entry.explanation {
        Some(Ok(p)) => {
            map.insert("unpadded".into(), json!(p.unpadded));
            map.insert("padded".into(), json!(p.padded));
            map.insert("expansion".into(), json!(p.expansion()));
            map.insert("tiles_assumed".into(), json!(p.tiles_assumed));
            map.insert("explained_shape".into(), json!(p.shape.to_string()));
            map.insert(
                "causes".into(),
                p.causes.iter().map(cause_json).collect::<Vec<_>>().into(),
            );
            map.insert(
                "suggestions".into(),
                p.suggestions
                    .iter()
                    .map(suggestion_json)
                    .collect::<Vec<_>>()
                    .into(),
            );
            if let Some(check) = entry.check() {
                map.insert("check".into(), check_json(&check));
            }
        }
        Some(Err(e)) => {
            map.insert("error".into(), Problem::from(e).to_json());
        }
        None => {}
    }
    Value::Object(map)
}

fn listed_json(l: &ListedAllocation<'_>) -> Value {
    json!({
        "format": l.format.as_str(),
        "memory_space": l.memory_space,
        "number": l.number,
        "line": l.line,
        "size": l.size,
        "unpadded": l.unpadded,
        "extra": l.extra,
        "expansion": l.expansion,
        "entry_parameter": l.entry_parameter,
        "operator": l.operator,
        "label": l.label,
        "instruction": l.instruction(),
        "allocation_type": l.allocation_type,
    })
}

fn cause_json(c: &Cause) -> Value {
    let mut o = match c {
        Cause::Rounding { tile, rounding, .. } => {
            let (part, dimensions): (&str, Vec<usize>) = match &rounding.part {
                RoundedPart::Dimension(d) => ("dimension", vec![*d]),
                RoundedPart::Leading => ("leading", vec![]),
                RoundedPart::Combined(dims) => ("combined", dims.clone()),
                RoundedPart::Tiled { dimension, .. } => {
                    ("tiled", dimension.iter().copied().collect())
                }
            };
            json!({
                "kind": "rounding",
                "tile": tile.to_string(),
                "part": part,
                "dimensions": dimensions,
                "bound": rounding.bound,
                "size": rounding.size,
                "rounded": rounding.rounded,
            })
        }
        Cause::ElementSize {
            element_type,
            bits,
            type_bits,
            ..
        } => json!({
            "kind": "element_size",
            "element_type": element_type.to_string(),
            "bits": bits,
            "type_bits": type_bits,
        }),
        Cause::TailPadding {
            alignment,
            elements,
            slots,
            ..
        } => json!({
            "kind": "tail_padding",
            "alignment": alignment,
            "elements": elements,
            "slots": slots,
        }),
        _ => json!({ "kind": "other" }),
    };
    if let Value::Object(map) = &mut o {
        map.insert("index".into(), json!(c.index().as_slice()));
        map.insert("factor".into(), json!(c.factor()));
        map.insert("text".into(), json!(c.to_string()));
    }
    o
}

fn suggestion_json(sg: &Suggestion) -> Value {
    let mut o = match &sg.change {
        Change::Order {
            minor_to_major,
            transposed,
        } => json!({
            "change": "order",
            "minor_to_major": minor_to_major,
            "transposed": transposed.to_string(),
        }),
        Change::Size { dimension, size } => json!({
            "change": "size",
            "dimension": dimension,
            "size": size,
        }),
        _ => json!({ "change": "other" }),
    };
    if let Value::Object(map) = &mut o {
        map.insert("shape".into(), json!(sg.shape.to_string()));
        map.insert("padded".into(), json!(sg.padded));
        map.insert("unpadded".into(), json!(sg.unpadded));
        map.insert("expansion".into(), json!(sg.expansion()));
        map.insert("text".into(), json!(sg.change.to_string()));
    }
    o
}

fn check_json(check: &ListingCheck) -> Value {
    let figure = |f: &Option<Figure>| {
        f.as_ref().map(|f| {
            json!({
                "printed": f.printed,
                "ours": f.ours,
                "agrees": f.agrees,
            })
        })
    };
    json!({
        "size": figure(&check.size),
        "unpadded": figure(&check.unpadded),
        "extra": figure(&check.extra),
        "expansion": figure(&check.expansion),
        "agrees": check.agrees(),
    })
}
