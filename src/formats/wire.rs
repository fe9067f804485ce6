//! The wire format under [`LosslessMessage`]: reading fields as Google's
//! runtimes do (unknown numbers and wrong wire types kept as unknown
//! fields, messages merged, the last scalar winning, oneofs cleared), and
//! writing values by their field's kind.

use std::collections::BTreeMap;
use std::fmt;

use bytes::{Buf, BufMut, Bytes};
use prost::encoding::{self, WireType};
use prost_reflect::{
    Cardinality, FieldDescriptor, Kind, MapKey, MessageDescriptor, ReflectMessage, Value,
};

use crate::error::{Error, ErrorKind, Nesting, Result};
use crate::formats::is_default_value;
use crate::formats::lossless::{Field, LosslessMessage, MapValue, ScalarList};
use crate::limits::MAX_NESTING_DEPTH;
use crate::protobuf::map_entry;
use crate::protobuf::{DECODE_CONTEXT, Reader};

pub(crate) fn len_delimited_len(number: u32, len: usize) -> usize {
    encoding::key_len(number) + encoding::encoded_len_varint(len as u64) + len
}

/// The kinds of a map entry's key and value.
pub(crate) fn entry_kinds(kind: &Kind) -> Option<(Kind, Kind)> {
    match kind {
        Kind::Message(entry) => Some((
            entry.map_entry_key_field().kind(),
            entry.map_entry_value_field().kind(),
        )),
        _ => None,
    }
}

/// A map entry is written with both its key and its value, even when they
/// hold their defaults, as Google's runtimes write it.
pub(crate) fn entry_len(kinds: &(Kind, Kind), key: &MapKey, value: &MapValue) -> usize {
    let key_len =
        encoding::key_len(map_entry::KEY) + value_len(&Value::from(key.clone()), &kinds.0);
    key_len
        + match value {
            MapValue::Scalar(v) => encoding::key_len(map_entry::VALUE) + value_len(v, &kinds.1),
            MapValue::Message(m) => len_delimited_len(map_entry::VALUE, m.encoded_len()),
        }
}

pub(crate) fn encode_entry(
    kinds: &(Kind, Kind),
    key: &MapKey,
    value: &MapValue,
    buf: &mut impl BufMut,
) {
    encoding::encode_key(map_entry::KEY, wire_type_of(&kinds.0), buf);
    encode_value(&Value::from(key.clone()), &kinds.0, buf);
    match value {
        MapValue::Scalar(v) => {
            encoding::encode_key(map_entry::VALUE, wire_type_of(&kinds.1), buf);
            encode_value(v, &kinds.1, buf);
        }
        MapValue::Message(m) => {
            encoding::encode_key(map_entry::VALUE, WireType::LengthDelimited, buf);
            encoding::encode_varint(m.encoded_len() as u64, buf);
            m.encode_raw(buf);
        }
    }
}

pub(crate) fn wire_type_of(kind: &Kind) -> WireType {
    match kind {
        Kind::Double | Kind::Fixed64 | Kind::Sfixed64 => WireType::SixtyFourBit,
        Kind::Float | Kind::Fixed32 | Kind::Sfixed32 => WireType::ThirtyTwoBit,
        Kind::String | Kind::Bytes | Kind::Message(_) => WireType::LengthDelimited,
        Kind::Int32
        | Kind::Int64
        | Kind::Uint32
        | Kind::Uint64
        | Kind::Sint32
        | Kind::Sint64
        | Kind::Bool
        | Kind::Enum(_) => WireType::Varint,
    }
}

pub(crate) fn value_len(v: &Value, kind: &Kind) -> usize {
    match Stored::of(v, kind) {
        Stored::Varint(n) => encoding::encoded_len_varint(n),
        Stored::Fixed32(_) => 4,
        Stored::Fixed64(_) => 8,
        Stored::Bytes(b) => encoding::encoded_len_varint(b.len() as u64) + b.len(),
    }
}

pub(crate) fn encode_value(v: &Value, kind: &Kind, buf: &mut impl BufMut) {
    match Stored::of(v, kind) {
        Stored::Varint(n) => encoding::encode_varint(n, buf),
        Stored::Fixed32(n) => buf.put_u32_le(n),
        Stored::Fixed64(n) => buf.put_u64_le(n),
        Stored::Bytes(b) => {
            encoding::encode_varint(b.len() as u64, buf);
            buf.put_slice(b);
        }
    }
}

/// How a non-message value of a field of `kind` is written on the wire.
enum Stored<'a> {
    Varint(u64),
    Fixed32(u32),
    Fixed64(u64),
    Bytes(&'a [u8]),
}

