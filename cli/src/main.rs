//! `xla-shape`: inspect, check, convert and draw XLA shapes.
//!
//! Exit status: 0 on success (and when the reader of the output goes away
//! early, as `| head` does), 1 when an input is bad (the message is on
//! standard error, on the line's own output line in line-by-line modes, or
//! the JSON document with `--json`), 2 for usage errors.

use xla_shape_cli::commands::{
    convert, describe, draw, dtypes, index, memory, padding, ranges, report, scan, sharding,
    signature, strides, validate,
};
use xla_shape_cli::{Context, input};

use std::io::{self, Write};
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};
use serde_json::json;

use input::Limits;
use xla_shape_cli::output::{Failure, Problem, write_json};

#[derive(Parser)]
#[command(
    name = "xla-shape",
    version,
    about = "Inspect, check, convert and draw XLA shapes: HLO shape and layout strings, ShapeProto bytes, hex, JSON and text format.",
    after_help = "INPUT is a literal argument, @FILE, or standard input when absent or '-', in any \
                  format (detected, or named with --from); a layout string such as {1,0:T(2,2)} \
                  is read as a layout. report, scan, memory, signature and padding also read a plain path \
                  to an existing file as the file.\n\
                  With no command, describes the built-in example shape.\n\
                  Exit status: 0 ok, 1 bad input, 2 usage."
)]
struct Cli {
    /// Write JSON: one document, or one object per line for the
    /// line-by-line modes (convert --lines, index, scan); errors are
    /// objects with kind, message, line and column.
    #[arg(long, global = true)]
    json: bool,
    /// The largest whole input read, in bytes.
    #[arg(long, global = true, value_name = "BYTES", default_value_t = input::DEFAULT_MAX_INPUT)]
    max_input: u64,
    /// The longest line read in line-by-line modes, in bytes; a longer
    /// line gets an error line and the run goes on.
    #[arg(long, global = true, value_name = "BYTES", default_value_t = input::DEFAULT_MAX_LINE)]
    max_line: usize,
    #[command(subcommand)]
    command: Option<Command>,
}

