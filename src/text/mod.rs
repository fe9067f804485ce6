//! HLO text syntax for shapes and layouts, as XLA writes and reads it.
//!
//! - Printing: the `Display` impls of [`Shape`] (`ShapeUtil::HumanStringWithLayout`;
//!   `{:#}` is `HumanString`, without layouts), [`Layout`] (`Layout::ToString`),
//!   [`Tile`](crate::Tile), [`SplitConfig`](crate::SplitConfig),
//!   [`ShapeIndex`](crate::ShapeIndex) and [`ProgramShape`].
//! - Parsing: `str::parse::<Shape>()` is XLA's `ParseShape`,
//!   `str::parse::<Layout>()` its `ParseLayout`, over the whole grammar of
//!   XLA's HLO parser (comments and whitespace between tokens, `<=N` and `?`
//!   dimensions, `*` tile bounds, `D(...)` accepted and discarded, buffers,
//!   nested tuples). [`parse_shape_with`] can leave missing layouts absent.
//!   `str::parse::<ProgramShape>()` ([`parse_program_shape`]) reads both
//!   forms XLA prints program shapes in.
//! - Scanning: [`shapes_in_hlo`] finds every shape string in the text of an
//!   HLO module.
//!
//! Errors are [`ErrorKind::Parse`](crate::ErrorKind::Parse) with XLA's text
//! and position and a [`Location`]:
//!
//! ```
//! use xla_shape::{Layout, Shape};
//! let s: Shape = "bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}".parse()?;
//! assert_eq!(s.to_string(), "bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}");
//! assert_eq!("f32[2,3]".parse::<Shape>()?.to_string(), "f32[2,3]{1,0}");
//!
//! let err = "f32[2]{0,:T(2)}".parse::<Shape>().unwrap_err();
//! assert_eq!(
//!     err.message(),
//!     "Syntax error:\nwas parsing 1:9: error: expects integer\nf32[2]{0,:T(2)}\n         ^"
//! );
//! assert_eq!(err.location().map(|l| l.column), Some(9));
//!
//! let l: Layout = "{1,0:T(8,128)S(1)}".parse()?;
//! assert_eq!(l.memory_space(), 1);
//! # Ok::<(), xla_shape::Error>(())
//! ```
//!
//! Where this differs from XLA (it never holds an invalid shape, so it
//! rejects some strings XLA's parser lets through; it reports an error
//! where XLA aborts): see `docs/differences.md ("HLO text")`.

mod fast;
pub(crate) mod lexer;
pub(crate) mod parser;
pub(crate) use parser::ShapeAt;
mod scan;

use std::str::FromStr;

use crate::error::{Error, Location, Result};
use crate::model::layout::Layout;
use crate::model::program_shape::ProgramShape;
use crate::model::shape::{ArrayShape, Shape};

pub use parser::ParseOptions;
pub use scan::{HloShape, HloShapes, ShapeRole, shapes_in_hlo, shapes_in_hlo_with};

/// XLA's `ParseShape` with `options`.
///
/// # Errors
///
/// [`ErrorKind::Parse`](crate::ErrorKind::Parse), with XLA's message and
/// position, for text that does not parse, and for shapes that XLA's
/// parser accepts but that are not valid (`f32[2,3]{0,0}`), with XLA's
/// validation message.
#[inline]
pub fn parse_shape_with(text: &str, options: &ParseOptions) -> Result<Shape> {
    // Read into the caller's result, which holds a placeholder until then:
    // inlined, this leaves the shape where the caller keeps it. Returned
    // from a function that read it into a local, the 256-byte `Shape` was
    // copied right after its fields were written, and the copy's wide
    // loads waited for those narrow stores.
    let mut result = Ok(Shape::Token);
    read_shape_into(text, options, &mut result);
    result
}

/// [`parse_shape_with`] into `result`.
#[inline(never)]
fn read_shape_into(text: &str, options: &ParseOptions, result: &mut Result<Shape>) {
    let fast = match result {
        Ok(shape) => fast::parse_prefix_into(text, options.fill_missing_layouts, shape),
        Err(_) => None,
    };
    if fast != Some(text.len()) {
        *result = parser::parse_shape(text, options);
    }
}

/// XLA's `ParseShape` on the shape that starts at `offset` of `text`, whose
/// line is `line`, starting at offset `line_start`: the outcome and the
/// offset just past the shape's last token.
pub(crate) fn parse_shape_at(
    text: &str,
    offset: usize,
    line: usize,
    line_start: usize,
    options: &ParseOptions,
) -> (ShapeAt, usize) {
    // XLA prints shapes without spaces but in tuples: try the fast path,
    // unless what follows could continue the shape for the full parser (a
    // layout after a space or a comment).
    let rest = &text[offset..];
    let mut shape = Shape::slot();
    if let Some(len) = fast::parse_prefix_into(rest, options.fill_missing_layouts, &mut shape) {
        let after = &rest[len..];
        let next = after.trim_start_matches([' ', '\t', '\n', '\r']);
        let ends = match after.as_bytes().first() {
            None | Some(b',') => true,
            Some(b' ' | b'\t' | b'\n' | b'\r') => !next.starts_with(['{', '/']),
            Some(_) => false,
        };
        if ends {
            return (ShapeAt::Valid(shape), offset + len);
        }
    }
    let at = Location {
        line,
        column: offset - line_start,
        offset,
    };
    parser::parse_shape_at(text, at, options)
}

