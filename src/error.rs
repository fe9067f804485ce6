//! The crate's one error type.

use std::fmt;

/// What kind of failure an [`Error`] reports; match on it, read the message
/// for the details.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// Bytes that are not a well-formed protobuf message (truncated, wrong
    /// wire type, nesting deeper than the recursion limit, ...).
    Decode,
    /// A message that is well-formed protobuf but that XLA's `FromProto`
    /// rejects (XLA's `RET_CHECK` failures), such as a tuple with a layout.
    MalformedProto,
    /// A shape that XLA's `ValidateShape` rejects: invalid element type,
    /// negative dimension, size overflow.
    InvalidShape,
    /// A layout that is not valid for its shape (XLA's
    /// `ValidateLayoutForShape`): wrong length, duplicates, bad tiles, ...
    InvalidLayout,
    /// HLO text that does not parse; the error has a [`Location`].
    Parse,
    /// A bad argument to a constructor or utility function, with XLA's
    /// message where XLA has one (`Invalid dimension size -1, ...`).
    InvalidArgument,
    /// Arithmetic on sizes or offsets that would overflow `i64`.
    Overflow,
    /// JSON or protobuf text format that does not parse or does not fit the
    /// schema.
    Format,
    /// Array data whose buffer length does not fit its shape and layout.
    BufferSize,
}

/// A place in parsed text: line 1-based, column 0-based in bytes within
/// the line, and the byte offset from the start of the text.
///
/// XLA's messages (`was parsing 1:9: error: ...`) write the column 0-based
/// on the first line and 1-based on the others (a quirk of its lexer); the
/// messages of this crate keep XLA's numbers, this struct does not.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Location {
    /// 1-based line number.
    pub line: usize,
    /// 0-based byte column within the line.
    pub column: usize,
    /// 0-based byte offset from the start of the text.
    pub offset: usize,
}

/// Everything that can go wrong in this crate.
///
/// The message is XLA's own text wherever XLA has one, so that it can be
/// searched for: `layout minor_to_major field has duplicate values: {1, 1};
/// shape: f32[2,3]`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct Error {
    kind: ErrorKind,
    message: String,
    location: Option<Location>,
}

impl Error {
    /// An error of `kind` with `message`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error {
            kind,
            message: message.into(),
            location: None,
        }
    }

    /// This error, located at `location` in parsed text.
    pub fn at(mut self, location: Location) -> Self {
        self.location = Some(location);
        self
    }

    /// What kind of failure this is.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The message, without any kind prefix.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Where in parsed text the error was found: for a parse error, the
    /// place of the last message, the one that stopped the parse.
    pub fn location(&self) -> Option<Location> {
        self.location
    }

    pub(crate) fn decode(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Decode, message)
    }
    pub(crate) fn malformed(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::MalformedProto, message)
    }
    pub(crate) fn invalid_shape(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::InvalidShape, message)
    }
    pub(crate) fn invalid_layout(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::InvalidLayout, message)
    }
    pub(crate) fn invalid_argument(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::InvalidArgument, message)
    }
    pub(crate) fn overflow(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Overflow, message)
    }

    /// Input nested deeper than [`MAX_NESTING_DEPTH`](crate::MAX_NESTING_DEPTH),
    /// the one limit of every decoder and parser: `context` starts the
    /// message (`"failed to decode protobuf message: "`), `what` says what
    /// was counted.
    pub(crate) fn too_deep(kind: ErrorKind, context: &str, what: Nesting) -> Self {
        let limit = crate::MAX_NESTING_DEPTH;
        Self::new(
            kind,
            match what {
                Nesting::Shape => {
                    format!("{context}shape nesting exceeds the limit of {limit} levels")
                }
                Nesting::Messages => {
                    format!("{context}messages nested more than {limit} levels deep")
                }
            },
        )
    }
}

/// What [`Error::too_deep`] counted: the levels of a shape (HLO text, a
/// `ShapeProto` built in memory) or the messages of any protobuf input.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Nesting {
    Shape,
    Messages,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl From<prost::DecodeError> for Error {
    fn from(e: prost::DecodeError) -> Self {
        Error::decode(format!("failed to decode protobuf message: {e}"))
    }
}

/// `Result<T, xla_shape::Error>`.
pub type Result<T, E = Error> = std::result::Result<T, E>;
