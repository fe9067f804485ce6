//! Finding the shape strings in the text of an HLO module.

use std::collections::VecDeque;
use std::ops::Range;

use crate::error::{Location, Result};
use crate::model::shape::Shape;
use crate::text::lexer::{Tok, is_identifier_char, primitive_type_keyword};
use crate::text::parser::{ParseOptions, Parser};

/// Where a shape string stands in an HLO module, judged from the text
/// around it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ShapeRole {
    /// The result shape of an instruction: `%x = f32[2]{0} add(...)`.
    InstructionResult,
    /// The shape of an operand, in dumps that print them:
    /// `add(f32[2]{0} %x, ...)`.
    Operand,
    /// A parameter of a computation signature (`(p: f32[2]) -> ...`) or of
    /// `entry_computation_layout={(f32[2]{0})->...}`.
    Parameter,
    /// The result of a computation signature or of
    /// `entry_computation_layout`: what follows `->`.
    ComputationResult,
    /// Anywhere else.
    Other,
}

impl ShapeRole {
    /// The role in snake case, as tools write it: `instruction_result`,
    /// `operand`, `parameter`, `computation_result`, `other`.
    pub fn as_str(self) -> &'static str {
        match self {
            ShapeRole::InstructionResult => "instruction_result",
            ShapeRole::Operand => "operand",
            ShapeRole::Parameter => "parameter",
            ShapeRole::ComputationResult => "computation_result",
            ShapeRole::Other => "other",
        }
    }
}

/// One shape string found by [`shapes_in_hlo`].
#[derive(Clone, Debug, PartialEq)]
pub struct HloShape<'a> {
    /// The shape string as written (`text[range]`).
    pub text: &'a str,
    /// Its byte range in the module text.
    pub range: Range<usize>,
    /// Where it starts.
    pub location: Location,
    /// What it is the shape of.
    pub role: ShapeRole,
    /// The shape, parsed as XLA's `ParseShape` parses it (missing layouts
    /// filled, unless the options say otherwise), or why it does not parse.
    /// Error messages give lines and columns in the whole module.
    pub shape: Result<Shape>,
}

/// Every shape string in the text of an HLO module, in order: instruction
/// result shapes, operand shapes, the parameters and results of computation
/// signatures and of `entry_computation_layout`. Tuples are found whole; a
/// parameter list (`(f32[2]{0}, s32[])->...`) gives one shape per parameter.
///
/// Text inside string literals and comments is skipped. A type keyword
/// followed by `[` that does not parse as a shape is still reported, with
/// the parse error, and so is a tuple nested deeper than
/// [`MAX_NESTING_DEPTH`](crate::MAX_NESTING_DEPTH) and closed on its line
/// (its text up to its `)`; the shapes inside it are not reported), as
/// the module reader rejects it. Any text may be given: the scan never panics.
///
/// ```
/// use xla_shape::text::{shapes_in_hlo, ShapeRole};
/// let hlo = "ENTRY %main (p: f32[2,3]) -> (f32[2,3], s32[]) {\n  \
///            %p = f32[2,3]{1,0} parameter(0), metadata={op_name=\"f32[9]\"}\n}";
/// let found: Vec<_> = shapes_in_hlo(hlo).collect();
/// let texts: Vec<&str> = found.iter().map(|s| s.text).collect();
/// assert_eq!(texts, ["f32[2,3]", "(f32[2,3], s32[])", "f32[2,3]{1,0}"]);
/// assert_eq!(found[1].role, ShapeRole::ComputationResult);
/// assert_eq!(found[2].location.line, 2);
/// assert_eq!(found[0].shape.as_ref().unwrap().to_string(), "f32[2,3]{1,0}");
/// ```
pub fn shapes_in_hlo(text: &str) -> HloShapes<'_> {
    shapes_in_hlo_with(text, &ParseOptions::default())
}

/// [`shapes_in_hlo`], parsing each shape with `options`.
pub fn shapes_in_hlo_with<'a>(text: &'a str, options: &ParseOptions) -> HloShapes<'a> {
    HloShapes {
        text,
        pos: 0,
        line: 1,
        line_start: 0,
        options: *options,
        parameter_list_end: 0,
        too_deep_until: 0,
        failed_tuples: VecDeque::new(),
    }
}

