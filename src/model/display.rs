//! XLA's printed forms, the `Display` of the model types:
//! `ShapeUtil::HumanString(WithLayout)`, `Layout::ToString`,
//! `Tile::ToString`, `SplitConfig::ToString`, `ShapeIndex::ToString`, the
//! program-shape string (`xla/shape_util.cc`, `xla/layout.cc`,
//! `xla/shape_util.h`) and the lowercase names of element types. Everything goes through a
//! [`Printer`]: bytes gathered in a buffer on the stack and handed to the
//! destination (a `fmt::Formatter` or a `String`) in one piece, or in
//! pieces for a shape too large for the buffer, without `fmt`'s machinery
//! on the way. The HLO parser (`text/`) prints its messages with the same
//! writers.

use std::fmt;

use crate::model::layout::Layout;
use crate::model::primitive_type::PrimitiveType;
use crate::model::program_shape::ProgramShape;
use crate::model::shape::{ArrayShape, Shape};
use crate::model::shape_index::ShapeIndex;
use crate::model::tile::{SplitConfig, Tile};

/// The printer's buffer: most printed shapes fit, so they reach their
/// destination in one `write_str`.
const CAPACITY: usize = 128;

/// The most bytes one step of the printer writes into its buffer: the
/// longest type name (`primitive_type_invalid`, 22 bytes) or literal, or
/// an integer (20 bytes for `-9223372036854775808`).
const PIECE: usize = 24;

/// Every type's name, padded with zeros to [`PIECE`] bytes, and its
/// length, at the type's proto number.
static TYPE_NAMES: [([u8; PIECE], u8); TYPE_SLOTS] = type_names();

const TYPE_SLOTS: usize = {
    let mut max = 0;
    let mut k = 0;
    while k < PrimitiveType::ALL.len() {
        let n = PrimitiveType::ALL[k] as usize;
        if n > max {
            max = n;
        }
        k += 1;
    }
    max + 1
};

const fn type_names() -> [([u8; PIECE], u8); TYPE_SLOTS] {
    let mut table = [([0; PIECE], 0); TYPE_SLOTS];
    let mut k = 0;
    while k < PrimitiveType::ALL.len() {
        let t = PrimitiveType::ALL[k];
        let name = t.lowercase_name().as_bytes();
        let slot = &mut table[t as usize];
        let mut j = 0;
        while j < name.len() {
            slot.0[j] = name[j];
            j += 1;
        }
        slot.1 = name.len() as u8;
        k += 1;
    }
    table
}

/// "00" to "99", two bytes each.
const PAIRS: &[u8; 200] = b"0001020304050607080910111213141516171819\
                            2021222324252627282930313233343536373839\
                            4041424344454647484950515253545556575859\
                            6061626364656667686970717273747576777879\
                            8081828384858687888990919293949596979899";

/// XLA's printed forms written into a buffer on the stack, which goes to
/// `out` when it is full and at [`finish`](Self::finish). Like XLA's
/// `Printer` (`xla/printer.h`), which `ShapeUtil::PrintHumanString` and
/// `Layout::Print` append to. Hand-written rather than through `fmt` (or
/// the `itoa` crate, whose digits would be copied once more): the printer
/// took a third of its time in `fmt::write` and a per-thread buffer, and
/// the digits of a dimension are written straight into the buffer here.
pub(crate) struct Printer<'a> {
    buf: [u8; CAPACITY],
    len: usize,
    out: &'a mut dyn fmt::Write,
    result: fmt::Result,
}

impl<'a> Printer<'a> {
    pub(crate) fn new(out: &'a mut dyn fmt::Write) -> Self {
        Printer {
            buf: [0; CAPACITY],
            len: 0,
            out,
            result: Ok(()),
        }
    }

    /// Hands what was printed to the destination: the first error of its
    /// `write_str`, if any.
    pub(crate) fn finish(&mut self) -> fmt::Result {
        self.flush();
        self.result
    }

