//! `report`: a static memory report of a whole HLO module, text or binary
//! `HloModuleProto`/`HloProto`/`HloSnapshot` (detected as the library's
//! `ModuleEncoding::detect` judges), or of StableHLO (text, MLIR bytecode
//! or a `jax.export` serialization, as `input::open_module` detects it,
//! read whole). The library's `BufferTally` counts the
//! totals and keeps the largest buffers; this module lays them out.
//!
//! Module text is read one line at a time and the report written as it
//! goes: what is held is one line, the shapes seen so far (a few thousand
//! distinct ones at most), the rows of the first instructions until the
//! table's columns are sized, and the `--top N` largest buffers. A binary
//! module is one protobuf message, read whole (up to `--max-input` bytes).

use std::borrow::Cow;
use std::io::{BufRead, Write};

use serde_json::json;
use xla_shape::Shape;
use xla_shape::hlo::{
    BufferSizes, BufferTally, HloInstruction, HloModule, ModuleSource, TextLine, TextReader,
};

use crate::Context;
use crate::input::{self, Lines, ModuleInput, Source};
use crate::output::{Failure, Problem, cut, printable};

/// The arguments of `report`.
#[derive(Clone, Debug, clap::Args)]
pub struct Args {
    /// The modules (standard input when absent or '-'); several are
    /// reported one after the other, a section each.
    pub input: Vec<String>,
    /// How many of the largest buffers to list.
    #[arg(long, default_value_t = 10)]
    pub top: usize,
    /// The width of the table (default: $COLUMNS, else 120).
    #[arg(long)]
    pub width: Option<usize>,
}

/// What the sums of the report are not, in its JSON document.
const NOTE: &str = "the totals sum every instruction's result counted alone; they are no \
                    measure of the memory the module needs (see `xla-shape memory`)";

/// The width of the terminal: `COLUMNS`, or 120.
fn terminal_width() -> usize {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.parse().ok())
        .filter(|&c| c >= 40)
        .unwrap_or(120)
}

/// `xla-shape report [INPUT...] [--top N]`: the table, or with `--json` one
/// JSON document, for each module.
pub fn run(args: &Args, cx: &mut Context<impl Write>) -> Result<(), Failure> {
    cx.each_input(&args.input, |input, cx| report(args, input, cx))
}

/// The report of one module.
fn report(args: &Args, input: Option<&str>, cx: &mut Context<impl Write>) -> Result<(), Failure> {
    let module = input::open_module(Source::module(input), cx.limits.max_input)?;
    let width = args.width.unwrap_or_else(terminal_width);
    let max_line = cx.limits.max_line;
    let mut report = Report::new(&mut cx.out, args.top, width, cx.json);
    let failed = match module {
        ModuleInput::Text(reader) => report_text(reader, max_line, &mut report)?,
        ModuleInput::StableHlo(module) => {
            report_stablehlo(&module, &mut report)?;
            false
        }
        ModuleInput::Binary(bytes) => {
            report_binary(&bytes, &mut report)?;
            false
        }
    };
    report.finish()?;
    if failed {
        Err(Failure::Reported)
    } else {
        Ok(())
    }
}

/// Reads module text line by line into `report`; whether a line failed.
fn report_text(
    reader: Box<dyn BufRead + '_>,
    max_line: usize,
    report: &mut Report<'_, impl Write>,
) -> Result<bool, Failure> {
    let mut lines = Lines::of(reader, max_line);
    let mut module = TextReader::new();
    let mut computation = String::new();
    let mut header = false;
    let mut failed = false;
    let mut blank = true;
    let mut last = 0;
    while let Some((number, start, text)) = input::next_text(&mut lines, &mut module, &mut blank)? {
        last = number;
        let text = match text {
            Ok(text) => text,
            Err(problem) => {
                report.error(number, problem)?;
                failed = true;
                continue;
            }
        };
        match module.line(text, start) {
            Ok(TextLine::Header { name, .. }) => {
                header = true;
                report.module(name)?;
            }
            Ok(TextLine::Computation { name, .. }) => {
                name.clone_into(&mut computation);
            }
            Ok(TextLine::Instruction(i)) => {
                let sizes = i.sizes();
                let invalid = i.shape().err().map(|r| Cow::Borrowed(r.error.message()));
                report.row(Row {
                    computation: Cow::Borrowed(&computation),
                    name: Cow::Borrowed(i.name),
                    opcode: Cow::Borrowed(i.opcode),
                    shape: Cow::Borrowed(i.shape_text()),
                    invalid,
                    sharding: sharding_of(i.sharding().as_ref()),
                    sizes,
                })?;
            }
            Ok(_) => {}
            // Text that is not a module is one error, unless error rows
            // (lines over the limit, not UTF-8) are written already.
            Err(e) if !header && !failed => return Err(e.into()),
            Err(e) => {
                report.error(number, Problem::from(&e))?;
                failed = true;
            }
        }
    }
    if blank {
        return Err(input::no_input().into());
    }
    match module.finish(lines.read()) {
        Ok(()) => Ok(failed),
        // Rows are written already: the end of the text (a computation
        // left open, no header) is one more error row, so that the report,
        // its JSON document too, is whole.
        Err(e) if header || failed => {
            let line = e.location().map_or(last, |l| l.line);
            report.error(line, Problem::from(&e))?;
            Ok(true)
        }
        Err(e) => Err(e.into()),
    }
}

