//! `xla_shape.strides`: the Rust module `xla_shape::strides`.

use pyo3::prelude::*;
use xla_shape::strides;

use crate::errors::IntoPyResult;
use crate::types::{PyLayout, PyShape, as_array, element_type_from};

/// The element strides of an array's layout, per logical dimension.
#[pyfunction]
fn element_strides(shape: PyRef<'_, PyShape>) -> PyResult<Vec<i64>> {
    strides::element_strides(as_array(&shape.0)?).py()
}

/// The byte strides of an array's layout, per logical dimension (NumPy's
/// `strides` of the same buffer).
#[pyfunction]
fn byte_strides(shape: PyRef<'_, PyShape>) -> PyResult<Vec<i64>> {
    strides::byte_strides(as_array(&shape.0)?).py()
}

/// The layout whose element strides are `strides` for dimensions `dims`.
#[pyfunction]
fn layout_from_strides(dims: Vec<i64>, strides: Vec<i64>) -> PyResult<PyLayout> {
    strides::layout_from_strides(&dims, &strides)
        .py()
        .map(PyLayout)
}

/// The layout of a buffer with NumPy byte strides (`array.strides`).
#[pyfunction]
fn layout_from_byte_strides(
    element_type: &Bound<'_, PyAny>,
    dims: Vec<i64>,
    byte_strides: Vec<i64>,
) -> PyResult<PyLayout> {
    let t = element_type_from(element_type)?;
    strides::layout_from_byte_strides(t, &dims, &byte_strides)
        .py()
        .map(PyLayout)
}

/// Adds the functions of `xla_shape.strides`.
pub fn add(m: &Bound<'_, PyModule>) -> PyResult<()> {
    add_functions!(
        m,
        element_strides,
        byte_strides,
        layout_from_strides,
        layout_from_byte_strides,
    );
    Ok(())
}
