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

impl ErrorKind {
    /// The kind's name, as the CLI's `--json` error objects and the Python
    /// package's `kind` attribute write it: the variant's name
    /// (`"MalformedProto"`), stable across releases. `Display` writes the
    /// same.
    ///
    /// ```
    /// use xla_shape::{ErrorKind, Shape};
    ///
    /// let err = "f32[2,3".parse::<Shape>().unwrap_err();
    /// assert_eq!(err.kind().as_str(), "Parse");
    /// assert_eq!(ErrorKind::MalformedProto.to_string(), "MalformedProto");
    /// ```
    pub const fn as_str(self) -> &'static str {
        // No wildcard: a new variant must be named here.
        match self {
            ErrorKind::Decode => "Decode",
            ErrorKind::MalformedProto => "MalformedProto",
            ErrorKind::InvalidShape => "InvalidShape",
            ErrorKind::InvalidLayout => "InvalidLayout",
            ErrorKind::Parse => "Parse",
            ErrorKind::InvalidArgument => "InvalidArgument",
            ErrorKind::Overflow => "Overflow",
            ErrorKind::Format => "Format",
            ErrorKind::BufferSize => "BufferSize",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
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

impl Location {
    /// The column counted from 1, as the command-line tool and the Python
    /// package show it to people (and as XLA's messages count it after the
    /// first line): `column + 1`.
    ///
    /// ```
    /// let e = xla_shape::text::parse_shape("f32[2,").unwrap_err();
    /// let at = e.location().unwrap();
    /// assert_eq!((at.line, at.column, at.one_based_column()), (1, 6, 7));
    /// ```
    pub const fn one_based_column(&self) -> usize {
        self.column + 1
    }
}

/// Everything that can go wrong in this crate.
///
/// The message is XLA's own text wherever XLA has one, so that it can be
/// searched for: `layout minor_to_major field has duplicate values: {1, 1};
/// shape: f32[2,3]`.
///
/// Errors about text (HLO shapes, JSON) carry their
/// [`diagnostics`](Self::diagnostics): each place that went wrong with its
/// own message, for tools that point at the input; the message of the
/// error is XLA's rendering of them.
///
/// Errors found inside a message nested in others (a shape of an
/// instruction of a computation of an `HloModuleProto`) keep the kind and
/// message of the inner error and carry their [`context`](Self::context):
/// where the error is, as data. `Display` writes the context before the
/// message; without context it writes the message alone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
    message: String,
    /// `None` when there are neither diagnostics nor context, as for most
    /// errors: the error stays small, and so does every `Result` of the
    /// crate.
    details: Option<Box<Details>>,
}

/// What only some errors have.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Details {
    diagnostics: Vec<Diagnostic>,
    context: Vec<ErrorContext>,
}

/// One level of where in a protobuf message an error was found: the
/// message (its full name), the field of it that holds what is in error
/// and, for an element of a repeated field, the element's index and name.
///
/// An error keeps one level per message, outermost first
/// ([`Error::context`]), as prost's `DecodeError` keeps its stack of
/// (message, field) pairs; the levels are data a caller reads, and
/// `Display` renders them in one wording: `not a valid
/// xla.HloModuleProto: computations[2] (main.5): instructions[0] (p):
/// shape: MESSAGE` — the outermost message, then each level's field, with
/// the element's index and name where known.
///
/// ```
/// use xla_shape::{Error, ErrorContext, ErrorKind};
///
/// let inner = Error::new(ErrorKind::Decode, "failed to decode protobuf message: unexpected end of input");
/// let err = inner
///     .in_context(ErrorContext::new("xla.HloComputationProto").in_field("program_shape"))
///     .in_context(
///         ErrorContext::new("xla.HloModuleProto")
///             .in_field("computations")
///             .at_index(2)
///             .named("main.5"),
///     );
/// assert_eq!(err.kind(), ErrorKind::Decode);
/// assert_eq!(err.context()[0].field(), Some("computations"));
/// assert_eq!(err.context()[0].name(), Some("main.5"));
/// assert_eq!(err.context()[1].message(), "xla.HloComputationProto");
/// assert_eq!(
///     err.to_string(),
///     "not a valid xla.HloModuleProto: computations[2] (main.5): program_shape: \
///      failed to decode protobuf message: unexpected end of input"
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ErrorContext {
    message: &'static str,
    field: Option<&'static str>,
    index: Option<usize>,
    name: Option<String>,
}

impl ErrorContext {
    /// In the message `message`, named as the schema names it
    /// (`xla.HloModuleProto`), in none of its fields in particular.
    pub fn new(message: &'static str) -> Self {
        ErrorContext {
            message,
            field: None,
            index: None,
            name: None,
        }
    }

    /// In the field `field` of the message, named as the schema names it
    /// (`computations`).
    pub fn in_field(mut self, field: &'static str) -> Self {
        self.field = Some(field);
        self
    }

