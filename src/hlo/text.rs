//! Reading HLO module text, one line at a time, as XLA's
//! `HloModule::ToString` prints it: the `HloModule` header, computations
//! (`[ENTRY] %name (params) -> result {` ... `}`), one instruction per line
//! (`[ROOT] %name = shape opcode(operands), attributes`). Shapes are read by
//! the crate's port of XLA's `ParseShape`; operands and attributes are not
//! parsed. Lines outside computations that are not computation headers (the
//! stack-frame tables of newer dumps, blank lines) are skipped.
//!
//! [`TextReader`] is fed the lines of a module and says what each holds;
//! [`HloModule::from_text`] builds the view from it, and a caller that
//! reads a file line by line (the CLI's `report` and `scan`) holds one line
//! at a time.

use std::cell::OnceCell;
use std::collections::HashMap;

use super::report::BufferSizes;
use super::{HloComputation, HloInstruction, HloModule, ModuleSource, Rejected, parse_error};
use crate::error::{Location, Result};
use crate::model::{ProgramShape, Shape};
use crate::text::{ParseOptions, ShapeAt, parse_shape_at};

/// The offset of the first byte at or after `pos` that is not whitespace
/// or inside a comment, and the text from there.
pub(super) fn skip_blank(text: &str, mut pos: usize) -> (usize, &str) {
    let bytes = text.as_bytes();
    loop {
        while pos < bytes.len() && bytes[pos].is_ascii_whitespace() {
            pos += 1;
        }
        let rest = &bytes[pos..];
        if rest.starts_with(b"//") {
            pos = memchr::memchr(b'\n', rest).map_or(bytes.len(), |i| pos + i);
        } else if rest.starts_with(b"/*") {
            pos = memchr::memmem::find(&rest[2..], b"*/").map_or(bytes.len(), |i| pos + 2 + i + 2);
        } else {
            return (pos, &text[pos..]);
        }
    }
}

/// A line of the module: its text (without the line break), where it
/// starts and its number.
#[derive(Clone, Copy)]
struct Line<'a> {
    text: &'a str,
    start: usize,
    number: usize,
}

impl Line<'_> {
    fn location(&self, offset: usize) -> Location {
        Location {
            line: self.number,
            column: offset - self.start,
            offset,
        }
    }

    /// The location of byte `at` of the line.
    fn at(&self, at: usize) -> Location {
        self.location(self.start + at)
    }
}

/// Whether `c` may continue an HLO name (`[a-zA-Z0-9_.-]`, XLA's lexer).
fn is_name_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-')
}

/// The end of the name that starts at `at`.
fn name_end(s: &[u8], at: usize) -> usize {
    at + s[at..].iter().take_while(|&&c| is_name_char(c)).count()
}

/// The index of the first byte at or after `i` of `s` that is not a space
/// or tab.
fn skip_spaces(s: &[u8], mut i: usize) -> usize {
    while i < s.len() && matches!(s[i], b' ' | b'\t') {
        i += 1;
    }
    i
}

/// A shape read from module text, kept by the reader: the shape and, once
/// asked for, its sizes.
#[derive(Debug)]
pub(crate) struct KnownShape {
    pub(crate) shape: Shape,
    sizes: OnceCell<BufferSizes>,
    printed: OnceCell<Box<str>>,
}

impl KnownShape {
    fn new(shape: Shape) -> Self {
        KnownShape {
            shape,
            sizes: OnceCell::new(),
            printed: OnceCell::new(),
        }
    }

    fn printed(&self) -> &str {
        self.printed.get_or_init(|| self.shape.to_string().into())
    }

    pub(crate) fn sizes(&self) -> BufferSizes {
        *self.sizes.get_or_init(|| BufferSizes::of(&self.shape))
    }
}

/// The shapes read so far, by the text they were read from. Modules repeat
/// a few shapes over and over: looking the text up costs far less than
/// parsing, validating and sizing it again. Only text whose reading does
/// not depend on what follows it is kept (see [`ShapeCache::key`]).
#[derive(Default)]
struct ShapeCache {
    /// The index in `shapes` of each text's shape.
    index: HashMap<Box<str>, usize, foldhash::fast::RandomState>,
    shapes: Vec<KnownShape>,
}

impl ShapeCache {
    /// Distinct shapes kept at most; the cache starts over past it.
    const CAPACITY: usize = 4096;

