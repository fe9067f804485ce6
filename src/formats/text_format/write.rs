//! Writing the protobuf text format (`.pbtxt`), as Google's
//! `text_format.MessageToString` prints it.

use std::fmt::Write;

use prost_reflect::{Kind, ReflectMessage, Value};

use crate::formats::lossless::{Field, LosslessMessage, MapValue};
use crate::formats::{float, is_default_value};

/// The text format of `message`, byte-identical to Google's
/// `text_format.MessageToString(message)`: fields in field-number order,
/// one `name: value` line per value (a repeated field gives one line per
/// element), nested messages as `name {` ... `}` indented by two spaces,
/// enums by name (numbers the schema does not know as numbers), map
/// entries in key order. Fields holding their default value and unknown
/// fields are not printed.
///
/// ```
/// use xla_shape::formats;
/// use xla_shape::proto::{LayoutProto, ShapeProto};
///
/// let p = ShapeProto {
///     element_type: 11,
///     dimensions: vec![2, 3],
///     layout: Some(Box::new(LayoutProto { minor_to_major: vec![1, 0], ..Default::default() })),
///     ..Default::default()
/// };
/// assert_eq!(
///     formats::to_text_format(&p),
///     "element_type: F32\ndimensions: 2\ndimensions: 3\nlayout {\n  minor_to_major: 1\n  minor_to_major: 0\n}\n"
/// );
/// ```
pub fn to_text_format<M: ReflectMessage>(message: &M) -> String {
    lossless_to_text(&LosslessMessage::from_message(message), false)
}

/// The text format of `message` on one line, as
/// `text_format.MessageToString(message, as_one_line=True)`: fields
/// separated by single spaces, nested messages as `name { ... }`.
///
/// ```
/// use xla_shape::formats;
/// use xla_shape::proto::{LayoutProto, ShapeProto};
///
/// let p = ShapeProto {
///     element_type: 11,
///     dimensions: vec![2, 3],
///     layout: Some(Box::new(LayoutProto { minor_to_major: vec![1, 0], ..Default::default() })),
///     ..Default::default()
/// };
/// assert_eq!(
///     formats::to_text_format_one_line(&p),
///     "element_type: F32 dimensions: 2 dimensions: 3 layout { minor_to_major: 1 minor_to_major: 0 }"
/// );
/// ```
pub fn to_text_format_one_line<M: ReflectMessage>(message: &M) -> String {
    lossless_to_text(&LosslessMessage::from_message(message), true)
}

fn lossless_to_text(message: &LosslessMessage, one_line: bool) -> String {
    let mut out = String::new();
    Printer {
        out: &mut out,
        one_line,
        indent: 0,
    }
    .message(message);
    if one_line {
        // MessageToString strips the separator after the last field.
        let end = out.trim_end().len();
        out.truncate(end);
    }
    out
}

struct Printer<'a> {
    out: &'a mut String,
    one_line: bool,
    indent: usize,
}

