//! `xla_shape.strides`: the Rust module `xla_shape::strides`.

use pyo3::prelude::*;
use xla_shape::strides;

use crate::types::PyShape;

bind! { strides;
    /// Returns the element strides of an array's layout, per logical
    /// dimension (no XLA counterpart; the strides `IndexUtil` walks).
    plain fn element_strides(shape: array);
    /// Returns the byte strides of an array's layout, per logical dimension
    /// (NumPy's `strides` of the same buffer; XLA's `ShapeUtil::ByteStrides`
    /// for dense layouts).
    plain fn byte_strides(shape: array);
    /// Returns the layout whose element strides are `strides` for
    /// dimensions `dims` (no XLA counterpart).
    plain fn layout_from_strides(dims: ints, strides: ints);
    /// Returns the layout of a buffer with NumPy byte strides
    /// (`array.strides`; no XLA counterpart).
    plain fn layout_from_byte_strides(element_type: etype, dims: ints, byte_strides: ints);
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
