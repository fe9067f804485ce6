//! Input one line at a time: each line held only if it fits `--max-line`,
//! numbered as it is read; and the lines of module text, as `scan` and
//! `report` read them.

use std::io::{self, BufRead};

use xla_shape::hlo::TextReader;

use crate::output::{Failure, Problem};

use super::Source;

/// One line of a line-by-line input.
pub enum Line<'a> {
    /// The line's bytes, without its `\n` or `\r\n`.
    Text(&'a [u8]),
    /// A line longer than the limit, skipped without being held: its
    /// length in bytes.
    TooLong(u64),
}

/// The lines of an input, one at a time, each held only if it fits the
/// limit: memory stays within the limit plus the reader's buffer whatever
/// the input.
pub struct Lines<'a> {
    reader: Box<dyn BufRead + 'a>,
    limit: usize,
    line: Vec<u8>,
    /// The number of the last line returned (1-based).
    number: usize,
    /// The bytes read so far: where the next line starts.
    read: usize,
}

impl<'a> Lines<'a> {
    /// The lines of `source`, each at most `limit` bytes.
    pub fn new(source: Source<'a>, limit: usize) -> Result<Self, Failure> {
        Ok(Lines::of(source.open()?, limit))
    }

    /// The lines `reader` gives, each at most `limit` bytes.
    pub fn of(reader: Box<dyn BufRead + 'a>, limit: usize) -> Self {
        Lines {
            reader,
            limit,
            line: Vec::new(),
            number: 0,
            read: 0,
        }
    }

    /// The longest line held, in bytes.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// The bytes read so far: where the next line starts.
    pub fn read(&self) -> usize {
        self.read
    }

    /// The next line and its number, or `None` at the end. A last line
    /// without `\n` counts; an input that ends with `\n` has no empty line
    /// after it.
    pub fn next_line(&mut self) -> io::Result<Option<(usize, Line<'_>)>> {
        self.line.clear();
        // Bytes of a line over the limit, counted and dropped.
        let mut dropped: u64 = 0;
        let mut any = false;
        loop {
            let buffer = match self.reader.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if buffer.is_empty() {
                if !any {
                    return Ok(None);
                }
                break;
            }
            any = true;
            let newline = memchr::memchr(b'\n', buffer);
            let take = newline.unwrap_or(buffer.len());
            if dropped == 0 && self.line.len() + take <= self.limit {
                self.line.extend_from_slice(&buffer[..take]);
            } else {
                dropped = dropped
                    .saturating_add(self.line.len() as u64)
                    .saturating_add(take as u64);
                self.line.clear();
            }
            let consumed = newline.map_or(take, |n| n + 1);
            self.reader.consume(consumed);
            self.read = self.read.saturating_add(consumed);
            if newline.is_some() {
                break;
            }
        }
        self.number += 1;
        if dropped > 0 {
            return Ok(Some((self.number, Line::TooLong(dropped))));
        }
        if self.line.last() == Some(&b'\r') {
            self.line.pop();
        }
        Ok(Some((self.number, Line::Text(&self.line))))
    }
}

/// The error of a line over the limit.
pub fn too_long(length: u64, limit: usize) -> Problem {
    Problem::new(
        "TooLarge",
        format!("the line has {length} bytes, more than {limit} (raise the limit with --max-line)"),
    )
}

/// A line as text.
pub fn line_text(line: &[u8]) -> Result<&str, Problem> {
    std::str::from_utf8(line)
        .map_err(|e| Problem::new("Format", format!("the line is not UTF-8 text: {e}")))
}

/// A line of module text: its number, where it starts, and its text or why
/// it has none.
pub type TextLineOf<'l> = (usize, usize, Result<&'l str, Problem>);

/// The next line of module text, for `reader`: its number, where it
/// starts, and its text or why it has none (longer than the limit, not
/// UTF-8: `reader` counts it as an empty line). `blank` stays true while
/// every line is white space.
pub fn next_text<'l>(
    lines: &'l mut Lines<'_>,
    reader: &mut TextReader,
    blank: &mut bool,
) -> Result<Option<TextLineOf<'l>>, Failure> {
    let start = lines.read();
    let limit = lines.limit();
    let Some((number, line)) = lines.next_line()? else {
        return Ok(None);
    };
    let text = match line {
        Line::Text(bytes) => {
            *blank &= bytes.trim_ascii().is_empty();
            line_text(bytes)
        }
        Line::TooLong(length) => {
            *blank = false;
            Err(too_long(length, limit))
        }
    };
    if text.is_err() {
        // The reader still counts the line; what it says of it is unused.
        let _ = reader.line("", start);
    }
    Ok(Some((number, start, text)))
}
