//! DLPack: `DLDataType` and DLPack tensor descriptions (shape, strides in
//! elements, byte offset) to and from XLA shapes with layouts.
//!
//! Type codes are those of DLPack's `include/dlpack/dlpack.h` v1.1
//! (`DLDataTypeCode`). Which XLA type maps to which `DLDataType` is XLA's
//! Python DLPack bridge (`xla/python/dlpack_types_base.cc`,
//! `PrimitiveTypeToDLDataType` and `DLDataTypeToPrimitiveType`), checked
//! against what jaxlib 0.10.2 exports. XLA gives no DLPack type to `S1`,
//! `S2`, `S4`, `U1`, `U2`, `U4`, `F6E2M3FN` and `F6E3M2FN`, although
//! DLPack could describe some of them (`kDLInt` with 4 bits,
//! `kDLFloat6_e2m3fn`); this module follows XLA.
//!
//! Strides become a layout as XLA's `StridesToLayout`
//! (`xla/python/dlpack_strides.cc`) does: compact strides in any
//! dimension order have a layout; broadcast (zero), overlapping, padded
//! and negative strides do not.
//!
//! ```
//! use xla_shape::PrimitiveType;
//! use xla_shape::interop::dlpack::{self, DLDataType, DlpackTensor};
//!
//! assert_eq!(dlpack::to_dl_data_type(PrimitiveType::Bf16)?, DLDataType::new(dlpack::KDL_BFLOAT, 16, 1));
//!
//! // A column-major 2x3 float32 tensor.
//! let t = DlpackTensor::new(DLDataType::new(dlpack::KDL_FLOAT, 32, 1), [2, 3]).with_strides([1, 2]);
//! assert_eq!(t.to_array_shape()?.to_string(), "f32[2,3]{0,1}");
//!
//! // A broadcast row has no XLA layout.
//! let b = DlpackTensor::new(DLDataType::new(dlpack::KDL_FLOAT, 32, 1), [2, 3]).with_strides([0, 1]);
//! assert!(b.to_array_shape().unwrap_err().to_string().ends_with("dimension 0 has stride 0: broadcasting."));
//! # Ok::<(), xla_shape::Error>(())
//! ```

use crate::error::{Error, Result};
use crate::model::{ArrayShape, Layout, PrimitiveType, join};
use crate::strides::compact::{NoLayout, Rules, compact_layout};

use PrimitiveType as P;

/// `kDLInt`: signed integer.
pub const KDL_INT: u8 = 0;
/// `kDLUInt`: unsigned integer.
pub const KDL_UINT: u8 = 1;
/// `kDLFloat`: IEEE floating point.
pub const KDL_FLOAT: u8 = 2;
/// `kDLOpaqueHandle`: opaque handle, reserved for testing.
pub const KDL_OPAQUE_HANDLE: u8 = 3;
/// `kDLBfloat`: bfloat16.
pub const KDL_BFLOAT: u8 = 4;
/// `kDLComplex`: complex number, a compact struct per element.
pub const KDL_COMPLEX: u8 = 5;
/// `kDLBool`: boolean.
pub const KDL_BOOL: u8 = 6;
/// `kDLFloat8_e3m4`.
pub const KDL_FLOAT8_E3M4: u8 = 7;
/// `kDLFloat8_e4m3`.
pub const KDL_FLOAT8_E4M3: u8 = 8;
/// `kDLFloat8_e4m3b11fnuz`.
pub const KDL_FLOAT8_E4M3B11FNUZ: u8 = 9;
/// `kDLFloat8_e4m3fn`.
pub const KDL_FLOAT8_E4M3FN: u8 = 10;
/// `kDLFloat8_e4m3fnuz`.
pub const KDL_FLOAT8_E4M3FNUZ: u8 = 11;
/// `kDLFloat8_e5m2`.
pub const KDL_FLOAT8_E5M2: u8 = 12;
/// `kDLFloat8_e5m2fnuz`.
pub const KDL_FLOAT8_E5M2FNUZ: u8 = 13;
/// `kDLFloat8_e8m0fnu`.
pub const KDL_FLOAT8_E8M0FNU: u8 = 14;
/// `kDLFloat6_e2m3fn` (XLA maps no type to it).
pub const KDL_FLOAT6_E2M3FN: u8 = 15;
/// `kDLFloat6_e3m2fn` (XLA maps no type to it).
pub const KDL_FLOAT6_E3M2FN: u8 = 16;
/// `kDLFloat4_e2m1fn`.
pub const KDL_FLOAT4_E2M1FN: u8 = 17;

