//! Decoding binary modules into the view, straight from the bytes.
//!
//! The walk goes HloModuleProto -> computations -> instructions over the
//! crate's protobuf byte layer and reads only the fields the view needs
//! (numbers in `proto::fields`, checked against
//! `proto/xla/service/hlo.proto`); every other field is skipped without
//! being built. Semantics are Google's runtime's, as for `ShapeProto`: a
//! known field with another wire type is an unknown field, the last scalar
//! wins, repeated fields append, and a singular message given twice is
//! merged. Merging two encodings of a message is reading their
//! concatenation (protobuf encoding guide, "Last One Wins"), so a shape
//! given twice is read from its parts joined; given once, as almost always,
//! it is a slice of the input. Each distinct shape is read once: the view
//! keeps the answer by the shape's exact bytes, and a repeated shape costs
//! one lookup. The module is never held twice: only the input and the view.

use std::borrow::Cow;
use std::collections::HashMap;

use super::assignment::{self, BufferAssignment};
use super::{
    BufferDonor, HloComputation, HloInstruction, HloModule, InputOutputAlias, ModuleSource,
    OutputOperandAlias, Rejected, ScheduleSequence,
};
use crate::error::{Error, ErrorContext, ErrorKind, Result};
use crate::limits::MAX_NESTING_DEPTH;
use crate::model::{ProgramShape, Shape};
use crate::proto::fields::{
    buffer_donor, hlo_computation, hlo_instruction, hlo_module, hlo_proto, hlo_schedule,
    hlo_wrapper, input_output_alias, output_operand_aliasing,
};
use crate::protobuf::{
    DECODE_CONTEXT, Reader, WireResult, WireType, count_fields, each_field, map_entry,
};
use crate::sharding::HloSharding;

/// The message of `xla/service/hlo.proto` that holds a module.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ModuleMessage {
    /// `xla.HloModuleProto`: what `--xla_dump_to` writes to `*.pb`.
    Module,
    /// `xla.HloProto`: a module (field 1) with its buffer assignment.
    Proto,
    /// `xla.HloSnapshot`: an `HloProto` (field 1) with arguments and result.
    Snapshot,
}

impl ModuleMessage {
    /// The full name of the message (`xla.HloModuleProto`).
    pub fn full_name(self) -> &'static str {
        match self {
            ModuleMessage::Module => "xla.HloModuleProto",
            ModuleMessage::Proto => "xla.HloProto",
            ModuleMessage::Snapshot => "xla.HloSnapshot",
        }
    }

    /// Which of the three messages `bytes` most likely hold. Field 1 of an
    /// `HloModuleProto` is its name (text); field 1 of the two wrappers is
    /// the wrapped message: the number of field-1 messages to go through
    /// before a name, or a message without field 1, tells them apart.
    /// Bytes that are none of them are read as a module (and fail there).
    pub fn detect(bytes: &[u8]) -> ModuleMessage {
        let mut current = bytes;
        for message in [ModuleMessage::Module, ModuleMessage::Proto] {
            match field_one(current).ok().as_deref() {
                Some([.., inner]) if !is_name(inner) => current = inner,
                _ => return message,
            }
        }
        ModuleMessage::Snapshot
    }
}

/// The values of the length-delimited fields 1 at the top level of `bytes`
/// (`HloProto.hlo_module`, `HloSnapshot.hlo`), in order, if they are a
/// well-formed message. Field 1 with another wire type is an unknown field.
fn field_one(bytes: &[u8]) -> WireResult<Vec<&[u8]>> {
    fields_numbered(bytes, hlo_wrapper::WRAPPED)
}

/// The values of the length-delimited fields `wanted` at the top level of
/// `bytes`, in order.
fn fields_numbered(bytes: &[u8], wanted: u32) -> WireResult<Vec<&[u8]>> {
    let mut found = Vec::new();
    let mut r = Reader::new(bytes);
    while !r.at_end() {
        let (number, wire) = r.key()?;
        if (number, wire) == (wanted, WireType::LengthDelimited) {
            found.push(r.len_delimited()?);
        } else {
            r.skip(number, wire, 0, MAX_NESTING_DEPTH)?;
        }
    }
    Ok(found)
}