/// The commands: each is a module of `xla_shape_cli::commands` with its
/// `Args` and `run` (see the crate's docs on adding one). The doc comment
/// of a variant is the command's summary in `--help`.
#[derive(Subcommand)]
enum Command {
    /// A readable summary of a shape or layout.
    #[command(
        after_help = "Example:\n  xla-shape describe 'f32[3,5]{1,0:T(2,2)}'\n\n\
                            Without INPUT, reads standard input, or describes the built-in \
                            example when standard input is a terminal."
    )]
    Describe(describe::Args),
    /// Convert a shape (or layout) between formats.
    #[command(after_help = "Examples:\n  xla-shape convert --to hex 'f32[2,3]'\n  \
                            printf 'f32[2]\\nf32[3]\\n' | xla-shape convert --lines --to json")]
    Convert(convert::Args),
    /// Check a shape or layout as XLA's parser and validation do: prints
    /// `ok` or the error.
    #[command(after_help = "Example:\n  xla-shape validate 'f32[2,3]{0,0}'")]
    Validate(validate::Args),
    /// Every shape in an HLO module: LINE:COLUMN (both 1-based), byte size,
    /// shape and the instruction or computation it belongs to. A binary
    /// HloModuleProto, HloProto or HloSnapshot lists each instruction's
    /// result as COMPUTATION/INSTRUCTION.
    #[command(after_help = "Example:\n  xla-shape scan @module.hlo.txt")]
    Scan(scan::Args),
    /// How much memory an HLO module needs, and why: arguments, outputs,
    /// aliased bytes, temporaries and their peak, the allocations by kind,
    /// the largest buffers live at the peak. Exact from XLA's buffer
    /// assignment when the input carries it (an HloProto, as
    /// --xla_dump_hlo_as_proto writes *.hlo.pb, or an HloSnapshot that holds
    /// one); estimated for any other module, text or binary.
    #[command(
        after_help = "Examples:\n  xla-shape memory @module.cpu_after_optimizations.hlo.pb\n  \
                            xla-shape memory --svg @module.txt > memory.svg\n\n\
                            The estimate simulates XLA's buffer assignment on the module as \
                            written: on optimized modules it is close to XLA's; before \
                            optimization, fusion decides what is materialized (docs/memory.md)."
    )]
    Memory(memory::Args),
    /// Padding explained: for a shape string, or for every shape of XLA's
    /// out-of-memory listing in a log (XLA:TPU's "Largest program
    /// allocations in hbm", XLA:GPU's "BufferAssignment OOM Debugging"),
    /// the unpadded and padded bytes, the expansion, the dimensions whose
    /// rounding to a tile causes it, and the dimension order or sizes that
    /// pad less under the same tiles; a listing's own figures are checked
    /// against ours.
    #[command(
        after_help = "Examples:\n  xla-shape padding 's32[2048,1,128,128,4]{4,3,2,0,1:T(8,128)}'\n  \
                            xla-shape padding --json @oom.log\n  \
                            xla-shape padding --tiles 'f32=(8,128)' @old-tpu.log\n\n\
                            Exit status 1 when a listed shape cannot be explained (it is \
                            reported in its place; the others are explained)."
    )]
    Padding(padding::Args),
    /// A static listing of an HLO module, text or binary
    /// HloModuleProto/HloProto/HloSnapshot: every instruction's buffer
    /// (memory space, XLA's ByteSizeOf, bytes with its tiles applied,
    /// padding), sums by memory space and element type, the largest
    /// buffers. Each result counts alone: no sharing, reuse or liveness, so
    /// its sums are no measure of the memory needed (see `memory`).
    #[command(after_help = "Example:\n  xla-shape report --top 5 @module.pb\n\n\
                            For the memory the module needs, see `xla-shape memory`.")]
    Report(report::Args),
    /// The entry computation layout of a module: StableHLO text (as XLA's
    /// conversion prints it, with the aliasing from donation and what
    /// compilation applies beside it), HLO text or a binary
    /// HloModuleProto/HloProto/HloSnapshot.
    #[command(after_help = "Examples:\n  xla-shape signature @jit_f.mlir\n  \
                            xla-shape signature --json @module.pb\n\n\
                            With --json, one document: entry_computation_layout, parameters, result \
                            (and for StableHLO results, aliasing, shardings, memory kinds, layout modes, \
                            the layout compilation asks for, notes).")]
    Signature(signature::Args),
    /// Element offsets in SHAPE's layout, tiles applied, for the indices
    /// `i,j,k` read one per line from standard input.
    #[command(
        after_help = "Example:\n  printf '2,3\\n0,4\\n' | xla-shape index 'f32[3,5]{1,0:T(2,2)}'"
    )]
    Index(index::Args),
    /// The byte ranges of SHAPE's buffer (tiles and padding applied) that
    /// hold a box of the array, merged and in order; the buffer's sizes and
    /// the dimensions whose every index is one contiguous range.
    #[command(
        after_help = "Examples:\n  xla-shape ranges --rows 8..16 'bf16[24,384]{1,0:T(8,128)(2,1)}'\n  \
                            xla-shape ranges --start 9,0 --limit 10,130 'f32[10,130]{1,0:T(8,128)}'"
    )]
    Ranges(ranges::Args),
    /// Element and byte strides of an array's layout, or why it has none.
    #[command(after_help = "Example:\n  xla-shape strides 'f32[3,5,7]{2,1,0}'")]
    Strides(strides::Args),
    /// An SVG picture of an array's memory layout: the index grid, each
    /// element labelled with its offset, tiles outlined, padding hatched;
    /// with --sharding, how a sharding splits the array among devices.
    #[command(
        after_help = "Examples:\n  xla-shape draw 'f32[3,5]{1,0:T(2,2)}' > layout.svg\n  \
                            xla-shape draw --sharding '{devices=[2,2]<=[4]}' 'f32[8,6]' > shards.svg"
    )]
    Draw(draw::Args),
    /// An HloSharding read (XLA's text, an mhlo.sharding value, OpSharding
    /// bytes, hex, JSON or text format, or Shardy's form with its mesh) and
    /// explained: its text, bytes, kind, device count, and with --shape
    /// each device's shape and index ranges.
    #[command(
        after_help = "Examples:\n  xla-shape sharding '{devices=[2,1,2]<=[4] last_tile_dim_replicate}'\n  \
                            xla-shape sharding --json --shape 'f32[8,6]' '{devices=[2,2]<=[4]}'\n  \
                            xla-shape sharding --mesh '<[\"x\"=2, \"y\"=2]>' '#sdy.sharding<@mesh, [{\"x\"}, {}]>'"
    )]
    Sharding(sharding::Args),
    /// The names NumPy, DLPack, PJRT, safetensors and TensorFlow give each
    /// XLA element type (`-` where a system has none).
    #[command(after_help = "Example:\n  xla-shape dtypes --json")]
    Dtypes,
    /// Shell completions for SHELL, on standard output.
    #[command(
        after_help = "Example:\n  xla-shape completions bash > ~/.local/share/bash-completion/completions/xla-shape"
    )]
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
}

