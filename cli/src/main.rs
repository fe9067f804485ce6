//! `xla-shape`: inspect, check and convert XLA shapes.
//!
//! Exit status: 0 on success, 1 when an input is bad (the message is on
//! standard error, or on the line's own output line with `--lines`), 2 for
//! usage errors.

mod convert;
mod describe;
mod input;
mod report;

use std::io::{self, BufRead, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use convert::Format;

/// The built-in example `describe` shows: a bf16 array as a TPU stores it.
const EXAMPLE: &str = "bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}";

#[derive(Parser)]
#[command(
    name = "xla-shape",
    version,
    about = "Inspect, check and convert XLA shapes: HLO shape strings, ShapeProto bytes, hex, JSON and text format.",
    after_help = "INPUT is a literal argument, @FILE, or standard input when absent or '-'.\n\
                  With no command, describes the built-in example shape."
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// A readable summary of a shape (the built-in example without INPUT).
    Describe {
        /// The shape, in any format; '-' reads standard input.
        input: Option<String>,
    },
    /// Convert a shape between formats.
    Convert {
        /// The input format (detected when absent).
        #[arg(long, value_enum)]
        from: Option<Format>,
        /// The output format.
        #[arg(long, value_enum)]
        to: Format,
        /// Keep fields unknown to this schema (proto formats only).
        #[arg(long)]
        lossless: bool,
        /// Each line of standard input is one input; one output line each.
        #[arg(long)]
        lines: bool,
        /// The shape (standard input when absent).
        input: Option<String>,
    },
    /// Check a shape as XLA's validation does: prints `ok` or the error.
    Validate {
        /// The shape, in any format (standard input when absent).
        input: Option<String>,
    },
    /// Every shape in an HLO module (text or binary), with its position,
    /// size and the instruction or computation it belongs to.
    Scan {
        /// The HLO module: text, or a binary HloModuleProto, HloProto or
        /// HloSnapshot ('-' reads standard input).
        file: PathBuf,
    },
    /// A static memory report of an HLO module (text or binary): every
    /// instruction's buffer with XLA's ByteSizeOf and its tiled size, totals
    /// by memory space and element type, the largest buffers. No buffer
    /// sharing or liveness is modelled.
    Report {
        /// The HLO module: text, or a binary HloModuleProto, HloProto or
        /// HloSnapshot ('-' reads standard input).
        file: PathBuf,
        /// How many of the largest buffers to list.
        #[arg(long, default_value_t = 10)]
        top: usize,
        /// One JSON document instead of the table.
        #[arg(long)]
        json: bool,
    },
    /// Element offsets in SHAPE's layout, tiles applied, for the indices
    /// `i,j,k` read one per line from standard input.
    Index {
        /// An array shape in HLO syntax, e.g. 'f32[3,5]{1,0:T(2,2)}'.
        shape: String,
        /// Read offsets instead and print indices (or `padding`).
        #[arg(long)]
        offset: bool,
    },
    /// Element and byte strides of SHAPE's layout, or why it has none.
    Strides {
        /// An array shape in HLO syntax.
        shape: String,
    },
}

/// A failure and its exit status.
enum Failure {
    /// Bad input: exit 1.
    Input(String),
    /// Bad usage: exit 2.
    Usage(String),
    /// Bad input, already reported line by line: exit 1.
    Reported,
}

impl From<xla_shape::Error> for Failure {
    fn from(e: xla_shape::Error) -> Self {
        Failure::Input(e.to_string())
    }
}

