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

#[cfg(test)]
mod tests {
    use crate::{ArrayShape, PrimitiveType, Shape};

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
