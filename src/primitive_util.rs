//! XLA's `primitive_util`: what it does beyond [`PrimitiveType`]'s own methods.
//!
//! XLA's classification, size, floating-point and name functions of one
//! type are methods of [`PrimitiveType`], each carrying XLA's name as a
//! search alias: `primitive_util::BitWidth(t)` is
//! [`t.bit_width()`](PrimitiveType::bit_width),
//! `primitive_util::IsFloatingPointType(t)` is
//! [`t.is_floating_point()`](PrimitiveType::is_floating_point),
//! `primitive_util::StringToPrimitiveType(s)` is
//! [`PrimitiveType::from_lowercase_name`] (and `s.parse()`). This module
//! holds the rest: conversions between types ([`higher_precision_type`],
//! [`cast_preserves_values`], [`complex_component_type`], the
//! `*_for_bit_width` lookups, ...) and the native-type helpers
//! ([`native_to_primitive_type`], [`can_represent`]). `docs/xla-mapping.md`
//! lists where each upstream function lives.
//!
//! # Errors and panics
//!
//! Nothing here or in those methods panics. Where XLA aborts on a type it cannot handle (a
//! non-array type given to `BitWidth`, a non-complex type given to
//! `ComplexComponentType`), a function that returns a value returns `None`,
//! and a predicate answers `false`. Where XLA returns
//! `PRIMITIVE_TYPE_INVALID` as a "no such type" answer, so do these
//! functions ([`PrimitiveType::Invalid`]).
//!
//! ```
//! use xla_shape::PrimitiveType as T;
//! use xla_shape::primitive_util;
//! assert_eq!(T::S4.bit_width(), Some(4));
//! // bf16 has the larger range (overflow exponent 128 against 16).
//! assert_eq!(primitive_util::higher_precision_type(T::Bf16, T::F16), Some(T::Bf16));
//! assert!(primitive_util::cast_preserves_values(T::S16, T::F32));
//! assert_eq!(T::from_lowercase_name("bf16")?, T::Bf16);
//! assert!(primitive_util::is_primitive_type_name("bf16"));
//! # Ok::<(), xla_shape::Error>(())
//! ```

use crate::model::PrimitiveType;

use PrimitiveType as P;

/// XLA's `UnsignedIntegralTypeForBitWidth`: U1, U2, U4, U8, U16, U32 or U64
/// for those widths, `Invalid` for any other.
///
/// ```
/// use xla_shape::{PrimitiveType as T, primitive_util};
/// assert_eq!(primitive_util::unsigned_integral_type_for_bit_width(4), T::U4);
/// assert_eq!(primitive_util::signed_integral_type_for_bit_width(16), T::S16);
/// assert_eq!(primitive_util::signed_integral_type_for_bit_width(3), T::Invalid);
/// ```
#[doc(alias = "primitive_util::UnsignedIntegralTypeForBitWidth")]
pub fn unsigned_integral_type_for_bit_width(bits: i64) -> PrimitiveType {
    match bits {
        1 => P::U1,
        2 => P::U2,
        4 => P::U4,
        8 => P::U8,
        16 => P::U16,
        32 => P::U32,
        64 => P::U64,
        _ => P::Invalid,
    }
}

/// XLA's `SignedIntegralTypeForBitWidth`: S2, S4, S8, S16, S32 or S64 for
/// those widths, `Invalid` for any other. As upstream, 1 gives `Invalid`
/// although S1 exists.
#[doc(alias = "primitive_util::SignedIntegralTypeForBitWidth")]
pub fn signed_integral_type_for_bit_width(bits: i64) -> PrimitiveType {
    match bits {
        2 => P::S2,
        4 => P::S4,
        8 => P::S8,
        16 => P::S16,
        32 => P::S32,
        64 => P::S64,
        _ => P::Invalid,
    }
}

/// XLA's `ComplexComponentType`: F32 for C64, F64 for C128; `None` for any
/// other type (XLA aborts).
///
/// ```
/// use xla_shape::{PrimitiveType as T, primitive_util};
/// assert_eq!(primitive_util::complex_component_type(T::C128), Some(T::F64));
/// assert_eq!(primitive_util::complex_type(T::F32), T::C64);
/// ```
#[doc(alias = "primitive_util::ComplexComponentType")]
pub fn complex_component_type(t: PrimitiveType) -> Option<PrimitiveType> {
    match t {
        P::C64 => Some(P::F32),
        P::C128 => Some(P::F64),
        _ => None,
    }
}

/// XLA's `ComplexType`: C64 for F32, C128 for F64, `Invalid` for any other
/// type.
#[doc(alias = "primitive_util::ComplexType")]
pub fn complex_type(t: PrimitiveType) -> PrimitiveType {
    match t {
        P::F32 => P::C64,
        P::F64 => P::C128,
        _ => P::Invalid,
    }
}