impl<'a> Stored<'a> {
    fn of(v: &'a Value, kind: &Kind) -> Stored<'a> {
        match (v, kind) {
            (Value::I32(n), Kind::Sint32) => {
                Stored::Varint(u64::from(((n << 1) ^ (n >> 31)) as u32))
            }
            (Value::I64(n), Kind::Sint64) => Stored::Varint(((n << 1) ^ (n >> 63)) as u64),
            (Value::I32(n), Kind::Sfixed32) => Stored::Fixed32(*n as u32),
            (Value::U32(n), Kind::Fixed32) => Stored::Fixed32(*n),
            (Value::I64(n), Kind::Sfixed64) => Stored::Fixed64(*n as u64),
            (Value::U64(n), Kind::Fixed64) => Stored::Fixed64(*n),
            (Value::F32(f), _) => Stored::Fixed32(f.to_bits()),
            (Value::F64(f), _) => Stored::Fixed64(f.to_bits()),
            (Value::Bool(b), _) => Stored::Varint(u64::from(*b)),
            // int32 and enums are sign-extended to ten bytes when negative.
            (Value::I32(n), _) | (Value::EnumNumber(n), _) => Stored::Varint(*n as i64 as u64),
            (Value::I64(n), _) => Stored::Varint(*n as u64),
            (Value::U32(n), _) => Stored::Varint(u64::from(*n)),
            (Value::U64(n), _) => Stored::Varint(*n),
            (Value::String(s), _) => Stored::Bytes(s.as_bytes()),
            (Value::Bytes(b), _) => Stored::Bytes(b),
            // Messages, lists and maps are never stored as scalars.
            (Value::Message(_) | Value::List(_) | Value::Map(_), _) => Stored::Bytes(&[]),
        }
    }
}

pub(crate) struct Decoder {
    /// Messages allowed below the outermost one.
    pub(crate) max_depth: usize,
}

fn decode_error(message: impl fmt::Display) -> Error {
    Error::new(ErrorKind::Decode, format!("{DECODE_CONTEXT}{message}"))
}

fn too_deep() -> Error {
    Error::too_deep(ErrorKind::Decode, DECODE_CONTEXT, Nesting::Messages)
}

/// A field key with its wire type checked.
fn read_key(r: &mut Reader<'_>) -> Result<(u32, WireType)> {
    Ok(r.key()?)
}

/// Skips a field's value; groups count towards `max_depth`.
fn skip_field(
    r: &mut Reader<'_>,
    number: u32,
    wire: WireType,
    depth: usize,
    max_depth: usize,
) -> Result<()> {
    Ok(r.skip(number, wire, depth, max_depth)?)
}

/// Reads one non-message value of a field of `kind` (the wire type has
/// been checked against the kind).
fn scalar(kind: &Kind, r: &mut Reader<'_>) -> Result<Value> {
    Ok(match kind {
        Kind::Int32 => Value::I32(r.varint()? as i32),
        Kind::Int64 => Value::I64(r.varint()? as i64),
        Kind::Uint32 => Value::U32(r.varint()? as u32),
        Kind::Uint64 => Value::U64(r.varint()?),
        Kind::Sint32 => {
            let n = r.varint()? as u32;
            Value::I32(((n >> 1) as i32) ^ -((n & 1) as i32))
        }
        Kind::Sint64 => {
            let n = r.varint()?;
            Value::I64(((n >> 1) as i64) ^ -((n & 1) as i64))
        }
        Kind::Bool => Value::Bool(r.varint()? != 0),
        Kind::Enum(_) => Value::EnumNumber(r.varint()? as i32),
        Kind::Fixed32 => Value::U32(r.fixed32()?),
        Kind::Sfixed32 => Value::I32(r.fixed32()? as i32),
        Kind::Float => Value::F32(f32::from_bits(r.fixed32()?)),
        Kind::Fixed64 => Value::U64(r.fixed64()?),
        Kind::Sfixed64 => Value::I64(r.fixed64()? as i64),
        Kind::Double => Value::F64(f64::from_bits(r.fixed64()?)),
        Kind::String => {
            let b = r.len_delimited()?;
            let s = std::str::from_utf8(b)
                .map_err(|_| decode_error("invalid string value: data is not UTF-8 encoded"))?;
            Value::String(s.to_owned())
        }
        Kind::Bytes => Value::Bytes(Bytes::copy_from_slice(r.len_delimited()?)),
        // Messages are decoded by the caller.
        Kind::Message(_) => return Err(decode_error("unexpected message value")),
    })
}

/// Whether a field of `desc` may be read from wire type `wire`; anything
/// else is kept as an unknown field, as Google's runtimes do.
fn accepts(desc: &FieldDescriptor, kind: &Kind, repeated: bool, wire: WireType) -> bool {
    if desc.is_group() {
        return false;
    }
    let natural = wire_type_of(kind);
    if repeated && natural != WireType::LengthDelimited {
        // Packed or not, whatever the schema says.
        return wire == natural || wire == WireType::LengthDelimited;
    }
    wire == natural
}

/// A field of the schema, read with a wire type it accepts.
struct KnownField {
    desc: FieldDescriptor,
    kind: Kind,
    repeated: bool,
}

impl Decoder {
    pub(crate) fn merge(
        &self,
        message: &mut LosslessMessage,
        bytes: &[u8],
        depth: usize,
    ) -> Result<()> {
        let mut r = Reader::new(bytes);
        while !r.at_end() {
            let start = r.position();
            let (number, wire) = read_key(&mut r)?;
            let field = message.descriptor.get_field(number).and_then(|desc| {
                let kind = desc.kind();
                let repeated = desc.cardinality() == Cardinality::Repeated;
                accepts(&desc, &kind, repeated, wire).then_some((desc, kind, repeated))
            });
            match field {
                Some((desc, kind, repeated)) => {
                    let field = KnownField {
                        desc,
                        kind,
                        repeated,
                    };
                    self.merge_field(message, field, wire, &mut r, start, depth)?
                }
                None => {
                    skip_field(&mut r, number, wire, depth, self.max_depth)?;
                    message
                        .unknown
                        .extend_from_slice(&bytes[start..r.position()]);
                }
            }
        }
        Ok(())
    }

