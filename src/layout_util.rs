//! XLA's `LayoutUtil`: making, validating, comparing and querying layouts.
//!
//! # Errors and panics
//!
//! The rule is the crate's (see [`shape_util`](crate::shape_util#errors-and-panics)):
//! a failure that depends on what a shape or layout *is* (a missing layout,
//! a layout that does not fit, structures that differ, a split config that
//! names no dimension, arithmetic that overflows) is an
//! [`Error`]; a panic, documented under `# Panics`, happens
//! only on a position the caller supplies to address into a layout
//! ([`major`], [`minor`]) or on slices of different lengths given where XLA
//! `CHECK`s they match.
//!
//! ```
//! use xla_shape::{ArrayShape, Layout, PrimitiveType, Shape, layout_util};
//! let a = ArrayShape::new(PrimitiveType::F32, [2, 3])?;
//! assert_eq!(layout_util::make_descending_layout(2), Layout::new([1, 0]));
//! let mut s = Shape::Tuple(vec![Shape::from(a)]);
//! layout_util::clear_layout(&mut s);
//! assert!(!layout_util::has_layout(&s));
//! assert_eq!(
//!     layout_util::validate_layout_in_shape(&s, false).unwrap_err().to_string(),
//!     "shape f32[2,3] does not have a layout"
//! );
//! # Ok::<(), xla_shape::Error>(())
//! ```

use crate::error::{Error, Result};
use crate::model::display::index_string;
use crate::model::validate;
use crate::model::{
    ArrayShape, Layout, LayoutEqual, PrimitiveType, ProgramShape, Shape, SplitConfig,
};

/// The array's layout, or XLA's "does not have a layout" error (XLA
/// `CHECK`-fails where a function needs one).
#[inline]
pub(crate) fn require_layout(shape: &ArrayShape) -> Result<&Layout> {
    match shape.layout() {
        Some(l) => Ok(l),
        None => Err(no_layout(shape)),
    }
}

#[cold]
fn no_layout(shape: &ArrayShape) -> Error {
    Error::invalid_layout(format!("shape {shape:#} does not have a layout"))
}

/// XLA's `LayoutUtil::MakeLayout` with only `minor_to_major` given: a
/// layout with no other attribute. The other parameters of upstream's
/// function are the builder methods of [`Layout`]
/// (`Layout::new(mtm).with_tiles(..).with_memory_space(..)`).
///
/// ```
/// use xla_shape::layout_util;
/// let l = layout_util::make_layout(&[0, 1]);
/// assert_eq!(l.to_string(), "{0,1}");
/// assert_eq!(layout_util::make_layout_from_major_to_minor(&[1, 0]), l);
/// assert_eq!(layout_util::make_descending_layout(3).to_string(), "{2,1,0}");
/// assert_eq!(layout_util::make_ascending_layout(3).to_string(), "{0,1,2}");
/// assert!(layout_util::has_descending_layout(&layout_util::get_default_layout_for_r2()));
/// ```
#[doc(alias = "LayoutUtil::MakeLayout")]
pub fn make_layout(minor_to_major: &[i64]) -> Layout {
    Layout::new(minor_to_major)
}

/// XLA's `LayoutUtil::MakeLayoutFromMajorToMinor`: `minor_to_major` is
/// `major_to_minor` reversed.
#[doc(alias = "LayoutUtil::MakeLayoutFromMajorToMinor")]
pub fn make_layout_from_major_to_minor(major_to_minor: &[i64]) -> Layout {
    Layout::new(major_to_minor.iter().rev().copied().collect::<Vec<_>>())
}

/// XLA's `LayoutUtil::MakeDescendingLayout`: `{rank-1, ..., 1, 0}`, the
/// default (row-major) layout.
#[doc(alias = "LayoutUtil::MakeDescendingLayout")]
pub fn make_descending_layout(rank: usize) -> Layout {
    Layout::descending(rank)
}

/// XLA's `LayoutUtil::MakeAscendingLayout`: `{0, 1, ..., rank-1}`.
#[doc(alias = "LayoutUtil::MakeAscendingLayout")]
pub fn make_ascending_layout(rank: usize) -> Layout {
    Layout::new((0..rank as i64).collect::<Vec<_>>())
}

/// XLA's `LayoutUtil::HasDescendingLayout`: `minor_to_major` is
/// non-increasing.
#[doc(alias = "LayoutUtil::HasDescendingLayout")]
pub fn has_descending_layout(layout: &Layout) -> bool {
    layout.minor_to_major().windows(2).all(|w| w[0] >= w[1])
}

