//! Writing canonical proto3 JSON, as Google's runtime writes it
//! (`json_format.MessageToJson`): [`JsonView`], a message as a serde
//! value, written by serde_json with Python's float and string forms.

use std::collections::BTreeMap;
use std::io;

use prost_reflect::{Kind, MapKey, ReflectMessage, Value};
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

use crate::formats::float;
use crate::formats::lossless::{Field, LosslessMessage, MapValue};

/// How [`to_json_with`] writes a message.
///
/// The default is what logs and scripts want: compact
/// output (`json.dumps(..., separators=(",", ":"))`) with lowerCamelCase
/// names, as `MessageToJson` names fields.
///
/// ```
/// use xla_shape::formats::{self, JsonOptions};
/// use xla_shape::proto::ShapeProto;
///
/// let p = ShapeProto { element_type: 11, dimensions: vec![2, 3], ..Default::default() };
/// assert_eq!(formats::to_json(&p), r#"{"elementType":"F32","dimensions":["2","3"]}"#);
/// let names = JsonOptions::new().preserve_proto_field_names(true);
/// assert_eq!(
///     formats::to_json_with(&p, &names),
///     r#"{"element_type":"F32","dimensions":["2","3"]}"#
/// );
/// let pretty = JsonOptions::new().pretty(true);
/// assert_eq!(
///     formats::to_json_with(&p, &pretty),
///     "{\n  \"elementType\": \"F32\",\n  \"dimensions\": [\n    \"2\",\n    \"3\"\n  ]\n}"
/// );
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct JsonOptions {
    proto_field_names: bool,
    pretty: bool,
}

impl JsonOptions {
    /// Compact output with lowerCamelCase names.
    pub fn new() -> Self {
        Self::default()
    }

    /// Name fields as the schema does (`element_type`) rather than in
    /// lowerCamelCase (`elementType`): `preserving_proto_field_name=True`.
    pub fn preserve_proto_field_names(mut self, yes: bool) -> Self {
        self.proto_field_names = yes;
        self
    }

    /// Indent by two spaces, one value a line, as Python's
    /// `json.dumps(..., indent=2)` and `MessageToJson`'s default do; `false`
    /// gives the compact form without any spaces.
    pub fn pretty(mut self, yes: bool) -> Self {
        self.pretty = yes;
        self
    }

    /// Whether fields are named as in the schema.
    pub fn proto_field_names(&self) -> bool {
        self.proto_field_names
    }

    /// Whether the output is indented.
    pub fn is_pretty(&self) -> bool {
        self.pretty
    }
}

/// The canonical proto3 JSON of `message`, compact, with lowerCamelCase
/// names.
///
/// Fields are written in field-number order, fields holding their default
/// value are left out, 64-bit integers are strings, enums are written by
/// name (numbers the schema does not know as numbers), bytes in base64,
/// floats as Python writes them; strings are escaped to ASCII as
/// `json.dumps` does. Map entries are written in key order.
///
/// ```
/// use xla_shape::formats;
/// use xla_shape::proto::{LayoutProto, ShapeProto};
///
/// let p = ShapeProto {
///     element_type: 99, // a number the schema does not know
///     layout: Some(Box::new(LayoutProto { minor_to_major: vec![0], ..Default::default() })),
///     ..Default::default()
/// };
/// assert_eq!(formats::to_json(&p), r#"{"elementType":99,"layout":{"minorToMajor":["0"]}}"#);
/// ```
pub fn to_json<M: ReflectMessage>(message: &M) -> String {
    to_json_with(message, &JsonOptions::new())
}

/// The canonical proto3 JSON of `message`, written as `options` say.
pub fn to_json_with<M: ReflectMessage>(message: &M, options: &JsonOptions) -> String {
    lossless_to_json(&LosslessMessage::from_message(message), options)
}

fn lossless_to_json(message: &LosslessMessage, options: &JsonOptions) -> String {
    let mut out = Vec::with_capacity(128);
    let view = JsonView {
        message,
        proto_field_names: options.proto_field_names,
    };
    let result = if options.pretty {
        let mut ser = serde_json::Serializer::with_formatter(
            &mut out,
            PythonFormatter {
                inner: Inner::Pretty(serde_json::ser::PrettyFormatter::with_indent(b"  ")),
            },
        );
        view.serialize(&mut ser)
    } else {
        let mut ser = serde_json::Serializer::with_formatter(
            &mut out,
            PythonFormatter {
                inner: Inner::Compact(serde_json::ser::CompactFormatter),
            },
        );
        view.serialize(&mut ser)
    };
    // The view only produces strings as map keys and never fails, and
    // writing to a Vec cannot fail.
    result.expect("serialising a message to a Vec<u8> cannot fail");
    // Every byte written is ASCII: strings are escaped as `json.dumps`
    // escapes them with `ensure_ascii=True`.
    String::from_utf8(out).expect("the JSON writer writes ASCII only")
}

