//! The protobuf byte layer: the wire format, read as Google's runtimes read
//! it and written as XLA writes it, under the model and the formats.
//!
//! - [`Reader`] walks the bytes of one message: varints, keys, length-
//!   delimited values, fixed-width values, repeated scalars packed or not,
//!   and skipping of unknown fields (groups included, counted towards
//!   [`MAX_NESTING_DEPTH`](crate::MAX_NESTING_DEPTH));
//! - [`write`](mod@write) writes keys, varints, packed runs and
//!   length-prefixed nested messages into a caller's `Vec<u8>`;
//! - [`map_entry`] names the field numbers of a map entry, which the
//!   protobuf language fixes.
//!
//! Wire types are prost's [`WireType`] and varint lengths prost's
//! `encoded_len_varint`. What is ours: reading where prost differs from
//! Google's C++ and upb runtimes (a known field with another wire type is
//! an unknown field, not an error; groups are skipped; see
//! `docs/architecture.md`), and the varint writer, measured faster (see
//! [`write`](mod@write)).
//!
//! Nothing here knows a schema (XLA's field numbers are in
//! `proto::fields`), the model or the formats: the model's ShapeProto /
//! LayoutProto / ProgramShapeProto codec (`model::wire`) and the
//! reflective lossless codec (`formats::wire`) both build on it.

mod read;
pub(crate) mod write;

pub(crate) use prost::encoding::WireType;
pub(crate) use read::{
    DECODE_CONTEXT, Reader, Varint, VarintSink, WireError, WireResult, count_fields, each_field,
    key_of,
};

/// Map entries (`map<K, V>` is `repeated Entry { K key = 1; V value = 2; }`,
/// protobuf language guide, "Maps: Backwards compatibility").
pub(crate) mod map_entry {
    pub(crate) const KEY: u32 = 1;
    pub(crate) const VALUE: u32 = 2;
}
