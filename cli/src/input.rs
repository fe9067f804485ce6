//! The one input rule of every command: a literal argument, `@FILE`, or
//! standard input when absent or `-`; read whole (up to `--max-input`
//! bytes) or one line at a time (up to `--max-line` bytes a line).

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};

use crate::output::{Failure, Problem};

/// The default of `--max-input`: 64 MiB, far above any shape or HLO module
/// header a person writes, far below the memory of a small machine.
pub const DEFAULT_MAX_INPUT: u64 = 64 << 20;

/// The default of `--max-line`: 1 MiB.
pub const DEFAULT_MAX_LINE: usize = 1 << 20;

/// How much input the tool reads.
pub struct Limits {
    /// The largest whole input, in bytes.
    pub max_input: u64,
    /// The longest line of a line-by-line input, in bytes.
    pub max_line: usize,
}

/// Where an INPUT comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source<'a> {
    /// The argument's own text.
    Literal(&'a str),
    /// The file named after `@`.
    File(&'a str),
    /// Standard input (no argument, or `-`).
    Stdin,
}

impl<'a> Source<'a> {
    /// The source an INPUT argument names.
    pub fn of(arg: Option<&'a str>) -> Self {
        match arg {
            None | Some("-") => Source::Stdin,
            Some(arg) => match arg.strip_prefix('@') {
                Some(path) => Source::File(path),
                None => Source::Literal(arg),
            },
        }
    }

    /// The length of the file, for a file.
    pub fn size(self) -> Option<u64> {
        match self {
            Source::File(path) => std::fs::metadata(path).ok().map(|m| m.len()),
            _ => None,
        }
    }

    /// A reader of the source's bytes.
    pub fn open(self) -> Result<Box<dyn BufRead + 'a>, Failure> {
        Ok(match self {
            Source::Literal(text) => Box::new(text.as_bytes()),
            Source::File(path) => Box::new(BufReader::new(
                File::open(path).map_err(|e| file_problem(path, &e))?,
            )),
            Source::Stdin => Box::new(io::stdin().lock()),
        })
    }
}

fn file_problem(path: &str, e: &io::Error) -> Failure {
    Failure::Input(Problem::new("Io", format!("{path}: {e}")))
}

/// The whole input, at most `limit` bytes. Empty input (nothing, or only
/// white space) is the error "no input".
pub fn read_all(arg: Option<&str>, limit: u64) -> Result<Vec<u8>, Failure> {
    let source = Source::of(arg);
    let bytes = match source {
        Source::Literal(text) => text.as_bytes().to_vec(),
        _ => {
            let reader = source.open()?;
            let mut bytes = Vec::new();
            let read = reader.take(limit.saturating_add(1)).read_to_end(&mut bytes);
            match (read, source) {
                (Ok(_), _) => bytes,
                (Err(e), Source::File(path)) => return Err(file_problem(path, &e)),
                (Err(e), _) => return Err(Failure::Io(e)),
            }
        }
    };
    if bytes.len() as u64 > limit {
        return Err(too_large(limit));
    }
    if bytes.trim_ascii().is_empty() {
        return Err(Failure::Input(no_input()));
    }
    Ok(bytes)
}

/// The first bytes of `reader` (what its buffer holds), not consumed.
pub fn peek(reader: &mut dyn BufRead) -> io::Result<Vec<u8>> {
    loop {
        match reader.fill_buf() {
            Ok(b) => return Ok(b.to_vec()),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

/// The rest of `reader`, at most `limit` bytes in all (`max_input`), with
/// room for a file's length reserved at once so that the bytes are not
/// copied as they grow; `size` is the file's length when known.
pub fn read_rest(
    reader: &mut dyn BufRead,
    size: Option<u64>,
    limit: u64,
) -> Result<Vec<u8>, Failure> {
    let mut bytes = Vec::new();
    if let Some(size) = size {
        bytes.reserve_exact(usize::try_from(size.min(limit).saturating_add(1)).unwrap_or(0));
    }
    reader
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(too_large(limit));
    }
    Ok(bytes)
}

fn too_large(limit: u64) -> Failure {
    Failure::Input(Problem::new(
        "TooLarge",
        format!("the input is larger than {limit} bytes (raise the limit with --max-input)"),
    ))
}

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

/// The error of an empty input.
pub fn no_input() -> Problem {
    Problem::new("NoInput", "no input")
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

/// An element index written `i,j,k` (spaces allowed; an empty line is the
/// index of a scalar).
pub fn parse_index(line: &str) -> Result<Vec<i64>, Problem> {
    let line = line.trim();
    if line.is_empty() {
        return Ok(Vec::new());
    }
    line.split(',')
        .map(|part| {
            let part = part.trim();
            part.parse::<i64>().map_err(|_| {
                Problem::new(
                    "InvalidArgument",
                    format!("not an index: {part:?} in {line:?}"),
                )
            })
        })
        .collect()
}

/// An element offset.
pub fn parse_offset(line: &str) -> Result<i64, Problem> {
    let line = line.trim();
    line.parse::<i64>()
        .map_err(|_| Problem::new("InvalidArgument", format!("not an offset: {line:?}")))
}
