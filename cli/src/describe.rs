//! `describe`: a readable summary of a shape.

use std::fmt::Write as _;

use xla_shape::formats;
use xla_shape::tiling::TiledLayout;
use xla_shape::{ArrayShape, Error, Layout, Result, Shape, layout_util, shape_util};

/// Parses an array shape given on the command line.
pub fn parse_array(text: &str) -> Result<ArrayShape> {
    match text.trim().parse::<Shape>()? {
        Shape::Array(a) => Ok(a),
        other => Err(Error::new(
            xla_shape::ErrorKind::InvalidArgument,
            format!("{other} is not an array shape"),
        )),
    }
}

/// `[a, b, c]`.
pub fn list(values: &[i64]) -> String {
    format!("{values:?}")
}

/// `a,b,c`.
pub fn comma_list(values: &[i64]) -> String {
    values
        .iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

fn number(n: i64) -> String {
    // Thousands separated with `_`, as Rust literals: 335_544_320.
    let digits = n.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push('_');
        }
        out.push(c);
    }
    if n < 0 { format!("-{out}") } else { out }
}

fn dims_in_words(a: &ArrayShape) -> String {
    let mut parts = Vec::new();
    for (i, &d) in a.dimensions().iter().enumerate() {
        parts.push(if a.is_unbounded_dynamic_dimension(i) {
            "? (unbounded dynamic)".to_string()
        } else if a.is_dynamic_dimension(i) {
            format!("<={d} (dynamic)")
        } else {
            d.to_string()
        });
    }
    format!("[{}]", parts.join(", "))
}

fn layout_in_words(a: &ArrayShape, l: &Layout, out: &mut String, pad: &str) {
    let order: Vec<String> = l
        .minor_to_major()
        .iter()
        .rev()
        .map(|&d| format!("dim {d} ({})", a.dimension(d as usize)))
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

fn describe_array(a: &ArrayShape, out: &mut String, pad: &str) {
    let _ = writeln!(
        out,
        "{pad}element type:   {} ({} bits)",
        a.element_type(),
        a.element_type().bit_width().unwrap_or(0)
    );
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
    // Sizes with every tile applied; a layout-less array takes XLA's default.
    let with_layout = match a.layout() {
        Some(_) => Ok(a.clone()),
        None => a
            .clone()
            .with_layout(Some(layout_util::make_descending_layout(a.rank()))),
    };
    match with_layout.and_then(|a| TiledLayout::new(&a)) {
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
pub fn describe(shape: &Shape) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "shape:          {shape}");
    match shape {
        Shape::Array(a) => describe_array(a, &mut out, ""),
        Shape::Tuple(elements) => {
            let _ = writeln!(out, "tuple of {} elements", elements.len());
            shape_util::for_each_leaf_shape(shape, |leaf, index| {
                let _ = writeln!(out, "element {index}: {leaf}");
                if let Shape::Array(a) = leaf {
                    describe_array(a, &mut out, "    ");
                }
            });
        }
        Shape::Buffer(inner) => {
            let _ = writeln!(out, "buffer of {inner}");
            if let Shape::Array(a) = &**inner {
                describe_array(a, &mut out, "    ");
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