impl Printer<'_> {
    fn message(&mut self, message: &LosslessMessage) {
        for (desc, field) in message.fields() {
            let name = desc.name();
            let kind = desc.kind();
            match field {
                Field::Scalar(v) => self.scalar_field(name, v, &kind),
                Field::Message(m) => self.message_field(name, m),
                Field::List(vs) => vs.iter().for_each(|v| self.scalar_field(name, &v, &kind)),
                Field::Messages(ms) => ms.iter().for_each(|m| self.message_field(name, m)),
                Field::Map(entries) => {
                    let Kind::Message(entry) = &kind else {
                        continue;
                    };
                    let key_kind = entry.map_entry_key_field().kind();
                    let value_kind = entry.map_entry_value_field().kind();
                    // Python prints each entry, in key order, as a message
                    // with `key` and `value` fields, defaults left out.
                    for (key, value) in entries {
                        self.open(name);
                        let key = Value::from(key.clone());
                        if !is_default_value(&key) {
                            self.scalar_field("key", &key, &key_kind);
                        }
                        match value {
                            MapValue::Scalar(v) if is_default_value(v) => {}
                            MapValue::Scalar(v) => self.scalar_field("value", v, &value_kind),
                            MapValue::Message(m) => self.message_field("value", m),
                        }
                        self.close();
                    }
                }
            }
        }
    }

    fn message_field(&mut self, name: &str, message: &LosslessMessage) {
        self.open(name);
        self.message(message);
        self.close();
    }

    fn open(&mut self, name: &str) {
        self.pad();
        self.out.push_str(name);
        if self.one_line {
            self.out.push_str(" { ");
        } else {
            self.out.push_str(" {\n");
            self.indent += 2;
        }
    }

    fn close(&mut self) {
        if !self.one_line {
            self.indent -= 2;
            self.pad();
        }
        self.out.push('}');
        self.end_field();
    }

    fn scalar_field(&mut self, name: &str, value: &Value, kind: &Kind) {
        self.pad();
        self.out.push_str(name);
        self.out.push_str(": ");
        self.scalar(value, kind);
        self.end_field();
    }

    fn end_field(&mut self) {
        self.out.push(if self.one_line { ' ' } else { '\n' });
    }

    fn pad(&mut self) {
        if !self.one_line {
            self.out.extend(std::iter::repeat_n(' ', self.indent));
        }
    }

    fn scalar(&mut self, value: &Value, kind: &Kind) {
        let out = &mut *self.out;
        match value {
            Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Value::I32(n) => {
                let _ = write!(out, "{n}");
            }
            Value::I64(n) => {
                let _ = write!(out, "{n}");
            }
            Value::U32(n) => {
                let _ = write!(out, "{n}");
            }
            Value::U64(n) => {
                let _ = write!(out, "{n}");
            }
            // `str(ToShortestFloat(v))`; NaN as `nan` whatever its sign.
            Value::F32(v) if v.is_nan() => out.push_str("nan"),
            Value::F32(v) => float::write_python_repr(out, float::shortest_float(*v)),
            Value::F64(v) if v.is_nan() => out.push_str("nan"),
            Value::F64(v) => float::write_python_repr(out, *v),
            Value::String(s) => {
                out.push('"');
                escape(out, s.as_bytes(), true);
                out.push('"');
            }
            Value::Bytes(b) => {
                out.push('"');
                escape(out, b, false);
                out.push('"');
            }
            Value::EnumNumber(n) => {
                let name = match kind {
                    Kind::Enum(e) => e.get_value(*n).map(|v| v.name().to_owned()),
                    _ => None,
                };
                match name {
                    Some(name) => out.push_str(&name),
                    None => {
                        let _ = write!(out, "{n}");
                    }
                }
            }
            // Messages, lists and maps are printed by the callers.
            Value::Message(_) | Value::List(_) | Value::Map(_) => {}
        }
    }
}

/// Python's `text_encoding.CEscape`: `\n`, `\r`, `\t`, `\"`, `\'`, `\\`,
/// other ASCII control characters and DEL in three-digit octal; bytes
/// above 127 in octal too for `bytes` fields, left as they are (UTF-8) for
/// `string` fields.
fn escape(out: &mut String, bytes: &[u8], utf8: bool) {
    if utf8 && let Ok(s) = std::str::from_utf8(bytes) {
        for c in s.chars() {
            if c.is_ascii() {
                escape_ascii(out, c as u8);
            } else {
                out.push(c);
            }
        }
        return;
    }
    for &b in bytes {
        if b.is_ascii() {
            escape_ascii(out, b);
        } else {
            let _ = write!(out, "\\{b:03o}");
        }
    }
}

fn escape_ascii(out: &mut String, b: u8) {
    match b {
        b'\n' => out.push_str("\\n"),
        b'\r' => out.push_str("\\r"),
        b'\t' => out.push_str("\\t"),
        b'"' => out.push_str("\\\""),
        b'\'' => out.push_str("\\'"),
        b'\\' => out.push_str("\\\\"),
        0x20..=0x7e => out.push(b as char),
        _ => {
            let _ = write!(out, "\\{b:03o}");
        }
    }
}

/// The text format of a [`LosslessMessage`].
impl LosslessMessage {
    /// The text format of the known fields, as Google's `MessageToString`
    /// writes it (it leaves unknown fields out).
    pub fn to_text_format(&self) -> String {
        lossless_to_text(self, false)
    }

    /// The one-line text format of the known fields
    /// (`MessageToString(..., as_one_line=True)`).
    pub fn to_text_format_one_line(&self) -> String {
        lossless_to_text(self, true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_as_python_cescape() {
        // text_encoding.CEscape(b'\x00\x01"\'\\\n\x7f\x80\xff abc', False),
        // as printed by MessageToString for a bytes field.
        let mut s = String::new();
        escape(&mut s, b"\x00\x01\"'\\\n\x7f\x80\xff abc", false);
        assert_eq!(s, r#"\000\001\"\'\\\n\177\200\377 abc"#);
        // A string field keeps non-ASCII characters.
        let mut s = String::new();
        escape(&mut s, "ééx\t\x01".as_bytes(), true);
        assert_eq!(s, r"ééx\t\001");
    }
}
