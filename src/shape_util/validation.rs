//! Printing and validation: XLA's `ShapeUtil::HumanString*` and
//! `ShapeUtil::ValidateShape*`.

use crate::error::Result;
use crate::layout_util;
use crate::model::{ProgramShape, Shape};

/// XLA's `ShapeUtil::HumanString`: the shape without layouts
/// (`format!("{shape:#}")`).
///
/// ```
/// use xla_shape::{Shape, shape_util};
/// let s: Shape = "(f32[2,3]{0,1}, s32[])".parse()?;
/// assert_eq!(shape_util::human_string(&s), "(f32[2,3], s32[])");
/// assert_eq!(shape_util::human_string_with_layout(&s), "(f32[2,3]{0,1}, s32[])");
/// # Ok::<(), xla_shape::Error>(())
/// ```
#[doc(alias = "ShapeUtil::HumanString")]
#[doc(alias = "ShapeUtil::PrintHumanString")]
pub fn human_string(shape: &Shape) -> String {
    format!("{shape:#}")
}

/// XLA's `ShapeUtil::HumanStringWithLayout`: the shape with layouts
/// (`shape.to_string()`).
#[doc(alias = "ShapeUtil::HumanStringWithLayout")]
#[doc(alias = "ShapeUtil::PrintHumanStringWithLayout")]
pub fn human_string_with_layout(shape: &Shape) -> String {
    shape.to_string()
}

/// XLA's `ShapeUtil::HumanString(ProgramShape)`: `(x: f32[2]) -> f32[2]`.
#[doc(alias = "ShapeUtil::HumanString")]
pub fn human_string_program_shape(program_shape: &ProgramShape) -> String {
    program_shape.to_string()
}

/// The non-layout rules of XLA's validation, run again over a shape.
fn validate_non_layout_properties(shape: &Shape) -> Result<()> {
    match shape {
        Shape::Array(a) => crate::model::validate::validate_array_dimensions(
            a.element_type(),
            a.dimensions(),
            a.dynamic_dimensions(),
        ),
        Shape::Tuple(elements) => elements.iter().try_for_each(validate_non_layout_properties),
        Shape::Buffer(inner) => validate_non_layout_properties(inner),
        Shape::Token | Shape::Opaque => Ok(()),
    }
}

/// XLA's `ShapeUtil::ValidateShape`: every rule of upstream's (xla/shape_util.cc), layouts
/// required. A [`Shape`] satisfies every rule but the last, so this finds
/// arrays without a layout.
///
/// # Errors
///
/// `shape f32[2,3] does not have a layout`.
///
/// ```
/// use xla_shape::{PrimitiveType as T, Shape, shape_util};
/// let laid_out: Shape = shape_util::make_shape(T::F32, &[2, 3]).into();
/// shape_util::validate_shape(&laid_out)?;
/// let bare: Shape = shape_util::make_shape(T::F32, &[2, 3]).with_layout(None)?.into();
/// assert_eq!(shape_util::validate_shape(&bare).unwrap_err().to_string(), "shape f32[2,3] does not have a layout");
/// shape_util::validate_shape_with_optional_layout(&bare)?;
/// # Ok::<(), xla_shape::Error>(())
/// ```
#[doc(alias = "ShapeUtil::ValidateShape")]
pub fn validate_shape(shape: &Shape) -> Result<()> {
    validate_non_layout_properties(shape)?;
    layout_util::validate_layout_in_shape(shape, false)
}

/// XLA's `ShapeUtil::ValidateShapeWithOptionalLayout`: as
/// [`validate_shape`], missing layouts allowed. Every [`Shape`] passes: it
/// is the invariant of the type.
///
/// # Errors
///
/// None for a [`Shape`]; the messages are `ValidateShape`'s.
#[doc(alias = "ShapeUtil::ValidateShapeWithOptionalLayout")]
pub fn validate_shape_with_optional_layout(shape: &Shape) -> Result<()> {
    validate_non_layout_properties(shape)?;
    layout_util::validate_layout_in_shape(shape, true)
}
