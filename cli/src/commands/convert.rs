//! `convert`: a shape (or layout) from one format to another, or a message
//! of the schema at the schema level (`--lossless`, `--message`).

use std::io::Write;

use serde_json::json;
use xla_shape::formats::{self, JsonOptions, ProtoFormats};
use xla_shape::{Error, ErrorKind, Layout, Result, Shape};

use crate::Context;
use crate::input::{self, Format, Line, Source, Value, detect, read_message, read_value};
use crate::output::{Failure, Problem};

/// The arguments of `convert`.
#[derive(Clone, Debug, clap::Args)]
pub struct Args {
    /// The input format (detected when absent).
    #[arg(long, value_enum)]
    pub from: Option<Format>,
    /// The output format.
    #[arg(long, value_enum)]
    pub to: Format,
    /// Convert at the schema level, as Google's runtime does: keep unknown
    /// fields, do not validate (proto formats only).
    #[arg(long)]
    pub lossless: bool,
    /// The message of the schema to convert (xla_data.proto, hlo.proto,
    /// metrics.proto), at the schema level: xla.LayoutProto,
    /// xla.HloModuleProto, ... (default xla.ShapeProto; proto formats
    /// only).
    #[arg(long, value_name = "NAME")]
    pub message: Option<String>,
    /// Each line of the input is one shape; one output line each.
    #[arg(long)]
    pub lines: bool,
    /// The input (standard input when absent or '-').
    pub input: Option<String>,
}

/// The message `--lossless` or `--message` converts at the schema level.
fn schema_level(o: &Args) -> Option<&str> {
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
    let shape = match read_value(bytes, Some(from))? {
        Value::Layout(layout) => {
            return match to {
                Format::Hlo | Format::Layout => Ok(layout.to_string().into_bytes()),
                Format::HloNoLayout => Err(Error::new(
                    ErrorKind::InvalidArgument,
                    format!("{layout} is a layout: it has no form without layout"),
                )),
                _ => Ok(write_proto(&layout, Layout::to_proto_bytes, to, one_line)),
            };
        }
        Value::Shape(shape) => shape,
    };
    let shape = &shape;
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
        _ => write_proto(shape, Shape::to_proto_bytes, to, one_line),
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
    let message = read_message(bytes, from, name)?;
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

/// A shape or layout in a proto format; `proto_bytes` is the model type's
/// binary encoding.
fn write_proto<M: ProtoFormats>(
    model: &M,
    proto_bytes: fn(&M) -> Vec<u8>,
    to: Format,
    one_line: bool,
) -> Vec<u8> {
    let json = JsonOptions::new()
        .preserve_proto_field_names(to == Format::JsonNames)
        .pretty(!one_line);
    match to {
        Format::Hex => formats::to_hex(&proto_bytes(model)),
        Format::Json | Format::JsonNames => model.to_json_with(&json),
        Format::Pbtxt if one_line => model.to_text_format_one_line(),
        Format::Pbtxt => model.to_text_format(),
        _ => return proto_bytes(model),
    }
    .into_bytes()
}

/// `convert`: the whole input, or with `--lines` each line of it.
pub fn run(o: &Args, cx: &mut Context<impl Write>) -> std::result::Result<(), Failure> {
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
    if o.to == Format::Pb && (o.lines || cx.json) {
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
        return lines(o, cx);
    }
    let bytes = cx.read_all(o.input.as_deref())?;
    let converted = convert(&bytes, o.from, o.to, schema_level(o), false)?;
    if cx.json {
        let text = String::from_utf8_lossy(&converted);
        cx.write_json(&json!({ "output": text }))?;
        return Ok(());
    }
    cx.out.write_all(&converted)?;
    if o.to != Format::Pb && !converted.ends_with(b"\n") {
        cx.out.write_all(b"\n")?;
    }
    Ok(())
}

/// `convert --lines`: one output line per input line, `error: ...` (or an
/// error object) for the lines that fail.
fn lines(o: &Args, cx: &mut Context<impl Write>) -> std::result::Result<(), Failure> {
    let mut lines = cx.lines(Source::of(o.input.as_deref()))?;
    let mut failed = false;
    while let Some((number, line)) = lines.next_line()? {
        let answer = match line {
            Line::TooLong(n) => Err(input::too_long(n, cx.limits.max_line)),
            // In hex and text format an empty line is the empty message, as
            // Google's runtimes read zero bytes or empty text; elsewhere it
            // holds nothing.
            Line::Text(bytes)
                if bytes.trim_ascii().is_empty()
                    && !matches!(o.from, Some(Format::Hex | Format::Pbtxt)) =>
            {
                Err(input::no_input())
            }
            Line::Text(bytes) => convert(bytes, o.from, o.to, schema_level(o), true)
                .map(|c| {
                    let text = String::from_utf8_lossy(&c).into_owned();
                    let fields = json!({ "output": text });
                    (text, fields)
                })
                .map_err(Problem::from),
        };
        failed |= cx.write_record(number, answer)?;
    }
    if failed {
        Err(Failure::Reported)
    } else {
        Ok(())
    }
}