/// What the top level of `bytes` holds, for the error about bytes that hold
/// no module: each field number with its wire type and count, in order of
/// first occurrence (at most 8 of them).
fn top_fields(bytes: &[u8]) -> String {
    let mut seen: Vec<(u32, WireType, usize)> = Vec::new();
    let mut r = Reader::new(bytes);
    while !r.at_end() {
        let Ok((number, wire)) = r.key() else { break };
        match seen.iter_mut().find(|(n, w, _)| (*n, *w) == (number, wire)) {
            Some(s) => s.2 += 1,
            None => seen.push((number, wire, 1)),
        }
        if r.skip(number, wire, 0, MAX_NESTING_DEPTH).is_err() {
            break;
        }
    }
    if seen.is_empty() {
        return "no field".to_owned();
    }
    let wire_name = |w: WireType| match w {
        WireType::Varint => "varint",
        WireType::SixtyFourBit => "64-bit",
        WireType::LengthDelimited => "length-delimited",
        WireType::StartGroup | WireType::EndGroup => "group",
        WireType::ThirtyTwoBit => "32-bit",
    };
    let mut out: Vec<String> = seen
        .iter()
        .take(8)
        .map(|&(n, w, count)| match count {
            1 => format!("{n} ({})", wire_name(w)),
            _ => format!("{n} ({}, {count} times)", wire_name(w)),
        })
        .collect();
    if seen.len() > 8 {
        out.push(format!("and {} more", seen.len() - 8));
    }
    format!(
        "{} {}",
        if seen.len() == 1 { "field" } else { "fields" },
        out.join(", ")
    )
}

/// Reads the length-delimited fields `wanted` of a message at depth 1,
/// each with `entry` (depth 2): the entries of a repeated field.
fn entries<'a>(
    bytes: &'a [u8],
    wanted: u32,
    mut entry: impl FnMut(&'a [u8]) -> WireResult<()>,
) -> WireResult<()> {
    each_field(bytes, 1, |r, number, wire| {
        if (number, wire) != (wanted, WireType::LengthDelimited) {
            return Ok(false);
        }
        entry(r.len_delimited()?)?;
        Ok(true)
    })
}

/// Reads an `HloInputOutputAliasProto` (depth 1): its entries.
fn io_aliases(into: &mut Vec<InputOutputAlias>, bytes: &[u8]) -> WireResult<()> {
    use input_output_alias as f;
    entries(bytes, f::ENTRIES, |entry| {
        let mut alias = InputOutputAlias {
            output_index: Vec::new(),
            parameter_number: 0,
            parameter_index: Vec::new(),
            must_alias: false,
        };
        each_field(entry, 2, |e, number, wire| match (number, wire) {
            (f::OUTPUT_SHAPE_INDEX, _) => e.repeated_varint(wire, &mut alias.output_index),
            (f::PARAMETER_SHAPE_INDEX, _) => e.repeated_varint(wire, &mut alias.parameter_index),
            (f::PARAMETER_NUMBER, WireType::Varint) => {
                alias.parameter_number = e.varint()? as i64;
                Ok(true)
            }
            (f::KIND, WireType::Varint) => {
                // An enum is an int32: the low 32 bits of the varint.
                alias.must_alias = e.varint()? as u32 as u64 == f::MUST_ALIAS;
                Ok(true)
            }
            _ => Ok(false),
        })?;
        into.push(alias);
        Ok(())
    })
}

