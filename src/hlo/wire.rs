//! Decoding binary modules into the view, straight from the bytes.
//!
//! The walk goes HloModuleProto -> computations -> instructions over the
//! crate's protobuf byte layer and reads only the fields the view needs
//! (numbers in `protobuf::fields`, checked against
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

use super::{HloComputation, HloInstruction, HloModule, ModuleSource, Rejected};
use crate::error::{Error, ErrorKind, Result};
use crate::limits::MAX_NESTING_DEPTH;
use crate::model::{ProgramShape, Shape};
use crate::protobuf::fields::{hlo_computation, hlo_instruction, hlo_module, hlo_wrapper};
use crate::protobuf::{DECODE_CONTEXT, Reader, WireError, WireResult, WireType};

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
    let mut found = Vec::new();
    let mut r = Reader::new(bytes);
    while !r.at_end() {
        let (number, wire) = r.key()?;
        if (number, wire) == (hlo_wrapper::WRAPPED, WireType::LengthDelimited) {
            found.push(r.len_delimited()?);
        } else {
            r.skip(number, wire, 0, MAX_NESTING_DEPTH)?;
        }
    }
    Ok(found)
}

/// Whether a field-1 value reads as a module name rather than a message.
fn is_name(value: &[u8]) -> bool {
    std::str::from_utf8(value).is_ok_and(|s| !s.chars().any(char::is_control))
}

/// Why a module could not be read, before it is named.
enum Failure {
    Wire(WireError),
    NotUtf8,
    Shape(Error),
}

impl From<WireError> for Failure {
    fn from(e: WireError) -> Failure {
        Failure::Wire(e)
    }
}

type Walked<T> = std::result::Result<T, Failure>;

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
fn utf8(bytes: &[u8]) -> Walked<&str> {
    std::str::from_utf8(bytes).map_err(|_| Failure::NotUtf8)
}

/// A result shape as the view holds it.
type ShapeAnswer = std::result::Result<Shape, Rejected>;

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
}

impl<'a> ModuleWalk<'a> {
    /// Reads the fields of `HloModuleProto` bytes (depth 0).
    fn module(&mut self, bytes: &'a [u8]) -> Walked<()> {
        let mut r = Reader::new(bytes);
        while !r.at_end() {
            let (number, wire) = r.key()?;
            match (number, wire) {
                (hlo_module::NAME, WireType::LengthDelimited) => {
                    self.name = r.len_delimited()?;
                    utf8(self.name)?;
                }
                (hlo_module::ENTRY_COMPUTATION_NAME, WireType::LengthDelimited) => {
                    self.entry_computation_name = r.len_delimited()?;
                    utf8(self.entry_computation_name)?;
                }
                (hlo_module::COMPUTATIONS, WireType::LengthDelimited) => {
                    self.computation(r.len_delimited()?)?;
                }
                (hlo_module::HOST_PROGRAM_SHAPE, WireType::LengthDelimited) => {
                    merge(&mut self.host_program_shape, r.len_delimited()?);
                }
                (hlo_module::ENTRY_COMPUTATION_ID, WireType::Varint) => {
                    self.entry_computation_id = r.varint()? as i64;
                }
                _ => r.skip(number, wire, 0, MAX_NESTING_DEPTH)?,
            }
        }
        Ok(())
    }

