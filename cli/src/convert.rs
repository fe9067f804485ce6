//! `convert`, and reading a shape or layout in any format (detected or
//! named) for every command.

use std::io::Write;

use clap::ValueEnum;
use prost::Message;
use serde_json::json;
use xla_shape::formats::{self, JsonOptions, LosslessMessage, ProtoFormats};
use xla_shape::proto::DESCRIPTOR_POOL;
use xla_shape::proto::ShapeProto;
use xla_shape::text::{self, ParseOptions};
use xla_shape::{ArrayShape, Error, ErrorKind, Layout, Result, Shape};

use crate::input::{self, Limits, Line, Lines, Source};
use crate::output::{Failure, Problem, write_json, write_record};

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

/// A shape as read: the validated shape and, for `--lossless`, the whole
/// message with its unknown fields.
pub struct Read {
    pub shape: Shape,
    pub lossless: Option<LosslessMessage>,
}

/// What an input holds: a shape, or a layout on its own.
pub enum Value {
    Shape(Read),
    Layout(Layout),
}

impl Value {
    /// The shape, or the error a command that needs one gives for a layout.
    pub fn into_shape(self) -> Result<Shape> {
        match self {
            Value::Shape(read) => Ok(read.shape),
            Value::Layout(layout) => Err(Error::new(
                ErrorKind::InvalidArgument,
                format!(
                    "{layout} is a layout, not a shape: give the shape with its layout, such as f32[2,3]{layout}"
                ),
            )),
        }
    }
}

/// Reads an input that must be an array shape (`index`, `strides`,
/// `draw`).
pub fn read_array(bytes: &[u8], from: Option<Format>) -> Result<ArrayShape> {
    match read_value(bytes, from, false)?.into_shape()? {
        Shape::Array(a) => Ok(a),
        other => Err(Error::new(
            ErrorKind::InvalidArgument,
            format!("{other} is not an array shape"),
        )),
    }
}

fn utf8(bytes: &[u8]) -> Result<&str> {
    std::str::from_utf8(bytes)
        .map_err(|e| Error::new(ErrorKind::Format, format!("input is not UTF-8 text: {e}")))
}

