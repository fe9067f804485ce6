//! Whole HLO modules: a view of the computations and instructions of an
//! `HloModuleProto` (also wrapped in an `HloProto` or `HloSnapshot`) or of
//! the HLO text XLA writes for it, and a static memory report.
//!
//! The view holds what tools about shapes need: for every instruction its
//! name, opcode, result shape (a validated [`Shape`]) and operands, the
//! entry computation, the program shape and the entry computation layout.
//! It is not XLA's `HloModule`: operands and attributes of HLO text stay
//! text, and nothing is type-checked.
//!
//! ```
//! use xla_shape::hlo::HloModule;
//!
//! let text = "HloModule m, entry_computation_layout={(f32[2,3]{1,0})->f32[3,2]{0,1}}\n\
//!             \n\
//!             ENTRY %main (p: f32[2,3]) -> f32[3,2] {\n  \
//!               %p = f32[2,3]{1,0} parameter(0)\n  \
//!               ROOT %t = f32[3,2]{0,1} transpose(%p), dimensions={1,0}\n\
//!             }\n";
//! let module = HloModule::from_text(text)?;
//! let entry = module.entry().unwrap();
//! assert_eq!(entry.name, "main");
//! let root = entry.root().unwrap();
//! assert_eq!((root.name.as_str(), root.opcode.as_str()), ("t", "transpose"));
//! assert_eq!(root.shape.as_ref().unwrap().to_string(), "f32[3,2]{0,1}");
//! assert_eq!(root.location.unwrap().line, 5);
//! let layout = module.entry_computation_layout.as_ref().unwrap();
//! assert_eq!(layout.result().to_string(), "f32[3,2]{0,1}");
//! # Ok::<(), xla_shape::Error>(())
//! ```
//!
//! XLA writes some shapes that its own validation rejects (a scalar with an
//! empty tile, `f32[]{:T()}`). The view keeps such an instruction, with the
//! shape as written and XLA's validation message in [`Rejected`], instead of
//! failing the whole module (see `docs/differences.md`, "HLO modules").

mod assignment;
mod report;
mod text;
mod wire;

use crate::error::{Error, ErrorKind, Location, Result};
use crate::model::{ProgramShape, Shape};
use crate::sharding::HloSharding;

pub use assignment::{
    Assigned, BufferAllocation, BufferAssignment, HeapEvent, HeapEventKind, HeapTrace,
    LogicalBuffer,
};
pub use report::{
    BufferRow, BufferSizes, BufferTally, Largest, MemoryReport, POINTER_SIZE, Total, Totals,
};
pub use text::{InstructionLine, TextLine, TextReader};
pub use wire::ModuleMessage;

/// A shape that XLA writes but that XLA's validation rejects, kept as
/// written.
#[derive(Clone, Debug, PartialEq)]
pub struct Rejected {
    /// The shape as written: the HLO text of a text module, the protobuf text
    /// format (one line) of the `ShapeProto` of a binary one (its `Debug`
    /// form without the `formats` feature).
    pub written: String,
    /// XLA's validation error for it.
    pub error: Error,
}

