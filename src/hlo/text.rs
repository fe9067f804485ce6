//! Reading HLO module text, one line at a time, as XLA's
//! `HloModule::ToString` prints it: the `HloModule` header, computations
//! (`[ENTRY] %name (params) -> result {` ... `}`), one instruction per line
//! (`[ROOT] %name = shape opcode(operands), attributes`). Shapes are read by
//! the crate's port of XLA's `ParseShape`; operands stay text, and of the
//! attributes only those that say which computations an instruction calls
//! and which buffers it shares are read. Computation headers are read in
//! both forms XLA writes: `%name (params) -> shape {` and the short
//! `name {` (`ENTRY main.2 {`, `region_0.1 {`) of
//! `lowered.as_text(dialect="hlo")`. Between computations, blank lines,
//! comments and the stack-frame tables of newer dumps (`FileNames`,
//! `FunctionNames`, `FileLocations`, `StackFrames` and their numbered
//! entries) are skipped; any other line is an error.
//!
//! [`TextReader`] is fed the lines of a module and says what each holds;
//! [`HloModule::from_text`] builds the view from it, and a caller that
//! reads a file line by line (the CLI's `report` and `scan`) holds one line
//! at a time.

use std::cell::OnceCell;
use std::collections::HashMap;

use super::report::BufferSizes;
use super::{
    BufferDonor, HloComputation, HloInstruction, HloModule, InputOutputAlias, ModuleSource,
    OutputOperandAlias, Rejected, parse_error,
};
use crate::error::{Location, Result};
use crate::model::{ProgramShape, Shape};
use crate::sharding::{HloSharding, parse_sharding_at};
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
    /// The bytes of the texts kept.
    bytes: usize,
}

impl ShapeCache {
    /// Distinct shapes kept at most; the cache starts over past it.
    const CAPACITY: usize = 4096;
    /// Bytes of text kept at most; the cache starts over past it. A
    /// shape holds a few times its text (a rank-8,000 array's 16 KB of
    /// text are 150 KB of dimensions, flags and layout): bounded by
    /// entries alone, 4,096 distinct long shapes held gigabytes while the
    /// module was streamed.
    const CAPACITY_BYTES: usize = 1 << 20;
    /// The longest text kept: a longer shape is parsed each time (its
    /// parse costs little beside its length, and it rarely repeats).
    const LONGEST: usize = 4096;

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
    /// In a stack-frame table (`FileNames`, ...) between computations.
    Table,
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
        /// `is_scheduled=true`: each computation's instructions are in the
        /// order they run.
        is_scheduled: bool,
        /// `input_output_alias={...}`.
        input_output_alias: Vec<InputOutputAlias>,
        /// `buffer_donor={...}`.
        buffer_donors: Vec<BufferDonor>,
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
    /// The text after the operand list: `, name=value` attributes.
    pub attributes: &'a str,
    /// Where `attributes` starts.
    attributes_at: Location,
    /// The whole line.
    line: &'a str,
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

    /// The `sharding={...}` attribute read as XLA's parser reads it
    /// (`ParseSharding`), or its error located in the module; `None`
    /// without one.
    pub fn sharding(&self) -> Option<Result<HloSharding>> {
        let (_, _, at) = attributes(self.attributes).find(|(name, _, _)| *name == "sharding")?;
        // The attributes start `attributes_at.column` bytes into the line.
        let value_at = self.attributes_at.column + at;
        let line_start = self.location.offset - self.location.column;
        let at = Location {
            line: self.location.line,
            column: value_at,
            offset: value_at,
        };
        let (sharding, _) = parse_sharding_at(self.line, at);
        Some(sharding.map_err(|e| shifted(e, line_start)))
    }