/// Reads an `HloBufferDonorProto` (depth 1): its entries.
fn donors(into: &mut Vec<BufferDonor>, bytes: &[u8]) -> WireResult<()> {
    use buffer_donor as f;
    entries(bytes, f::ENTRIES, |entry| {
        let mut donor = BufferDonor {
            parameter_number: 0,
            parameter_index: Vec::new(),
        };
        each_field(entry, 2, |e, number, wire| match (number, wire) {
            (f::PARAMETER_SHAPE_INDEX, _) => e.repeated_varint(wire, &mut donor.parameter_index),
            (f::PARAMETER_NUMBER, WireType::Varint) => {
                donor.parameter_number = e.varint()? as i64;
                Ok(true)
            }
            _ => Ok(false),
        })?;
        into.push(donor);
        Ok(())
    })
}

/// Reads an `OutputOperandAliasing` of an instruction (depth 3).
fn operand_alias(bytes: &[u8]) -> WireResult<OutputOperandAlias> {
    use output_operand_aliasing as f;
    let mut alias = OutputOperandAlias {
        output_index: Vec::new(),
        operand: 0,
        operand_index: Vec::new(),
    };
    each_field(bytes, 3, |r, number, wire| match (number, wire) {
        (f::OUTPUT_SHAPE_INDEX, _) => r.repeated_varint(wire, &mut alias.output_index),
        (f::OPERAND_SHAPE_INDEX, _) => r.repeated_varint(wire, &mut alias.operand_index),
        (f::OPERAND_INDEX, WireType::Varint) => {
            alias.operand = r.varint()? as i64;
            Ok(true)
        }
        _ => Ok(false),
    })?;
    Ok(alias)
}

/// Whether a field-1 value reads as a module name rather than a message.
fn is_name(value: &[u8]) -> bool {
    std::str::from_utf8(value).is_ok_and(|s| !s.chars().any(char::is_control))
}

/// The full names of the messages a module is made of, as errors name
/// them (`ErrorContext::message`).
const HLO_MODULE: &str = "xla.HloModuleProto";
const HLO_COMPUTATION: &str = "xla.HloComputationProto";
const HLO_INSTRUCTION: &str = "xla.HloInstructionProto";

/// Where in a message the walk is, for the context of an error: the field
/// it reads and, for an element of a repeated field, the element's index
/// and name (once the element has read it). Field names are the schema's
/// (`proto/xla/service/hlo.proto`), beside the numbers matched below.
#[derive(Default)]
struct Place<'a> {
    field: Option<&'static str>,
    index: Option<usize>,
    name: &'a [u8],
}

impl<'a> Place<'a> {
    /// In the singular field `field`.
    fn field(&mut self, field: &'static str) {
        *self = Place {
            field: Some(field),
            ..Place::default()
        };
    }

    /// In element `index` of the repeated field `field`.
    fn element(&mut self, field: &'static str, index: usize) {
        *self = Place {
            field: Some(field),
            index: Some(index),
            name: &[],
        };
    }

    fn context(&self, message: &'static str) -> ErrorContext {
        let mut context = ErrorContext::new(message);
        if let Some(field) = self.field {
            context = context.in_field(field);
        }
        if let Some(index) = self.index {
            context = context.at_index(index);
        }
        match std::str::from_utf8(self.name) {
            Ok(name) if !name.is_empty() => context.named(name),
            _ => context,
        }
    }
}

/// Reads one message with `fields`, which keeps `place` at where it reads;
/// an error of it is put in that place of `message`.
fn in_message<'a, T>(
    message: &'static str,
    fields: impl FnOnce(&mut Place<'a>) -> Result<T>,
) -> Result<T> {
    let mut place = Place::default();
    fields(&mut place).map_err(|e| e.in_context(place.context(message)))
}

/// The wrapping messages around a module, outermost first, each with the
/// field that holds the next one.
fn wrappers(message: ModuleMessage) -> &'static [(&'static str, &'static str)] {
    const PROTO: (&str, &str) = ("xla.HloProto", "hlo_module");
    const SNAPSHOT: (&str, &str) = ("xla.HloSnapshot", "hlo");
    match message {
        ModuleMessage::Module => &[],
        ModuleMessage::Proto => &[PROTO],
        ModuleMessage::Snapshot => &[SNAPSHOT, PROTO],
    }
}