/// One instruction of a computation.
#[derive(Clone, Debug, PartialEq)]
pub struct HloInstruction {
    /// The instruction's name, without the `%` of HLO text.
    pub name: String,
    /// The opcode as HLO text spells it (`add`, `get-tuple-element`).
    pub opcode: String,
    /// The result shape, or the shape as written when XLA's validation
    /// rejects it.
    pub shape: std::result::Result<Shape, Rejected>,
    /// The id (`HloInstructionProto.id`); `None` for text, which has none.
    pub id: Option<i64>,
    /// The operands' ids (`operand_ids`), for a binary module.
    pub operand_ids: Vec<i64>,
    /// The operand list between the opcode's parentheses, for a text
    /// module (`%a, %b`).
    pub operands: Option<String>,
    /// Where the shape starts, for a text module.
    pub location: Option<Location>,
    /// The ids of the computations it calls (`called_computation_ids`), for
    /// a binary module, in XLA's order (a while's body, then its
    /// condition).
    pub called_computation_ids: Vec<i64>,
    /// The names of the computations it calls, for a text module, in XLA's
    /// order: `calls=`, `to_apply=`, `body=` then `condition=`,
    /// `true_computation=` then `false_computation=`,
    /// `branch_computations={...}`, `called_computations={...}`.
    pub called_computations: Vec<String>,
    /// A parameter's number (`parameter(N)`, `parameter_number`).
    pub parameter_number: Option<i64>,
    /// A get-tuple-element's index (`index=N`, `tuple_index`).
    pub tuple_index: Option<i64>,
    /// A fusion's kind (`kind=kLoop`, `fusion_kind`).
    pub fusion_kind: Option<String>,
    /// Outputs that share an operand's buffer
    /// (`output_to_operand_aliasing={...}`, `output_operand_aliasing`).
    pub output_operand_aliasing: Vec<OutputOperandAlias>,
    /// The instruction's sharding: its `sharding={...}` attribute in text,
    /// its `sharding` field (an `OpSharding`) in a binary module; or why
    /// XLA's parser or `HloSharding::FromProto` rejects it. `None` when the
    /// instruction has none.
    pub sharding: Option<std::result::Result<HloSharding, Error>>,
}

impl HloInstruction {
    /// The operand names of a text module's instruction (`%a, %b` gives
    /// `a` and `b`), in order; none for a parameter or a constant, whose
    /// parentheses hold a number or a literal, or for a binary module.
    ///
    /// ```
    /// use xla_shape::hlo::HloModule;
    ///
    /// let m = HloModule::from_text(
    ///     "HloModule m\nENTRY e {\n  a = f32[] parameter(0)\n  \
    ///      ROOT t = (f32[], f32[]) tuple(f32[] a, /*index=1*/%a)\n}\n",
    /// )?;
    /// let root = m.entry().unwrap().root().unwrap();
    /// assert_eq!(root.operand_names().collect::<Vec<_>>(), ["a", "a"]);
    /// # Ok::<(), xla_shape::Error>(())
    /// ```
    pub fn operand_names(&self) -> impl Iterator<Item = &str> {
        let list = match self.opcode.as_str() {
            "parameter" | "constant" => None,
            _ => self.operands.as_deref(),
        };
        text::operand_names(list.unwrap_or(""))
    }
}

/// An output of an instruction that shares the buffer of one of its
/// operands (XLA's `OutputOperandAliasing`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutputOperandAlias {
    /// The index of the output in the result shape.
    pub output_index: Vec<i64>,
    /// The operand's position among the operands.
    pub operand: i64,
    /// The index in the operand's shape.
    pub operand_index: Vec<i64>,
}

/// An output of the entry computation that shares a parameter's buffer
/// (XLA's `HloInputOutputAliasConfig`, `input_output_alias={...}`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputOutputAlias {
    /// The index of the output in the result shape.
    pub output_index: Vec<i64>,
    /// The parameter's number.
    pub parameter_number: i64,
    /// The index in the parameter's shape.
    pub parameter_index: Vec<i64>,
    /// `must-alias` rather than `may-alias`.
    pub must_alias: bool,
}

/// A parameter, or part of one, whose buffer the caller donates (XLA's
/// `HloBufferDonorConfig`, `buffer_donor={...}`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BufferDonor {
    /// The parameter's number.
    pub parameter_number: i64,
    /// The index in the parameter's shape.
    pub parameter_index: Vec<i64>,
}

/// The order of one computation's instructions in a scheduled module
/// (`HloScheduleProto.sequences`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScheduleSequence {
    /// The computation's id.
    pub computation_id: i64,
    /// Its instructions' ids, in the order they run.
    pub instruction_ids: Vec<i64>,
}

