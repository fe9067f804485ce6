//! safetensors dtype names (`BF16`, `F8_E4M3`, ...).
//!
//! The names are the variants of the `Dtype` enum of the `safetensors`
//! crate 0.8.0 (`src/tensor.rs`, which is also the file format's list of
//! `dtype` strings), 22 of them. Which XLA type each one is follows the
//! Python package's own readers (`safetensors/torch.py` 0.8.0 reads
//! `F8_E4M3` as `torch.float8_e4m3fn` and `F8_E8M0` as
//! `torch.float8_e8m0fnu`) and the OCP MX formats the crate cites for
//! `F4`, `F6_E2M3` and `F6_E3M2` (all without infinities or NaN: XLA's
//! `FN` types).
//!
//! `F8_E4M3` is XLA's `F8E4M3FN`, not `F8E4M3` (which has infinities):
//! XLA's `F8E4M3`, `F8E4M3B11FNUZ`, `F8E3M4`, `C128` and the sub-byte
//! integers have no safetensors name.
//!
//! ```
//! use xla_shape::PrimitiveType;
//! use xla_shape::interop::safetensors;
//!
//! assert_eq!(safetensors::dtype_name(PrimitiveType::Bf16), Some("BF16"));
//! assert_eq!(safetensors::from_dtype_name("F8_E4M3")?, PrimitiveType::F8e4m3fn);
//! assert!(safetensors::to_dtype_name(PrimitiveType::F8e4m3).is_err());
//! # Ok::<(), xla_shape::Error>(())
//! ```

use crate::error::{Error, Result};
use crate::model::PrimitiveType;

use PrimitiveType as P;

/// Every safetensors dtype name (in the crate's declaration order, which
/// is by alignment) with its XLA type.
pub const DTYPES: [(&str, PrimitiveType); 22] = [
    ("BOOL", P::Pred),
    ("F4", P::F4e2m1fn),
    ("F6_E2M3", P::F6e2m3fn),
    ("F6_E3M2", P::F6e3m2fn),
    ("U8", P::U8),
    ("I8", P::S8),
    ("F8_E5M2", P::F8e5m2),
    ("F8_E4M3", P::F8e4m3fn),
    ("F8_E8M0", P::F8e8m0fnu),
    ("F8_E4M3FNUZ", P::F8e4m3fnuz),
    ("F8_E5M2FNUZ", P::F8e5m2fnuz),
    ("I16", P::S16),
    ("U16", P::U16),
    ("F16", P::F16),
    ("BF16", P::Bf16),
    ("I32", P::S32),
    ("U32", P::U32),
    ("F32", P::F32),
    ("C64", P::C64),
    ("F64", P::F64),
    ("I64", P::S64),
    ("U64", P::U64),
];

/// The safetensors name of `t`, if it has one.
pub fn dtype_name(t: PrimitiveType) -> Option<&'static str> {
    DTYPES.iter().find(|(_, x)| *x == t).map(|(n, _)| *n)
}

/// [`dtype_name`], or an error naming the type and safetensors.
///
/// # Errors
///
/// [`ErrorKind::InvalidArgument`](crate::ErrorKind::InvalidArgument):
/// `XLA type F8E4M3 has no safetensors dtype`.
pub fn to_dtype_name(t: PrimitiveType) -> Result<&'static str> {
    dtype_name(t).ok_or_else(|| {
        Error::invalid_argument(format!(
            "XLA type {} has no safetensors dtype",
            t.as_str_name()
        ))
    })
}

/// The XLA type of a safetensors dtype name (exact, upper case).
///
/// # Errors
///
/// [`ErrorKind::InvalidArgument`](crate::ErrorKind::InvalidArgument):
/// `Unknown safetensors dtype "F8_E4M3FN"`.
pub fn from_dtype_name(name: &str) -> Result<PrimitiveType> {
    DTYPES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, t)| *t)
        .ok_or_else(|| Error::invalid_argument(format!("Unknown safetensors dtype \"{name}\"")))
}