    /// Where `n` (at most [`PIECE`]) more bytes go in the buffer, emptied
    /// first if they do not fit.
    #[inline(always)]
    fn at(&mut self, n: usize) -> usize {
        self.room(self.len, n)
    }

    /// [`at`](Self::at) for a cursor `i` kept apart from `len` (the loops
    /// over dimensions keep theirs in a register): `i`, or 0 once the
    /// buffer up to `i` has gone out.
    #[inline(always)]
    fn room(&mut self, i: usize, n: usize) -> usize {
        debug_assert!(n <= PIECE);
        if i > CAPACITY - n {
            self.len = i;
            self.flush();
            0
        } else {
            i
        }
    }

    #[cold]
    #[inline(never)]
    fn flush(&mut self) {
        if self.result.is_ok() && self.len > 0 {
            let bytes = &self.buf[..self.len];
            debug_assert!(std::str::from_utf8(bytes).is_ok());
            // SAFETY: the buffer holds only what `byte` (ASCII bytes),
            // `text` (whole `str`s), `type_name` (ASCII names) and `int`
            // (ASCII digits and `-`) put there, so it is valid UTF-8.
            // Checking it (`str::from_utf8`) cost more instructions than
            // printing a small shape. The tests below run under Miri:
            // `cargo +nightly miri test --lib model::display`.
            let s = unsafe { std::str::from_utf8_unchecked(bytes) };
            self.result = self.out.write_str(s);
        }
        self.len = 0;
    }

    /// One ASCII byte.
    #[inline]
    fn byte(&mut self, b: u8) {
        debug_assert!(b.is_ascii());
        let i = self.at(1);
        self.buf[i] = b;
        self.len = i + 1;
    }

    /// Text: a literal or a type name, copied into the buffer; anything
    /// longer than [`PIECE`] (a parameter name) goes to `out` on its own.
    #[inline]
    fn text(&mut self, s: &str) {
        let n = s.len();
        if n > PIECE {
            return self.long_text(s);
        }
        let i = self.at(PIECE);
        self.buf[i..i + n].copy_from_slice(s.as_bytes());
        self.len = i + n;
    }

    #[cold]
    fn long_text(&mut self, s: &str) {
        self.flush();
        if self.result.is_ok() {
            self.result = self.out.write_str(s);
        }
    }

    /// The decimal form of `v`.
    pub(crate) fn int(&mut self, v: i64) {
        let i = self.at(20);
        self.len = self.put_int(i, v);
    }

    /// Writes `v` at `i`, which has room for 20 bytes; returns where it
    /// ends. Dimensions are mostly single digits: those take no call.
    #[inline(always)]
    fn put_int(&mut self, i: usize, v: i64) -> usize {
        if (v as u64) < 10 {
            self.buf[i] = b'0' + v as u8;
            i + 1
        } else {
            self.put_long_int(i, v)
        }
    }

    fn put_long_int(&mut self, mut i: usize, v: i64) -> usize {
        if v < 0 {
            self.buf[i] = b'-';
            i += 1;
        }
        let mut n = v.unsigned_abs();
        if n < 10 {
            self.buf[i] = b'0' + n as u8;
            return i + 1;
        }
        if n < 100 {
            let k = n as usize * 2;
            self.buf[i..i + 2].copy_from_slice(&PAIRS[k..k + 2]);
            return i + 2;
        }
        let end = i + n.ilog10() as usize + 1;
        let mut j = end;
        while n >= 100 {
            let k = (n % 100) as usize * 2;
            n /= 100;
            j -= 2;
            self.buf[j..j + 2].copy_from_slice(&PAIRS[k..k + 2]);
        }
        if n >= 10 {
            let k = n as usize * 2;
            self.buf[i..i + 2].copy_from_slice(&PAIRS[k..k + 2]);
        } else {
            self.buf[i] = b'0' + n as u8;
        }
        end
    }