/// XLA's `LayoutUtil::HasAscendingLayout`: `minor_to_major` is
/// non-decreasing.
#[doc(alias = "LayoutUtil::HasAscendingLayout")]
pub fn has_ascending_layout(layout: &Layout) -> bool {
    layout.minor_to_major().windows(2).all(|w| w[0] <= w[1])
}

/// XLA's `LayoutUtil::GetDefaultLayoutForShape`: the descending layout of
/// an array's rank; the empty layout for a token or opaque value.
///
/// # Errors
///
/// A tuple or a buffer (XLA `CHECK`-fails): `a single Layout is not valid
/// for tuple shapes`.
#[doc(alias = "LayoutUtil::GetDefaultLayoutForShape")]
pub fn get_default_layout_for_shape(shape: &Shape) -> Result<Layout> {
    match shape {
        Shape::Array(a) => Ok(make_descending_layout(a.rank())),
        Shape::Token | Shape::Opaque => Ok(Layout::default()),
        Shape::Tuple(_) | Shape::Buffer(_) => Err(Error::invalid_argument(format!(
            "a single Layout is not valid for tuple shapes: {shape}"
        ))),
    }
}

/// XLA's `LayoutUtil::GetDefaultLayoutForRank`.
#[doc(alias = "LayoutUtil::GetDefaultLayoutForRank")]
pub fn get_default_layout_for_rank(rank: usize) -> Layout {
    make_descending_layout(rank)
}

/// XLA's `LayoutUtil::GetDefaultLayoutForR2`: `{1,0}`.
#[doc(alias = "LayoutUtil::GetDefaultLayoutForR2")]
pub fn get_default_layout_for_r2() -> Layout {
    make_descending_layout(2)
}

/// XLA's `LayoutUtil::GetDefaultLayoutForR3`: `{2,1,0}`.
#[doc(alias = "LayoutUtil::GetDefaultLayoutForR3")]
pub fn get_default_layout_for_r3() -> Layout {
    make_descending_layout(3)
}

/// XLA's `LayoutUtil::GetDefaultLayoutForR4`: `{3,2,1,0}`.
#[doc(alias = "LayoutUtil::GetDefaultLayoutForR4")]
pub fn get_default_layout_for_r4() -> Layout {
    make_descending_layout(4)
}

/// XLA's `LayoutUtil::SetToDefaultLayout`: every array gets the descending
/// `minor_to_major`. As upstream, the **other attributes of an existing
/// layout are kept** (tiles, memory space, ...); an array without a layout
/// gets a plain one.
///
/// ```
/// use xla_shape::{Shape, layout_util};
/// let mut s: Shape = "(f32[2,3]{0,1}, s32[4])".parse()?;
/// layout_util::set_to_default_layout(&mut s);
/// assert_eq!(s.to_string(), "(f32[2,3]{1,0}, s32[4]{0})");
/// layout_util::clear_layout(&mut s);
/// assert!(!layout_util::has_layout(&s));
/// assert_eq!(layout_util::get_with_default_layout(&s).to_string(), "(f32[2,3]{1,0}, s32[4]{0})");
/// # Ok::<(), xla_shape::Error>(())
/// ```
#[doc(alias = "LayoutUtil::SetToDefaultLayout")]
pub fn set_to_default_layout(shape: &mut Shape) {
    match shape {
        Shape::Tuple(elements) => elements.iter_mut().for_each(set_to_default_layout),
        Shape::Array(a) => {
            let rank = a.rank() as i64;
            // A permutation replaces a permutation: the layout stays valid.
            let layout = a.layout.get_or_insert_with(Layout::default);
            layout.minor_to_major = (0..rank).rev().collect();
        }
        _ => {}
    }
}

/// XLA's `LayoutUtil::GetWithDefaultLayout`: a copy after
/// [`set_to_default_layout`].
#[doc(alias = "LayoutUtil::GetWithDefaultLayout")]
pub fn get_with_default_layout(shape: &Shape) -> Shape {
    let mut copy = shape.clone();
    set_to_default_layout(&mut copy);
    copy
}

fn map_program_shape(program_shape: &mut ProgramShape, f: impl Fn(&mut Shape)) {
    let parameters = program_shape
        .parameter_names()
        .iter()
        .cloned()
        .zip(program_shape.parameters().iter().cloned())
        .map(|(name, mut shape)| {
            f(&mut shape);
            (name, shape)
        })
        .collect();
    let mut result = program_shape.result().clone();
    f(&mut result);
    *program_shape = ProgramShape::new(parameters, result);
}

/// XLA's `LayoutUtil::SetToDefaultLayout(ProgramShape*)`: every parameter
/// and the result.
#[doc(alias = "LayoutUtil::SetToDefaultLayout")]
pub fn set_to_default_layout_program_shape(program_shape: &mut ProgramShape) {
    map_program_shape(program_shape, set_to_default_layout);
}