    /// In the element `index` (0-based) of the repeated field.
    pub fn at_index(mut self, index: usize) -> Self {
        self.index = Some(index);
        self
    }

    /// In the element named `name` (its own `name` field).
    pub fn named(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// The message's full name (`xla.HloModuleProto`).
    pub fn message(&self) -> &'static str {
        self.message
    }

    /// The field of the message, if the error is in one.
    pub fn field(&self) -> Option<&'static str> {
        self.field
    }

    /// The index of the element of a repeated field.
    pub fn index(&self) -> Option<usize> {
        self.index
    }

    /// The element's name, if it has one and it was read before the error.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }
}

/// One place in parsed text and what is wrong there, as XLA's HLO parser
/// records it (`was parsing 1:9: error: expected ']'`).
///
/// ```
/// use xla_shape::Shape;
/// // XLA (jaxlib 0.10.2) reports `was parsing 1:7: error: expects a list
/// // to end with kRsquare` for this input.
/// let err = "f32[2,3".parse::<Shape>().unwrap_err();
/// let d = &err.diagnostics()[0];
/// assert_eq!((d.location().line, d.location().column), (1, 7));
/// assert_eq!(d.message(), "expects a list to end with kRsquare");
/// assert_eq!(d.to_string(), "was parsing 1:7: error: expects a list to end with kRsquare");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Diagnostic {
    location: Location,
    message: String,
}

impl Diagnostic {
    /// A diagnostic at `location`.
    pub fn new(location: Location, message: impl Into<String>) -> Self {
        Diagnostic {
            location,
            message: message.into(),
        }
    }

    /// Where in the text.
    pub fn location(&self) -> Location {
        self.location
    }

    /// What is wrong there.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// XLA's column number: 0-based on the first line and 1-based on the
    /// others, a quirk of its lexer that its messages keep.
    pub fn xla_column(&self) -> usize {
        self.location.column + usize::from(self.location.line > 1)
    }
}

impl Diagnostic {
    /// What `Display` prints, into any writer, by whole pieces and digits
    /// rather than through `fmt`'s machinery: a shape string that fails to
    /// parse spent a third of its message's cost there.
    pub(crate) fn write_to(&self, out: &mut impl fmt::Write) -> fmt::Result {
        out.write_str("was parsing ")?;
        write_decimal(out, self.location.line)?;
        out.write_char(':')?;
        write_decimal(out, self.xla_column())?;
        out.write_str(": error: ")?;
        out.write_str(&self.message)
    }
}

/// `n` in decimal.
fn write_decimal(out: &mut impl fmt::Write, mut n: usize) -> fmt::Result {
    let mut digits = [0u8; 20];
    let mut start = digits.len();
    loop {
        start -= 1;
        digits[start] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.write_str(std::str::from_utf8(&digits[start..]).map_err(|_| fmt::Error)?)
}

impl fmt::Display for Diagnostic {
    /// XLA's `was parsing L:C: error: MSG` (`HloLexer::GetLineAndColumn`,
    /// `HloParserImpl::Error`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_to(f)
    }
}

impl Error {
    /// An error of `kind` with `message`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error {
            kind,
            message: message.into(),
            details: None,
        }
    }

    /// This error, located at `location` in parsed text: one diagnostic
    /// with the error's message.
    pub fn at(self, location: Location) -> Self {
        let diagnostic = Diagnostic::new(location, self.message.clone());
        self.with_diagnostics(vec![diagnostic])
    }

    /// This error, with the diagnostics it renders (`message` is their
    /// rendering).
    pub(crate) fn with_diagnostics(self, diagnostics: Vec<Diagnostic>) -> Self {
        self.with_details(|d| d.diagnostics = diagnostics)
    }

    /// This error with its details changed by `f` (none kept when empty).
    fn with_details(mut self, f: impl FnOnce(&mut Details)) -> Self {
        let mut details = self.details.take().unwrap_or_default();
        f(&mut details);
        if !details.diagnostics.is_empty() || !details.context.is_empty() {
            self.details = Some(details);
        }
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
        self.diagnostics().last().map(Diagnostic::location)
    }

    /// Every place in parsed text that went wrong, in the order found,
    /// each with its own message (empty for errors not about text). For a
    /// parse error these are the `was parsing` lines of the message, which
    /// a tool can show its own way without reading the message back.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        self.details.as_ref().map_or(&[], |d| &d.diagnostics)
    }

    /// Where in a message nested in others the error was found, one level
    /// per message, outermost first (empty for errors found at the top).
    pub fn context(&self) -> &[ErrorContext] {
        self.details.as_ref().map_or(&[], |d| &d.context)
    }

    /// This error, found inside `context`: the new outermost level. The
    /// kind, message and diagnostics stay.
    pub fn in_context(self, context: ErrorContext) -> Self {
        self.with_details(|d| d.context.insert(0, context))
    }

    /// Input nested deeper than [`MAX_NESTING_DEPTH`](crate::MAX_NESTING_DEPTH),
    /// the one limit of every decoder and parser: `context` starts the
    /// message (`"failed to decode protobuf message: "`), `what` says what
    /// was counted, in one wording: `shape nesting exceeds the limit of 100
    /// levels` or `message nesting exceeds the limit of 100 levels`.
    ///
    /// The wording is the crate's own: XLA's HLO parser has no depth limit,
    /// and Google's runtimes word theirs per layer (upb: `Exceeded
    /// upb_DecodeOptions_MaxDepth`; `json_format.Parse`: `Message too deep.
    /// Max recursion depth is 100`, which the JSON reader keeps).
    pub(crate) fn too_deep(kind: ErrorKind, context: &str, what: Nesting) -> Self {
        Self::new(kind, too_deep_message(context, what))
    }
}

