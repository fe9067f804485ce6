//! The exception hierarchy: one base class, both a `ValueError` and a
//! `RuntimeError`, and one subclass per `xla_shape::ErrorKind`.
//!
//! jaxlib raises `jax.errors.JaxRuntimeError`, a `RuntimeError` (jaxlib
//! 0.10.2; `tests/data/oracle/python_compat.jsonl`), where this package
//! raises these: code written for jaxlib catches them with `except
//! RuntimeError`. They stay `ValueError`s too, as they were first.

use pyo3::PyClass;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::pyclass_init::PyClassInitializer;
use pyo3::sync::GILOnceCell;
use pyo3::types::{PyDict, PyTuple, PyType};
use xla_shape::{Diagnostic, Error, ErrorContext, ErrorKind};

/// The exception classes: name and docstring, the base class first.
const CLASSES: [(&str, &str); 10] = [
    (
        "XlaShapeError",
        "Base class of every error this package raises about shapes, layouts, \
         protos, text and buffers; a ValueError and a RuntimeError (what \
         jaxlib's JaxRuntimeError is). Attributes: `kind` (the Rust \
         crate's ErrorKind name, such as \"Parse\"), `message` (XLA's text where \
         XLA has one, without the context), `line` and `column` (1-based) and \
         `offset` (0-based, in bytes) (for text that does not parse: the place \
         of the last diagnostic; otherwise None), `diagnostics` (a tuple of \
         Diagnostic: each place in the text that went wrong) and `context` (a \
         tuple of ErrorContext: where in a nested message the error was found, \
         outermost first). str() of the error is the message after its context.",
    ),
    (
        "DecodeError",
        "Bytes that are not a well-formed protobuf message.",
    ),
    (
        "MalformedProtoError",
        "A well-formed message that XLA's FromProto rejects (a RET_CHECK failure).",
    ),
    (
        "InvalidShapeError",
        "A shape that XLA's ValidateShape rejects.",
    ),
    (
        "InvalidLayoutError",
        "A layout that is not valid for its shape (XLA's ValidateLayoutForShape).",
    ),
    (
        "ParseError",
        "HLO text that does not parse; `line` and `column` (both 1-based, the \
         column in bytes) and `offset` (0-based) say where.",
    ),
    (
        "InvalidArgumentError",
        "A bad argument to a constructor or utility function.",
    ),
    (
        "SizeOverflowError",
        "Arithmetic on sizes or offsets that would overflow a signed 64-bit integer.",
    ),
    (
        "FormatError",
        "JSON or protobuf text format that does not parse or does not fit the schema.",
    ),
    (
        "BufferSizeError",
        "Array data whose buffer length does not fit its shape and layout.",
    ),
];

/// The index in [`CLASSES`] of the class of errors of `kind`.
fn class_index(kind: ErrorKind) -> usize {
    match kind {
        ErrorKind::Decode => 1,
        ErrorKind::MalformedProto => 2,
        ErrorKind::InvalidShape => 3,
        ErrorKind::InvalidLayout => 4,
        ErrorKind::Parse => 5,
        ErrorKind::InvalidArgument => 6,
        ErrorKind::Overflow => 7,
        ErrorKind::Format => 8,
        ErrorKind::BufferSize => 9,
        _ => 0,
    }
}

/// The exception classes, made once: `XlaShapeError(ValueError,
/// RuntimeError)` and its subclasses, by calling `type` as a `class`
/// statement does (PyO3's `create_exception!` takes one base class).
fn classes(py: Python<'_>) -> PyResult<&[Py<PyType>]> {
    static TYPES: GILOnceCell<Vec<Py<PyType>>> = GILOnceCell::new();
    TYPES
        .get_or_try_init(py, || {
            let mut types: Vec<Py<PyType>> = Vec::with_capacity(CLASSES.len());
            for (name, doc) in CLASSES {
                let bases = match types.first() {
                    None => PyTuple::new(
                        py,
                        [
                            py.get_type::<PyValueError>(),
                            py.get_type::<PyRuntimeError>(),
                        ],
                    )?,
                    Some(base) => PyTuple::new(py, [base.bind(py)])?,
                };
                let namespace = PyDict::new(py);
                namespace.set_item("__doc__", doc)?;
                namespace.set_item("__module__", "xla_shape")?;
                let class = py
                    .get_type::<PyType>()
                    .call1((name, bases, namespace))?
                    .downcast_into::<PyType>()?;
                types.push(class.unbind());
            }
            Ok(types)
        })
        .map(Vec::as_slice)
}

/// A new exception of class `CLASSES[index]` with this text.
fn new_error(py: Python<'_>, index: usize, text: String) -> PyErr {
    match classes(py) {
        Ok(types) => PyErr::from_type(types[index].bind(py).clone(), text),
        Err(e) => e,
    }
}