/// Writes the report of a binary module. The module is read twice, one
/// instruction at a time (`HloModule::read_streamed`): once to find its
/// errors before any row is written, once for the rows. Read whole, its
/// view held hundreds of bytes per instruction, which can take two bytes
/// of input. Bytes that are module text with a stray control character
/// are read whole (see `HloModule::read`).
fn report_binary(bytes: &[u8], report: &mut Report<'_, impl Write>) -> Result<(), Failure> {
    let module = HloModule::read_streamed(bytes, &mut |_, _| Ok(()))?;
    report.module(&module.name)?;
    if !matches!(module.source, ModuleSource::Proto(_)) {
        for row in module.buffers() {
            report.row(instruction_row(row.computation, row.instruction, row.sizes))?;
        }
        return Ok(());
    }
    let mut written = Ok(());
    // Modules repeat a shape over runs of instructions: sized once a run.
    let mut last: Option<(Shape, BufferSizes)> = None;
    HloModule::read_streamed(bytes, &mut |computation, instruction| {
        if written.is_err() {
            return Ok(());
        }
        let sizes = match &instruction.shape {
            Ok(shape) => match &last {
                Some((s, sizes)) if s == shape => *sizes,
                _ => {
                    let sizes = BufferSizes::of(shape);
                    last = Some((shape.clone(), sizes));
                    sizes
                }
            },
            Err(_) => BufferSizes::REJECTED,
        };
        written = report.row(instruction_row(computation, instruction, sizes));
        Ok(())
    })?;
    written
}

/// The row of an instruction of a binary module.
fn instruction_row<'a>(
    computation: &'a str,
    instruction: &'a HloInstruction,
    sizes: BufferSizes,
) -> Row<'a> {
    let (shape, invalid) = match &instruction.shape {
        Ok(shape) => (Cow::Owned(shape.to_string()), None),
        Err(rejected) => (
            Cow::Borrowed(rejected.written.as_str()),
            Some(Cow::Borrowed(rejected.error.message())),
        ),
    };
    Row {
        computation: Cow::Borrowed(computation),
        name: Cow::Borrowed(&instruction.name),
        opcode: Cow::Borrowed(&instruction.opcode),
        shape,
        invalid,
        sharding: sharding_of(instruction.sharding.as_ref()),
        sizes,
    }
}

/// Writes the report of StableHLO: one row per operation with
/// results (their tuple when several), by function.
fn report_stablehlo(
    module: &xla_shape::stablehlo::StableHloModule,
    report: &mut Report<'_, impl Write>,
) -> Result<(), Failure> {
    report.module(module.name.as_deref().unwrap_or("module"))?;
    for (function, op) in module.operations() {
        if op.result_types.is_empty() {
            continue;
        }
        let (shape, invalid, sizes) = match results_shape(&op.result_types) {
            Ok(shape) => (Cow::Owned(shape.to_string()), None, BufferSizes::of(&shape)),
            Err(e) => {
                let types: Vec<String> = op.result_types.iter().map(ToString::to_string).collect();
                (
                    Cow::Owned(types.join(", ")),
                    Some(Cow::Owned(e.message().to_owned())),
                    BufferSizes::REJECTED,
                )
            }
        };
        report.row(Row {
            computation: Cow::Borrowed(&function.name),
            name: Cow::Borrowed(&op.results),
            opcode: Cow::Borrowed(&op.name),
            shape,
            invalid,
            sharding: None,
            sizes,
        })?;
    }
    Ok(())
}

