//! NumPy and ml_dtypes dtypes, as jaxlib maps XLA element types to them.
//!
//! The mapping is jaxlib's (`xla/python/types.cc`, `PrimitiveTypeToNbDtype`
//! and `DtypeToPrimitiveType`, jaxlib 0.10.2): what `Shape.numpy_dtype()`
//! returns and what `Shape.array_shape(dtype, dims)` accepts. The dtype
//! attributes (`name`, `str`, `char`, `kind`, `itemsize`, `repr`) are what
//! NumPy 2.4.6 and ml_dtypes 0.6.0 report on a little-endian machine.
//!
//! jaxlib has no dtype for `F6E3M2FN` and `F6E2M3FN` (ml_dtypes has
//! `float6_e3m2fn` and `float6_e2m3fn`, which jaxlib refuses), nor for
//! `TOKEN` and `OPAQUE_TYPE`; a tuple shape's dtype is `object`, which
//! jaxlib does not accept back.
//!
//! ```
//! use xla_shape::PrimitiveType;
//! use xla_shape::interop::numpy;
//!
//! assert_eq!(numpy::dtype_name(PrimitiveType::Bf16), Some("bfloat16"));
//! assert_eq!(numpy::from_dtype_name("float8_e4m3fn")?, PrimitiveType::F8e4m3fn);
//! assert_eq!(numpy::dtype_str(PrimitiveType::F32), Some("<f4"));
//! assert_eq!(numpy::dtype_char(PrimitiveType::F32), Some('f'));
//! assert!(numpy::dtype_name(PrimitiveType::F6e2m3fn).is_none());
//! # Ok::<(), xla_shape::Error>(())
//! ```

use crate::error::{Error, Result};
use crate::model::PrimitiveType;

use PrimitiveType as P;

/// A NumPy dtype as NumPy (and ml_dtypes, for the types it adds) reports
/// it on a little-endian machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Dtype {
    /// `dtype.name`: `float32`, `bfloat16`, `int4`, ...
    pub name: &'static str,
    /// `dtype.str`, the array-interface type string: `<f4`, `|b1`; every
    /// ml_dtypes type but `float8_e5m2` is `<V1` or `<V2`, so it does not
    /// tell them apart.
    pub str: &'static str,
    /// `dtype.char`. ml_dtypes reuses NumPy's letters (`bfloat16` is `E`,
    /// `uint1` too), so it is not a key either.
    pub char: char,
    /// `dtype.kind`: `b`, `i`, `u`, `f`, `c`, `V`, `W`, `O`.
    pub kind: char,
    /// `dtype.itemsize` in bytes.
    pub itemsize: usize,
    /// `repr(dtype)`: `dtype('float32')`, `dtype(bfloat16)`.
    pub repr: &'static str,
    /// Whether the dtype comes from ml_dtypes rather than NumPy.
    pub ml_dtypes: bool,
    /// The XLA element type jaxlib maps it to, if any.
    pub xla: Option<PrimitiveType>,
}

const fn np(
    name: &'static str,
    str: &'static str,
    char: char,
    kind: char,
    itemsize: usize,
    repr: &'static str,
    xla: Option<PrimitiveType>,
) -> Dtype {
    Dtype {
        name,
        str,
        char,
        kind,
        itemsize,
        repr,
        ml_dtypes: false,
        xla,
    }
}

const fn ml(
    name: &'static str,
    char: char,
    kind: char,
    itemsize: usize,
    repr: &'static str,
    xla: Option<PrimitiveType>,
) -> Dtype {
    let str = match (kind, itemsize) {
        ('f', _) => "<f1",
        ('W', _) => "<W4",
        (_, 2) => "<V2",
        _ => "<V1",
    };
    Dtype {
        ml_dtypes: true,
        ..np(name, str, char, kind, itemsize, repr, xla)
    }
}