    /// An index as XLA writes spans and `ShapeIndex::ToString` writes
    /// indices: `{3,5}`.
    fn index(&mut self, index: &[i64]) {
        self.byte(b'{');
        self.ints(index);
        self.byte(b'}');
    }

    /// `v` as a comma-separated list.
    #[inline]
    fn ints(&mut self, v: &[i64]) {
        let mut i = self.len;
        for (k, &x) in v.iter().enumerate() {
            i = self.room(i, 21);
            if k > 0 {
                self.buf[i] = b',';
                i += 1;
            }
            i = self.put_int(i, x);
        }
        self.len = i;
    }

    /// `t`'s name (`PrimitiveType_Name` in lower case), from a table of
    /// names padded to [`PIECE`] bytes: one fixed-size copy.
    #[inline]
    fn type_name(&mut self, t: PrimitiveType) {
        let i = self.at(PIECE);
        let (name, len) = &TYPE_NAMES[t as usize];
        self.buf[i..i + PIECE].copy_from_slice(name);
        self.len = i + *len as usize;
    }

    /// `HumanString` (or `HumanStringWithLayout` when `with_layout`).
    pub(crate) fn shape(&mut self, shape: &Shape, with_layout: bool) {
        match shape {
            Shape::Array(a) => self.array(a, with_layout),
            Shape::Tuple(elements) => {
                self.byte(b'(');
                for (i, e) in elements.iter().enumerate() {
                    if i > 0 {
                        if i % 5 == 0 {
                            self.text(", /*index=");
                            self.int(i as i64);
                            self.text("*/");
                        } else {
                            self.text(", ");
                        }
                    }
                    self.shape(e, with_layout);
                }
                self.byte(b')');
            }
            Shape::Token => self.text("token[]"),
            Shape::Opaque => self.text("opaque[]"),
            Shape::Buffer(inner) => {
                self.text("b(");
                self.shape(inner, with_layout);
                self.byte(b')');
            }
        }
    }

    /// An array: type, dimensions and, when `with_layout`, the layout
    /// (omitted for a scalar whose layout prints `{}`).
    pub(crate) fn array(&mut self, a: &ArrayShape, with_layout: bool) {
        self.array_parts(a.element_type(), a.dimensions(), a.dynamic_dimensions());
        if let (true, Some(l)) = (with_layout, a.layout()) {
            let physical = l.physical_shape().map(Some);
            if a.rank() > 0 || !l.minor_to_major().is_empty() || has_attributes(l, physical) {
                self.layout(l, physical);
            }
        }
    }

    /// `HumanString` of an array given by parts; `dynamic` may be empty
    /// (all static).
    #[inline(always)]
    pub(crate) fn array_parts(&mut self, t: PrimitiveType, dims: &[i64], dynamic: &[bool]) {
        self.type_name(t);
        self.byte(b'[');
        if dynamic.contains(&true) {
            self.dynamic_dimensions(dims, dynamic);
        } else {
            self.ints(dims);
        }
        self.byte(b']');
    }

    fn dynamic_dimensions(&mut self, dims: &[i64], dynamic: &[bool]) {
        for (i, &d) in dims.iter().enumerate() {
            if i > 0 {
                self.byte(b',');
            }
            if dynamic.get(i).copied().unwrap_or(false) {
                if d == ArrayShape::UNBOUNDED_SIZE {
                    self.byte(b'?');
                    continue;
                }
                self.text("<=");
            }
            self.int(d);
        }
    }

    /// `Tile::ToString`.
    pub(crate) fn tile(&mut self, tile: &Tile) {
        self.byte(b'(');
        for (i, &d) in tile.dimensions().iter().enumerate() {
            if i > 0 {
                self.byte(b',');
            }
            if d >= 0 {
                self.int(d);
            } else if d == Tile::COMBINE_DIMENSION {
                self.byte(b'*');
            } else {
                self.text("Invalid value ");
                self.int(d);
            }
        }
        self.byte(b')');
    }