/// XLA's `LayoutUtil::ValidateLayoutInShape`: every array in `shape` has a
/// layout (unless `allow_missing_layouts`) that fits it. A buffer's
/// contents are not looked at, as upstream.
///
/// A [`Shape`]'s layouts always fit, so in practice this reports the first
/// array without a layout.
///
/// # Errors
///
/// `shape f32[2,3] does not have a layout`, or a message of
/// [`validate_layout_for_shape`].
///
/// ```
/// use xla_shape::{PrimitiveType as T, Shape, layout_util, shape_util};
/// let bare: Shape = shape_util::make_shape(T::F32, &[2, 3]).with_layout(None)?.into();
/// layout_util::validate_layout_in_shape(&bare, true)?;
/// assert!(layout_util::validate_layout_in_shape(&bare, false).is_err());
/// # Ok::<(), xla_shape::Error>(())
/// ```
#[doc(alias = "LayoutUtil::ValidateLayoutInShape")]
pub fn validate_layout_in_shape(shape: &Shape, allow_missing_layouts: bool) -> Result<()> {
    match shape {
        Shape::Tuple(elements) => elements
            .iter()
            .try_for_each(|e| validate_layout_in_shape(e, allow_missing_layouts)),
        Shape::Array(a) => match a.layout() {
            None if allow_missing_layouts => Ok(()),
            None => Err(no_layout(a)),
            Some(l) => validate_layout_for_shape(l, shape),
        },
        _ => Ok(()),
    }
}

/// XLA's `LayoutUtil::ValidateLayoutForShape`: whether `layout` would be a
/// valid layout for `shape` (length, permutation, no sparse-only
/// attributes, valid tiles, non-negative element size), with XLA's
/// messages. Any layout is valid for a token, opaque value or buffer.
///
/// ```
/// use xla_shape::{ArrayShape, Layout, PrimitiveType, Shape, layout_util};
/// let s = Shape::from(ArrayShape::new(PrimitiveType::F32, [2, 3])?);
/// let err = layout_util::validate_layout_for_shape(&Layout::new([0, 1, 2]), &s).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "layout minor_to_major field contains 3 elements, but shape has 2 dimensions: {0, 1, 2}; shape: f32[2,3]"
/// );
/// # Ok::<(), xla_shape::Error>(())
/// ```
///
/// # Errors
///
/// `a single Layout is not valid for tuple shapes` for a tuple, and the
/// messages of `ShapeUtil::ValidateShape` (xla/shape_util.cc) for an array.
#[doc(alias = "LayoutUtil::ValidateLayoutForShape")]
pub fn validate_layout_for_shape(layout: &Layout, shape: &Shape) -> Result<()> {
    match shape {
        Shape::Tuple(_) => Err(Error::invalid_layout(
            "a single Layout is not valid for tuple shapes",
        )),
        Shape::Array(a) => validate::validate_layout_for_array(
            layout,
            a.element_type(),
            a.dimensions(),
            a.dynamic_dimensions(),
        ),
        _ => Ok(()),
    }
}

/// XLA's `LayoutUtil::ClearLayout`: removes the layout of every array.
#[doc(alias = "LayoutUtil::ClearLayout")]
pub fn clear_layout(shape: &mut Shape) {
    match shape {
        Shape::Array(a) => a.clear_layout(),
        Shape::Tuple(elements) => elements.iter_mut().for_each(clear_layout),
        _ => {}
    }
}

/// XLA's `LayoutUtil::ClearLayout(ProgramShape*)`: every parameter and the
/// result.
#[doc(alias = "LayoutUtil::ClearLayout")]
pub fn clear_layout_program_shape(program_shape: &mut ProgramShape) {
    map_program_shape(program_shape, clear_layout);
}

/// XLA's `LayoutUtil::ClearTiles`: removes the tiles of every layout.
#[doc(alias = "LayoutUtil::ClearTiles")]
pub fn clear_tiles(shape: &mut Shape) {
    match shape {
        Shape::Array(a) => {
            if let Some(l) = a.layout.as_mut() {
                l.tiles.clear();
            }
        }
        Shape::Tuple(elements) => elements.iter_mut().for_each(clear_tiles),
        _ => {}
    }
}

