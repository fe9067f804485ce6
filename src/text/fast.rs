//! A fast path for the common case: one valid shape written the way XLA
//! prints it (`bf16[8,128]{1,0:T(8,128)(2,1)}`, `(f32[2]{0}, s32[])`,
//! `/*index=5*/` included), with no other spaces or comments. It reads the
//! bytes directly instead of going through the lexer and yields exactly
//! what the full parser would; on anything else it gives up and the full
//! parser (with XLA's messages) runs from the start. Tests check the two
//! agree on every golden string, many mutations of them, and shapes inside
//! HLO text.

use crate::model::layout::Layout;
use crate::model::primitive_type::PrimitiveType;
use crate::model::shape::{ArrayShape, Shape};
use crate::model::tile::Tile;
use crate::model::validate;
use crate::text::lexer::primitive_type_keyword;

struct Cursor<'a> {
    b: &'a [u8],
    i: usize,
}

impl Cursor<'_> {
    #[inline]
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    #[inline]
    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    /// A non-negative integer of at most 18 digits that the lexer would
    /// read as one integer token: followed by a byte that ends it.
    #[inline(always)]
    fn int(&mut self) -> Option<i64> {
        let v = self.digits()?;
        let ends = matches!(self.peek(), Some(b',' | b']' | b'}' | b')' | b':' | b'('));
        ends.then_some(v)
    }

    /// As [`int`](Self::int), followed by `end`.
    fn int_ending(&mut self, end: u8) -> Option<i64> {
        let v = self.digits()?;
        (self.peek() == Some(end)).then_some(v)
    }

    /// One to 18 decimal digits.
    #[inline(always)]
    fn digits(&mut self) -> Option<i64> {
        let start = self.i;
        let mut v: i64 = 0;
        while let Some(c @ b'0'..=b'9') = self.peek() {
            if self.i - start == 18 {
                return None;
            }
            v = v * 10 + i64::from(c - b'0');
            self.i += 1;
        }
        (self.i > start).then_some(v)
    }

    /// `(n)` after an attribute letter.
    fn int_attribute(&mut self) -> Option<i64> {
        if !self.eat(b'(') {
            return None;
        }
        let v = self.int()?;
        self.eat(b')').then_some(v)
    }

    /// A tile's bounds, `(int | '*') (',' (int | '*'))*`, up to (not
    /// including) a byte not `,`.
    fn tile_bounds(&mut self, tile: &mut Tile) -> Option<()> {
        loop {
            if self.eat(b'*') {
                tile.push_unchecked(Tile::COMBINE_DIMENSION);
                if !matches!(self.peek(), Some(b',' | b')')) {
                    return None;
                }
            } else {
                tile.push_unchecked(self.int()?);
            }
            if !self.eat(b',') {
                return Some(());
            }
        }
    }
}

/// How deep the fast path follows tuples and buffers; deeper text is left
/// to the full parser (whose nesting limit, `MAX_NESTING_DEPTH`, is far
/// above this).
const MAX_DEPTH: usize = 16;

/// The longest element type keyword (`f8e4m3b11fnuz`), and so how far
/// before its `[` an array's keyword can start.
const MAX_KEYWORD: usize = 13;

/// The whole of `text` as one valid shape in printed form, or `None`.
#[cfg(test)]
pub(crate) fn parse(text: &str, fill_missing_layouts: bool) -> Option<Shape> {
    let mut out = Shape::slot();
    let end = parse_prefix_into(text, fill_missing_layouts, &mut out)?;
    (end == text.len()).then_some(out)
}

/// One valid shape in printed form at the start of `text`, and the offset
/// just past it, or `None`. The full parser reads the same shape there
/// unless what follows continues it: the caller checks that (a layout
/// after a space, a comment).
#[cfg(test)]
pub(crate) fn parse_prefix(text: &str, fill_missing_layouts: bool) -> Option<(Shape, usize)> {
    let mut out = Shape::slot();
    let end = parse_prefix_into(text, fill_missing_layouts, &mut out)?;
    Some((out, end))
}

