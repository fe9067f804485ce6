//! The exception hierarchy: one base class, a `ValueError`, and one
//! subclass per `xla_shape::ErrorKind`.

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use xla_shape::{Error, ErrorKind};

create_exception!(
    xla_shape,
    XlaShapeError,
    PyValueError,
    "Base class of every error this package raises about shapes, layouts, \
     protos, text and buffers; a ValueError. Attributes: `message` (XLA's text \
     where XLA has one), `line`, `column` and `offset` (for text that does not \
     parse; otherwise None)."
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

/// The Python exception for a crate error, with its message and location.
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
        let _ = value.setattr("message", message);
        let _ = value.setattr("line", location.map(|l| l.line));
        let _ = value.setattr("column", location.map(|l| l.column));
        let _ = value.setattr("offset", location.map(|l| l.offset));
    });
    err
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
    m.add("InvalidArgumentError", py.get_type::<InvalidArgumentError>())?;
    m.add("SizeOverflowError", py.get_type::<SizeOverflowError>())?;
    m.add("FormatError", py.get_type::<FormatError>())?;
    m.add("BufferSizeError", py.get_type::<BufferSizeError>())?;
    Ok(())
}