/// XLA's (deprecated) `LayoutUtil::IsDenseArray`: the shape is an array.
///
/// ```
/// use xla_shape::{Shape, layout_util};
/// let dense: Shape = "f32[2,3]{1,0}".parse()?;
/// assert!(layout_util::is_dense_array(&dense));
/// assert!(!layout_util::is_dense_array(&"(f32[2])".parse()?));
/// let column_major = dense.as_array().unwrap().clone().with_layout(Some(layout_util::make_layout(&[0, 1])))?;
/// assert!(layout_util::is_monotonic_with_dim0_minor(column_major.layout().unwrap()));
/// assert!(layout_util::has_any_layout(&dense));
/// # Ok::<(), xla_shape::Error>(())
/// ```
#[doc(alias = "LayoutUtil::IsDenseArray")]
pub fn is_dense_array(shape: &Shape) -> bool {
    shape.is_array()
}

/// XLA's `LayoutUtil::IsMonotonicWithDim0Minor`: `minor_to_major` is
/// non-decreasing ("column major").
#[doc(alias = "LayoutUtil::IsMonotonicWithDim0Minor")]
pub fn is_monotonic_with_dim0_minor(layout: &Layout) -> bool {
    has_ascending_layout(layout)
}

/// XLA's `LayoutUtil::IsMonotonicWithDim0Major`: `minor_to_major` is
/// non-increasing (the default "row major").
#[doc(alias = "LayoutUtil::IsMonotonicWithDim0Major")]
pub fn is_monotonic_with_dim0_major(layout: &Layout) -> bool {
    has_descending_layout(layout)
}

/// XLA's `LayoutUtil::HasLayout`: every array in `shape` has a layout (an
/// empty tuple, a token, an opaque value or a buffer: true).
#[doc(alias = "LayoutUtil::HasLayout")]
pub fn has_layout(shape: &Shape) -> bool {
    match shape {
        Shape::Tuple(elements) => elements.iter().all(has_layout),
        Shape::Array(a) => a.has_layout(),
        _ => true,
    }
}

/// XLA's `LayoutUtil::HasAnyLayout`: some array in `shape` has a layout;
/// for a tuple, some element "has any layout" (so an empty tuple: false; a
/// token, an opaque value or a buffer: true).
#[doc(alias = "LayoutUtil::HasAnyLayout")]
pub fn has_any_layout(shape: &Shape) -> bool {
    match shape {
        Shape::Tuple(elements) => elements.iter().any(has_any_layout),
        Shape::Array(a) => a.has_layout(),
        _ => true,
    }
}

/// XLA's `LayoutUtil::HasLayout(ProgramShape)`: every parameter and the
/// result have layouts.
#[doc(alias = "LayoutUtil::HasLayout")]
pub fn has_layout_program_shape(program_shape: &ProgramShape) -> bool {
    program_shape.parameters().iter().all(has_layout) && has_layout(program_shape.result())
}

/// XLA's `LayoutUtil::HasCustomElementSizeInBits`: some array's layout has
/// `E(n)` with `n != 0`.
#[doc(alias = "LayoutUtil::HasCustomElementSizeInBits")]
pub fn has_custom_element_size_in_bits(shape: &Shape) -> bool {
    match shape {
        Shape::Tuple(elements) => elements.iter().any(has_custom_element_size_in_bits),
        Shape::Array(a) => a.layout().is_some_and(|l| l.element_size_in_bits() != 0),
        _ => false,
    }
}

/// XLA's `LayoutUtil::Equal`: `lhs == rhs` (XLA's `Layout::operator==`).
#[doc(alias = "LayoutUtil::Equal")]
pub fn equal(lhs: &Layout, rhs: &Layout) -> bool {
    lhs == rhs
}

/// XLA's `LayoutUtil::MinorToMajor(shape)`: the array's layout's
/// `minor_to_major`. (`MinorToMajor(layout)` is
/// [`Layout::minor_to_major`].)
///
/// # Errors
///
/// The array has no layout.
#[doc(alias = "LayoutUtil::MinorToMajor")]
pub fn minor_to_major(shape: &ArrayShape) -> Result<&[i64]> {
    Ok(require_layout(shape)?.minor_to_major())
}

/// XLA's `LayoutUtil::Major`: the logical dimension at physical position
/// `physical` counted from the most major (0 = most major).
///
/// # Panics
///
/// If `physical` is not less than the length of `minor_to_major` (XLA
/// `CHECK`-fails).
///
/// ```
/// use xla_shape::layout_util;
/// let l = layout_util::make_layout(&[2, 0, 1]);
/// // Physical positions counted from the major end, then from the minor end.
/// assert_eq!(layout_util::major(&l, 0), 1);
/// assert_eq!(layout_util::minor(&l, 0), 2);
/// ```
#[doc(alias = "LayoutUtil::Major")]
pub fn major(layout: &Layout, physical: usize) -> i64 {
    let mtm = physical_order(layout, physical);
    mtm[mtm.len() - 1 - physical]
}

