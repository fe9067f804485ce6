//! The formats of a shape or layout on the command line (`--from`,
//! `--to`), their detection, and reading an input as a shape, a layout or
//! an array: what `describe`, `validate`, `convert`, `index`, `strides` and
//! `draw` read, all in one way.

use clap::ValueEnum;
use xla_shape::formats::{self, LosslessMessage, ProtoFormats};
use xla_shape::proto::DESCRIPTOR_POOL;
use xla_shape::text::{self, ParseOptions};
use xla_shape::{ArrayShape, Error, ErrorKind, Layout, PrimitiveType, Result, Shape};

/// A format on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// HLO shape string, with layout: `f32[2,3]{1,0}`.
    Hlo,
    /// HLO shape string without layout: `f32[2,3]`.
    HloNoLayout,
    /// HLO layout string: `{1,0:T(2,2)}`; as output, a shape's layout.
    Layout,
    /// ShapeProto (LayoutProto for a layout) bytes as lowercase hex.
    Hex,
    /// ShapeProto (LayoutProto for a layout) bytes.
    Pb,
    /// Proto3 JSON, lowerCamelCase names.
    Json,
    /// Proto3 JSON, proto field names.
    JsonNames,
    /// Protobuf text format.
    Pbtxt,
}

impl Format {
    /// Whether this is a form of a proto message.
    pub fn is_proto(self) -> bool {
        !matches!(self, Format::Hlo | Format::HloNoLayout | Format::Layout)
    }
}

/// What an input holds: a shape, or a layout on its own.
pub enum Value {
    Shape(Shape),
    Layout(Layout),
}

impl Value {
    /// The shape, or the error a command that needs one gives for a layout.
    pub fn into_shape(self) -> Result<Shape> {
        match self {
            Value::Shape(shape) => Ok(shape),
            Value::Layout(layout) => Err(Error::new(
                ErrorKind::InvalidArgument,
                format!(
                    "{layout} is a layout, not a shape: give the shape with its layout, such as f32[2,3]{layout}"
                ),
            )),
        }
    }

    /// The array shape, or the error a command that needs one gives for
    /// anything else.
    pub fn into_array(self) -> Result<ArrayShape> {
        match self.into_shape()? {
            Shape::Array(a) => Ok(a),
            other => Err(Error::new(
                ErrorKind::InvalidArgument,
                format!("{other} is not an array shape"),
            )),
        }
    }
}

/// The input as text.
pub(crate) fn utf8(bytes: &[u8]) -> Result<&str> {
    std::str::from_utf8(bytes)
        .map_err(|e| Error::new(ErrorKind::Format, format!("input is not UTF-8 text: {e}")))
}

/// Reads `bytes` as `from`, or detects the format (see [`detect`]): a
/// shape, validated as XLA validates it, or a layout on its own.
pub fn read_value(bytes: &[u8], from: Option<Format>) -> Result<Value> {
    let shape = match from.unwrap_or_else(|| detect(bytes)) {
        Format::Hlo => text::parse_shape(utf8(bytes)?.trim())?,
        Format::HloNoLayout => {
            let options = ParseOptions {
                fill_missing_layouts: false,
            };
            text::parse_shape_with(utf8(bytes)?.trim(), &options)?
        }
        Format::Layout => return Ok(Value::Layout(text::parse_layout(utf8(bytes)?.trim())?)),
        Format::Hex => Shape::from_proto_bytes(&formats::from_hex(utf8(bytes)?)?)?,
        Format::Pb => Shape::from_proto_bytes(bytes)?,
        Format::Json | Format::JsonNames => Shape::from_json(utf8(bytes)?)?,
        Format::Pbtxt => Shape::from_text_format(utf8(bytes)?)?,
    };
    Ok(Value::Shape(shape))
}

/// Reads `bytes` in the proto format `from` as a message `name` of the
/// schema (xla_data.proto, hlo.proto, metrics.proto), at the schema level:
/// unknown fields kept, nothing validated (`convert --lossless`,
/// `--message`).
pub fn read_message(bytes: &[u8], from: Format, name: &str) -> Result<LosslessMessage> {
    let descriptor = DESCRIPTOR_POOL.get_message_by_name(name).ok_or_else(|| {
        Error::new(
            ErrorKind::InvalidArgument,
            format!("no message {name} in the schema (xla_data.proto, hlo.proto, metrics.proto)"),
        )
    })?;
    match from {
        Format::Pb => LosslessMessage::decode(descriptor, bytes),
        Format::Hex => LosslessMessage::decode(descriptor, &formats::from_hex(utf8(bytes)?)?[..]),
        Format::Json | Format::JsonNames => Ok(LosslessMessage::from_message(
            &formats::from_json_dynamic(descriptor, utf8(bytes)?)?,
        )),
        Format::Pbtxt => Ok(LosslessMessage::from_message(
            &formats::from_text_format_dynamic(descriptor, utf8(bytes)?)?,
        )),
        Format::Hlo | Format::HloNoLayout | Format::Layout => Err(Error::new(
            ErrorKind::InvalidArgument,
            format!("{name} is read from proto formats only"),
        )),
    }
}

/// How many bytes of the input detection looks at: enough for any type
/// keyword or field name, and no copy of a long token.
const DETECT_PREFIX: usize = 64;

/// The format of `bytes`, judged from their first characters: `{` then a
/// quote is JSON, `{` then a digit, `:` or `}` is an HLO layout, a type
/// keyword, `(` or `b(` is HLO, hex digits only is hex, `name:` or `name {`
/// is text format; what is not text is binary.
pub fn detect(bytes: &[u8]) -> Format {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Format::Pb;
    };
    let t = text.trim();
    if let Some(rest) = t.strip_prefix('{') {
        let rest = rest.trim_start();
        return match rest.chars().next() {
            Some(c) if c.is_ascii_digit() || c == ':' || c == '}' => Format::Layout,
            None => Format::Layout,
            _ => Format::Json,
        };
    }
    let word_len = t
        .bytes()
        .take(DETECT_PREFIX)
        .take_while(|c| c.is_ascii_alphanumeric() || *c == b'_')
        .count();
    let word = &t[..word_len];
    // A type name (`bf16`, `f32`) is HLO even where it spells hex.
    if PrimitiveType::from_lowercase_name(word).is_ok() || t.starts_with('(') {
        return Format::Hlo;
    }
    let hex_body = t.strip_prefix("0x").unwrap_or(t);
    if hex_body
        .bytes()
        .all(|c| c.is_ascii_hexdigit() || c.is_ascii_whitespace())
    {
        return Format::Hex;
    }
    let rest = t[word_len..].trim_start();
    if word_len > 0 && (rest.starts_with(':') || rest.starts_with('{') || rest.starts_with('<')) {
        return Format::Pbtxt;
    }
    if word_len > 0 && rest.starts_with('[') {
        return Format::Hlo;
    }
    if text.chars().any(|c| c.is_control() && !c.is_whitespace()) {
        return Format::Pb;
    }
    // Text that is none of the above: report it as HLO, the likeliest.
    Format::Hlo
}