/// `error`, found inside the fields `levels` (outermost first).
fn within(error: Error, levels: &[(&'static str, &'static str)]) -> Error {
    levels.iter().rev().fold(error, |e, &(message, field)| {
        e.in_context(ErrorContext::new(message).in_field(field))
    })
}

/// The value of a singular message field: a slice of the input, or its
/// occurrences joined when it is given more than once (merged).
type Merged<'a> = Option<Cow<'a, [u8]>>;

fn merge<'a>(slot: &mut Merged<'a>, value: &'a [u8]) {
    match slot {
        None => *slot = Some(Cow::Borrowed(value)),
        Some(bytes) => bytes.to_mut().extend_from_slice(value),
    }
}

/// A proto3 `string` field: C++ and upb fail the parse of one that is not
/// UTF-8.
fn utf8(bytes: &[u8]) -> Result<&str> {
    std::str::from_utf8(bytes).map_err(|_| {
        Error::decode(format!(
            "{DECODE_CONTEXT}invalid string value: data is not UTF-8 encoded"
        ))
    })
}

/// A result shape as the view holds it.
type ShapeAnswer = std::result::Result<Shape, Rejected>;

/// Where a streamed walk hands each instruction, with its computation's
/// name.
pub(super) type Sink<'s> = &'s mut dyn FnMut(&str, &HloInstruction) -> Result<()>;

/// The fields of one module (over every part of it, when a wrapper gives
/// it more than once) and what the walk has built so far.
#[derive(Default)]
struct ModuleWalk<'a> {
    name: &'a [u8],
    entry_computation_name: &'a [u8],
    entry_computation_id: i64,
    host_program_shape: Merged<'a>,
    computations: Vec<HloComputation>,
    /// `program_shape` of each computation, read only for the entry.
    program_shapes: Vec<Merged<'a>>,
    /// Each distinct shape's answer, by its exact bytes.
    shapes: HashMap<Cow<'a, [u8]>, ShapeAnswer, foldhash::fast::RandomState>,
    /// Where instructions go when they are streamed, not kept.
    sink: Option<Sink<'a>>,
    /// The instructions streamed.
    streamed: usize,
    /// `schedule` was given.
    scheduled: bool,
    /// `schedule.sequences`, one entry per key (the last wins, as for a
    /// map).
    schedule: Vec<ScheduleSequence>,
    input_output_alias: Vec<InputOutputAlias>,
    buffer_donors: Vec<BufferDonor>,
}

impl<'a> ModuleWalk<'a> {
    /// Reads the fields of `HloModuleProto` bytes (depth 0).
    fn module(&mut self, bytes: &'a [u8]) -> Result<()> {
        in_message(HLO_MODULE, |place| {
            let mut r = Reader::new(bytes);
            while !r.at_end() {
                *place = Place::default();
                let (number, wire) = r.key()?;
                match (number, wire) {
                    (hlo_module::NAME, WireType::LengthDelimited) => {
                        place.field("name");
                        self.name = r.len_delimited()?;
                        utf8(self.name)?;
                    }
                    (hlo_module::ENTRY_COMPUTATION_NAME, WireType::LengthDelimited) => {
                        place.field("entry_computation_name");
                        self.entry_computation_name = r.len_delimited()?;
                        utf8(self.entry_computation_name)?;
                    }
                    (hlo_module::COMPUTATIONS, WireType::LengthDelimited) => {
                        place.element("computations", self.computations.len());
                        self.computation(r.len_delimited()?, &mut place.name)?;
                    }
                    (hlo_module::HOST_PROGRAM_SHAPE, WireType::LengthDelimited) => {
                        place.field("host_program_shape");
                        merge(&mut self.host_program_shape, r.len_delimited()?);
                    }
                    (hlo_module::ENTRY_COMPUTATION_ID, WireType::Varint) => {
                        place.field("entry_computation_id");
                        self.entry_computation_id = r.varint()? as i64;
                    }
                    (hlo_module::SCHEDULE, WireType::LengthDelimited) => {
                        place.field("schedule");
                        self.scheduled = true;
                        self.schedule_proto(r.len_delimited()?)?;
                    }
                    (hlo_module::INPUT_OUTPUT_ALIAS, WireType::LengthDelimited) => {
                        place.field("input_output_alias");
                        io_aliases(&mut self.input_output_alias, r.len_delimited()?)?;
                    }
                    (hlo_module::BUFFER_DONOR, WireType::LengthDelimited) => {
                        place.field("buffer_donor");
                        donors(&mut self.buffer_donors, r.len_delimited()?)?;
                    }
                    _ => r.skip(number, wire, 0, MAX_NESTING_DEPTH)?,
                }
            }
            Ok(())
        })
    }