/// [`parse_prefix`] into `out` (unspecified when it gives `None`). Shapes
/// are built where they end up, not moved there: a `Shape` is 256 bytes
/// (304 then), and moving it through each level cost a third of the time.
pub(crate) fn parse_prefix_into(
    text: &str,
    fill_missing_layouts: bool,
    out: &mut Shape,
) -> Option<usize> {
    let mut c = Cursor {
        b: text.as_bytes(),
        i: 0,
    };
    shape(&mut c, fill_missing_layouts, 0, out)?;
    Some(c.i)
}

/// A tuple `(a, b, /*index=2*/c)` as XLA prints it, a buffer `b(array)`,
/// `token[]`, `opaque[]` or an array, into `out`.
fn shape(c: &mut Cursor<'_>, fill: bool, depth: usize, out: &mut Shape) -> Option<()> {
    if depth > MAX_DEPTH {
        return None;
    }
    if c.eat(b'(') {
        let mut elements: Vec<Shape> = Vec::new();
        if !c.eat(b')') {
            loop {
                elements.push(Shape::slot());
                let last = elements.last_mut()?;
                shape(c, fill, depth + 1, last)?;
                if c.eat(b')') {
                    break;
                }
                if !c.eat(b',') {
                    return None;
                }
                // The separator XLA prints: ", ", and from the fifth element
                // on every fifth one ", /*index=N*/" (a comment to the lexer).
                c.eat(b' ');
                if c.b[c.i..].starts_with(b"/*index=") {
                    c.i += 8;
                    c.int_ending(b'*')?;
                    if !c.b[c.i..].starts_with(b"*/") {
                        return None;
                    }
                    c.i += 2;
                }
            }
        }
        *out = Shape::Tuple(elements);
        return Some(());
    }
    if c.b[c.i..].starts_with(b"b(") {
        c.i += 2;
        let mut inner = Box::new(Shape::slot());
        shape(c, fill, depth + 1, &mut inner)?;
        if !(inner.is_array() && c.eat(b')')) {
            return None;
        }
        *out = Shape::Buffer(inner);
        return Some(());
    }
    let window = &c.b[c.i..c.b.len().min(c.i + MAX_KEYWORD + 1)];
    let open = c.i + window.iter().position(|&b| b == b'[')?;
    let t = primitive_type_keyword(&c.b[c.i..open])?;
    c.i = open + 1;
    match t {
        PrimitiveType::Token | PrimitiveType::OpaqueType => {
            // A layout after it is an error the full parser reports.
            if !c.eat(b']') || c.peek() == Some(b'{') {
                return None;
            }
            *out = match t {
                PrimitiveType::Token => Shape::Token,
                _ => Shape::Opaque,
            };
            Some(())
        }
        t if t.is_array_type() => {
            let a = out.array_slot();
            a.element_type = t;
            array(c, fill, a)
        }
        _ => None,
    }
}

