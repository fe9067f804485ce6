//! XLA's element types: [`PrimitiveType`] is the generated proto enum, with
//! the classification, size, floating-point and name functions of XLA's
//! `primitive_util` as inherent methods.

use crate::error::{Error, Result};
pub use crate::proto::PrimitiveType;

use PrimitiveType as P;

/// Floating-point parameters in `std::numeric_limits` terms, as XLA reports
/// them (see [`PrimitiveType::significand_width`] and friends).
struct FloatInfo {
    significand: i32,
    underflow: i32,
    overflow: i32,
    infinity: bool,
    nan: bool,
    negative_zero: bool,
}

const fn fi(
    significand: i32,
    underflow: i32,
    overflow: i32,
    infinity: bool,
    nan: bool,
    negative_zero: bool,
) -> FloatInfo {
    FloatInfo {
        significand,
        underflow,
        overflow,
        infinity,
        nan,
        negative_zero,
    }
}

impl PrimitiveType {
    /// Every value of the enum, in declaration order (including
    /// `Invalid` and the non-array markers).
    pub const ALL: [PrimitiveType; 37] = [
        P::Invalid,
        P::Pred,
        P::S1,
        P::S2,
        P::S4,
        P::S8,
        P::S16,
        P::S32,
        P::S64,
        P::U1,
        P::U2,
        P::U4,
        P::U8,
        P::U16,
        P::U32,
        P::U64,
        P::F16,
        P::F32,
        P::Bf16,
        P::F64,
        P::F8e5m2,
        P::F8e4m3,
        P::F8e4m3fn,
        P::F8e4m3b11fnuz,
        P::F8e3m4,
        P::F8e5m2fnuz,
        P::F8e4m3fnuz,
        P::F4e2m1fn,
        P::F8e8m0fnu,
        P::F6e3m2fn,
        P::F6e2m3fn,
        P::C64,
        P::C128,
        P::Tuple,
        P::OpaqueType,
        P::Token,
        P::Buffer,
    ];

    /// The enum value with proto number `n`, or `None` for a number the
    /// schema does not know.
    #[doc(alias = "PrimitiveType_IsValid")]
    pub fn from_number(n: i32) -> Option<Self> {
        Self::try_from(n).ok()
    }