    /// Reads an `HloScheduleProto` (depth 1): its map of sequences.
    fn schedule_proto(&mut self, bytes: &[u8]) -> WireResult<()> {
        entries(bytes, hlo_schedule::SEQUENCES, |entry| {
            // A map entry (depth 2): key, then the sequence (depth 3),
            // merged when given twice.
            let (mut key, mut ids) = (0i64, Vec::new());
            each_field(entry, 2, |e, number, wire| match (number, wire) {
                (map_entry::KEY, WireType::Varint) => {
                    key = e.varint()? as i64;
                    Ok(true)
                }
                (map_entry::VALUE, WireType::LengthDelimited) => {
                    each_field(e.len_delimited()?, 3, |v, number, wire| {
                        if number == hlo_schedule::INSTRUCTION_IDS {
                            v.repeated_varint(wire, &mut ids)
                        } else {
                            Ok(false)
                        }
                    })?;
                    Ok(true)
                }
                _ => Ok(false),
            })?;
            // A key given again replaces its entry, as in a map.
            match self.schedule.iter_mut().find(|s| s.computation_id == key) {
                Some(s) => s.instruction_ids = ids,
                None => self.schedule.push(ScheduleSequence {
                    computation_id: key,
                    instruction_ids: ids,
                }),
            }
            Ok(())
        })
    }

    /// Reads one `HloComputationProto` (depth 1), writing its name to
    /// `named` as soon as it is read (for the context of an error).
    fn computation(&mut self, bytes: &'a [u8], named: &mut &'a [u8]) -> Result<()> {
        in_message(HLO_COMPUTATION, |place| {
            let mut name: &[u8] = &[];
            let (mut id, mut root_id) = (0i64, 0i64);
            let mut program_shape = None;
            // Room for every instruction at once: a large computation would
            // otherwise be moved each time its vector grows. Streamed, none
            // is kept, and the name they are handed with is the one the
            // walk will read (the last).
            let streamed_name = match self.sink {
                Some(_) => fields_numbered(bytes, hlo_computation::NAME)
                    .ok()
                    .and_then(|names| names.last().copied())
                    .unwrap_or_default(),
                None => &[],
            };
            let mut instructions = match self.sink {
                Some(_) => Vec::new(),
                None => Vec::with_capacity(count_fields(bytes, hlo_computation::INSTRUCTIONS)),
            };
            let mut r = Reader::new(bytes);
            while !r.at_end() {
                *place = Place::default();
                let (number, wire) = r.key()?;
                match (number, wire) {
                    (hlo_computation::NAME, WireType::LengthDelimited) => {
                        place.field("name");
                        name = r.len_delimited()?;
                        utf8(name)?;
                        *named = name;
                    }
                    (hlo_computation::INSTRUCTIONS, WireType::LengthDelimited) => {
                        place.element("instructions", instructions.len());
                        let instruction = self.instruction(r.len_delimited()?, &mut place.name)?;
                        match self.sink.as_mut() {
                            Some(sink) => {
                                self.streamed += 1;
                                // A name that is not UTF-8 is the walk's
                                // error, where it reads the name.
                                let name = std::str::from_utf8(streamed_name).unwrap_or_default();
                                sink(name, &instruction)?;
                            }
                            None => instructions.push(instruction),
                        }
                    }
                    (hlo_computation::PROGRAM_SHAPE, WireType::LengthDelimited) => {
                        place.field("program_shape");
                        merge(&mut program_shape, r.len_delimited()?);
                    }
                    (hlo_computation::ID, WireType::Varint) => {
                        place.field("id");
                        id = r.varint()? as i64;
                    }
                    (hlo_computation::ROOT_ID, WireType::Varint) => {
                        place.field("root_id");
                        root_id = r.varint()? as i64;
                    }
                    _ => r.skip(number, wire, 1, MAX_NESTING_DEPTH)?,
                }
            }
            // The last instruction with the root's id, as the view has always
            // taken it.
            let root = instructions
                .iter()
                .rposition(|i: &HloInstruction| i.id == Some(root_id));
            self.computations.push(HloComputation {
                name: utf8(name)?.to_owned(),
                id: Some(id),
                instructions,
                root,
                location: None,
            });
            self.program_shapes.push(program_shape);
            Ok(())
        })
    }