/// The shape of an operation's results as one buffer: the one result's, or
/// the tuple of several.
fn results_shape(types: &[xla_shape::stablehlo::Type]) -> xla_shape::Result<Shape> {
    if types.len() == 1 {
        types[0].to_shape()
    } else {
        types
            .iter()
            .map(xla_shape::stablehlo::Type::to_shape)
            .collect::<xla_shape::Result<Vec<_>>>()
            .map(Shape::Tuple)
    }
}

/// One instruction's buffer, as the report writes it.
#[derive(Clone, Debug)]
struct Row<'a> {
    computation: Cow<'a, str>,
    name: Cow<'a, str>,
    opcode: Cow<'a, str>,
    /// The shape as printed, or as written when XLA's validation rejects it.
    shape: Cow<'a, str>,
    /// XLA's validation message for a rejected shape.
    invalid: Option<Cow<'a, str>>,
    /// The instruction's sharding: XLA's text of it, or why it does not
    /// read.
    sharding: Option<Result<String, String>>,
    sizes: BufferSizes,
}

/// The sharding of a row, as the report writes it.
fn sharding_of(
    s: Option<&xla_shape::Result<xla_shape::sharding::HloSharding>>,
) -> Option<Result<String, String>> {
    s.map(|s| match s {
        Ok(s) => Ok(s.to_string()),
        Err(e) => Err(Problem::from(e).one_line()),
    })
}

impl Row<'_> {
    fn into_owned(self) -> Row<'static> {
        Row {
            computation: Cow::Owned(self.computation.into_owned()),
            name: Cow::Owned(self.name.into_owned()),
            opcode: Cow::Owned(self.opcode.into_owned()),
            shape: Cow::Owned(self.shape.into_owned()),
            invalid: self.invalid.map(|s| Cow::Owned(s.into_owned())),
            sharding: self.sharding,
            sizes: self.sizes,
        }
    }

    /// The bytes its strings take.
    fn weight(&self) -> usize {
        self.computation.len() + self.name.len() + self.opcode.len() + self.shape.len()
    }

    /// The shape as the table shows it.
    fn table_shape(&self) -> Cow<'_, str> {
        match &self.invalid {
            None => Cow::Borrowed(&self.shape),
            Some(_) => Cow::Owned(format!("{} (invalid)", self.shape)),
        }
    }

    fn to_json(&self) -> serde_json::Value {
        let s = &self.sizes;
        json!({
            "computation": self.computation,
            "name": self.name,
            "opcode": self.opcode,
            "shape": self.shape,
            "memory_space": s.memory_space,
            "element_type": s.element_type.lowercase_name(),
            "byte_size": s.byte_size,
            "padded_byte_size": s.padded_byte_size,
            "padding": s.padding(),
            "invalid": self.invalid,
            "sharding": self.sharding.as_ref().and_then(|s| s.as_ref().ok()),
            "sharding_error": self.sharding.as_ref().and_then(|s| s.as_ref().err()),
        })
    }
}

/// A row or the error of an input line, held while the table's columns
/// are sized.
enum Held {
    Row(Row<'static>),
    Error(usize, Problem),
}

/// The widths of the table's columns.
#[derive(Clone, Copy)]
struct Widths {
    name: usize,
    opcode: usize,
    shape: usize,
}

/// The rows held to size the table's columns: at most this many, of at
/// most this many bytes in all.
const SAMPLE_ROWS: usize = 1000;
/// The widest table, in characters.
const MAX_WIDTH: usize = 1 << 16;
const SAMPLE_BYTES: usize = 1 << 18;

/// The report, written as the rows come: the table (columns sized on the
/// first rows), or one JSON document whose `instructions` are written one
/// by one.
struct Report<'w, W: Write> {
    out: &'w mut W,
    json: bool,
    width: usize,
    module: Option<String>,
    /// The totals and the `top` largest buffers so far.
    tally: BufferTally<Row<'static>>,
    /// Rows held until the columns are sized (table only).
    sample: Vec<Held>,
    sample_bytes: usize,
    widths: Option<Widths>,
    /// The computation of the last row written.
    computation: Option<String>,
    /// Whether an element of `instructions` was written (JSON only).
    any: bool,
}

impl<'w, W: Write> Report<'w, W> {
    fn new(out: &'w mut W, top: usize, width: usize, json: bool) -> Self {
        Report {
            out,
            json,
            width,
            module: None,
            tally: BufferTally::new(top),
            sample: Vec::new(),
            sample_bytes: 0,
            widths: None,
            computation: None,
            any: false,
        }
    }

