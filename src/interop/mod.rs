//! Element types across the ecosystem: the names and numbers other systems
//! give XLA's element types, each taken from that system's own sources.
//!
//! | module | system | source |
//! | --- | --- | --- |
//! | [`numpy`] | NumPy / ml_dtypes dtypes | jaxlib 0.10.2 `xla/python/types.cc` (`PrimitiveTypeToNbDtype`, `DtypeToPrimitiveType`), answers of jaxlib 0.10.2 with NumPy 2.4.6 and ml_dtypes 0.6.0 |
//! | [`dlpack`] | DLPack `DLDataType`, tensor strides | `include/dlpack/dlpack.h` v1.1 (`DLDataTypeCode`, `DLDataType`, `DLTensor`); XLA `xla/python/dlpack_types_base.cc` (`PrimitiveTypeToDLDataType`, `DLDataTypeToPrimitiveType`) and `xla/python/dlpack_strides.cc` (`StridesToLayout`); exports and imports of jaxlib 0.10.2 |
//! | [`pjrt`] | PJRT C API `PJRT_Buffer_Type`, `PJRT_Buffer_MemoryLayout` | `xla/pjrt/c/pjrt_c_api.h` (as vendored in TensorFlow at commit `00011bd92c78`: values 0 to 29); `xla/pjrt/c/pjrt_c_api_helpers.cc` (`ConvertToPjRtBufferType`, `ConvertFromPjRtBufferType`, `ConvertToBufferMemoryLayoutData`, `ConvertToLayout`, `BuildXlaShapeFromC`) |
//! | [`safetensors`] | safetensors dtype names | the `safetensors` crate 0.8.0 (`Dtype` in `src/tensor.rs`); its Python package 0.8.0 (`safetensors/torch.py`) for which float8 each name is |
//! | [`tensorflow`] | TensorFlow `DataType`, `TensorShapeProto` | `tensorflow/core/framework/types.proto` of TensorFlow 2.21 (as vendored by tensorboard 2.21.0); `tensorflow/compiler/tf2xla/type_util.cc` (`DataTypeToPrimitiveType`, `EncodePrimitiveTypeAsDataType`) and `shape_util.cc` (`TensorShapeToXLAShape`, `TensorShapeToBoundedXLAShape`, `XLAShapeToTensorShape`) |
//!
//! Every function maps both ways; a type the other system has no name for
//! gives `None` or an error naming the type and the system, never a
//! neighbouring type.
//!
//! # One verb set
//!
//! Each module names the system's own type once (NumPy's `dtype`, DLPack's
//! `DLDataType`, PJRT's `PJRT_Buffer_Type`, safetensors' dtype name,
//! TensorFlow's `DataType`) and spells its mappings with it:
//! `to_<type>` from XLA's element type (an error saying why where the
//! system has none), `from_<type>` back, and `<type>_name` for the
//! system's own spelling:
//!
//! | module | XLA → system | system → XLA | spelling |
//! | --- | --- | --- | --- |
//! | [`numpy`] | [`to_dtype`](numpy::to_dtype) | [`from_dtype`](numpy::from_dtype), [`from_dtype_name`](numpy::from_dtype_name), [`from_dtype_str`](numpy::from_dtype_str) | [`dtype_name`](numpy::dtype_name) (and the [`Dtype`](numpy::Dtype)'s fields) |
//! | [`dlpack`] | [`to_dl_data_type`](dlpack::to_dl_data_type) | [`from_dl_data_type`](dlpack::from_dl_data_type) | `Display` of [`DLDataType`](dlpack::DLDataType) |
//! | [`pjrt`] | [`to_buffer_type`](pjrt::to_buffer_type) | [`from_buffer_type`](pjrt::from_buffer_type) | [`buffer_type_name`](pjrt::buffer_type_name) |
//! | [`safetensors`] | [`to_dtype_name`](safetensors::to_dtype_name) | [`from_dtype_name`](safetensors::from_dtype_name) | the name itself ([`dtype_name`](safetensors::dtype_name)) |
//! | [`tensorflow`] | [`to_data_type`](tensorflow::to_data_type) | [`from_data_type`](tensorflow::from_data_type) | [`data_type_name`](tensorflow::data_type_name) |
//!
//! A tool that lists every system (`xla-shape dtypes`) iterates
//! [`System::ALL`]: [`System::element_type`] is the system's type for an
//! array of an XLA element type, whose `Display` is the system's spelling.
//!
//! ```
//! use xla_shape::PrimitiveType;
//! use xla_shape::interop::System;
//!
//! let names: Vec<String> = System::ALL
//!     .iter()
//!     .filter_map(|s| Some(format!("{} {}", s.name(), s.element_type(PrimitiveType::Bf16)?)))
//!     .collect();
//! assert_eq!(
//!     names,
//!     [
//!         "NumPy bfloat16",
//!         "DLPack kDLBfloat bits=16 lanes=1",
//!         "PJRT PJRT_Buffer_Type_BF16 = 13",
//!         "safetensors BF16",
//!         "TensorFlow DT_BFLOAT16 = 14",
//!     ]
//! );
//! ```