/// Every numeric NumPy dtype, every ml_dtypes type and `object`, with the
/// XLA element type jaxlib maps each to (`None`: jaxlib refuses it).
pub const DTYPES: [Dtype; 37] = [
    np("bool", "|b1", '?', 'b', 1, "dtype('bool')", Some(P::Pred)),
    np("int8", "|i1", 'b', 'i', 1, "dtype('int8')", Some(P::S8)),
    np("int16", "<i2", 'h', 'i', 2, "dtype('int16')", Some(P::S16)),
    np("int32", "<i4", 'i', 'i', 4, "dtype('int32')", Some(P::S32)),
    np("int64", "<i8", 'l', 'i', 8, "dtype('int64')", Some(P::S64)),
    np("uint8", "|u1", 'B', 'u', 1, "dtype('uint8')", Some(P::U8)),
    np(
        "uint16",
        "<u2",
        'H',
        'u',
        2,
        "dtype('uint16')",
        Some(P::U16),
    ),
    np(
        "uint32",
        "<u4",
        'I',
        'u',
        4,
        "dtype('uint32')",
        Some(P::U32),
    ),
    np(
        "uint64",
        "<u8",
        'L',
        'u',
        8,
        "dtype('uint64')",
        Some(P::U64),
    ),
    np(
        "float16",
        "<f2",
        'e',
        'f',
        2,
        "dtype('float16')",
        Some(P::F16),
    ),
    np(
        "float32",
        "<f4",
        'f',
        'f',
        4,
        "dtype('float32')",
        Some(P::F32),
    ),
    np(
        "float64",
        "<f8",
        'd',
        'f',
        8,
        "dtype('float64')",
        Some(P::F64),
    ),
    np("float128", "<f16", 'g', 'f', 16, "dtype('float128')", None),
    np(
        "complex64",
        "<c8",
        'F',
        'c',
        8,
        "dtype('complex64')",
        Some(P::C64),
    ),
    np(
        "complex128",
        "<c16",
        'D',
        'c',
        16,
        "dtype('complex128')",
        Some(P::C128),
    ),
    np(
        "complex256",
        "<c32",
        'G',
        'c',
        32,
        "dtype('complex256')",
        None,
    ),
    np("object", "|O", 'O', 'O', 8, "dtype('O')", None),
    ml("bcomplex32", 'P', 'W', 4, "dtype(bcomplex32)", None),
    ml("bfloat16", 'E', 'V', 2, "dtype(bfloat16)", Some(P::Bf16)),
    ml("complex32", 'O', 'W', 4, "dtype(complex32)", None),
    ml(
        "float4_e2m1fn",
        '0',
        'V',
        1,
        "dtype(float4_e2m1fn)",
        Some(P::F4e2m1fn),
    ),
    ml("float6_e2m3fn", '8', 'V', 1, "dtype(float6_e2m3fn)", None),
    ml("float6_e3m2fn", '9', 'V', 1, "dtype(float6_e3m2fn)", None),
    ml(
        "float8_e3m4",
        '3',
        'V',
        1,
        "dtype(float8_e3m4)",
        Some(P::F8e3m4),
    ),
    ml(
        "float8_e4m3",
        '7',
        'V',
        1,
        "dtype(float8_e4m3)",
        Some(P::F8e4m3),
    ),
    ml(
        "float8_e4m3b11fnuz",
        'L',
        'V',
        1,
        "dtype(float8_e4m3b11fnuz)",
        Some(P::F8e4m3b11fnuz),
    ),
    ml(
        "float8_e4m3fn",
        '4',
        'V',
        1,
        "dtype(float8_e4m3fn)",
        Some(P::F8e4m3fn),
    ),
    ml(
        "float8_e4m3fnuz",
        'G',
        'V',
        1,
        "dtype(float8_e4m3fnuz)",
        Some(P::F8e4m3fnuz),
    ),
    ml(
        "float8_e5m2",
        '5',
        'f',
        1,
        "dtype(float8_e5m2)",
        Some(P::F8e5m2),
    ),
    ml(
        "float8_e5m2fnuz",
        'C',
        'V',
        1,
        "dtype(float8_e5m2fnuz)",
        Some(P::F8e5m2fnuz),
    ),
    ml(
        "float8_e8m0fnu",
        'W',
        'V',
        1,
        "dtype(float8_e8m0fnu)",
        Some(P::F8e8m0fnu),
    ),
    ml("int1", 'e', 'V', 1, "dtype(int1)", Some(P::S1)),
    ml("int2", 'c', 'V', 1, "dtype(int2)", Some(P::S2)),
    ml("int4", 'a', 'V', 1, "dtype(int4)", Some(P::S4)),
    ml("uint1", 'E', 'V', 1, "dtype(uint1)", Some(P::U1)),
    ml("uint2", 'C', 'V', 1, "dtype(uint2)", Some(P::U2)),
    ml("uint4", 'A', 'V', 1, "dtype(uint4)", Some(P::U4)),
];

