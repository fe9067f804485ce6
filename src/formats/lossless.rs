//! Lossless decoding: every message level keeps the fields the schema does
//! not know, and writes them back after the known fields, as Google's
//! runtimes (C++, upb) do.

use std::collections::{BTreeMap, HashMap};

use bytes::{Buf, BufMut};
use prost::encoding::{self, WireType};
use prost_reflect::{
    DynamicMessage, FieldDescriptor, MapKey, MessageDescriptor, ReflectMessage, Value,
};

use crate::MAX_NESTING_DEPTH;
use crate::error::{Error, ErrorKind, Result};
use crate::formats::retired::{self, RetiredField};
use crate::formats::wire::{
    Decoder, encode_entry, encode_value, entry_kinds, entry_len, len_delimited_len, value_len,
    wire_type_of,
};
use crate::formats::{JsonOptions, json, text_format};

/// A protobuf message decoded without losing anything: the fields the
/// schema knows, and at every nesting level the fields it does not know
/// (written by a newer XLA, or retired from the schema like LayoutProto's
/// `padded_dimensions`), kept byte for byte in the order they came.
///
/// [`encode_to_vec`](Self::encode_to_vec) writes what Google's runtime
/// writes for the same input: known fields in field-number order (repeated
/// numbers packed, the last value of a singular field, messages given
/// twice merged), then the unknown fields as they arrived. For bytes that
/// Google's runtime wrote itself that is the input again, so a file
/// written by a newer XLA survives a round trip unchanged.
///
/// ```
/// use xla_shape::formats::LosslessMessage;
/// use xla_shape::proto::ShapeProto;
///
/// // f32[2] with a field 20 (varint 5) this schema does not know.
/// let bytes = [0x10, 0x0b, 0xa0, 0x01, 0x05, 0x1a, 0x01, 0x02];
/// let m = LosslessMessage::decode_as::<ShapeProto>(&bytes[..])?;
/// assert!(m.has_unknown_fields());
/// // Known fields first, then the unknown one, as Google's runtime writes.
/// assert_eq!(m.encode_to_vec(), [0x10, 0x0b, 0x1a, 0x01, 0x02, 0xa0, 0x01, 0x05]);
/// // JSON and text format show the known fields, as Google's do.
/// assert_eq!(m.to_json(&Default::default()), r#"{"elementType":"F32","dimensions":["2"]}"#);
/// # Ok::<(), xla_shape::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct LosslessMessage {
    pub(crate) descriptor: MessageDescriptor,
    pub(crate) fields: BTreeMap<u32, (FieldDescriptor, Field)>,
    pub(crate) unknown: Vec<u8>,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Field {
    /// A singular non-message value (enums as numbers).
    Scalar(Value),
    /// A singular message.
    Message(Box<LosslessMessage>),
    /// A repeated non-message field, never empty.
    List(Vec<Value>),
    /// A repeated message field, never empty.
    Messages(Vec<LosslessMessage>),
    /// A map field, never empty.
    Map(BTreeMap<MapKey, MapValue>),
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum MapValue {
    Scalar(Value),
    Message(LosslessMessage),
}

impl LosslessMessage {
    /// An empty message of the type `descriptor` describes.
    pub fn new(descriptor: MessageDescriptor) -> Self {
        LosslessMessage {
            descriptor,
            fields: BTreeMap::new(),
            unknown: Vec::new(),
        }
    }

    /// Decodes `buf` as a message of the type `descriptor` describes.
    ///
    /// # Errors
    ///
    /// [`Decode`](ErrorKind::Decode) for bytes that Google's runtime
    /// rejects too: truncated input, a bad tag or wire type, a string
    /// field that is not UTF-8, messages nested more than 100 levels below
    /// the outermost one. A known field with the wrong wire type is not an
    /// error: like Google's runtime, it is kept as an unknown field.
    pub fn decode(descriptor: MessageDescriptor, mut buf: impl Buf) -> Result<Self> {
        let bytes = buf.copy_to_bytes(buf.remaining());
        Self::decode_limited(descriptor, &bytes, MAX_NESTING_DEPTH)
    }

    /// Decodes `buf` as a message of type `M`.
    ///
    /// # Errors
    ///
    /// As [`decode`](Self::decode).
    pub fn decode_as<M: ReflectMessage + Default>(buf: impl Buf) -> Result<Self> {
        Self::decode(M::default().descriptor(), buf)
    }

    pub(crate) fn decode_limited(
        descriptor: MessageDescriptor,
        bytes: &[u8],
        max_depth: usize,
    ) -> Result<Self> {
        let mut message = LosslessMessage::new(descriptor);
        Decoder { max_depth }.merge(&mut message, bytes, 0)?;
        Ok(message)
    }

    /// `message` as its encoding has it: the generated types hold no
    /// unknown fields; a [`DynamicMessage`] keeps those it was decoded
    /// with (grouped by field number).
    pub fn from_message<M: ReflectMessage>(message: &M) -> Self {
        let bytes = message.encode_to_vec();
        // The bytes are prost's encoding of a message of this very type:
        // well-formed, with valid UTF-8 strings. A message built in memory
        // may nest deeper than decoding allows input to; encoding it has
        // already recursed as deep.
        Self::decode_limited(message.descriptor(), &bytes, usize::MAX)
            .expect("prost's encoding of a message decodes as that message")
    }

    /// The message type.
    pub fn descriptor(&self) -> &MessageDescriptor {
        &self.descriptor
    }

    /// The unknown fields of this message level (not of nested messages),
    /// as they were on the wire, in the order they came.
    pub fn unknown_fields(&self) -> &[u8] {
        &self.unknown
    }

    /// Whether this message or any message nested in it has unknown
    /// fields.
    pub fn has_unknown_fields(&self) -> bool {
        !self.unknown.is_empty()
            || self.fields.values().any(|(_, f)| match f {
                Field::Message(m) => m.has_unknown_fields(),
                Field::Messages(ms) => ms.iter().any(|m| m.has_unknown_fields()),
                Field::Map(entries) => entries.values().any(|v| match v {
                    MapValue::Message(m) => m.has_unknown_fields(),
                    MapValue::Scalar(_) => false,
                }),
                Field::Scalar(_) | Field::List(_) => false,
            })
    }

    /// A copy without any unknown fields, at every level.
    pub fn without_unknown_fields(&self) -> Self {
        let mut copy = self.clone();
        copy.strip_unknown();
        copy
    }

    fn strip_unknown(&mut self) {
        self.unknown.clear();
        for (_, f) in self.fields.values_mut() {
            match f {
                Field::Message(m) => m.strip_unknown(),
                Field::Messages(ms) => ms.iter_mut().for_each(Self::strip_unknown),
                Field::Map(entries) => {
                    for v in entries.values_mut() {
                        if let MapValue::Message(m) = v {
                            m.strip_unknown();
                        }
                    }
                }
                Field::Scalar(_) | Field::List(_) => {}
            }
        }
    }

    pub(crate) fn fields(&self) -> impl Iterator<Item = (&FieldDescriptor, &Field)> {
        self.fields.values().map(|(d, f)| (d, f))
    }

    /// The known fields as a prost-reflect [`DynamicMessage`] (unknown
    /// fields are left out).
    pub fn to_dynamic(&self) -> DynamicMessage {
        let mut m = DynamicMessage::new(self.descriptor.clone());
        for (desc, field) in self.fields.values() {
            let value = match field {
                Field::Scalar(v) => v.clone(),
                Field::Message(msg) => Value::Message(msg.to_dynamic()),
                Field::List(vs) => Value::List(vs.clone()),
                Field::Messages(ms) => {
                    Value::List(ms.iter().map(|m| Value::Message(m.to_dynamic())).collect())
                }
                Field::Map(entries) => Value::Map(
                    entries
                        .iter()
                        .map(|(k, v)| {
                            let v = match v {
                                MapValue::Scalar(v) => v.clone(),
                                MapValue::Message(m) => Value::Message(m.to_dynamic()),
                            };
                            (k.clone(), v)
                        })
                        .collect::<HashMap<_, _>>(),
                ),
            };
            m.set_field(desc, value);
        }
        m
    }

    /// The known fields as a message of type `M` (prost drops the unknown
    /// ones).
    ///
    /// # Errors
    ///
    /// [`InvalidArgument`](ErrorKind::InvalidArgument) if `M` is not the
    /// type of this message; [`Decode`](ErrorKind::Decode) if the message,
    /// built in memory, nests deeper than prost decodes.
    pub fn to_message<M: ReflectMessage + Default>(&self) -> Result<M> {
        let expected = M::default().descriptor();
        if expected.full_name() != self.descriptor.full_name() {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                format!(
                    "a {} cannot be read as a {}",
                    self.descriptor.full_name(),
                    expected.full_name()
                ),
            ));
        }
        Ok(M::decode(self.encode_to_vec().as_slice())?)
    }

    /// The canonical proto3 JSON of the known fields, as Google's
    /// `MessageToJson` writes it (it leaves unknown fields out).
    pub fn to_json(&self, options: &JsonOptions) -> String {
        json::lossless_to_json(self, options)
    }

    /// The text format of the known fields, as Google's `MessageToString`
    /// writes it (it leaves unknown fields out).
    pub fn to_text_format(&self) -> String {
        text_format::lossless_to_text(self, false)
    }

    /// The one-line text format of the known fields
    /// (`MessageToString(..., as_one_line=True)`).
    pub fn to_text_format_one_line(&self) -> String {
        text_format::lossless_to_text(self, true)
    }

    /// The fields retired from the schema that this message carries, at
    /// any nesting level; see [`retired_fields`](crate::formats::retired_fields).
    pub fn retired_fields(&self) -> Vec<RetiredField> {
        let mut found = Vec::new();
        retired::collect(self, &mut String::new(), &mut found);
        found
    }

    /// The encoded message: known fields in field-number order, then this
    /// level's unknown fields as they came.
    pub fn encode_to_vec(&self) -> Vec<u8> {
        let mut buf = Vec::with_capacity(self.encoded_len());
        self.encode_raw(&mut buf);
        buf
    }

    /// Appends the encoded message to `buf`.
    pub fn encode(&self, buf: &mut impl BufMut) {
        self.encode_raw(buf);
    }

    /// The length of [`encode_to_vec`](Self::encode_to_vec)'s output.
    pub fn encoded_len(&self) -> usize {
        let mut len = self.unknown.len();
        for (desc, field) in self.fields.values() {
            let number = desc.number();
            let kind = desc.kind();
            len += match field {
                Field::Scalar(v) => encoding::key_len(number) + value_len(v, &kind),
                Field::Message(m) => len_delimited_len(number, m.encoded_len()),
                Field::List(vs) if desc.is_packed() => {
                    len_delimited_len(number, vs.iter().map(|v| value_len(v, &kind)).sum())
                }
                Field::List(vs) => vs
                    .iter()
                    .map(|v| encoding::key_len(number) + value_len(v, &kind))
                    .sum(),
                Field::Messages(ms) => ms
                    .iter()
                    .map(|m| len_delimited_len(number, m.encoded_len()))
                    .sum(),
                Field::Map(entries) => match entry_kinds(&kind) {
                    Some(kinds) => entries
                        .iter()
                        .map(|(k, v)| len_delimited_len(number, entry_len(&kinds, k, v)))
                        .sum(),
                    None => 0,
                },
            };
        }
        len
    }

    pub(crate) fn encode_raw(&self, buf: &mut impl BufMut) {
        for (desc, field) in self.fields.values() {
            let number = desc.number();
            let kind = desc.kind();
            match field {
                Field::Scalar(v) => {
                    encoding::encode_key(number, wire_type_of(&kind), buf);
                    encode_value(v, &kind, buf);
                }
                Field::Message(m) => {
                    encoding::encode_key(number, WireType::LengthDelimited, buf);
                    encoding::encode_varint(m.encoded_len() as u64, buf);
                    m.encode_raw(buf);
                }
                Field::List(vs) if desc.is_packed() => {
                    encoding::encode_key(number, WireType::LengthDelimited, buf);
                    let len: usize = vs.iter().map(|v| value_len(v, &kind)).sum();
                    encoding::encode_varint(len as u64, buf);
                    vs.iter().for_each(|v| encode_value(v, &kind, buf));
                }
                Field::List(vs) => {
                    let wire = wire_type_of(&kind);
                    for v in vs {
                        encoding::encode_key(number, wire, buf);
                        encode_value(v, &kind, buf);
                    }
                }
                Field::Messages(ms) => {
                    for m in ms {
                        encoding::encode_key(number, WireType::LengthDelimited, buf);
                        encoding::encode_varint(m.encoded_len() as u64, buf);
                        m.encode_raw(buf);
                    }
                }
                Field::Map(entries) => {
                    if let Some(kinds) = entry_kinds(&kind) {
                        for (k, v) in entries {
                            encoding::encode_key(number, WireType::LengthDelimited, buf);
                            encoding::encode_varint(entry_len(&kinds, k, v) as u64, buf);
                            encode_entry(&kinds, k, v, buf);
                        }
                    }
                }
            }
        }
        buf.put_slice(&self.unknown);
    }
}