    /// `SplitConfig::ToString`.
    pub(crate) fn split_config(&mut self, split: &SplitConfig) {
        self.byte(b'(');
        self.int(split.dimension());
        self.byte(b':');
        self.ints(split.split_indices());
        self.byte(b')');
    }

    fn integral_type(&mut self, t: PrimitiveType) {
        self.text(if t.is_integral() {
            t.lowercase_name()
        } else {
            "invalid"
        });
    }

    /// `Layout::ToString`, `{minor_to_major:T..L..#..*..E..S..SC..P..M..}`,
    /// with the physical shape given apart: `None` prints no `P(...)`,
    /// `Some(None)` prints XLA's invalid shape (`P(primitive_type_invalid[])`),
    /// for parser messages about shapes that cannot be held.
    #[inline(always)]
    pub(crate) fn layout(&mut self, l: &Layout, physical: Option<Option<&Shape>>) {
        self.byte(b'{');
        self.ints(l.minor_to_major());
        if has_attributes(l, physical) {
            self.byte(b':');
            self.attributes(l, physical);
        }
        self.byte(b'}');
    }

    fn attributes(&mut self, l: &Layout, physical: Option<Option<&Shape>>) {
        if !l.tiles().is_empty() {
            self.byte(b'T');
            for t in l.tiles() {
                self.tile(t);
            }
        }
        let r = l.rare();
        if r.tail_padding_alignment_in_elements != 1 {
            self.text("L(");
            self.int(r.tail_padding_alignment_in_elements);
            self.byte(b')');
        }
        if r.index_primitive_type != PrimitiveType::Invalid {
            self.text("#(");
            self.integral_type(r.index_primitive_type);
            self.byte(b')');
        }
        if r.pointer_primitive_type != PrimitiveType::Invalid {
            self.text("*(");
            self.integral_type(r.pointer_primitive_type);
            self.byte(b')');
        }
        if l.element_size_in_bits() != 0 {
            self.text("E(");
            self.int(l.element_size_in_bits());
            self.byte(b')');
        }
        if l.memory_space() != 0 {
            self.text("S(");
            self.int(l.memory_space());
            self.byte(b')');
        }
        if !r.split_configs.is_empty() {
            self.text("SC");
            for s in &r.split_configs {
                self.split_config(s);
            }
        }
        if let Some(p) = physical {
            self.text("P(");
            match p {
                Some(p) => self.shape(p, true),
                None => self.text("primitive_type_invalid[]"),
            }
            self.byte(b')');
        }
        if r.dynamic_shape_metadata_prefix_bytes > 0 {
            self.text("M(");
            self.int(r.dynamic_shape_metadata_prefix_bytes);
            self.byte(b')');
        }
    }

    /// `ShapeUtil::HumanString(ProgramShape)`.
    pub(crate) fn program_shape(&mut self, p: &ProgramShape) {
        self.byte(b'(');
        for (i, (name, shape)) in p.parameter_names().iter().zip(p.parameters()).enumerate() {
            if i > 0 {
                self.text(", ");
            }
            self.text(if name.is_empty() { "(unknown)" } else { name });
            self.text(": ");
            self.shape(shape, false);
        }
        self.text(") -> ");
        self.shape(p.result(), false);
    }

    /// `ComputationLayout::ToString`: `(p0, p1)->result`, with layouts and
    /// without names, `/*index=5*/` before every fifth parameter as in
    /// tuples.
    pub(crate) fn computation_layout(&mut self, p: &ProgramShape) {
        self.byte(b'(');
        for (i, shape) in p.parameters().iter().enumerate() {
            if i > 0 {
                self.text(", ");
                if i % 5 == 0 {
                    self.text("/*index=");
                    self.int(i as i64);
                    self.text("*/");
                }
            }
            self.shape(shape, true);
        }
        self.text(")->");
        self.shape(p.result(), true);
    }
}