/// The entry of [`DTYPES`] named `name`.
pub fn lookup(name: &str) -> Option<&'static Dtype> {
    DTYPES.iter().find(|d| d.name == name)
}

/// jaxlib's `PrimitiveTypeToNbDtype` (`Shape.numpy_dtype()`): the dtype of
/// an array of `t`, `object` for a tuple, `None` where jaxlib has none
/// (`F6E3M2FN`, `F6E2M3FN`, `TOKEN`, `OPAQUE_TYPE`, `BUFFER`, `INVALID`).
#[doc(alias = "xla_client.Shape.numpy_dtype")]
pub fn dtype(t: PrimitiveType) -> Option<&'static Dtype> {
    if t == P::Tuple {
        return lookup("object");
    }
    DTYPES.iter().find(|d| d.xla == Some(t))
}

/// [`dtype`], or jaxlib's error: `Unimplemented primitive type F6E2M3FN`.
///
/// # Errors
///
/// [`ErrorKind::InvalidArgument`](crate::ErrorKind::InvalidArgument) for a
/// type jaxlib has no dtype for.
pub fn to_dtype(t: PrimitiveType) -> Result<&'static Dtype> {
    dtype(t).ok_or_else(|| {
        Error::invalid_argument(format!("Unimplemented primitive type {}", t.as_str_name()))
    })
}

/// The ml_dtypes dtypes of the two element types jaxlib 0.10.2 maps to
/// none: the OCP microscaling 6-bit floats. jax (head) lowers
/// `float6_e2m3fn` to MLIR's `f6E2M3FN` and `float6_e3m2fn` to `f6E3M2FN`
/// (`jax/_src/interpreters/mlir.py`, `_dtype_to_ir_type`), the StableHLO
/// types XLA reads as `F6E2M3FN` and `F6E3M2FN`.
const FLOAT6: [(PrimitiveType, &str); 2] = [
    (P::F6e2m3fn, "float6_e2m3fn"),
    (P::F6e3m2fn, "float6_e3m2fn"),
];

/// [`dtype`], and for `F6E2M3FN` and `F6E3M2FN` (which jaxlib 0.10.2
/// refuses) ml_dtypes' `float6_e2m3fn` and `float6_e3m2fn`: what the
/// Python package's `numpy_dtype()` gives.
///
/// ```
/// use xla_shape::PrimitiveType;
/// use xla_shape::interop::numpy;
///
/// assert_eq!(numpy::dtype_with_float6(PrimitiveType::F6e2m3fn).map(|d| d.name), Some("float6_e2m3fn"));
/// assert_eq!(numpy::dtype_with_float6(PrimitiveType::F32), numpy::dtype(PrimitiveType::F32));
/// ```
pub fn dtype_with_float6(t: PrimitiveType) -> Option<&'static Dtype> {
    dtype(t).or_else(|| {
        let (_, name) = FLOAT6.iter().find(|(u, _)| *u == t)?;
        lookup(name)
    })
}