/// A message seen as `MessageToJson` sees it: a [`Serialize`] value that
/// any serde serializer can write.
pub(crate) struct JsonView<'a> {
    pub(crate) message: &'a LosslessMessage,
    pub(crate) proto_field_names: bool,
}

impl Serialize for JsonView<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        if self
            .message
            .descriptor()
            .full_name()
            .starts_with("google.protobuf.")
        {
            // Well-known types have their own JSON forms, which
            // prost-reflect knows (the XLA schema uses none). Where it
            // refuses a value (a timestamp out of range), the message is
            // written field by field instead.
            let options =
                prost_reflect::SerializeOptions::new().use_proto_field_name(self.proto_field_names);
            let dynamic = self.message.to_dynamic();
            let mut probe = serde_json::Serializer::new(std::io::sink());
            if dynamic.serialize_with_options(&mut probe, &options).is_ok() {
                return dynamic.serialize_with_options(serializer, &options);
            }
        }
        let mut map = serializer.serialize_map(None)?;
        for (desc, field) in self.message.fields() {
            let name = if self.proto_field_names {
                desc.name()
            } else {
                desc.json_name()
            };
            let kind = desc.kind();
            match field {
                Field::Scalar(v) => map.serialize_entry(
                    name,
                    &JsonScalar {
                        value: v,
                        kind: &kind,
                    },
                )?,
                Field::Message(m) => map.serialize_entry(name, &self.nested(m))?,
                Field::List(vs) => {
                    // One field's elements as `Value`s while it is written.
                    let values: Vec<Value> = vs.iter().collect();
                    map.serialize_entry(
                        name,
                        &JsonSeq(
                            values
                                .iter()
                                .map(|v| JsonScalar {
                                    value: v,
                                    kind: &kind,
                                })
                                .collect(),
                        ),
                    )?
                }
                Field::Messages(ms) => map
                    .serialize_entry(name, &JsonSeq(ms.iter().map(|m| self.nested(m)).collect()))?,
                Field::Map(entries) => map.serialize_entry(
                    name,
                    &JsonMap {
                        entries,
                        value_kind: match &kind {
                            Kind::Message(entry) => entry.map_entry_value_field().kind(),
                            other => other.clone(),
                        },
                        proto_field_names: self.proto_field_names,
                    },
                )?,
            }
        }
        map.end()
    }
}

impl<'a> JsonView<'a> {
    fn nested<'b>(&self, message: &'b LosslessMessage) -> JsonView<'b> {
        JsonView {
            message,
            proto_field_names: self.proto_field_names,
        }
    }
}

struct JsonSeq<T>(Vec<T>);

impl<T: Serialize> Serialize for JsonSeq<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
        for v in &self.0 {
            seq.serialize_element(v)?;
        }
        seq.end()
    }
}

struct JsonMap<'a> {
    entries: &'a BTreeMap<MapKey, MapValue>,
    value_kind: Kind,
    proto_field_names: bool,
}

impl Serialize for JsonMap<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.entries.len()))?;
        for (key, value) in self.entries {
            // Keys are strings; `str(key)` for numbers, `true`/`false`.
            let key = match key {
                MapKey::Bool(b) => b.to_string(),
                MapKey::I32(n) => n.to_string(),
                MapKey::I64(n) => n.to_string(),
                MapKey::U32(n) => n.to_string(),
                MapKey::U64(n) => n.to_string(),
                MapKey::String(s) => s.clone(),
            };
            match value {
                MapValue::Scalar(v) => map.serialize_entry(
                    &key,
                    &JsonScalar {
                        value: v,
                        kind: &self.value_kind,
                    },
                )?,
                MapValue::Message(m) => map.serialize_entry(
                    &key,
                    &JsonView {
                        message: m,
                        proto_field_names: self.proto_field_names,
                    },
                )?,
            }
        }
        map.end()
    }
}

struct JsonScalar<'a> {
    value: &'a Value,
    kind: &'a Kind,
}

