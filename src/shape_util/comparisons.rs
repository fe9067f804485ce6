//! Comparisons: XLA's `ShapeUtil::Equal*` and `ShapeUtil::Compatible*`.

use super::{for_each_subshape, index_is_valid};
use crate::model::{Shape, ShapeEqual};

/// XLA's `ShapeUtil::Equal`: `lhs == rhs`.
///
/// ```
/// use xla_shape::{Shape, shape_util};
/// let row_major: Shape = "f32[2,3]{1,0}".parse()?;
/// let column_major: Shape = "f32[2,3]{0,1}".parse()?;
/// // Equal compares layouts, Compatible does not.
/// assert!(!shape_util::equal(&row_major, &column_major));
/// assert!(shape_util::compatible(&row_major, &column_major));
/// let bf16: Shape = "bf16[2,3]{1,0}".parse()?;
/// assert!(shape_util::equal_ignoring_fp_precision(&row_major, &bf16));
/// assert!(shape_util::compatible_ignoring_element_type(&"s32[2,3]".parse()?, &column_major));
/// # Ok::<(), xla_shape::Error>(())
/// ```
#[doc(alias = "ShapeUtil::Equal")]
pub fn equal(lhs: &Shape, rhs: &Shape) -> bool {
    lhs == rhs
}

/// XLA's `ShapeUtil::EqualIgnoringElementType`.
#[doc(alias = "ShapeUtil::EqualIgnoringElementType")]
pub fn equal_ignoring_element_type(lhs: &Shape, rhs: &Shape) -> bool {
    lhs.equal_with(rhs, &ShapeEqual::default().ignore_element_type())
}

/// XLA's `ShapeUtil::EqualIgnoringFpPrecision`: any two floating types
/// match.
#[doc(alias = "ShapeUtil::EqualIgnoringFpPrecision")]
pub fn equal_ignoring_fp_precision(lhs: &Shape, rhs: &Shape) -> bool {
    lhs.equal_with(rhs, &ShapeEqual::default().ignore_fp_precision())
}

/// XLA's `ShapeUtil::EqualStructure`: the same tuple tree (every subshape
/// index of each is one of the other).
#[doc(alias = "ShapeUtil::EqualStructure")]
pub fn equal_structure(lhs: &Shape, rhs: &Shape) -> bool {
    let mut equal = true;
    for_each_subshape(lhs, |_, index| equal = equal && index_is_valid(rhs, index));
    for_each_subshape(rhs, |_, index| equal = equal && index_is_valid(lhs, index));
    equal
}

/// XLA's `ShapeUtil::Compatible`: equal ignoring layouts and dynamic
/// flags (an unbounded dimension matches any size).
#[doc(alias = "ShapeUtil::Compatible")]
pub fn compatible(lhs: &Shape, rhs: &Shape) -> bool {
    lhs.equal_with(
        rhs,
        &ShapeEqual::default()
            .ignore_dynamic_dimension()
            .ignore_layout(),
    )
}

/// XLA's `ShapeUtil::CompatibleIgnoringElementType`.
#[doc(alias = "ShapeUtil::CompatibleIgnoringElementType")]
pub fn compatible_ignoring_element_type(lhs: &Shape, rhs: &Shape) -> bool {
    lhs.equal_with(
        rhs,
        &ShapeEqual::default()
            .ignore_dynamic_dimension()
            .ignore_element_type()
            .ignore_layout(),
    )
}

/// XLA's `ShapeUtil::CompatibleKind`: the same tuple tree and leaf ranks.
#[doc(alias = "ShapeUtil::CompatibleKind")]
pub fn compatible_kind(lhs: &Shape, rhs: &Shape) -> bool {
    lhs.equal_with(
        rhs,
        &ShapeEqual::default()
            .ignore_element_type()
            .ignore_layout()
            .ignore_dimensions()
            .ignore_dynamic_dimension(),
    )
}

/// XLA's `ShapeUtil::CompatibleIgnoringFpPrecision`.
#[doc(alias = "ShapeUtil::CompatibleIgnoringFpPrecision")]
pub fn compatible_ignoring_fp_precision(lhs: &Shape, rhs: &Shape) -> bool {
    lhs.equal_with(
        rhs,
        &ShapeEqual::default()
            .ignore_dynamic_dimension()
            .ignore_fp_precision()
            .ignore_layout(),
    )
}
