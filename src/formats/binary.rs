//! The binary wire format, for the generated messages and the model types.

use bytes::{Buf, BytesMut};
use prost::Message;
use prost_reflect::{DynamicMessage, ReflectMessage};

use crate::error::Result;
use crate::formats::{LosslessMessage, json, text_format};
use crate::model::{Layout, ProgramShape, Shape};
use crate::proto::{LayoutProto, ProgramShapeProto, ShapeProto};

/// Decodes a message of type `M` from `buf`: a `&[u8]`, a
/// [`bytes::Bytes`], or any other [`Buf`].
///
/// Unknown fields are dropped, as prost does; [`LosslessMessage`] keeps
/// them.
///
/// # Errors
///
/// [`Decode`](crate::ErrorKind::Decode) for bytes that are not a
/// well-formed message of type `M` (truncated, a wrong wire type for a
/// known field, nesting deeper than 100 levels below the outermost
/// message).
///
/// ```
/// use bytes::Bytes;
/// use xla_shape::formats;
/// use xla_shape::proto::ShapeProto;
///
/// let p: ShapeProto = formats::decode(&[0x10, 0x0b, 0x1a, 0x01, 0x02][..])?;
/// assert_eq!(p.dimensions, [2]);
/// let q: ShapeProto = formats::decode(Bytes::from_static(&[0x10, 0x0b, 0x1a, 0x01, 0x02]))?;
/// assert_eq!(p, q);
/// assert!(formats::decode::<ShapeProto>(&[0x1a, 0x05, 0x02][..]).is_err());
/// # Ok::<(), xla_shape::Error>(())
/// ```
pub fn decode<M: Message + Default>(buf: impl Buf) -> Result<M> {
    Ok(M::decode(buf)?)
}

/// The encoded message, as prost writes it: fields in field-number order,
/// repeated numbers packed, defaults left out. For the messages of this
/// schema that is byte-identical to Google's runtimes.
pub fn encode_to_vec<M: Message>(message: &M) -> Vec<u8> {
    message.encode_to_vec()
}

/// Appends the encoded message to `buf`, growing it as needed.
///
/// ```
/// use bytes::BytesMut;
/// use xla_shape::formats;
/// use xla_shape::proto::ShapeProto;
///
/// let p = ShapeProto { element_type: 11, dimensions: vec![2], ..Default::default() };
/// let mut buf = BytesMut::new();
/// formats::encode_to_bytes(&p, &mut buf);
/// assert_eq!(&buf[..], [0x10, 0x0b, 0x1a, 0x01, 0x02]);
/// ```
pub fn encode_to_bytes<M: Message>(message: &M, buf: &mut BytesMut) {
    buf.reserve(message.encoded_len());
    message.encode_raw(buf);
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for crate::Shape {}
    impl Sealed for crate::Layout {}
    impl Sealed for crate::ProgramShape {}
}

/// The proto formats for the model types: [`Shape`] (as `ShapeProto`),
/// [`Layout`] (`LayoutProto`) and [`ProgramShape`] (`ProgramShapeProto`).
///
/// Reading converts the proto as `TryFrom<&proto>` does (XLA's `FromProto`
/// and validation, with XLA's messages); writing is XLA's `ToProto`, so the
/// binary form is byte-identical to XLA's and the JSON and text forms are
/// Google's renderings of it.
///
/// ```
/// use xla_shape::formats::ProtoModel;
/// use xla_shape::Shape;
///
/// let s = Shape::from_text_format(
///     "element_type: F32 dimensions: [2, 3] layout { minor_to_major: [1, 0] }",
/// )?;
/// assert_eq!(s.to_string(), "f32[2,3]{1,0}");
/// assert_eq!(
///     s.to_json(),
///     r#"{"elementType":"F32","dimensions":["2","3"],"layout":{"minorToMajor":["1","0"],"tailPaddingAlignmentInElements":"1"},"isDynamicDimension":[false,false]}"#
/// );
/// assert_eq!(Shape::decode(&s.encode_to_vec()[..])?, s);
///
/// // Invalid protos are rejected with XLA's message.
/// let err = Shape::from_json(r#"{"elementType": "F32", "dimensions": ["-2"]}"#).unwrap_err();
/// assert_eq!(err.to_string(), "Shape Error: Negative dimension at index 0: -2. Shape(f32): f32[-2]");
/// # Ok::<(), xla_shape::Error>(())
/// ```
pub trait ProtoModel: Sized + sealed::Sealed {
    /// The wire type.
    type Proto: ReflectMessage + Default;

    /// XLA's `ToProto`.
    fn to_proto_message(&self) -> Self::Proto;

    /// XLA's `FromProto` and validation.
    ///
    /// # Errors
    ///
    /// XLA's messages, as `TryFrom<&Self::Proto>`.
    fn from_proto_message(proto: &Self::Proto) -> Result<Self>;

    /// Decodes the proto from `buf` (`&[u8]`, [`bytes::Bytes`], ...) and
    /// converts it.
    ///
    /// # Errors
    ///
    /// [`Decode`](crate::ErrorKind::Decode) for malformed bytes, otherwise
    /// as [`from_proto_message`](Self::from_proto_message).
    fn decode(buf: impl Buf) -> Result<Self> {
        Self::from_proto_message(&decode(buf)?)
    }