/// Memory the system refuses ends the run with exit 1, not an abort.
#[global_allocator]
static ALLOCATOR: xla_shape_cli::memory_limit::ExitWhenRefused =
    xla_shape_cli::memory_limit::ExitWhenRefused;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if e.use_stderr() && std::env::args_os().any(|a| a == "--json") => {
            // A usage error, as a JSON document like every other error.
            let rendered = e.render().to_string();
            let message = rendered.trim_end();
            let problem = Problem::new("Usage", message.strip_prefix("error: ").unwrap_or(message));
            let mut out = io::stdout().lock();
            let _ = write_json(&mut out, &json!({ "error": problem.to_json() }));
            return ExitCode::from(2);
        }
        Err(e) => e.exit(),
    };
    let json = cli.json;
    let mut cx = Context {
        json,
        limits: Limits {
            max_input: cli.max_input,
            max_line: cli.max_line,
        },
        out: io::BufWriter::new(io::stdout().lock()),
    };
    let result = run(cli.command, &mut cx);
    let result = match cx.out.flush() {
        Ok(()) => result,
        Err(e) => result.and(Err(Failure::Io(e))),
    };
    let (code, problem) = match result {
        Ok(()) => return ExitCode::SUCCESS,
        Err(Failure::Reported) => return ExitCode::FAILURE,
        // A closed pipe (`| head`) is not an error of ours.
        Err(Failure::Io(e)) if e.kind() == io::ErrorKind::BrokenPipe => {
            return ExitCode::SUCCESS;
        }
        Err(Failure::Io(e)) => (1, Problem::new("Io", e.to_string())),
        Err(Failure::Input(p)) => (1, p),
        Err(Failure::Usage(message)) => (2, Problem::new("Usage", message)),
    };
    if json {
        // The error is the document: on standard output, for the reader.
        let mut out = io::stdout().lock();
        let written =
            write_json(&mut out, &json!({ "error": problem.to_json() })).and_then(|()| out.flush());
        if written.is_err() {
            return ExitCode::from(code);
        }
    } else {
        eprintln!("xla-shape: {}", problem.for_terminal());
    }
    ExitCode::from(code)
}

/// Runs `command` (without one, describes the built-in example).
fn run(command: Option<Command>, cx: &mut Context<impl Write>) -> Result<(), Failure> {
    let Some(command) = command else {
        return describe::run_example(cx);
    };
    match command {
        Command::Describe(args) => describe::run(&args, cx),
        Command::Convert(args) => convert::run(&args, cx),
        Command::Validate(args) => validate::run(&args, cx),
        Command::Scan(args) => scan::run(&args, cx),
        Command::Memory(args) => memory::run(&args, cx),
        Command::Padding(args) => padding::run(&args, cx),
        Command::Report(args) => report::run(&args, cx),
        Command::Signature(args) => signature::run(&args, cx),
        Command::Index(args) => index::run(&args, cx),
        Command::Ranges(args) => ranges::run(&args, cx),
        Command::Strides(args) => strides::run(&args, cx),
        Command::Draw(args) => draw::run(&args, cx),
        Command::Sharding(args) => sharding::run(&args, cx),
        Command::Dtypes => dtypes::run(cx),
        Command::Completions { shell } => {
            clap_complete::generate(shell, &mut Cli::command(), "xla-shape", &mut cx.out);
            Ok(())
        }
    }
}
