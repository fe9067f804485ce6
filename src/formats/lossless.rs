//! [`LosslessMessage`]: the data of a message decoded without losing
//! anything. It holds data only; each format adds its own `impl` block:
//! the wire format (`decode`, `encode_to_vec`, ...) in `wire.rs`, JSON in
//! `json/write.rs`, the text format in `text_format/write.rs`, retired
//! fields in `retired.rs`. It is general over any message descriptor.

use std::collections::{BTreeMap, HashMap};

use prost_reflect::{DynamicMessage, FieldDescriptor, MapKey, MessageDescriptor, Value};

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
    pub(crate) fields: FieldMap,
    pub(crate) unknown: Vec<u8>,
}

/// The known fields of a message by field number, in number order: a
/// sorted vector. Most messages hold a few fields, which a B-tree keeps in
/// nodes of eleven entries (about 1 KiB for any non-empty message); the
/// vector holds what is there, and the wire brings fields in number order,
/// so inserting is a push.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct FieldMap(Vec<(u32, (FieldDescriptor, Field))>);

impl FieldMap {
    fn find(&self, number: u32) -> std::result::Result<usize, usize> {
        match self.0.last() {
            // The common case: a field after every field so far.
            Some((last, _)) if *last < number => Err(self.0.len()),
            None => Err(0),
            _ => self.0.binary_search_by_key(&number, |(n, _)| *n),
        }
    }

    pub(crate) fn get_mut(&mut self, number: &u32) -> Option<&mut (FieldDescriptor, Field)> {
        let i = self.find(*number).ok()?;
        Some(&mut self.0[i].1)
    }

    pub(crate) fn insert(&mut self, number: u32, value: (FieldDescriptor, Field)) {
        match self.find(number) {
            Ok(i) => self.0[i].1 = value,
            Err(i) => self.0.insert(i, (number, value)),
        }
    }

    pub(crate) fn remove(&mut self, number: &u32) {
        if let Ok(i) = self.find(*number) {
            self.0.remove(i);
        }
    }

    /// The field `number`, inserted from `make` if absent.
    pub(crate) fn get_or_insert_with(
        &mut self,
        number: u32,
        make: impl FnOnce() -> (FieldDescriptor, Field),
    ) -> &mut (FieldDescriptor, Field) {
        let i = match self.find(number) {
            Ok(i) => i,
            Err(i) => {
                self.0.insert(i, (number, make()));
                i
            }
        };
        &mut self.0[i].1
    }

    /// Frees the room left for more fields (a nested message is complete
    /// once read; a vector grows by doubling).
    pub(crate) fn shrink_to_fit(&mut self) {
        self.0.shrink_to_fit();
    }

    pub(crate) fn values(&self) -> impl Iterator<Item = &(FieldDescriptor, Field)> {
        self.0.iter().map(|(_, v)| v)
    }

    pub(crate) fn values_mut(&mut self) -> impl Iterator<Item = &mut (FieldDescriptor, Field)> {
        self.0.iter_mut().map(|(_, v)| v)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Field {
    /// A singular non-message value (enums as numbers).
    Scalar(Value),
    /// A singular message.
    Message(Box<LosslessMessage>),
    /// A repeated non-message field, never empty.
    List(ScalarList),
    /// A repeated message field, never empty.
    Messages(Vec<LosslessMessage>),
    /// A map field, never empty.
    Map(BTreeMap<MapKey, MapValue>),
}

/// The elements of a repeated scalar field, numbers and booleans stored
/// by type: 1 to 8 bytes an element, where a `prost_reflect::Value` takes
/// 56 (packed lists of dimensions and instruction ids are most of a
/// module's fields). Strings and bytes stay `Value`s. Elements are made
/// into `Value`s again as they are read, so every format writes what it
/// wrote before.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum ScalarList {
    I32(Vec<i32>),
    I64(Vec<i64>),
    U32(Vec<u32>),
    U64(Vec<u64>),
    F32(Vec<f32>),
    F64(Vec<f64>),
    Bool(Vec<bool>),
    Enum(Vec<i32>),
    Values(Vec<Value>),
}

impl ScalarList {
    /// The list of `values`.
    pub(crate) fn from_values(values: impl IntoIterator<Item = Value>) -> Self {
        let mut list = ScalarList::Values(Vec::new());
        values.into_iter().for_each(|v| list.push(v));
        list
    }

    /// Appends `value`: to its type's vector, or (an empty list, or a
    /// value of another type, which a field's decoder never gives) the
    /// list made anew.
    pub(crate) fn push(&mut self, value: Value) {
        match (&mut *self, value) {
            (ScalarList::I32(l), Value::I32(v)) => l.push(v),
            (ScalarList::I64(l), Value::I64(v)) => l.push(v),
            (ScalarList::U32(l), Value::U32(v)) => l.push(v),
            (ScalarList::U64(l), Value::U64(v)) => l.push(v),
            (ScalarList::F32(l), Value::F32(v)) => l.push(v),
            (ScalarList::F64(l), Value::F64(v)) => l.push(v),
            (ScalarList::Bool(l), Value::Bool(v)) => l.push(v),
            (ScalarList::Enum(l), Value::EnumNumber(v)) => l.push(v),
            (ScalarList::Values(l), v) if !l.is_empty() => l.push(v),
            (list, v) if list.len() == 0 => {
                *list = match v {
                    Value::I32(v) => ScalarList::I32(vec![v]),
                    Value::I64(v) => ScalarList::I64(vec![v]),
                    Value::U32(v) => ScalarList::U32(vec![v]),
                    Value::U64(v) => ScalarList::U64(vec![v]),
                    Value::F32(v) => ScalarList::F32(vec![v]),
                    Value::F64(v) => ScalarList::F64(vec![v]),
                    Value::Bool(v) => ScalarList::Bool(vec![v]),
                    Value::EnumNumber(v) => ScalarList::Enum(vec![v]),
                    v => ScalarList::Values(vec![v]),
                }
            }
            (list, v) => {
                let mut values: Vec<Value> = list.iter().collect();
                values.push(v);
                *list = ScalarList::Values(values);
            }
        }
    }

    pub(crate) fn len(&self) -> usize {
        match self {
            ScalarList::I32(l) | ScalarList::Enum(l) => l.len(),
            ScalarList::I64(l) => l.len(),
            ScalarList::U32(l) => l.len(),
            ScalarList::U64(l) => l.len(),
            ScalarList::F32(l) => l.len(),
            ScalarList::F64(l) => l.len(),
            ScalarList::Bool(l) => l.len(),
            ScalarList::Values(l) => l.len(),
        }
    }

    /// Element `i` (below [`len`](Self::len)) as a `Value`.
    fn get(&self, i: usize) -> Value {
        match self {
            ScalarList::I32(l) => Value::I32(l[i]),
            ScalarList::I64(l) => Value::I64(l[i]),
            ScalarList::U32(l) => Value::U32(l[i]),
            ScalarList::U64(l) => Value::U64(l[i]),
            ScalarList::F32(l) => Value::F32(l[i]),
            ScalarList::F64(l) => Value::F64(l[i]),
            ScalarList::Bool(l) => Value::Bool(l[i]),
            ScalarList::Enum(l) => Value::EnumNumber(l[i]),
            ScalarList::Values(l) => l[i].clone(),
        }
    }

    /// The elements as `Value`s, in order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = Value> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }
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
            fields: FieldMap::default(),
            unknown: Vec::new(),
        }
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
                Field::List(vs) => Value::List(vs.iter().collect()),
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
}