/// The rest of a valid array after its `[`, into `a` (whose element type
/// is set).
fn array(outer: &mut Cursor<'_>, fill_missing_layouts: bool, a: &mut ArrayShape) -> Option<()> {
    // A cursor of its own, handed back at the end: through `outer`, every
    // byte read was a store to memory (on `None` everything read is
    // dropped, so it need not be handed back then).
    let mut local = Cursor {
        b: outer.b,
        i: outer.i,
    };
    let c = &mut local;
    let t = a.element_type;
    let (dims, dynamic) = (&mut a.dimensions, &mut a.dynamic);
    // The product of the sizes that are not `?`: validation's overflow
    // rule (`validate::array_dimensions_valid`), checked as they are read.
    // Sizes read here are never negative.
    let mut product: i64 = 1;
    if !c.eat(b']') {
        loop {
            if c.eat(b'?') {
                if !matches!(c.peek(), Some(b',' | b']')) {
                    return None;
                }
                dims.push(ArrayShape::UNBOUNDED_SIZE);
                dynamic.push(true);
            } else {
                let is_dynamic = c.eat(b'<');
                if is_dynamic && !c.eat(b'=') {
                    return None;
                }
                let d = c.int()?;
                product = product.checked_mul(d)?;
                dims.push(d);
                dynamic.push(is_dynamic);
            }
            if !c.eat(b',') {
                break;
            }
        }
        if !c.eat(b']') {
            return None;
        }
    }
    product.checked_mul(t.byte_width().unwrap_or(1))?;
    let rank = dims.len();
    if c.peek() == Some(b'{') {
        let l = a.layout.insert(Layout::default());
        layout(c, l, rank)?;
    } else if fill_missing_layouts || rank == 0 {
        // Layout::descending, built in place.
        a.layout.insert(Layout::default()).minor_to_major = (0..rank as i64).rev().collect();
    }
    // What validation checks (XLA's `ValidateShapeWithOptionalLayout`,
    // `validate::validate_array_dimensions` and
    // `validate::validate_layout_for_array`) holds by now: sizes are not
    // negative and their product times the element size fits an `i64`
    // (above), and `layout` accepted only a permutation of the dimensions,
    // tiles without a 0 bound, `L(n)` with `n >= 1` and a non-negative
    // `E(n)`, and no sparse-only attribute. A test checks this against
    // validation.
    debug_assert!(validate::validate_array_dimensions(t, &a.dimensions, &a.dynamic).is_ok());
    debug_assert!(a.layout.as_ref().is_none_or(|l| {
        validate::validate_layout_for_array(l, t, &a.dimensions, &a.dynamic).is_ok()
    }));
    outer.i = local.i;
    Some(())
}