/// One computation of a module.
#[derive(Clone, Debug, PartialEq)]
pub struct HloComputation {
    /// The computation's name, without `%`.
    pub name: String,
    /// The id (`HloComputationProto.id`); `None` for text.
    pub id: Option<i64>,
    /// The instructions, in the module's order.
    pub instructions: Vec<HloInstruction>,
    /// The index in `instructions` of the root instruction.
    pub root: Option<usize>,
    /// Where the computation's header line starts, for a text module.
    pub location: Option<Location>,
}

impl HloComputation {
    /// The root instruction: the one whose result the computation returns.
    pub fn root(&self) -> Option<&HloInstruction> {
        self.root.and_then(|i| self.instructions.get(i))
    }
}

/// Where a module was read from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ModuleSource {
    /// HLO module text.
    Text,
    /// A binary message of `xla/service/hlo.proto`.
    Proto(ModuleMessage),
}

/// The view of one HLO module: its computations and instructions.
#[derive(Clone, Debug, PartialEq)]
pub struct HloModule {
    /// The module's name.
    pub name: String,
    /// Every computation, in the module's order (callees first).
    pub computations: Vec<HloComputation>,
    /// The index in `computations` of the entry computation.
    pub entry: Option<usize>,
    /// The entry computation's program shape: its `program_shape` in a
    /// binary module, its signature (`(p: f32[2]) -> f32[2]`, default
    /// layouts) in text.
    pub program_shape: Option<ProgramShape>,
    /// The entry computation layout: `host_program_shape` of a binary
    /// module, `entry_computation_layout={...}` of the text header.
    pub entry_computation_layout: Option<ProgramShape>,
    /// What the module was read from.
    pub source: ModuleSource,
    /// Whether the module is scheduled: `is_scheduled=true` in text, where
    /// each computation's instructions are then in the order they run; a
    /// `schedule` in a binary module ([`HloModule::schedule`]).
    pub is_scheduled: bool,
    /// The schedule of a binary module: each computation's order, by
    /// increasing computation id.
    pub schedule: Vec<ScheduleSequence>,
    /// The outputs that share a parameter's buffer.
    pub input_output_alias: Vec<InputOutputAlias>,
    /// The parameters whose buffers are donated.
    pub buffer_donors: Vec<BufferDonor>,
    /// XLA's buffer assignment, which an `HloProto` (and an `HloSnapshot`
    /// that holds one) carries beside the module.
    pub buffer_assignment: Option<BufferAssignment>,
}

/// How a module's input is written, text or binary: the one rule that
/// [`HloModule::read`] and every command of the CLI follow.
///
/// ```
/// use xla_shape::hlo::ModuleEncoding;
///
/// assert_eq!(ModuleEncoding::detect(b"HloModule m\n\nENTRY %e {"), ModuleEncoding::Text);
/// // HloModuleProto: name (field 1) "m", a computation (field 3) ...
/// assert_eq!(ModuleEncoding::detect(b"\x0a\x01m\x1a\x0b"), ModuleEncoding::Binary);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ModuleEncoding {
    /// HLO module text, which can be read one line at a time
    /// ([`TextReader`]).
    Text,
    /// A binary message of `xla/service/hlo.proto` (which one:
    /// [`ModuleMessage::detect`]), read whole.
    Binary,
}