pub mod dlpack;
pub mod numpy;
pub mod pjrt;
pub mod safetensors;
pub mod tensorflow;

use std::fmt;

use crate::model::PrimitiveType;

/// A system whose element types this module maps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum System {
    /// NumPy and ml_dtypes ([`numpy`]).
    Numpy,
    /// DLPack ([`dlpack`]).
    Dlpack,
    /// The PJRT C API ([`pjrt`]).
    Pjrt,
    /// safetensors ([`safetensors`]).
    Safetensors,
    /// TensorFlow ([`tensorflow`]).
    Tensorflow,
}

impl System {
    /// Every system, in the order of this module's table.
    pub const ALL: [System; 5] = [
        System::Numpy,
        System::Dlpack,
        System::Pjrt,
        System::Safetensors,
        System::Tensorflow,
    ];

    /// The system's name as its project writes it: `NumPy`, `DLPack`,
    /// `PJRT`, `safetensors`, `TensorFlow`.
    pub fn name(self) -> &'static str {
        match self {
            System::Numpy => "NumPy",
            System::Dlpack => "DLPack",
            System::Pjrt => "PJRT",
            System::Safetensors => "safetensors",
            System::Tensorflow => "TensorFlow",
        }
    }

    /// The name of the system's module: `numpy`, `dlpack`, `pjrt`,
    /// `safetensors`, `tensorflow`.
    pub fn as_str(self) -> &'static str {
        match self {
            System::Numpy => "numpy",
            System::Dlpack => "dlpack",
            System::Pjrt => "pjrt",
            System::Safetensors => "safetensors",
            System::Tensorflow => "tensorflow",
        }
    }

    /// The system's element type for an array of `t`, as its module's
    /// `to_<type>` maps it, or `None` where the system has none. What no
    /// array holds has none: a tuple's NumPy `object` dtype and PJRT's
    /// `INVALID` are not element types.
    pub fn element_type(self, t: PrimitiveType) -> Option<ElementType> {
        match self {
            System::Numpy => numpy::dtype(t)
                .filter(|_| t.is_array_type())
                .map(ElementType::Numpy),
            System::Dlpack => dlpack::to_dl_data_type(t).ok().map(ElementType::Dlpack),
            System::Pjrt => pjrt::to_buffer_type(t)
                .ok()
                .filter(|&n| n != pjrt::PJRT_BUFFER_TYPE_INVALID)
                .map(ElementType::Pjrt),
            System::Safetensors => safetensors::dtype_name(t).map(ElementType::Safetensors),
            System::Tensorflow => tensorflow::to_data_type(t)
                .ok()
                .map(ElementType::Tensorflow),
        }
    }
}

/// An element type of another [`System`]. `Display` writes the system's
/// spelling: `bfloat16`, `kDLBfloat bits=16 lanes=1`,
/// `PJRT_Buffer_Type_BF16 = 13`, `BF16`, `DT_BFLOAT16 = 14` (an enum
/// number with its name).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ElementType {
    /// A NumPy or ml_dtypes dtype.
    Numpy(&'static numpy::Dtype),
    /// A DLPack `DLDataType`.
    Dlpack(dlpack::DLDataType),
    /// A `PJRT_Buffer_Type` number.
    Pjrt(i32),
    /// A safetensors dtype name.
    Safetensors(&'static str),
    /// A TensorFlow `DataType` number.
    Tensorflow(i32),
}

impl fmt::Display for ElementType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ElementType::Numpy(d) => f.write_str(d.name),
            ElementType::Dlpack(d) => write!(f, "{d}"),
            ElementType::Pjrt(n) => {
                let name = pjrt::buffer_type_name(n).unwrap_or_default();
                write!(f, "{name} = {n}")
            }
            ElementType::Safetensors(name) => f.write_str(name),
            ElementType::Tensorflow(n) => {
                let name = tensorflow::data_type_name(n).unwrap_or_default();
                write!(f, "{name} = {n}")
            }
        }
    }
}