    /// The text at the start of `rest` whose reading as a shape does not
    /// depend on what follows, if it is one of the two kinds that can be
    /// kept: an array written without spaces or comments, up to a space or
    /// comma outside brackets that no layout or comment follows, or a tuple
    /// up to its closing parenthesis (a tuple ends there whatever follows).
    /// The text is kept only if the parser read exactly that much of it, so
    /// the same text at the start of another shape reads the same.
    fn key(rest: &str) -> Option<&str> {
        let bytes = rest.as_bytes();
        let tuple = bytes.first() == Some(&b'(');
        let mut depth = 0usize;
        for (i, &c) in bytes.iter().enumerate() {
            match c {
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' | b'}' => {
                    depth = depth.checked_sub(1)?;
                    if tuple && depth == 0 {
                        return Some(&rest[..=i]);
                    }
                }
                b' ' | b'\t' | b',' if depth == 0 => {
                    // An array's layout may follow after spaces (and
                    // comments).
                    let after = skip_spaces(bytes, i);
                    let layout = matches!(bytes.get(after), Some(b'{' | b'/'));
                    return (i > 0 && !layout).then(|| &rest[..i]);
                }
                b'/' if !tuple => return None,
                b'"' | b'\n' | b'\r' => return None,
                _ => {}
            }
        }
        None
    }
}

/// Where the reader is in the module.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Before the `HloModule` header, inside a `/* */` comment or not.
    BeforeHeader { in_comment: bool },
    /// Between computations.
    Body,
    /// Inside a computation.
    Computation,
}

/// What one line of module text holds.
#[derive(Debug)]
#[non_exhaustive]
pub enum TextLine<'a> {
    /// Nothing the view reads: a blank line, a comment, a line outside
    /// computations.
    Other,
    /// The module header `HloModule name, entry_computation_layout={...}`.
    Header {
        /// The module's name.
        name: &'a str,
        /// `entry_computation_layout={...}` (without parameter names), if
        /// the header has one and XLA's validation accepts its shapes.
        entry_computation_layout: Option<ProgramShape>,
    },
    /// A computation's header line: `[ENTRY] %name (params) -> result {`.
    Computation {
        /// The computation's name, without `%`.
        name: &'a str,
        /// Whether the line starts with `ENTRY`.
        entry: bool,
        /// The signature's program shape, if the line has a signature:
        /// `Some(None)` when XLA's validation rejects one of its shapes.
        signature: Option<Option<ProgramShape>>,
        /// Where the line starts.
        location: Location,
    },
    /// An instruction line.
    Instruction(InstructionLine<'a>),
    /// The `}` that closes a computation.
    End,
}

/// One instruction line of module text, borrowed from the line and the
/// reader.
#[derive(Debug)]
pub struct InstructionLine<'a> {
    /// The instruction's name, without `%`.
    pub name: &'a str,
    /// The opcode (`add`, `get-tuple-element`).
    pub opcode: &'a str,
    /// The operand list between the opcode's parentheses (`%a, %b`).
    pub operands: &'a str,
    /// Whether the line starts with `ROOT`.
    pub root: bool,
    /// Where the shape starts.
    pub location: Location,
    shape: std::result::Result<&'a KnownShape, &'a Rejected>,
}

impl InstructionLine<'_> {
    /// The result shape, or the shape as written when XLA's validation
    /// rejects it.
    pub fn shape(&self) -> std::result::Result<&Shape, &Rejected> {
        self.shape.map(|k| &k.shape)
    }

    /// What the result takes in memory ([`BufferSizes::of`] its shape),
    /// worked out once for each distinct shape of the module.
    pub fn sizes(&self) -> BufferSizes {
        self.shape.map_or(BufferSizes::REJECTED, KnownShape::sizes)
    }

    /// The result shape as the crate prints it (`Display`), worked out once
    /// for each distinct shape of the module; the text as written for a
    /// shape that XLA's validation rejects.
    pub fn shape_text(&self) -> &str {
        match self.shape {
            Ok(known) => known.printed(),
            Err(rejected) => &rejected.written,
        }
    }

    /// The instruction, owned.
    pub fn to_instruction(&self) -> HloInstruction {
        HloInstruction {
            name: self.name.to_owned(),
            opcode: self.opcode.to_owned(),
            shape: self.shape().cloned().map_err(Rejected::clone),
            id: None,
            operand_ids: Vec::new(),
            operands: Some(self.operands.to_owned()),
            location: Some(self.location),
        }
    }
}