/// One place in parsed text and what is wrong there: an element of
/// `XlaShapeError.diagnostics`.
#[pyclass(name = "Diagnostic", module = "xla_shape", frozen, eq)]
#[derive(PartialEq)]
pub struct PyDiagnostic {
    /// 1-based line.
    #[pyo3(get)]
    line: usize,
    /// 1-based byte column within the line, as `XlaShapeError.column`.
    #[pyo3(get)]
    column: usize,
    /// 0-based byte offset from the start of the text.
    #[pyo3(get)]
    offset: usize,
    /// What is wrong there.
    #[pyo3(get)]
    message: String,
    /// XLA's `was parsing L:C: error: MESSAGE`.
    xla: String,
}

#[pymethods]
impl PyDiagnostic {
    fn __repr__(&self) -> String {
        format!(
            "Diagnostic(line={}, column={}, offset={}, message={:?})",
            self.line, self.column, self.offset, self.message
        )
    }

    /// XLA's rendering, `was parsing L:C: error: MESSAGE` (its column is
    /// 0-based on the first line and 1-based on the others).
    fn __str__(&self) -> &str {
        &self.xla
    }
}

impl From<&Diagnostic> for PyDiagnostic {
    fn from(d: &Diagnostic) -> Self {
        let at = d.location();
        PyDiagnostic {
            line: at.line,
            column: at.one_based_column(),
            offset: at.offset,
            message: d.message().to_string(),
            xla: d.to_string(),
        }
    }
}

/// One level of where in a nested protobuf message an error was found:
/// an element of `XlaShapeError.context`.
#[pyclass(name = "ErrorContext", module = "xla_shape", frozen, eq)]
#[derive(PartialEq)]
pub struct PyErrorContext {
    /// The message's full name (`"xla.HloModuleProto"`).
    #[pyo3(get)]
    message: &'static str,
    /// The field of the message the error is in (`"computations"`), or
    /// None.
    #[pyo3(get)]
    field: Option<&'static str>,
    /// The index of the element of a repeated field, or None.
    #[pyo3(get)]
    index: Option<usize>,
    /// The element's name, if it has one and it was read before the error.
    #[pyo3(get)]
    name: Option<String>,
}

#[pymethods]
impl PyErrorContext {
    fn __repr__(&self) -> String {
        let show = |v: Option<String>| v.unwrap_or_else(|| "None".into());
        format!(
            "ErrorContext(message={:?}, field={}, index={}, name={})",
            self.message,
            show(self.field.map(|f| format!("{f:?}"))),
            show(self.index.map(|i| i.to_string())),
            show(self.name.as_ref().map(|n| format!("{n:?}"))),
        )
    }
}

impl From<&ErrorContext> for PyErrorContext {
    fn from(c: &ErrorContext) -> Self {
        PyErrorContext {
            message: c.message(),
            field: c.field(),
            index: c.index(),
            name: c.name().map(str::to_string),
        }
    }
}

/// The Python exception for a crate error, with its kind, message,
/// location, diagnostics and context.
pub fn to_py(e: Error) -> PyErr {
    let message = e.message().to_string();
    let text = e.to_string();
    Python::with_gil(|py| {
        let err = new_error(py, class_index(e.kind()), text);
        let value = err.value(py);
        let location = e.location();
        // Setting attributes on a fresh exception instance cannot fail
        // short of memory exhaustion; the exception is raised either way.
        let _ = value.setattr("kind", e.kind().as_str());
        let _ = value.setattr("message", message);
        let _ = value.setattr("line", location.map(|l| l.line));
        let _ = value.setattr("column", location.map(|l| l.one_based_column()));
        let _ = value.setattr("offset", location.map(|l| l.offset));
        let diagnostics = e.diagnostics().iter().map(PyDiagnostic::from);
        if let Ok(diagnostics) = tuple_of(py, diagnostics) {
            let _ = value.setattr("diagnostics", diagnostics);
        }
        let context = e.context().iter().map(PyErrorContext::from);
        if let Ok(context) = tuple_of(py, context) {
            let _ = value.setattr("context", context);
        }
        err
    })
}

/// A tuple of new instances of a Python class.
fn tuple_of<'py, T: PyClass + Into<PyClassInitializer<T>>>(
    py: Python<'py>,
    items: impl Iterator<Item = T>,
) -> PyResult<Bound<'py, PyTuple>> {
    let objects = items
        .map(|item| Bound::new(py, item))
        .collect::<PyResult<Vec<_>>>()?;
    PyTuple::new(py, objects)
}

/// `Result<T, xla_shape::Error>` into `PyResult<T>`.
pub trait IntoPyResult<T> {
    /// Maps the error with [`to_py`].
    fn py(self) -> PyResult<T>;
}

impl<T> IntoPyResult<T> for Result<T, Error> {
    fn py(self) -> PyResult<T> {
        self.map_err(to_py)
    }
}

/// An `InvalidArgumentError` with this message.
pub fn invalid_argument(message: impl Into<String>) -> PyErr {
    to_py(Error::new(ErrorKind::InvalidArgument, message))
}

/// Adds the exception classes to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    for ((name, _), class) in CLASSES.iter().zip(classes(py)?) {
        m.add(*name, class.bind(py))?;
    }
    m.add_class::<PyDiagnostic>()?;
    m.add_class::<PyErrorContext>()?;
    Ok(())
}