/// XLA's `IsPrimitiveTypeName`: whether
/// [`PrimitiveType::from_lowercase_name`] (XLA's `StringToPrimitiveType`)
/// succeeds.
#[doc(alias = "primitive_util::IsPrimitiveTypeName")]
pub fn is_primitive_type_name(name: &str) -> bool {
    PrimitiveType::lookup_lowercase_name(name).is_some()
}

/// The key XLA's `HigherPrecisionType` orders types by, or `None` where XLA
/// aborts (`BitWidth` of a non-array type).
fn precision_key(t: PrimitiveType) -> Option<(bool, i32, i32, u32, bool)> {
    let component = complex_component_type(t).unwrap_or(t);
    let float = component.is_floating_point();
    Some((
        t.is_complex(),
        if float {
            component.overflow_exponent()?
        } else {
            -1
        },
        if float {
            component.significand_width()?
        } else {
            -1
        },
        component.bit_width()?,
        component.is_signed_integral(),
    ))
}

/// XLA's `HigherPrecisionType`: of `a` and `b`, the one that is complex,
/// then has the larger range, then the larger precision, then more bits,
/// then is signed.
///
/// Returns `None` where XLA aborts: for a non-array type, and when the two
/// differ but tie on every criterion (PRED and U1).
///
/// ```
/// use xla_shape::PrimitiveType as T;
/// use xla_shape::primitive_util::higher_precision_type;
/// assert_eq!(higher_precision_type(T::F32, T::C64), Some(T::C64));
/// assert_eq!(higher_precision_type(T::S32, T::U32), Some(T::S32));
/// assert_eq!(higher_precision_type(T::Pred, T::U1), None);
/// ```
#[doc(alias = "primitive_util::HigherPrecisionType")]
pub fn higher_precision_type(a: PrimitiveType, b: PrimitiveType) -> Option<PrimitiveType> {
    let (ka, kb) = (precision_key(a)?, precision_key(b)?);
    match ka.cmp(&kb) {
        std::cmp::Ordering::Greater => Some(a),
        std::cmp::Ordering::Less => Some(b),
        std::cmp::Ordering::Equal => (a == b).then_some(a),
    }
}

/// XLA's `CastPreservesValues`: whether converting every value of `from`
/// to `to` is lossless.
///
/// Where XLA aborts (an integer converted to a non-array type), this
/// answers `false`.
///
/// ```
/// use xla_shape::PrimitiveType as T;
/// use xla_shape::primitive_util::cast_preserves_values;
/// assert!(cast_preserves_values(T::Pred, T::S1));
/// assert!(cast_preserves_values(T::F32, T::C64));
/// assert!(!cast_preserves_values(T::S32, T::F32));
/// assert!(!cast_preserves_values(T::F8e8m0fnu, T::F8e3m4));
/// ```
#[doc(alias = "primitive_util::CastPreservesValues")]
pub fn cast_preserves_values(from: PrimitiveType, to: PrimitiveType) -> bool {
    if from == to {
        return true;
    }
    if to == P::F8e8m0fnu {
        return false;
    }
    if from == P::Pred {
        return true;
    }
    if to == P::Pred {
        return false;
    }
    if let Some(to_component) = complex_component_type(to) {
        let from_component = complex_component_type(from).unwrap_or(from);
        return cast_preserves_values(from_component, to_component);
    }
    if from.is_complex() {
        return false;
    }
    if from.is_floating_point() && to.is_floating_point() {
        return float_cast_preserves_values(from, to).unwrap_or(false);
    }
    if !from.is_integral() {
        return false;
    }
    let (Some(from_width), Some(to_width)) = (from.bit_width(), to.bit_width()) else {
        return false;
    };
    let non_sign_bits = |t: PrimitiveType, width: u32| {
        if t.is_signed_integral() {
            width as i32 - 1
        } else {
            width as i32
        }
    };
    let from_bits = non_sign_bits(from, from_width);
    let to_bits = non_sign_bits(to, to_width);
    if to.is_floating_point() {
        let (Some(significand), Some(overflow)) = (to.significand_width(), to.overflow_exponent())
        else {
            return false;
        };
        return from_bits <= significand && (from_width as i32 - 1) < overflow;
    }
    if from.is_signed_integral() && to.is_unsigned_integral() {
        return false;
    }
    // XLA CHECK-fails here unless `to` is integral.
    to.is_integral() && from_bits <= to_bits
}

fn float_cast_preserves_values(from: PrimitiveType, to: PrimitiveType) -> Option<bool> {
    let (fs, ts) = (from.significand_width()?, to.significand_width()?);
    let (fu, tu) = (from.underflow_exponent()?, to.underflow_exponent()?);
    Some(
        (!from.has_infinity() || to.has_infinity())
            && (!from.has_nan() || to.has_nan())
            && (!from.has_negative_zero() || to.has_negative_zero())
            && fs <= ts
            && from.exponent_width()? <= to.exponent_width()?
            && (fu - fs) >= (tu - ts)
            && from.overflow_exponent()? <= to.overflow_exponent()?,
    )
}