/// Reads `bytes` as `from`, or detects the format (see [`detect`]).
pub fn read_value(bytes: &[u8], from: Option<Format>, lossless: bool) -> Result<Value> {
    let from = match from {
        Some(f) => f,
        None => detect(bytes),
    };
    let proto_bytes = match from {
        Format::Hlo => {
            return Ok(Value::Shape(Read {
                shape: text::parse_shape(utf8(bytes)?.trim())?,
                lossless: None,
            }));
        }
        Format::HloNoLayout => {
            let options = ParseOptions {
                fill_missing_layouts: false,
            };
            let shape = text::parse_shape_with(utf8(bytes)?.trim(), &options)?;
            return Ok(Value::Shape(Read {
                shape,
                lossless: None,
            }));
        }
        Format::Layout => return Ok(Value::Layout(text::parse_layout(utf8(bytes)?.trim())?)),
        Format::Hex => formats::from_hex(utf8(bytes)?)?,
        Format::Pb => bytes.to_vec(),
        Format::Json | Format::JsonNames => {
            let p: ShapeProto = formats::from_json(utf8(bytes)?)?;
            p.encode_to_vec()
        }
        Format::Pbtxt => {
            let p: ShapeProto = formats::from_text_format(utf8(bytes)?)?;
            p.encode_to_vec()
        }
    };
    if lossless {
        let message = LosslessMessage::decode_as::<ShapeProto>(&proto_bytes[..])?;
        let shape = Shape::from_lossless(&message)?;
        Ok(Value::Shape(Read {
            shape,
            lossless: Some(message),
        }))
    } else {
        Ok(Value::Shape(Read {
            shape: Shape::from_proto_bytes(&proto_bytes)?,
            lossless: None,
        }))
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
    if xla_shape::PrimitiveType::from_lowercase_name(word).is_ok() || t.starts_with('(') {
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

/// The message `--lossless` or `--message` converts at the schema level.
fn schema_level(o: &Options) -> Option<&str> {
    match (&o.message, o.lossless) {
        (Some(name), _) => Some(name),
        (None, true) => Some("xla.ShapeProto"),
        (None, false) => None,
    }
}

/// Converts `bytes` to `to`. `one_line` asks for the one-line forms that
/// `--lines` writes (compact JSON, one-line text format). With `message`,
/// proto formats are converted at the schema level, as Google's runtime
/// converts them: unknown fields kept, nothing validated.
pub fn convert(
    bytes: &[u8],
    from: Option<Format>,
    to: Format,
    message: Option<&str>,
    one_line: bool,
) -> Result<Vec<u8>> {
    let from = from.unwrap_or_else(|| detect(bytes));
    if let Some(name) = message
        && from.is_proto()
    {
        return convert_message(bytes, from, to, name, one_line);
    }
    let read = match read_value(bytes, Some(from), false)? {
        Value::Layout(layout) => {
            return match to {
                Format::Hlo | Format::Layout => Ok(layout.to_string().into_bytes()),
                Format::HloNoLayout => Err(Error::new(
                    ErrorKind::InvalidArgument,
                    format!("{layout} is a layout: it has no form without layout"),
                )),
                _ => Ok(write_proto(
                    &layout,
                    Layout::to_proto_bytes,
                    None,
                    to,
                    one_line,
                )),
            };
        }
        Value::Shape(read) => read,
    };
    let shape = &read.shape;
    Ok(match to {
        Format::Hlo => shape.to_string().into_bytes(),
        Format::HloNoLayout => format!("{shape:#}").into_bytes(),
        Format::Layout => match shape {
            Shape::Array(a) => match a.layout() {
                Some(l) => l.to_string().into_bytes(),
                None => {
                    return Err(Error::new(
                        ErrorKind::InvalidArgument,
                        format!("{shape} has no layout"),
                    ));
                }
            },
            _ => {
                return Err(Error::new(
                    ErrorKind::InvalidArgument,
                    format!("{shape} is not an array: it has no layout of its own"),
                ));
            }
        },
        _ => write_proto(
            shape,
            Shape::to_proto_bytes,
            read.lossless.as_ref(),
            to,
            one_line,
        ),
    })
}

/// A message of the schema, read and written at the schema level.
fn convert_message(
    bytes: &[u8],
    from: Format,
    to: Format,
    name: &str,
    one_line: bool,
) -> Result<Vec<u8>> {
    let descriptor = DESCRIPTOR_POOL.get_message_by_name(name).ok_or_else(|| {
        Error::new(
            ErrorKind::InvalidArgument,
            format!("no message {name} in the schema (xla_data.proto, hlo.proto, metrics.proto)"),
        )
    })?;
    let message = match from {
        Format::Pb => LosslessMessage::decode(descriptor, bytes)?,
        Format::Hex => LosslessMessage::decode(descriptor, &formats::from_hex(utf8(bytes)?)?[..])?,
        Format::Json | Format::JsonNames => {
            let m = formats::from_json_dynamic(descriptor.clone(), utf8(bytes)?)?;
            LosslessMessage::decode(descriptor, &m.encode_to_vec()[..])?
        }
        Format::Pbtxt => {
            let m = formats::from_text_format_dynamic(descriptor.clone(), utf8(bytes)?)?;
            LosslessMessage::decode(descriptor, &m.encode_to_vec()[..])?
        }
        Format::Hlo | Format::HloNoLayout | Format::Layout => {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                format!("{name} is read from proto formats only"),
            ));
        }
    };
    let json = JsonOptions::new()
        .preserve_proto_field_names(to == Format::JsonNames)
        .pretty(!one_line);
    Ok(match to {
        Format::Pb => message.encode_to_vec(),
        Format::Hex => formats::to_hex(&message.encode_to_vec()).into_bytes(),
        Format::Json | Format::JsonNames => message.to_json(&json).into_bytes(),
        Format::Pbtxt if one_line => message.to_text_format_one_line().into_bytes(),
        Format::Pbtxt => message.to_text_format().into_bytes(),
        Format::Hlo | Format::HloNoLayout | Format::Layout => {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                format!("{name} is written in proto formats only"),
            ));
        }
    })
}

