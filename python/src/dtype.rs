//! NumPy dtypes of element types, by the names of `xla_shape::interop::numpy`
//! (jaxlib's mapping). NumPy, and ml_dtypes for its types, are imported
//! when first needed, so that `import xla_shape` stays fast and works
//! without them.

use pyo3::prelude::*;
use pyo3::types::PyString;
use xla_shape::interop::numpy;
use xla_shape::{ArrayShape, PrimitiveType};

use crate::errors::{IntoPyResult, invalid_argument};

/// `numpy.dtype` of `t`, as jaxlib's `Shape.numpy_dtype()`, and ml_dtypes'
/// float6 dtypes for the types jaxlib has none for.
pub fn numpy_dtype(py: Python<'_>, t: PrimitiveType) -> PyResult<Bound<'_, PyAny>> {
    let d = match numpy::dtype_with_float6(t) {
        Some(d) => d,
        None => numpy::to_dtype(t).py()?,
    };
    if d.ml_dtypes {
        py.import("ml_dtypes")?;
    }
    py.import("numpy")?.getattr("dtype")?.call1((d.name,))
}

/// The element type of a NumPy dtype or anything `numpy.dtype()` accepts
/// (`numpy.float32`, `ml_dtypes.bfloat16`), as jaxlib's
/// `DtypeToPrimitiveType`, and ml_dtypes' float6 dtypes (which jaxlib
/// refuses).
pub fn element_type_of_dtype(value: &Bound<'_, PyAny>) -> PyResult<PrimitiveType> {
    let py = value.py();
    let np = py.import("numpy")?;
    let dtype_type = np.getattr("dtype")?;
    let dtype = if value.is_instance(&dtype_type)? {
        value.clone()
    } else {
        dtype_type.call1((value,))?
    };
    let name = dtype.getattr("name")?;
    let name = name.downcast::<PyString>()?.to_cow()?;
    numpy::from_dtype_name_with_float6(&name).py()
}

/// Refuses an array (anything with a `dtype`) whose dtype is neither the
/// element type of `shape` nor `uint8` (raw bytes, as `relayout` returns
/// tiled data); objects without a dtype (`bytes`, `bytearray`,
/// `memoryview`) are bytes and pass. `what` names the argument.
pub fn check_array_dtype(value: &Bound<'_, PyAny>, shape: &ArrayShape, what: &str) -> PyResult<()> {
    if !value.hasattr("dtype")? {
        return Ok(());
    }
    let dtype = value.getattr("dtype")?;
    let t = shape.element_type();
    match element_type_of_dtype(&dtype) {
        Ok(u) if u == t || u == PrimitiveType::U8 => Ok(()),
        _ => Err(invalid_argument(format!(
            "{what} has dtype {}, which is not the element type {} of {shape} \
             (pass its data as that type, or as uint8 bytes)",
            dtype.str()?,
            t.lowercase_name()
        ))),
    }
}
