//! XLA's shape validation (`ShapeUtil::ValidateShapeWithOptionalLayout`,
//! `LayoutUtil::ValidateLayoutForShape`) and the validated constructors
//! built on it. Messages are XLA's, word for word.

use crate::error::{Error, Result};
use crate::model::display::{self, join};
use crate::model::inline::{Dims, DynamicFlags};
use crate::model::layout::Layout;
use crate::model::primitive_type::PrimitiveType;
use crate::model::shape::ArrayShape;

/// What validation needs to know about a layout; implemented for the model
/// [`Layout`] and for the decoder's raw layout, so one set of rules serves
/// both the decoder and the constructors.
pub(crate) trait LayoutFacts {
    fn minor_to_major(&self) -> &[i64];
    fn tail_padding_alignment(&self) -> i64;
    fn has_index_primitive_type(&self) -> bool;
    fn has_pointer_primitive_type(&self) -> bool;
    fn has_physical_shape(&self) -> bool;
    /// XLA's "invalid tiles": some tile is empty or has a 0 bound.
    fn has_invalid_tiles(&self) -> bool;
    fn element_size_in_bits(&self) -> i64;
}

impl LayoutFacts for Layout {
    #[inline]
    fn minor_to_major(&self) -> &[i64] {
        &self.minor_to_major
    }
    fn tail_padding_alignment(&self) -> i64 {
        self.rare
            .as_ref()
            .map_or(1, |r| r.tail_padding_alignment_in_elements)
    }
    fn has_index_primitive_type(&self) -> bool {
        self.rare
            .as_ref()
            .is_some_and(|r| r.index_primitive_type != PrimitiveType::Invalid)
    }
    fn has_pointer_primitive_type(&self) -> bool {
        self.rare
            .as_ref()
            .is_some_and(|r| r.pointer_primitive_type != PrimitiveType::Invalid)
    }
    fn has_physical_shape(&self) -> bool {
        self.rare
            .as_ref()
            .is_some_and(|r| r.physical_shape.is_some())
    }
    #[inline]
    fn has_invalid_tiles(&self) -> bool {
        self.tiles.iter().any(|t| invalid_tile(t.dimensions()))
    }
    fn element_size_in_bits(&self) -> i64 {
        self.element_size_in_bits
    }
}

pub(crate) fn invalid_tile(bounds: &[i64]) -> bool {
    bounds.is_empty() || bounds.contains(&0)
}

/// `ShapeUtil::HumanString` of an array given by its parts (which need not
/// be valid: messages print what they reject).
fn human(t: PrimitiveType, dims: &[i64], dynamic: &[bool]) -> String {
    let mut s = String::new();
    display::write_array_parts(&mut s, t, dims, dynamic);
    s
}

/// XLA's `ShapeError`: `Shape Error: <message> Shape(<type>): <shape>`.
pub(crate) fn shape_error(message: &str, t: PrimitiveType, human: &str) -> Error {
    Error::invalid_shape(format!(
        "Shape Error: {message} Shape({}): {human}",
        t.lowercase_name()
    ))
}

/// The array rules of XLA's `ValidateNonLayoutProperties`
/// (`ValidateDimensions`, then `ValidateShapeSize`).
#[inline]
pub(crate) fn validate_array_dimensions(
    t: PrimitiveType,
    dims: &[i64],
    dynamic: &[bool],
) -> Result<()> {
    // The common case, valid, checked with nothing else in the way; the
    // full check below finds and words the error.
    if array_dimensions_valid(t, dims) {
        Ok(())
    } else {
        array_dimensions_in_full(t, dims, dynamic)
    }
}

/// Whether [`validate_array_dimensions`] accepts `dims` (of any dynamic
/// flags): no message, so that decoders can check as they go.
#[inline(always)]
pub(crate) fn array_dimensions_valid(t: PrimitiveType, dims: &[i64]) -> bool {
    let mut product: i64 = 1;
    for &d in dims {
        if d != ArrayShape::UNBOUNDED_SIZE {
            match product.checked_mul(d) {
                Some(p) if d >= 0 => product = p,
                _ => return false,
            }
        }
    }
    product.checked_mul(t.byte_width().unwrap_or(1)).is_some()
}

/// [`validate_array_dimensions`], rule by rule, with XLA's messages.
#[cold]
#[inline(never)]
fn array_dimensions_in_full(t: PrimitiveType, dims: &[i64], dynamic: &[bool]) -> Result<()> {
    let mut product: i64 = 1;
    let mut overflow = false;
    for (i, &d) in dims.iter().enumerate() {
        if d == ArrayShape::UNBOUNDED_SIZE {
            continue;
        }
        if d < 0 {
            return Err(shape_error(
                &format!("Negative dimension at index {i}: {d}."),
                t,
                &human(t, dims, dynamic),
            ));
        }
        match product.checked_mul(d) {
            Some(p) => product = p,
            None => overflow = true,
        }
    }
    if overflow {
        return Err(shape_error(
            "Dimensions overflow.",
            t,
            &human(t, dims, dynamic),
        ));
    }
    let byte_width = t.byte_width().unwrap_or(1);
    if product.checked_mul(byte_width).is_none() {
        return Err(Error::invalid_shape(format!(
            "Shape {} size may overflow int64_t.",
            human(t, dims, dynamic)
        )));
    }
    Ok(())
}

