//! Decoding binary modules into the view.
//!
//! The messages below (named as the schema's, so that decode errors name
//! them as Google's runtime does) declare only the fields the view reads, with the
//! numbers of `proto/xla/service/hlo.proto` (checked against the full
//! generated types by `tests/hlo_module.rs`); prost skips every other field
//! without building it, so a module is decoded once, in time linear in its
//! size, and the view takes the decoded strings and shapes by move.

use prost::Message;
use prost::bytes::Buf;
use prost::encoding::{WireType, decode_key, decode_varint};

use super::{HloComputation, HloInstruction, HloModule, ModuleSource, Recent, Rejected};
use crate::error::{Error, ErrorKind, Result};
use crate::model::{ProgramShape, Shape};
use crate::proto::{ProgramShapeProto, ShapeProto};

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
            match field_one(current).as_deref() {
                Some([.., inner]) if !is_name(inner) => current = inner,
                _ => return message,
            }
        }
        ModuleMessage::Snapshot
    }
}

/// The values of the length-delimited fields 1 at the top level of `bytes`,
/// in order, if they are a well-formed message.
fn field_one(mut buf: &[u8]) -> Option<Vec<&[u8]>> {
    let mut found = Vec::new();
    while buf.has_remaining() {
        let (number, wire_type) = decode_key(&mut buf).ok()?;
        match wire_type {
            WireType::Varint => {
                decode_varint(&mut buf).ok()?;
            }
            WireType::SixtyFourBit => buf = buf.get(8..)?,
            WireType::ThirtyTwoBit => buf = buf.get(4..)?,
            WireType::LengthDelimited => {
                let len = usize::try_from(decode_varint(&mut buf).ok()?).ok()?;
                let (value, rest) = (buf.get(..len)?, buf.get(len..)?);
                if number == 1 {
                    found.push(value);
                }
                buf = rest;
            }
            WireType::StartGroup | WireType::EndGroup => return None,
        }
    }
    Some(found)
}

/// Whether a field-1 value reads as a module name rather than a message.
fn is_name(value: &[u8]) -> bool {
    std::str::from_utf8(value).is_ok_and(|s| !s.chars().any(char::is_control))
}

#[derive(Clone, PartialEq, Message)]
struct HloInstructionProto {
    #[prost(string, tag = "1")]
    name: String,
    #[prost(string, tag = "2")]
    opcode: String,
    #[prost(message, optional, tag = "3")]
    shape: Option<ShapeProto>,
    #[prost(int64, tag = "35")]
    id: i64,
    #[prost(int64, repeated, tag = "36")]
    operand_ids: Vec<i64>,
}

#[derive(Clone, PartialEq, Message)]
struct HloComputationProto {
    #[prost(string, tag = "1")]
    name: String,
    #[prost(message, repeated, tag = "2")]
    instructions: Vec<HloInstructionProto>,
    #[prost(message, optional, tag = "4")]
    program_shape: Option<ProgramShapeProto>,
    #[prost(int64, tag = "5")]
    id: i64,
    #[prost(int64, tag = "6")]
    root_id: i64,
}

#[derive(Clone, PartialEq, Message)]
struct HloModuleProto {
    #[prost(string, tag = "1")]
    name: String,
    #[prost(string, tag = "2")]
    entry_computation_name: String,
    #[prost(message, repeated, tag = "3")]
    computations: Vec<HloComputationProto>,
    #[prost(message, optional, tag = "4")]
    host_program_shape: Option<ProgramShapeProto>,
    #[prost(int64, tag = "6")]
    entry_computation_id: i64,
}

/// No field: decoding it checks that bytes are a well-formed message.
#[derive(Clone, PartialEq, Message)]
struct AnyMessage {}

pub(super) fn read(message: ModuleMessage, bytes: &[u8]) -> Result<HloModule> {
    let decode_error = |e: prost::DecodeError| {
        Error::new(
            ErrorKind::Decode,
            format!("not a valid {}: {e}", message.full_name()),
        )
    };
    // `HloProto.hlo_module` and `HloSnapshot.hlo` are field 1. The module is
    // decoded from sub-slices of the input, merged in order as protobuf
    // merges repeated occurrences of a message field; nothing is copied.
    let levels = match message {
        ModuleMessage::Module => 0,
        ModuleMessage::Proto => 1,
        ModuleMessage::Snapshot => 2,
    };
    let mut parts = vec![bytes];
    for _ in 0..levels {
        let mut inner = Vec::with_capacity(parts.len());
        for part in parts {
            match field_one(part) {
                Some(values) => inner.extend(values),
                None => {
                    let e = AnyMessage::decode(part).err();
                    return Err(e.map_or_else(
                        || {
                            Error::new(
                                ErrorKind::Decode,
                                format!("not a valid {}", message.full_name()),
                            )
                        },
                        decode_error,
                    ));
                }
            }
        }
        parts = inner;
    }
    let mut module = HloModuleProto::default();
    for part in parts {
        module.merge(part).map_err(decode_error)?;
    }
    into_view(module, message)
}

fn program_shape(p: Option<ProgramShapeProto>) -> Result<Option<ProgramShape>> {
    p.as_ref().map(ProgramShape::try_from).transpose()
}

fn into_view(module: HloModuleProto, message: ModuleMessage) -> Result<HloModule> {
    let mut shapes = Recent::new();
    let mut entry = None;
    let mut program = None;
    let mut computations = Vec::with_capacity(module.computations.len());
    for (index, c) in module.computations.into_iter().enumerate() {
        let is_entry =
            if module.entry_computation_id != 0 || module.entry_computation_name.is_empty() {
                c.id == module.entry_computation_id
            } else {
                c.name == module.entry_computation_name
            };
        if is_entry && entry.is_none() {
            entry = Some(index);
            program = program_shape(c.program_shape)?;
        }
        let mut root = None;
        let instructions = c
            .instructions
            .into_iter()
            .enumerate()
            .map(|(i, instruction)| {
                if instruction.id == c.root_id {
                    root = Some(i);
                }
                into_instruction(instruction, &mut shapes)
            })
            .collect();
        computations.push(HloComputation {
            name: c.name,
            id: Some(c.id),
            instructions,
            root,
            location: None,
        });
    }
    Ok(HloModule {
        name: module.name,
        computations,
        entry,
        program_shape: program,
        entry_computation_layout: program_shape(module.host_program_shape)?,
        source: ModuleSource::Proto(message),
    })
}

fn into_instruction(
    i: HloInstructionProto,
    shapes: &mut Recent<ShapeProto, std::result::Result<Shape, Rejected>>,
) -> HloInstruction {
    let proto = i.shape.unwrap_or_default();
    let shape = shapes.get(&proto, |proto| match Shape::try_from(proto) {
        Ok(shape) => Ok(shape),
        Err(error) => Err(Rejected {
            written: written(proto),
            error,
        }),
    });
    HloInstruction {
        name: i.name,
        opcode: i.opcode,
        shape,
        id: Some(i.id),
        operand_ids: i.operand_ids,
        operands: None,
        location: None,
    }
}

/// A `ShapeProto` as written: protobuf text format on one line, or prost's
/// debug form without the `formats` feature.
fn written(proto: &ShapeProto) -> String {
    #[cfg(feature = "formats")]
    return crate::formats::to_text_format_one_line(proto);
    #[cfg(not(feature = "formats"))]
    return format!("{proto:?}");
}
