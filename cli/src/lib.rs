//! The `xla-shape` tool, as a library: the binary (`main.rs`) parses the
//! arguments and calls a command, and the fuzz targets
//! (`fuzz/cli_checks.rs`) call the commands in-process to check what they
//! write (valid JSON, one line per input line, well-formed SVG). Not a
//! stable API: the tool's interface is its command line (docs/cli.md).
//!
//! # Layout
//!
//! - [`commands`]: one module per command, each an `Args` struct (its own
//!   flags, `#[derive(clap::Args)]`) and `run(&Args, &mut Context)`.
//! - [`Context`]: what every command is given besides its arguments:
//!   `--json`, the input limits, and the output.
//! - [`input`]: the services that read: INPUT as a literal, `@FILE` or
//!   standard input, whole or one line at a time, or as a module (HLO
//!   text or binary, StableHLO text, bytecode or `jax.export`); the shape
//!   formats (`--from`/`--to`), their detection, and reading a shape,
//!   layout or array.
//! - [`output`]: the services that write: errors ([`output::Problem`]) as
//!   text or JSON objects, the exit status ([`output::Failure`]), JSON
//!   lines, numbers, lists, element type names, and names from the input
//!   made printable.
//! - [`memory_limit`]: the binary's allocator, which ends the run with
//!   exit 1 and a message when the system refuses memory.
//!
//! # Adding a command
//!
//! 1. Write `commands/NAME.rs`: module docs saying what it prints, a
//!    `#[derive(clap::Args)] pub struct Args` with a doc comment on each
//!    flag (the `--help` text), and
//!    `pub fn run(args: &Args, cx: &mut Context<impl Write>) -> Result<(), Failure>`.
//!    Read INPUT with `cx.read_value`, `cx.read_array`, `cx.read_all`,
//!    `cx.lines`, `cx.read_module` or [`input::open_module`]; write to
//!    `cx.out`, or with `cx.json` one document with `cx.write_json`;
//!    return a library error with `?` (exit 1),
//!    [`output::Failure::Usage`] for a bad combination of flags (exit 2).
//! 2. Add `pub mod NAME;` to `commands/mod.rs`.
//! 3. Add a variant to `Command` in `main.rs`, `Name(NAME::Args)`, with
//!    its one-line summary as doc comment and an example in
//!    `after_help` (a test checks every command's help has one), and the
//!    arm `Command::Name(args) => NAME::run(&args, cx)` in `run`.
//! 4. Document it in docs/cli.md and test it in `cli/tests/` (through the
//!    binary, as a user runs it).
//!
//! ```
//! use xla_shape_cli::commands::strides;
//! use xla_shape_cli::input::{DEFAULT_MAX_INPUT, DEFAULT_MAX_LINE, Limits};
//! use xla_shape_cli::Context;
//!
//! let mut cx = Context {
//!     json: false,
//!     limits: Limits { max_input: DEFAULT_MAX_INPUT, max_line: DEFAULT_MAX_LINE },
//!     out: Vec::new(),
//! };
//! let args = strides::Args { input: Some("f32[2,3]{1,0}".into()), ..Default::default() };
//! strides::run(&args, &mut cx).expect("an array shape");
//! assert_eq!(
//!     String::from_utf8_lossy(&cx.out),
//!     "element strides: [3, 1]\nbyte strides:    [12, 4]\n"
//! );
//! ```

pub mod commands;
mod context;
pub mod input;
pub mod memory_limit;
pub mod output;

pub use context::Context;
