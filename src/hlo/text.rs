//! Reading HLO module text into the view, line by line, as XLA's
//! `HloModule::ToString` prints it: the `HloModule` header, computations
//! (`[ENTRY] %name (params) -> result {` ... `}`), one instruction per line
//! (`[ROOT] %name = shape opcode(operands), attributes`). Shapes are read by
//! the crate's port of XLA's `ParseShape`; operands and attributes are not
//! parsed. Lines outside computations that are not computation headers (the
//! stack-frame tables of newer dumps, blank lines) are skipped.

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
            pos = rest
                .iter()
                .position(|&b| b == b'\n')
                .map_or(bytes.len(), |i| pos + i);
        } else if rest.starts_with(b"/*") {
            pos = rest[2..]
                .windows(2)
                .position(|w| w == b"*/")
                .map_or(bytes.len(), |i| pos + 2 + i + 2);
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
}

/// Whether `c` may continue an HLO name (`[a-zA-Z0-9_.-]`, XLA's lexer).
fn is_name_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-')
}

/// The index of the first byte at or after `i` of `s` that is not a space
/// or tab.
fn skip_spaces(s: &[u8], mut i: usize) -> usize {
    while i < s.len() && matches!(s[i], b' ' | b'\t') {
        i += 1;
    }
    i
}

/// Reads module text with the crate's shape parser, as XLA does by default
/// (missing layouts filled).
struct Reader<'a> {
    text: &'a str,
    options: ParseOptions,
}

impl<'a> Reader<'a> {
    /// The shape starting at byte `at` of `line`, and the offset after it.
    /// A shape that does not parse is an error; one that XLA's validation
    /// rejects is kept as written.
    fn shape(
        &self,
        line: Line<'a>,
        at: usize,
    ) -> Result<(std::result::Result<Shape, Rejected>, usize)> {
        let offset = line.start + at;
        let (outcome, end) =
            parse_shape_at(self.text, offset, line.number, line.start, &self.options);
        // The shape parser reads on over line breaks (white space to XLA's
        // lexer); this reader goes line by line, as XLA prints modules.
        if end > line.start + line.text.len() {
            return Err(parse_error(
                "expects the shape to end on its line",
                line.location(offset),
            ));
        }
        match outcome {
            ShapeAt::Valid(shape) => Ok((Ok(shape), end - line.start)),
            ShapeAt::Rejected(error) => Ok((
                Err(Rejected {
                    written: self.text[offset..end].to_owned(),
                    error,
                }),
                end - line.start,
            )),
            ShapeAt::Failed(error) => Err(error),
        }
    }

    /// A valid shape at byte `at` of `line` (signatures and the entry
    /// computation layout): a rejected one ends the program shape.
    fn valid_shape(&self, line: Line<'a>, at: usize) -> Result<(Option<Shape>, usize)> {
        let (shape, end) = self.shape(line, at)?;
        Ok((shape.ok(), end))
    }