    /// The instruction, owned, with the attributes the view keeps read:
    /// the computations it calls (`calls=`, `to_apply=`, `body=`,
    /// `condition=`, `true_computation=`, `false_computation=`,
    /// `branch_computations=`, `called_computations=`), `index=`,
    /// `kind=` and `output_to_operand_aliasing=`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Parse`](crate::ErrorKind::Parse) at the attribute for
    /// one of these that is not written as XLA writes it, or a
    /// `parameter(N)` without a number.
    pub fn to_instruction(&self) -> Result<HloInstruction> {
        let mut instruction = HloInstruction {
            name: self.name.to_owned(),
            opcode: self.opcode.to_owned(),
            shape: self.shape().cloned().map_err(Rejected::clone),
            id: None,
            operand_ids: Vec::new(),
            operands: Some(self.operands.to_owned()),
            location: Some(self.location),
            called_computation_ids: Vec::new(),
            called_computations: Vec::new(),
            parameter_number: None,
            tuple_index: None,
            fusion_kind: None,
            output_operand_aliasing: Vec::new(),
            sharding: self.sharding(),
        };
        if self.opcode == "parameter" {
            let n = self.operands.trim().parse::<i64>().ok();
            instruction.parameter_number =
                Some(n.ok_or_else(|| self.error("expects a parameter number", 0))?);
        }
        // XLA's order of the called computations: a while's body before its
        // condition.
        let mut condition = None;
        for (name, value, at) in attributes(self.attributes) {
            match name {
                "calls"
                | "to_apply"
                | "body"
                | "true_computation"
                | "false_computation"
                | "branch_computations"
                | "called_computations" => instruction
                    .called_computations
                    .extend(computation_names(value).map(str::to_owned)),
                "condition" => condition = Some(value),
                "index" if self.opcode == "get-tuple-element" => {
                    let n = value.trim().parse::<i64>().ok();
                    instruction.tuple_index =
                        Some(n.ok_or_else(|| self.error("expects a tuple index", at))?);
                }
                "kind" if self.opcode == "fusion" => {
                    instruction.fusion_kind = Some(value.trim().to_owned());
                }
                "output_to_operand_aliasing" => {
                    instruction.output_operand_aliasing = alias_entries(value)
                        .ok_or_else(|| {
                            self.error("expects {output_index}: (operand, {index}) entries", at)
                        })?
                        .into_iter()
                        .map(
                            |(output_index, operand, operand_index, _)| OutputOperandAlias {
                                output_index,
                                operand,
                                operand_index,
                            },
                        )
                        .collect();
                }
                _ => {}
            }
        }
        instruction.called_computations.extend(
            condition
                .into_iter()
                .flat_map(computation_names)
                .map(str::to_owned),
        );
        Ok(instruction)
    }

    /// An error about the attribute `at` bytes into `attributes`.
    fn error(&self, message: &str, at: usize) -> crate::Error {
        let mut location = self.attributes_at;
        location.column += at;
        location.offset += at;
        parse_error(message, location)
    }
}

/// The `name=value` attributes of `text` (after an operand list or a
/// module name), with where each value starts: split at commas outside
/// brackets, braces, parentheses, strings and comments.
fn attributes(text: &str) -> impl Iterator<Item = (&str, &str, usize)> {
    let bytes = text.as_bytes();
    let mut at = 0;
    std::iter::from_fn(move || {
        loop {
            while at < bytes.len() && matches!(bytes[at], b' ' | b'\t' | b',') {
                at += 1;
            }
            if at >= bytes.len() {
                return None;
            }
            let start = at;
            let end = value_end(bytes, at);
            at = end;
            let item = &text[start..end];
            if let Some((name, value)) = item.split_once('=') {
                let value_at = start + name.len() + 1;
                return Some((name.trim(), value, value_at));
            }
        }
    })
}

/// The end of the attribute that starts at `at`: the next comma outside
/// brackets, strings and comments, or the end.
fn value_end(bytes: &[u8], mut at: usize) -> usize {
    let mut depth = 0usize;
    while at < bytes.len() {
        match bytes[at] {
            b'{' | b'(' | b'[' => depth += 1,
            b'}' | b')' | b']' => depth = depth.saturating_sub(1),
            b',' if depth == 0 => return at,
            b'"' | b'/' => at = skip_string_or_comment(bytes, at),
            _ => {}
        }
        at += 1;
    }
    bytes.len()
}

/// The names in `%a` or `{%a, %b}`, without `%`.
fn computation_names(value: &str) -> impl Iterator<Item = &str> {
    let value = value.trim();
    let inner = value
        .strip_prefix('{')
        .and_then(|v| v.strip_suffix('}'))
        .unwrap_or(value);
    inner
        .split(',')
        .map(|n| n.trim().trim_start_matches('%'))
        .filter(|n| !n.is_empty())
}

/// The operand names of an operand list (`%a, f32[2]{0} %b, /*index=2*/%c`):
/// the last word of each operand, without `%`.
pub(super) fn operand_names(list: &str) -> impl Iterator<Item = &str> {
    let bytes = list.as_bytes();
    let mut at = 0;
    std::iter::from_fn(move || {
        while at < bytes.len() {
            let start = at;
            let end = value_end(bytes, at);
            at = end + 1;
            let operand = strip_comments(&list[start..end]);
            let name = operand
                .rsplit(|c: char| c.is_ascii_whitespace() || c == '/')
                .next()
                .unwrap_or("")
                .trim_start_matches('%');
            if !name.is_empty() {
                return Some(name);
            }
        }
        None
    })
}

