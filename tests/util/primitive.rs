//! primitive_util: the cases of upstream's xla/primitive_util_test.cc, each
//! named by its case number and what it checks, and the helpers of
//! xla/primitive_util.h beyond them.

use xla_shape::PrimitiveType as T;
use xla_shape::primitive_util as pu;
use xla_shape::shape_util;

#[test]
fn p1_string_to_primitive_type_f32() {
    assert_eq!(T::from_lowercase_name("f32").unwrap(), T::F32);
}

#[test]
fn p2_string_to_primitive_type_tuple() {
    assert_eq!(T::from_lowercase_name("tuple").unwrap(), T::Tuple);
}

#[test]
fn p3_string_to_primitive_type_pred() {
    assert_eq!(T::from_lowercase_name("pred").unwrap(), T::Pred);
}

#[test]
fn p4_string_to_primitive_type_s32() {
    assert_eq!(T::from_lowercase_name("s32").unwrap(), T::S32);
}

#[test]
fn p5_string_to_primitive_type_is_case_sensitive() {
    for name in ["F32", "Pred", "preD"] {
        let err = T::from_lowercase_name(name).unwrap_err();
        // primitive_util::StringToPrimitiveType's failure text.
        assert_eq!(
            err.to_string(),
            format!("Invalid element type string: \"{name}\".")
        );
        assert!(!pu::is_primitive_type_name(name));
    }
    // xla/primitive_util.cc: "opaque", not "opaque_type" (its comment notwithstanding).
    assert!(pu::is_primitive_type_name("opaque"));
    assert!(!pu::is_primitive_type_name("opaque_type"));
}

#[test]
fn p7_significand_width() {
    assert_eq!(T::F32.significand_width(), Some(24));
    assert_eq!(T::Bf16.significand_width(), Some(8));
}

#[test]
fn p8_exponent_width() {
    assert_eq!(T::F32.exponent_width(), Some(8));
    assert_eq!(T::Bf16.exponent_width(), Some(8));
}

#[test]
fn p9_underflow_exponent() {
    assert_eq!(T::F32.underflow_exponent(), Some(-125));
    assert_eq!(T::Bf16.underflow_exponent(), Some(-125));
}

#[test]
fn p10_overflow_exponent() {
    assert_eq!(T::F32.overflow_exponent(), Some(128));
    assert_eq!(T::Bf16.overflow_exponent(), Some(128));
}

#[test]
fn p11_cast_pred_to_sub_byte_preserves_values() {
    for to in [T::S1, T::S2, T::S4] {
        assert!(pu::cast_preserves_values(T::Pred, to), "{to:?}");
    }
}

#[test]
fn p12_cast_from_f8e8m0fnu_loses_values() {
    for to in [T::F8e4m3b11fnuz, T::F8e4m3fnuz, T::F8e5m2fnuz, T::F8e3m4] {
        assert!(!pu::cast_preserves_values(T::F8e8m0fnu, to), "{to:?}");
    }
}

#[test]
fn p13_cast_f8e8m0fnu_to_itself_preserves_values() {
    assert!(pu::cast_preserves_values(T::F8e8m0fnu, T::F8e8m0fnu));
}

#[test]
fn p16_byte_size_of_primitive_type() {
    assert_eq!(shape_util::byte_size_of_primitive_type(T::F32), Some(4));
    assert_eq!(shape_util::byte_size_of_primitive_type(T::F64), Some(8));
    assert_eq!(shape_util::byte_size_of_primitive_type(T::C64), Some(8));
    assert_eq!(shape_util::byte_size_of_primitive_type(T::Token), None);
}

#[test]
fn integral_types_for_bit_width() {
    // xla/primitive_util.cc: 1 -> U1 but no S1.
    assert_eq!(pu::unsigned_integral_type_for_bit_width(1), T::U1);
    assert_eq!(pu::signed_integral_type_for_bit_width(1), T::Invalid);
    assert_eq!(pu::signed_integral_type_for_bit_width(4), T::S4);
    assert_eq!(pu::unsigned_integral_type_for_bit_width(64), T::U64);
    assert_eq!(pu::unsigned_integral_type_for_bit_width(3), T::Invalid);
}

#[test]
fn complex_component_and_complex_types() {
    // xla/primitive_util.cc
    assert_eq!(pu::complex_component_type(T::C64), Some(T::F32));
    assert_eq!(pu::complex_component_type(T::C128), Some(T::F64));
    assert_eq!(pu::complex_component_type(T::F32), None);
    assert_eq!(pu::complex_type(T::F64), T::C128);
    assert_eq!(pu::complex_type(T::Bf16), T::Invalid);
}