/// XLA's `LayoutUtil::Minor`: the logical dimension at physical position
/// `physical` counted from the most minor (0 = most minor).
///
/// # Panics
///
/// If `physical` is not less than the length of `minor_to_major` (XLA
/// `CHECK`-fails).
#[doc(alias = "LayoutUtil::Minor")]
pub fn minor(layout: &Layout, physical: usize) -> i64 {
    physical_order(layout, physical)[physical]
}

/// `minor_to_major` of `layout`, once XLA's `CHECK` that `physical` is one
/// of its positions holds (else a panic, as [`major`] and [`minor`] say).
fn physical_order(layout: &Layout, physical: usize) -> &[i64] {
    let mtm = layout.minor_to_major();
    assert!(
        physical < mtm.len(),
        "physical dimension {physical} is out of range for layout {layout}"
    );
    mtm
}

/// XLA's `LayoutUtil::MakeLogicalToPhysical`: for each logical dimension,
/// its physical position counted from the most major.
///
/// ```
/// use xla_shape::{Layout, layout_util::make_logical_to_physical};
/// // minor_to_major {2,0,1}: dimension 1 is most major.
/// assert_eq!(make_logical_to_physical(&Layout::new([2, 0, 1]))?, [1, 0, 2]);
/// # Ok::<(), xla_shape::Error>(())
/// ```
///
/// # Errors
///
/// `minor_to_major` is not a permutation of `0..len` (a [`Layout`] on its
/// own is not validated; XLA reads out of bounds).
#[doc(alias = "LayoutUtil::MakeLogicalToPhysical")]
pub fn make_logical_to_physical(layout: &Layout) -> Result<Vec<i64>> {
    let mtm = layout.minor_to_major();
    let n = mtm.len();
    let mut result = vec![-1i64; n];
    for physical in 0..n {
        let logical = mtm[n - 1 - physical];
        match usize::try_from(logical)
            .ok()
            .and_then(|l| result.get_mut(l))
        {
            Some(slot) if *slot < 0 => *slot = physical as i64,
            _ => {
                return Err(Error::invalid_layout(format!(
                    "minor_to_major of layout {layout} is not a permutation"
                )));
            }
        }
    }
    Ok(result)
}

/// XLA's `LayoutUtil::HumanString`: [`Layout`]'s `Display` (XLA's
/// `Layout::ToString`).
#[doc(alias = "LayoutUtil::HumanString")]
#[doc(alias = "LayoutUtil::PrintHumanString")]
pub fn human_string(layout: &Layout) -> String {
    layout.to_string()
}

/// XLA's `LayoutUtil::CopyLayoutBetweenShapes`: gives every array in `dst`
/// the layout of the array at the same place in `src` (or none, where that
/// has none). Element types and dimension sizes need not match; the tuple
/// structure and the ranks must.
///
/// As upstream, arrays are updated in order, so after an error the arrays
/// before the failing one have their new layouts.
///
/// # Errors
///
/// `cannot copy layout from shape: shape structure differs` (a tuple
/// against a non-tuple, or an array against a token, an opaque value or a
/// buffer, where XLA aborts), `... tuple element count differs`, `...
/// ranks differs`, or a [`validate_layout_for_shape`] message.
///
/// ```
/// use xla_shape::{Shape, layout_util};
/// let src: Shape = "f32[2,3]{0,1}".parse()?;
/// let mut dst: Shape = "s8[2,3]{1,0}".parse()?;
/// assert!(!layout_util::layouts_in_shapes_equal(&src, &dst));
/// layout_util::copy_layout_between_shapes(&src, &mut dst)?;
/// assert_eq!(dst.to_string(), "s8[2,3]{0,1}");
/// assert!(layout_util::layouts_in_shapes_equal(&src, &dst));
/// # Ok::<(), xla_shape::Error>(())
/// ```
#[doc(alias = "LayoutUtil::CopyLayoutBetweenShapes")]
pub fn copy_layout_between_shapes(src: &Shape, dst: &mut Shape) -> Result<()> {
    let structure =
        || Error::invalid_argument("cannot copy layout from shape: shape structure differs");
    match (src, dst) {
        (Shape::Tuple(s), Shape::Tuple(d)) => {
            if s.len() != d.len() {
                return Err(Error::invalid_argument(
                    "cannot copy layout from shape: tuple element count differs",
                ));
            }
            s.iter()
                .zip(d.iter_mut())
                .try_for_each(|(s, d)| copy_layout_between_shapes(s, d))
        }
        (Shape::Tuple(_), _) | (_, Shape::Tuple(_)) => Err(structure()),
        (Shape::Array(s), dst) => match s.layout() {
            Some(layout) => {
                let Shape::Array(d) = dst else {
                    return Err(structure());
                };
                if s.rank() != d.rank() {
                    return Err(Error::invalid_argument(
                        "cannot copy layout from shape: ranks differs",
                    ));
                }
                validate::validate_layout_for_array(
                    layout,
                    d.element_type(),
                    d.dimensions(),
                    d.dynamic_dimensions(),
                )?;
                d.layout = Some(layout.clone());
                Ok(())
            }
            None => {
                if let Shape::Array(d) = dst {
                    d.clear_layout();
                }
                Ok(())
            }
        },
        _ => Ok(()),
    }
}