/// The names of the `DLDataTypeCode` values 0 to 17, by code.
pub const CODE_NAMES: [&str; 18] = [
    "kDLInt",
    "kDLUInt",
    "kDLFloat",
    "kDLOpaqueHandle",
    "kDLBfloat",
    "kDLComplex",
    "kDLBool",
    "kDLFloat8_e3m4",
    "kDLFloat8_e4m3",
    "kDLFloat8_e4m3b11fnuz",
    "kDLFloat8_e4m3fn",
    "kDLFloat8_e4m3fnuz",
    "kDLFloat8_e5m2",
    "kDLFloat8_e5m2fnuz",
    "kDLFloat8_e8m0fnu",
    "kDLFloat6_e2m3fn",
    "kDLFloat6_e3m2fn",
    "kDLFloat4_e2m1fn",
];

/// DLPack's `DLDataType`, with its C layout (`uint8_t code`, `uint8_t
/// bits`, `uint16_t lanes`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(C)]
pub struct DLDataType {
    /// A `DLDataTypeCode` (`KDL_*`).
    pub code: u8,
    /// Bits per element (per lane).
    pub bits: u8,
    /// Lanes of a vector type; 1 for scalars.
    pub lanes: u16,
}

impl DLDataType {
    /// A `DLDataType`.
    pub const fn new(code: u8, bits: u8, lanes: u16) -> Self {
        DLDataType { code, bits, lanes }
    }
}

impl std::fmt::Display for DLDataType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match CODE_NAMES.get(self.code as usize) {
            Some(name) => write!(f, "{name}"),
            None => write!(f, "code {}", self.code),
        }?;
        write!(f, " bits={} lanes={}", self.bits, self.lanes)
    }
}

/// The (code, bits) of each XLA type XLA's bridge maps.
const TYPES: [(PrimitiveType, u8, u8); 24] = [
    (P::S8, KDL_INT, 8),
    (P::S16, KDL_INT, 16),
    (P::S32, KDL_INT, 32),
    (P::S64, KDL_INT, 64),
    (P::U8, KDL_UINT, 8),
    (P::U16, KDL_UINT, 16),
    (P::U32, KDL_UINT, 32),
    (P::U64, KDL_UINT, 64),
    (P::F4e2m1fn, KDL_FLOAT4_E2M1FN, 4),
    (P::F8e3m4, KDL_FLOAT8_E3M4, 8),
    (P::F8e4m3, KDL_FLOAT8_E4M3, 8),
    (P::F8e4m3b11fnuz, KDL_FLOAT8_E4M3B11FNUZ, 8),
    (P::F8e4m3fn, KDL_FLOAT8_E4M3FN, 8),
    (P::F8e4m3fnuz, KDL_FLOAT8_E4M3FNUZ, 8),
    (P::F8e5m2, KDL_FLOAT8_E5M2, 8),
    (P::F8e5m2fnuz, KDL_FLOAT8_E5M2FNUZ, 8),
    (P::F8e8m0fnu, KDL_FLOAT8_E8M0FNU, 8),
    (P::Bf16, KDL_BFLOAT, 16),
    (P::F16, KDL_FLOAT, 16),
    (P::F32, KDL_FLOAT, 32),
    (P::F64, KDL_FLOAT, 64),
    (P::Pred, KDL_BOOL, 8),
    (P::C64, KDL_COMPLEX, 64),
    (P::C128, KDL_COMPLEX, 128),
];

/// XLA's `PrimitiveTypeToDLDataType`.
///
/// # Errors
///
/// [`ErrorKind::InvalidArgument`](crate::ErrorKind::InvalidArgument) with
/// XLA's message, `XLA type S4 has no DLPack equivalent`, for every type
/// XLA's bridge does not map.
pub fn to_dl_data_type(t: PrimitiveType) -> Result<DLDataType> {
    TYPES
        .iter()
        .find(|(x, _, _)| *x == t)
        .map(|&(_, code, bits)| DLDataType::new(code, bits, 1))
        .ok_or_else(|| {
            Error::invalid_argument(format!(
                "XLA type {} has no DLPack equivalent",
                t.as_str_name()
            ))
        })
}

