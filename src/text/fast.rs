//! A fast path for the common case: one array shape written the way XLA
//! prints it (`bf16[8,128]{1,0:T(8,128)(2,1)}`), with no spaces or comments,
//! that is valid. It reads the bytes directly instead of going through the
//! lexer and yields exactly what the full parser would; on anything else it
//! gives up and the full parser (with XLA's messages) runs from the start.
//! A test checks the two agree on every golden string and many mutations.

use crate::model::layout::Layout;
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
        let start = self.i;
        let mut v: i64 = 0;
        while let Some(c @ b'0'..=b'9') = self.peek() {
            if self.i - start == 18 {
                return None;
            }
            v = v * 10 + i64::from(c - b'0');
            self.i += 1;
        }
        let ends = matches!(self.peek(), Some(b',' | b']' | b'}' | b')' | b':' | b'('));
        (self.i > start && ends).then_some(v)
    }

    /// `(n)` after an attribute letter.
    fn int_attribute(&mut self) -> Option<i64> {
        if !self.eat(b'(') {
            return None;
        }
        let v = self.int()?;
        self.eat(b')').then_some(v)
    }

    /// The list of `int (',' int)*` up to (not including) a byte not `,`.
    fn ints(&mut self, star: bool, mut push: impl FnMut(i64)) -> Option<()> {
        loop {
            if star && self.eat(b'*') {
                push(Tile::COMBINE_DIMENSION);
                if !matches!(self.peek(), Some(b',' | b')')) {
                    return None;
                }
            } else {
                push(self.int()?);
            }
            if !self.eat(b',') {
                return Some(());
            }
        }
    }
}

/// The whole of `text` as one valid array shape in printed form, or `None`.
pub(crate) fn parse_array(text: &str, fill_missing_layouts: bool) -> Option<Shape> {
    let b = text.as_bytes();
    let open = b.iter().position(|&c| c == b'[')?;
    let t = primitive_type_keyword(&b[..open])?;
    if !t.is_array_type() {
        return None;
    }
    let mut c = Cursor { b, i: open + 1 };
    let mut dims = Vec::new();
    let mut dynamic = Vec::new();
    if !c.eat(b']') {
        dims = Vec::with_capacity(4);
        dynamic = Vec::with_capacity(4);
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
                dims.push(c.int()?);
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
    let rank = dims.len();
    let layout = if c.i == b.len() {
        (fill_missing_layouts || rank == 0).then(|| Layout::descending(rank))
    } else {
        let layout = layout(&mut c)?;
        if c.i != b.len() || layout.minor_to_major.len() != rank {
            return None;
        }
        Some(layout)
    };
    validate::validate_array_dimensions(t, &dims, &dynamic).ok()?;
    if let Some(l) = &layout {
        validate::validate_layout_for_array(l, t, &dims, &dynamic).ok()?;
    }
    Some(Shape::Array(ArrayShape {
        element_type: t,
        dimensions: dims,
        dynamic,
        layout,
    }))
}

/// `{mtm[:T(..)..L(n)E(n)S(n)M(n)]}`, each attribute at most once and in
/// XLA's order; anything else (`D`, `#`, `*`, `SC`, `P`) is left to the
/// full parser.
fn layout(c: &mut Cursor<'_>) -> Option<Layout> {
    if !c.eat(b'{') {
        return None;
    }
    let mut l = Layout::default();
    if matches!(c.peek(), Some(b'0'..=b'9')) {
        l.minor_to_major = Vec::with_capacity(4);
        c.ints(false, |v| l.minor_to_major.push(v))?;
    } else if c.peek() != Some(b':') {
        // `{}` is no layout to XLA's shape parser.
        return None;
    }
    if c.eat(b':') {
        if c.eat(b'T') {
            l.tiles = Vec::with_capacity(2);
            loop {
                if !c.eat(b'(') {
                    return None;
                }
                let mut tile = Tile::default();
                c.ints(true, |v| tile.push_unchecked(v))?;
                if !c.eat(b')') {
                    return None;
                }
                l.tiles.push(tile);
                if c.peek() != Some(b'(') {
                    break;
                }
            }
        }
        if c.eat(b'L') {
            l.tail_padding_alignment_in_elements = c.int_attribute().filter(|&n| n >= 1)?;
        }
        if c.eat(b'E') {
            l.element_size_in_bits = c.int_attribute()?;
        }
        if c.peek() == Some(b'S') && c.b.get(c.i + 1) == Some(&b'(') {
            c.i += 1;
            l.memory_space = c.int_attribute()?;
        }
        if c.eat(b'M') {
            l.dynamic_shape_metadata_prefix_bytes = c.int_attribute()?;
        }
    }
    c.eat(b'}').then_some(l)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::parser::{ParseOptions, Parser};

    fn full(text: &str, fill: bool) -> Option<Shape> {
        let options = ParseOptions {
            fill_missing_layouts: fill,
        };
        let mut p = Parser::new(text, 0, &options);
        let shape = p.parse_shape(0).ok()?;
        (p.lx.kind == crate::text::lexer::Tok::Eof && p.invalid_arrays == 0).then_some(shape)
    }

    /// Every golden shape string, and mutations of it: where the fast path
    /// answers, the full parser gives the same shape, byte for byte.
    #[test]
    fn the_fast_path_agrees_with_the_full_parser() {
        let mut corpus: Vec<String> = Vec::new();
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
        const EDITS: &[u8] = b"()[]{},:*#?<=-TLESMP0123456789 x.e_bf";
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let originals = corpus.len();
        for k in 0..originals * 40 {
            let mut bytes = corpus[k % originals].clone().into_bytes();
            for _ in 0..1 + next() % 3 {
                let at = (next() as usize) % (bytes.len() + 1);
                let byte = EDITS[(next() as usize) % EDITS.len()];
                match next() % 3 {
                    0 if at < bytes.len() => {
                        bytes.remove(at);
                    }
                    1 => bytes.insert(at, byte),
                    _ if at < bytes.len() => bytes[at] = byte,
                    _ => {}
                }
            }
            corpus.push(String::from_utf8(bytes).unwrap());
        }
        let mut answered = 0;
        for text in &corpus {
            for fill in [true, false] {
                if let Some(fast) = parse_array(text, fill) {
                    let full = full(text, fill).unwrap_or_else(|| panic!("{text}"));
                    assert_eq!(fast.to_proto_bytes(), full.to_proto_bytes(), "{text}");
                    answered += 1;
                }
            }
        }
        assert!(answered > 1000, "{answered}");
    }
}