    /// Reads one `HloInstructionProto` (depth 2), writing its name to
    /// `named` as soon as it is read (for the context of an error).
    fn instruction(&mut self, bytes: &'a [u8], named: &mut &'a [u8]) -> Result<HloInstruction> {
        in_message(HLO_INSTRUCTION, |place| {
            let (mut name, mut opcode): (&[u8], &[u8]) = (&[], &[]);
            let mut shape = None;
            let mut id = 0i64;
            let mut operand_ids = Vec::new();
            let mut called_computation_ids = Vec::new();
            let (mut parameter_number, mut tuple_index) = (0i64, 0i64);
            let mut fusion_kind: &[u8] = &[];
            let mut output_operand_aliasing = Vec::new();
            let mut sharding = None;
            let mut r = Reader::new(bytes);
            while !r.at_end() {
                *place = Place::default();
                let (number, wire) = r.key()?;
                let known = match (number, wire) {
                    (hlo_instruction::NAME, WireType::LengthDelimited) => {
                        place.field("name");
                        name = r.len_delimited()?;
                        *named = name;
                        true
                    }
                    (hlo_instruction::OPCODE, WireType::LengthDelimited) => {
                        place.field("opcode");
                        opcode = r.len_delimited()?;
                        true
                    }
                    (hlo_instruction::SHAPE, WireType::LengthDelimited) => {
                        place.field("shape");
                        merge(&mut shape, r.len_delimited()?);
                        true
                    }
                    (hlo_instruction::ID, WireType::Varint) => {
                        place.field("id");
                        id = r.varint()? as i64;
                        true
                    }
                    (hlo_instruction::OPERAND_IDS, _) => {
                        place.field("operand_ids");
                        r.repeated_varint(wire, &mut operand_ids)?
                    }
                    (hlo_instruction::CALLED_COMPUTATION_IDS, _) => {
                        place.field("called_computation_ids");
                        r.repeated_varint(wire, &mut called_computation_ids)?
                    }
                    (hlo_instruction::PARAMETER_NUMBER, WireType::Varint) => {
                        place.field("parameter_number");
                        parameter_number = r.varint()? as i64;
                        true
                    }
                    (hlo_instruction::TUPLE_INDEX, WireType::Varint) => {
                        place.field("tuple_index");
                        tuple_index = r.varint()? as i64;
                        true
                    }
                    (hlo_instruction::FUSION_KIND, WireType::LengthDelimited) => {
                        place.field("fusion_kind");
                        fusion_kind = r.len_delimited()?;
                        true
                    }
                    (hlo_instruction::OUTPUT_OPERAND_ALIASING, WireType::LengthDelimited) => {
                        place.field("output_operand_aliasing");
                        output_operand_aliasing.push(operand_alias(r.len_delimited()?)?);
                        true
                    }
                    (hlo_instruction::SHARDING, WireType::LengthDelimited) => {
                        place.field("sharding");
                        merge(&mut sharding, r.len_delimited()?);
                        true
                    }
                    _ => false,
                };
                if !known {
                    *place = Place::default();
                    r.skip(number, wire, 2, MAX_NESTING_DEPTH)?;
                }
            }
            place.field("name");
            let name = utf8(name)?.to_owned();
            place.field("opcode");
            let opcode = utf8(opcode)?.to_owned();
            place.field("shape");
            let shape = self.shape(shape.unwrap_or(Cow::Borrowed(&[])))?;
            place.field("fusion_kind");
            let fusion_kind = utf8(fusion_kind)?;
            // Bytes that are not an `OpSharding` fail the module, as they
            // fail Google's runtime; one that `FromProto` rejects is kept
            // with its error.
            place.field("sharding");
            let sharding = match sharding.map(|b| HloSharding::from_proto_bytes(&b)) {
                Some(Err(error)) if error.kind() == ErrorKind::Decode => return Err(error),
                other => other,
            };
            Ok(HloInstruction {
                parameter_number: (opcode == "parameter").then_some(parameter_number),
                tuple_index: (opcode == "get-tuple-element").then_some(tuple_index),
                name,
                opcode,
                shape,
                id: Some(id),
                operand_ids,
                operands: None,
                location: None,
                called_computation_ids,
                called_computations: Vec::new(),
                fusion_kind: (!fusion_kind.is_empty()).then(|| fusion_kind.to_owned()),
                output_operand_aliasing,
                sharding,
            })
        })
    }

