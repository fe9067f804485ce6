//! Reading a shape in any format (detected or named) and writing it in
//! another.

use clap::ValueEnum;
use xla_shape::formats::{self, JsonOptions, LosslessMessage, ProtoModel};
use xla_shape::proto::ShapeProto;
use xla_shape::text::{self, ParseOptions};
use xla_shape::{Error, Result, Shape};

/// A shape format on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// HLO shape string, with layout: `f32[2,3]{1,0}`.
    Hlo,
    /// HLO shape string without layout: `f32[2,3]`.
    HloNoLayout,
    /// ShapeProto bytes as lowercase hex.
    Hex,
    /// ShapeProto bytes.
    Pb,
    /// Proto3 JSON, lowerCamelCase names.
    Json,
    /// Proto3 JSON, proto field names.
    JsonNames,
    /// Protobuf text format.
    Pbtxt,
}

impl Format {
    /// Whether this is a form of the ShapeProto message.
    pub fn is_proto(self) -> bool {
        !matches!(self, Format::Hlo | Format::HloNoLayout)
    }
}

/// A shape as read: the validated shape and, for `--lossless`, the whole
/// message with its unknown fields.
pub struct Read {
    pub shape: Shape,
    pub lossless: Option<LosslessMessage>,
}

fn utf8(bytes: &[u8]) -> Result<&str> {
    std::str::from_utf8(bytes).map_err(|e| {
        Error::new(
            xla_shape::ErrorKind::Format,
            format!("input is not UTF-8 text: {e}"),
        )
    })
}

/// Reads `bytes` as `from`, or detects the format: text that parses as an
/// HLO shape, hex, JSON (`{`), protobuf text format, else binary.
pub fn read_shape(bytes: &[u8], from: Option<Format>, lossless: bool) -> Result<Read> {
    let from = match from {
        Some(f) => f,
        None => detect(bytes),
    };
    let proto_bytes = match from {
        Format::Hlo => {
            return Ok(Read {
                shape: text::parse_shape(utf8(bytes)?.trim())?,
                lossless: None,
            });
        }
        Format::HloNoLayout => {
            let options = ParseOptions {
                fill_missing_layouts: false,
            };
            let shape = text::parse_shape_with(utf8(bytes)?.trim(), &options)?;
            return Ok(Read {
                shape,
                lossless: None,
            });
        }
        Format::Hex => formats::from_hex(utf8(bytes)?)?,
        Format::Pb => bytes.to_vec(),
        Format::Json | Format::JsonNames => {
            let p: ShapeProto = formats::from_json(utf8(bytes)?)?;
            formats::encode_to_vec(&p)
        }
        Format::Pbtxt => {
            let p: ShapeProto = formats::from_text_format(utf8(bytes)?)?;
            formats::encode_to_vec(&p)
        }
    };
    if lossless {
        let message = LosslessMessage::decode_as::<ShapeProto>(&proto_bytes[..])?;
        let shape = Shape::from_lossless(&message)?;
        Ok(Read {
            shape,
            lossless: Some(message),
        })
    } else {
        Ok(Read {
            shape: Shape::from_proto_bytes(&proto_bytes)?,
            lossless: None,
        })
    }
}

/// The format of `bytes`, judged from their first characters: `{` is JSON,
/// a type keyword, `(` or `b(` is HLO, hex digits only is hex, `name:` or
/// `name {` is text format; what is not text is binary.
pub fn detect(bytes: &[u8]) -> Format {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Format::Pb;
    };
    let t = text.trim();
    if t.starts_with('{') {
        return Format::Json;
    }
    let word: String = t
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    // A type name (`bf16`, `f32`) is HLO even where it spells hex.
    if xla_shape::PrimitiveType::from_lowercase_name(&word).is_ok() || t.starts_with('(') {
        return Format::Hlo;
    }
    let hex_body = t.strip_prefix("0x").unwrap_or(t);
    if !hex_body.is_empty()
        && hex_body
            .chars()
            .all(|c| c.is_ascii_hexdigit() || c.is_whitespace())
    {
        return Format::Hex;
    }
    let rest = t[word.len()..].trim_start();
    if !word.is_empty() && (rest.starts_with(':') || rest.starts_with('{') || rest.starts_with('<'))
    {
        return Format::Pbtxt;
    }
    if !word.is_empty() && rest.starts_with('[') {
        return Format::Hlo;
    }
    if t.is_empty() || text.chars().any(|c| c.is_control() && !c.is_whitespace()) {
        return Format::Pb;
    }
    // Text that is none of the above: report it as HLO, the likeliest.
    Format::Hlo
}

/// Converts `bytes` to `to`. `one_line` asks for the one-line forms that
/// `--lines` writes (compact JSON, one-line text format).
pub fn convert(
    bytes: &[u8],
    from: Option<Format>,
    to: Format,
    lossless: bool,
    one_line: bool,
) -> Result<Vec<u8>> {
    let read = read_shape(bytes, from, lossless)?;
    let shape = &read.shape;
    let json = |names: bool| {
        JsonOptions::new()
            .preserve_proto_field_names(names)
            .pretty(!one_line)
    };
    let text_format = |m: Option<&LosslessMessage>| match (m, one_line) {
        (Some(m), true) => m.to_text_format_one_line(),
        (Some(m), false) => m.to_text_format(),
        (None, true) => shape.to_text_format_one_line(),
        (None, false) => shape.to_text_format(),
    };
    let message = read.lossless.as_ref();
    Ok(match to {
        Format::Hlo => shape.to_string().into_bytes(),
        Format::HloNoLayout => format!("{shape:#}").into_bytes(),
        Format::Hex => formats::to_hex(&proto_bytes(shape, message)).into_bytes(),
        Format::Pb => proto_bytes(shape, message),
        Format::Json | Format::JsonNames => {
            let options = json(to == Format::JsonNames);
            match message {
                Some(m) => m.to_json(&options),
                None => shape.to_json_with(&options),
            }
            .into_bytes()
        }
        Format::Pbtxt => text_format(message).into_bytes(),
    })
}

fn proto_bytes(shape: &Shape, lossless: Option<&LosslessMessage>) -> Vec<u8> {
    match lossless {
        Some(m) => m.encode_to_vec(),
        None => shape.to_proto_bytes(),
    }
}
