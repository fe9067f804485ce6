//! Hostile inputs to the strides and view functions: sizes and strides
//! near `i64::MAX` give the documented `Overflow` or the right answer,
//! never an overflow panic (debug) or a wrapped, wrong answer (release),
//! and zero-element arrays have views.

use xla_shape::strides::{ViewKind, classify_view, dml_buffer_tensor_size};
use xla_shape::{ErrorKind, PrimitiveType};

const BIG: i64 = 1 << 62;

#[test]
fn buffer_sizes_that_overflow_are_overflow_errors() {
    // Without strides: 2^62 cubed elements is 2^186 bytes.
    let e = dml_buffer_tensor_size(PrimitiveType::U8, &[BIG; 3], None).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Overflow, "{e}");
    // With strides: the last element is at 16 * (2^62 - 1) * 2^62, about
    // 2^128, past i128.
    let e = dml_buffer_tensor_size(PrimitiveType::U8, &[BIG; 16], Some(&[BIG; 16])).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Overflow, "{e}");
    // The last element at (2^62 - 1) * 2^62 fits i128 but not u64.
    let e = dml_buffer_tensor_size(PrimitiveType::U8, &[BIG], Some(&[BIG])).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Overflow, "{e}");
    // Elements that fit, bytes that do not: 2^62 f64 are 2^65 bytes.
    let e = dml_buffer_tensor_size(PrimitiveType::F64, &[BIG], None).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Overflow, "{e}");
    // Still exact just below the limit: 2^61 u8 is 2^61 bytes (a multiple
    // of 4), and a stride of 2^61 over 2 elements ends at 2^61 + 1, which
    // rounds up to 2^61 + 4.
    assert_eq!(
        dml_buffer_tensor_size(PrimitiveType::U8, &[1 << 61], None).unwrap(),
        1 << 61
    );
    assert_eq!(
        dml_buffer_tensor_size(PrimitiveType::U8, &[2], Some(&[1 << 61])).unwrap(),
        (1 << 61) + 4
    );
}

#[test]
fn classifying_views_with_huge_strides() {
    // Offsets i * 2^62 + j * (2^62 + 1) = (i + j) * 2^62 + j for i < 5,
    // j < 2: the strides interleave (2^62 + 1 is within the 4 * 2^62 span
    // of the first dimension) but j is the remainder mod 2^62, so no two
    // elements share a slot. 10 elements over 5 * 2^62 + 2 slots: padded.
    assert_eq!(
        classify_view(&[5, 2], &[BIG, BIG + 1]).unwrap(),
        ViewKind::Padded
    );
    // The same with equal strides: (i + j) * 2^62 repeats (1,0) = (0,1).
    assert_eq!(
        classify_view(&[5, 2], &[BIG, BIG]).unwrap(),
        ViewKind::Overlapping { dims: vec![0, 1] }
    );
    // The largest sizes and strides, not interleaved: 2 elements, i64::MAX
    // apart.
    assert_eq!(
        classify_view(&[2, 1], &[i64::MAX, i64::MAX]).unwrap(),
        ViewKind::Padded
    );
    // Many interleaved dimensions of the largest size: their element
    // count overflows every integer, too many to enumerate (documented).
    let e = classify_view(&[i64::MAX; 40], &[1; 40]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{e}");
}

#[cfg(feature = "ndarray")]
#[test]
fn zero_element_arrays_have_views() {
    use xla_shape::ArrayShape;
    use xla_shape::strides::ndarray_view;
    // An empty slice's pointer is dangling and aligned only for u8; a view
    // of no element reads none, so it needs no alignment.
    let s = ArrayShape::new(PrimitiveType::F32, [0]).unwrap();
    let v = ndarray_view::<f32>(&s, &[]).unwrap();
    assert_eq!(v.shape(), [0]);
    // u8[0,5] has strides [5, 1]: the last "element" would be 4 slots in,
    // but there is none.
    let s = ArrayShape::new(PrimitiveType::U8, [0, 5]).unwrap();
    let v = ndarray_view::<u8>(&s, &[]).unwrap();
    assert_eq!(v.shape(), [0, 5]);
    let s = ArrayShape::new(PrimitiveType::S64, [3, 0, 2]).unwrap();
    assert_eq!(ndarray_view::<i64>(&s, &[]).unwrap().shape(), [3, 0, 2]);
    // A zero-element array still takes no bytes.
    assert_eq!(
        ndarray_view::<u8>(&ArrayShape::new(PrimitiveType::U8, [0, 5]).unwrap(), &[0])
            .unwrap_err()
            .kind(),
        ErrorKind::BufferSize
    );
}
