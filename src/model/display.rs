//! XLA's printed forms, the `Display` of the model types:
//! `ShapeUtil::HumanString(WithLayout)`, `Layout::ToString`,
//! `Tile::ToString`, `SplitConfig::ToString` and the program-shape string
//! (`xla/shape_util.cc`, `xla/layout.cc`). Everything appends to a
//! `String` without going through `fmt`; the `Display` impls hand the
//! result over in one piece ([`display`]). The HLO parser (`text/`)
//! prints its messages with the same writers.

use std::cell::RefCell;
use std::fmt;

use crate::model::layout::Layout;
use crate::model::primitive_type::PrimitiveType;
use crate::model::program_shape::ProgramShape;
use crate::model::shape::{ArrayShape, Shape};
use crate::model::tile::{SplitConfig, Tile};

/// Runs `write` on a reused per-thread buffer and hands the text to `f`
/// in one piece: the `Display` impls of the model types print through
/// this, so that printing allocates nothing but its result.
pub(crate) fn display(f: &mut fmt::Formatter<'_>, write: impl FnOnce(&mut String)) -> fmt::Result {
    thread_local! {
        static BUFFER: RefCell<String> = const { RefCell::new(String::new()) };
    }
    BUFFER.with(|buffer| match buffer.try_borrow_mut() {
        Ok(mut s) => {
            s.clear();
            write(&mut s);
            let result = f.write_str(&s);
            if s.capacity() > 4096 {
                *s = String::new();
            }
            result
        }
        // Printing from inside a `Write` that is itself printing a shape.
        Err(_) => {
            let mut s = String::new();
            write(&mut s);
            f.write_str(&s)
        }
    })
}

/// "00" to "99", two bytes each.
const PAIRS: &str = "00010203040506070809101112131415161718192021222324252627282930313233343536373839\
                     40414243444546474849505152535455565758596061626364656667686970717273747576777879\
                     8081828384858687888990919293949596979899";

/// Appends the decimal form of `v`.
pub(crate) fn push_i64(out: &mut String, v: i64) {
    if v < 0 {
        out.push('-');
    }
    push_u64(out, v.unsigned_abs());
}

fn push_u64(out: &mut String, n: u64) {
    if n >= 100 {
        push_u64(out, n / 100);
        let k = (n % 100) as usize * 2;
        out.push_str(&PAIRS[k..k + 2]);
    } else if n >= 10 {
        let k = n as usize * 2;
        out.push_str(&PAIRS[k..k + 2]);
    } else {
        out.push(char::from(b'0' + n as u8));
    }
}

/// `HumanString` (or `HumanStringWithLayout` when `with_layout`).
pub(crate) fn write_shape(out: &mut String, shape: &Shape, with_layout: bool) {
    match shape {
        Shape::Array(a) => write_array(out, a, with_layout),
        Shape::Tuple(elements) => {
            out.push('(');
            for (i, e) in elements.iter().enumerate() {
                if i > 0 {
                    if i % 5 == 0 {
                        out.push_str(", /*index=");
                        push_i64(out, i as i64);
                        out.push_str("*/");
                    } else {
                        out.push_str(", ");
                    }
                }
                write_shape(out, e, with_layout);
            }
            out.push(')');
        }
        Shape::Token => out.push_str("token[]"),
        Shape::Opaque => out.push_str("opaque[]"),
        Shape::Buffer(inner) => {
            out.push_str("b(");
            write_shape(out, inner, with_layout);
            out.push(')');
        }
    }
}

/// An array: type, dimensions and, when `with_layout`, the layout (omitted
/// for a scalar whose layout prints `{}`).
pub(crate) fn write_array(out: &mut String, a: &ArrayShape, with_layout: bool) {
    // Enough for most arrays at once, rather than growing a byte at a time.
    out.reserve(24 + 8 * a.rank());
    write_array_parts(
        out,
        a.element_type(),
        a.dimensions(),
        a.dynamic_dimensions(),
    );
    if let (true, Some(layout)) = (with_layout, a.layout()) {
        let start = out.len();
        write_layout(out, layout);
        if a.rank() == 0 && &out[start..] == "{}" {
            out.truncate(start);
        }
    }
}

/// `HumanString` of an array given by parts; `dynamic` may be empty (all
/// static).
pub(crate) fn write_array_parts(
    out: &mut String,
    t: PrimitiveType,
    dims: &[i64],
    dynamic: &[bool],
) {
    out.push_str(t.lowercase_name());
    out.push('[');
    for (i, &d) in dims.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        if dynamic.get(i).copied().unwrap_or(false) {
            if d == ArrayShape::UNBOUNDED_SIZE {
                out.push('?');
                continue;
            }
            out.push_str("<=");
        }
        push_i64(out, d);
    }
    out.push(']');
}

/// `Tile::ToString`.
pub(crate) fn write_tile(out: &mut String, tile: &Tile) {
    out.push('(');
    for (i, &d) in tile.dimensions().iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        if d >= 0 {
            push_i64(out, d);
        } else if d == Tile::COMBINE_DIMENSION {
            out.push('*');
        } else {
            out.push_str("Invalid value ");
            push_i64(out, d);
        }
    }
    out.push(')');
}

/// `SplitConfig::ToString`.
pub(crate) fn write_split_config(out: &mut String, split: &SplitConfig) {
    out.push('(');
    push_i64(out, split.dimension());
    out.push(':');
    for (i, &x) in split.split_indices().iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_i64(out, x);
    }
    out.push(')');
}

fn write_integral_type(out: &mut String, t: PrimitiveType) {
    out.push_str(if t.is_integral() {
        t.lowercase_name()
    } else {
        "invalid"
    });
}

