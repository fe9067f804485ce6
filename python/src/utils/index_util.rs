//! `xla_shape.index_util`: XLA's `IndexUtil` (xla/index_util.h) under the
//! names of the Rust module `xla_shape::index_util`.

use pyo3::prelude::*;
use xla_shape::index_util;

use super::ToPython;
use crate::errors::IntoPyResult;
use crate::types::{PyShape, as_array};

/// `IndexUtil::MultidimensionalIndexToLinearIndex(shape, index)`.
#[pyfunction]
fn multidimensional_index_to_linear_index(
    shape: PyRef<'_, PyShape>,
    index: Vec<i64>,
) -> PyResult<i64> {
    index_util::multidimensional_index_to_linear_index(as_array(&shape.0)?, &index).py()
}

/// `IndexUtil::LinearIndexToMultidimensionalIndex(shape, linear_index)`.
#[pyfunction]
fn linear_index_to_multidimensional_index(
    shape: PyRef<'_, PyShape>,
    linear_index: i64,
) -> PyResult<Vec<i64>> {
    index_util::linear_index_to_multidimensional_index(as_array(&shape.0)?, linear_index).py()
}

/// `IndexUtil::BumpIndices(shape, index)`: `(True, next_index)`, or
/// `(False, index)` at the last index.
#[pyfunction]
fn bump_indices(shape: PyRef<'_, PyShape>, index: Vec<i64>) -> PyResult<(bool, Vec<i64>)> {
    let mut index = index;
    let bumped = index_util::bump_indices(as_array(&shape.0)?, &mut index).py()?;
    Ok((bumped, index))
}

/// `IndexUtil::GetDimensionStride(shape, dimension)`: the element stride
/// of a dimension in the shape's dense layout.
#[pyfunction]
fn get_dimension_stride(shape: PyRef<'_, PyShape>, dimension: i64) -> PyResult<i64> {
    index_util::get_dimension_stride(as_array(&shape.0)?, dimension).py()
}

/// `IndexUtil::IndexInBounds(shape, index)`.
#[pyfunction]
fn index_in_bounds(shape: PyRef<'_, PyShape>, index: Vec<i64>) -> PyResult<bool> {
    Ok(index_util::index_in_bounds(as_array(&shape.0)?, &index))
}

/// `IndexUtil::CompareIndices(lhs, rhs)`: -1, 0 or 1.
#[pyfunction]
fn compare_indices(lhs: Vec<i64>, rhs: Vec<i64>) -> i32 {
    index_util::compare_indices(&lhs, &rhs) as i32
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
