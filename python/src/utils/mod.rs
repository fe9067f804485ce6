//! The `shape_util`, `layout_util`, `index_util` and `strides` submodules:
//! XLA's utilities under the names of the Rust modules.
//!
//! Each binding converts its arguments (one conversion per kind of
//! argument, in `bind!`), calls the function of the same name of the Rust
//! crate, and converts its result (one `ToPython` impl per Rust type).
//! Functions that mutate an argument in Rust return the new value here,
//! leaving the argument alone: Python's `Shape`, `Layout` and
//! `ProgramShape` are immutable and hashable.

use std::cell::Cell;
use std::cmp::Ordering;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Once;

use pyo3::IntoPyObjectExt;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use xla_shape::shape_util::{
    BitcastDecomposition, BitcastDecompositionTrt, IndexedShape, ShapeEqualityDescriptor,
};
use xla_shape::{ArrayShape, Error, Layout, PrimitiveType, ProgramShape, Shape, SplitConfig};

use crate::errors::{IntoPyResult, invalid_argument, to_py};
use crate::types::{PyLayout, PyProgramShape, PyShape, checked_shape, primitive_type_to_py};

/// Runs a library function whose documented `# Panics` cover numbers the
/// caller supplies (a dimension number out of range, a permutation that is
/// not one): from Python such a number is input, so the panic becomes an
/// `InvalidArgumentError` carrying the library's message, and nothing is
/// printed to stderr (see `quiet_guarded_panics`).
pub fn guard<T>(f: impl FnOnce() -> T) -> PyResult<T> {
    quiet_guarded_panics();
    let outer = GUARDED.replace(true);
    let result = catch_unwind(AssertUnwindSafe(f));
    GUARDED.set(outer);
    result.map_err(|payload| {
        let message = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("invalid argument");
        invalid_argument(message.to_string())
    })
}

thread_local! {
    /// Whether this thread runs inside `guard`.
    static GUARDED: Cell<bool> = const { Cell::new(false) };
}

/// Installs, once, a panic hook that stays silent for panics inside
/// `guard` (they become Python exceptions; the default hook would print
/// the message and a backtrace as well) and hands every other panic to
/// the hook it replaces.
fn quiet_guarded_panics() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !GUARDED.get() {
                previous(info);
            }
        }));
    });
}

/// A NumPy view of the destination bytes of a relayout: the dtype of the
/// element type with the dimensions major to minor when the layout has no
/// tiles and the buffer holds exactly one dtype item per element, else the
/// bytes themselves.
pub fn typed_view<'py>(
    py: Python<'py>,
    np: &Bound<'py, PyModule>,
    bytes: &Bound<'py, PyAny>,
    shape: &ArrayShape,
) -> PyResult<Bound<'py, PyAny>> {
    let Some(layout) = shape.layout() else {
        return Ok(bytes.clone());
    };
    let Some(d) = xla_shape::interop::numpy::dtype_with_float6(shape.element_type()) else {
        return Ok(bytes.clone());
    };
    let elements = xla_shape::shape_util::elements_in(shape).py()?;
    let size = xla_shape::tiling::TiledLayout::new(shape).py()?.byte_size();
    let itemsize = i64::try_from(d.itemsize).unwrap_or(i64::MAX);
    if !layout.tiles().is_empty() || elements.checked_mul(itemsize) != Some(size) {
        return Ok(bytes.clone());
    }
    if d.ml_dtypes {
        py.import("ml_dtypes")?;
    }
    let major_to_minor: Vec<i64> = layout
        .minor_to_major()
        .iter()
        .rev()
        .map(|&dim| usize::try_from(dim).map_or(0, |i| shape.dimensions()[i]))
        .collect();
    let dtype = np.getattr("dtype")?.call1((d.name,))?;
    bytes
        .call_method1("view", (dtype,))?
        .call_method1("reshape", (major_to_minor,))
}