/// Whether `Layout::ToString` prints anything after the minor-to-major
/// list (and so the `:`).
fn has_attributes(l: &Layout, physical: Option<Option<&Shape>>) -> bool {
    !l.tiles().is_empty()
        || l.element_size_in_bits() != 0
        || l.memory_space() != 0
        || physical.is_some()
        || l.rare.as_deref().is_some_and(|r| {
            r.tail_padding_alignment_in_elements != 1
                || r.index_primitive_type != PrimitiveType::Invalid
                || r.pointer_primitive_type != PrimitiveType::Invalid
                || !r.split_configs.is_empty()
                || r.dynamic_shape_metadata_prefix_bytes > 0
        })
}

/// Runs `write` on a [`Printer`] that appends to `out`.
pub(crate) fn print_into(out: &mut String, write: impl FnOnce(&mut Printer<'_>)) {
    let mut p = Printer::new(out);
    write(&mut p);
    // Appending to a `String` does not fail.
    let _ = p.finish();
}

/// Runs `write` on a [`Printer`] that writes to `f`: the `Display` impls.
#[inline(always)]
fn display(f: &mut fmt::Formatter<'_>, write: impl FnOnce(&mut Printer<'_>)) -> fmt::Result {
    let mut p = Printer::new(f);
    write(&mut p);
    p.finish()
}

/// `HumanString` of an array given by parts, appended to `out`.
pub(crate) fn write_array_parts(
    out: &mut String,
    t: PrimitiveType,
    dims: &[i64],
    dynamic: &[bool],
) {
    print_into(out, |p| p.array_parts(t, dims, dynamic));
}

/// [`Printer::layout`] appended to `out`.
pub(crate) fn write_layout_with_physical(
    out: &mut String,
    l: &Layout,
    physical: Option<Option<&Shape>>,
) {
    print_into(out, |p| p.layout(l, physical));
}

/// Formats an index as XLA writes spans: `{3,5}`.
pub(crate) fn index_string(index: &[i64]) -> String {
    let mut s = String::new();
    print_into(&mut s, |p| p.index(index));
    s
}
impl Shape {
    /// Appends what `Display` prints (XLA's `ShapeUtil::HumanStringWithLayout`)
    /// to `out`, as XLA's `ShapeUtil::PrintHumanStringWithLayout` appends to
    /// a `Printer`: the same bytes as `write!(out, "{shape}")` without
    /// `fmt`'s machinery, which is about a fifth of printing a small shape.
    ///
    /// ```
    /// use xla_shape::Shape;
    /// let s: Shape = "(f32[2,3]{0,1}, s32[])".parse()?;
    /// let mut out = String::from("shape: ");
    /// s.print_to(&mut out);
    /// assert_eq!(out, "shape: (f32[2,3]{0,1}, s32[])");
    /// # Ok::<(), xla_shape::Error>(())
    /// ```
    #[doc(alias = "PrintHumanStringWithLayout")]
    pub fn print_to(&self, out: &mut String) {
        print_into(out, |p| p.shape(self, true));
    }
}

impl Layout {
    /// Appends what `Display` prints (XLA's `Layout::ToString`) to `out`,
    /// as XLA's `Layout::Print` appends to a `Printer`; see
    /// [`Shape::print_to`].
    ///
    /// ```
    /// use xla_shape::Layout;
    /// let mut out = String::new();
    /// Layout::new([1, 0]).with_memory_space(1).print_to(&mut out);
    /// assert_eq!(out, "{1,0:S(1)}");
    /// ```
    #[doc(alias = "Print")]
    pub fn print_to(&self, out: &mut String) {
        print_into(out, |p| p.layout(self, self.physical_shape().map(Some)));
    }
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
        // Arrays, most of what is printed, without a stop in `shape`.
        display(f, |p| match self {
            Shape::Array(a) => p.array(a, with_layout),
            _ => p.shape(self, with_layout),
        })
    }
}