    /// `entry_computation_layout={(p0, p1, ...)->result}` starting at the
    /// `(`: the program shape without parameter names, or `None` when a
    /// shape in it is rejected by validation.
    fn layout(&self, line: Line<'a>, at: usize) -> Result<Option<ProgramShape>> {
        let bytes = line.text.as_bytes();
        let (parameters, end) = self.valid_shape(line, at)?;
        let arrow = skip_spaces(bytes, end);
        if !line.text[arrow..].starts_with("->") {
            return Err(parse_error(
                "expects '->' in entry_computation_layout",
                line.location(line.start + arrow),
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
    fn signature(&self, line: Line<'a>, mut at: usize) -> Result<Option<ProgramShape>> {
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
            let name_end = at + bytes[at..].iter().take_while(|&&c| is_name_char(c)).count();
            let name = &line.text[at..name_end];
            let colon = skip_spaces(bytes, name_end);
            if name.is_empty() || bytes.get(colon) != Some(&b':') {
                return Err(parse_error(
                    "expects 'name: shape' in the computation's parameters",
                    line.location(line.start + at),
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
                        line.location(line.start + at),
                    ));
                }
            }
        }
        at = skip_spaces(bytes, at);
        if !line.text[at..].starts_with("->") {
            return Err(parse_error(
                "expects '->' after the computation's parameters",
                line.location(line.start + at),
            ));
        }
        let (result, _) = self.valid_shape(line, skip_spaces(bytes, at + 2))?;
        Ok(match result {
            Some(result) if valid => Some(ProgramShape::new(parameters, result)),
            _ => None,
        })
    }

    /// An instruction line: `[ROOT] %name = shape opcode(operands)...`.
    /// Returns the instruction and whether it is the root.
    fn instruction(&self, line: Line<'a>) -> Result<(HloInstruction, bool)> {
        let bytes = line.text.as_bytes();
        let mut at = skip_spaces(bytes, 0);
        let is_root = line.text[at..].starts_with("ROOT ");
        if is_root {
            at = skip_spaces(bytes, at + 5);
        }
        if bytes.get(at) == Some(&b'%') {
            at += 1;
        }
        let name_end = at + bytes[at..].iter().take_while(|&&c| is_name_char(c)).count();
        let equals = skip_spaces(bytes, name_end);
        if name_end == at || bytes.get(equals) != Some(&b'=') {
            return Err(parse_error(
                "expects an instruction: '%name = shape opcode(...)'",
                line.location(line.start + at),
            ));
        }
        let shape_at = skip_spaces(bytes, equals + 1);
        let (shape, end) = self.shape(line, shape_at)?;
        let opcode_at = skip_spaces(bytes, end);
        let opcode_end = opcode_at
            + bytes[opcode_at..]
                .iter()
                .take_while(|&&c| is_name_char(c))
                .count();
        if opcode_end == opcode_at || bytes.get(opcode_end) != Some(&b'(') {
            return Err(parse_error(
                "expects an opcode and '(' after the shape",
                line.location(line.start + opcode_at),
            ));
        }
        let operands = operand_list(line.text, opcode_end).ok_or_else(|| {
            parse_error(
                "expects ')' at the end of the operands",
                line.location(line.start + opcode_end),
            )
        })?;
        Ok((
            HloInstruction {
                name: line.text[at..name_end].to_owned(),
                opcode: line.text[opcode_at..opcode_end].to_owned(),
                shape,
                id: None,
                operand_ids: Vec::new(),
                operands: Some(operands.to_owned()),
                location: Some(line.location(line.start + shape_at)),
            },
            is_root,
        ))
    }
}

/// The text between the `(` at `open` and its matching `)`, skipping
/// string literals and comments.
fn operand_list(line: &str, open: usize) -> Option<&str> {
    let bytes = line.as_bytes();
    let mut depth = 0usize;
    let mut i = open;
    while i < bytes.len() {
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
                i = bytes[i + 2..]
                    .windows(2)
                    .position(|w| w == b"*/")
                    .map_or(bytes.len(), |j| i + 2 + j + 1);
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// The lines of `text` from offset `from`, numbered from `number`.
fn lines(text: &str, from: usize, number: usize) -> impl Iterator<Item = Line<'_>> {
    let mut start = from;
    let mut number = number;
    std::iter::from_fn(move || {
        if start >= text.len() {
            return None;
        }
        let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
        let body = &text[start..end];
        let line = Line {
            text: body.strip_suffix('\r').unwrap_or(body),
            start,
            number,
        };
        start = end + 1;
        number += 1;
        Some(line)
    })
}

pub(super) fn read(text: &str) -> Result<HloModule> {
    let reader = Reader {
        text,
        options: ParseOptions::default(),
    };
    let (start, rest) = skip_blank(text, 0);
    let header_number = 1 + text.as_bytes()[..start]
        .iter()
        .filter(|&&b| b == b'\n')
        .count();
    let header_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let first = lines(text, header_start, header_number)
        .next()
        .filter(|_| rest.starts_with("HloModule"));
    let Some(header) = first else {
        // XLA's ParseHloModule: `expects HloModule`.
        let location = Location {
            line: header_number,
            column: start - header_start,
            offset: start,
        };
        return Err(parse_error("Syntax error:\nexpects HloModule", location));
    };
    let hb = header.text.as_bytes();
    let name_at = skip_spaces(hb, start - header_start + "HloModule".len());
    let name_end = name_at
        + hb[name_at..]
            .iter()
            .take_while(|&&c| is_name_char(c))
            .count();
    let name = header.text[name_at..name_end].to_owned();
    const ECL: &str = "entry_computation_layout={";
    let entry_computation_layout = match header.text.find(ECL) {
        Some(i) => reader.layout(header, i + ECL.len())?,
        None => None,
    };

    let mut computations: Vec<HloComputation> = Vec::new();
    let mut entry = None;
    let mut program_shape = None;
    let mut open: Option<(HloComputation, Line<'_>)> = None;
    let body = text[header.start..]
        .find('\n')
        .map_or(text.len(), |i| header.start + i + 1);
    for line in lines(text, body, header.number + 1) {
        let trimmed = line.text.trim();
        if let Some((computation, _)) = open.as_mut() {
            if trimmed.is_empty() {
                continue;
            }
            if trimmed == "}" {
                let (mut computation, _) = open.take().expect("open");
                if computation.root.is_none() && !computation.instructions.is_empty() {
                    // XLA: without ROOT, the last instruction is the root.
                    computation.root = Some(computation.instructions.len() - 1);
                }
                computations.push(computation);
                continue;
            }
            let (instruction, is_root) = reader.instruction(line)?;
            if is_root {
                computation.root = Some(computation.instructions.len());
            }
            computation.instructions.push(instruction);
            continue;
        }
        let starts_computation = !line.text.starts_with([' ', '\t'])
            && trimmed.ends_with('{')
            && (trimmed.starts_with('%') || trimmed.starts_with("ENTRY "));
        if !starts_computation {
            continue;
        }
        let bytes = line.text.as_bytes();
        let is_entry = trimmed.starts_with("ENTRY ");
        let mut at = skip_spaces(bytes, if is_entry { 6 } else { 0 });
        if bytes.get(at) == Some(&b'%') {
            at += 1;
        }
        let name_end = at + bytes[at..].iter().take_while(|&&c| is_name_char(c)).count();
        if is_entry {
            let paren = skip_spaces(bytes, name_end);
            if bytes.get(paren) == Some(&b'(') {
                program_shape = reader.signature(line, paren)?;
            }
            entry = Some(computations.len());
        }
        open = Some((
            HloComputation {
                name: line.text[at..name_end].to_owned(),
                id: None,
                instructions: Vec::new(),
                root: None,
                location: Some(line.location(line.start)),
            },
            line,
        ));
    }
    if let Some((computation, line)) = open {
        return Err(parse_error(
            format!("computation {} is not closed with '}}'", computation.name),
            line.location(line.start),
        ));
    }
    if entry.is_none() && !computations.is_empty() {
        // XLA: without ENTRY, the last computation is the entry.
        entry = Some(computations.len() - 1);
    }
    Ok(HloModule {
        name,
        computations,
        entry,
        program_shape,
        entry_computation_layout,
        source: ModuleSource::Text,
    })
}