impl ModuleEncoding {
    /// Judges input from its first bytes (any prefix of it, such as what a
    /// reader holds buffered): text when they are UTF-8 (a character cut
    /// by the end of the prefix aside) with no control byte other than
    /// tab, line feed, carriage return and form feed; binary otherwise. A
    /// binary module has such bytes among its first ones: the keys of
    /// `entry_computation_name` (`0x12`) and `computations` (`0x1a`), and
    /// every length below 32.
    pub fn detect(prefix: &[u8]) -> ModuleEncoding {
        let utf8 = match std::str::from_utf8(prefix) {
            Ok(_) => true,
            // A character cut by the end of the prefix does not count.
            Err(e) => e.error_len().is_none(),
        };
        let control =
            |b: &u8| (*b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r' | 0x0c)) || *b == 0x7f;
        if utf8 && !prefix.iter().any(control) {
            ModuleEncoding::Text
        } else {
            ModuleEncoding::Binary
        }
    }
}

impl HloModule {
    /// Reads a module from a file's bytes, text or binary as
    /// [`ModuleEncoding::detect`] judges them: HLO text, or a binary
    /// `HloModuleProto`, `HloProto` or `HloSnapshot` (told apart as
    /// [`ModuleMessage::detect`] does). Bytes judged binary that are no
    /// binary module but UTF-8 that starts (after whitespace and comments)
    /// with `HloModule` are read as text: a module with a stray control
    /// character (no protobuf message starts with `HloModule`, whose `o`
    /// would be a key of wire type 7).
    ///
    /// # Errors
    ///
    /// As [`HloModule::from_text`] for text, [`HloModule::from_proto`] for
    /// binary input.
    pub fn read(bytes: &[u8]) -> Result<HloModule> {
        let text = std::str::from_utf8(bytes);
        match (ModuleEncoding::detect(bytes), text) {
            (ModuleEncoding::Text, Ok(text)) => HloModule::from_text(text),
            (_, text) => {
                HloModule::from_proto(ModuleMessage::detect(bytes), bytes).or_else(|e| match text {
                    Ok(text) if looks_like_text(text) => HloModule::from_text(text),
                    _ => Err(e),
                })
            }
        }
    }

    /// Reads a module as [`HloModule::read`] does, except that each
    /// instruction of a binary module is handed to `each`, with the name of
    /// its computation, as it is read, and not kept: the view returned has
    /// the module's computations without their instructions (and without
    /// roots). A tool that goes through every instruction once (a report, a
    /// scan) holds the module's computations and one instruction at a
    /// time, where the view holds every instruction (hundreds of bytes
    /// each, for as few as two bytes of input: an empty
    /// `HloInstructionProto`). Module text, which [`TextReader`] reads
    /// one line at a time, is read whole as `read` reads it, its
    /// instructions kept and not handed to `each`.
    ///
    /// ```
    /// use xla_shape::hlo::{HloModule, ModuleSource};
    ///
    /// // computations { name: "c" instructions { name: "p" opcode: "parameter"
    /// // shape { element_type: F32 } } }
    /// let bytes = b"\x1a\x17\x0a\x01c\x12\x12\x0a\x01p\x12\x09parameter\x1a\x02\x10\x0b";
    /// let mut seen = Vec::new();
    /// let module = HloModule::read_streamed(bytes, &mut |c, i| {
    ///     seen.push(format!("{c}/{} {}", i.name, i.shape.as_ref().unwrap()));
    ///     Ok(())
    /// })?;
    /// assert_eq!(seen, ["c/p f32[]"]);
    /// assert!(matches!(module.source, ModuleSource::Proto(_)));
    /// assert!(module.computations[0].instructions.is_empty());
    /// # Ok::<(), xla_shape::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`HloModule::read`]; an error of `each` ends the walk and is
    /// returned.
    pub fn read_streamed(
        bytes: &[u8],
        each: &mut dyn FnMut(&str, &HloInstruction) -> Result<()>,
    ) -> Result<HloModule> {
        let text = std::str::from_utf8(bytes);
        match (ModuleEncoding::detect(bytes), text) {
            (ModuleEncoding::Text, Ok(text)) => HloModule::from_text(text),
            (_, text) => {
                wire::read_into(ModuleMessage::detect(bytes), bytes, Some(each)).or_else(|e| {
                    match text {
                        Ok(text) if looks_like_text(text) => HloModule::from_text(text),
                        _ => Err(e),
                    }
                })
            }
        }
    }

