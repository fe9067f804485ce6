//! `serde` for the model types: the proto3 JSON mapping of their protos.
//!
//! `serde_json::to_string(&shape)` is the compact JSON of the shape's
//! `ShapeProto` (as [`ProtoFormats::to_json`](crate::formats::ProtoFormats::to_json) writes it, but with the
//! serializer's own string escaping), and deserializing reads that JSON the
//! way `json_format.Parse` does, then validates as XLA's `FromProto` does.

use prost_reflect::ReflectMessage;
use serde::de::{DeserializeSeed, Deserializer, Error as _};
use serde::ser::{Serialize, Serializer};

use crate::formats::json::JsonView;
use crate::formats::model::sealed::Sealed;
use crate::formats::{LosslessMessage, transcode};
use crate::model::{Layout, ProgramShape, Shape};

fn serialize_model<T: Sealed, S: Serializer>(value: &T, serializer: S) -> Result<S::Ok, S::Error> {
    let message = LosslessMessage::from_message(&value.to_message());
    JsonView {
        message: &message,
        proto_field_names: false,
    }
    .serialize(serializer)
}

fn deserialize_model<'de, T: Sealed, D: Deserializer<'de>>(deserializer: D) -> Result<T, D::Error> {
    let descriptor = T::Proto::default().descriptor();
    let dynamic = descriptor.deserialize(deserializer)?;
    let proto: T::Proto = transcode(&dynamic).map_err(|e| D::Error::custom(e.message()))?;
    T::from_message(&proto).map_err(|e| D::Error::custom(e.message()))
}

macro_rules! serde_via_proto {
    ($($t:ty),*) => {
        $(
            impl Serialize for $t {
                /// The proto3 JSON of this value's proto (lowerCamelCase
                /// names, 64-bit integers as strings, enums by name).
                fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                    serialize_model(self, serializer)
                }
            }

            impl<'de> serde::Deserialize<'de> for $t {
                /// Reads the proto3 JSON of the proto (either field-name
                /// style), then converts it as `FromProto` does; an invalid
                /// value fails with XLA's message.
                fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                    deserialize_model(deserializer)
                }
            }
        )*
    };
}

serde_via_proto!(Shape, Layout, ProgramShape);

/// XLA's printed form as the serde representation: for
/// `#[serde(with = "xla_shape::serde::compact")]` on a [`Shape`] or
/// [`Layout`] field.
///
/// Serializing writes the value's `Display` form, which is what XLA's
/// `Shape::ToString(/*print_layout=*/true)` and `Layout::ToString` print
/// (`"f32[2,3]{1,0}"`, `"{1,0:T(8,128)}"`); deserializing reads a string
/// with XLA's `ParseShape` / `ParseLayout` ([`FromStr`](std::str::FromStr)),
/// and an invalid string fails through [`serde::de::Error::custom`] with
/// XLA's message. The type's own `Serialize` stays the proto3 JSON of its
/// proto.
///
/// ```
/// use serde::{Deserialize, Serialize};
/// use xla_shape::{Layout, Shape};
///
/// #[derive(Serialize, Deserialize)]
/// struct Buffer {
///     #[serde(with = "xla_shape::serde::compact")]
///     shape: Shape,
///     #[serde(with = "xla_shape::serde::compact")]
///     layout: Layout,
/// }
///
/// let json = r#"{"shape":"f32[2,3]{1,0}","layout":"{0,1:T(2,128)}"}"#;
/// let b: Buffer = serde_json::from_str(json)?;
/// assert_eq!(b.shape, "f32[2,3]".parse()?);
/// assert_eq!(serde_json::to_string(&b)?, json);
///
/// // XLA's message for a shape its parser rejects.
/// let err = serde_json::from_str::<Buffer>(r#"{"shape":"f32[2,3]{0,0}","layout":"{}"}"#)
///     .err()
///     .unwrap();
/// assert!(err.to_string().contains("layout minor_to_major field has duplicate values: {0, 0}"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub mod compact {
    use std::fmt;
    use std::marker::PhantomData;
    use std::str::FromStr;

    use serde::de::{Deserializer, Visitor};
    use serde::ser::Serializer;

    use crate::error::Error;
    use crate::model::{Layout, Shape};

    mod sealed {
        pub trait Sealed {}
        impl Sealed for crate::model::Shape {}
        impl Sealed for crate::model::Layout {}
    }

    /// The types with a compact form: [`Shape`] and [`Layout`], whose
    /// `Display` is XLA's printer and whose `FromStr` is XLA's parser.
    pub trait Compact: sealed::Sealed + fmt::Display + FromStr<Err = Error> + Sized {
        /// What the value is, for serde's "expected ..." messages.
        #[doc(hidden)]
        const EXPECTING: &'static str;
    }

    impl Compact for Shape {
        const EXPECTING: &'static str = "an HLO shape string such as \"f32[2,3]{1,0}\"";
    }

    impl Compact for Layout {
        const EXPECTING: &'static str = "an HLO layout string such as \"{1,0}\"";
    }

    /// Writes XLA's printed form of `value` as a string.
    ///
    /// # Errors
    ///
    /// Only the serializer's own.
    pub fn serialize<T: Compact, S: Serializer>(
        value: &T,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        serializer.collect_str(value)
    }

    /// Reads a string with XLA's parser.
    ///
    /// # Errors
    ///
    /// A value that is not a string, or a string XLA's `ParseShape` /
    /// `ParseLayout` rejects (with XLA's message).
    pub fn deserialize<'de, T: Compact, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<T, D::Error> {
        deserializer.deserialize_str(CompactVisitor(PhantomData))
    }

    struct CompactVisitor<T>(PhantomData<T>);

    impl<T: Compact> Visitor<'_> for CompactVisitor<T> {
        type Value = T;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(T::EXPECTING)
        }

        fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<T, E> {
            text.parse().map_err(|e: Error| E::custom(e.message()))
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::model::{ArrayShape, PrimitiveType, Shape};

    #[test]
    fn serde_json_writes_the_proto_json() {
        let s = Shape::from(ArrayShape::new(PrimitiveType::F32, [2, 3]).unwrap());
        // shapes.jsonl record for `f32[2,3]`, compacted.
        assert_eq!(
            serde_json::to_string(&s).unwrap(),
            r#"{"elementType":"F32","dimensions":["2","3"],"layout":{"minorToMajor":["1","0"],"tailPaddingAlignmentInElements":"1"},"isDynamicDimension":[false,false]}"#
        );
    }

    #[test]
    fn deserialize_validates_with_xlas_message() {
        let err = serde_json::from_str::<Shape>(
            r#"{"elementType":"F32","dimensions":["2"],"layout":{"minorToMajor":["0","0"]}}"#,
        )
        .unwrap_err();
        // serde_json adds the position after the message.
        let message = err.to_string();
        assert!(
            message.starts_with(
                "layout minor_to_major field contains 2 elements, but shape has 1 dimensions: {0, 0}; shape: f32[2]"
            ),
            "{message}"
        );
    }
}
