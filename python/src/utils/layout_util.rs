//! `xla_shape.layout_util`: XLA's `LayoutUtil` (xla/layout_util.h) under
//! the names of the Rust module `xla_shape::layout_util`.

use pyo3::prelude::*;
use xla_shape::{LayoutEqual, layout_util};

use super::guard;
use crate::errors::{IntoPyResult, invalid_argument};
use crate::types::{PyLayout, PyProgramShape, PyShape, as_array};

/// `LayoutUtil::MakeLayout(minor_to_major)`.
#[pyfunction]
fn make_layout(minor_to_major: Vec<i64>) -> PyResult<PyLayout> {
    guard(|| layout_util::make_layout(&minor_to_major)).map(PyLayout)
}

/// `LayoutUtil::MakeLayoutFromMajorToMinor(major_to_minor)`.
#[pyfunction]
fn make_layout_from_major_to_minor(major_to_minor: Vec<i64>) -> PyResult<PyLayout> {
    guard(|| layout_util::make_layout_from_major_to_minor(&major_to_minor)).map(PyLayout)
}

/// `LayoutUtil::MakeDescendingLayout(rank)`: `{rank-1,...,0}`.
#[pyfunction]
fn make_descending_layout(rank: usize) -> PyResult<PyLayout> {
    check_rank(rank)?;
    Ok(PyLayout(layout_util::make_descending_layout(rank)))
}

/// `LayoutUtil::MakeAscendingLayout(rank)`: `{0,...,rank-1}`.
#[pyfunction]
fn make_ascending_layout(rank: usize) -> PyResult<PyLayout> {
    check_rank(rank)?;
    Ok(PyLayout(layout_util::make_ascending_layout(rank)))
}

/// `LayoutUtil::GetDefaultLayoutForRank(rank)`.
#[pyfunction]
fn get_default_layout_for_rank(rank: usize) -> PyResult<PyLayout> {
    check_rank(rank)?;
    Ok(PyLayout(layout_util::get_default_layout_for_rank(rank)))
}

/// Ranks past this many dimensions are refused before memory is
/// allocated for them: XLA's shapes hold far fewer, and a Python caller
/// could otherwise ask for terabytes.
const MAX_RANK: usize = 1 << 20;

fn check_rank(rank: usize) -> PyResult<()> {
    if rank > MAX_RANK {
        return Err(invalid_argument(format!(
            "rank {rank} exceeds the limit of {MAX_RANK}"
        )));
    }
    Ok(())
}

/// `LayoutUtil::GetWithDefaultLayout`: the shape with XLA's default
/// layout on every array.
#[pyfunction]
fn get_with_default_layout(shape: PyRef<'_, PyShape>) -> PyShape {
    PyShape(layout_util::get_with_default_layout(&shape.0))
}

/// `LayoutUtil::ClearLayout`: the shape without layouts.
#[pyfunction]
fn clear_layout(shape: PyRef<'_, PyShape>) -> PyShape {
    let mut s = shape.0.clone();
    layout_util::clear_layout(&mut s);
    PyShape(s)
}

/// `LayoutUtil::ValidateLayoutForShape`: raises when `layout` does not
/// fit `shape`.
#[pyfunction]
fn validate_layout_for_shape(
    layout: PyRef<'_, PyLayout>,
    shape: PyRef<'_, PyShape>,
) -> PyResult<()> {
    layout_util::validate_layout_for_shape(&layout.0, &shape.0).py()
}

/// `LayoutUtil::ValidateLayoutInShape`.
#[pyfunction]
#[pyo3(signature = (shape, allow_missing_layouts=false))]
fn validate_layout_in_shape(
    shape: PyRef<'_, PyShape>,
    allow_missing_layouts: bool,
) -> PyResult<()> {
    layout_util::validate_layout_in_shape(&shape.0, allow_missing_layouts).py()
}

/// `LayoutUtil::IsDenseArray`.
#[pyfunction]
fn is_dense_array(shape: PyRef<'_, PyShape>) -> bool {
    layout_util::is_dense_array(&shape.0)
}