/// `Layout::ToString`: `{minor_to_major:T..L..#..*..E..S..SC..P..M..}`.
pub(crate) fn write_layout(out: &mut String, l: &Layout) {
    write_layout_with_physical(out, l, l.physical_shape().map(Some));
}

/// `Layout::ToString` with the physical shape given apart: `None` prints no
/// `P(...)`, `Some(None)` prints XLA's invalid shape
/// (`P(primitive_type_invalid[])`), for parser messages about shapes that
/// cannot be held.
pub(crate) fn write_layout_with_physical(
    out: &mut String,
    l: &Layout,
    physical: Option<Option<&Shape>>,
) {
    out.push('{');
    for (i, &d) in l.minor_to_major().iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_i64(out, d);
    }
    let colon_at = out.len();
    out.push(':');
    if !l.tiles().is_empty() {
        out.push('T');
        for t in l.tiles() {
            write_tile(out, t);
        }
    }
    if l.tail_padding_alignment_in_elements() != 1 {
        out.push_str("L(");
        push_i64(out, l.tail_padding_alignment_in_elements());
        out.push(')');
    }
    if l.index_primitive_type() != PrimitiveType::Invalid {
        out.push_str("#(");
        write_integral_type(out, l.index_primitive_type());
        out.push(')');
    }
    if l.pointer_primitive_type() != PrimitiveType::Invalid {
        out.push_str("*(");
        write_integral_type(out, l.pointer_primitive_type());
        out.push(')');
    }
    if l.element_size_in_bits() != 0 {
        out.push_str("E(");
        push_i64(out, l.element_size_in_bits());
        out.push(')');
    }
    if l.memory_space() != 0 {
        out.push_str("S(");
        push_i64(out, l.memory_space());
        out.push(')');
    }
    if !l.split_configs().is_empty() {
        out.push_str("SC");
        for s in l.split_configs() {
            write_split_config(out, s);
        }
    }
    if let Some(p) = physical {
        out.push_str("P(");
        match p {
            Some(p) => write_shape(out, p, true),
            None => out.push_str("primitive_type_invalid[]"),
        }
        out.push(')');
    }
    if l.dynamic_shape_metadata_prefix_bytes() > 0 {
        out.push_str("M(");
        push_i64(out, l.dynamic_shape_metadata_prefix_bytes());
        out.push(')');
    }
    if out.len() == colon_at + 1 {
        out.truncate(colon_at);
    }
    out.push('}');
}

/// `ShapeUtil::HumanString(ProgramShape)`.
pub(crate) fn write_program_shape(out: &mut String, p: &ProgramShape) {
    out.push('(');
    for (i, (name, shape)) in p.parameter_names().iter().zip(p.parameters()).enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(if name.is_empty() { "(unknown)" } else { name });
        out.push_str(": ");
        write_shape(out, shape, false);
    }
    out.push_str(") -> ");
    write_shape(out, p.result(), false);
}

/// Formats an index as XLA writes spans: `{3,5}`.
pub(crate) fn index_string(index: &[i64]) -> String {
    let mut s = String::from("{");
    for (i, &x) in index.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        push_i64(&mut s, x);
    }
    s.push('}');
    s
}

impl fmt::Display for Shape {
    /// XLA's `ShapeUtil::HumanStringWithLayout` (what `operator<<` prints).
    /// The alternate form `{:#}` is `ShapeUtil::HumanString`, without layouts.
    ///
    /// ```
    /// use xla_shape::{ArrayShape, Layout, PrimitiveType, Shape};
    /// let s = Shape::from(
    ///     ArrayShape::new(PrimitiveType::F32, [2, 3]).unwrap()
    ///         .with_layout(Some(Layout::new([0, 1]))).unwrap(),
    /// );
    /// assert_eq!(s.to_string(), "f32[2,3]{0,1}");
    /// assert_eq!(format!("{s:#}"), "f32[2,3]");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let with_layout = !f.alternate();
        display(f, |s| write_shape(s, self, with_layout))
    }
}

impl fmt::Display for ArrayShape {
    /// As [`Shape`]'s `Display`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let with_layout = !f.alternate();
        display(f, |s| write_array(s, self, with_layout))
    }
}

impl fmt::Display for Layout {
    /// XLA's `Layout::ToString`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        display(f, |s| write_layout(s, self))
    }
}

impl fmt::Display for Tile {
    /// XLA's `Tile::ToString`: `(8,128)`, `(2,*,128)`, `()`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        display(f, |s| write_tile(s, self))
    }
}

impl fmt::Display for SplitConfig {
    /// XLA's `SplitConfig::ToString`: `(dimension:i,j,...)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        display(f, |s| write_split_config(s, self))
    }
}

impl fmt::Display for ProgramShape {
    /// XLA's `ShapeUtil::HumanString(ProgramShape)`:
    /// `(name: shape, ...) -> result`, without layouts; an empty name
    /// prints as `(unknown)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        display(f, |s| write_program_shape(s, self))
    }
}

#[cfg(test)]
mod tests {
    use super::push_i64;

    #[test]
    fn integers_print_as_decimal() {
        for v in [
            0,
            5,
            9,
            10,
            42,
            99,
            100,
            101,
            999,
            1000,
            1280,
            16384,
            100_001,
            -1,
            -10,
            -100,
            i64::MAX,
            i64::MIN,
            i64::MIN + 1,
        ] {
            let mut s = String::new();
            push_i64(&mut s, v);
            assert_eq!(s, v.to_string());
        }
    }
}