fn non_finite(v: f64) -> Option<&'static str> {
    if v.is_nan() {
        Some("NaN")
    } else if v == f64::INFINITY {
        Some("Infinity")
    } else if v == f64::NEG_INFINITY {
        Some("-Infinity")
    } else {
        None
    }
}

impl Serialize for JsonScalar<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        match self.value {
            Value::Bool(v) => serializer.serialize_bool(*v),
            Value::I32(v) => serializer.serialize_i32(*v),
            Value::U32(v) => serializer.serialize_u32(*v),
            Value::I64(v) => serializer.collect_str(v),
            Value::U64(v) => serializer.collect_str(v),
            Value::F32(v) => match non_finite(f64::from(*v)) {
                Some(s) => serializer.serialize_str(s),
                // `ToShortestFloat`, then written as the double it is.
                None => serializer.serialize_f64(float::shortest_float(*v)),
            },
            Value::F64(v) => match non_finite(*v) {
                Some(s) => serializer.serialize_str(s),
                None => serializer.serialize_f64(*v),
            },
            Value::String(s) => serializer.serialize_str(s),
            Value::Bytes(b) => serializer.serialize_str(&base64(b)),
            Value::EnumNumber(n) => {
                let name = match self.kind {
                    Kind::Enum(e) => e.get_value(*n).map(|v| v.name().to_owned()),
                    _ => None,
                };
                match name {
                    Some(name) => serializer.serialize_str(&name),
                    None => serializer.serialize_i32(*n),
                }
            }
            // Messages, lists and maps are written by the views above.
            Value::Message(_) | Value::List(_) | Value::Map(_) => serializer.serialize_unit(),
        }
    }
}

/// Standard base64 with padding, as Python's `base64.b64encode`.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i)) as usize & 63] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

enum Inner {
    Compact(serde_json::ser::CompactFormatter),
    Pretty(serde_json::ser::PrettyFormatter<'static>),
}

/// Python's `json.dumps` layout: the compact or indented form of
/// serde_json, with `ensure_ascii` escaping and `repr` floats.
struct PythonFormatter {
    inner: Inner,
}

macro_rules! delegate {
    ($($name:ident($($arg:ident: $ty:ty),*);)*) => {
        $(
            fn $name<W: ?Sized + io::Write>(&mut self, writer: &mut W $(, $arg: $ty)*) -> io::Result<()> {
                match &mut self.inner {
                    Inner::Compact(f) => serde_json::ser::Formatter::$name(f, writer $(, $arg)*),
                    Inner::Pretty(f) => serde_json::ser::Formatter::$name(f, writer $(, $arg)*),
                }
            }
        )*
    };
}

impl serde_json::ser::Formatter for PythonFormatter {
    delegate! {
        begin_array();
        end_array();
        begin_array_value(first: bool);
        end_array_value();
        begin_object();
        end_object();
        begin_object_key(first: bool);
        end_object_key();
        begin_object_value();
        end_object_value();
    }

    fn write_f64<W: ?Sized + io::Write>(&mut self, writer: &mut W, value: f64) -> io::Result<()> {
        let mut s = String::new();
        float::write_python_repr(&mut s, value);
        writer.write_all(s.as_bytes())
    }

    fn write_f32<W: ?Sized + io::Write>(&mut self, writer: &mut W, value: f32) -> io::Result<()> {
        self.write_f64(writer, float::shortest_float(value))
    }

    fn write_string_fragment<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        // serde_json has escaped `"`, `\` and control characters; Python
        // also escapes DEL and everything outside ASCII, as UTF-16 units.
        let mut start = 0;
        for (i, c) in fragment.char_indices() {
            if c.is_ascii() && c != '\x7f' {
                continue;
            }
            writer.write_all(&fragment.as_bytes()[start..i])?;
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                write!(writer, "\\u{unit:04x}")?;
            }
            start = i + c.len_utf8();
        }
        writer.write_all(&fragment.as_bytes()[start..])
    }
}

/// The proto3 JSON of a [`LosslessMessage`].
impl LosslessMessage {
    /// The canonical proto3 JSON of the known fields, as Google's
    /// `MessageToJson` writes it (it leaves unknown fields out).
    pub fn to_json(&self, options: &JsonOptions) -> String {
        lossless_to_json(self, options)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_python() {
        // base64.b64encode of these inputs (RFC 4648 test vectors).
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foob"), "Zm9vYg==");
        assert_eq!(base64(b"fooba"), "Zm9vYmE=");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
    }
}