#[test]
fn higher_precision_type_orders_by_spec_2_5() {
    // Complex first; then the overflow exponent (bf16 128 > f16 16); then
    // the significand; then bits; then signedness.
    assert_eq!(pu::higher_precision_type(T::F16, T::Bf16), Some(T::Bf16));
    assert_eq!(pu::higher_precision_type(T::F32, T::C64), Some(T::C64));
    assert_eq!(pu::higher_precision_type(T::F32, T::Bf16), Some(T::F32)); // 24 > 8 significand bits
    assert_eq!(pu::higher_precision_type(T::S32, T::U32), Some(T::S32)); // signed wins the tie
    assert_eq!(pu::higher_precision_type(T::S8, T::U16), Some(T::U16)); // 16 > 8 bits
    assert_eq!(pu::higher_precision_type(T::F32, T::F32), Some(T::F32));
    // PRED and U1 tie on every criterion: XLA's CHECK_EQ(a, b) fails.
    assert_eq!(pu::higher_precision_type(T::Pred, T::U1), None);
    assert_eq!(pu::higher_precision_type(T::Token, T::F32), None);
}

#[test]
fn cast_preserves_values_follows_spec_2_5() {
    assert!(pu::cast_preserves_values(T::F32, T::C64)); // component F32 -> F32
    assert!(!pu::cast_preserves_values(T::C64, T::F64)); // drops imaginary part
    assert!(!pu::cast_preserves_values(T::F32, T::S32)); // float -> int
    assert!(pu::cast_preserves_values(T::S16, T::F32)); // 15 bits <= 24, 15 < 128
    assert!(!pu::cast_preserves_values(T::S32, T::F32)); // 31 bits > 24
    assert!(!pu::cast_preserves_values(T::S8, T::U64)); // signed -> unsigned
    assert!(pu::cast_preserves_values(T::U8, T::S16)); // 8 <= 15
    assert!(!pu::cast_preserves_values(T::U16, T::S16)); // 16 > 15
    assert!(pu::cast_preserves_values(T::F16, T::F32));
    assert!(!pu::cast_preserves_values(T::F32, T::F16));
    // f8e4m3fn has no infinity, f8e5m2 has; e4m3fn's significand (4) does
    // not fit e5m2's (3).
    assert!(!pu::cast_preserves_values(T::F8e5m2, T::F8e4m3fn));
    assert!(!pu::cast_preserves_values(T::F32, T::Pred));
    // XLA aborts on an integer cast to a non-array type; we answer false.
    assert!(!pu::cast_preserves_values(T::S32, T::Token));
}

#[test]
fn fits_in_integral_type_uses_the_native_ranges() {
    assert!(pu::fits_in_integral_type(-8, T::S4));
    assert!(!pu::fits_in_integral_type(8, T::S4));
    assert!(pu::fits_in_integral_type(15, T::U4));
    assert!(!pu::fits_in_integral_type(-1, T::U64));
    assert!(pu::fits_in_integral_type(i64::MAX, T::U64));
    assert!(pu::fits_in_integral_type(i64::MIN, T::S64));
    assert!(pu::fits_in_integral_type(-1, T::S1));
    assert!(!pu::fits_in_integral_type(1, T::S1));
    assert!(!pu::fits_in_integral_type(0, T::F32));
}

#[test]
fn native_types_and_can_represent() {
    assert_eq!(pu::native_to_primitive_type::<i16>(), T::S16);
    assert_eq!(pu::native_to_primitive_type::<u64>(), T::U64);
    assert_eq!(pu::native_to_primitive_type::<f64>(), T::F64);
    // The header's examples (primitive_util.h, CanRepresent).
    assert!(pu::can_represent::<f32>(T::F32));
    assert!(pu::can_represent::<i32>(T::S8));
    assert!(!pu::can_represent::<u16>(T::S16));
    assert!(pu::can_represent::<bool>(T::Pred));
    assert!(pu::can_represent::<u8>(T::U4));
    assert!(!pu::can_represent::<f32>(T::F64));
    assert!(!pu::can_represent::<i64>(T::Token));
}

#[test]
fn lowercase_names_round_trip() {
    for t in T::ALL {
        if t != T::Invalid {
            assert_eq!(T::from_lowercase_name(t.lowercase_name()).unwrap(), t);
        }
    }
}
