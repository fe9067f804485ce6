//! `describe`: a readable summary of a shape.

use std::fmt::Write as _;
use std::io::{self, IsTerminal};

use serde_json::{Value as Json, json};
use xla_shape::formats;
use xla_shape::tiling::TiledLayout;
use xla_shape::{ArrayShape, Layout, Shape, layout_util, shape_util};

use crate::Context;
use crate::input::{Format, Value};
use crate::output::{Failure, Numbers};

/// The arguments of `describe`.
#[derive(Clone, Debug, Default, clap::Args)]
pub struct Args {
    /// The shape or layout (standard input when absent or '-').
    pub input: Option<String>,
    /// The input format (detected when absent).
    #[arg(long, value_enum)]
    pub from: Option<Format>,
    /// Group the digits of large numbers in threes: 167_772_160.
    #[arg(long)]
    pub group_digits: bool,
}

/// The built-in example: a bf16 array as a TPU stores it.
pub const EXAMPLE: &str = "bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}";

/// A dimension in words: its size, `<=N` for a bounded dynamic one, `?`
/// for an unbounded one.
fn dim_word(a: &ArrayShape, i: usize) -> String {
    if a.is_unbounded_dynamic_dimension(i) {
        "?".to_string()
    } else if a.is_dynamic_dimension(i) {
        format!("<={}", a.dimension(i))
    } else {
        a.dimension(i).to_string()
    }
}

fn dims_in_words(a: &ArrayShape) -> String {
    let parts: Vec<String> = (0..a.rank())
        .map(|i| {
            let word = dim_word(a, i);
            if a.is_unbounded_dynamic_dimension(i) {
                format!("{word} (unbounded dynamic)")
            } else if a.is_dynamic_dimension(i) {
                format!("{word} (dynamic)")
            } else {
                word
            }
        })
        .collect();
    format!("[{}]", parts.join(", "))
}

fn layout_in_words(a: &ArrayShape, l: &Layout, out: &mut String, pad: &str) {
    let order: Vec<String> = l
        .minor_to_major()
        .iter()
        .rev()
        .map(|&d| format!("dim {d} ({})", dim_word(a, d as usize)))
        .collect();
    if !order.is_empty() {
        let _ = writeln!(out, "{pad}  major to minor: {}", order.join(", "));
    }
    if !l.tiles().is_empty() {
        let tiles: Vec<String> = l.tiles().iter().map(|t| t.to_string()).collect();
        let _ = writeln!(
            out,
            "{pad}  tiles:          {} (applied in that order)",
            tiles.join(" then ")
        );
    }
    let natural = a.element_type().bit_width().unwrap_or(0);
    let _ = match l.element_size_in_bits() {
        0 => writeln!(out, "{pad}  element size:   {natural} bits (natural)"),
        n => writeln!(
            out,
            "{pad}  element size:   {n} bits (E({n}); natural {natural})"
        ),
    };
    if l.tail_padding_alignment_in_elements() != 1 {
        let _ = writeln!(
            out,
            "{pad}  tail padding:   to a multiple of {} elements",
            l.tail_padding_alignment_in_elements()
        );
    }
    let space = match l.memory_space() {
        0 => "0 (default)".to_string(),
        1 => "1 (generic fast memory)".to_string(),
        5 => "5 (host)".to_string(),
        n => n.to_string(),
    };
    let _ = writeln!(out, "{pad}  memory space:   {space}");
    if !l.split_configs().is_empty() {
        let splits: Vec<String> = l.split_configs().iter().map(|s| s.to_string()).collect();
        let _ = writeln!(out, "{pad}  splits:         {}", splits.join(""));
    }
}

/// The array's tiled arrangement; a layout-less array takes XLA's default.
fn tiled(a: &ArrayShape) -> xla_shape::Result<TiledLayout> {
    match a.layout() {
        Some(_) => TiledLayout::new(a),
        None => a
            .clone()
            .with_layout(Some(layout_util::make_descending_layout(a.rank())))
            .and_then(|a| TiledLayout::new(&a)),
    }
}

