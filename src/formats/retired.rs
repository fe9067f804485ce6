//! Fields retired from the schema that old files still carry.

use std::fmt;

use prost_reflect::MapKey;

use crate::formats::lossless::{Field, LosslessMessage, MapValue};
use crate::protobuf::Reader;

/// Adds the retired fields of `message` and the messages in it to `found`;
/// `path` leads to `message`.
pub(crate) fn collect(message: &LosslessMessage, path: &mut String, found: &mut Vec<RetiredField>) {
    let retired: Vec<&RetiredInfo> = RETIRED
        .iter()
        .filter(|r| r.message == message.descriptor().full_name())
        .collect();
    if !retired.is_empty() {
        let mut numbers: Vec<u32> = unknown_numbers(message.unknown_fields())
            .into_iter()
            .filter(|n| retired.iter().any(|r| r.number == *n))
            .collect();
        numbers.sort_unstable();
        numbers.dedup();
        for n in numbers {
            if let Some(info) = retired.iter().find(|r| r.number == n) {
                found.push(RetiredField {
                    info,
                    path: path.clone(),
                });
            }
        }
    }
    for (desc, field) in message.fields() {
        let len = path.len();
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(desc.name());
        let base = path.len();
        match field {
            Field::Message(m) => collect(m, path, found),
            Field::Messages(ms) => {
                for (i, m) in ms.iter().enumerate() {
                    path.truncate(base);
                    path.push_str(&format!("[{i}]"));
                    collect(m, path, found);
                }
            }
            Field::Map(entries) => {
                for (k, v) in entries {
                    if let MapValue::Message(m) = v {
                        path.truncate(base);
                        match k {
                            MapKey::String(s) => path.push_str(&format!("[{s:?}]")),
                            MapKey::Bool(b) => path.push_str(&format!("[{b}]")),
                            MapKey::I32(n) => path.push_str(&format!("[{n}]")),
                            MapKey::I64(n) => path.push_str(&format!("[{n}]")),
                            MapKey::U32(n) => path.push_str(&format!("[{n}]")),
                            MapKey::U64(n) => path.push_str(&format!("[{n}]")),
                        }
                        collect(m, path, found);
                    }
                }
            }
            Field::Scalar(_) | Field::List(_) => {}
        }
        path.truncate(len);
    }
}

/// The field numbers of the unknown fields in `raw` (well-formed, as the
/// decoder checked), in the order they appear.
fn unknown_numbers(raw: &[u8]) -> Vec<u32> {
    let mut numbers = Vec::new();
    let mut r = Reader::new(raw);
    while !r.at_end() {
        let Ok((number, wire)) = r.key() else { break };
        numbers.push(number);
        if r.skip(number, wire, 0, usize::MAX).is_err() {
            break;
        }
    }
    numbers
}

struct RetiredInfo {
    message: &'static str,
    number: u32,
    name: &'static str,
    removed: &'static str,
}

/// The fields retired from the schema that old files still carry
/// (`reserved 2` to `reserved 5` of `LayoutProto` in `xla/xla_data.proto`).
const RETIRED: &[RetiredInfo] = &[
    RetiredInfo {
        message: "xla.LayoutProto",
        number: 2,
        name: "padded_dimensions",
        removed: "2018-11-02",
    },
    RetiredInfo {
        message: "xla.LayoutProto",
        number: 3,
        name: "padding_value",
        removed: "2018-11-02",
    },
    RetiredInfo {
        message: "xla.LayoutProto",
        number: 4,
        name: "format",
        removed: "2022-08-16",
    },
    RetiredInfo {
        message: "xla.LayoutProto",
        number: 5,
        name: "max_sparse_elements",
        removed: "2020-01-02",
    },
];

/// A field retired from the schema, found (as an unknown field) in a
/// decoded message: LayoutProto's `padded_dimensions` (2), `padding_value`
/// (3), `format` (4) and `max_sparse_elements` (5), which TensorFlow files
/// from before their removal carry.
///
/// ```
/// use xla_shape::formats::{self, LosslessMessage};
/// use xla_shape::proto::ShapeProto;
///
/// // f32[2]{0} whose layout says `format: DENSE` (field 4, varint 1).
/// let bytes = [0x10, 0x0b, 0x1a, 0x01, 0x02, 0x2a, 0x05, 0x0a, 0x01, 0x00, 0x20, 0x01];
/// let m = LosslessMessage::decode_as::<ShapeProto>(&bytes[..])?;
/// let retired = formats::retired_fields(&m);
/// assert_eq!(retired.len(), 1);
/// assert_eq!((retired[0].name(), retired[0].number(), retired[0].path()), ("format", 4, "layout"));
/// assert_eq!(m.encode_to_vec(), bytes);
/// # Ok::<(), xla_shape::Error>(())
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct RetiredField {
    info: &'static RetiredInfo,
    path: String,
}

impl PartialEq for RetiredInfo {
    fn eq(&self, other: &Self) -> bool {
        (self.message, self.number) == (other.message, other.number)
    }
}
impl Eq for RetiredInfo {}
impl std::hash::Hash for RetiredInfo {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        (self.message, self.number).hash(state)
    }
}

impl RetiredField {
    /// The field's name before it was retired (`padded_dimensions`).
    pub fn name(&self) -> &'static str {
        self.info.name
    }

    /// The field number.
    pub fn number(&self) -> u32 {
        self.info.number
    }

    /// The full name of the message type that had the field
    /// (`xla.LayoutProto`).
    pub fn message_type(&self) -> &'static str {
        self.info.message
    }

    /// When the field left the schema (ISO date of the upstream commit).
    pub fn removed(&self) -> &'static str {
        self.info.removed
    }

    /// Where the message carrying the field is, as field names from the
    /// outermost message joined by `.`, with list indices:
    /// `layout`, `tuple_shapes[1].layout`; empty for the outermost message.
    pub fn path(&self) -> &str {
        &self.path
    }
}

impl fmt::Debug for RetiredField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RetiredField")
            .field("message_type", &self.info.message)
            .field("number", &self.info.number)
            .field("name", &self.info.name)
            .field("path", &self.path)
            .finish()
    }
}

impl fmt::Display for RetiredField {
    /// `layout: padded_dimensions (xla.LayoutProto field 2, retired 2018-11-02)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = if self.path.is_empty() {
            "(top level)"
        } else {
            &self.path
        };
        write!(
            f,
            "{path}: {} ({} field {}, retired {})",
            self.info.name, self.info.message, self.info.number, self.info.removed
        )
    }
}

/// The retired fields of a [`LosslessMessage`].
impl LosslessMessage {
    /// The fields retired from the schema that this message carries, at
    /// any nesting level; see [`retired_fields`](crate::formats::retired_fields).
    pub fn retired_fields(&self) -> Vec<RetiredField> {
        let mut found = Vec::new();
        collect(self, &mut String::new(), &mut found);
        found
    }
}