    /// Reads HLO module text, as XLA prints it (`HloModule::ToString`,
    /// `--xla_dump_to`'s `*.txt`): the header, then computations, one
    /// instruction per line.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Parse`] with a [`Location`]: XLA's `expects HloModule`
    /// for text that is not a module, XLA's parse error for a shape that does
    /// not parse, and ours for an instruction line that is not
    /// `name = shape opcode(...)` or a computation left open.
    pub fn from_text(text: &str) -> Result<HloModule> {
        text::read(text)
    }

    /// Decodes a binary module of the given message type.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Decode`] for bytes that are not such a message
    /// (truncated, wrong wire types, a string that is not UTF-8, a shape
    /// whose bytes are not a `ShapeProto`); for a program shape (the entry
    /// computation's, `host_program_shape`) that XLA's
    /// `ProgramShape::FromProto` rejects, that error's own kind:
    /// [`ErrorKind::MalformedProto`] for different numbers of parameters
    /// and names, [`ErrorKind::InvalidShape`] or
    /// [`ErrorKind::InvalidLayout`] for a shape of it. Every error keeps
    /// the inner kind and message and says where it was found as
    /// [`Error::context`](crate::Error::context): the message, field,
    /// index and name of each level (`not a valid xla.HloModuleProto:
    /// computations[2] (main.5): program_shape: ...`).
    ///
    /// ```
    /// use xla_shape::ErrorKind;
    /// use xla_shape::hlo::{HloModule, ModuleMessage};
    ///
    /// // computations (field 3) of 5 bytes, of which 2 are given.
    /// let err = HloModule::from_proto(ModuleMessage::Module, &[0x1a, 0x05, 0x0a, 0x01]).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::Decode);
    /// let at = &err.context()[0];
    /// assert_eq!((at.message(), at.field(), at.index()), ("xla.HloModuleProto", Some("computations"), Some(0)));
    /// assert_eq!(
    ///     err.to_string(),
    ///     "not a valid xla.HloModuleProto: computations[0]: \
    ///      failed to decode protobuf message: unexpected end of input"
    /// );
    /// ```
    pub fn from_proto(message: ModuleMessage, bytes: &[u8]) -> Result<HloModule> {
        wire::read(message, bytes)
    }

    /// The entry computation.
    pub fn entry(&self) -> Option<&HloComputation> {
        self.entry.and_then(|i| self.computations.get(i))
    }

    /// Every instruction with its computation, in order.
    pub fn instructions(&self) -> impl Iterator<Item = (&HloComputation, &HloInstruction)> {
        self.computations
            .iter()
            .flat_map(|c| c.instructions.iter().map(move |i| (c, i)))
    }
}

/// Whether `text` starts, after whitespace and comments, with `HloModule`.
fn looks_like_text(text: &str) -> bool {
    text::skip_blank(text, 0).1.starts_with("HloModule")
}

/// An error of the module reader at `location`.
fn parse_error(message: impl Into<String>, location: Location) -> Error {
    Error::new(ErrorKind::Parse, message).at(location)
}

/// The answers for the last few distinct keys: modules repeat a few shapes
/// over and over, and converting or sizing a shape costs far more than
/// comparing it with one seen before.
pub(crate) struct Recent<K, V> {
    entries: Vec<(K, V)>,
    next: usize,
}

impl<K: PartialEq + Clone, V: Clone> Recent<K, V> {
    const CAPACITY: usize = 32;

    pub(crate) fn new() -> Self {
        Recent {
            entries: Vec::with_capacity(Self::CAPACITY),
            next: 0,
        }
    }

    /// The answer for `key`, computed by `f` when not among the recent ones.
    pub(crate) fn get(&mut self, key: &K, f: impl FnOnce(&K) -> V) -> V {
        if let Some((_, v)) = self.entries.iter().find(|(k, _)| k == key) {
            return v.clone();
        }
        let v = f(key);
        if self.entries.len() < Self::CAPACITY {
            self.entries.push((key.clone(), v.clone()));
        } else {
            self.entries[self.next] = (key.clone(), v.clone());
            self.next = (self.next + 1) % Self::CAPACITY;
        }
        v
    }
}