    /// The proto's bytes, byte-identical to XLA's.
    fn encode_to_vec(&self) -> Vec<u8> {
        self.to_proto_message().encode_to_vec()
    }

    /// Appends the proto's bytes to `buf`.
    fn encode_to_bytes(&self, buf: &mut BytesMut) {
        encode_to_bytes(&self.to_proto_message(), buf)
    }

    /// The proto's JSON, compact, lowerCamelCase names.
    fn to_json(&self) -> String {
        json::to_json(&self.to_proto_message())
    }

    /// The proto's JSON, as `options` say.
    fn to_json_with(&self, options: &json::JsonOptions) -> String {
        json::to_json_with(&self.to_proto_message(), options)
    }

    /// Parses the proto's JSON and converts it.
    ///
    /// # Errors
    ///
    /// [`Format`](crate::ErrorKind::Format) for JSON that is not a
    /// message of the proto type, otherwise as
    /// [`from_proto_message`](Self::from_proto_message).
    fn from_json(json: &str) -> Result<Self> {
        Self::from_proto_message(&json::from_json(json)?)
    }

    /// The proto's text format.
    fn to_text_format(&self) -> String {
        text_format::to_text_format(&self.to_proto_message())
    }

    /// The proto's text format on one line.
    fn to_text_format_one_line(&self) -> String {
        text_format::to_text_format_one_line(&self.to_proto_message())
    }

    /// Parses the proto's text format and converts it.
    ///
    /// # Errors
    ///
    /// [`Format`](crate::ErrorKind::Format) for text that is not a message
    /// of the proto type, otherwise as
    /// [`from_proto_message`](Self::from_proto_message).
    fn from_text_format(text: &str) -> Result<Self> {
        Self::from_proto_message(&text_format::from_text_format(text)?)
    }

    /// Converts the known fields of a losslessly decoded proto (unknown
    /// fields play no part in XLA's `FromProto`).
    ///
    /// # Errors
    ///
    /// [`InvalidArgument`](crate::ErrorKind::InvalidArgument) if the
    /// message is not of the proto type, otherwise as
    /// [`from_proto_message`](Self::from_proto_message).
    fn from_lossless(message: &LosslessMessage) -> Result<Self> {
        Self::from_proto_message(&message.to_message()?)
    }

    /// The proto as a prost-reflect [`DynamicMessage`].
    fn to_dynamic(&self) -> DynamicMessage {
        LosslessMessage::from_message(&self.to_proto_message()).to_dynamic()
    }
}

/// Runs `decode` over the buffer's bytes, without copying them when they
/// are contiguous (as in `&[u8]` and `Bytes`).
fn with_contiguous<T>(mut buf: impl Buf, decode: impl FnOnce(&[u8]) -> Result<T>) -> Result<T> {
    if buf.chunk().len() == buf.remaining() {
        decode(buf.chunk())
    } else {
        decode(&buf.copy_to_bytes(buf.remaining()))
    }
}

impl ProtoModel for Shape {
    type Proto = ShapeProto;
    fn to_proto_message(&self) -> ShapeProto {
        ShapeProto::from(self)
    }
    fn from_proto_message(proto: &ShapeProto) -> Result<Self> {
        Shape::try_from(proto)
    }
    /// [`Shape::from_proto_bytes`]: bytes read as Google's runtimes read
    /// them, straight into the model.
    fn decode(buf: impl Buf) -> Result<Self> {
        with_contiguous(buf, Shape::from_proto_bytes)
    }
    /// [`Shape::to_proto_bytes`].
    fn encode_to_vec(&self) -> Vec<u8> {
        self.to_proto_bytes()
    }
    fn encode_to_bytes(&self, buf: &mut BytesMut) {
        buf.extend_from_slice(&self.to_proto_bytes());
    }
}

impl ProtoModel for Layout {
    type Proto = LayoutProto;
    fn to_proto_message(&self) -> LayoutProto {
        LayoutProto::from(self)
    }
    fn from_proto_message(proto: &LayoutProto) -> Result<Self> {
        Layout::try_from(proto)
    }
    /// [`Layout::from_proto_bytes`].
    fn decode(buf: impl Buf) -> Result<Self> {
        with_contiguous(buf, Layout::from_proto_bytes)
    }
    /// [`Layout::to_proto_bytes`].
    fn encode_to_vec(&self) -> Vec<u8> {
        self.to_proto_bytes()
    }
    fn encode_to_bytes(&self, buf: &mut BytesMut) {
        buf.extend_from_slice(&self.to_proto_bytes());
    }
}

impl ProtoModel for ProgramShape {
    type Proto = ProgramShapeProto;
    fn to_proto_message(&self) -> ProgramShapeProto {
        ProgramShapeProto::from(self)
    }
    fn from_proto_message(proto: &ProgramShapeProto) -> Result<Self> {
        ProgramShape::try_from(proto)
    }
    /// [`ProgramShape::from_proto_bytes`]: its shapes read as a standalone
    /// `ShapeProto` is.
    fn decode(buf: impl Buf) -> Result<Self> {
        with_contiguous(buf, ProgramShape::from_proto_bytes)
    }
    /// [`ProgramShape::to_proto_bytes`].
    fn encode_to_vec(&self) -> Vec<u8> {
        self.to_proto_bytes()
    }
    fn encode_to_bytes(&self, buf: &mut BytesMut) {
        buf.extend_from_slice(&self.to_proto_bytes());
    }
}