/// A Rust result as the Python value a binding returns: one impl per Rust
/// type, so that every function returning that type converts it alike.
pub trait ToPython {
    /// The Python value; an error for an `Err` and for a tuple nesting
    /// past the limit (see `checked_shape`).
    fn to_python(self, py: Python<'_>) -> PyResult<PyObject>;
}

/// `ToPython` of types PyO3 converts itself (numbers, strings, bools).
macro_rules! plain_to_python {
    ($($t:ty),*) => {$(
        impl ToPython for $t {
            fn to_python(self, py: Python<'_>) -> PyResult<PyObject> {
                self.into_py_any(py)
            }
        }
    )*};
}

plain_to_python!(bool, i32, i64, String, &'static str);

impl ToPython for () {
    fn to_python(self, py: Python<'_>) -> PyResult<PyObject> {
        Ok(py.None())
    }
}

impl ToPython for Shape {
    fn to_python(self, py: Python<'_>) -> PyResult<PyObject> {
        checked_shape(self)?.into_py_any(py)
    }
}

impl ToPython for &Shape {
    fn to_python(self, py: Python<'_>) -> PyResult<PyObject> {
        self.clone().to_python(py)
    }
}

impl ToPython for ArrayShape {
    fn to_python(self, py: Python<'_>) -> PyResult<PyObject> {
        PyShape(self.into()).into_py_any(py)
    }
}

impl ToPython for Layout {
    fn to_python(self, py: Python<'_>) -> PyResult<PyObject> {
        PyLayout(self).into_py_any(py)
    }
}

impl ToPython for ProgramShape {
    fn to_python(self, py: Python<'_>) -> PyResult<PyObject> {
        PyProgramShape(self).into_py_any(py)
    }
}

impl ToPython for PrimitiveType {
    fn to_python(self, py: Python<'_>) -> PyResult<PyObject> {
        Ok(primitive_type_to_py(py, self)?.unbind())
    }
}

impl<T: ToPython> ToPython for Option<T> {
    fn to_python(self, py: Python<'_>) -> PyResult<PyObject> {
        self.map_or_else(|| Ok(py.None()), |v| v.to_python(py))
    }
}

impl<T: ToPython> ToPython for Result<T, Error> {
    fn to_python(self, py: Python<'_>) -> PyResult<PyObject> {
        self.map_err(to_py)?.to_python(py)
    }
}

/// A list.
impl<T: ToPython> ToPython for Vec<T> {
    fn to_python(self, py: Python<'_>) -> PyResult<PyObject> {
        let items = self
            .into_iter()
            .map(|v| v.to_python(py))
            .collect::<PyResult<Vec<_>>>()?;
        items.into_py_any(py)
    }
}

/// Tuples.
macro_rules! tuple_to_python {
    ($(($($v:ident: $t:ident),+))*) => {$(
        impl<$($t: ToPython),+> ToPython for ($($t,)+) {
            fn to_python(self, py: Python<'_>) -> PyResult<PyObject> {
                let ($($v,)+) = self;
                PyTuple::new(py, [$($v.to_python(py)?),+])?.into_py_any(py)
            }
        }
    )*};
}

tuple_to_python!((a: A, b: B) (a: A, b: B, c: C, d: D));

/// `(deleted_dimensions, inserted_dimensions)`.
impl ToPython for ShapeEqualityDescriptor {
    fn to_python(self, py: Python<'_>) -> PyResult<PyObject> {
        (self.deleted_dimensions, self.inserted_dimensions).to_python(py)
    }
}

/// `(transpose1_dims, transpose1_shape, reshape_shape, transpose2_dims)`.
impl ToPython for BitcastDecompositionTrt {
    fn to_python(self, py: Python<'_>) -> PyResult<PyObject> {
        (
            self.transpose1_dims,
            self.transpose1_shape,
            self.reshape_shape,
            self.transpose2_dims,
        )
            .to_python(py)
    }
}

/// `("reshape", None)`, `("transpose", dims)` or `("trt", (transpose1_dims,
/// transpose1_shape, reshape_shape, transpose2_dims))`.
impl ToPython for BitcastDecomposition {
    fn to_python(self, py: Python<'_>) -> PyResult<PyObject> {
        match self {
            BitcastDecomposition::Reshape => ("reshape", ()).to_python(py),
            BitcastDecomposition::Transpose(dims) => ("transpose", dims).to_python(py),
            BitcastDecomposition::Trt(trt) => ("trt", *trt).to_python(py),
        }
    }
}

/// `(index, shape)`.
impl ToPython for IndexedShape {
    fn to_python(self, py: Python<'_>) -> PyResult<PyObject> {
        (Vec::<i64>::from(self.index), self.shape).to_python(py)
    }
}

/// A list.
impl ToPython for &[i64] {
    fn to_python(self, py: Python<'_>) -> PyResult<PyObject> {
        self.into_py_any(py)
    }
}

/// -1, 0 or 1.
impl ToPython for Ordering {
    fn to_python(self, py: Python<'_>) -> PyResult<PyObject> {
        (self as i32).into_py_any(py)
    }
}

/// `(dimension, split_indices)`.
impl ToPython for SplitConfig {
    fn to_python(self, py: Python<'_>) -> PyResult<PyObject> {
        (self.dimension(), self.split_indices().to_vec()).to_python(py)
    }
}

/// Python functions that convert their arguments, call the Rust function
/// of the same name (or the one after `=`) and convert its result with
/// `ToPython`. `guarded` ones run under `guard` (their Rust function
/// panics on numbers the caller supplies). Argument kinds: `shape`,
/// `array` (an array `Shape`), `layout`, `program` (borrowed), `owned_shape`,
/// `owned_layout` (cloned), `shapes` (a list of shapes, cloned),
/// `shape_refs` (a list of shapes, borrowed), `etype` (an element type in
/// any form `PrimitiveType()` takes), `ints`, `bools` (sequences), and
/// `i64`, `u32`, `usize`, `bool`.
macro_rules! bind {
    ($module:ident; $($(#[$doc:meta])* $how:ident fn $name:ident($($arg:ident: $kind:ident),*) $(-> $out:ident)? $(= $path:path)?;)*) => {$(
        #[pyfunction]
        $(#[$doc])*
        fn $name(py: Python<'_>, $($arg: bind!(@ty $kind)),*) -> PyResult<PyObject> {
            $(#[allow(unused_mut)] let mut $arg = bind!(@arg $kind $arg);)*
            #[allow(unused_mut)]
            let mut call = || bind!(@fn $module $name $($path)?)($(bind!(@pass $kind $arg)),*);
            let result = bind!(@run $how ($($out)?) call);
            $crate::utils::ToPython::to_python(result, py)
        }
    )*};
    (@fn $module:ident $name:ident) => { $module::$name };
    (@fn $module:ident $name:ident $path:path) => { $path };
    (@run plain () $call:ident) => { $call() };
    (@run guarded () $call:ident) => { $crate::utils::guard($call)? };
    (@run plain ($out:ident) $call:ident) => {
        $crate::utils::Done::done($call()).map(|()| $out)
    };
    (@run guarded ($out:ident) $call:ident) => {
        $crate::utils::Done::done($crate::utils::guard($call)?).map(|()| $out)
    };
    (@ty shape) => { PyRef<'_, PyShape> };
    (@ty owned_shape) => { PyRef<'_, PyShape> };
    (@ty mut_shape) => { PyRef<'_, PyShape> };
    (@ty array) => { PyRef<'_, PyShape> };
    (@ty mut_array) => { PyRef<'_, PyShape> };
    (@ty layout) => { PyRef<'_, PyLayout> };
    (@ty owned_layout) => { PyRef<'_, PyLayout> };
    (@ty program) => { PyRef<'_, PyProgramShape> };
    (@ty mut_program) => { PyRef<'_, PyProgramShape> };
    (@ty shapes) => { $crate::seq::Seq<PyRef<'_, PyShape>> };
    (@ty shape_refs) => { $crate::seq::Seq<PyRef<'_, PyShape>> };
    (@ty etype) => { &Bound<'_, PyAny> };
    (@ty ints) => { $crate::seq::Seq<i64> };
    (@ty bools) => { $crate::seq::Seq<bool> };
    (@ty $t:ident) => { $t };
    (@arg shape $a:ident) => { &$a.0 };
    (@arg owned_shape $a:ident) => { $a.0.clone() };
    (@arg mut_shape $a:ident) => { $a.0.clone() };
    (@arg array $a:ident) => { $crate::types::as_array(&$a.0)? };
    (@arg mut_array $a:ident) => { $crate::types::as_array(&$a.0)?.clone() };
    (@arg layout $a:ident) => { &$a.0 };
    (@arg owned_layout $a:ident) => { $a.0.clone() };
    (@arg program $a:ident) => { &$a.0 };
    (@arg mut_program $a:ident) => { $a.0.clone() };
    (@arg shapes $a:ident) => { $crate::seq::cloned_shapes(&$a)? };
    (@arg shape_refs $a:ident) => { $a.iter().map(|s| &s.0).collect::<Vec<&Shape>>() };
    (@arg etype $a:ident) => { $crate::types::element_type_from($a)? };
    (@arg $kind:ident $a:ident) => { $a };
    (@pass ints $a:ident) => { &$a };
    (@pass bools $a:ident) => { &$a };
    (@pass shape_refs $a:ident) => { &$a };
    (@pass mut_shape $a:ident) => { &mut $a };
    (@pass mut_array $a:ident) => { &mut $a };
    (@pass mut_program $a:ident) => { &mut $a };
    (@pass $kind:ident $a:ident) => { $a };
}

/// The outcome of a Rust function that mutates an argument in place:
/// nothing, or a `Result<()>`.
pub trait Done {
    /// The outcome as a `Result`.
    fn done(self) -> Result<(), Error>;
}

impl Done for () {
    fn done(self) -> Result<(), Error> {
        Ok(())
    }
}

impl Done for Result<(), Error> {
    fn done(self) -> Result<(), Error> {
        self
    }
}

/// Creates submodule `name` with `doc`, filled by `fill`, and registers it
/// as `xla_shape._xla_shape.<name>`.
pub(crate) fn submodule<'py>(
    parent: &Bound<'py, PyModule>,
    name: &str,
    doc: &str,
    fill: impl FnOnce(&Bound<'py, PyModule>) -> PyResult<()>,
) -> PyResult<()> {
    let py = parent.py();
    let m = PyModule::new(py, name)?;
    m.setattr("__doc__", doc)?;
    fill(&m)?;
    parent.add_submodule(&m)?;
    let modules = py.import("sys")?.getattr("modules")?;
    let modules = modules.downcast::<PyDict>()?;
    modules.set_item(format!("xla_shape._xla_shape.{name}"), &m)?;
    Ok(())
}

/// Adds these `#[pyfunction]`s to module `$m`.
macro_rules! add_functions {
    ($m:expr, $($f:ident),* $(,)?) => {{
        $( $m.add_function(wrap_pyfunction!($f, $m)?)?; )*
    }};
}

mod index_util;
mod layout_util;
mod shape_util;
mod strides;

/// Adds the submodules.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    submodule(
        m,
        "shape_util",
        "XLA's ShapeUtil: sizes, queries, comparisons and dimension surgery.",
        shape_util::add,
    )?;
    submodule(
        m,
        "layout_util",
        "XLA's LayoutUtil: making, checking and comparing layouts.",
        layout_util::add,
    )?;
    submodule(
        m,
        "index_util",
        "XLA's IndexUtil: linear and multidimensional indices.",
        index_util::add,
    )?;
    submodule(
        m,
        "strides",
        "Strides of layouts and layouts of strides (NumPy's, DLPack's).",
        strides::add,
    )
}