    /// The module's name: the first line of the table, the first key of
    /// the document.
    fn module(&mut self, name: &str) -> Result<(), Failure> {
        if self.module.is_some() {
            return Ok(());
        }
        self.module = Some(name.to_owned());
        if self.json {
            write!(self.out, "{{\"module\":{},\"instructions\":[", json!(name))?;
        } else {
            writeln!(self.out, "module {}", printable(name))?;
        }
        Ok(())
    }

    fn row(&mut self, row: Row<'_>) -> Result<(), Failure> {
        if let Err(e) = self.tally.add(&row.sizes, || row.clone().into_owned()) {
            return Err(self.abandon(&e));
        }
        if self.json {
            self.separator()?;
            serde_json::to_writer(&mut *self.out, &row.to_json()).map_err(std::io::Error::from)?;
            return Ok(());
        }
        match self.widths {
            Some(widths) => self.table_row(widths, &row),
            None => {
                self.sample_bytes += row.weight();
                self.sample.push(Held::Row(row.into_owned()));
                self.size_columns_when_full()
            }
        }
    }

    /// The error of input line `number`, in place of its row.
    fn error(&mut self, number: usize, problem: Problem) -> Result<(), Failure> {
        if self.json {
            self.separator()?;
            let p = problem.to_json();
            serde_json::to_writer(&mut *self.out, &json!({"line": number, "error": p}))
                .map_err(std::io::Error::from)?;
            return Ok(());
        }
        if self.widths.is_some() {
            return error_line(self.out, number, &problem);
        }
        self.sample_bytes += problem.message.len();
        self.sample.push(Held::Error(number, problem));
        self.size_columns_when_full()
    }

    /// Ends the report at error `e` (the totals overflow): the JSON
    /// document is closed with `e` as its `error`, so that it stays one
    /// valid document; the table ends where it is, the message on
    /// standard error.
    fn abandon(&mut self, e: &xla_shape::Error) -> Failure {
        if !self.json {
            return Failure::Input(Problem::from(e));
        }
        let closed = (|| {
            if self.module.is_none() {
                self.module("")?;
            }
            let error = json!(Problem::from(e).to_json());
            writeln!(self.out, "],\"error\":{error}}}")?;
            Ok(())
        })();
        match closed {
            Ok(()) => Failure::Reported,
            Err(failure) => failure,
        }
    }

    fn separator(&mut self) -> Result<(), Failure> {
        if self.module.is_none() {
            self.module("")?;
        }
        if self.any {
            self.out.write_all(b",")?;
        }
        self.any = true;
        Ok(())
    }

    fn size_columns_when_full(&mut self) -> Result<(), Failure> {
        if self.sample.len() >= SAMPLE_ROWS || self.sample_bytes >= SAMPLE_BYTES {
            self.size_columns()?;
        }
        Ok(())
    }

    /// Sizes the columns on the rows held, and writes them.
    fn size_columns(&mut self) -> Result<(), Failure> {
        let rows = || {
            self.sample.iter().filter_map(|h| match h {
                Held::Row(r) => Some(r),
                Held::Error(..) => None,
            })
        };
        // The opcode column fits the longest opcode (up to 24); then the
        // memory space (3), three sizes of 12, separators.
        let opcode = rows()
            .map(|r| printable(&r.opcode).chars().count())
            .max()
            .unwrap_or(0)
            .clamp(6, 24);
        let fixed = opcode + 3 + 3 * 12 + 6;
        // No table is wider than `MAX_WIDTH`, whatever `--width` or
        // `COLUMNS` say (2^64 - 1 overflowed the sums below).
        let free = self.width.min(MAX_WIDTH).saturating_sub(fixed).max(30);
        // Names and shapes get what they need, up to their share of the rest.
        let name_need = rows()
            .map(|r| {
                let (c, n) = (printable(&r.computation), printable(&r.name));
                (c.chars().count() + n.chars().count() + 1).max(20)
            })
            .max()
            .unwrap_or(0);
        let name = name_need.min(free * 2 / 5).max(12);
        let shape_need = rows()
            .map(|r| printable(&r.table_shape()).chars().count())
            .max()
            .unwrap_or(0)
            .max(5);
        let shape = shape_need.min(free.saturating_sub(name)).max(12);
        let widths = Widths {
            name,
            opcode,
            shape,
        };
        self.widths = Some(widths);
        for held in std::mem::take(&mut self.sample) {
            match held {
                Held::Row(row) => self.table_row(widths, &row)?,
                Held::Error(number, problem) => error_line(self.out, number, &problem)?,
            }
        }
        self.sample_bytes = 0;
        Ok(())
    }