/// XLA's `DLDataTypeToPrimitiveType`.
///
/// # Errors
///
/// [`ErrorKind::InvalidArgument`](crate::ErrorKind::InvalidArgument) with
/// XLA's message: lanes other than 1 (`DLPack types with lanes != 1 not
/// implemented, got 4`), a width XLA does not take for the code (`Invalid
/// or unsupported DLPack float width: 8 bits`), a code XLA does not map
/// (`Unknown or invalid DLPack type code 15`).
pub fn from_dl_data_type(t: DLDataType) -> Result<PrimitiveType> {
    if t.lanes != 1 {
        return Err(Error::invalid_argument(format!(
            "DLPack types with lanes != 1 not implemented, got {}",
            t.lanes
        )));
    }
    if let Some(&(x, _, _)) = TYPES.iter().find(|(_, c, b)| *c == t.code && *b == t.bits) {
        return Ok(x);
    }
    let what = match t.code {
        KDL_BOOL => {
            return Err(Error::invalid_argument(format!(
                "Only 8-bit DLPack booleans are supported, got {} bits",
                t.bits
            )));
        }
        KDL_INT => "integer",
        KDL_UINT => "unsigned integer",
        KDL_FLOAT => "float",
        KDL_BFLOAT => "bfloat",
        KDL_COMPLEX => "complex",
        KDL_FLOAT4_E2M1FN => "float4_e2m1fn",
        KDL_FLOAT8_E3M4 => "float8_e3m4",
        KDL_FLOAT8_E4M3 => "float8_e4m3",
        KDL_FLOAT8_E4M3B11FNUZ => "float8_e4m3b11fnuz",
        KDL_FLOAT8_E4M3FN => "float8_e4m3fn",
        KDL_FLOAT8_E4M3FNUZ => "float8_e4m3fnuz",
        KDL_FLOAT8_E5M2 => "float8_e5m2",
        KDL_FLOAT8_E5M2FNUZ => "float8_e5m2fnuz",
        KDL_FLOAT8_E8M0FNU => "float8_e8m0fnu",
        code => {
            return Err(Error::invalid_argument(format!(
                "Unknown or invalid DLPack type code {code}"
            )));
        }
    };
    Err(Error::invalid_argument(format!(
        "Invalid or unsupported DLPack {what} width: {} bits",
        t.bits
    )))
}

/// XLA's `StridesToLayout` (`xla/python/dlpack_strides.cc`, as in jaxlib
/// 0.10.2): the layout of a tensor with element `strides`.
///
/// When some dimension has at most one element and the others are compact
/// row-major, the layout is row-major; otherwise dimensions are ordered by
/// stride (equal strides: the higher dimension minor), and every dimension
/// with more than one element must have the compact stride of its place.
///
/// Call this to know what XLA's DLPack importer decides (the layout of
/// the imported array, or its refusal word for word), and
/// [`strides::layout_from_strides`](crate::strides::layout_from_strides)
/// for strides from anywhere else: the two run one algorithm and differ
/// only in where a dimension of at most one element goes. XLA's importer
/// does not call this for an array with no element (a dimension of size
/// 0): [`DlpackTensor::to_array_shape`] makes such an array row-major.
///
/// # Errors
///
/// [`ErrorKind::InvalidArgument`](crate::ErrorKind::InvalidArgument): a
/// length mismatch or a negative size; for strides with no layout, XLA's
/// message (`Only DLPack tensors with trivial (compact) striding are
/// supported; ...`) followed by the reason: the first dimension, in
/// stride order, with a zero (broadcasting), negative, overlapping or
/// padded (gap) stride.
pub fn strides_to_layout(dims: &[i64], strides: &[i64]) -> Result<Layout> {
    compact_layout(dims, strides, Rules::Xla).map_err(|e| match e {
        NoLayout::NotCompact(_) => {
            Error::invalid_argument(format!("{} {e}.", not_compact(dims, strides)))
        }
        _ => Error::invalid_argument(e.to_string()),
    })
}

