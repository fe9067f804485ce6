//! Proto formats: canonical proto3 JSON, text format, lossless round
//! trips, for every message of the schema and for the model types.
//!
//! Every function here is generic over the generated messages of
//! [`crate::proto`] (any [`prost_reflect::ReflectMessage`]); the model
//! types [`Shape`](crate::Shape), [`Layout`](crate::Layout) and
//! [`ProgramShape`](crate::ProgramShape) get the same through
//! [`ProtoFormats`], and implement `serde`'s `Serialize` / `Deserialize`
//! as the proto3 JSON of their proto.
//!
//! Binary protos have one spelling each: the model types'
//! `from_proto_bytes` / `to_proto_bytes` / `encode_to`
//! ([`Shape::from_proto_bytes`](crate::Shape::from_proto_bytes)), and
//! prost's own [`prost::Message::decode`] / `encode_to_vec` for the
//! generated messages (its `DecodeError` converts into
//! [`Error`] with `?`).
//!
//! | format | write | read |
//! | --- | --- | --- |
//! | JSON | [`to_json`], [`to_json_with`] | [`from_json`] |
//! | text format | [`to_text_format`], [`to_text_format_one_line`] | [`from_text_format`] |
//! | binary, keeping unknown fields | [`LosslessMessage::encode_to_vec`] | [`LosslessMessage::decode`] |
//! | hex dumps | [`to_hex`] | [`from_hex`] |
//!
//! The reference is Google's protobuf runtime (the Python runtime 7.36.2
//! with its upb core, as the golden data was made): JSON and text format
//! are byte-identical to `json_format.MessageToJson` and
//! `text_format.MessageToString`, lossless re-encoding to
//! `SerializeToString`. The deliberate differences are listed in
//! `docs/differences.md ("Proto formats")`.
//!
//! ```
//! use prost::Message;
//! use xla_shape::formats::{self, ProtoFormats};
//! use xla_shape::proto::ShapeProto;
//! use xla_shape::Shape;
//!
//! let bytes = formats::from_hex("100b 1a0102 2a03 0a0100")?;
//! let p = ShapeProto::decode(&bytes[..])?;
//! assert_eq!(formats::to_json(&p), r#"{"elementType":"F32","dimensions":["2"],"layout":{"minorToMajor":["0"]}}"#);
//! assert_eq!(
//!     formats::to_text_format_one_line(&p),
//!     "element_type: F32 dimensions: 2 layout { minor_to_major: 0 }"
//! );
//!
//! // The model types: validated on the way in, XLA's encoding on the way out.
//! let shape = Shape::from_json(r#"{"elementType": "F32", "dimensions": ["2"]}"#)?;
//! assert_eq!(shape.to_string(), "f32[2]");
//! assert_eq!(formats::to_hex(&shape.to_proto_bytes()), "100b1a0102320100");
//! # Ok::<(), xla_shape::Error>(())
//! ```

mod elide;
mod float;
mod hex;
mod json;
mod lossless;
mod model;
mod retired;
pub(crate) mod serde;
mod text_format;
mod wire;

pub use hex::{from_hex, to_hex};
pub use json::{JsonOptions, from_json, from_json_dynamic, to_json, to_json_with};
pub use lossless::LosslessMessage;
pub use model::ProtoFormats;
pub use retired::RetiredField;
pub use text_format::{
    from_text_format, from_text_format_dynamic, to_text_format, to_text_format_one_line,
};

use prost_reflect::{DynamicMessage, ReflectMessage, Value};

use crate::error::{Error, ErrorKind, Result};

/// The fields retired from the schema that `message` carries, at any
/// nesting level, in the order of a walk of the message (outer levels
/// first, fields in field-number order): LayoutProto's `padded_dimensions`,
/// `padding_value`, `format` and `max_sparse_elements` (the `reserved 2` to
/// `reserved 5` of `LayoutProto` in `xla/xla_data.proto`), which
/// files written by TensorFlow before their removal carry. XLA ignores
/// them; [`LosslessMessage`] keeps them.
///
/// ```
/// use xla_shape::formats::{self, LosslessMessage};
/// use xla_shape::proto::LayoutProto;
///
/// // A 2017 layout: minor_to_major {1, 0}, padded_dimensions [8, 128]
/// // (field 2, packed), padding_value ZERO_PAD (field 3, varint 1).
/// let bytes = formats::from_hex("0a020100 1203088001 1801")?;
/// let m = LosslessMessage::decode_as::<LayoutProto>(&bytes[..])?;
/// let names: Vec<_> = formats::retired_fields(&m).iter().map(|f| f.name()).collect();
/// assert_eq!(names, ["padded_dimensions", "padding_value"]);
/// assert_eq!(m.encode_to_vec(), bytes);
/// # Ok::<(), xla_shape::Error>(())
/// ```
pub fn retired_fields(message: &LosslessMessage) -> Vec<RetiredField> {
    message.retired_fields()
}