/// [`from_dtype_name`], and ml_dtypes' `float6_e2m3fn` and `float6_e3m2fn`
/// as `F6E2M3FN` and `F6E3M2FN` ([`dtype_with_float6`] back).
///
/// # Errors
///
/// As [`from_dtype_name`].
pub fn from_dtype_name_with_float6(name: &str) -> Result<PrimitiveType> {
    from_dtype_name(name).or_else(|e| {
        FLOAT6
            .iter()
            .find(|(_, n)| *n == name)
            .map(|(t, _)| *t)
            .ok_or(e)
    })
}

/// `Shape.numpy_dtype().name`: `bfloat16`, `float8_e4m3fn`, `int4`.
pub fn dtype_name(t: PrimitiveType) -> Option<&'static str> {
    dtype(t).map(|d| d.name)
}

/// NumPy's `dtype.str` of [`dtype`]: `<f4`, `|b1`, `<V2` (bfloat16).
pub fn dtype_str(t: PrimitiveType) -> Option<&'static str> {
    dtype(t).map(|d| d.str)
}

/// NumPy's `dtype.char` of [`dtype`]: `f`, `?`, `E` (bfloat16).
pub fn dtype_char(t: PrimitiveType) -> Option<char> {
    dtype(t).map(|d| d.char)
}

/// jaxlib's `DtypeToPrimitiveType` by dtype name (`dtype.name`).
///
/// # Errors
///
/// [`ErrorKind::InvalidArgument`](crate::ErrorKind::InvalidArgument): for a
/// dtype NumPy or ml_dtypes has but jaxlib refuses, jaxlib's message
/// (`Unknown NumPy dtype dtype(float6_e2m3fn) char 8 kind V itemsize 1`);
/// for any other name, `Unknown NumPy dtype name "<name>"`.
pub fn from_dtype_name(name: &str) -> Result<PrimitiveType> {
    match lookup(name) {
        Some(d) => from_dtype(d),
        None => Err(Error::invalid_argument(format!(
            "Unknown NumPy dtype name \"{name}\""
        ))),
    }
}

/// jaxlib's `DtypeToPrimitiveType` of a [`DTYPES`] entry.
///
/// # Errors
///
/// jaxlib's message for a dtype it refuses, as [`from_dtype_name`].
pub fn from_dtype(d: &Dtype) -> Result<PrimitiveType> {
    d.xla.ok_or_else(|| {
        Error::invalid_argument(format!(
            "Unknown NumPy dtype {} char {} kind {} itemsize {}",
            d.repr, d.char, d.kind, d.itemsize
        ))
    })
}

/// The element type of an array-interface type string (`dtype.str`) that
/// names exactly one mapped dtype: NumPy's own types (`<f4`, `|b1`) and
/// `<f1` (`float8_e5m2`).
///
/// # Errors
///
/// [`ErrorKind::InvalidArgument`](crate::ErrorKind::InvalidArgument) for
/// a string that several ml_dtypes types share (`<V1`, `<V2`: pass the
/// dtype name instead) or that no mapped dtype has.
pub fn from_dtype_str(s: &str) -> Result<PrimitiveType> {
    let mut mapped = DTYPES.iter().filter(|d| d.str == s && d.xla.is_some());
    match (mapped.next(), mapped.next()) {
        (Some(d), None) => from_dtype(d),
        (Some(_), Some(_)) => Err(Error::invalid_argument(format!(
            "NumPy type string \"{s}\" is shared by several ml_dtypes types; use the dtype name"
        ))),
        (None, _) => match DTYPES.iter().find(|d| d.str == s) {
            Some(d) => from_dtype(d),
            None => Err(Error::invalid_argument(format!(
                "Unknown NumPy type string \"{s}\""
            ))),
        },
    }
}
