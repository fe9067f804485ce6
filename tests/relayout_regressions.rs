//! Regressions of the relayout planner and runner: inputs that once
//! crashed it are errors now.

use xla_shape::relayout::{Relayout, StridedSource, relayout_to_vec};
use xla_shape::{ArrayShape, ErrorKind, PrimitiveType};

/// A strided view whose second axis is 2^59 bytes apart: its 16
/// positions span 15 * 2^59 bytes (below `isize::MAX`), but merging the
/// axes multiplied the stride by the extent, 2^63, and overflowed.
#[test]
fn huge_strides_are_an_overflow_not_a_panic() {
    let view = StridedSource::new(PrimitiveType::U8, [2, 16], [1, 1 << 59]).unwrap();
    let dst = ArrayShape::new(PrimitiveType::U8, [2, 16]).unwrap();
    let e = Relayout::from_strided(&view, &dst).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Overflow, "{e}");
}

/// The source buffer is checked before the 1 TiB destination of
/// `u8[1099511627776]` is allocated.
#[test]
fn the_source_is_checked_before_the_destination_is_allocated() {
    let s = ArrayShape::new(PrimitiveType::U8, [1 << 40]).unwrap();
    let e = relayout_to_vec(&s, &[], &s).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::BufferSize);
    assert_eq!(
        e.to_string(),
        "source buffer has 0 bytes but u8[1099511627776]{0} takes 1099511627776 bytes"
    );
}