/// `text` without a trailing `/* ... */` comment and surrounding spaces.
fn strip_comments(text: &str) -> &str {
    let mut t = text.trim();
    // A comment written before the operand: `/*index=5*/%f`.
    while let Some(rest) = t.strip_prefix("/*") {
        t = rest.find("*/").map_or("", |i| rest[i + 2..].trim_start());
    }
    t
}

/// A shape index `{}`, `{0,1}` at the start of `text`, and the rest.
fn shape_index(text: &str) -> Option<(Vec<i64>, &str)> {
    let inner = text.trim_start().strip_prefix('{')?;
    let close = inner.find('}')?;
    let index = inner[..close]
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().ok())
        .collect::<Option<Vec<i64>>>()?;
    Some((index, &inner[close + 1..]))
}

/// The entries of `{ {0}: (1, {}, may-alias), ... }` (input-output and
/// output-operand aliasing): output index, number, index and whether the
/// kind is `must-alias`. `None` for text written otherwise.
#[allow(clippy::type_complexity)]
fn alias_entries(value: &str) -> Option<Vec<(Vec<i64>, i64, Vec<i64>, bool)>> {
    let mut rest = value.trim().strip_prefix('{')?.trim_start();
    let mut out = Vec::new();
    loop {
        if let Some(after) = rest.strip_prefix('}') {
            return after.trim().is_empty().then_some(out);
        }
        let (output_index, after) = shape_index(rest)?;
        let after = after.trim_start().strip_prefix(':')?.trim_start();
        let after = after.strip_prefix('(')?;
        let close = after.find(')')?;
        let inside = &after[..close];
        let (number, tail) = inside.split_once(',')?;
        let (index, tail) = shape_index(tail)?;
        let kind = tail.trim().trim_start_matches(',').trim();
        if !matches!(kind, "" | "may-alias" | "must-alias") {
            return None;
        }
        out.push((
            output_index,
            number.trim().parse().ok()?,
            index,
            kind == "must-alias",
        ));
        rest = after[close + 1..].trim_start();
        rest = rest.strip_prefix(',').unwrap_or(rest).trim_start();
    }
}