/// The iterator of [`shapes_in_hlo`].
#[derive(Clone, Debug)]
pub struct HloShapes<'a> {
    text: &'a str,
    pos: usize,
    /// The line of `pos` and the offset where that line starts.
    line: usize,
    line_start: usize,
    options: ParseOptions,
    /// End of the parameter list `(...)->` being scanned, if any.
    parameter_list_end: usize,
    /// Where a tuple or buffer nested too deeply stopped parsing: no `(`
    /// before it is tried again (each would fail the same way).
    too_deep_until: usize,
    /// The `(` of tuples that were open when a parse failed, in order:
    /// each would fail the same way, so none is tried again. Without this,
    /// unclosed tuples nested `d` deep around long lists would be read `d`
    /// times over.
    failed_tuples: VecDeque<usize>,
}

/// Byte classes of the scanning loop.
const PLAIN: u8 = 0;
const NEWLINE: u8 = 1;
const QUOTE: u8 = 2;
const SLASH: u8 = 3;
const LSQUARE: u8 = 4;
const LPAREN: u8 = 5;

static CLASS: [u8; 256] = {
    let mut t = [PLAIN; 256];
    t[b'\n' as usize] = NEWLINE;
    t[b'"' as usize] = QUOTE;
    t[b'\'' as usize] = QUOTE;
    t[b'/' as usize] = SLASH;
    t[b'[' as usize] = LSQUARE;
    t[b'(' as usize] = LPAREN;
    t
};

/// Characters that continue a name before a shape: a type keyword preceded
/// by one of these is part of a longer token.
fn continues_name(c: u8) -> bool {
    is_identifier_char(c) || c == b'%'
}

impl<'a> HloShapes<'a> {
    /// Numbers the lines of the text from `line` instead of 1: for a part
    /// of a module read line by line, so that locations and XLA's messages
    /// give the line in the whole module (offsets stay those of the part).
    ///
    /// ```
    /// use xla_shape::text::shapes_in_hlo;
    /// let found: Vec<_> = shapes_in_hlo("  %p = f32[2]{0} parameter(0)").from_line(7).collect();
    /// assert_eq!((found[0].location.line, found[0].location.column), (7, 7));
    /// ```
    #[must_use]
    pub fn from_line(mut self, line: usize) -> Self {
        self.line = line;
        self
    }