/// XLA's `LayoutUtil::ValidateLayoutForShape` for an array shape.
#[inline]
pub(crate) fn validate_layout_for_array(
    layout: &impl LayoutFacts,
    t: PrimitiveType,
    dims: &[i64],
    dynamic: &[bool],
) -> Result<()> {
    // The common case, valid, checked with nothing else in the way; the
    // full check below finds and words the error (and takes ranks past 64).
    if layout_valid_for_rank(layout, dims.len()) {
        return Ok(());
    }
    layout_for_array_in_full(layout, t, dims, dynamic)
}

/// Whether [`validate_layout_for_array`] accepts `layout` for an array of
/// `rank` dimensions, up to rank 64 (false past it, where the full check
/// decides): no message, so that decoders can check as they go.
#[inline(always)]
pub(crate) fn layout_valid_for_rank(layout: &impl LayoutFacts, rank: usize) -> bool {
    let mtm = layout.minor_to_major();
    let mut fits = mtm.len() == rank && rank <= 64;
    let mut mask = 0u64;
    for &d in mtm {
        fits &= d >= 0 && (d as u64) < rank as u64 && mask & (1u64 << (d & 63)) == 0;
        mask |= 1u64 << (d & 63);
    }
    fits && layout.tail_padding_alignment() > 0
        && !layout.has_index_primitive_type()
        && !layout.has_pointer_primitive_type()
        && !layout.has_physical_shape()
        && !layout.has_invalid_tiles()
        && layout.element_size_in_bits() >= 0
}

/// [`validate_layout_for_array`], rule by rule, with XLA's messages.
#[cold]
#[inline(never)]
fn layout_for_array_in_full(
    layout: &impl LayoutFacts,
    t: PrimitiveType,
    dims: &[i64],
    dynamic: &[bool],
) -> Result<()> {
    let mtm = layout.minor_to_major();
    let rank = dims.len();
    let shape = || human(t, dims, dynamic);
    if mtm.len() != rank {
        return Err(Error::invalid_layout(format!(
            "layout minor_to_major field contains {} elements, but shape has {} dimensions: {{{}}}; shape: {}",
            mtm.len(),
            rank,
            join(mtm, ", "),
            shape()
        )));
    }
    // Dimensions seen so far: a bit mask, or a vector past 64 dimensions.
    let mut mask = 0u64;
    let mut seen = if rank > 64 {
        vec![false; rank]
    } else {
        Vec::new()
    };
    for &d in mtm {
        if d < 0 || d as u64 >= rank as u64 {
            return Err(Error::invalid_layout(format!(
                "layout minor_to_major field has out-of-bounds value: {{{}}}; shape: {}",
                join(mtm, ", "),
                shape()
            )));
        }
        let repeated = if rank > 64 {
            std::mem::replace(&mut seen[d as usize], true)
        } else {
            let bit = 1u64 << d;
            let was = mask & bit != 0;
            mask |= bit;
            was
        };
        if repeated {
            return Err(Error::invalid_layout(format!(
                "layout minor_to_major field has duplicate values: {{{}}}; shape: {}",
                join(mtm, ", "),
                shape()
            )));
        }
    }
    if layout.tail_padding_alignment() <= 0 {
        return Err(Error::invalid_layout(format!(
            "layout tail_padding_alignment_in_elements field is <= 0: {}",
            layout.tail_padding_alignment()
        )));
    }
    // The attributes only sparse arrays may have, in XLA's order.
    for (has, what) in [
        (layout.has_index_primitive_type(), "index_primitive_type"),
        (
            layout.has_pointer_primitive_type(),
            "pointer_primitive_type",
        ),
        (layout.has_physical_shape(), "physical_shape"),
    ] {
        if has {
            return Err(Error::invalid_layout(format!(
                "layout has a {what}, but is not a sparse array: {}",
                shape()
            )));
        }
    }
    if layout.has_invalid_tiles() {
        return Err(Error::invalid_layout(format!(
            "layout has invalid tiles: {}",
            shape()
        )));
    }
    if layout.element_size_in_bits() < 0 {
        return Err(Error::invalid_layout(format!(
            "layout element_size_in_bits field is negative: {}",
            layout.element_size_in_bits()
        )));
    }
    Ok(())
}

/// XLA's error for dynamic flags that are not one per dimension.
fn dynamic_size_mismatch(flags: usize, rank: usize) -> Error {
    Error::invalid_argument(format!(
        "dynamic dimensions size {flags} did not match number of dimensions {rank}"
    ))
}

/// The error for a non-array element type given where an array is needed
/// (XLA's `MakeValidatedShapeWithDenseLayout` wording).
pub(crate) fn require_array_type(t: PrimitiveType) -> Result<()> {
    if t.is_array_type() {
        Ok(())
    } else if t == PrimitiveType::Invalid {
        Err(shape_error("Invalid element type.", t, &human(t, &[], &[])))
    } else {
        Err(Error::invalid_argument(format!(
            "Unsupported element type: {}",
            t.as_str_name()
        )))
    }
}