fn describe_array(a: &ArrayShape, numbers: Numbers, out: &mut String, pad: &str) {
    let number = |n: i64| numbers.format(n);
    let _ = writeln!(
        out,
        "{pad}element type:   {} ({} bits)",
        a.element_type(),
        a.element_type().bit_width().unwrap_or(0)
    );
    if let Some(names) = crate::output::known_as(a.element_type()) {
        let _ = writeln!(out, "{pad}  known as:     {names}");
    }
    let _ = writeln!(out, "{pad}dimensions:     {}", dims_in_words(a));
    match a.layout() {
        Some(l) => {
            let _ = writeln!(out, "{pad}layout:         {l}");
            layout_in_words(a, l, out, pad);
        }
        None => {
            let _ = writeln!(
                out,
                "{pad}layout:         none (XLA's default is descending)"
            );
        }
    }
    match shape_util::elements_in(a) {
        Ok(n) => {
            let _ = writeln!(out, "{pad}elements:       {}", number(n));
        }
        Err(e) => {
            let _ = writeln!(out, "{pad}elements:       unknown ({e})");
        }
    }
    let shape = Shape::Array(a.clone());
    if let Ok(n) = shape_util::byte_size_of(&shape, 8) {
        let _ = writeln!(
            out,
            "{pad}byte size:      {} (XLA's ByteSizeOf: tiles ignored)",
            number(n)
        );
    }
    match tiled(a) {
        Ok(t) => {
            let _ = writeln!(
                out,
                "{pad}in memory:      {} bytes padded, {} unpadded ({} of padding)",
                number(t.byte_size()),
                number(t.unpadded_byte_size()),
                number(t.padding_byte_size())
            );
        }
        Err(e) => {
            let _ = writeln!(out, "{pad}in memory:      unknown ({e})");
        }
    }
}

/// The summary `describe` prints.
pub fn describe(shape: &Shape, numbers: Numbers) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "shape:          {shape}");
    match shape {
        Shape::Array(a) => describe_array(a, numbers, &mut out, ""),
        Shape::Tuple(elements) => {
            let _ = writeln!(out, "tuple of {} elements", elements.len());
            shape_util::for_each_leaf_shape(shape, |leaf, index| {
                let _ = writeln!(out, "element {index}: {leaf}");
                if let Shape::Array(a) = leaf {
                    describe_array(a, numbers, &mut out, "    ");
                }
            });
        }
        Shape::Buffer(inner) => {
            let _ = writeln!(out, "buffer of {inner}");
            if let Shape::Array(a) = &**inner {
                describe_array(a, numbers, &mut out, "    ");
            }
        }
        Shape::Token => {
            let _ = writeln!(out, "a token (orders side effects; holds no data)");
        }
        Shape::Opaque => {
            let _ = writeln!(out, "an opaque value (backend-defined data)");
        }
    }
    let _ = writeln!(
        out,
        "proto hex:      {}",
        formats::to_hex(&shape.to_proto_bytes())
    );
    out
}

/// The summary of a layout on its own.
pub fn describe_layout(layout: &Layout) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "layout:         {layout}");
    let order: Vec<String> = layout
        .minor_to_major()
        .iter()
        .rev()
        .map(|d| format!("dim {d}"))
        .collect();
    if !order.is_empty() {
        let _ = writeln!(out, "  major to minor: {}", order.join(", "));
    }
    if !layout.tiles().is_empty() {
        let tiles: Vec<String> = layout.tiles().iter().map(|t| t.to_string()).collect();
        let _ = writeln!(
            out,
            "  tiles:          {} (applied in that order)",
            tiles.join(" then ")
        );
    }
    let _ = writeln!(
        out,
        "proto hex:      {} (LayoutProto)",
        formats::to_hex(&layout.to_proto_bytes())
    );
    out
}

fn layout_json(l: &Layout) -> Json {
    json!({
        "layout": l.to_string(),
        "minor_to_major": l.minor_to_major(),
        "tiles": l.tiles().iter().map(|t| t.dimensions().iter().map(|&d| {
            if d == xla_shape::Tile::COMBINE_DIMENSION { json!("*") } else { json!(d) }
        }).collect::<Vec<_>>()).collect::<Vec<_>>(),
        "element_size_in_bits": l.element_size_in_bits(),
        "tail_padding_alignment_in_elements": l.tail_padding_alignment_in_elements(),
        "memory_space": l.memory_space(),
        "split_configs": l.split_configs().iter().map(|s| s.to_string()).collect::<Vec<_>>(),
    })
}