impl fmt::Display for ArrayShape {
    /// As [`Shape`]'s `Display`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let with_layout = !f.alternate();
        display(f, |p| p.array(self, with_layout))
    }
}

impl fmt::Display for Layout {
    /// XLA's `Layout::ToString`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        display(f, |p| p.layout(self, self.physical_shape().map(Some)))
    }
}

impl fmt::Display for Tile {
    /// XLA's `Tile::ToString`: `(8,128)`, `(2,*,128)`, `()`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        display(f, |p| p.tile(self))
    }
}

impl fmt::Display for SplitConfig {
    /// XLA's `SplitConfig::ToString`: `(dimension:i,j,...)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        display(f, |p| p.split_config(self))
    }
}

impl ProgramShape {
    /// XLA's `ComputationLayout::ToString`: the parameter and result shapes
    /// with their layouts and without names, as the header of an HLO
    /// module holds them in `entry_computation_layout={...}`.
    ///
    /// ```
    /// use xla_shape::{ProgramShape, Shape};
    /// let p = ProgramShape::new(
    ///     vec![("x".into(), "f32[2,3]{1,0}".parse()?), ("".into(), Shape::Token)],
    ///     "(f32[3,2]{0,1}, s32[])".parse()?,
    /// );
    /// assert_eq!(p.to_computation_layout_string(), "(f32[2,3]{1,0}, token[])->(f32[3,2]{0,1}, s32[])");
    /// # Ok::<(), xla_shape::Error>(())
    /// ```
    #[doc(alias = "ComputationLayout::ToString")]
    pub fn to_computation_layout_string(&self) -> String {
        let mut out = String::new();
        print_into(&mut out, |p| p.computation_layout(self));
        out
    }
}

impl fmt::Display for ShapeIndex {
    /// XLA's `ShapeIndex::ToString`: `{1,2,42}`, no spaces.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        display(f, |p| p.index(self))
    }
}

impl fmt::Display for PrimitiveType {
    /// The [lowercase name](PrimitiveType::lowercase_name), as in HLO
    /// text.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.lowercase_name())
    }
}

impl fmt::Display for ProgramShape {
    /// XLA's `ShapeUtil::HumanString(ProgramShape)`:
    /// `(name: shape, ...) -> result`, without layouts; an empty name
    /// prints as `(unknown)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        display(f, |p| p.program_shape(self))
    }
}

/// The values printed with `sep` between them (`a,b,c` with `","`).
pub(crate) fn join<T: fmt::Display>(values: &[T], sep: &str) -> String {
    let mut s = String::new();
    let _ = write_joined(&mut s, values, sep);
    s
}