/// XLA's refusal of strides that have no layout.
fn not_compact(dims: &[i64], strides: &[i64]) -> String {
    format!(
        "Only DLPack tensors with trivial (compact) striding are supported; i.e., tensors whose striding represents a transposition of the underlying buffer but not broadcasting. Dimensions were: [{}], strides were [{}].",
        join(dims, ","),
        join(strides, ",")
    )
}

/// The array description of a DLPack `DLTensor`, without its data pointer
/// and device: element type, shape, strides in elements (`None`: compact
/// row-major, DLPack's `NULL` strides) and the byte offset of the first
/// element from the data pointer.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DlpackTensor {
    /// `dtype`.
    pub dtype: DLDataType,
    /// `shape`, one size per dimension (`ndim` of them).
    pub shape: Vec<i64>,
    /// `strides` in elements, or `None` for compact row-major.
    pub strides: Option<Vec<i64>>,
    /// `byte_offset`.
    pub byte_offset: u64,
}

impl DlpackTensor {
    /// A compact row-major tensor description (no strides, offset 0).
    pub fn new(dtype: DLDataType, shape: impl Into<Vec<i64>>) -> Self {
        DlpackTensor {
            dtype,
            shape: shape.into(),
            strides: None,
            byte_offset: 0,
        }
    }

    /// This description with element `strides`.
    pub fn with_strides(mut self, strides: impl Into<Vec<i64>>) -> Self {
        self.strides = Some(strides.into());
        self
    }

    /// This description with `byte_offset`.
    pub fn with_byte_offset(mut self, byte_offset: u64) -> Self {
        self.byte_offset = byte_offset;
        self
    }

    /// The XLA array shape with layout that XLA's bridge gives this tensor
    /// on import (`DLPackManagedTensorToBuffer`): the element type of
    /// [`from_dl_data_type`], the dimensions, and the layout of
    /// [`strides_to_layout`] (row-major without strides, or without
    /// elements: XLA reads no strides of an array with a dimension of
    /// size 0).
    ///
    /// # Errors
    ///
    /// Those of [`from_dl_data_type`] and [`strides_to_layout`], and the
    /// shape errors of [`ArrayShape::new`].
    pub fn to_array_shape(&self) -> Result<ArrayShape> {
        let t = from_dl_data_type(self.dtype)?;
        let layout = match &self.strides {
            // XLA reads the strides of an array with elements only
            // (`absl::c_find(dimensions, 0) == dimensions.end()`).
            Some(strides) if !self.shape.contains(&0) || strides.len() != self.shape.len() => {
                strides_to_layout(&self.shape, strides)?
            }
            _ => Layout::new((0..self.shape.len() as i64).rev().collect::<Vec<_>>()),
        };
        ArrayShape::new(t, self.shape.clone())?.with_layout(Some(layout))
    }

    /// The description XLA's bridge exports for an array of `shape`
    /// (`BufferToDLPackManagedTensor`): its DLPack type, dimensions, the
    /// element strides of its layout (row-major without one) and offset 0.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidArgument`](crate::ErrorKind::InvalidArgument)
    /// for a type with no DLPack equivalent, and for a tiled layout or one
    /// with a sub-byte element size, which DLPack cannot describe.
    pub fn from_array_shape(shape: &ArrayShape) -> Result<Self> {
        let dtype = to_dl_data_type(shape.element_type())?;
        let dims = shape.dimensions().to_vec();
        let strides = match shape.layout() {
            Some(layout) => {
                if !layout.tiles().is_empty() || layout.element_size_in_bits() != 0 {
                    return Err(Error::invalid_argument(format!(
                        "{shape} has a tiled or packed layout, which DLPack cannot describe"
                    )));
                }
                crate::strides::element_strides(shape)?
            }
            None => {
                let row_major = shape.clone().with_layout(Some(Layout::new(
                    (0..dims.len() as i64).rev().collect::<Vec<_>>(),
                )))?;
                crate::strides::element_strides(&row_major)?
            }
        };
        Ok(DlpackTensor {
            dtype,
            shape: dims,
            strides: Some(strides),
            byte_offset: 0,
        })
    }
}
