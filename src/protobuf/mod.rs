//! The protobuf byte layer: the wire format, read as Google's runtimes read
//! it and written as XLA writes it, under the model and the formats.
//!
//! - [`Reader`] walks the bytes of one message: varints, keys, length-
//!   delimited values, fixed-width values, repeated scalars packed or not,
//!   and skipping of unknown fields (groups included, counted towards
//!   [`MAX_NESTING_DEPTH`]);
//! - [`write`] writes keys, varints, packed runs and length-prefixed nested
//!   messages into a caller's `Vec<u8>`;
//! - [`fields`] names the field numbers of `xla/xla_data.proto` that the
//!   hand-written codecs use.
//!
//! Wire types are prost's [`WireType`], and varint and key encoding are
//! prost's `encoding` helpers; what is ours is what prost does differently
//! from Google's C++ and upb runtimes (a known field with another wire type
//! is an unknown field, not an error; groups are skipped; see
//! `docs/architecture.md`).
//!
//! Nothing here knows the model or the formats: the model's ShapeProto /
//! LayoutProto / ProgramShapeProto codec (`model::wire`) and the
//! reflective lossless codec (`formats::wire`) both build on it.

pub(crate) mod fields;
mod read;
pub(crate) mod write;

pub(crate) use prost::encoding::WireType;
pub(crate) use read::{DECODE_CONTEXT, Reader, VarintSink, WireError, WireResult};

/// The deepest nesting accepted, counted in messages below the root (a
/// tuple element or buffer is one level, a layout one, its tiles, split
/// configs and physical shape one more): protobuf's default recursion
/// limit (`io::CodedInputStream::default_recursion_limit_` in C++, the same
/// in upb and the Python runtime). Every decoder and parser of the crate
/// counts against this one constant: the wire decoders, the conversion of
/// a `ShapeProto` built in memory, the HLO text parser (so that every
/// shape it accepts has a `ShapeProto` that decodes) and the JSON and text
/// formats.
pub const MAX_NESTING_DEPTH: usize = 100;