/// `LayoutUtil::HasLayout`: every leaf has a layout.
#[pyfunction]
fn has_layout(shape: PyRef<'_, PyShape>) -> bool {
    layout_util::has_layout(&shape.0)
}

/// `LayoutUtil::HasAnyLayout`.
#[pyfunction]
fn has_any_layout(shape: PyRef<'_, PyShape>) -> bool {
    layout_util::has_any_layout(&shape.0)
}

/// `LayoutUtil::HasDescendingLayout`.
#[pyfunction]
fn has_descending_layout(layout: PyRef<'_, PyLayout>) -> bool {
    layout_util::has_descending_layout(&layout.0)
}

/// `LayoutUtil::Equal`.
#[pyfunction(name = "equal")]
fn layout_equal(lhs: PyRef<'_, PyLayout>, rhs: PyRef<'_, PyLayout>) -> bool {
    layout_util::equal(&lhs.0, &rhs.0)
}

/// `LayoutUtil::HumanString(layout)`.
#[pyfunction(name = "human_string")]
fn layout_human_string(layout: PyRef<'_, PyLayout>) -> String {
    layout_util::human_string(&layout.0)
}

/// `LayoutUtil::LayoutsInShapesEqual`.
#[pyfunction]
fn layouts_in_shapes_equal(lhs: PyRef<'_, PyShape>, rhs: PyRef<'_, PyShape>) -> bool {
    layout_util::layouts_in_shapes_equal(&lhs.0, &rhs.0)
}

/// `LayoutUtil::MinorToMajor(shape)`.
#[pyfunction]
fn minor_to_major(shape: PyRef<'_, PyShape>) -> PyResult<Vec<i64>> {
    Ok(layout_util::minor_to_major(as_array(&shape.0)?)
        .py()?
        .to_vec())
}

/// `LayoutUtil::MakeLogicalToPhysical(layout)`.
#[pyfunction]
fn make_logical_to_physical(layout: PyRef<'_, PyLayout>) -> PyResult<Vec<i64>> {
    layout_util::make_logical_to_physical(&layout.0).py()
}

/// `LayoutUtil::Major(layout, physical)`: the logical dimension at
/// position `physical` counted from the major end.
#[pyfunction]
fn major(layout: PyRef<'_, PyLayout>, physical: usize) -> PyResult<i64> {
    guard(|| layout_util::major(&layout.0, physical))
}

/// `LayoutUtil::Minor(layout, physical)`: the logical dimension at
/// position `physical` counted from the minor end.
#[pyfunction]
fn minor(layout: PyRef<'_, PyLayout>, physical: usize) -> PyResult<i64> {
    guard(|| layout_util::minor(&layout.0, physical))
}

/// `LayoutUtil::LinearIndex(shape, index)`: the element offset of `index`
/// in the shape's (tiled) layout.
#[pyfunction]
fn linear_index(shape: PyRef<'_, PyShape>, index: Vec<i64>) -> PyResult<i64> {
    layout_util::linear_index(as_array(&shape.0)?, &index).py()
}

/// `LayoutUtil::MoveDimToMajor(layout, dim)`.
#[pyfunction]
fn move_dim_to_major(layout: PyRef<'_, PyLayout>, dim: i64) -> PyResult<PyLayout> {
    guard(|| layout_util::move_dim_to_major(&layout.0, dim)).map(PyLayout)
}

