//! # xla-shape
//!
//! XLA's shape data model in pure Rust: read, check, convert and reason
//! about XLA shapes without linking XLA.
//!
//! - [`proto`]: the wire types of `xla/xla_data.proto` (prost), holding
//!   anything that is on the wire;
//! - [`Shape`], [`ArrayShape`], [`Layout`], [`Tile`], [`SplitConfig`],
//!   [`ProgramShape`], [`ShapeIndex`], [`PrimitiveType`]: validated types.
//!   Converting a proto into them runs XLA's `FromProto` and validation,
//!   with XLA's error messages; converting back is XLA's `ToProto`, and the
//!   encoding is byte-identical to XLA's;
//! - [`formats`]: proto3 JSON, text format, hex, lossless round trips
//!   that keep unknown fields, serde;
//! - [`text`]: HLO shape and layout strings (`FromStr`, `Display`) and
//!   [`text::shapes_in_hlo`];
//! - [`shape_util`], [`layout_util`], [`index_util`], [`primitive_util`]:
//!   XLA's utilities, one function per upstream function
//!   (`ShapeUtil::ElementsIn` is [`shape_util::elements_in`]);
//! - [`tiling`], [`strides`], [`relayout`]: beyond XLA, every tile of a
//!   tiled layout applied, strides for DLPack, NumPy, DirectML and ndarray,
//!   and copies of array data between layouts.
//!
//! ## One path per operation
//!
//! | operation | read | write |
//! | --- | --- | --- |
//! | proto bytes | [`Shape::from_proto_bytes`] | [`Shape::to_proto_bytes`], [`Shape::encode_to`] (appends) |
//! | generated message | `Shape::try_from(&ShapeProto)` (XLA's `FromProto`) | [`Shape::to_proto`] (XLA's `ToProto`) |
//! | HLO string | `"f32[2]{0}".parse::<Shape>()` ([`FromStr`](std::str::FromStr)) | [`Display`](std::fmt::Display) (`to_string()`) |
//! | JSON, text format, lossless | [`formats::ProtoFormats`] (feature `formats`) | the same |
//! | serde | `Deserialize`: proto3 JSON; [`serde::compact`]: HLO string (feature `formats`) | `Serialize`, [`serde::compact`] |
//!
//! [`Layout`] and [`ProgramShape`] have the same methods. The generated
//! messages of [`proto`] are prost messages: their bytes are prost's own
//! `prost::Message::decode` and `encode_to_vec` (a `prost::DecodeError`
//! converts into [`Error`] with `?`).
//!
//! Errors are one type, [`Error`], whose [`ErrorKind`] a caller can match
//! and whose message is XLA's text wherever XLA has one. Nothing derived
//! from input data panics.
//!
//! XLA itself (jaxlib 0.10.2) is the reference for every behaviour; the
//! deliberate differences are listed in `docs/differences.md`.
//!
//! ```
//! use xla_shape::{ArrayShape, Layout, PrimitiveType, Shape, Tile};
//!
//! // bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}, as a TPU stores it.
//! let layout = Layout::new([3, 2, 0, 1])
//!     .with_tiles(vec![Tile::new([8, 128])?, Tile::new([2, 1])?]);
//! let shape = Shape::from(
//!     ArrayShape::new(PrimitiveType::Bf16, [8, 1, 1280, 16384])?.with_layout(Some(layout))?,
//! );
//! assert_eq!(shape.to_string(), "bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}");
//!
//! // Its ShapeProto bytes are what XLA writes, and decode back to it.
//! let bytes = shape.to_proto_bytes();
//! assert_eq!(bytes.len(), 41);
//! assert_eq!(Shape::from_proto_bytes(&bytes)?, shape);
//!
//! // Invalid input is rejected with XLA's message.
//! let err = Shape::from_proto_bytes(&[0x10, 0x0b, 0x1a, 0x01, 0x7f, 0x2a, 0x02, 0x0a, 0x00]);
//! assert_eq!(
//!     err.unwrap_err().to_string(),
//!     "layout minor_to_major field contains 0 elements, but shape has 1 dimensions: {}; shape: f32[127]"
//! );
//! # Ok::<(), xla_shape::Error>(())
//! ```

#![warn(missing_docs)]

pub mod error;
#[cfg(feature = "formats")]
pub mod formats;
pub mod hlo;
pub mod index_util;
pub mod interop;
pub mod layout_util;
mod limits;
pub mod memory;
mod model;
pub mod primitive_util;
pub mod proto;
mod protobuf;
pub mod relayout;
pub mod shape_util;
pub mod sharding;
pub mod stablehlo;
#[cfg(feature = "formats")]
pub mod serde {
    //! serde support beyond the model types' own `Serialize` /
    //! `Deserialize` (the proto3 JSON of their protos, see
    //! [`formats`](crate::formats)): [`compact`], XLA's printed form as a
    //! field's representation.
    pub use crate::formats::serde::compact;
}
pub mod strides;
#[cfg(test)]
mod test_support;
pub mod text;
pub mod tiling;

pub use error::{Diagnostic, Error, ErrorContext, ErrorKind, Location, Result};

/// The Rust examples of README.md, run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// The Rust examples of docs/sharding.md, run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/sharding.md")]
pub struct ShardingDocDoctests;
pub use limits::MAX_NESTING_DEPTH;
pub use model::{
    ArrayShape, Layout, LayoutEqual, PrimitiveType, ProgramShape, Shape, ShapeEqual, ShapeIndex,
    SplitConfig, Tile,
};
