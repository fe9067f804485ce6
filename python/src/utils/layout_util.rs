//! `xla_shape.layout_util`: XLA's `LayoutUtil` (xla/layout_util.h) under
//! the names of the Rust module `xla_shape::layout_util`.

use pyo3::prelude::*;
use xla_shape::{LayoutEqual, layout_util};

use crate::errors::invalid_argument;
use crate::types::{PyLayout, PyProgramShape, PyShape};

/// Makes the layout `{rank-1,...,0}`, as XLA's
/// `LayoutUtil::MakeDescendingLayout(rank)`.
#[pyfunction]
fn make_descending_layout(rank: usize) -> PyResult<PyLayout> {
    check_rank(rank)?;
    Ok(PyLayout(layout_util::make_descending_layout(rank)))
}

/// Makes the layout `{0,...,rank-1}`, as XLA's
/// `LayoutUtil::MakeAscendingLayout(rank)`.
#[pyfunction]
fn make_ascending_layout(rank: usize) -> PyResult<PyLayout> {
    check_rank(rank)?;
    Ok(PyLayout(layout_util::make_ascending_layout(rank)))
}

/// Makes the default (descending) layout of a rank, as XLA's
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

bind! { layout_util;
    /// Makes a layout of this `minor_to_major`, as XLA's
    /// `LayoutUtil::MakeLayout(minor_to_major)`; raises where XLA
    /// `LOG(FATAL)`s.
    guarded fn make_layout(minor_to_major: ints);
    /// Makes a layout from the dimensions major to minor, as XLA's
    /// `LayoutUtil::MakeLayoutFromMajorToMinor(major_to_minor)`.
    guarded fn make_layout_from_major_to_minor(major_to_minor: ints);
    /// Returns the shape with XLA's default layout on every array, as
    /// XLA's `LayoutUtil::GetWithDefaultLayout`.
    plain fn get_with_default_layout(shape: shape);
    /// Returns the shape without layouts, as XLA's `LayoutUtil::ClearLayout`,
    /// which changes the shape in place: here `shape` is left alone.
    plain fn clear_layout(shape: mut_shape) -> shape;
    /// Raises when `layout` does not fit `shape`, as XLA's
    /// `LayoutUtil::ValidateLayoutForShape`.
    plain fn validate_layout_for_shape(layout: layout, shape: shape);
    /// Raises when a layout in the shape is invalid (or missing, unless
    /// allowed), as XLA's `LayoutUtil::ValidateLayoutInShape`.
    #[pyo3(signature = (shape, allow_missing_layouts=false))]
    plain fn validate_layout_in_shape(shape: shape, allow_missing_layouts: bool);
    /// Tells whether the shape is an array, as XLA's (deprecated)
    /// `LayoutUtil::IsDenseArray`.
    plain fn is_dense_array(shape: shape);
    /// Tells whether every leaf has a layout, as XLA's
    /// `LayoutUtil::HasLayout`.
    plain fn has_layout(shape: shape);
    /// Tells whether some leaf has a layout, as XLA's
    /// `LayoutUtil::HasAnyLayout`.
    plain fn has_any_layout(shape: shape);
    /// Tells whether `minor_to_major` is non-increasing, as XLA's
    /// `LayoutUtil::HasDescendingLayout`.
    plain fn has_descending_layout(layout: layout);
    /// Tells whether two layouts are equal, as XLA's `LayoutUtil::Equal`.
    plain fn equal(lhs: layout, rhs: layout);
    /// Prints a layout (`{1,0:T(8,128)}`), as XLA's
    /// `LayoutUtil::HumanString(layout)`.
    plain fn human_string(layout: layout);
    /// Tells whether the layouts of two shapes are equal, as XLA's
    /// `LayoutUtil::LayoutsInShapesEqual`.
    plain fn layouts_in_shapes_equal(lhs: shape, rhs: shape);
    /// Returns the `minor_to_major` of an array's layout, as XLA's
    /// `LayoutUtil::MinorToMajor(shape)`.
    plain fn minor_to_major(shape: array);
    /// Returns, per logical dimension, its position from the major end, as
    /// XLA's `LayoutUtil::MakeLogicalToPhysical(layout)`.
    plain fn make_logical_to_physical(layout: layout);
    /// Returns the logical dimension at position `physical` from the major
    /// end, as XLA's `LayoutUtil::Major(layout, physical)`; raises for a
    /// position out of range.
    guarded fn major(layout: layout, physical: usize);
    /// Returns the logical dimension at position `physical` from the minor
    /// end, as XLA's `LayoutUtil::Minor(layout, physical)`; raises for a
    /// position out of range.
    guarded fn minor(layout: layout, physical: usize);
    /// Returns the element offset of `index` in the shape's (tiled) layout,
    /// as XLA's `LayoutUtil::LinearIndex(shape, index)`.
    plain fn linear_index(shape: array, index: ints);
    /// Moves `dim` to the most major position of `minor_to_major`, as XLA's
    /// `LayoutUtil::MoveDimToMajor(layout, dim)`.
    guarded fn move_dim_to_major(layout: layout, dim: i64);
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

/// `layouts_in_shapes_equal_with` with one keyword per option of
/// `LayoutEqual`, each named as its method: the list of options is written
/// once, here, and gives the Python signature, the parameters and what
/// each sets (the stub's keywords are checked against that signature by
/// stubtest).
macro_rules! layout_equal_with {
    ($($option:ident),* $(,)?) => {
        /// Tells whether the layouts of two shapes are equal, skipping the
        /// attributes named (each keyword is one of XLA's `Layout::Equal`
        /// options: `IgnoreTiles`, ...; `minor_to_major_only` is
        /// `MinorToMajorOnly`), as XLA's
        /// `LayoutUtil::LayoutsInShapesEqual(lhs, rhs, equal)`.
        #[pyfunction]
        #[pyo3(signature = (lhs, rhs, *, $($option = false),*))]
        #[allow(clippy::too_many_arguments, clippy::fn_params_excessive_bools)]
        fn layouts_in_shapes_equal_with(
            lhs: PyRef<'_, PyShape>,
            rhs: PyRef<'_, PyShape>,
            $($option: bool),*
        ) -> bool {
            let mut equal = LayoutEqual::default();
            $(
                if $option {
                    equal = equal.$option();
                }
            )*
            layout_util::layouts_in_shapes_equal_with(&lhs.0, &rhs.0, &equal)
        }
    };
}

layout_equal_with!(
    ignore_tiles,
    ignore_tail_padding_alignment_in_elements,
    ignore_index_primitive_type,
    ignore_pointer_primitive_type,
    ignore_element_size,
    ignore_memory_space,
    ignore_split_configs,
    ignore_physical_shape,
    minor_to_major_only,
);

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
        equal,
        human_string,
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
