//! TensorFlow: `DataType` numbers and `TensorShapeProto` shapes, as TF2XLA
//! converts them.
//!
//! The `DataType` values are those of `tensorflow/core/framework/types.proto`
//! in TensorFlow 2.21 (read from the descriptor that tensorboard 2.21.0
//! vendors as `tensorboard/compat/proto/types_pb2.py`): 34 types and their
//! reference types (`DT_FLOAT_REF` = `DT_FLOAT` + 100). The mapping is
//! TF2XLA's (`tensorflow/compiler/tf2xla/type_util.cc`,
//! `DataTypeToPrimitiveType` and `EncodePrimitiveTypeAsDataType`): the
//! quantized types map to the integers of their width (`DT_QINT8` to `S8`)
//! one way only; reference types, `DT_STRING`, `DT_RESOURCE`, `DT_VARIANT`
//! and the newer float8, int2 and float4 types are refused.
//!
//! Shapes convert as `tensorflow/compiler/tf2xla/shape_util.cc` does
//! (`TensorShapeToXLAShape`, `TensorShapeToBoundedXLAShape`,
//! `XLAShapeToTensorShape`): row-major layouts, and a shape of unknown rank
//! or with an unknown (-1) size becomes XLA's sentinel `T[0]{0}`.
//!
//! ```
//! use xla_shape::interop::tensorflow::{self, TensorShape};
//! use xla_shape::PrimitiveType;
//!
//! assert_eq!(tensorflow::from_data_type(tensorflow::data_type("DT_BFLOAT16").unwrap())?, PrimitiveType::Bf16);
//! assert_eq!(tensorflow::from_data_type(tensorflow::data_type("DT_QINT8").unwrap())?, PrimitiveType::S8);
//! let s = tensorflow::to_xla_shape(1, &TensorShape::new([2, 3]))?; // DT_FLOAT
//! assert_eq!(s.to_string(), "f32[2,3]{1,0}");
//! # Ok::<(), xla_shape::Error>(())
//! ```

use crate::error::{Error, Result};
use crate::model::{ArrayShape, Layout, PrimitiveType, Shape};

use PrimitiveType as P;

/// `kDataTypeRefOffset`: a reference type is its base type plus 100.
pub const REF_OFFSET: i32 = 100;

/// The base types of `DataType` in TensorFlow 2.21, by number.
pub const DATA_TYPES: [(i32, &str); 34] = [
    (0, "DT_INVALID"),
    (1, "DT_FLOAT"),
    (2, "DT_DOUBLE"),
    (3, "DT_INT32"),
    (4, "DT_UINT8"),
    (5, "DT_INT16"),
    (6, "DT_INT8"),
    (7, "DT_STRING"),
    (8, "DT_COMPLEX64"),
    (9, "DT_INT64"),
    (10, "DT_BOOL"),
    (11, "DT_QINT8"),
    (12, "DT_QUINT8"),
    (13, "DT_QINT32"),
    (14, "DT_BFLOAT16"),
    (15, "DT_QINT16"),
    (16, "DT_QUINT16"),
    (17, "DT_UINT16"),
    (18, "DT_COMPLEX128"),
    (19, "DT_HALF"),
    (20, "DT_RESOURCE"),
    (21, "DT_VARIANT"),
    (22, "DT_UINT32"),
    (23, "DT_UINT64"),
    (24, "DT_FLOAT8_E5M2"),
    (25, "DT_FLOAT8_E4M3FN"),
    (26, "DT_FLOAT8_E4M3FNUZ"),
    (27, "DT_FLOAT8_E4M3B11FNUZ"),
    (28, "DT_FLOAT8_E5M2FNUZ"),
    (29, "DT_INT4"),
    (30, "DT_UINT4"),
    (31, "DT_INT2"),
    (32, "DT_UINT2"),
    (33, "DT_FLOAT4_E2M1FN"),
];