    fn table_row(&mut self, widths: Widths, row: &Row<'_>) -> Result<(), Failure> {
        if self.computation.as_deref() != Some(&row.computation) {
            self.computation = Some(row.computation.clone().into_owned());
            self.out.write_all(b"\n")?;
            table_header(self.out, widths, &row.computation)?;
        }
        table_line(self.out, widths, &format!("  {}", row.name), row)?;
        // The sharding, whole, on a line of its own under the row.
        match &row.sharding {
            Some(Ok(s)) => writeln!(self.out, "      sharding={}", printable(s))?,
            Some(Err(e)) => writeln!(self.out, "      sharding error: {}", printable(e))?,
            None => {}
        }
        Ok(())
    }

    /// The totals and the largest buffers; the end of the document.
    fn finish(mut self) -> Result<(), Failure> {
        if self.json {
            if self.module.is_none() {
                self.module("")?;
            }
            let total = |t: &xla_shape::hlo::Total| {
                json!({
                    "buffers": t.buffers,
                    "byte_size": t.byte_size,
                    "padded_byte_size": t.padded_byte_size,
                    "padding": t.padding(),
                })
            };
            let t = self.tally.totals();
            let spaces: Vec<_> = t
                .by_memory_space
                .iter()
                .map(|(s, t)| {
                    let mut v = total(t);
                    v["memory_space"] = json!(s);
                    v
                })
                .collect();
            let types: Vec<_> = t
                .by_element_type
                .iter()
                .map(|(e, t)| {
                    let mut v = total(t);
                    v["element_type"] = json!(e);
                    v
                })
                .collect();
            write!(
                self.out,
                "],\"by_memory_space\":{},\"by_element_type\":{},\"total\":{},\"largest\":[",
                json!(spaces),
                json!(types),
                total(&t.total),
            )?;
            // One row at a time: `--top` may keep every instruction.
            for (i, row) in self.tally.largest().sorted().into_iter().enumerate() {
                if i > 0 {
                    self.out.write_all(b",")?;
                }
                serde_json::to_writer(&mut *self.out, &row.to_json())
                    .map_err(std::io::Error::from)?;
            }
            writeln!(self.out, "],\"note\":{}}}", json!(NOTE))?;
            return Ok(());
        }
        if self.widths.is_none() {
            self.size_columns()?;
        }
        let widths = self.widths.expect("sized");
        let out = &mut *self.out;
        let totals = |out: &mut W, title: &str, rows: Vec<(String, &xla_shape::hlo::Total)>| {
            writeln!(
                out,
                "\n{title:<16} {:>8} {:>14} {:>14} {:>14}",
                "buffers", "ByteSizeOf", "padded", "padding"
            )?;
            for (key, t) in rows {
                writeln!(
                    out,
                    "{key:<16} {:>8} {:>14} {:>14} {:>14}",
                    t.buffers,
                    t.byte_size,
                    t.padded_byte_size,
                    t.padding()
                )?;
            }
            std::io::Result::Ok(())
        };
        let t = self.tally.totals();
        totals(
            out,
            "memory space",
            t.by_memory_space
                .iter()
                .map(|(s, t)| (format!("S({s})"), t))
                .collect(),
        )?;
        totals(
            out,
            "element type",
            t.by_element_type
                .iter()
                .map(|(e, t)| ((*e).to_owned(), t))
                .collect(),
        )?;
        totals(out, "sum", vec![("all results".to_owned(), &t.total)])?;
        writeln!(
            out,
            "\nThese sums count every instruction's result alone: fused computations' insides,\n\
             aliases (tuples, bitcasts) and buffers XLA reuses included. They are no measure\n\
             of the memory the module needs: for that, `xla-shape memory`."
        )?;
        let largest = self.tally.largest();
        if !largest.is_empty() {
            out.write_all(b"\n")?;
            let title = format!("largest {}", largest.len());
            table_header(out, widths, &title)?;
            for r in largest.sorted() {
                let name = format!("{}/{}", r.computation, r.name);
                table_line(out, widths, &name, r)?;
            }
        }
        Ok(())
    }
}

/// The error of input line `number`, in the table.
fn error_line(out: &mut impl Write, number: usize, problem: &Problem) -> Result<(), Failure> {
    writeln!(out, "error: line {number}: {}", problem.one_line())?;
    Ok(())
}