/// XLA's `LayoutUtil::LayoutsInShapesEqual`: same tuple structure, and
/// arrays at the same places have equal layouts (or both none) and equal
/// ranks. Tokens, opaque values and buffers compare equal to anything.
#[doc(alias = "LayoutUtil::LayoutsInShapesEqual")]
pub fn layouts_in_shapes_equal(lhs: &Shape, rhs: &Shape) -> bool {
    layouts_in_shapes_equal_impl(lhs, rhs, None)
}

/// XLA's `LayoutUtil::LayoutsInShapesEqual(lhs, rhs, equal)`: as
/// [`layouts_in_shapes_equal`], comparing the top-level arrays' layouts
/// with `equal`. As upstream, the options are **not** passed down to tuple
/// elements, which are compared with the default equality.
#[doc(alias = "LayoutUtil::LayoutsInShapesEqual")]
pub fn layouts_in_shapes_equal_with(lhs: &Shape, rhs: &Shape, equal: &LayoutEqual) -> bool {
    layouts_in_shapes_equal_impl(lhs, rhs, Some(equal))
}

fn layouts_in_shapes_equal_impl(lhs: &Shape, rhs: &Shape, equal: Option<&LayoutEqual>) -> bool {
    match (lhs, rhs) {
        (Shape::Tuple(l), Shape::Tuple(r)) => {
            l.len() == r.len()
                && l.iter()
                    .zip(r)
                    .all(|(a, b)| layouts_in_shapes_equal_impl(a, b, None))
        }
        (Shape::Tuple(_), _) => false,
        (Shape::Array(l), Shape::Array(r)) => {
            if l.rank() != r.rank() {
                return false;
            }
            match (l.layout(), r.layout()) {
                (None, None) => true,
                (Some(a), Some(b)) => match equal {
                    Some(e) => a.equal_with(b, e),
                    None => a == b,
                },
                _ => false,
            }
        }
        // XLA reads the rank of a non-array here and aborts.
        (Shape::Array(_), _) => false,
        _ => true,
    }
}

/// XLA's `LayoutUtil::AreDimensionsConsecutive`: the positions of `dims`
/// in `minor_to_major`, sorted, are consecutive (a dimension missing from
/// `minor_to_major` counts as position `len`).
///
/// ```
/// use xla_shape::layout_util;
/// let l = layout_util::make_layout(&[2, 0, 1]);
/// // Physically, from minor to major: 2, 0, 1.
/// assert!(layout_util::are_dimensions_consecutive(&l, &[0, 2]));
/// assert!(!layout_util::are_dimensions_consecutive(&l, &[1, 2]));
/// ```
#[doc(alias = "LayoutUtil::AreDimensionsConsecutive")]
pub fn are_dimensions_consecutive(layout: &Layout, dims: &[i64]) -> bool {
    let mtm = layout.minor_to_major();
    let mut positions: Vec<usize> = dims
        .iter()
        .map(|d| mtm.iter().position(|x| x == d).unwrap_or(mtm.len()))
        .collect();
    positions.sort_unstable();
    positions.windows(2).all(|w| w[1] - w[0] == 1)
}

/// XLA's `LayoutUtil::MoveDimToMajor`: `layout` with `dim` moved to the
/// most major position of `minor_to_major`, every other attribute kept. A
/// layout whose most major dimension is already `dim` is returned as is.
#[doc(alias = "LayoutUtil::MoveDimToMajor")]
pub fn move_dim_to_major(layout: &Layout, dim: i64) -> Layout {
    if layout.minor_to_major().last() == Some(&dim) {
        return layout.clone();
    }
    let mut result = layout.clone();
    result.minor_to_major.retain(|&d| d != dim);
    result.minor_to_major.push(dim);
    result
}