/// TF2XLA's `DataTypeToPrimitiveType`, by `DataType` name.
const TO_XLA: [(&str, PrimitiveType); 24] = [
    ("DT_BOOL", P::Pred),
    ("DT_INT4", P::S4),
    ("DT_INT8", P::S8),
    ("DT_QINT8", P::S8),
    ("DT_INT16", P::S16),
    ("DT_QINT16", P::S16),
    ("DT_INT32", P::S32),
    ("DT_QINT32", P::S32),
    ("DT_INT64", P::S64),
    ("DT_UINT4", P::U4),
    ("DT_UINT8", P::U8),
    ("DT_QUINT8", P::U8),
    ("DT_UINT16", P::U16),
    ("DT_QUINT16", P::U16),
    ("DT_UINT32", P::U32),
    ("DT_UINT64", P::U64),
    ("DT_FLOAT8_E5M2", P::F8e5m2),
    ("DT_FLOAT8_E4M3FN", P::F8e4m3fn),
    ("DT_BFLOAT16", P::Bf16),
    ("DT_HALF", P::F16),
    ("DT_FLOAT", P::F32),
    ("DT_DOUBLE", P::F64),
    ("DT_COMPLEX64", P::C64),
    ("DT_COMPLEX128", P::C128),
];

fn to_xla_entries() -> impl Iterator<Item = (&'static str, PrimitiveType)> {
    TO_XLA.iter().copied()
}

/// The name of a `DataType` number, reference types included
/// (`DT_FLOAT_REF` for 101).
pub fn data_type_name(n: i32) -> Option<String> {
    let (base, suffix) = if n >= REF_OFFSET {
        (n - REF_OFFSET, "_REF")
    } else {
        (n, "")
    };
    if base == 0 && !suffix.is_empty() {
        return None;
    }
    DATA_TYPES
        .iter()
        .find(|(m, _)| *m == base)
        .map(|(_, name)| format!("{name}{suffix}"))
}

/// The number of a `DataType` name (`DT_BFLOAT16`, `DT_FLOAT_REF`).
pub fn data_type(name: &str) -> Option<i32> {
    let (base, offset) = match name.strip_suffix("_REF") {
        Some(base) if base != "DT_INVALID" => (base, REF_OFFSET),
        _ => (name, 0),
    };
    DATA_TYPES
        .iter()
        .find(|(_, n)| *n == base)
        .map(|(m, _)| m + offset)
}

/// TensorFlow's `BaseType`: the type a reference type refers to.
pub fn base_type(n: i32) -> i32 {
    if n >= REF_OFFSET { n - REF_OFFSET } else { n }
}

/// TensorFlow's `DataTypeString`: the lower-cased name without `DT_`
/// (`bfloat16`, `float_ref`).
fn data_type_string(n: i32) -> String {
    match data_type_name(n) {
        Some(name) => name.trim_start_matches("DT_").to_ascii_lowercase(),
        None => format!("unknown dtype enum ({n})"),
    }
}

/// TF2XLA's `DataTypeToPrimitiveType`.
///
/// # Errors
///
/// [`ErrorKind::InvalidArgument`](crate::ErrorKind::InvalidArgument) with
/// TF2XLA's message, `Unsupported type in DataTypeToPrimitiveType:
/// 'string'`, for every other number (reference types included: pass
/// [`base_type`] of one).
pub fn from_data_type(n: i32) -> Result<PrimitiveType> {
    let name = data_type_name(n);
    to_xla_entries()
        .find(|(dt, _)| Some(*dt) == name.as_deref())
        .map(|(_, t)| t)
        .ok_or_else(|| {
            Error::invalid_argument(format!(
                "Unsupported type in DataTypeToPrimitiveType: '{}'",
                data_type_string(n)
            ))
        })
}

/// TF2XLA's `EncodePrimitiveTypeAsDataType`: the (unquantized) `DataType`
/// of `t`.
///
/// # Errors
///
/// [`ErrorKind::InvalidArgument`](crate::ErrorKind::InvalidArgument) with
/// TF2XLA's message, `Unsupported type in PrimitiveTypeToDataType 22`
/// (XLA's enum number), for a type TF2XLA has no `DataType` for.
pub fn to_data_type(t: PrimitiveType) -> Result<i32> {
    to_xla_entries()
        .filter(|(dt, _)| !dt.starts_with("DT_Q"))
        .find(|(_, x)| *x == t)
        .and_then(|(dt, _)| data_type(dt))
        .ok_or_else(|| {
            Error::invalid_argument(format!(
                "Unsupported type in PrimitiveTypeToDataType {}",
                t as i32
            ))
        })
}

/// A TensorFlow `TensorShapeProto` / `PartialTensorShape`: sizes, -1 for
/// an unknown size, or an unknown rank.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TensorShape {
    /// `dim[i].size`; -1 where unknown.
    pub dims: Vec<i64>,
    /// `unknown_rank`.
    pub unknown_rank: bool,
}

