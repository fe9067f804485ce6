//! Element types across the ecosystem: the names and numbers other systems
//! give XLA's element types, each taken from that system's own sources.
//!
//! | module | system | source |
//! | --- | --- | --- |
//! | [`numpy`] | NumPy / ml_dtypes dtypes | jaxlib 0.10.2 `xla/python/types.cc` (`PrimitiveTypeToNbDtype`, `DtypeToPrimitiveType`), answers of jaxlib 0.10.2 with NumPy 2.4.6 and ml_dtypes 0.6.0 |
//! | [`dlpack`] | DLPack `DLDataType`, tensor strides | `include/dlpack/dlpack.h` v1.1 (`DLDataTypeCode`, `DLDataType`, `DLTensor`); XLA `xla/python/dlpack_types_base.cc` (`PrimitiveTypeToDLDataType`, `DLDataTypeToPrimitiveType`) and `xla/python/dlpack_strides.cc` (`StridesToLayout`); exports and imports of jaxlib 0.10.2 |
//! | [`pjrt`] | PJRT C API `PJRT_Buffer_Type`, `PJRT_Buffer_MemoryLayout` | `xla/pjrt/c/pjrt_c_api.h` (as vendored in TensorFlow at commit `00011bd92c78`: values 0 to 29); `xla/pjrt/c/pjrt_c_api_helpers.cc` (`ConvertToPjRtBufferType`, `ConvertFromPjRtBufferType`, `ConvertToBufferMemoryLayoutData`, `ConvertToLayout`, `BuildXlaShapeFromC`) |
//!
//! Every function maps both ways; a type the other system has no name for
//! gives `None` or an error naming the type and the system, never a
//! neighbouring type.

pub mod dlpack;
pub mod numpy;
pub mod pjrt;
