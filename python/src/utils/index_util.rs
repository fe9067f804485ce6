//! `xla_shape.index_util`: XLA's `IndexUtil` (xla/index_util.h) under the
//! names of the Rust module `xla_shape::index_util`.

use pyo3::prelude::*;
use xla_shape::index_util;

use super::ToPython;
use crate::errors::IntoPyResult;
use crate::seq::Seq;
use crate::types::{PyShape, as_array};

bind! { index_util;
    /// Returns the linear index of `index` in the shape's dense layout, as
    /// XLA's `IndexUtil::MultidimensionalIndexToLinearIndex(shape, index)`.
    plain fn multidimensional_index_to_linear_index(shape: array, index: ints);
    /// Returns the index of linear index `linear_index` in the shape's
    /// dense layout, as XLA's
    /// `IndexUtil::LinearIndexToMultidimensionalIndex(shape, linear_index)`.
    plain fn linear_index_to_multidimensional_index(shape: array, linear_index: i64);
    /// Returns the element stride of a dimension in the shape's dense
    /// layout, as XLA's `IndexUtil::GetDimensionStride(shape, dimension)`.
    plain fn get_dimension_stride(shape: array, dimension: i64);
    /// Tells whether every entry of `index` is within its dimension, as
    /// XLA's `IndexUtil::IndexInBounds(shape, index)`.
    plain fn index_in_bounds(shape: array, index: ints);
    /// Compares two indices lexicographically (-1, 0 or 1), as XLA's
    /// `IndexUtil::CompareIndices(lhs, rhs)`.
    plain fn compare_indices(lhs: ints, rhs: ints);
}

/// Returns `(True, next_index)`, or `(False, index)` at the last index, as
/// XLA's `IndexUtil::BumpIndices(shape, index)`, which changes `index` in
/// place: here the caller's list is left alone.
#[pyfunction]
fn bump_indices(shape: PyRef<'_, PyShape>, index: Seq<i64>) -> PyResult<(bool, Vec<i64>)> {
    let mut index = index.0;
    let bumped = index_util::bump_indices(as_array(&shape.0)?, &mut index).py()?;
    Ok((bumped, index))
}

bind! { index_util;
    /// Returns the linear index of `index` in the order of `minor_to_major`
    /// (not the shape's layout), as XLA's
    /// `IndexUtil::MultidimensionalIndexToLinearIndex(shape, minor_to_major,
    /// index)`.
    plain fn multidimensional_index_to_linear_index_with_minor_to_major(shape: array, minor_to_major: ints, index: ints);
}

/// Returns the multidimensional index of `linear_index`, as XLA's
/// `IndexUtil::LinearIndexToMultidimensionalIndex`: a new list (the
/// caller's buffer of the Rust `_into` form has no use in Python).
#[pyfunction]
fn linear_index_to_multidimensional_index_into(
    py: Python<'_>,
    shape: PyRef<'_, PyShape>,
    linear_index: i64,
) -> PyResult<PyObject> {
    let a = as_array(&shape.0)?;
    let mut index = vec![0; a.rank()];
    index_util::linear_index_to_multidimensional_index_into(a, linear_index, &mut index)
        .map(|()| index)
        .to_python(py)
}

/// Adds the functions of `xla_shape.index_util`.
pub fn add(m: &Bound<'_, PyModule>) -> PyResult<()> {
    add_functions!(
        m,
        multidimensional_index_to_linear_index,
        linear_index_to_multidimensional_index,
        bump_indices,
        get_dimension_stride,
        index_in_bounds,
        compare_indices,
        multidimensional_index_to_linear_index_with_minor_to_major,
        linear_index_to_multidimensional_index_into,
    );
    Ok(())
}