/// As [`join`], into a writer.
pub(crate) fn write_joined<T: fmt::Display>(
    f: &mut impl fmt::Write,
    values: &[T],
    sep: &str,
) -> fmt::Result {
    for (i, v) in values.iter().enumerate() {
        if i > 0 {
            f.write_str(sep)?;
        }
        write!(f, "{v}")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::fmt::{self, Write};

    use super::{CAPACITY, index_string};
    use crate::model::layout::Layout;
    use crate::model::primitive_type::PrimitiveType;
    use crate::model::program_shape::ProgramShape;
    use crate::model::shape::{ArrayShape, Shape};

    /// Every length of decimal number, around each power of ten, both
    /// signs, and the extremes; the reference is `i64`'s own `Display`.
    fn integers() -> Vec<i64> {
        let mut v = vec![0, i64::MAX, i64::MIN, i64::MIN + 1];
        let mut p: i64 = 1;
        loop {
            for x in [p - 1, p, p + 1, 2 * p, 9 * p] {
                v.extend([x, -x]);
            }
            match p.checked_mul(10) {
                Some(q) if q.checked_mul(9).is_some() => p = q,
                _ => break,
            }
        }
        v
    }

    #[test]
    fn integers_print_as_decimal() {
        for v in integers() {
            assert_eq!(index_string(&[v]), format!("{{{v}}}"));
        }
    }

    /// The padded table of names against `PrimitiveType::lowercase_name`.
    #[test]
    fn every_type_prints_its_name() {
        for t in PrimitiveType::ALL {
            let mut s = String::new();
            super::write_array_parts(&mut s, t, &[2, 3], &[false, true]);
            assert_eq!(s, format!("{}[2,<=3]", t.lowercase_name()));
        }
    }

    #[test]
    fn long_lists_cross_the_buffer_intact() {
        let v = integers();
        let joined: Vec<String> = v.iter().map(i64::to_string).collect();
        let expected = format!("{{{}}}", joined.join(","));
        assert!(expected.len() > 4 * CAPACITY);
        assert_eq!(index_string(&v), expected);
    }

    #[test]
    fn tuples_print_alike_at_every_offset() {
        let element = Shape::from(
            ArrayShape::new(PrimitiveType::F32, [7, 1280, 3])
                .unwrap()
                .with_layout(Some(Layout::new([0, 2, 1]).with_memory_space(1)))
                .unwrap(),
        );
        let one = element.to_string();
        assert_eq!(one, "f32[7,1280,3]{0,2,1:S(1)}");
        // Elements land at every offset of the buffer: the output is the
        // elements joined as `ShapeUtil::HumanString` joins them (", ",
        // with `/*index=N*/` before every fifth).
        for n in [1, 5, 6, 11, 40, 200] {
            let tuple = Shape::Tuple(vec![element.clone(); n]);
            let mut expected = String::from("(");
            for i in 0..n {
                if i > 0 && i % 5 == 0 {
                    write!(expected, ", /*index={i}*/").unwrap();
                } else if i > 0 {
                    expected.push_str(", ");
                }
                expected.push_str(&one);
            }
            expected.push(')');
            assert_eq!(tuple.to_string(), expected);
            let mut appended = String::from("x");
            write!(appended, "{tuple}").unwrap();
            assert_eq!(appended, format!("x{expected}"));
            let mut printed = String::from("x");
            tuple.print_to(&mut printed);
            assert_eq!(printed, appended);
        }
    }

    #[test]
    fn names_of_any_length_pass_through() {
        let result = Shape::from(ArrayShape::new(PrimitiveType::S32, [2]).unwrap());
        for name in ["", "x", "é", &"parameter_".repeat(3), &"ü".repeat(CAPACITY)] {
            let p = ProgramShape::new(
                vec![
                    (name.to_string(), result.clone()),
                    ("y".into(), result.clone()),
                ],
                result.clone(),
            );
            let shown = if name.is_empty() { "(unknown)" } else { name };
            assert_eq!(
                p.to_string(),
                format!("({shown}: s32[2], y: s32[2]) -> s32[2]")
            );
        }
    }

    /// A destination that takes `room` bytes and then fails.
    struct Full {
        room: usize,
        taken: String,
    }

    impl Write for Full {
        fn write_str(&mut self, s: &str) -> fmt::Result {
            if s.len() > self.room {
                return Err(fmt::Error);
            }
            self.room -= s.len();
            self.taken.push_str(s);
            Ok(())
        }
    }

    #[test]
    fn a_failing_destination_is_reported() {
        let tuple = Shape::Tuple(vec![
            Shape::from(
                ArrayShape::new(PrimitiveType::F32, [1024, 1024]).unwrap()
            );
            20
        ]);
        let whole = tuple.to_string();
        assert!(whole.len() > 2 * CAPACITY);
        for room in [0, 10, CAPACITY, whole.len() - 1] {
            let mut out = Full {
                room,
                taken: String::new(),
            };
            assert!(write!(out, "{tuple}").is_err());
            assert!(whole.starts_with(&out.taken));
        }
        let mut out = Full {
            room: whole.len(),
            taken: String::new(),
        };
        write!(out, "{tuple}").unwrap();
        assert_eq!(out.taken, whole);
    }
}