impl From<io::Error> for Failure {
    fn from(e: io::Error) -> Self {
        Failure::Input(e.to_string())
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let result = run(cli.command, &mut out);
    let flushed = out.flush();
    match (result, flushed) {
        (Ok(()), Ok(())) => ExitCode::SUCCESS,
        // A closed pipe (`| head`) is not an error of ours.
        (Ok(()), Err(e)) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        (Ok(()), Err(e)) => {
            eprintln!("xla-shape: {e}");
            ExitCode::FAILURE
        }
        (Err(Failure::Reported), _) => ExitCode::FAILURE,
        (Err(Failure::Input(message)), _) => {
            eprintln!("xla-shape: {message}");
            ExitCode::FAILURE
        }
        (Err(Failure::Usage(message)), _) => {
            eprintln!("xla-shape: {message}");
            ExitCode::from(2)
        }
    }
}

fn run(command: Option<Command>, out: &mut impl Write) -> Result<(), Failure> {
    match command {
        None => describe_input(None, out),
        Some(Command::Describe { input }) => describe_input(input.as_deref(), out),
        Some(Command::Convert {
            from,
            to,
            lossless,
            lines,
            input,
        }) => {
            if lossless && !(to.is_proto() && from.is_none_or(Format::is_proto)) {
                return Err(Failure::Usage(
                    "--lossless keeps unknown proto fields: use it with proto formats only (hex, pb, json, json-names, pbtxt)".into(),
                ));
            }
            if lines {
                if input.is_some() {
                    return Err(Failure::Usage(
                        "--lines reads standard input; give no INPUT".into(),
                    ));
                }
                if to == Format::Pb || from == Some(Format::Pb) {
                    return Err(Failure::Usage(
                        "--lines cannot carry binary protos: use hex".into(),
                    ));
                }
                return convert_lines(from, to, lossless, out);
            }
            let bytes = input::read(input.as_deref())?;
            let converted = convert::convert(&bytes, from, to, lossless, false)?;
            out.write_all(&converted)?;
            if to != Format::Pb && !converted.ends_with(b"\n") {
                out.write_all(b"\n")?;
            }
            Ok(())
        }
        Some(Command::Validate { input }) => {
            let bytes = input::read(input.as_deref())?;
            convert::read_shape(&bytes, None, false)?;
            writeln!(out, "ok")?;
            Ok(())
        }
        Some(Command::Scan { file }) => report::scan(&file, out),
        Some(Command::Report { file, top, json }) => report::report(&file, top, json, out),
        Some(Command::Index { shape, offset }) => index(&shape, offset, out),
        Some(Command::Strides { shape }) => {
            let array = describe::parse_array(&shape)?;
            let element = xla_shape::strides::element_strides(&array)?;
            writeln!(out, "element strides: {}", describe::list(&element))?;
            // Sub-byte elements have element strides but no byte strides.
            match xla_shape::strides::byte_strides(&array) {
                Ok(bytes) => writeln!(out, "byte strides:    {}", describe::list(&bytes))?,
                Err(e) => writeln!(out, "byte strides:    none: {}", one_line(e.message()))?,
            }
            Ok(())
        }
    }
}

fn describe_input(input: Option<&str>, out: &mut impl Write) -> Result<(), Failure> {
    let shape = match input {
        None => EXAMPLE.parse()?,
        Some(arg) => convert::read_shape(&input::read(Some(arg))?, None, false)?.shape,
    };
    out.write_all(describe::describe(&shape).as_bytes())?;
    Ok(())
}

/// `convert --lines`: one output line per input line, `error: ...` for the
/// lines that fail.
fn convert_lines(
    from: Option<Format>,
    to: Format,
    lossless: bool,
    out: &mut impl Write,
) -> Result<(), Failure> {
    let stdin = io::stdin();
    let mut failed = false;
    for line in stdin.lock().split(b'\n') {
        let mut line = line?;
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        match convert::convert(&line, from, to, lossless, true) {
            Ok(converted) => out.write_all(&converted)?,
            Err(e) => {
                failed = true;
                write!(out, "error: {}", one_line(&e.to_string()))?;
            }
        }
        out.write_all(b"\n")?;
    }
    if failed {
        Err(Failure::Reported)
    } else {
        Ok(())
    }
}

/// A message on one line. A parse error keeps its `was parsing L:C: error:
/// ...` lines and drops the source line and caret under each; other line
/// breaks become ` | `.
fn one_line(message: &str) -> String {
    let lines: Vec<&str> = message.trim_end().lines().collect();
    if lines.first() == Some(&"Syntax error:") {
        let kept: Vec<&str> = std::iter::once("Syntax error:")
            .chain(
                lines
                    .iter()
                    .copied()
                    .filter(|l| l.starts_with("was parsing ")),
            )
            .collect();
        if kept.len() > 1 {
            return kept.join(" ");
        }
    }
    lines.join(" | ")
}

fn index(shape: &str, offsets: bool, out: &mut impl Write) -> Result<(), Failure> {
    let array = describe::parse_array(shape)?;
    let tiled = xla_shape::tiling::TiledLayout::new(&array)?;
    let stdin = io::stdin();
    let mut failed = false;
    for line in stdin.lock().lines() {
        let line = line?;
        let answer = if offsets {
            input::parse_offset(&line)
                .and_then(|o| tiled.slot(o).map_err(|e| e.to_string()))
                .map(|slot| match slot {
                    xla_shape::tiling::Slot::Element(index) => describe::comma_list(&index),
                    xla_shape::tiling::Slot::Padding => "padding".to_string(),
                })
        } else {
            input::parse_index(&line).and_then(|i| {
                tiled
                    .offset(&i)
                    .map(|o| o.to_string())
                    .map_err(|e| e.to_string())
            })
        };
        match answer {
            Ok(s) => writeln!(out, "{s}")?,
            Err(message) => {
                failed = true;
                writeln!(out, "error: {}", one_line(&message))?;
            }
        }
    }
    if failed {
        Err(Failure::Reported)
    } else {
        Ok(())
    }
}