impl TensorShape {
    /// A shape of known rank.
    pub fn new(dims: impl Into<Vec<i64>>) -> Self {
        TensorShape {
            dims: dims.into(),
            unknown_rank: false,
        }
    }

    /// A shape of unknown rank.
    pub fn unknown_rank() -> Self {
        TensorShape {
            dims: Vec::new(),
            unknown_rank: true,
        }
    }
}

fn row_major(rank: usize) -> Layout {
    Layout::new((0..rank as i64).rev().collect::<Vec<_>>())
}

/// TF2XLA's `TensorShapeToXLAShape(DataType, const PartialTensorShape&)`:
/// the element type of [`from_data_type`], the sizes, the row-major
/// layout; unknown rank or any unknown size gives TF2XLA's sentinel, a
/// rank-1 shape of size 0 (`f32[0]{0}`).
///
/// # Errors
///
/// Those of [`from_data_type`]; sizes below -1, which TensorFlow's shapes
/// do not hold, and shapes XLA's validation refuses.
pub fn to_xla_shape(data_type: i32, shape: &TensorShape) -> Result<ArrayShape> {
    let t = from_data_type(data_type)?;
    if shape.unknown_rank || shape.dims.contains(&-1) {
        return ArrayShape::new(t, [0])?.with_layout(Some(row_major(1)));
    }
    if let Some(d) = shape.dims.iter().position(|&n| n < 0) {
        return Err(Error::invalid_argument(format!(
            "TensorShapeProto dimension {d} has size {}; only -1 (unknown) may be negative",
            shape.dims[d]
        )));
    }
    ArrayShape::new(t, shape.dims.clone())?.with_layout(Some(row_major(shape.dims.len())))
}

/// TF2XLA's `TensorShapeToBoundedXLAShape`: unknown sizes take the size
/// of `bound` and become dynamic (`f32[<=8,3]{1,0}`).
///
/// # Errors
///
/// TF2XLA's messages: different ranks, an unknown bound, a known size that
/// differs from its bound; and those of [`to_xla_shape`].
pub fn to_bounded_xla_shape(
    data_type: i32,
    shape: &TensorShape,
    bound: &[i64],
) -> Result<ArrayShape> {
    let t = from_data_type(data_type)?;
    if shape.unknown_rank {
        return ArrayShape::new(t, [0])?.with_layout(Some(row_major(1)));
    }
    if shape.dims.len() != bound.len() {
        return Err(Error::invalid_argument(format!(
            "`tensor_shape` and `bound` have different ranks. tensor_shape={}vs bound={}",
            shape.dims.len(),
            bound.len()
        )));
    }
    let mut dynamic = Vec::with_capacity(bound.len());
    for (d, (&size, &b)) in shape.dims.iter().zip(bound).enumerate() {
        if b < 0 {
            return Err(Error::invalid_argument(format!(
                "Bound dimension {d} has unknown size."
            )));
        }
        if size > 0 && b != size {
            return Err(Error::invalid_argument(format!(
                "Bounding shape does not match dynamic shape for known dimension {d}{size} vs {b}"
            )));
        }
        dynamic.push(size < 0);
    }
    ArrayShape::with_dynamic_dimensions(t, bound.to_vec(), dynamic)?
        .with_layout(Some(row_major(bound.len())))
}

/// TF2XLA's `XLAShapeToTensorShape`: the sizes of an array shape
/// (dynamic dimensions give their bound, as in XLA).
///
/// # Errors
///
/// [`ErrorKind::InvalidArgument`](crate::ErrorKind::InvalidArgument):
/// TF2XLA's `XLA shape (f32[2]) cannot be converted to a TensorShape` for
/// a tuple (and for a token, opaque or buffer shape), and an unbounded
/// dynamic size, which a `TensorShape` cannot hold.
pub fn from_xla_shape(shape: &Shape) -> Result<TensorShape> {
    let Some(a) = shape.as_array() else {
        return Err(Error::invalid_argument(format!(
            "XLA shape {} cannot be converted to a TensorShape",
            crate::shape_util::human_string(shape)
        )));
    };
    if let Some(d) = a.dimensions().iter().position(|&n| n < 0) {
        return Err(Error::invalid_argument(format!(
            "XLA shape {shape} has an unbounded dimension {d}, which a TensorShape cannot hold"
        )));
    }
    Ok(TensorShape::new(a.dimensions().to_vec()))
}