    fn bytes(&self) -> &'a [u8] {
        self.text.as_bytes()
    }

    /// Moves `pos` to `to`, counting the lines passed.
    fn advance_to(&mut self, to: usize) {
        let bytes = self.bytes();
        for (i, &b) in bytes[self.pos..to].iter().enumerate() {
            if b == b'\n' {
                self.line += 1;
                self.line_start = self.pos + i + 1;
            }
        }
        self.pos = to;
    }

    /// The start of a type keyword that ends just before `at` (a `[`), if
    /// it stands alone.
    fn keyword_before(&self, at: usize) -> Option<usize> {
        let bytes = self.bytes();
        let mut start = at;
        while start > 0 && at - start < 16 && bytes[start - 1].is_ascii_alphanumeric() {
            start -= 1;
        }
        if start == at || (start > 0 && continues_name(bytes[start - 1])) {
            return None;
        }
        primitive_type_keyword(&bytes[start..at]).map(|_| start)
    }

    /// Whether a shape can start at `i`: `(`, `)` (an empty tuple), a type
    /// keyword directly followed by `[`, or `b(`.
    fn shape_starts_at(&self, i: usize) -> bool {
        let bytes = self.bytes();
        match bytes.get(i) {
            Some(b'(' | b')') => true,
            Some(c) if c.is_ascii_lowercase() => {
                let n = bytes[i..]
                    .iter()
                    .take_while(|c| c.is_ascii_alphanumeric())
                    .count();
                match bytes.get(i + n) {
                    Some(b'[') => primitive_type_keyword(&bytes[i..i + n]).is_some(),
                    Some(b'(') => n == 1 && bytes[i] == b'b',
                    _ => false,
                }
            }
            _ => false,
        }
    }

    /// The last byte before `at` that is not whitespace, on any line, and
    /// its offset; `/* ... */` comments are skipped too.
    fn previous_significant(&self, at: usize) -> Option<(usize, u8)> {
        let bytes = self.bytes();
        let mut i = at;
        loop {
            while i > 0 && matches!(bytes[i - 1], b' ' | b'\t' | b'\n' | b'\r') {
                i -= 1;
            }
            if i >= 2 && &bytes[i - 2..i] == b"*/" {
                // Comments before shapes are short (`/*index=5*/`).
                let from = i.saturating_sub(64);
                let open = bytes[from..i - 2].windows(2).rposition(|w| w == b"/*")?;
                i = from + open;
                continue;
            }
            return (i > 0).then(|| (i - 1, bytes[i - 1]));
        }
    }

    fn role(&self, range: &Range<usize>) -> ShapeRole {
        let bytes = self.bytes();
        match self.previous_significant(range.start) {
            Some((_, b'=')) => ShapeRole::InstructionResult,
            Some((i, b'>')) if i > 0 && bytes[i - 1] == b'-' => ShapeRole::ComputationResult,
            Some((_, b':')) => ShapeRole::Parameter,
            Some((_, b'(' | b',')) => {
                if range.start < self.parameter_list_end {
                    return ShapeRole::Parameter;
                }
                let next = bytes[range.end..]
                    .iter()
                    .find(|c| !matches!(c, b' ' | b'\t'));
                match next {
                    Some(&c) if c == b'%' || c.is_ascii_alphabetic() || c == b'_' => {
                        ShapeRole::Operand
                    }
                    _ => ShapeRole::Other,
                }
            }
            _ => ShapeRole::Other,
        }
    }

    /// Parses a shape at `start`: the shape, its end and the kind of the
    /// token after it, or the parser that failed and where it stopped.
    fn parse_at(
        &mut self,
        start: usize,
    ) -> std::result::Result<(Shape, usize, Tok), Box<(Parser<'a>, usize)>> {
        let mut p = Parser::new(self.text, start, &self.options);
        // `start` is on the current line (a type keyword or `(` before
        // `pos`, or `pos` itself).
        p.origin = Location {
            line: self.line,
            column: start - self.line_start,
            offset: start,
        };
        match p.parse_shape(0) {
            Ok(shape) if p.invalid_arrays == 0 => Ok((shape, p.lx.prev_end, p.lx.kind)),
            Ok(_) => {
                let end = p.lx.prev_end;
                Err(Box::new((p, end)))
            }
            Err(_) => {
                if p.too_deep {
                    self.too_deep_until = self.too_deep_until.max(p.lx.start);
                } else if !p.failed_tuples.is_empty() {
                    self.failed_tuples.extend(p.failed_tuples.iter().rev());
                    self.failed_tuples.make_contiguous().sort_unstable();
                }
                let mut end = p.lx.end.max(p.lx.start + 1).min(self.text.len());
                while !self.text.is_char_boundary(end) {
                    end += 1;
                }
                Err(Box::new((p, end)))
            }
        }
    }

    fn found(&mut self, start: usize, end: usize, shape: Result<Shape>) -> HloShape<'a> {
        let range = start..end;
        let item = HloShape {
            text: &self.text[range.clone()],
            location: Location {
                line: self.line,
                column: start - self.line_start,
                offset: start,
            },
            role: self.role(&range),
            range,
            shape,
        };
        self.advance_to(end.max(self.pos));
        item
    }

    /// Skips a string literal starting at `pos`; an unterminated one ends
    /// at the end of its line.
    fn skip_string(&mut self) {
        let bytes = self.bytes();
        let quote = bytes[self.pos];
        let mut i = self.pos + 1;
        while i < bytes.len() {
            match bytes[i] {
                b'\\' if bytes.get(i + 1).is_some_and(|&c| c != b'\n') => i += 2,
                b'\n' => break,
                c if c == quote => {
                    i += 1;
                    break;
                }
                _ => i += 1,
            }
        }
        self.pos = i.min(bytes.len());
    }

    /// Skips a comment starting at `pos` (a `/`), if there is one.
    fn skip_comment(&mut self) {
        let bytes = self.bytes();
        match bytes.get(self.pos + 1) {
            Some(b'*') => {
                let end = bytes[self.pos + 2..]
                    .windows(2)
                    .position(|w| w == b"*/")
                    .map_or(bytes.len(), |i| self.pos + 2 + i + 2);
                self.advance_to(end);
            }
            Some(b'/') => {
                self.pos = bytes[self.pos..]
                    .iter()
                    .position(|&b| b == b'\n')
                    .map_or(bytes.len(), |i| self.pos + i);
            }
            _ => self.pos += 1,
        }
    }
}