bind! { layout_util;
    /// Tells whether `minor_to_major` is non-decreasing, as XLA's
    /// `LayoutUtil::HasAscendingLayout`.
    plain fn has_ascending_layout(layout: layout);
    /// Returns the default layout of a shape (descending for an array, empty
    /// for a token or opaque value), as XLA's
    /// `LayoutUtil::GetDefaultLayoutForShape`.
    plain fn get_default_layout_for_shape(shape: shape);
    /// Returns `{1,0}`, as XLA's `LayoutUtil::GetDefaultLayoutForR2`.
    plain fn get_default_layout_for_r2();
    /// Returns `{2,1,0}`, as XLA's `LayoutUtil::GetDefaultLayoutForR3`.
    plain fn get_default_layout_for_r3();
    /// Returns `{3,2,1,0}`, as XLA's `LayoutUtil::GetDefaultLayoutForR4`.
    plain fn get_default_layout_for_r4();
    /// Returns `shape` with the descending `minor_to_major` on every array
    /// (other layout attributes kept), as XLA's
    /// `LayoutUtil::SetToDefaultLayout(Shape*)`, which changes the shape in
    /// place: here `shape` is left alone.
    plain fn set_to_default_layout(shape: mut_shape) -> shape;
    /// Returns the program shape with the default layout on every
    /// parameter and the result, as XLA's
    /// `LayoutUtil::SetToDefaultLayout(ProgramShape*)`, which changes it in
    /// place: here `program_shape` is left alone.
    plain fn set_to_default_layout_program_shape(program_shape: mut_program) -> program_shape;
    /// Returns the program shape without layouts, as XLA's
    /// `LayoutUtil::ClearLayout(ProgramShape*)`, which changes it in place:
    /// here `program_shape` is left alone.
    plain fn clear_layout_program_shape(program_shape: mut_program) -> program_shape;
    /// Returns `shape` without the tiles of its layouts, as XLA's
    /// `LayoutUtil::ClearTiles`, which changes the shape in place: here
    /// `shape` is left alone.
    plain fn clear_tiles(shape: mut_shape) -> shape;
    /// Tells whether `minor_to_major` is non-decreasing, as XLA's
    /// `LayoutUtil::IsMonotonicWithDim0Minor`.
    plain fn is_monotonic_with_dim0_minor(layout: layout);
    /// Tells whether `minor_to_major` is non-increasing, as XLA's
    /// `LayoutUtil::IsMonotonicWithDim0Major`.
    plain fn is_monotonic_with_dim0_major(layout: layout);
    /// Tells whether every parameter and the result have layouts, as XLA's
    /// `LayoutUtil::HasLayout(const ProgramShape&)`.
    plain fn has_layout_program_shape(program_shape: program);
    /// Tells whether some array's layout sets `E(n)` with `n != 0`, as XLA's
    /// `LayoutUtil::HasCustomElementSizeInBits`.
    plain fn has_custom_element_size_in_bits(shape: shape);
    /// Returns `dst` with the layout of the array at the same place in `src`
    /// on every array, as XLA's `LayoutUtil::CopyLayoutBetweenShapes`, which
    /// changes `dst` in place: here `dst` is left alone.
    plain fn copy_layout_between_shapes(src: shape, dst: mut_shape) -> dst;
    /// Tells whether the positions of `dims` in `minor_to_major` are
    /// consecutive, as XLA's `LayoutUtil::AreDimensionsConsecutive`.
    plain fn are_dimensions_consecutive(layout: layout, dims: ints);
    /// Returns the layout's memory space `S(n)` (0 without a layout), as
    /// XLA's `LayoutUtil::MemorySpace`.
    plain fn memory_space(shape: shape);
    /// Tells whether `byte_strides` are those of a dense row-major array, as
    /// XLA's `LayoutUtil::ByteStridesIsMajorToMinor`; raises when the lists
    /// differ in length (where XLA `CHECK`-fails).
    guarded fn byte_strides_is_major_to_minor(byte_strides: ints, dims: ints, element_type: etype);
    /// Returns the largest piece dimension `dim` is split into, as XLA's
    /// `LayoutUtil::MaxSplitSize`; raises when `dim` is not a dimension.
    guarded fn max_split_size(shape: array, dim: usize);
    /// Returns the product over dimensions of `max_split_size`, as XLA's
    /// `LayoutUtil::MaxElementsInPerSplit`.
    plain fn max_elements_in_per_split(shape: array);
    /// Returns the layout's split config as `(dimension, split_indices)`, or
    /// None, as XLA's `LayoutUtil::GetSplitConfig`.
    plain fn get_split_config(shape: array);
}