    /// The answer for a `ShapeProto`'s bytes: looked up, or read (and kept)
    /// the first time they are seen.
    fn shape(&mut self, bytes: Cow<'a, [u8]>) -> Result<ShapeAnswer> {
        if let Some(answer) = self.shapes.get(bytes.as_ref()) {
            return Ok(answer.clone());
        }
        let answer = match Shape::from_proto_bytes(&bytes) {
            Ok(shape) => Ok(shape),
            Err(error) if error.kind() == ErrorKind::Decode => return Err(error),
            Err(error) => Err(Rejected {
                written: written(&bytes),
                error,
            }),
        };
        // Streamed, the walk holds one instruction at a time: so many
        // distinct shapes are not kept.
        if self.sink.is_some() && self.shapes.len() >= STREAMED_SHAPES {
            self.shapes.clear();
        }
        self.shapes.insert(bytes, answer.clone());
        Ok(answer)
    }

    /// The view, once every part of the module is read. A program shape
    /// that XLA's `ProgramShape::FromProto` rejects keeps its kind and
    /// message, in the context of the field that holds it.
    fn into_view(self, message: ModuleMessage) -> Result<HloModule> {
        let ModuleWalk {
            name,
            entry_computation_name,
            entry_computation_id,
            host_program_shape,
            computations,
            program_shapes,
            scheduled,
            mut schedule,
            input_output_alias,
            buffer_donors,
            ..
        } = self;
        // A map has no order: the view's is the keys'.
        schedule.sort_by_key(|s| s.computation_id);
        let entry = computations.iter().position(|c| {
            if entry_computation_id != 0 || entry_computation_name.is_empty() {
                c.id == Some(entry_computation_id)
            } else {
                c.name.as_bytes() == entry_computation_name
            }
        });
        let program_shape = |bytes: Option<&Cow<'_, [u8]>>| {
            bytes.map(|b| ProgramShape::from_proto_bytes(b)).transpose()
        };
        let program = match entry {
            Some(i) => {
                program_shape(program_shapes.get(i).and_then(Option::as_ref)).map_err(|e| {
                    e.in_context(ErrorContext::new(HLO_COMPUTATION).in_field("program_shape"))
                        .in_context(
                            ErrorContext::new(HLO_MODULE)
                                .in_field("computations")
                                .at_index(i)
                                .named(computations[i].name.as_str()),
                        )
                })?
            }
            None => None,
        };
        let in_module =
            |field| move |e: Error| e.in_context(ErrorContext::new(HLO_MODULE).in_field(field));
        Ok(HloModule {
            name: utf8(name).map_err(in_module("name"))?.to_owned(),
            computations,
            entry,
            program_shape: program,
            entry_computation_layout: program_shape(host_program_shape.as_ref())
                .map_err(in_module("host_program_shape"))?,
            source: ModuleSource::Proto(message),
            is_scheduled: scheduled,
            schedule,
            input_output_alias,
            buffer_donors,
            buffer_assignment: None,
        })
    }
}