/// Reads module text fed one line at a time, holding nothing of a line
/// once the next is fed but the shapes seen so far (up to a few thousand
/// distinct ones).
///
/// ```
/// use xla_shape::hlo::{TextLine, TextReader};
///
/// let mut reader = TextReader::new();
/// let mut start = 0;
/// let mut names = Vec::new();
/// for line in "HloModule m\nENTRY %e {\n  ROOT %p = f32[2]{0} parameter(0)\n}\n".lines() {
///     if let TextLine::Instruction(i) = reader.line(line, start)? {
///         names.push((i.name.to_owned(), i.sizes().byte_size));
///     }
///     start += line.len() + 1;
/// }
/// reader.finish(start)?;
/// assert_eq!(names, [("p".to_owned(), Some(8))]);
/// # Ok::<(), xla_shape::Error>(())
/// ```
pub struct TextReader {
    options: ParseOptions,
    state: State,
    /// The number of the last line fed, where it started and its length.
    number: usize,
    last: (usize, usize),
    /// The computation open, and the line of its header.
    open: Option<(String, Location)>,
    shapes: ShapeCache,
    /// The shape of the last instruction when it is not one kept in
    /// `shapes`.
    scratch: Option<std::result::Result<KnownShape, Rejected>>,
}

impl Default for TextReader {
    fn default() -> Self {
        TextReader::new()
    }
}

impl TextReader {
    /// A reader at the start of a module, reading shapes as XLA does by
    /// default (missing layouts filled).
    pub fn new() -> Self {
        TextReader {
            options: ParseOptions::default(),
            state: State::BeforeHeader { in_comment: false },
            number: 0,
            last: (0, 0),
            open: None,
            shapes: ShapeCache::default(),
            scratch: None,
        }
    }

    /// Reads the next line: `text` without its line break (`\n` or
    /// `\r\n`), which starts at byte `start` of the module. Lines are
    /// numbered from 1 in the order they are fed.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Parse`](crate::ErrorKind::Parse) with the line's
    /// [`Location`]: XLA's `expects HloModule` for a first line that is not
    /// a module header, XLA's parse error for a shape that does not parse,
    /// ours for an instruction line that is not `name = shape opcode(...)`.
    /// The reader goes on with the next line after an error.
    pub fn line<'a>(&'a mut self, text: &'a str, start: usize) -> Result<TextLine<'a>> {
        self.number += 1;
        self.last = (start, text.len());
        let line = Line {
            text,
            start,
            number: self.number,
        };
        match self.state {
            State::BeforeHeader { in_comment } => self.before_header(line, in_comment),
            State::Body => self.body(line),
            State::Computation => {
                let trimmed = text.trim();
                if trimmed.is_empty() {
                    return Ok(TextLine::Other);
                }
                if trimmed == "}" {
                    self.state = State::Body;
                    self.open = None;
                    return Ok(TextLine::End);
                }
                self.instruction(line).map(TextLine::Instruction)
            }
        }
    }

    /// Ends the module, whose text has `end` bytes.
    ///
    /// # Errors
    ///
    /// XLA's `expects HloModule` for text without a header, ours for a
    /// computation left open.
    pub fn finish(&self, end: usize) -> Result<()> {
        match self.state {
            State::BeforeHeader { .. } => {
                let (start, len) = self.last;
                // After a last line that ends with a line break, the end is
                // at the start of the line after it.
                let location = if self.number == 0 {
                    Location {
                        line: 1,
                        column: end,
                        offset: end,
                    }
                } else if end > start + len {
                    Location {
                        line: self.number + 1,
                        column: 0,
                        offset: end,
                    }
                } else {
                    Location {
                        line: self.number,
                        column: end - start,
                        offset: end,
                    }
                };
                Err(expects_module(location))
            }
            State::Computation => {
                let (name, location) = self.open.as_ref().expect("a computation is open");
                Err(parse_error(
                    format!("computation {name} is not closed with '}}'"),
                    *location,
                ))
            }
            State::Body => Ok(()),
        }
    }