    fn nested(
        &self,
        descriptor: MessageDescriptor,
        bytes: &[u8],
        depth: usize,
    ) -> Result<LosslessMessage> {
        let mut m = LosslessMessage::new(descriptor);
        self.merge_nested(&mut m, bytes, depth)?;
        m.fields.shrink_to_fit();
        Ok(m)
    }

    fn merge_nested(&self, m: &mut LosslessMessage, bytes: &[u8], depth: usize) -> Result<()> {
        if depth + 1 > self.max_depth {
            return Err(too_deep());
        }
        self.merge(m, bytes, depth + 1)
    }

    fn merge_field(
        &self,
        message: &mut LosslessMessage,
        field: KnownField,
        wire: WireType,
        r: &mut Reader<'_>,
        field_start: usize,
        depth: usize,
    ) -> Result<()> {
        let KnownField {
            desc,
            kind,
            repeated,
        } = field;
        let number = desc.number();
        let is_map = repeated && matches!(&kind, Kind::Message(m) if m.is_map_entry());
        if is_map {
            let entry_bytes = r.len_delimited()?;
            let Kind::Message(entry_desc) = &kind else {
                return Ok(());
            };
            match self.map_entry(entry_desc, entry_bytes, depth)? {
                Some((key, value)) => {
                    if let Field::Map(entries) = &mut message
                        .fields
                        .get_or_insert_with(number, || (desc.clone(), Field::Map(BTreeMap::new())))
                        .1
                    {
                        entries.insert(key, value);
                    }
                }
                // upb keeps an entry with unknown fields as an unknown
                // field of the map's message, whole, as it came.
                None => message
                    .unknown
                    .extend_from_slice(&r.buffer()[field_start..r.position()]),
            }
            return Ok(());
        }
        if repeated {
            match &kind {
                Kind::Message(m) => {
                    let bytes = r.len_delimited()?;
                    let value = self.nested(m.clone(), bytes, depth)?;
                    match &mut message
                        .fields
                        .get_or_insert_with(number, || (desc.clone(), Field::Messages(Vec::new())))
                        .1
                    {
                        Field::Messages(ms) => ms.push(value),
                        other => *other = Field::Messages(vec![value]),
                    }
                }
                _ => {
                    let mut values = Vec::new();
                    if wire == WireType::LengthDelimited && wire_type_of(&kind) != wire {
                        let packed = r.len_delimited()?;
                        let mut pr = Reader::new(packed);
                        while !pr.at_end() {
                            values.push(scalar(&kind, &mut pr)?);
                        }
                    } else {
                        values.push(scalar(&kind, r)?);
                    }
                    if values.is_empty() {
                        return Ok(());
                    }
                    match &mut message
                        .fields
                        .get_or_insert_with(number, || {
                            (desc.clone(), Field::List(ScalarList::Values(Vec::new())))
                        })
                        .1
                    {
                        Field::List(vs) => values.into_iter().for_each(|v| vs.push(v)),
                        other => *other = Field::List(ScalarList::from_values(values)),
                    }
                }
            }
            return Ok(());
        }
        // A singular field: setting it clears the other fields of its oneof.
        if let Some(oneof) = desc.containing_oneof() {
            for other in oneof.fields() {
                if other.number() != number {
                    message.fields.remove(&other.number());
                }
            }
        }
        match &kind {
            Kind::Message(m) => {
                let bytes = r.len_delimited()?;
                match message.fields.get_mut(&number) {
                    // A message given twice is merged.
                    Some((_, Field::Message(existing))) => {
                        self.merge_nested(existing, bytes, depth)?
                    }
                    _ => {
                        let value = self.nested(m.clone(), bytes, depth)?;
                        message
                            .fields
                            .insert(number, (desc, Field::Message(Box::new(value))));
                    }
                }
            }
            _ => {
                let value = scalar(&kind, r)?;
                if !desc.supports_presence() && is_default_value(&value) {
                    // The last value wins, and a default is no value.
                    message.fields.remove(&number);
                } else {
                    message.fields.insert(number, (desc, Field::Scalar(value)));
                }
            }
        }
        Ok(())
    }