/// XLA's `ParseShape` (missing layouts are filled with the default
/// layout); the same as `text.parse::<Shape>()`.
///
/// # Errors
///
/// As [`parse_shape_with`].
#[doc(alias = "ParseShape")]
#[inline]
pub fn parse_shape(text: &str) -> Result<Shape> {
    parse_shape_with(text, &ParseOptions::default())
}

/// XLA's `ParseLayout`; the same as `text.parse::<Layout>()`.
///
/// A layout on its own is not checked against a shape, so
/// `{0,0}`, `{0:T(0)}` or `{0:#(s32)}` parse, as in XLA.
///
/// # Errors
///
/// [`ErrorKind::Parse`](crate::ErrorKind::Parse) for text that does not
/// parse, and for what a [`Layout`] cannot hold: a physical shape that is
/// not a valid shape, a negative tile bound other than `*`, `L(n)` with
/// `n < 1` (XLA aborts on the last two).
#[doc(alias = "ParseLayout")]
pub fn parse_layout(text: &str) -> Result<Layout> {
    parser::parse_layout(text)
}

/// A program shape as XLA prints it: `ProgramShape::ToString` and a
/// computation's signature, `(x: f32[2], y: s32[]) -> f32[2]` (read as
/// XLA's `ParseParamListToShape` reads a signature), or the unnamed form of
/// `entry_computation_layout`, `(f32[2]{0}, s32[])->f32[2]{0}` (as XLA's
/// `ParseComputationLayout` reads it, without its braces); the same as
/// `text.parse::<ProgramShape>()`.
///
/// Parameters of the unnamed form have empty names, as do those written
/// `(unknown): shape`, which is how `ProgramShape::ToString` prints an
/// empty name. Arrays written without a layout get the default layout, as
/// in [`parse_shape`].
///
/// ```
/// use xla_shape::ProgramShape;
/// let p: ProgramShape = "(x: f32[2,3], y: s32[]) -> f32[3]".parse()?;
/// assert_eq!(p.parameter_names(), ["x", "y"]);
/// assert_eq!(p.parameters()[0].to_string(), "f32[2,3]{1,0}");
/// assert_eq!(p.to_string(), "(x: f32[2,3], y: s32[]) -> f32[3]");
///
/// let layout: ProgramShape = "(f32[2,3]{0,1}, s32[])->f32[3]{0}".parse()?;
/// assert_eq!(layout.parameter_names(), ["", ""]);
/// assert_eq!(layout.parameters()[0].to_string(), "f32[2,3]{0,1}");
/// # Ok::<(), xla_shape::Error>(())
/// ```
///
/// # Errors
///
/// [`ErrorKind::Parse`](crate::ErrorKind::Parse) with XLA's message and
/// position (`expects '->'`, `Expects , between parameter shapes`, ...),
/// and as [`parse_shape`] for each shape.
pub fn parse_program_shape(text: &str) -> Result<ProgramShape> {
    parser::parse_program_shape(text)
}

impl FromStr for ProgramShape {
    type Err = Error;

    /// See [`parse_program_shape`].
    fn from_str(s: &str) -> Result<ProgramShape> {
        parse_program_shape(s)
    }
}

impl FromStr for Shape {
    type Err = Error;

    /// XLA's `ParseShape`: see [`parse_shape`].
    #[inline]
    fn from_str(s: &str) -> Result<Shape> {
        parse_shape(s)
    }
}

impl FromStr for ArrayShape {
    type Err = Error;

    /// XLA's `ParseShape`, for an array shape.
    ///
    /// # Errors
    ///
    /// As [`parse_shape`]; [`InvalidArgument`](crate::ErrorKind::InvalidArgument)
    /// for a shape that is not an array.
    ///
    /// ```
    /// use xla_shape::ArrayShape;
    /// let a: ArrayShape = "f32[2,3]{0,1}".parse()?;
    /// assert_eq!(a.dimensions(), [2, 3]);
    /// assert!("(f32[2])".parse::<ArrayShape>().is_err());
    /// # Ok::<(), xla_shape::Error>(())
    /// ```
    fn from_str(s: &str) -> Result<ArrayShape> {
        ArrayShape::try_from(parse_shape(s)?)
    }
}

impl FromStr for Layout {
    type Err = Error;

    /// XLA's `ParseLayout`: see [`parse_layout`].
    fn from_str(s: &str) -> Result<Layout> {
        parse_layout(s)
    }
}