/// Nesting beyond which parsing runs on a thread of its own with a large
/// stack: prost-reflect's parsers recurse once per level, with frames of
/// tens of kilobytes in unoptimised builds, so the 100 levels the formats
/// allow could overflow a 2 MiB thread stack.
pub(crate) const SHALLOW_NESTING: usize = 16;

/// The stack of that thread (address space; only what is used is touched).
const DEEP_STACK_BYTES: usize = 64 << 20;

/// Runs `f` here, or for `deep` input on a scoped thread with a large stack.
pub(crate) fn with_stack_for<T: Send>(
    deep: bool,
    f: impl FnOnce() -> Result<T> + Send,
) -> Result<T> {
    if !deep {
        return f();
    }
    std::thread::scope(|scope| {
        let handle = std::thread::Builder::new()
            .name("xla-shape-deep-parse".into())
            .stack_size(DEEP_STACK_BYTES)
            .spawn_scoped(scope, f)
            .map_err(|e| {
                Error::new(
                    ErrorKind::Format,
                    format!("cannot start a thread to parse deeply nested input: {e}"),
                )
            })?;
        handle
            .join()
            .unwrap_or_else(|payload| std::panic::resume_unwind(payload))
    })
}

/// The most bytes of a parser's message kept in ours. A name or string of
/// the input that the parser quotes in its message (an unknown field or
/// enum name of hundreds of megabytes) is cut here, so that an error never
/// holds a second copy of the input; every message of a valid schema's
/// names fits.
pub(crate) const MAX_ERROR_MESSAGE_BYTES: usize = 4096;

/// `prefix` then `cause`, cut after [`MAX_ERROR_MESSAGE_BYTES`] (at a
/// character boundary, marked by `...`) without formatting the rest.
pub(crate) fn bounded_message(prefix: &str, cause: &dyn std::fmt::Display) -> String {
    struct Bounded {
        out: String,
        cut: bool,
    }
    impl std::fmt::Write for Bounded {
        fn write_str(&mut self, s: &str) -> std::fmt::Result {
            let room = MAX_ERROR_MESSAGE_BYTES.saturating_sub(self.out.len());
            if s.len() <= room {
                self.out.push_str(s);
                return Ok(());
            }
            let mut end = room;
            while !s.is_char_boundary(end) {
                end -= 1;
            }
            self.out.push_str(&s[..end]);
            self.cut = true;
            // Stops the formatting of the rest.
            Err(std::fmt::Error)
        }
    }
    let mut b = Bounded {
        out: String::from(prefix),
        cut: false,
    };
    // An error here is the cut, or a `Display` that failed: either way the
    // text so far is the message.
    let _ = std::fmt::Write::write_fmt(&mut b, format_args!("{cause}"));
    if b.cut {
        b.out.push_str("...");
    }
    b.out
}

/// Whether a proto3 field without presence holding `value` is unset: its
/// default, with floats compared bit for bit (`-0.0` is a value, as
/// Google's runtimes treat it).
pub(crate) fn is_default_value(value: &Value) -> bool {
    match value {
        Value::Bool(b) => !*b,
        Value::I32(n) | Value::EnumNumber(n) => *n == 0,
        Value::I64(n) => *n == 0,
        Value::U32(n) => *n == 0,
        Value::U64(n) => *n == 0,
        Value::F32(f) => f.to_bits() == 0,
        Value::F64(f) => f.to_bits() == 0,
        Value::String(s) => s.is_empty(),
        Value::Bytes(b) => b.is_empty(),
        Value::List(l) => l.is_empty(),
        Value::Map(m) => m.is_empty(),
        Value::Message(_) => false,
    }
}

/// A parsed dynamic message as a message of type `M`.
pub(crate) fn transcode<M: ReflectMessage + Default>(message: &DynamicMessage) -> Result<M> {
    Ok(M::decode(
        prost::Message::encode_to_vec(message).as_slice(),
    )?)
}

/// The nesting depth of `message`, counting it as 1 (map entries do not
/// count, as in `json_format`).
pub(crate) fn dynamic_depth(message: &DynamicMessage) -> usize {
    fn value_depth(v: &Value) -> usize {
        match v {
            Value::Message(m) => dynamic_depth(m),
            Value::List(l) => l.iter().map(value_depth).max().unwrap_or(0),
            Value::Map(m) => m.values().map(value_depth).max().unwrap_or(0),
            _ => 0,
        }
    }
    1 + message
        .fields()
        .map(|(_, v)| value_depth(v))
        .max()
        .unwrap_or(0)
}