    /// Reads one `HloComputationProto` (depth 1).
    fn computation(&mut self, bytes: &'a [u8]) -> Walked<()> {
        let mut name: &[u8] = &[];
        let (mut id, mut root_id) = (0i64, 0i64);
        let mut program_shape = None;
        let mut instructions = Vec::new();
        let mut r = Reader::new(bytes);
        while !r.at_end() {
            let (number, wire) = r.key()?;
            match (number, wire) {
                (hlo_computation::NAME, WireType::LengthDelimited) => {
                    name = r.len_delimited()?;
                    utf8(name)?;
                }
                (hlo_computation::INSTRUCTIONS, WireType::LengthDelimited) => {
                    instructions.push(self.instruction(r.len_delimited()?)?);
                }
                (hlo_computation::PROGRAM_SHAPE, WireType::LengthDelimited) => {
                    merge(&mut program_shape, r.len_delimited()?);
                }
                (hlo_computation::ID, WireType::Varint) => id = r.varint()? as i64,
                (hlo_computation::ROOT_ID, WireType::Varint) => root_id = r.varint()? as i64,
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
    }

    /// Reads one `HloInstructionProto` (depth 2).
    fn instruction(&mut self, bytes: &'a [u8]) -> Walked<HloInstruction> {
        let (mut name, mut opcode): (&[u8], &[u8]) = (&[], &[]);
        let mut shape = None;
        let mut id = 0i64;
        let mut operand_ids = Vec::new();
        let mut r = Reader::new(bytes);
        while !r.at_end() {
            let (number, wire) = r.key()?;
            let known = match (number, wire) {
                (hlo_instruction::NAME, WireType::LengthDelimited) => {
                    name = r.len_delimited()?;
                    true
                }
                (hlo_instruction::OPCODE, WireType::LengthDelimited) => {
                    opcode = r.len_delimited()?;
                    true
                }
                (hlo_instruction::SHAPE, WireType::LengthDelimited) => {
                    merge(&mut shape, r.len_delimited()?);
                    true
                }
                (hlo_instruction::ID, WireType::Varint) => {
                    id = r.varint()? as i64;
                    true
                }
                (hlo_instruction::OPERAND_IDS, _) => r.repeated_varint(wire, &mut operand_ids)?,
                _ => false,
            };
            if !known {
                r.skip(number, wire, 2, MAX_NESTING_DEPTH)?;
            }
        }
        Ok(HloInstruction {
            name: utf8(name)?.to_owned(),
            opcode: utf8(opcode)?.to_owned(),
            shape: self.shape(shape.unwrap_or(Cow::Borrowed(&[])))?,
            id: Some(id),
            operand_ids,
            operands: None,
            location: None,
        })
    }

    /// The answer for a `ShapeProto`'s bytes: looked up, or read (and kept)
    /// the first time they are seen.
    fn shape(&mut self, bytes: Cow<'a, [u8]>) -> Walked<ShapeAnswer> {
        if let Some(answer) = self.shapes.get(bytes.as_ref()) {
            return Ok(answer.clone());
        }
        let answer = match Shape::from_proto_bytes(&bytes) {
            Ok(shape) => Ok(shape),
            Err(error) if error.kind() == ErrorKind::Decode => return Err(Failure::Shape(error)),
            Err(error) => Err(Rejected {
                written: written(&bytes),
                error,
            }),
        };
        self.shapes.insert(bytes, answer.clone());
        Ok(answer)
    }

    fn into_view(self, message: ModuleMessage) -> Walked<HloModule> {
        let ModuleWalk {
            name,
            entry_computation_name,
            entry_computation_id,
            host_program_shape,
            computations,
            program_shapes,
            ..
        } = self;
        let entry = computations.iter().position(|c| {
            if entry_computation_id != 0 || entry_computation_name.is_empty() {
                c.id == Some(entry_computation_id)
            } else {
                c.name.as_bytes() == entry_computation_name
            }
        });
        let program_shape = |bytes: Option<&Cow<'_, [u8]>>| {
            bytes
                .map(|b| ProgramShape::from_proto_bytes(b))
                .transpose()
                .map_err(Failure::Shape)
        };
        let program = match entry {
            Some(i) => program_shape(program_shapes.get(i).and_then(Option::as_ref))?,
            None => None,
        };
        Ok(HloModule {
            name: utf8(name)?.to_owned(),
            computations,
            entry,
            program_shape: program,
            entry_computation_layout: program_shape(host_program_shape.as_ref())?,
            source: ModuleSource::Proto(message),
        })
    }
}

pub(super) fn read(message: ModuleMessage, bytes: &[u8]) -> Result<HloModule> {
    walk(message, bytes).map_err(|failure| {
        let detail = match failure {
            Failure::Wire(e) => Error::from(e).to_string(),
            Failure::NotUtf8 => {
                format!("{DECODE_CONTEXT}invalid string value: data is not UTF-8 encoded")
            }
            Failure::Shape(e) => e.to_string(),
        };
        Error::new(
            ErrorKind::Decode,
            format!("not a valid {}: {detail}", message.full_name()),
        )
    })
}

fn walk(message: ModuleMessage, bytes: &[u8]) -> Walked<HloModule> {
    // `HloProto.hlo_module` and `HloSnapshot.hlo` are field 1. Every
    // occurrence is a part of the one message they hold, merged in order:
    // the module is walked over its parts in turn, as over their
    // concatenation. Nothing is copied.
    let levels = match message {
        ModuleMessage::Module => 0,
        ModuleMessage::Proto => 1,
        ModuleMessage::Snapshot => 2,
    };
    let mut parts = vec![bytes];
    for _ in 0..levels {
        let mut inner = Vec::with_capacity(parts.len());
        for part in parts {
            inner.extend(field_one(part)?);
        }
        parts = inner;
    }
    let mut module = ModuleWalk::default();
    for part in parts {
        module.module(part)?;
    }
    module.into_view(message)
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