/// Distinct shapes kept at most by a streamed walk.
const STREAMED_SHAPES: usize = 1024;

pub(super) fn read(message: ModuleMessage, bytes: &[u8]) -> Result<HloModule> {
    read_into(message, bytes, None)
}

/// Reads a module, handing every instruction to `sink` (if given) instead
/// of keeping it.
pub(super) fn read_into<'a>(
    message: ModuleMessage,
    bytes: &'a [u8],
    sink: Option<Sink<'a>>,
) -> Result<HloModule> {
    // `HloProto.hlo_module` and `HloSnapshot.hlo` are field 1. Every
    // occurrence is a part of the one message they hold, merged in order:
    // the module is walked over its parts in turn, as over their
    // concatenation. Nothing is copied. `HloProto.buffer_assignment`
    // likewise, every occurrence merged.
    let wrappers = wrappers(message);
    let mut parts = vec![bytes];
    let mut assignment_parts = Vec::new();
    for (depth, &(wrapper, _)) in wrappers.iter().enumerate() {
        let mut inner = Vec::with_capacity(parts.len());
        for part in parts {
            let in_wrapper = |e: crate::protobuf::WireError| {
                let e = Error::from(e).in_context(ErrorContext::new(wrapper));
                within(e, &wrappers[..depth])
            };
            if depth + 1 == wrappers.len() {
                let found = fields_numbered(part, hlo_proto::BUFFER_ASSIGNMENT);
                assignment_parts.extend(found.map_err(in_wrapper)?);
            }
            inner.extend(field_one(part).map_err(in_wrapper)?);
        }
        parts = inner;
    }
    let mut module = ModuleWalk {
        sink,
        ..ModuleWalk::default()
    };
    let walked = parts.into_iter().try_for_each(|part| module.module(part));
    let streamed = module.streamed;
    let mut view = walked
        .and_then(|()| module.into_view(message))
        .map_err(|e| within(e, wrappers))?;
    if streamed == 0 && view.instructions().next().is_none() {
        // Well-formed bytes of another message (a `ShapeProto`, a
        // memory-usage report) read as a module hold no instruction: every
        // module XLA writes has at least its entry's root.
        return Err(Error::new(
            ErrorKind::Decode,
            format!(
                "not an HLO module: {} bytes read as {} hold no instruction \
                 ({} computations; top level: {})",
                bytes.len(),
                message.full_name(),
                view.computations.len(),
                top_fields(bytes)
            ),
        ));
    }
    if !assignment_parts.is_empty() {
        // In `HloProto.buffer_assignment`, inside the wrappers around it.
        let proto_level = wrappers.len() - 1;
        let mut buffers = BufferAssignment::default();
        for part in assignment_parts {
            assignment::read(&mut buffers, part, wrappers.len()).map_err(|e| {
                let e = Error::from(e)
                    .in_context(ErrorContext::new("xla.BufferAssignmentProto"))
                    .in_context(ErrorContext::new("xla.HloProto").in_field("buffer_assignment"));
                within(e, &wrappers[..proto_level])
            })?;
        }
        view.buffer_assignment = Some(buffers);
    }
    Ok(view)
}

/// A `ShapeProto` as written: protobuf text format on one line (unknown
/// fields kept, as Google's runtime prints them), or the hex bytes without
/// the `formats` feature.
fn written(bytes: &[u8]) -> String {
    #[cfg(feature = "formats")]
    if let Ok(m) = crate::formats::LosslessMessage::decode_as::<crate::proto::ShapeProto>(bytes) {
        return m.to_text_format_one_line();
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
