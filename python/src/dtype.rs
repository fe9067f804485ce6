//! NumPy dtypes of element types, by the names of `xla_shape::interop::numpy`
//! (jaxlib's mapping). NumPy, and ml_dtypes for its types, are imported
//! when first needed, so that `import xla_shape` stays fast and works
//! without them.

use pyo3::prelude::*;
use pyo3::types::PyString;
use xla_shape::PrimitiveType;
use xla_shape::interop::numpy;

use crate::errors::IntoPyResult;

/// `numpy.dtype` of `t`, as jaxlib's `Shape.numpy_dtype()`.
pub fn numpy_dtype(py: Python<'_>, t: PrimitiveType) -> PyResult<Bound<'_, PyAny>> {
    let d = numpy::to_dtype(t).py()?;
    if d.ml_dtypes {
        py.import("ml_dtypes")?;
    }
    py.import("numpy")?.getattr("dtype")?.call1((d.name,))
}

/// The element type of a NumPy dtype or anything `numpy.dtype()` accepts
/// (`numpy.float32`, `ml_dtypes.bfloat16`), as jaxlib's
/// `DtypeToPrimitiveType`.
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
    numpy::from_dtype_name(&name).py()
}
