//! JSON, text format and the lossless bridge for the model types.

use prost_reflect::DynamicMessage;

use crate::error::Result;
use crate::formats::{LosslessMessage, json, text_format};
use crate::model::{Layout, ProgramShape, Shape};
use crate::proto::{LayoutProto, ProgramShapeProto, ShapeProto};

pub(crate) mod sealed {
    use prost_reflect::ReflectMessage;

    use crate::error::Result;

    /// A model type and its proto, converted as `From<&Self> for Proto`
    /// and `TryFrom<&Proto> for Self` do; outside the crate those are the
    /// spellings to use.
    pub trait Sealed: Sized {
        type Proto: ReflectMessage + Default;
        fn to_message(&self) -> Self::Proto;
        fn from_message(proto: &Self::Proto) -> Result<Self>;
    }
}

/// The proto formats of [`Shape`] (as `ShapeProto`), [`Layout`]
/// (`LayoutProto`) and [`ProgramShape`] (`ProgramShapeProto`) that have no
/// other spelling: proto3 JSON, the text format, and the bridge to
/// [`LosslessMessage`] and prost-reflect's [`DynamicMessage`].
///
/// Each operation has one path; this trait holds only the last row:
///
/// | operation | path |
/// | --- | --- |
/// | bytes | `Shape::from_proto_bytes`, `to_proto_bytes`, `encode_to` (also on `Layout`, `ProgramShape`) |
/// | generated message | `TryFrom<&ShapeProto> for Shape`, `Shape::to_proto` (or `ShapeProto::from(&shape)`) |
/// | HLO string | `FromStr` (`"f32[2]".parse()`), `Display` |
/// | JSON, text format, lossless | this trait |
///
/// Reading converts the proto as `TryFrom<&proto>` does (XLA's `FromProto`
/// and validation, with XLA's messages); writing renders XLA's `ToProto`
/// as Google's protobuf runtime does (`json_format.MessageToJson`,
/// `text_format.MessageToString`).
///
/// ```
/// use xla_shape::formats::ProtoFormats;
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
/// assert_eq!(Shape::from_json(&s.to_json())?, s);
///
/// // Invalid protos are rejected with XLA's message.
/// let err = Shape::from_json(r#"{"elementType": "F32", "dimensions": ["-2"]}"#).unwrap_err();
/// assert_eq!(err.to_string(), "Shape Error: Negative dimension at index 0: -2. Shape(f32): f32[-2]");
/// # Ok::<(), xla_shape::Error>(())
/// ```
///
/// The trait is sealed: it is implemented for the three model types only.
pub trait ProtoFormats: sealed::Sealed {
    /// The proto's JSON, compact, lowerCamelCase names.
    #[doc(alias = "MessageToJson")]
    fn to_json(&self) -> String {
        json::to_json(&self.to_message())
    }

    /// The proto's JSON, as `options` say.
    ///
    /// ```
    /// use xla_shape::formats::{JsonOptions, ProtoFormats};
    /// use xla_shape::Layout;
    ///
    /// let l: Layout = "{1,0}".parse()?;
    /// let json = l.to_json_with(&JsonOptions::new().preserve_proto_field_names(true));
    /// assert!(json.starts_with(r#"{"minor_to_major":["1","0"]"#));
    /// assert_eq!(Layout::from_json(&json)?, l);
    /// # Ok::<(), xla_shape::Error>(())
    /// ```
    fn to_json_with(&self, options: &json::JsonOptions) -> String {
        json::to_json_with(&self.to_message(), options)
    }

    /// Parses the proto's JSON and converts it.
    ///
    /// # Errors
    ///
    /// [`Format`](crate::ErrorKind::Format) for JSON that is not a
    /// message of the proto type, otherwise XLA's messages, as
    /// `TryFrom<&proto>`.
    #[doc(alias = "Parse")]
    fn from_json(json: &str) -> Result<Self> {
        Self::from_message(&json::from_json(json)?)
    }

    /// The proto's text format.
    #[doc(alias = "MessageToString")]
    fn to_text_format(&self) -> String {
        text_format::to_text_format(&self.to_message())
    }

    /// The proto's text format on one line.
    ///
    /// ```
    /// use xla_shape::formats::ProtoFormats;
    /// use xla_shape::Shape;
    ///
    /// let s: Shape = "f32[2,3]{1,0}".parse()?;
    /// let line = s.to_text_format_one_line();
    /// assert!(!line.contains('\n'));
    /// assert_eq!(Shape::from_text_format(&line)?, s);
    /// # Ok::<(), xla_shape::Error>(())
    /// ```
    fn to_text_format_one_line(&self) -> String {
        text_format::to_text_format_one_line(&self.to_message())
    }

    /// Parses the proto's text format and converts it.
    ///
    /// # Errors
    ///
    /// [`Format`](crate::ErrorKind::Format) for text that is not a message
    /// of the proto type, otherwise XLA's messages, as `TryFrom<&proto>`.
    fn from_text_format(text: &str) -> Result<Self> {
        Self::from_message(&text_format::from_text_format(text)?)
    }

    /// Converts the known fields of a losslessly decoded proto (unknown
    /// fields play no part in XLA's `FromProto`).
    ///
    /// ```
    /// use xla_shape::formats::{LosslessMessage, ProtoFormats};
    /// use xla_shape::proto::ShapeProto;
    /// use xla_shape::Shape;
    ///
    /// // f32[2] and an unknown field 20 (varint 5).
    /// let bytes = [0x10, 0x0b, 0x1a, 0x01, 0x02, 0xa0, 0x01, 0x05];
    /// let m = LosslessMessage::decode_as::<ShapeProto>(&bytes[..])?;
    /// assert_eq!(Shape::from_lossless(&m)?.to_string(), "f32[2]");
    /// assert_eq!(m.encode_to_vec(), bytes);
    /// # Ok::<(), xla_shape::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`InvalidArgument`](crate::ErrorKind::InvalidArgument) if the
    /// message is not of the proto type, otherwise XLA's messages, as
    /// `TryFrom<&proto>`.
    fn from_lossless(message: &LosslessMessage) -> Result<Self> {
        Self::from_message(&message.to_message()?)
    }

    /// The proto as a prost-reflect [`DynamicMessage`].
    fn to_dynamic(&self) -> DynamicMessage {
        LosslessMessage::from_message(&self.to_message()).to_dynamic()
    }
}

macro_rules! proto_formats {
    ($($model:ty => $proto:ty),*) => {
        $(
            impl sealed::Sealed for $model {
                type Proto = $proto;
                fn to_message(&self) -> $proto {
                    <$proto>::from(self)
                }
                fn from_message(proto: &$proto) -> Result<Self> {
                    <$model>::try_from(proto)
                }
            }

            impl ProtoFormats for $model {}
        )*
    };
}

proto_formats!(
    Shape => ShapeProto,
    Layout => LayoutProto,
    ProgramShape => ProgramShapeProto
);
