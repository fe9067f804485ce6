//! [`Context`]: what every command is given besides its own arguments.

use std::io::{self, Write};

use serde_json::Value as Json;
use xla_shape::ArrayShape;

use crate::input::{self, Format, Limits, Lines, Module, Source, Value};
use crate::output::{self, Failure, Problem};

/// The global options and the output, handed to every command's `run`:
/// `--json`, the input limits (`--max-input`, `--max-line`), and where the
/// command writes (standard output, buffered; a `Vec<u8>` in tests).
pub struct Context<W> {
    /// `--json`: one JSON document, or one JSON object a line in the
    /// line-by-line modes, instead of text.
    pub json: bool,
    /// How much input is read.
    pub limits: Limits,
    /// Where the command writes.
    pub out: W,
}

impl<W: Write> Context<W> {
    /// The whole of INPUT (`None` or `-`: standard input; `@FILE`: the
    /// file; else the text itself), at most `--max-input` bytes.
    pub fn read_all(&self, input: Option<&str>) -> Result<Vec<u8>, Failure> {
        input::read_all(input, self.limits.max_input)
    }

    /// The whole of INPUT as a module: StableHLO (text, MLIR bytecode or a
    /// `jax.export` serialization) or an HLO module (text or binary).
    pub fn read_module(&self, input: Option<&str>) -> Result<Module, Failure> {
        input::read_module(input, self.limits.max_input)
    }

    /// INPUT as a shape or a layout, in the format `from` or detected.
    pub fn read_value(&self, input: Option<&str>, from: Option<Format>) -> Result<Value, Failure> {
        Ok(input::read_value(&self.read_all(input)?, from)?)
    }

    /// INPUT as an array shape (`index`, `strides`, `draw`).
    pub fn read_array(
        &self,
        input: Option<&str>,
        from: Option<Format>,
    ) -> Result<ArrayShape, Failure> {
        Ok(self.read_value(input, from)?.into_array()?)
    }

    /// The lines of `source`, each at most `--max-line` bytes.
    pub fn lines<'a>(&self, source: Source<'a>) -> Result<Lines<'a>, Failure> {
        Lines::new(source, self.limits.max_line)
    }

    /// Writes `value` as one JSON line.
    pub fn write_json(&mut self, value: &Json) -> io::Result<()> {
        output::write_json(&mut self.out, value)
    }

    /// Writes the answer for input line `number` in a line-by-line mode
    /// (see [`output::write_record`]); returns whether the line failed.
    pub fn write_record(
        &mut self,
        number: usize,
        answer: Result<(String, Json), Problem>,
    ) -> io::Result<bool> {
        output::write_record(&mut self.out, self.json, number, answer)
    }
}