/// XLA's `ShapeUtil::MakeValidatedShape(t, dims, dynamic)`: checked
/// dimensions and the default descending layout.
fn make_validated_array(
    t: PrimitiveType,
    dimensions: Dims,
    dynamic: DynamicFlags,
) -> Result<ArrayShape> {
    if dynamic.len() != dimensions.len() {
        return Err(dynamic_size_mismatch(dynamic.len(), dimensions.len()));
    }
    require_array_type(t)?;
    let mut product = t.byte_width().unwrap_or(1);
    let mut overflow = false;
    for (&d, &dyn_) in dimensions.iter().zip(dynamic.iter()) {
        if !(d >= 0 || (dyn_ && d == ArrayShape::UNBOUNDED_SIZE)) {
            return Err(Error::invalid_argument(format!(
                "Invalid dimension size {d}, is_dynamic={dyn_}"
            )));
        }
        if d != ArrayShape::UNBOUNDED_SIZE {
            match product.checked_mul(d) {
                Some(p) => product = p,
                None => overflow = true,
            }
        }
    }
    if overflow {
        return Err(Error::invalid_argument(format!(
            "overflow in static extent product: dimes=[{}]",
            join(&dimensions, ",")
        )));
    }
    let layout = Layout::descending(dimensions.len());
    Ok(ArrayShape {
        element_type: t,
        dimensions,
        dynamic,
        layout: Some(layout),
    })
}

/// The validated constructors: each runs XLA's validation above.
impl ArrayShape {
    /// An array of `element_type` with `dimensions` and XLA's default
    /// (descending, row-major) layout, as `ShapeUtil::MakeValidatedShape`:
    /// a dimension equal to [`UNBOUNDED_SIZE`](Self::UNBOUNDED_SIZE) is
    /// unbounded dynamic, every other one static.
    ///
    /// # Errors
    ///
    /// XLA's messages: `Unsupported element type: TOKEN` for a non-array
    /// type, `Invalid dimension size -1, is_dynamic=false`, `overflow in
    /// static extent product: dimes=[...]`.
    #[doc(alias = "MakeValidatedShape")]
    #[doc(alias = "xla_client.Shape.array_shape")]
    pub fn new(element_type: PrimitiveType, dimensions: impl Into<Vec<i64>>) -> Result<Self> {
        let dimensions = Dims::from(dimensions.into());
        let dynamic = dimensions
            .iter()
            .map(|&d| d == Self::UNBOUNDED_SIZE)
            .collect();
        make_validated_array(element_type, dimensions, dynamic)
    }

    /// Like [`new`](Self::new), with an explicit dynamic flag per
    /// dimension (XLA's `MakeValidatedShape(t, dims, dynamic_dims)`).
    ///
    /// # Errors
    ///
    /// As [`new`](Self::new), and `dynamic dimensions size 1 did not match
    /// number of dimensions 2` when the lengths differ.
    pub fn with_dynamic_dimensions(
        element_type: PrimitiveType,
        dimensions: impl Into<Vec<i64>>,
        dynamic: impl Into<Vec<bool>>,
    ) -> Result<Self> {
        make_validated_array(
            element_type,
            Dims::from(dimensions.into()),
            DynamicFlags::from(dynamic.into()),
        )
    }

    /// An array from all its parts, checked as XLA's
    /// `ValidateShapeWithOptionalLayout` checks it. `dynamic` is empty (all
    /// static) or has one flag per dimension.
    ///
    /// # Errors
    ///
    /// Every rule of XLA's validation, with its message.
    pub fn from_parts(
        element_type: PrimitiveType,
        dimensions: Vec<i64>,
        dynamic: Vec<bool>,
        layout: Option<Layout>,
    ) -> Result<Self> {
        let (t, dimensions) = (element_type, Dims::from(dimensions));
        let mut dynamic = DynamicFlags::from(dynamic);
        require_array_type(t)?;
        if dynamic.is_empty() {
            dynamic = dimensions.iter().map(|_| false).collect();
        } else if dynamic.len() != dimensions.len() {
            return Err(dynamic_size_mismatch(dynamic.len(), dimensions.len()));
        }
        validate_array_dimensions(t, &dimensions, &dynamic)?;
        if let Some(l) = &layout {
            validate_layout_for_array(l, t, &dimensions, &dynamic)?;
        }
        Ok(ArrayShape {
            element_type: t,
            dimensions,
            dynamic,
            layout,
        })
    }

    /// This array with `layout` instead of its own (`None` removes it).
    ///
    /// # Errors
    ///
    /// The layout does not fit (XLA's `ValidateLayoutForShape` messages).
    pub fn with_layout(mut self, layout: Option<Layout>) -> Result<Self> {
        if let Some(l) = &layout {
            validate_layout_for_array(l, self.element_type, &self.dimensions, &self.dynamic)?;
        }
        self.layout = layout;
        Ok(self)
    }
}