impl<'a> Iterator for HloShapes<'a> {
    type Item = HloShape<'a>;

    fn next(&mut self) -> Option<HloShape<'a>> {
        let bytes = self.bytes();
        while self.pos < bytes.len() {
            let b = bytes[self.pos];
            match CLASS[b as usize] {
                PLAIN => self.pos += 1,
                NEWLINE => {
                    self.pos += 1;
                    self.line += 1;
                    self.line_start = self.pos;
                }
                QUOTE => self.skip_string(),
                SLASH => self.skip_comment(),
                LSQUARE => {
                    if let Some(start) = self.keyword_before(self.pos) {
                        return Some(match self.parse_at(start) {
                            Ok((shape, end, _)) => self.found(start, end, Ok(shape)),
                            Err(failed) => {
                                let (p, end) = *failed;
                                self.found(start, end, Err(p.syntax_error()))
                            }
                        });
                    }
                    self.pos += 1;
                }
                _ => {
                    // `(`: a buffer `b(`, a tuple, or a parameter list.
                    let at = self.pos;
                    while self.failed_tuples.front().is_some_and(|&s| s < at) {
                        self.failed_tuples.pop_front();
                    }
                    if at < self.too_deep_until || self.failed_tuples.front() == Some(&at) {
                        self.pos += 1;
                        continue;
                    }
                    let buffer = at > 0
                        && bytes[at - 1] == b'b'
                        && (at < 2 || !continues_name(bytes[at - 2]));
                    if buffer {
                        if let Ok((shape, end, _)) = self.parse_at(at - 1) {
                            return Some(self.found(at - 1, end, Ok(shape)));
                        }
                    } else if self.tuple_may_start_at(at) {
                        match self.parse_at(at) {
                            Ok((_, end, Tok::Arrow)) => {
                                // A parameter list: its shapes one by one.
                                self.parameter_list_end = end;
                            }
                            Ok((shape, end, _)) => {
                                return Some(self.found(at, end, Ok(shape)));
                            }
                            // A tuple nested past the limit, closed on its
                            // line, is a shape that does not parse, as it is
                            // to the module reader; the shapes inside it are
                            // not reported. (Parentheses left open are no
                            // tuple, deep or not: the scan goes on inside.)
                            Err(failed) if failed.0.too_deep => {
                                if let Some(end) = self.tuple_end(at) {
                                    let error = failed.0.syntax_error();
                                    return Some(self.found(at, end, Err(error)));
                                }
                            }
                            Err(_) => {}
                        }
                    }
                    self.pos += 1;
                }
            }
        }
        None
    }
}

impl HloShapes<'_> {
    /// The end of the tuple whose `(` is at `at`: after its `)`, if it is
    /// closed on its line.
    fn tuple_end(&self, at: usize) -> Option<usize> {
        let bytes = self.bytes();
        let mut depth = 0usize;
        for (i, &c) in bytes.iter().enumerate().skip(at) {
            match c {
                b'(' => depth += 1,
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(i + 1);
                    }
                }
                b'\n' => return None,
                _ => {}
            }
        }
        None
    }

    /// Whether the `(` at `at` may open a tuple shape: not an operand list
    /// or signature (`name(`, `name (`), and followed by a shape.
    fn tuple_may_start_at(&self, at: usize) -> bool {
        let bytes = self.bytes();
        let mut i = at;
        while i > 0 && matches!(bytes[i - 1], b' ' | b'\t') {
            i -= 1;
        }
        if i > 0 && (continues_name(bytes[i - 1]) || matches!(bytes[i - 1], b')' | b']' | b'}')) {
            return false;
        }
        let next = at
            + 1
            + bytes[at + 1..]
                .iter()
                .take_while(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\r'))
                .count();
        self.shape_starts_at(next)
    }
}