fn table_header(out: &mut impl Write, w: Widths, title: &str) -> std::io::Result<()> {
    let title = printable(title);
    let title = cut(&title, w.name);
    let cells = [
        &*title,
        "opcode",
        "S",
        "shape",
        "ByteSizeOf",
        "padded",
        "padding",
    ];
    table_cells(out, w, cells)
}

fn table_line(out: &mut impl Write, w: Widths, name: &str, r: &Row<'_>) -> std::io::Result<()> {
    let s = &r.sizes;
    let [mut space, mut size, mut padded, mut padding] = [(); 4].map(|()| itoa::Buffer::new());
    // Names, opcodes and shapes as written come from the input.
    let (name, opcode, shape) = (printable(name), printable(&r.opcode), r.table_shape());
    let shape = printable(&shape);
    let (name, opcode, shape) = (
        cut(&name, w.name),
        cut(&opcode, w.opcode),
        cut(&shape, w.shape),
    );
    let cells = [
        &*name,
        &*opcode,
        space.format(s.memory_space),
        &*shape,
        s.byte_size.map_or("-", |v| size.format(v)),
        s.padded_byte_size.map_or("-", |v| padded.format(v)),
        s.padding().map_or("-", |v| padding.format(v)),
    ];
    table_cells(out, w, cells)
}

/// One line of the table: name, opcode and shape left-aligned in their
/// widths, the memory space in 3 characters, the sizes right-aligned in
/// 12, as `{:<w$}` and `{:>w$}` would write them. `format!`'s padding
/// writes one `char` at a time, which was a third of `report`'s time on
/// a large module; this writes runs of spaces.
fn table_cells(out: &mut impl Write, w: Widths, cells: [&str; 7]) -> std::io::Result<()> {
    let [name, opcode, space, shape, size, padded, padding] = cells;
    left(out, name, w.name)?;
    left(out, opcode, w.opcode)?;
    right(out, space, 3, b" ")?;
    left(out, shape, w.shape)?;
    right(out, size, 12, b" ")?;
    right(out, padded, 12, b" ")?;
    right(out, padding, 12, b"\n")
}

/// `s` left-aligned in `width` characters, then a space.
fn left(out: &mut impl Write, s: &str, width: usize) -> std::io::Result<()> {
    out.write_all(s.as_bytes())?;
    spaces(out, width.saturating_sub(s.chars().count()) + 1)
}

/// `s` right-aligned in `width` characters, then `after`.
fn right(out: &mut impl Write, s: &str, width: usize, after: &[u8]) -> std::io::Result<()> {
    spaces(out, width.saturating_sub(s.chars().count()))?;
    out.write_all(s.as_bytes())?;
    out.write_all(after)
}

/// `n` spaces.
fn spaces(out: &mut impl Write, mut n: usize) -> std::io::Result<()> {
    const SPACES: [u8; 64] = [b' '; 64];
    while n > 0 {
        let k = n.min(SPACES.len());
        out.write_all(&SPACES[..k])?;
        n -= k;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table's cells are padded as `format!` pads them: the widths
    /// count characters, not bytes, and a cell wider than its column is
    /// written whole.
    #[test]
    fn cells_are_padded_as_format_pads_them() {
        let cells = [
            ["p", "parameter", "0", "f32[2]{0}", "8", "8", "0"],
            [
                "名前.1",
                "añadir",
                "12",
                "(f32[], s32[]) (invalid)",
                "-",
                "-",
                "-",
            ],
            [
                "a-name-wider-than-its-column",
                "op",
                "1234",
                "",
                "1",
                "9223372036854775807",
                "x",
            ],
            ["", "", "", "", "", "", ""],
        ];
        for w in [(1, 1, 1), (8, 4, 10), (30, 12, 40)] {
            let widths = Widths {
                name: w.0,
                opcode: w.1,
                shape: w.2,
            };
            for c in cells {
                let (name_w, op_w, shape_w) = w;
                let expected = format!(
                    "{:<name_w$} {:<op_w$} {:>3} {:<shape_w$} {:>12} {:>12} {:>12}\n",
                    c[0], c[1], c[2], c[3], c[4], c[5], c[6]
                );
                let mut out = Vec::new();
                table_cells(&mut out, widths, c).unwrap();
                assert_eq!(String::from_utf8(out).unwrap(), expected);
            }
        }
        let mut out = Vec::new();
        spaces(&mut out, 150).unwrap();
        assert_eq!(out, vec![b' '; 150]);
    }
}