fn array_json(a: &ArrayShape) -> Json {
    let dimensions: Vec<Json> = (0..a.rank())
        .map(|i| {
            json!({
                "size": if a.is_unbounded_dynamic_dimension(i) { Json::Null } else { json!(a.dimension(i)) },
                "dynamic": a.is_dynamic_dimension(i),
            })
        })
        .collect();
    let in_memory = tiled(a).ok().map(|t| {
        json!({
            "bytes": t.byte_size(),
            "unpadded_bytes": t.unpadded_byte_size(),
            "padding_bytes": t.padding_byte_size(),
        })
    });
    json!({
        "shape": Shape::Array(a.clone()).to_string(),
        "element_type": a.element_type().to_string(),
        "element_bits": a.element_type().bit_width(),
        "element_type_names": crate::output::names_json(a.element_type()),
        "dimensions": dimensions,
        "layout": a.layout().map(layout_json),
        "elements": shape_util::elements_in(a).ok(),
        "byte_size": shape_util::byte_size_of(&Shape::Array(a.clone()), 8).ok(),
        "in_memory": in_memory,
    })
}

/// The summary as one JSON document: `kind`, the printed `shape`, the
/// `proto_hex`, and `arrays`, one object per array leaf with its `index`
/// in the tuple.
pub fn describe_json(shape: &Shape) -> Json {
    let kind = match shape {
        Shape::Array(_) => "array",
        Shape::Tuple(_) => "tuple",
        Shape::Buffer(_) => "buffer",
        Shape::Token => "token",
        Shape::Opaque => "opaque",
    };
    let mut arrays = Vec::new();
    shape_util::for_each_leaf_shape(shape, |leaf, index| {
        let array = match leaf {
            Shape::Array(a) => Some(a),
            Shape::Buffer(inner) => match &**inner {
                Shape::Array(a) => Some(a),
                _ => None,
            },
            _ => None,
        };
        if let Some(a) = array {
            let mut v = array_json(a);
            v["index"] = json!(&index[..]);
            arrays.push(v);
        }
    });
    json!({
        "kind": kind,
        "shape": shape.to_string(),
        "arrays": arrays,
        "proto_hex": formats::to_hex(&shape.to_proto_bytes()),
    })
}

/// A layout on its own as one JSON document.
pub fn describe_layout_json(layout: &Layout) -> Json {
    let mut v = layout_json(layout);
    v["kind"] = json!("layout");
    v["proto_hex"] = json!(formats::to_hex(&layout.to_proto_bytes()));
    v
}

/// `describe`: the summary of INPUT; without INPUT, of standard input,
/// or of the built-in example when standard input is a terminal.
pub fn run(args: &Args, cx: &mut Context<impl io::Write>) -> Result<(), Failure> {
    let value = if args.input.is_none() && io::stdin().is_terminal() {
        Value::Shape(EXAMPLE.parse()?)
    } else {
        cx.read_value(args.input.as_deref(), args.from)?
    };
    let numbers = Numbers {
        grouped: args.group_digits,
    };
    write(&value, numbers, cx)
}

/// `xla-shape` without a command: the summary of the built-in example.
pub fn run_example(cx: &mut Context<impl io::Write>) -> Result<(), Failure> {
    write(&Value::Shape(EXAMPLE.parse()?), Numbers::default(), cx)
}

/// Writes the summary of `value`, as text or JSON.
fn write(value: &Value, numbers: Numbers, cx: &mut Context<impl io::Write>) -> Result<(), Failure> {
    match (value, cx.json) {
        (Value::Shape(shape), false) => cx.out.write_all(describe(shape, numbers).as_bytes())?,
        (Value::Shape(shape), true) => cx.write_json(&describe_json(shape))?,
        (Value::Layout(layout), false) => cx.out.write_all(describe_layout(layout).as_bytes())?,
        (Value::Layout(layout), true) => cx.write_json(&describe_layout_json(layout))?,
    }
    Ok(())
}