/// A shape or layout in a proto format; `lossless` is the whole message as
/// read, unknown fields included; `proto_bytes` is the model type's binary
/// encoding.
fn write_proto<M: ProtoFormats>(
    model: &M,
    proto_bytes: fn(&M) -> Vec<u8>,
    lossless: Option<&LosslessMessage>,
    to: Format,
    one_line: bool,
) -> Vec<u8> {
    let json = JsonOptions::new()
        .preserve_proto_field_names(to == Format::JsonNames)
        .pretty(!one_line);
    match (to, lossless) {
        (Format::Hex, _) => formats::to_hex(&write_proto(
            model,
            proto_bytes,
            lossless,
            Format::Pb,
            one_line,
        )),
        (Format::Json | Format::JsonNames, Some(m)) => m.to_json(&json),
        (Format::Json | Format::JsonNames, None) => model.to_json_with(&json),
        (Format::Pbtxt, Some(m)) if one_line => m.to_text_format_one_line(),
        (Format::Pbtxt, Some(m)) => m.to_text_format(),
        (Format::Pbtxt, None) if one_line => model.to_text_format_one_line(),
        (Format::Pbtxt, None) => model.to_text_format(),
        (_, Some(m)) => return m.encode_to_vec(),
        (_, None) => return proto_bytes(model),
    }
    .into_bytes()
}

/// The options of `convert`.
pub struct Options {
    pub from: Option<Format>,
    pub to: Format,
    pub lossless: bool,
    pub message: Option<String>,
    pub lines: bool,
    pub json: bool,
}

/// `convert`: the whole input, or with `--lines` each line of it.
pub fn run(
    input: Option<&str>,
    o: &Options,
    limits: &Limits,
    out: &mut impl Write,
) -> std::result::Result<(), Failure> {
    if o.lossless && !(o.to.is_proto() && o.from.is_none_or(Format::is_proto)) {
        return Err(Failure::Usage(
            "--lossless keeps unknown proto fields: use it with proto formats only (hex, pb, json, json-names, pbtxt)".into(),
        ));
    }
    if o.message.is_some() && !(o.to.is_proto() && o.from.is_none_or(Format::is_proto)) {
        return Err(Failure::Usage(
            "--message converts a message of the schema: use it with proto formats only (hex, pb, json, json-names, pbtxt)".into(),
        ));
    }
    if o.to == Format::Pb && (o.lines || o.json) {
        return Err(Failure::Usage(
            "--lines and --json write text, not binary protos: use --to hex".into(),
        ));
    }
    if o.lines {
        if o.from == Some(Format::Pb) {
            return Err(Failure::Usage(
                "--lines cannot read binary protos: use hex".into(),
            ));
        }
        return lines(input, o, limits, out);
    }
    let bytes = input::read_all(input, limits.max_input)?;
    let converted = convert(&bytes, o.from, o.to, schema_level(o), false)?;
    if o.json {
        let text = String::from_utf8_lossy(&converted);
        write_json(out, &json!({ "output": text }))?;
        return Ok(());
    }
    out.write_all(&converted)?;
    if o.to != Format::Pb && !converted.ends_with(b"\n") {
        out.write_all(b"\n")?;
    }
    Ok(())
}

/// `convert --lines`: one output line per input line, `error: ...` (or an
/// error object) for the lines that fail.
fn lines(
    input: Option<&str>,
    o: &Options,
    limits: &Limits,
    out: &mut impl Write,
) -> std::result::Result<(), Failure> {
    let mut lines = Lines::new(Source::of(input), limits.max_line)?;
    let mut failed = false;
    while let Some((number, line)) = lines.next_line()? {
        let answer = match line {
            Line::TooLong(n) => Err(input::too_long(n, limits.max_line)),
            Line::Text(bytes) if bytes.trim_ascii().is_empty() => Err(input::no_input()),
            Line::Text(bytes) => convert(bytes, o.from, o.to, schema_level(o), true)
                .map(|c| {
                    let text = String::from_utf8_lossy(&c).into_owned();
                    let fields = json!({ "output": text });
                    (text, fields)
                })
                .map_err(Problem::from),
        };
        failed |= write_record(out, o.json, number, answer)?;
    }
    if failed {
        Err(Failure::Reported)
    } else {
        Ok(())
    }
}