/// One of `LayoutEqual`'s options.
type Ignore = fn(LayoutEqual) -> LayoutEqual;

/// Tells whether the layouts of two shapes are equal, skipping the
/// attributes named (each keyword is one of XLA's `Layout::Equal` options:
/// `IgnoreTiles`, ...; `minor_to_major_only` is `MinorToMajorOnly`), as
/// XLA's `LayoutUtil::LayoutsInShapesEqual(lhs, rhs, equal)`.
#[pyfunction]
#[pyo3(signature = (lhs, rhs, *, ignore_tiles=false, ignore_tail_padding_alignment_in_elements=false,
    ignore_index_primitive_type=false, ignore_pointer_primitive_type=false,
    ignore_element_size=false, ignore_memory_space=false, ignore_split_configs=false,
    ignore_physical_shape=false, minor_to_major_only=false))]
#[allow(clippy::too_many_arguments, clippy::fn_params_excessive_bools)]
fn layouts_in_shapes_equal_with(
    lhs: PyRef<'_, PyShape>,
    rhs: PyRef<'_, PyShape>,
    ignore_tiles: bool,
    ignore_tail_padding_alignment_in_elements: bool,
    ignore_index_primitive_type: bool,
    ignore_pointer_primitive_type: bool,
    ignore_element_size: bool,
    ignore_memory_space: bool,
    ignore_split_configs: bool,
    ignore_physical_shape: bool,
    minor_to_major_only: bool,
) -> bool {
    let options: [(bool, Ignore); 9] = [
        (ignore_tiles, LayoutEqual::ignore_tiles),
        (
            ignore_tail_padding_alignment_in_elements,
            LayoutEqual::ignore_tail_padding_alignment_in_elements,
        ),
        (
            ignore_index_primitive_type,
            LayoutEqual::ignore_index_primitive_type,
        ),
        (
            ignore_pointer_primitive_type,
            LayoutEqual::ignore_pointer_primitive_type,
        ),
        (ignore_element_size, LayoutEqual::ignore_element_size),
        (ignore_memory_space, LayoutEqual::ignore_memory_space),
        (ignore_split_configs, LayoutEqual::ignore_split_configs),
        (ignore_physical_shape, LayoutEqual::ignore_physical_shape),
        (minor_to_major_only, LayoutEqual::minor_to_major_only),
    ];
    let equal = options
        .into_iter()
        .filter(|(on, _)| *on)
        .fold(LayoutEqual::default(), |e, (_, set)| set(e));
    layout_util::layouts_in_shapes_equal_with(&lhs.0, &rhs.0, &equal)
}

/// Adds the functions of `xla_shape.layout_util`.
pub fn add(m: &Bound<'_, PyModule>) -> PyResult<()> {
    add_functions!(
        m,
        make_layout,
        make_layout_from_major_to_minor,
        make_descending_layout,
        make_ascending_layout,
        get_default_layout_for_rank,
        get_with_default_layout,
        clear_layout,
        validate_layout_for_shape,
        validate_layout_in_shape,
        is_dense_array,
        has_layout,
        has_any_layout,
        has_descending_layout,
        layout_equal,
        layout_human_string,
        layouts_in_shapes_equal,
        minor_to_major,
        make_logical_to_physical,
        major,
        minor,
        linear_index,
        move_dim_to_major,
        has_ascending_layout,
        get_default_layout_for_shape,
        get_default_layout_for_r2,
        get_default_layout_for_r3,
        get_default_layout_for_r4,
        set_to_default_layout,
        set_to_default_layout_program_shape,
        clear_layout_program_shape,
        clear_tiles,
        is_monotonic_with_dim0_minor,
        is_monotonic_with_dim0_major,
        has_layout_program_shape,
        has_custom_element_size_in_bits,
        copy_layout_between_shapes,
        are_dimensions_consecutive,
        memory_space,
        byte_strides_is_major_to_minor,
        max_split_size,
        max_elements_in_per_split,
        get_split_config,
        layouts_in_shapes_equal_with,
    );
    Ok(())
}