/// The entries of `buffer_donor={ (0, {}), (1, {1}) }`.
fn donor_entries(value: &str) -> Option<Vec<BufferDonor>> {
    let mut rest = value.trim().strip_prefix('{')?.trim_start();
    let mut out = Vec::new();
    loop {
        if let Some(after) = rest.strip_prefix('}') {
            return after.trim().is_empty().then_some(out);
        }
        let after = rest.strip_prefix('(')?;
        let close = after.find(')')?;
        let (number, tail) = after[..close].split_once(',')?;
        let (parameter_index, tail) = shape_index(tail)?;
        if !tail.trim().is_empty() {
            return None;
        }
        out.push(BufferDonor {
            parameter_number: number.trim().parse().ok()?,
            parameter_index,
        });
        rest = after[close + 1..].trim_start();
        rest = rest.strip_prefix(',').unwrap_or(rest).trim_start();
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
            State::Body | State::Table => self.body(line),
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
            State::Body | State::Table => Ok(()),
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
        let end = name_end(bytes, name_at);
        let name = &line.text[name_at..end];
        self.state = State::Body;
        let (mut entry_computation_layout, mut is_scheduled) = (None, false);
        let (mut input_output_alias, mut buffer_donors) = (Vec::new(), Vec::new());
        for (key, value, value_at) in attributes(&line.text[end..]) {
            let value_at = end + value_at;
            match key {
                "entry_computation_layout" => {
                    let open = value.len() - value.trim_start().len();
                    if !value.trim_start().starts_with('{') {
                        return Err(parse_error("expects '{'", line.at(value_at + open)));
                    }
                    entry_computation_layout = self.layout(line, value_at + open + 1)?;
                }
                "is_scheduled" => is_scheduled = value.trim() == "true",
                "input_output_alias" => {
                    input_output_alias = alias_entries(value)
                        .ok_or_else(|| {
                            parse_error(
                                "expects {output_index}: (parameter, {index}[, kind]) entries",
                                line.at(value_at),
                            )
                        })?
                        .into_iter()
                        .map(
                            |(output_index, parameter_number, parameter_index, must_alias)| {
                                InputOutputAlias {
                                    output_index,
                                    parameter_number,
                                    parameter_index,
                                    must_alias,
                                }
                            },
                        )
                        .collect();
                }
                "buffer_donor" => {
                    buffer_donors = donor_entries(value).ok_or_else(|| {
                        parse_error("expects (parameter, {index}) entries", line.at(value_at))
                    })?;
                }
                _ => {}
            }
        }
        Ok(TextLine::Header {
            name,
            entry_computation_layout,
            is_scheduled,
            input_output_alias,
            buffer_donors,
        })
    }

    fn body<'a>(&'a mut self, line: Line<'a>) -> Result<TextLine<'a>> {
        let trimmed = line.text.trim();
        // Blank lines and comments.
        if trimmed.is_empty() || trimmed.starts_with("//") || is_comment(trimmed) {
            return Ok(TextLine::Other);
        }
        // The stack-frame tables of newer dumps: a title, then numbered
        // entries (`1 "file.py"`, `1 {file_name_id=1 ...}`).
        if matches!(
            trimmed,
            "FileNames" | "FunctionNames" | "FileLocations" | "StackFrames"
        ) {
            self.state = State::Table;
            return Ok(TextLine::Other);
        }
        if self.state == State::Table && trimmed.starts_with(|c: char| c.is_ascii_digit()) {
            return Ok(TextLine::Other);
        }
        self.state = State::Body;
        let bytes = line.text.as_bytes();
        let entry = trimmed.starts_with("ENTRY ");
        let mut at = skip_spaces(bytes, if entry { 6 } else { 0 });
        if bytes.get(at) == Some(&b'%') {
            at += 1;
        }
        let end = name_end(bytes, at);
        let starts_computation =
            !line.text.starts_with([' ', '\t']) && trimmed.ends_with('{') && end > at;
        if !starts_computation {
            return Err(parse_error(
                "expects a computation: '[ENTRY] %name (parameters) -> shape {' or 'name {'",
                line.at(skip_spaces(bytes, 0)),
            ));
        }
        let name = &line.text[at..end];
        let location = line.at(0);
        let paren = skip_spaces(bytes, end);
        let signature = if bytes.get(paren) == Some(&b'(') {
            let signature = self.signature(line, paren)?;
            // Only the entry's signature is kept.
            Some(signature).filter(|_| entry)
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
            (Ok(shape), Some(key)) if key.len() == end - at && key.len() <= ShapeCache::LONGEST => {
                let cache = &mut self.shapes;
                if cache.shapes.len() >= ShapeCache::CAPACITY
                    || cache.bytes + key.len() > ShapeCache::CAPACITY_BYTES
                {
                    cache.index.clear();
                    cache.shapes.clear();
                    cache.bytes = 0;
                }
                cache.bytes += key.len();
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
        // The operands are a slice of the line from after the '('.
        let attributes_at = opcode_end + 1 + operands.len() + 1;
        Ok(InstructionLine {
            name: &text[at..name_end],
            opcode: &text[opcode_at..opcode_end],
            operands,
            root,
            location: line.at(shape_at),
            attributes: &text[attributes_at..],
            attributes_at: line.at(attributes_at),
            line: text,
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

/// Whether a whole trimmed line is a `/* ... */` comment.
fn is_comment(trimmed: &str) -> bool {
    trimmed.starts_with("/*") && trimmed.ends_with("*/")
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
            b'"' | b'/' => i = skip_string_or_comment(bytes, i),
            _ => {}
        }
        i += 1;
    }
    None
}

/// The last byte of the string literal or `/* comment */` that starts at
/// `i` (a lone `/` is itself): what the scanners of instruction lines skip.
fn skip_string_or_comment(bytes: &[u8], mut i: usize) -> usize {
    match bytes[i] {
        b'"' => {
            i += 1;
            while i < bytes.len() && bytes[i] != b'"' {
                i += if bytes[i] == b'\\' { 2 } else { 1 };
            }
            i
        }
        b'/' if bytes.get(i + 1) == Some(&b'*') => {
            memchr::memmem::find(&bytes[i + 2..], b"*/").map_or(bytes.len(), |j| i + 2 + j + 1)
        }
        _ => i,
    }
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
        is_scheduled: false,
        schedule: Vec::new(),
        input_output_alias: Vec::new(),
        buffer_donors: Vec::new(),
        buffer_assignment: None,
    };
    for (line, start) in lines(text) {
        match reader.line(line, start)? {
            TextLine::Other => {}
            TextLine::Header {
                name,
                entry_computation_layout,
                is_scheduled,
                input_output_alias,
                buffer_donors,
            } => {
                module.name = name.to_owned();
                module.entry_computation_layout = entry_computation_layout;
                module.is_scheduled = is_scheduled;
                module.input_output_alias = input_output_alias;
                module.buffer_donors = buffer_donors;
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
                c.instructions.push(i.to_instruction()?);
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