    /// A map entry's key and value (defaults where absent), or `None` when
    /// the entry carries fields other than a well-typed key and value.
    fn map_entry(
        &self,
        entry: &MessageDescriptor,
        bytes: &[u8],
        depth: usize,
    ) -> Result<Option<(MapKey, MapValue)>> {
        if depth + 1 > self.max_depth {
            return Err(too_deep());
        }
        let key_field = entry.map_entry_key_field();
        let value_field = entry.map_entry_value_field();
        let key_kind = key_field.kind();
        let value_kind = value_field.kind();
        let mut key = Value::default_value(&key_kind);
        let mut value: Option<MapValue> = None;
        let mut has_unknown = false;
        let mut r = Reader::new(bytes);
        while !r.at_end() {
            let (number, wire) = read_key(&mut r)?;
            if number == map_entry::KEY && wire == wire_type_of(&key_kind) {
                key = scalar(&key_kind, &mut r)?;
            } else if number == map_entry::VALUE && wire == wire_type_of(&value_kind) {
                match &value_kind {
                    Kind::Message(m) => {
                        let b = r.len_delimited()?;
                        match &mut value {
                            Some(MapValue::Message(existing)) => {
                                self.merge_nested(existing, b, depth + 1)?
                            }
                            _ => {
                                value =
                                    Some(MapValue::Message(self.nested(m.clone(), b, depth + 1)?))
                            }
                        }
                    }
                    _ => value = Some(MapValue::Scalar(scalar(&value_kind, &mut r)?)),
                }
            } else {
                skip_field(&mut r, number, wire, depth + 1, self.max_depth)?;
                has_unknown = true;
            }
        }
        if has_unknown {
            return Ok(None);
        }
        let value = match value {
            Some(v) => v,
            None => match &value_kind {
                Kind::Message(m) => MapValue::Message(LosslessMessage::new(m.clone())),
                k => MapValue::Scalar(Value::default_value(k)),
            },
        };
        match key.into_map_key() {
            Some(k) => Ok(Some((k, value))),
            None => Err(decode_error("invalid map key type")),
        }
    }
}

/// The wire format of a [`LosslessMessage`]: decoding as Google's runtimes
/// do, encoding as they write.
impl LosslessMessage {
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
    /// unknown fields; a [`DynamicMessage`](prost_reflect::DynamicMessage) keeps those it was decoded
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

    /// The known fields as a message of type `M`. Unknown fields are left
    /// out before prost sees them: one with a known number and another
    /// wire type (`28 00`, a varint where `ShapeProto.layout` is a message),
    /// which Google's runtime keeps as unknown, is an error to prost.
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
        Ok(M::decode(
            prost::Message::encode_to_vec(&self.to_dynamic()).as_slice(),
        )?)
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
                    len_delimited_len(number, vs.iter().map(|v| value_len(&v, &kind)).sum())
                }
                Field::List(vs) => vs
                    .iter()
                    .map(|v| encoding::key_len(number) + value_len(&v, &kind))
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
                    let len: usize = vs.iter().map(|v| value_len(&v, &kind)).sum();
                    encoding::encode_varint(len as u64, buf);
                    vs.iter().for_each(|v| encode_value(&v, &kind, buf));
                }
                Field::List(vs) => {
                    let wire = wire_type_of(&kind);
                    for v in vs.iter() {
                        encoding::encode_key(number, wire, buf);
                        encode_value(&v, &kind, buf);
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