/// The crate's shorthand for an error of a common kind:
/// `Error::decode(message)` is `Error::new(ErrorKind::Decode, message)`.
macro_rules! kind_constructors {
    ($($name:ident => $kind:ident,)*) => {
        impl Error {
            $(
                pub(crate) fn $name(message: impl Into<String>) -> Self {
                    Self::new(ErrorKind::$kind, message)
                }
            )*
        }
    };
}

kind_constructors! {
    decode => Decode,
    malformed => MalformedProto,
    invalid_shape => InvalidShape,
    invalid_layout => InvalidLayout,
    invalid_argument => InvalidArgument,
    overflow => Overflow,
}

/// The message of [`Error::too_deep`], for the HLO parser, which collects
/// messages before it makes its error.
pub(crate) fn too_deep_message(context: &str, what: Nesting) -> String {
    let limit = crate::limits::MAX_NESTING_DEPTH;
    match what {
        Nesting::Shape => format!("{context}shape nesting exceeds the limit of {limit} levels"),
        Nesting::Messages => {
            format!("{context}message nesting exceeds the limit of {limit} levels")
        }
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
    /// The message; after the context, if any (see [`ErrorContext`]).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let context = self.context();
        if let Some(outer) = context.first() {
            write!(f, "not a valid {}: ", outer.message)?;
            for level in context {
                let Some(field) = level.field else { continue };
                f.write_str(field)?;
                if let Some(index) = level.index {
                    write!(f, "[{index}]")?;
                }
                if let Some(name) = &level.name {
                    write!(f, " ({name})")?;
                }
                f.write_str(": ")?;
            }
        }
        f.write_str(&self.message)
    }
}

/// No source: every error of the crate is reported where it is found.
/// (A derive crate would add nothing to this one line.)
impl std::error::Error for Error {}

impl From<prost::DecodeError> for Error {
    fn from(e: prost::DecodeError) -> Self {
        Error::decode(format!("failed to decode protobuf message: {e}"))
    }
}

/// `Result<T, xla_shape::Error>`.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    /// `as_str` is the variant's name, which the CLI's JSON wrote (as the
    /// `Debug` form) before there was `as_str`: its output stays.
    #[test]
    fn kind_names_are_the_variant_names() {
        for kind in [
            ErrorKind::Decode,
            ErrorKind::MalformedProto,
            ErrorKind::InvalidShape,
            ErrorKind::InvalidLayout,
            ErrorKind::Parse,
            ErrorKind::InvalidArgument,
            ErrorKind::Overflow,
            ErrorKind::Format,
            ErrorKind::BufferSize,
        ] {
            assert_eq!(kind.as_str(), format!("{kind:?}"));
            assert_eq!(kind.to_string(), kind.as_str());
        }
    }

    /// Errors are returned on every path of the crate: the rare details
    /// sit behind one pointer, and an error with none equals a new one.
    #[test]
    fn errors_stay_small() {
        assert!(std::mem::size_of::<Error>() <= 40);
        let plain = Error::new(ErrorKind::Parse, "m");
        assert_eq!(plain.clone().with_diagnostics(Vec::new()), plain);
        let at = Location {
            line: 1,
            column: 2,
            offset: 2,
        };
        let located = plain.clone().at(at);
        assert_ne!(located, plain);
        assert_eq!(located.location(), Some(at));
        assert_eq!(located.context(), []);
    }

    /// Without context, `Display` is the message; levels without a field
    /// name only the outermost message.
    #[test]
    fn display_writes_the_context_before_the_message() {
        let e = Error::new(ErrorKind::Overflow, "too big");
        assert_eq!(e.to_string(), "too big");
        let e = e.in_context(ErrorContext::new("xla.HloModuleProto"));
        assert_eq!(e.to_string(), "not a valid xla.HloModuleProto: too big");
        assert_eq!(e.message(), "too big");
        let e = Error::new(ErrorKind::Decode, "m")
            .in_context(ErrorContext::new("b.B").in_field("f").named("n"))
            .in_context(ErrorContext::new("a.A").in_field("g").at_index(3));
        assert_eq!(e.to_string(), "not a valid a.A: g[3]: f (n): m");
        assert_eq!(e.context()[1].index(), None);
    }
}