    fn before_header<'a>(
        &'a mut self,
        line: Line<'a>,
        mut in_comment: bool,
    ) -> Result<TextLine<'a>> {
        let bytes = line.text.as_bytes();
        let mut at = 0;
        loop {
            if in_comment {
                match memchr::memmem::find(&bytes[at..], b"*/") {
                    Some(i) => {
                        at += i + 2;
                    }
                    None => {
                        self.state = State::BeforeHeader { in_comment: true };
                        return Ok(TextLine::Other);
                    }
                }
            }
            while at < bytes.len() && bytes[at].is_ascii_whitespace() {
                at += 1;
            }
            let rest = &bytes[at..];
            if rest.is_empty() || rest.starts_with(b"//") {
                self.state = State::BeforeHeader { in_comment: false };
                return Ok(TextLine::Other);
            }
            if rest.starts_with(b"/*") {
                at += 2;
                in_comment = true;
                continue;
            }
            break;
        }
        if !line.text[at..].starts_with("HloModule") {
            // XLA's ParseHloModule. The reader stays before the header.
            return Err(expects_module(line.at(at)));
        }
        let name_at = skip_spaces(bytes, at + "HloModule".len());
        let name = &line.text[name_at..name_end(bytes, name_at)];
        const ECL: &str = "entry_computation_layout={";
        self.state = State::Body;
        let entry_computation_layout = match line.text.find(ECL) {
            Some(i) => self.layout(line, i + ECL.len())?,
            None => None,
        };
        Ok(TextLine::Header {
            name,
            entry_computation_layout,
        })
    }

    fn body<'a>(&'a mut self, line: Line<'a>) -> Result<TextLine<'a>> {
        let trimmed = line.text.trim();
        let starts_computation = !line.text.starts_with([' ', '\t'])
            && trimmed.ends_with('{')
            && (trimmed.starts_with('%') || trimmed.starts_with("ENTRY "));
        if !starts_computation {
            return Ok(TextLine::Other);
        }
        let bytes = line.text.as_bytes();
        let entry = trimmed.starts_with("ENTRY ");
        let mut at = skip_spaces(bytes, if entry { 6 } else { 0 });
        if bytes.get(at) == Some(&b'%') {
            at += 1;
        }
        let end = name_end(bytes, at);
        let name = &line.text[at..end];
        let location = line.at(0);
        let signature = if entry {
            let paren = skip_spaces(bytes, end);
            if bytes.get(paren) == Some(&b'(') {
                Some(self.signature(line, paren)?)
            } else {
                None
            }
        } else {
            None
        };
        self.state = State::Computation;
        self.open = Some((name.to_owned(), location));
        Ok(TextLine::Computation {
            name,
            entry,
            signature,
            location,
        })
    }

    /// The shape starting at byte `at` of `line`, and the byte after it: a
    /// shape kept from an earlier line when its text is one, otherwise read
    /// into `scratch`. A shape that does not parse is an error; one that
    /// XLA's validation rejects is kept as written.
    fn shape<'a>(
        &'a mut self,
        line: Line<'a>,
        at: usize,
    ) -> Result<(std::result::Result<&'a KnownShape, &'a Rejected>, usize)> {
        let key = ShapeCache::key(&line.text[at..]);
        if let Some(key) = key
            && let Some(&i) = self.shapes.index.get(key)
        {
            return Ok((Ok(&self.shapes.shapes[i]), at + key.len()));
        }
        let (outcome, end) = parse_shape_at(line.text, at, line.number, 0, &self.options);
        let outcome = match outcome {
            ShapeAt::Valid(shape) => Ok(shape),
            ShapeAt::Rejected(error) => Err(Rejected {
                written: line.text[at..end].to_owned(),
                error: shifted(error, line.start),
            }),
            ShapeAt::Failed(error) => return Err(shifted(error, line.start)),
        };
        match (outcome, key) {
            (Ok(shape), Some(key)) if key.len() == end - at => {
                let cache = &mut self.shapes;
                if cache.shapes.len() >= ShapeCache::CAPACITY {
                    cache.index.clear();
                    cache.shapes.clear();
                }
                cache.index.insert(key.into(), cache.shapes.len());
                cache.shapes.push(KnownShape::new(shape));
                Ok((Ok(&cache.shapes[cache.shapes.len() - 1]), end))
            }
            (outcome, _) => {
                let kept = self.scratch.insert(outcome.map(KnownShape::new));
                Ok((kept.as_ref(), end))
            }
        }
    }

    /// A valid shape at byte `at` of `line` (signatures and the entry
    /// computation layout): a rejected one ends the program shape.
    fn valid_shape(&mut self, line: Line<'_>, at: usize) -> Result<(Option<Shape>, usize)> {
        let (shape, end) = self.shape(line, at)?;
        Ok((shape.ok().map(|k| k.shape.clone()), end))
    }

    /// `entry_computation_layout={(p0, p1, ...)->result}` starting at the
    /// `(`: the program shape without parameter names, or `None` when a
    /// shape in it is rejected by validation.
    fn layout(&mut self, line: Line<'_>, at: usize) -> Result<Option<ProgramShape>> {
        let bytes = line.text.as_bytes();
        let (parameters, end) = self.valid_shape(line, at)?;
        let arrow = skip_spaces(bytes, end);
        if !line.text[arrow..].starts_with("->") {
            return Err(parse_error(
                "expects '->' in entry_computation_layout",
                line.at(arrow),
            ));
        }
        let (result, _) = self.valid_shape(line, skip_spaces(bytes, arrow + 2))?;
        Ok(match (parameters, result) {
            (Some(Shape::Tuple(parameters)), Some(result)) => Some(ProgramShape::new(
                parameters.into_iter().map(|p| (String::new(), p)).collect(),
                result,
            )),
            _ => None,
        })
    }

    /// The signature `(name: shape, ...) -> shape` starting at the `(`.
    fn signature(&mut self, line: Line<'_>, mut at: usize) -> Result<Option<ProgramShape>> {
        let bytes = line.text.as_bytes();
        let mut parameters = Vec::new();
        let mut valid = true;
        at += 1;
        loop {
            at = skip_spaces(bytes, at);
            if bytes.get(at) == Some(&b')') {
                at += 1;
                break;
            }
            let end = name_end(bytes, at);
            let name = &line.text[at..end];
            let colon = skip_spaces(bytes, end);
            if name.is_empty() || bytes.get(colon) != Some(&b':') {
                return Err(parse_error(
                    "expects 'name: shape' in the computation's parameters",
                    line.at(at),
                ));
            }
            let (shape, end) = self.valid_shape(line, skip_spaces(bytes, colon + 1))?;
            match shape {
                Some(shape) => parameters.push((name.to_owned(), shape)),
                None => valid = false,
            }
            at = skip_spaces(bytes, end);
            match bytes.get(at) {
                Some(b',') => at += 1,
                Some(b')') => {
                    at += 1;
                    break;
                }
                _ => {
                    return Err(parse_error(
                        "expects ',' or ')' in the computation's parameters",
                        line.at(at),
                    ));
                }
            }
        }
        at = skip_spaces(bytes, at);
        if !line.text[at..].starts_with("->") {
            return Err(parse_error(
                "expects '->' after the computation's parameters",
                line.at(at),
            ));
        }
        let (result, _) = self.valid_shape(line, skip_spaces(bytes, at + 2))?;
        Ok(match result {
            Some(result) if valid => Some(ProgramShape::new(parameters, result)),
            _ => None,
        })
    }

    /// An instruction line: `[ROOT] %name = shape opcode(operands)...`.
    fn instruction<'a>(&'a mut self, line: Line<'a>) -> Result<InstructionLine<'a>> {
        let text = line.text;
        let bytes = text.as_bytes();
        let mut at = skip_spaces(bytes, 0);
        let root = text[at..].starts_with("ROOT ");
        if root {
            at = skip_spaces(bytes, at + 5);
        }
        if bytes.get(at) == Some(&b'%') {
            at += 1;
        }
        let name_end = name_end(bytes, at);
        let equals = skip_spaces(bytes, name_end);
        if name_end == at || bytes.get(equals) != Some(&b'=') {
            return Err(parse_error(
                "expects an instruction: '%name = shape opcode(...)'",
                line.at(at),
            ));
        }
        let shape_at = skip_spaces(bytes, equals + 1);
        let (shape, end) = self.shape(line, shape_at)?;
        let opcode_at = skip_spaces(bytes, end);
        let opcode_end = self::name_end(bytes, opcode_at);
        if opcode_end == opcode_at || bytes.get(opcode_end) != Some(&b'(') {
            return Err(parse_error(
                "expects an opcode and '(' after the shape",
                line.at(opcode_at),
            ));
        }
        let operands = operand_list(text, opcode_end).ok_or_else(|| {
            parse_error(
                "expects ')' at the end of the operands",
                line.at(opcode_end),
            )
        })?;
        Ok(InstructionLine {
            name: &text[at..name_end],
            opcode: &text[opcode_at..opcode_end],
            operands,
            root,
            location: line.at(shape_at),
            shape,
        })
    }
}