    /// XLA's `primitive_util::LowercasePrimitiveTypeName`: the lower-cased
    /// enum name, except `OPAQUE_TYPE`, which is `opaque`. This is how HLO
    /// text writes the type.
    ///
    /// ```
    /// use xla_shape::PrimitiveType;
    /// assert_eq!(PrimitiveType::Bf16.lowercase_name(), "bf16");
    /// assert_eq!(PrimitiveType::OpaqueType.lowercase_name(), "opaque");
    /// ```
    #[doc(
        alias = "LowercasePrimitiveTypeName",
        alias = "primitive_util::LowercasePrimitiveTypeName"
    )]
    pub const fn lowercase_name(self) -> &'static str {
        match self {
            P::Invalid => "primitive_type_invalid",
            P::Pred => "pred",
            P::S1 => "s1",
            P::S2 => "s2",
            P::S4 => "s4",
            P::S8 => "s8",
            P::S16 => "s16",
            P::S32 => "s32",
            P::S64 => "s64",
            P::U1 => "u1",
            P::U2 => "u2",
            P::U4 => "u4",
            P::U8 => "u8",
            P::U16 => "u16",
            P::U32 => "u32",
            P::U64 => "u64",
            P::F16 => "f16",
            P::F32 => "f32",
            P::Bf16 => "bf16",
            P::F64 => "f64",
            P::F8e5m2 => "f8e5m2",
            P::F8e4m3 => "f8e4m3",
            P::F8e4m3fn => "f8e4m3fn",
            P::F8e4m3b11fnuz => "f8e4m3b11fnuz",
            P::F8e3m4 => "f8e3m4",
            P::F8e5m2fnuz => "f8e5m2fnuz",
            P::F8e4m3fnuz => "f8e4m3fnuz",
            P::F4e2m1fn => "f4e2m1fn",
            P::F8e8m0fnu => "f8e8m0fnu",
            P::F6e3m2fn => "f6e3m2fn",
            P::F6e2m3fn => "f6e2m3fn",
            P::C64 => "c64",
            P::C128 => "c128",
            P::Tuple => "tuple",
            P::OpaqueType => "opaque",
            P::Token => "token",
            P::Buffer => "buffer",
        }
    }

    /// XLA's `primitive_util::StringToPrimitiveType`: exact, case-sensitive
    /// lookup of a [lowercase name](Self::lowercase_name) over every value
    /// but `Invalid` (so `tuple`, `token`, `buffer` and `opaque` are found;
    /// `opaque_type` and `F32` are not).
    ///
    /// # Errors
    ///
    /// `Invalid element type string: "<name>".` for any other string.
    #[doc(
        alias = "StringToPrimitiveType",
        alias = "primitive_util::StringToPrimitiveType"
    )]
    pub fn from_lowercase_name(name: &str) -> Result<Self> {
        Self::lookup_lowercase_name(name).ok_or_else(|| {
            Error::invalid_argument(format!("Invalid element type string: \"{name}\"."))
        })
    }

    /// The lookup behind [`from_lowercase_name`](Self::from_lowercase_name)
    /// (XLA's `IsPrimitiveTypeName` is `.is_some()` of this).
    pub(crate) fn lookup_lowercase_name(name: &str) -> Option<Self> {
        Self::ALL[1..]
            .iter()
            .copied()
            .find(|t| t.lowercase_name() == name)
    }

    /// XLA's `IsArrayType`: PRED, integral, floating and complex types (not
    /// `Invalid`, `Tuple`, `OpaqueType`, `Token`, `Buffer`).
    #[doc(alias = "IsArrayType", alias = "primitive_util::IsArrayType")]
    pub const fn is_array_type(self) -> bool {
        !matches!(
            self,
            P::Invalid | P::Tuple | P::OpaqueType | P::Token | P::Buffer
        )
    }

    /// XLA's `IsSignedIntegralType`: S1 to S64.
    #[doc(
        alias = "IsSignedIntegralType",
        alias = "primitive_util::IsSignedIntegralType"
    )]
    pub const fn is_signed_integral(self) -> bool {
        matches!(
            self,
            P::S1 | P::S2 | P::S4 | P::S8 | P::S16 | P::S32 | P::S64
        )
    }

    /// XLA's `IsUnsignedIntegralType`: U1 to U64.
    #[doc(
        alias = "IsUnsignedIntegralType",
        alias = "primitive_util::IsUnsignedIntegralType"
    )]
    pub const fn is_unsigned_integral(self) -> bool {
        matches!(
            self,
            P::U1 | P::U2 | P::U4 | P::U8 | P::U16 | P::U32 | P::U64
        )
    }

    /// XLA's `IsIntegralType`: signed or unsigned integers (PRED is not).
    #[doc(alias = "IsIntegralType", alias = "primitive_util::IsIntegralType")]
    pub const fn is_integral(self) -> bool {
        self.is_signed_integral() || self.is_unsigned_integral()
    }

    /// XLA's `Is8BitIntegralType`: S8 and U8.
    #[doc(
        alias = "Is8BitIntegralType",
        alias = "primitive_util::Is8BitIntegralType"
    )]
    pub const fn is_8bit_integral(self) -> bool {
        matches!(self, P::S8 | P::U8)
    }

    /// XLA's `IsF8Type`: the 8-bit floats, F8E8M0FNU included.
    #[doc(alias = "IsF8Type", alias = "primitive_util::IsF8Type")]
    pub const fn is_f8(self) -> bool {
        matches!(
            self,
            P::F8e5m2
                | P::F8e4m3
                | P::F8e4m3fn
                | P::F8e4m3b11fnuz
                | P::F8e3m4
                | P::F8e5m2fnuz
                | P::F8e4m3fnuz
                | P::F8e8m0fnu
        )
    }

    /// XLA's `IsMXType`: F4E2M1FN and F8E8M0FNU.
    #[doc(alias = "IsMXType", alias = "primitive_util::IsMXType")]
    pub const fn is_mx(self) -> bool {
        matches!(self, P::F4e2m1fn | P::F8e8m0fnu)
    }

    /// The 6-bit floats F6E3M2FN and F6E2M3FN.
    const fn is_f6(self) -> bool {
        matches!(self, P::F6e3m2fn | P::F6e2m3fn)
    }

    /// XLA's `IsFloatingPointType`: F16, F32, F64, BF16, the F8, F6 and MX
    /// types.
    #[doc(
        alias = "IsFloatingPointType",
        alias = "primitive_util::IsFloatingPointType"
    )]
    pub const fn is_floating_point(self) -> bool {
        matches!(self, P::F16 | P::F32 | P::F64 | P::Bf16)
            || self.is_f8()
            || self.is_mx()
            || self.is_f6()
    }

    /// XLA's `IsComplexType`: C64 and C128.
    #[doc(alias = "IsComplexType", alias = "primitive_util::IsComplexType")]
    pub const fn is_complex(self) -> bool {
        matches!(self, P::C64 | P::C128)
    }

    /// XLA's `IsSubByteNonPredType`: array types other than PRED narrower
    /// than 8 bits (S1, S2, S4, U1, U2, U4, F4E2M1FN, the F6 types).
    #[doc(
        alias = "IsSubByteNonPredType",
        alias = "primitive_util::IsSubByteNonPredType"
    )]
    pub const fn is_sub_byte_non_pred(self) -> bool {
        match self.bit_width() {
            Some(bits) => !matches!(self, P::Pred) && bits < 8,
            None => false,
        }
    }

    /// XLA's `BitWidth`: bits per element, or `None` for the non-array
    /// types (where XLA aborts). PRED is 1.
    ///
    /// ```
    /// use xla_shape::PrimitiveType;
    /// assert_eq!(PrimitiveType::S4.bit_width(), Some(4));
    /// assert_eq!(PrimitiveType::C128.bit_width(), Some(128));
    /// assert_eq!(PrimitiveType::Token.bit_width(), None);
    /// ```
    #[doc(alias = "BitWidth", alias = "primitive_util::BitWidth")]
    pub const fn bit_width(self) -> Option<u32> {
        Some(match self {
            P::Pred | P::S1 | P::U1 => 1,
            P::S2 | P::U2 => 2,
            P::S4 | P::U4 | P::F4e2m1fn => 4,
            P::F6e3m2fn | P::F6e2m3fn => 6,
            P::S8
            | P::U8
            | P::F8e5m2
            | P::F8e4m3
            | P::F8e4m3fn
            | P::F8e4m3b11fnuz
            | P::F8e3m4
            | P::F8e5m2fnuz
            | P::F8e4m3fnuz
            | P::F8e8m0fnu => 8,
            P::S16 | P::U16 | P::F16 | P::Bf16 => 16,
            P::S32 | P::U32 | P::F32 => 32,
            P::S64 | P::U64 | P::F64 | P::C64 => 64,
            P::C128 => 128,
            P::Invalid | P::Tuple | P::OpaqueType | P::Token | P::Buffer => return None,
        })
    }

    /// XLA's `ByteWidth` (and `ShapeUtil::ByteSizeOfPrimitiveType`): bytes
    /// per element, `ceil(bit_width / 8)`, so 1 for every sub-byte type;
    /// `None` for the non-array types.
    #[doc(alias = "ByteWidth", alias = "primitive_util::ByteWidth")]
    #[doc(alias = "ByteSizeOfPrimitiveType")]
    pub const fn byte_width(self) -> Option<i64> {
        match self.bit_width() {
            Some(bits) => Some(bits.div_ceil(8) as i64),
            None => None,
        }
    }

    fn float_info(self) -> Option<FloatInfo> {
        Some(match self {
            P::F16 => fi(11, -13, 16, true, true, true),
            P::Bf16 => fi(8, -125, 128, true, true, true),
            P::F32 => fi(24, -125, 128, true, true, true),
            P::F64 => fi(53, -1021, 1024, true, true, true),
            P::F8e5m2 => fi(3, -13, 16, true, true, true),
            P::F8e4m3 => fi(4, -5, 8, true, true, true),
            P::F8e4m3fn => fi(4, -5, 9, false, true, true),
            P::F8e4m3b11fnuz => fi(4, -9, 5, false, true, false),
            P::F8e3m4 => fi(5, -1, 4, true, true, true),
            P::F8e5m2fnuz => fi(3, -14, 16, false, true, false),
            P::F8e4m3fnuz => fi(4, -6, 8, false, true, false),
            P::F4e2m1fn => fi(2, 1, 3, false, false, true),
            P::F8e8m0fnu => fi(1, -126, 128, false, true, false),
            P::F6e3m2fn => fi(3, -1, 5, false, false, true),
            P::F6e2m3fn => fi(4, 1, 3, false, false, true),
            _ => return None,
        })
    }

    /// XLA's `SignificandWidth`: `numeric_limits::digits` of a floating
    /// type (the implicit bit included); `None` for other types.
    #[doc(alias = "SignificandWidth", alias = "primitive_util::SignificandWidth")]
    pub fn significand_width(self) -> Option<i32> {
        self.float_info().map(|f| f.significand)
    }

    /// XLA's `ExponentWidth`: `bit_width - (significand_width - 1) - 1`
    /// (7 for F8E8M0FNU, which has no sign bit: XLA's formula is kept).
    #[doc(alias = "ExponentWidth", alias = "primitive_util::ExponentWidth")]
    pub fn exponent_width(self) -> Option<i32> {
        let f = self.float_info()?;
        Some(self.bit_width()? as i32 - (f.significand - 1) - 1)
    }

    /// XLA's `UnderflowExponent`: `numeric_limits::min_exponent`.
    #[doc(
        alias = "UnderflowExponent",
        alias = "primitive_util::UnderflowExponent"
    )]
    pub fn underflow_exponent(self) -> Option<i32> {
        self.float_info().map(|f| f.underflow)
    }

    /// XLA's `OverflowExponent`: `numeric_limits::max_exponent`.
    #[doc(alias = "OverflowExponent", alias = "primitive_util::OverflowExponent")]
    pub fn overflow_exponent(self) -> Option<i32> {
        self.float_info().map(|f| f.overflow)
    }

    /// XLA's `ExponentBias`: `(1 - underflow_exponent) + 1`.
    #[doc(alias = "ExponentBias", alias = "primitive_util::ExponentBias")]
    pub fn exponent_bias(self) -> Option<i32> {
        self.float_info().map(|f| (1 - f.underflow) + 1)
    }

    /// XLA's `HasInfinity`; false for non-floating types.
    #[doc(alias = "HasInfinity", alias = "primitive_util::HasInfinity")]
    pub fn has_infinity(self) -> bool {
        self.float_info().is_some_and(|f| f.infinity)
    }

    /// XLA's `HasNaN`; false for non-floating types.
    #[doc(alias = "HasNaN", alias = "primitive_util::HasNaN")]
    pub fn has_nan(self) -> bool {
        self.float_info().is_some_and(|f| f.nan)
    }

    /// XLA's `HasNegativeZero`; false for non-floating types.
    #[doc(alias = "HasNegativeZero", alias = "primitive_util::HasNegativeZero")]
    pub fn has_negative_zero(self) -> bool {
        self.float_info().is_some_and(|f| f.negative_zero)
    }
}

impl std::str::FromStr for PrimitiveType {
    type Err = Error;
    /// [`from_lowercase_name`](Self::from_lowercase_name).
    fn from_str(s: &str) -> Result<Self> {
        Self::from_lowercase_name(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_lists_every_number_once() {
        let mut numbers: Vec<i32> = PrimitiveType::ALL.iter().map(|t| *t as i32).collect();
        numbers.sort();
        numbers.dedup();
        assert_eq!(numbers.len(), PrimitiveType::ALL.len());
        for n in 0..=36 {
            assert_eq!(
                PrimitiveType::from_number(n).is_some(),
                numbers.contains(&n),
                "{n}"
            );
        }
    }

    #[test]
    fn lowercase_names_follow_the_enum_names() {
        for t in PrimitiveType::ALL {
            let expected = match t {
                P::OpaqueType => "opaque".to_string(),
                _ => t.as_str_name().to_ascii_lowercase(),
            };
            assert_eq!(t.lowercase_name(), expected);
        }
    }
}