/// `{mtm[:T(..)..L(n)E(n)S(n)M(n)]}` that fits an array of `rank`
/// dimensions (up to 64): minor_to_major a permutation of them, tiles
/// without a 0 bound, each attribute at most once and in XLA's order.
/// Anything else (`D`, `#`, `*`, `SC`, `P`, a layout that does not fit) is
/// left to the full parser.
fn layout(c: &mut Cursor<'_>, l: &mut Layout, rank: usize) -> Option<()> {
    if !c.eat(b'{') || rank > 64 {
        return None;
    }
    if matches!(c.peek(), Some(b'0'..=b'9')) {
        // The dimensions seen, as in `validate::layout_valid_for_rank`.
        let mut seen = 0u64;
        loop {
            let d = c.int()?;
            if d >= rank as i64 || seen & (1 << d) != 0 {
                return None;
            }
            seen |= 1 << d;
            l.minor_to_major.push(d);
            if !c.eat(b',') {
                break;
            }
        }
    } else if c.peek() != Some(b':') {
        // `{}` is no layout to XLA's shape parser.
        return None;
    }
    if l.minor_to_major.len() != rank {
        return None;
    }
    if c.eat(b':') {
        if c.eat(b'T') {
            loop {
                if !c.eat(b'(') {
                    return None;
                }
                let mut tile = Tile::default();
                c.tile_bounds(&mut tile)?;
                if !c.eat(b')') || validate::invalid_tile(tile.dimensions()) {
                    return None;
                }
                l.tiles.push(tile);
                if c.peek() != Some(b'(') {
                    break;
                }
            }
        }
        if c.eat(b'L') {
            let n = c.int_attribute().filter(|&n| n >= 1)?;
            if n != 1 {
                l.rare_mut().tail_padding_alignment_in_elements = n;
            }
        }
        if c.eat(b'E') {
            l.element_size_in_bits = c.int_attribute()?;
        }
        if c.peek() == Some(b'S') && c.b.get(c.i + 1) == Some(&b'(') {
            c.i += 1;
            l.memory_space = c.int_attribute()?;
        }
        if c.eat(b'M') {
            let n = c.int_attribute()?;
            if n != 0 {
                l.rare_mut().dynamic_shape_metadata_prefix_bytes = n;
            }
        }
    }
    c.eat(b'}').then_some(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Location;
    use crate::text::parse_shape_at;
    use crate::text::parser::{self, ParseOptions, Parser, ShapeAt};

    fn full(text: &str, fill: bool) -> Option<Shape> {
        let options = ParseOptions {
            fill_missing_layouts: fill,
        };
        let mut p = Parser::new(text, 0, &options);
        let shape = p.parse_shape(0).ok()?;
        (p.lx.kind == crate::text::lexer::Tok::Eof && p.invalid_arrays == 0).then_some(shape)
    }

    /// Every golden shape string (printed by XLA and as given to it).
    fn golden() -> Vec<String> {
        let mut corpus = Vec::new();
        for file in ["shapes.jsonl", "invalid.jsonl"] {
            let path = format!("{}/tests/data/{file}", env!("CARGO_MANIFEST_DIR"));
            for line in std::fs::read_to_string(path).unwrap().lines() {
                let r: serde_json::Value = serde_json::from_str(line).unwrap();
                for s in [&r["input"]["text"], &r["xla_str"]] {
                    if let Some(s) = s.as_str() {
                        corpus.push(s.to_owned());
                    }
                }
            }
        }
        corpus
    }

    /// Every golden shape string, and mutations of it: where the fast path
    /// answers, the full parser gives the same shape, byte for byte.
    #[test]
    fn the_fast_path_agrees_with_the_full_parser() {
        let corpus = golden();
        const EDITS: &[u8] = b"()[]{},:*#?<=-TLESMP0123456789 x.e_bf/";
        let originals = corpus.len();
        let corpus: Vec<String> = crate::test_support::with_mutations(
            corpus.into_iter().map(String::into_bytes).collect(),
            originals * 40,
            3,
            Some(EDITS),
            0x9E37_79B9_7F4A_7C15,
        )
        .into_iter()
        .map(|bytes| String::from_utf8(bytes).unwrap())
        .collect();
        let mut answered = 0;
        for text in &corpus {
            for fill in [true, false] {
                if let Some(fast) = parse(text, fill) {
                    let full = full(text, fill).unwrap_or_else(|| panic!("{text}"));
                    assert_eq!(fast.to_proto_bytes(), full.to_proto_bytes(), "{text}");
                    answered += 1;
                }
            }
        }
        assert!(answered > 1000, "{answered}");
    }

    /// Whole strings through `parse_shape_with` (the fast path, then the
    /// full parser) and through the full parser alone: the same shape or
    /// the same error, word for word, on every golden string, mutations of
    /// them, and strings that the fast path reads but that validation
    /// rejects (it checks those rules itself, without `validate`).
    #[test]
    fn parse_shape_with_agrees_with_the_full_parser_ok_or_err() {
        let mut corpus: Vec<Vec<u8>> = golden().into_iter().map(String::into_bytes).collect();
        for text in [
            "f32[3037000500,3037000500]",
            "f32[3037000499,3037000499]{0,1}",
            "f64[1000000000,1000000000,10]",
            "f64[1000000000,1000000000,9]{2,1,0}",
            "s4[999999999999999999,9]",
            "f32[4611686018427387904]",
            "f32[?,3037000500,3037000500]",
            "f32[<=3037000500,3037000500]",
            "f32[2,3]{0,0}",
            "f32[2,3]{1,1}",
            "f32[2,3]{2,0}",
            "f32[2,3]{0}",
            "f32[2,3]{0,1,2}",
            "f32[2]{0:T(0)}",
            "f32[2]{0:T(8,0)}",
            "f32[2]{0:T(2)(0,1)}",
            "f32[2]{0:T(*)}",
            "f32[2]{0:L(0)}",
            "f32[2]{0:E(0)}",
            "(f32[2]{0,0}, s32[])",
            "b(f32[2]{1})",
        ] {
            corpus.push(text.as_bytes().to_vec());
        }
        // Rank 64 and 65, valid or with a repeated dimension.
        for rank in [64usize, 65] {
            let dims = vec!["1"; rank].join(",");
            let mut mtm: Vec<String> = (0..rank).rev().map(|d| d.to_string()).collect();
            corpus.push(format!("f32[{dims}]{{{}}}", mtm.join(",")).into_bytes());
            mtm[rank - 1] = "1".to_owned();
            corpus.push(format!("f32[{dims}]{{{}}}", mtm.join(",")).into_bytes());
        }
        const EDITS: &[u8] = b"()[]{},:*#?<=-TLESMP0123456789 x.e_bf/";
        let originals = corpus.len();
        let corpus =
            crate::test_support::with_mutations(corpus, originals * 40, 3, Some(EDITS), 0x5EED);
        let outcome = |r: crate::error::Result<Shape>| {
            r.map(|s| s.to_proto_bytes()).map_err(|e| e.to_string())
        };
        let mut errors = 0;
        for bytes in &corpus {
            let text = String::from_utf8_lossy(bytes);
            for fill in [true, false] {
                let options = ParseOptions {
                    fill_missing_layouts: fill,
                };
                let ours = outcome(crate::text::parse_shape_with(&text, &options));
                let full = outcome(parser::parse_shape(&text, &options));
                errors += usize::from(full.is_err());
                assert_eq!(ours, full, "{text:?}");
            }
        }
        assert!(errors > 1000, "{errors}");
    }

    /// The outcome of a shape read inside a larger text, comparable.
    fn outcome(at: (ShapeAt, usize)) -> (Result<Vec<u8>, String>, usize) {
        let r = match at.0 {
            ShapeAt::Valid(s) => Ok(s.to_proto_bytes()),
            ShapeAt::Rejected(e) => Err(format!("rejected: {e}")),
            ShapeAt::Failed(e) => Err(format!("failed: {e}")),
        };
        (r, at.1)
    }

    /// Shapes inside HLO text (`parse_shape_at`, which tries the fast path
    /// on what follows the offset): the same outcome and end as the full
    /// parser's, whatever follows the shape, for every golden string and
    /// tuples of them.
    #[test]
    fn shapes_inside_text_agree_with_the_full_parser() {
        let golden = golden();
        let mut shapes = golden.clone();
        for (i, pair) in golden.windows(2).enumerate().step_by(7) {
            shapes.push(format!("({}, {})", pair[0], pair[1]));
            // XLA's printed form of a tuple of seven: `/*index=5*/` before
            // the sixth element.
            let seven = golden[i..].iter().filter_map(|s| s.parse::<Shape>().ok());
            shapes.push(Shape::Tuple(seven.take(7).collect()).to_string());
        }
        for depth in [MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1, MAX_DEPTH + 2] {
            shapes.push(format!(
                "{}f32[2]{{0}}{}",
                "(".repeat(depth),
                ")".repeat(depth)
            ));
            shapes.push(format!(
                "{}b(f32[2]){}",
                "(".repeat(depth),
                ")".repeat(depth)
            ));
        }
        const AFTER: &[&str] = &[
            "",
            " x",
            ", y",
            ",",
            ")",
            " {0}",
            "\n{0}",
            "\t{1,0}",
            " /*c*/{0}",
            "/*c*/",
            "{0}",
            "x",
            " ",
            "\n",
            "}",
            "{}",
            " {}",
        ];
        let mut fast = 0;
        for (k, shape) in shapes.iter().enumerate() {
            for after in AFTER {
                let before = if k % 2 == 0 { "" } else { "a = " };
                let text = format!("{before}{shape}{after}");
                let options = ParseOptions {
                    fill_missing_layouts: k % 3 != 0,
                };
                let at = before.len();
                let ours = outcome(parse_shape_at(&text, at, 1, 0, &options));
                let origin = Location {
                    line: 1,
                    column: at,
                    offset: at,
                };
                let full = outcome(parser::parse_shape_at(&text, origin, &options));
                assert_eq!(ours, full, "{text:?}");
                if parse_prefix(&text[at..], options.fill_missing_layouts).is_some() {
                    fast += 1;
                }
            }
        }
        assert!(fast > 5000, "{fast}");
    }
}
