//! What the commands read, and how: the one input rule of every command
//! (a literal argument, `@FILE`, or standard input when absent or `-`),
//! read whole (up to `--max-input` bytes), one line at a time (up to
//! `--max-line` bytes a line, [`lines`]) or as a module: HLO text, binary
//! HLO, or StableHLO as text, MLIR bytecode or a `jax.export` serialization
//! ([`open_module`], [`read_module`], one detection: [`is_stablehlo`]); the
//! formats of a shape or layout, detected or named, read into the library's
//! types ([`format`]); and the forms of a sharding ([`sharding`]).

pub mod format;
pub mod lines;
pub mod sharding;

pub use format::{Format, Value, detect, read_message, read_value};
pub use lines::{Line, Lines, line_text, next_text, too_long};
pub use sharding::{ShardingFormat, read_sharding};

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};

use xla_shape::hlo::{HloModule, ModuleEncoding};
use xla_shape::stablehlo::{StableHloModule, is_jax_export, is_mlir_bytecode, looks_like_mlir};

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

    /// The source of a module argument (`report`, `scan`, `memory`,
    /// `signature`, and `padding`'s log): as [`of`](Self::of), and a plain
    /// argument that names an existing file is that file (`report
    /// model.pb`), since no module or log text is a file name. A plain
    /// argument with no white space, bracket or brace is a file name too,
    /// existing or not (so a mistyped path fails as a missing file): HLO
    /// text needs a space after `HloModule`, StableHLO text a region in
    /// braces, a log line its words, `padding`'s shape its brackets.
    /// `@FILE` and `-` keep their meaning.
    pub fn module(arg: Option<&'a str>) -> Self {
        match Self::of(arg) {
            Source::Literal(text) if std::path::Path::new(text).is_file() || is_file_name(text) => {
                Source::File(text)
            }
            source => source,
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

/// Whether a plain module argument can only be a file name: not empty, no
/// white space, bracket or brace (see [`Source::module`]).
fn is_file_name(arg: &str) -> bool {
    !arg.is_empty() && !arg.contains(|c: char| c.is_whitespace() || "[]{}".contains(c))
}

fn file_problem(path: &str, e: &io::Error) -> Failure {
    Failure::Input(Problem::new("Io", format!("{path}: {e}")))
}

/// The whole input, at most `limit` bytes. Empty input (nothing, or only
/// white space) is the error "no input".
pub fn read_all(arg: Option<&str>, limit: u64) -> Result<Vec<u8>, Failure> {
    read_source(Source::of(arg), limit)
}

/// The whole of `source`, as [`read_all`].
pub fn read_source(source: Source<'_>, limit: u64) -> Result<Vec<u8>, Failure> {
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

/// The rest of `reader`, at most `limit` bytes in all (`max_input`), with
/// room for a file's length reserved at once so that the bytes are not
/// copied as they grow; `size` is the file's length when known. At most
/// `RESERVE_AT_MOST` is reserved before it is read: a file's length says
/// nothing of what it holds (a sparse file of 100 GiB under a larger
/// `--max-input` was a reservation of 100 GiB, refused at once).
fn read_rest(reader: &mut dyn BufRead, size: Option<u64>, limit: u64) -> Result<Vec<u8>, Failure> {
    const RESERVE_AT_MOST: u64 = 64 << 20;
    let mut bytes = Vec::new();
    if let Some(size) = size {
        let room = size.min(limit).min(RESERVE_AT_MOST).saturating_add(1);
        bytes.reserve_exact(usize::try_from(room).unwrap_or(0));
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

/// The error of an empty input.
pub fn no_input() -> Problem {
    Problem::new("NoInput", "no input")
}

/// A module as `scan` and `report` read it.
pub enum ModuleInput<'a> {
    /// HLO text, to read one line at a time: nothing of it consumed yet.
    Text(Box<dyn BufRead + 'a>),
    /// StableHLO ([`is_stablehlo`]: text, MLIR bytecode or a `jax.export`
    /// serialization), read whole (up to `--max-input` bytes): an
    /// operation's types may follow its regions, lines later.
    StableHlo(StableHloModule),
    /// What is not text (a binary `HloModuleProto`, `HloProto` or
    /// `HloSnapshot`, or something else), read whole: up to `--max-input`
    /// bytes, in one buffer of the file's size.
    Binary(Vec<u8>),
}

/// Opens `source` as a module: StableHLO where [`is_stablehlo`] judges the
/// first bytes (what the reader's buffer holds) or, for binary input, the
/// whole of it so; else text or binary as the library's one rule
/// (`ModuleEncoding::detect`) judges the first bytes. Empty input is HLO
/// text (with no line).
pub fn open_module<'a>(source: Source<'a>, max_input: u64) -> Result<ModuleInput<'a>, Failure> {
    let mut reader = source.open()?;
    let (text, stablehlo) = loop {
        match reader.fill_buf() {
            Ok(prefix) => {
                let text = ModuleEncoding::detect(prefix) == ModuleEncoding::Text;
                break (text, is_stablehlo(prefix));
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e.into()),
        }
    };
    if text && !stablehlo {
        return Ok(ModuleInput::Text(reader));
    }
    let bytes = read_rest(&mut *reader, source.size(), max_input)?;
    drop(reader);
    Ok(if stablehlo || is_stablehlo(&bytes) {
        ModuleInput::StableHlo(StableHloModule::read(&bytes)?)
    } else {
        ModuleInput::Binary(bytes)
    })
}

/// A module read whole (`signature`).
pub enum Module {
    /// StableHLO ([`is_stablehlo`]).
    StableHlo(StableHloModule),
    /// An HLO module, text or binary (`HloModule::read`).
    Hlo(Box<HloModule>),
}

/// The whole of a module argument, as [`read_all`] but from
/// [`Source::module`] (a plain path to an existing file is the file).
pub fn read_module_bytes(arg: Option<&str>, max_input: u64) -> Result<Vec<u8>, Failure> {
    read_source(Source::module(arg), max_input)
}

/// The whole of a module argument (as [`read_module_bytes`]) as a module: StableHLO where
/// [`is_stablehlo`] judges it so, else an HLO module.
pub fn read_module(arg: Option<&str>, max_input: u64) -> Result<Module, Failure> {
    Ok(module_of(&read_module_bytes(arg, max_input)?)?)
}

/// `bytes` as a module: StableHLO where [`is_stablehlo`] judges them so,
/// else an HLO module (text or binary). The web page reads the bytes of a
/// dropped file with it, as the tool reads a file.
pub fn module_of(bytes: &[u8]) -> xla_shape::Result<Module> {
    Ok(if is_stablehlo(bytes) {
        Module::StableHlo(StableHloModule::read(bytes)?)
    } else {
        Module::Hlo(Box::new(HloModule::read(bytes)?))
    })
}

/// How many first bytes decide whether StableHLO text is text at all
/// (`ModuleEncoding::detect`): enough for a binary module's first keys and
/// lengths, the same for a reader's buffer as for the whole input.
const TEXT_HEAD: usize = 64;

/// Whether `bytes` (or their start) are StableHLO in one of the forms JAX
/// writes: MLIR bytecode (its magic number), `jax.export`'s serialization
/// (judged from the whole of it), or text that looks like MLIR (after its
/// first [`TEXT_HEAD`] bytes are judged text).
pub fn is_stablehlo(bytes: &[u8]) -> bool {
    if is_mlir_bytecode(bytes) || is_jax_export(bytes) {
        return true;
    }
    let head = &bytes[..bytes.len().min(TEXT_HEAD)];
    if ModuleEncoding::detect(head) != ModuleEncoding::Text {
        return false;
    }
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or_default(),
    };
    looks_like_mlir(text)
}