/// `a` rounded up to a multiple of `b`, as XLA's `CeilOfRatio` for signed
/// integers (truncating division, adjusted up when the exact ratio is
/// positive and not whole). `None` on overflow or division by zero.
pub(crate) fn ceil_of_ratio(a: i64, b: i64) -> Option<i64> {
    let q = a.checked_div(b)?;
    let product = q.checked_mul(b)?;
    let adjust = q >= 0 && ((b > 0 && a > product) || (b < 0 && a < product));
    q.checked_add(adjust as i64)
}

#[cold]
fn linear_index_overflow(shape: &ArrayShape, index: &[i64]) -> Error {
    Error::overflow(format!(
        "linear index of {} in {shape} overflows int64",
        index_string(index)
    ))
}

/// XLA's `LayoutUtil::LinearIndex`: the linear position of `index` in an
/// array with a tiled layout, using **only the first tile**, as upstream
/// (sub-tiles and `*` bounds are ignored, and so are tiles altogether for
/// rank 1). Without tiles it is the dense position in `minor_to_major`
/// order. Index entries are not bounds-checked, as upstream: XLA's
/// `ArrayDataSize` passes `dimension - 1` for every dimension.
///
/// ```
/// use xla_shape::{ArrayShape, Layout, PrimitiveType, Tile, layout_util};
/// // F32[3,5]{1,0:T(2,2)}, index {2,3} -> 17 (figure 1 of XLA's tiled-layout document).
/// let s = ArrayShape::new(PrimitiveType::F32, [3, 5])?
///     .with_layout(Some(Layout::new([1, 0]).with_tiles(vec![Tile::new([2, 2])?])))?;
/// assert_eq!(layout_util::linear_index(&s, &[2, 3])?, 17);
/// # Ok::<(), xla_shape::Error>(())
/// ```
///
/// # Errors
///
/// The array has no layout, `index` does not have one entry per dimension,
/// or the arithmetic overflows `i64` (XLA's overflows silently).
#[doc(alias = "LayoutUtil::LinearIndex")]
pub fn linear_index(shape: &ArrayShape, index: &[i64]) -> Result<i64> {
    let layout = require_layout(shape)?;
    let rank = shape.rank();
    if index.len() != rank {
        return Err(Error::invalid_argument(format!(
            "index {} has {} elements, but shape {shape} has {rank} dimensions",
            index_string(index),
            index.len()
        )));
    }
    match rank {
        0 => return Ok(0),
        1 => return Ok(index[0]),
        _ => {}
    }
    let tile: &[i64] = layout.tiles().first().map_or(&[], |t| t.dimensions());
    let k = tile.len();
    let overflow = || linear_index_overflow(shape, index);
    let mut linear = 0i64;
    let mut tile_multiplier = tile
        .iter()
        .try_fold(1i64, |acc, &t| acc.checked_mul(t))
        .ok_or_else(overflow)?;
    let mut within_tile_multiplier = 1i64;
    let dims = shape.dimensions();
    for (p, &d) in layout.minor_to_major().iter().enumerate() {
        let size = dims[d as usize];
        let i = index[d as usize];
        let step = if p < k {
            let t = tile[k - 1 - p];
            // Validated tiles have no 0 bound; `*` (i64::MIN) divides
            // without overflow since `t != -1`.
            let step = tile_multiplier
                .checked_mul(i / t)
                .and_then(|a| within_tile_multiplier.checked_mul(i % t).map(|b| (a, b)))
                .and_then(|(a, b)| a.checked_add(b));
            tile_multiplier = ceil_of_ratio(size, t)
                .and_then(|c| tile_multiplier.checked_mul(c))
                .ok_or_else(overflow)?;
            within_tile_multiplier = within_tile_multiplier.checked_mul(t).ok_or_else(overflow)?;
            step
        } else {
            let step = i.checked_mul(tile_multiplier);
            tile_multiplier = tile_multiplier.checked_mul(size).ok_or_else(overflow)?;
            step
        };
        linear = step
            .and_then(|s| linear.checked_add(s))
            .ok_or_else(overflow)?;
    }
    Ok(linear)
}

/// XLA's `LayoutUtil::MemorySpace`: the layout's `S(n)`, 0 for a shape
/// without a layout (every non-array included).
///
/// ```
/// use xla_shape::{Shape, layout_util};
/// assert_eq!(layout_util::memory_space(&"f32[2]{0:S(1)}".parse()?), 1);
/// assert_eq!(layout_util::memory_space(&"f32[2]{0}".parse()?), 0);
/// # Ok::<(), xla_shape::Error>(())
/// ```
#[doc(alias = "LayoutUtil::MemorySpace")]
pub fn memory_space(shape: &Shape) -> i64 {
    shape
        .layout()
        .map_or(Layout::DEFAULT_MEMORY_SPACE, Layout::memory_space)
}

