//! The exception hierarchy: one base class, a `ValueError`, and one
//! subclass per `xla_shape::ErrorKind`.

use pyo3::PyClass;
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::pyclass_init::PyClassInitializer;
use pyo3::types::PyTuple;
use xla_shape::{Diagnostic, Error, ErrorContext, ErrorKind};

create_exception!(
    xla_shape,
    XlaShapeError,
    PyValueError,
    "Base class of every error this package raises about shapes, layouts, \
     protos, text and buffers; a ValueError. Attributes: `kind` (the Rust \
     crate's ErrorKind name, such as \"Parse\"), `message` (XLA's text where \
     XLA has one, without the context), `line`, `column` and `offset` (for \
     text that does not parse: the place of the last diagnostic; otherwise \
     None), `diagnostics` (a tuple of Diagnostic: each place in the text \
     that went wrong) and `context` (a tuple of ErrorContext: where in a \
     nested message the error was found, outermost first). str() of the \
     error is the message after its context."
);
create_exception!(
    xla_shape,
    DecodeError,
    XlaShapeError,
    "Bytes that are not a well-formed protobuf message."
);
create_exception!(
    xla_shape,
    MalformedProtoError,
    XlaShapeError,
    "A well-formed message that XLA's FromProto rejects (a RET_CHECK failure)."
);
create_exception!(
    xla_shape,
    InvalidShapeError,
    XlaShapeError,
    "A shape that XLA's ValidateShape rejects."
);
create_exception!(
    xla_shape,
    InvalidLayoutError,
    XlaShapeError,
    "A layout that is not valid for its shape (XLA's ValidateLayoutForShape)."
);
create_exception!(
    xla_shape,
    ParseError,
    XlaShapeError,
    "HLO text that does not parse; `line` (1-based), `column` (0-based, in \
     bytes) and `offset` say where."
);
create_exception!(
    xla_shape,
    InvalidArgumentError,
    XlaShapeError,
    "A bad argument to a constructor or utility function."
);
create_exception!(
    xla_shape,
    SizeOverflowError,
    XlaShapeError,
    "Arithmetic on sizes or offsets that would overflow a signed 64-bit integer."
);
create_exception!(
    xla_shape,
    FormatError,
    XlaShapeError,
    "JSON or protobuf text format that does not parse or does not fit the schema."
);
create_exception!(
    xla_shape,
    BufferSizeError,
    XlaShapeError,
    "Array data whose buffer length does not fit its shape and layout."
);

/// One place in parsed text and what is wrong there: an element of
/// `XlaShapeError.diagnostics`.
#[pyclass(name = "Diagnostic", module = "xla_shape", frozen, eq)]
#[derive(PartialEq)]
pub struct PyDiagnostic {
    /// 1-based line.
    #[pyo3(get)]
    line: usize,
    /// 0-based byte column within the line, as `XlaShapeError.column`.
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
            column: at.column,
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
    let err = match e.kind() {
        ErrorKind::Decode => DecodeError::new_err(text),
        ErrorKind::MalformedProto => MalformedProtoError::new_err(text),
        ErrorKind::InvalidShape => InvalidShapeError::new_err(text),
        ErrorKind::InvalidLayout => InvalidLayoutError::new_err(text),
        ErrorKind::Parse => ParseError::new_err(text),
        ErrorKind::InvalidArgument => InvalidArgumentError::new_err(text),
        ErrorKind::Overflow => SizeOverflowError::new_err(text),
        ErrorKind::Format => FormatError::new_err(text),
        ErrorKind::BufferSize => BufferSizeError::new_err(text),
        _ => XlaShapeError::new_err(text),
    };
    Python::with_gil(|py| {
        let value = err.value(py);
        let location = e.location();
        // Setting attributes on a fresh exception instance cannot fail
        // short of memory exhaustion; the exception is raised either way.
        let _ = value.setattr("kind", e.kind().as_str());
        let _ = value.setattr("message", message);
        let _ = value.setattr("line", location.map(|l| l.line));
        let _ = value.setattr("column", location.map(|l| l.column));
        let _ = value.setattr("offset", location.map(|l| l.offset));
        let diagnostics = e.diagnostics().iter().map(PyDiagnostic::from);
        if let Ok(diagnostics) = tuple_of(py, diagnostics) {
            let _ = value.setattr("diagnostics", diagnostics);
        }
        let context = e.context().iter().map(PyErrorContext::from);
        if let Ok(context) = tuple_of(py, context) {
            let _ = value.setattr("context", context);
        }
    });
    err
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
    m.add("XlaShapeError", py.get_type::<XlaShapeError>())?;
    m.add("DecodeError", py.get_type::<DecodeError>())?;
    m.add("MalformedProtoError", py.get_type::<MalformedProtoError>())?;
    m.add("InvalidShapeError", py.get_type::<InvalidShapeError>())?;
    m.add("InvalidLayoutError", py.get_type::<InvalidLayoutError>())?;
    m.add("ParseError", py.get_type::<ParseError>())?;
    m.add(
        "InvalidArgumentError",
        py.get_type::<InvalidArgumentError>(),
    )?;
    m.add("SizeOverflowError", py.get_type::<SizeOverflowError>())?;
    m.add("FormatError", py.get_type::<FormatError>())?;
    m.add("BufferSizeError", py.get_type::<BufferSizeError>())?;
    m.add_class::<PyDiagnostic>()?;
    m.add_class::<PyErrorContext>()?;
    Ok(())
}