/// `error`, read from a line alone, with its offsets moved to the line's
/// place `by` in the module.
fn shifted(error: crate::Error, by: usize) -> crate::Error {
    let diagnostics = error
        .diagnostics()
        .iter()
        .map(|d| {
            let mut at = d.location();
            at.offset += by;
            crate::error::Diagnostic::new(at, d.message())
        })
        .collect();
    error.with_diagnostics(diagnostics)
}

/// XLA's `ParseHloModule` error for text that is not a module.
fn expects_module(location: Location) -> crate::Error {
    parse_error("Syntax error:\nexpects HloModule", location)
}

/// The text between the `(` at `open` and its matching `)`, skipping
/// string literals and comments.
fn operand_list(line: &str, open: usize) -> Option<&str> {
    let bytes = line.as_bytes();
    let mut depth = 0usize;
    let mut i = open;
    while i < bytes.len() {
        // Only these bytes matter: jump to the next one.
        i += memchr::memchr3(b'(', b')', b'"', &bytes[i..])
            .map(|j| {
                let slash = memchr::memchr(b'/', &bytes[i..i + j]);
                slash.unwrap_or(j)
            })
            .or_else(|| memchr::memchr(b'/', &bytes[i..]))?;
        match bytes[i] {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(&line[open + 1..i]);
                }
            }
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i = memchr::memmem::find(&bytes[i + 2..], b"*/")
                    .map_or(bytes.len(), |j| i + 2 + j + 1);
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// The lines of `text`, without their line breaks (`\n`, `\r\n`), with
/// where each starts.
pub(crate) fn lines(text: &str) -> impl Iterator<Item = (&str, usize)> {
    let mut start = 0;
    std::iter::from_fn(move || {
        if start >= text.len() {
            return None;
        }
        let end =
            memchr::memchr(b'\n', &text.as_bytes()[start..]).map_or(text.len(), |i| start + i);
        let body = &text[start..end];
        let line = (body.strip_suffix('\r').unwrap_or(body), start);
        start = end + 1;
        Some(line)
    })
}

pub(super) fn read(text: &str) -> Result<HloModule> {
    let mut reader = TextReader::new();
    let mut module = HloModule {
        name: String::new(),
        computations: Vec::new(),
        entry: None,
        program_shape: None,
        entry_computation_layout: None,
        source: ModuleSource::Text,
    };
    for (line, start) in lines(text) {
        match reader.line(line, start)? {
            TextLine::Other => {}
            TextLine::Header {
                name,
                entry_computation_layout,
            } => {
                module.name = name.to_owned();
                module.entry_computation_layout = entry_computation_layout;
            }
            TextLine::Computation {
                name,
                entry,
                signature,
                location,
            } => {
                if entry {
                    module.entry = Some(module.computations.len());
                    if let Some(signature) = signature {
                        module.program_shape = signature;
                    }
                }
                module.computations.push(HloComputation {
                    name: name.to_owned(),
                    id: None,
                    instructions: Vec::new(),
                    root: None,
                    location: Some(location),
                });
            }
            TextLine::Instruction(i) => {
                let c = module
                    .computations
                    .last_mut()
                    .expect("a computation is open");
                if i.root {
                    c.root = Some(c.instructions.len());
                }
                c.instructions.push(i.to_instruction());
            }
            TextLine::End => {
                let c = module
                    .computations
                    .last_mut()
                    .expect("a computation is open");
                if c.root.is_none() && !c.instructions.is_empty() {
                    // XLA: without ROOT, the last instruction is the root.
                    c.root = Some(c.instructions.len() - 1);
                }
            }
        }
    }
    reader.finish(text.len())?;
    if module.entry.is_none() && !module.computations.is_empty() {
        // XLA: without ENTRY, the last computation is the entry.
        module.entry = Some(module.computations.len() - 1);
    }
    Ok(module)
}