/// XLA's `LayoutUtil::ByteStridesIsMajorToMinor`: whether `byte_strides`
/// are those of a dense row-major array of `dims` and `element_type` (the
/// last stride is the element size, each earlier one the next times its
/// dimension). False for a non-array type (XLA aborts) and when the
/// running product overflows.
///
/// # Panics
///
/// If `byte_strides` and `dims` differ in length (XLA `CHECK`-fails).
#[doc(alias = "LayoutUtil::ByteStridesIsMajorToMinor")]
pub fn byte_strides_is_major_to_minor(
    byte_strides: &[i64],
    dims: &[i64],
    element_type: PrimitiveType,
) -> bool {
    assert_eq!(
        byte_strides.len(),
        dims.len(),
        "byte_strides and dims differ in length"
    );
    let Some(mut stride) = element_type.byte_width() else {
        return false;
    };
    for (i, &d) in dims.iter().enumerate().rev() {
        if byte_strides[i] != stride {
            return false;
        }
        if i > 0 {
            match stride.checked_mul(d) {
                Some(s) => stride = s,
                None => return false,
            }
        }
    }
    true
}

/// XLA's `LayoutUtil::MaxSplitSize`: the largest piece logical dimension
/// `dim` is cut into by the first split config that splits it (its size
/// when none does, or when the array has no layout). As upstream, split
/// indices are read as 32-bit integers and are neither sorted nor checked.
///
/// ```
/// use xla_shape::{ArrayShape, Layout, PrimitiveType, SplitConfig, layout_util};
/// // f32[150,200,100]{0,1,2:SC(0:30)(1:40,130)} (xla/layout_util_test.cc, the `MaxSplitSize` case).
/// let s = ArrayShape::new(PrimitiveType::F32, [150, 200, 100])?.with_layout(Some(
///     Layout::new([0, 1, 2])
///         .with_split_configs(vec![SplitConfig::new(0, [30]), SplitConfig::new(1, [40, 130])]),
/// ))?;
/// assert_eq!(layout_util::max_split_size(&s, 1)?, 90);
/// # Ok::<(), xla_shape::Error>(())
/// ```
///
/// # Errors
///
/// A split config's dimension is not a physical dimension of the layout
/// (XLA `CHECK`-fails).
///
/// # Panics
///
/// If `dim` is not a dimension of the array.
#[doc(alias = "LayoutUtil::MaxSplitSize")]
pub fn max_split_size(shape: &ArrayShape, dim: usize) -> Result<i64> {
    let size = shape.dimensions()[dim];
    let Some(layout) = shape.layout() else {
        return Ok(size);
    };
    let n = layout.minor_to_major().len();
    let mut config = None;
    for c in layout.split_configs() {
        let physical = usize::try_from(c.dimension())
            .ok()
            .filter(|&p| p < n)
            .ok_or_else(|| {
                Error::invalid_layout(format!(
                    "split config {c} names no physical dimension of {shape}"
                ))
            })?;
        if major(layout, physical) == dim as i64 {
            config = Some(c);
            break;
        }
    }
    let Some(config) = config else {
        return Ok(size);
    };
    let mut max = 0i64;
    let mut last = 0i64;
    for &index in config.split_indices() {
        // XLA iterates the indices as `int`.
        let index = index as i32 as i64;
        max = max.max(index - last);
        last = index;
    }
    Ok(max.max(size.wrapping_sub(last)))
}

/// XLA's `LayoutUtil::MaxElementsInPerSplit`: the product over dimensions
/// of [`max_split_size`].
///
/// # Errors
///
/// As [`max_split_size`], and when the product overflows `i64`.
#[doc(alias = "LayoutUtil::MaxElementsInPerSplit")]
pub fn max_elements_in_per_split(shape: &ArrayShape) -> Result<i64> {
    (0..shape.rank()).try_fold(1i64, |acc, d| {
        acc.checked_mul(max_split_size(shape, d)?).ok_or_else(|| {
            Error::overflow(format!("MaxElementsInPerSplit of {shape} overflows int64"))
        })
    })
}

/// XLA's `LayoutUtil::GetSplitConfig`: the layout's split config, if it has
/// one.
///
/// # Errors
///
/// The array has no layout, or its layout has more than one split config
/// (XLA `CHECK`-fails on both).
#[doc(alias = "LayoutUtil::GetSplitConfig")]
pub fn get_split_config(shape: &ArrayShape) -> Result<Option<SplitConfig>> {
    let layout = require_layout(shape)?;
    match layout.split_configs() {
        [] => Ok(None),
        [c] => Ok(Some(c.clone())),
        _ => Err(Error::invalid_layout(format!(
            "layout of {shape} has more than one split config"
        ))),
    }
}