/// The range of the native integer type XLA uses for an integral type.
fn integral_range(t: PrimitiveType) -> Option<(i64, i64)> {
    let bits = t.bit_width()?;
    if t.is_signed_integral() {
        let half = 1i128 << (bits - 1);
        Some(((-half) as i64, (half - 1) as i64))
    } else if t.is_unsigned_integral() {
        let max = (1u128 << bits) - 1;
        Some((0, i64::try_from(max).unwrap_or(i64::MAX)))
    } else {
        None
    }
}

/// XLA's `FitsInIntegralType`: whether `x` is in the range of the integral
/// type `t` (S4: -8..=7, U1: 0..=1, ...). False for a non-integral type
/// (XLA aborts).
///
/// ```
/// use xla_shape::{PrimitiveType as T, primitive_util};
/// // U4 holds 0..=15.
/// assert!(primitive_util::fits_in_integral_type(15, T::U4));
/// assert!(!primitive_util::fits_in_integral_type(16, T::U4));
/// ```
#[doc(alias = "primitive_util::FitsInIntegralType")]
pub fn fits_in_integral_type(x: i64, t: PrimitiveType) -> bool {
    integral_range(t).is_some_and(|(min, max)| min <= x && x <= max)
}

mod sealed {
    pub trait Sealed {}
}

/// A Rust type with an XLA element type: XLA's `NativeToPrimitiveType<T>`
/// and `NativeTypeOf<t>` for the types Rust has natively (`bool`, the
/// integers, `f32`, `f64`).
#[doc(alias = "primitive_util::NativeTypeOf")]
pub trait NativeType: sealed::Sealed + Copy {
    /// The XLA element type of `Self`.
    const PRIMITIVE_TYPE: PrimitiveType;
    /// `std::numeric_limits<T>::is_integer`.
    const IS_INTEGER: bool;
    /// `std::numeric_limits<T>::is_signed`.
    const IS_SIGNED: bool;
    /// `std::numeric_limits<T>::digits`: value bits, the sign excluded.
    const DIGITS: u32;
}

macro_rules! native_type {
    ($($t:ty => $p:ident, $int:expr, $signed:expr, $digits:expr;)*) => {
        $(
            impl sealed::Sealed for $t {}
            impl NativeType for $t {
                const PRIMITIVE_TYPE: PrimitiveType = P::$p;
                const IS_INTEGER: bool = $int;
                const IS_SIGNED: bool = $signed;
                const DIGITS: u32 = $digits;
            }
        )*
    };
}

native_type! {
    bool => Pred, true, false, 1;
    i8 => S8, true, true, 7;
    i16 => S16, true, true, 15;
    i32 => S32, true, true, 31;
    i64 => S64, true, true, 63;
    u8 => U8, true, false, 8;
    u16 => U16, true, false, 16;
    u32 => U32, true, false, 32;
    u64 => U64, true, false, 64;
    f32 => F32, false, true, 24;
    f64 => F64, false, true, 53;
}

/// XLA's `NativeToPrimitiveType<T>()`: the element type of a Rust type.
///
/// ```
/// use xla_shape::{PrimitiveType, primitive_util::native_to_primitive_type};
/// assert_eq!(native_to_primitive_type::<f32>(), PrimitiveType::F32);
/// assert_eq!(native_to_primitive_type::<bool>(), PrimitiveType::Pred);
/// ```
#[doc(alias = "primitive_util::NativeToPrimitiveType")]
pub fn native_to_primitive_type<T: NativeType>() -> PrimitiveType {
    T::PRIMITIVE_TYPE
}

/// XLA's `CanRepresent<T>(t)`: whether every value of element type `t` is
/// a value of the Rust type `T` (floating and complex types: only their own
/// native type; integers: any wide enough integer of the same signedness;
/// PRED: unsigned integers and `bool`). False for the non-array types.
///
/// ```
/// use xla_shape::PrimitiveType as T;
/// use xla_shape::primitive_util::can_represent;
/// assert!(can_represent::<f32>(T::F32));
/// assert!(can_represent::<i32>(T::S8));
/// assert!(!can_represent::<u16>(T::S16));
/// ```
#[doc(alias = "primitive_util::CanRepresent")]
pub fn can_represent<T: NativeType>(t: PrimitiveType) -> bool {
    if t.is_floating_point() || t.is_complex() {
        return T::PRIMITIVE_TYPE == t;
    }
    let Some(bits) = t.bit_width() else {
        return false;
    };
    if t.is_signed_integral() {
        T::IS_INTEGER && T::IS_SIGNED && bits <= T::DIGITS + 1
    } else if t.is_unsigned_integral() || t == P::Pred {
        T::IS_INTEGER && !T::IS_SIGNED && bits <= T::DIGITS
    } else {
        false
    }
}
