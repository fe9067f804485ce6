//! XLA's `ParseShape` / `ParseLayout` (`xla/hlo/parser/hlo_parser.cc`),
//! ported token for token so that what XLA accepts, what it records as an
//! error and where, and the order of its messages are the same.
//!
//! Two things are added on top, because a [`Shape`] here is always valid:
//! every array is validated as soon as it is complete (XLA validates only
//! tuple elements, and nothing at the top level), and the inputs on which
//! XLA aborts (`token[2]`, `L(0)`, `T(-1)`) are errors. Every failure has at
//! least one message; XLA's silent failures get ours.

use std::borrow::Cow;

use crate::error::{Diagnostic, Error, ErrorKind, Location, Nesting, too_deep_message};
use crate::limits::MAX_NESTING_DEPTH;
use crate::model::display;
use crate::model::inline::{Dims, DynamicFlags};
use crate::model::layout::{Layout, Rare};
use crate::model::primitive_type::PrimitiveType;
use crate::model::program_shape::ProgramShape;
use crate::model::shape::{ArrayShape, Shape};
use crate::model::tile::{SplitConfig, Tile, Tiles, check_tile_bounds};
use crate::model::validate;
use crate::text::lexer::{Lexer, Tok};

/// Options of the shape parser (the shape-related part of XLA's
/// `HloParserOptions`).
///
/// ```
/// use xla_shape::text::{parse_shape_with, ParseOptions};
/// let keep = ParseOptions { fill_missing_layouts: false };
/// let s = parse_shape_with("(f32[2,3], f32[])", &keep).unwrap();
/// assert!(s.tuple_shapes().unwrap()[0].layout().is_none());
/// assert_eq!(s.to_string(), "(f32[2,3], f32[])");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ParseOptions {
    /// Give every array written without a layout XLA's default
    /// (descending) layout, as XLA's parser does by default
    /// (`fill_missing_layouts`). When false, such arrays have no layout,
    /// except scalars, which get the empty layout `{}` either way, as in XLA.
    pub fill_missing_layouts: bool,
}

impl Default for ParseOptions {
    /// XLA's defaults: missing layouts are filled.
    fn default() -> Self {
        ParseOptions {
            fill_missing_layouts: true,
        }
    }
}

/// What a failed `ParseShape` leaves in its output shape, for the one
/// message that prints it (`Layout has physical shape, ...`): `None` is
/// XLA's invalid `Shape()`. Never handed to a caller.
type Partial = Option<Box<Shape>>;

/// A parsed layout, before it is put on a shape.
pub(crate) struct ParsedLayout {
    pub(crate) layout: Layout,
    /// `P(...)`: the shape, or what its failed parse left.
    pub(crate) physical: Option<Box<Result<Shape, Partial>>>,
}

pub(crate) struct Parser<'a> {
    text: &'a str,
    pub(crate) lx: Lexer<'a>,
    errors: Vec<(usize, Cow<'static, str>)>,
    fill_missing_layouts: bool,
    /// How many arrays failed the validation that XLA leaves to the caller.
    /// Such an array is still returned as parsed, so that the parse goes on
    /// as XLA's does (and reports what XLA reports after it); the caller
    /// must not hand out a shape parsed while this is non-zero.
    pub(crate) invalid_arrays: usize,
    /// The validation error of the first such array, at its position.
    first_invalid: Option<Error>,
    /// A place whose line is known; positions at or after its offset are
    /// counted from there.
    pub(crate) origin: Location,
    /// Whether the parse stopped at [`MAX_NESTING_DEPTH`].
    pub(crate) too_deep: bool,
    /// The offsets of the `(` of the tuples that were open when the parse
    /// failed, innermost first. A parse started at one of them fails the
    /// same way (it reads the same tokens), which the HLO scanner uses to
    /// try each `(` at most once.
    pub(crate) failed_tuples: Vec<usize>,
}

/// The start of a text: line 1, column 0.
const TEXT_START: Location = Location {
    line: 1,
    column: 0,
    offset: 0,
};

impl<'a> Parser<'a> {
    /// A parser whose first token is the one at or after `offset`.
    pub(crate) fn new(text: &'a str, offset: usize, options: &ParseOptions) -> Self {
        let mut lx = Lexer::new(text.as_bytes(), offset);
        lx.lex();
        Parser {
            text,
            lx,
            errors: Vec::new(),
            fill_missing_layouts: options.fill_missing_layouts,
            invalid_arrays: 0,
            first_invalid: None,
            origin: TEXT_START,
            too_deep: false,
            failed_tuples: Vec::new(),
        }
    }

    // ---------------------------------------------------------------- helpers

    pub(crate) fn error_at(&mut self, offset: usize, message: impl Into<Cow<'static, str>>) {
        self.errors.push((offset, message.into()));
    }

    /// XLA's `TokenError`: an error at the current token.
    pub(crate) fn token_error(&mut self, message: impl Into<Cow<'static, str>>) {
        self.error_at(self.lx.start, message);
    }

    /// XLA's `ParseToken`.
    pub(crate) fn expect(&mut self, kind: Tok, message: &'static str) -> bool {
        if self.lx.kind != kind {
            self.token_error(message);
            return false;
        }
        self.lx.lex();
        true
    }

    /// `expect` with a message built only when needed.
    pub(crate) fn expect_with(&mut self, kind: Tok, message: impl FnOnce() -> String) -> bool {
        if self.lx.kind != kind {
            self.token_error(message());
            return false;
        }
        self.lx.lex();
        true
    }

    /// XLA's `EatIfPresent`.
    #[inline]
    pub(crate) fn eat(&mut self, kind: Tok) -> bool {
        if self.lx.kind != kind {
            return false;
        }
        self.lx.lex();
        true
    }

    /// XLA's `ParseInt64`.
    #[inline]
    pub(crate) fn parse_int(&mut self) -> Option<i64> {
        if self.lx.kind != Tok::Int {
            self.token_error("expects integer");
            return None;
        }
        let v = self.lx.int;
        self.lx.lex();
        Some(v)
    }

    /// XLA's `ParseList(start, end, ',', item)`.
    pub(crate) fn parse_list(
        &mut self,
        start: Tok,
        end: Tok,
        mut item: impl FnMut(&mut Self) -> bool,
    ) -> bool {
        let (start_message, end_message) = match (start, end) {
            (Tok::Lsquare, _) => (
                "expects a list starting with kLsquare",
                "expects a list to end with kRsquare",
            ),
            (Tok::Lbrace, _) => (
                "expects a list starting with kLbrace",
                "expects a list to end with kRbrace",
            ),
            (Tok::Colon, _) => (
                "expects a list starting with kColon",
                "expects a list to end with kRparen",
            ),
            _ => (
                "expects a list starting with kLparen",
                "expects a list to end with kRparen",
            ),
        };
        if !self.expect(start, start_message) {
            return false;
        }
        if self.lx.kind != end {
            loop {
                if !item(self) {
                    return false;
                }
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
        }
        self.expect(end, end_message)
    }

    /// XLA's `ParsePrimitiveType`.
    fn parse_primitive_type(&mut self) -> Option<PrimitiveType> {
        if self.lx.kind != Tok::PrimitiveType {
            let saw = self.lx.kind.name();
            self.token_error(format!("expected primitive type, saw {saw}"));
            return None;
        }
        let t = self.lx.ty;
        self.lx.lex();
        Some(t)
    }

    // ----------------------------------------------------------------- shapes

    /// Records that the input nests deeper than [`MAX_NESTING_DEPTH`]
    /// at `offset`.
    fn too_deep_at(&mut self, offset: usize) {
        self.too_deep = true;
        self.error_at(offset, too_deep_message("", Nesting::Shape));
    }

    /// XLA's `ParseShape`. `depth` counts the levels this shape is nested
    /// in as its `ShapeProto` would be ([`MAX_NESTING_DEPTH`]): a tuple
    /// element or buffer one more than its parent, a layout one more than
    /// its array, the tiles, split configs and physical shape of a layout
    /// one more than the layout.
    pub(crate) fn parse_shape(&mut self, depth: usize) -> Result<Shape, Partial> {
        let start = self.lx.start;
        if depth > MAX_NESTING_DEPTH {
            self.too_deep_at(start);
            return Err(None);
        }
        if self.lx.is_ident(b"b") && self.lx.look_ahead() == Tok::Lparen {
            self.lx.lex();
            self.lx.lex();
            let inner = self.parse_shape(depth + 1).map_err(|_| None)?;
            if !inner.is_array() {
                // XLA: MakeValidatedBufferShape fails, with no message.
                self.error_at(
                    start,
                    format!("expects an array shape inside b(...), got {inner}"),
                );
                return Err(None);
            }
            let buffer = Shape::Buffer(Box::new(inner));
            if !self.expect(Tok::Rparen, "expects ')' at the end of buffer shape.") {
                return Err(Some(Box::new(buffer)));
            }
            return Ok(buffer);
        }
        if self.eat(Tok::Lparen) {
            let invalid_before = self.invalid_arrays;
            let mut elements = Vec::new();
            if self.lx.kind != Tok::Rparen {
                loop {
                    match self.parse_shape(depth + 1) {
                        Ok(element) => elements.push(element),
                        Err(_) => return Err(self.tuple_failed(start, None)),
                    }
                    if !self.eat(Tok::Comma) {
                        break;
                    }
                }
            }
            if self.invalid_arrays != invalid_before {
                // XLA: MakeValidatedTupleShape fails, with no message.
                return Err(self.tuple_failed(start, None));
            }
            let tuple = Shape::Tuple(elements);
            if !self.expect(Tok::Rparen, "expects ')' at the end of tuple.") {
                return Err(self.tuple_failed(start, Some(Box::new(tuple))));
            }
            return Ok(tuple);
        }
        let t = self.parse_primitive_type().ok_or(None)?;
        self.parse_array(t, start, depth)
    }

    /// Records that the tuple whose `(` is at `start` failed (see
    /// [`failed_tuples`](Self::failed_tuples)), and passes on `partial`.
    #[cold]
    fn tuple_failed(&mut self, start: usize, partial: Partial) -> Partial {
        // After a too-deep failure the scanner skips every `(` anyway.
        if !self.too_deep {
            self.failed_tuples.push(start);
        }
        partial
    }

    /// The rest of an array, token or opaque shape after its type keyword
    /// at `start`.
    fn parse_array(
        &mut self,
        t: PrimitiveType,
        start: usize,
        depth: usize,
    ) -> Result<Shape, Partial> {
        let mut dims = Dims::new();
        let mut dynamic = DynamicFlags::new();
        // The offset of the first dimension and the first invalid one
        // (XLA's `IsValidDimensionSize`), checked once the list is read.
        let mut first_dim_at = None;
        let mut invalid: Option<(usize, usize)> = None;
        let ok = self.parse_list(Tok::Lsquare, Tok::Rsquare, |p| {
            let at = p.lx.start;
            if first_dim_at.is_none() {
                first_dim_at = Some(at);
            }
            let (size, is_dynamic) = if p.lx.kind == Tok::QuestionMark {
                p.lx.lex();
                (ArrayShape::UNBOUNDED_SIZE, true)
            } else {
                let is_dynamic = p.eat(Tok::Leq);
                match p.parse_int() {
                    Some(v) => (v, is_dynamic),
                    None => return false,
                }
            };
            let valid = size >= 0 || (is_dynamic && size == ArrayShape::UNBOUNDED_SIZE);
            if !valid && invalid.is_none() {
                invalid = Some((dims.len(), at));
            }
            dims.push(size);
            dynamic.push(is_dynamic);
            true
        });
        if !ok {
            return Err(None);
        }
        let is_array = t.is_array_type();
        if let Some((i, at)) = invalid.filter(|&(i, _)| i == 0 || is_array) {
            // XLA: the shape parse fails, with no message.
            self.error_at(
                at,
                format!(
                    "Invalid dimension size {}, is_dynamic={}",
                    dims[i], dynamic[i]
                ),
            );
            dims.truncate(i);
            dynamic.truncate(i);
            return Err(Some(Box::new(unchecked_array(t, dims, dynamic, None))));
        }
        if !is_array && !dims.is_empty() {
            let mut shape = String::new();
            display::write_array_parts(&mut shape, t, &dims, &dynamic);
            self.error_at(
                first_dim_at.unwrap_or(start),
                format!(
                    "{} shapes have no dimensions, got {shape} (XLA: Check failed: buffer != nullptr)",
                    t.lowercase_name()
                ),
            );
            return Err(Some(Box::new(unchecked_array(
                t,
                Dims::new(),
                DynamicFlags::new(),
                None,
            ))));
        }
        let written =
            self.lx.kind == Tok::Lbrace && matches!(self.lx.look_ahead(), Tok::Int | Tok::Colon);
        // XLA sets the default layout first, and keeps it if the written
        // one fails; a message may print it.
        let fill = is_array && (self.fill_missing_layouts || dims.is_empty());
        let rank = dims.len();
        let partial = |dims, dynamic| {
            let layout = fill.then(|| Layout::descending(rank));
            Some(Box::new(unchecked_array(t, dims, dynamic, layout)))
        };
        // The layout is one level below its array, as in a ShapeProto.
        if fill && !written && depth >= MAX_NESTING_DEPTH {
            self.too_deep_at(start);
            return Err(None);
        }
        let mut layout = (fill && !written).then(|| Layout::descending(rank));
        let mut layout_at = None;
        if written {
            let at = self.lx.start;
            let Ok(parsed) = self.parse_layout(depth + 1) else {
                return Err(partial(dims, dynamic));
            };
            if !is_array {
                self.error_at(
                    at,
                    format!(
                        "{} shapes have no layout (XLA: Check failed: buffer != nullptr)",
                        t.lowercase_name()
                    ),
                );
                return Err(Some(Box::new(unchecked_array(t, dims, dynamic, None))));
            }
            if parsed.layout.minor_to_major.len() != dims.len() {
                self.token_error(format!(
                    "Dimensions size is {}, but minor to major size is {}.",
                    dims.len(),
                    parsed.layout.minor_to_major.len()
                ));
                return Err(partial(dims, dynamic));
            }
            if let Some(physical) = &parsed.physical {
                let mut s = String::new();
                let physical = match &**physical {
                    Ok(p) => Some(p),
                    Err(partial) => partial.as_deref(),
                };
                display::write_layout_with_physical(&mut s, &parsed.layout, Some(physical));
                self.token_error(format!(
                    "Layout has physical shape, but is not for a sparse array: {s}"
                ));
                return Err(partial(dims, dynamic));
            }
            layout = Some(parsed.layout);
            layout_at = Some(at);
        }
        if !is_array {
            return Ok(unchecked_array(t, dims, dynamic, None));
        }
        // Ours: the validation XLA leaves to the caller.
        let invalid = validate::validate_array_dimensions(t, &dims, &dynamic)
            .map_err(|e| (start, e))
            .and_then(|()| match (&layout, layout_at) {
                (Some(l), Some(at)) => {
                    validate::validate_layout_for_array(l, t, &dims, &dynamic).map_err(|e| (at, e))
                }
                _ => Ok(()),
            });
        if let Err((at, e)) = invalid {
            self.error_at(at, e.message().to_owned());
            if self.first_invalid.is_none() {
                self.first_invalid = Some(e.at(self.position(at).0));
            }
            self.invalid_arrays += 1;
        }
        Ok(unchecked_array(t, dims, dynamic, layout))
    }

    // ---------------------------------------------------------------- layouts

    /// XLA's `ParseLayout` (with `LayoutUtil::MakeLayout`'s aborts turned
    /// into errors). `depth` is the layout's own level (0 for a layout on
    /// its own, one more than its array's otherwise); its tiles, split
    /// configs and physical shape are one level deeper.
    ///
    /// As in XLA, the results of the attribute parsers are ignored: their
    /// errors are recorded, but the layout only fails when the closing `}`
    /// is not where the cursor ends up.
    pub(crate) fn parse_layout(&mut self, depth: usize) -> Result<ParsedLayout, ()> {
        let start = self.lx.start;
        if depth > MAX_NESTING_DEPTH {
            self.too_deep_at(start);
            return Err(());
        }
        if !self.expect(Tok::Lbrace, "expects layout to start with kLbrace") {
            return Err(());
        }
        let mut l = Layout::default();
        // The rarely set attributes, put on `l` at the end if any is set.
        let mut rare = Rare::default();
        let mut physical = None;
        // Aborts of MakeLayout, reported once the layout has parsed.
        let mut negative_tile: Option<(usize, i64)> = None;
        let mut tail_padding_at = 0;
        if self.lx.kind != Tok::Rbrace {
            if self.lx.kind == Tok::Int {
                loop {
                    l.minor_to_major.push(self.parse_int().ok_or(())?);
                    if !self.eat(Tok::Comma) {
                        break;
                    }
                }
            }
            if self.lx.kind == Tok::Colon {
                self.lx.lex();
                if self.lx.is_ident(b"D") {
                    self.lx.lex();
                    self.parse_dim_level_types();
                }
                if self.lx.is_ident(b"T") {
                    self.lx.lex();
                    self.parse_tiles(&mut l.tiles, &mut negative_tile);
                }
                if self.lx.is_ident(b"L") {
                    self.lx.lex();
                    tail_padding_at = self.lx.start;
                    self.parse_int_attribute(
                        &mut rare.tail_padding_alignment_in_elements,
                        "multiple padded to in elements",
                    );
                }
                if self.eat(Tok::Octothorp) {
                    self.parse_type_attribute(
                        ["kOctothorp", "index primitive type"],
                        &mut rare.index_primitive_type,
                    );
                }
                if self.eat(Tok::Asterisk) {
                    self.parse_type_attribute(
                        ["kAsterisk", "pointer primitive type"],
                        &mut rare.pointer_primitive_type,
                    );
                }
                if self.lx.is_ident(b"E") {
                    self.lx.lex();
                    self.parse_int_attribute(&mut l.element_size_in_bits, "element size in bits");
                }
                if self.lx.is_ident(b"S") {
                    self.lx.lex();
                    self.parse_int_attribute(&mut l.memory_space, "memory space");
                }
                if self.lx.is_ident(b"SC") {
                    self.lx.lex();
                    self.parse_split_configs(&mut rare.split_configs);
                }
                if self.lx.is_ident(b"P") {
                    self.lx.lex();
                    physical = Some(Box::new(self.parse_physical_shape(depth)));
                }
                if self.lx.is_ident(b"M") {
                    self.lx.lex();
                    self.parse_int_attribute(
                        &mut rare.dynamic_shape_metadata_prefix_bytes,
                        "dynamic shape metadata prefix bytes",
                    );
                }
            }
        }
        if !self.expect(Tok::Rbrace, "expects layout to end with kRbrace") {
            return Err(());
        }
        if depth >= MAX_NESTING_DEPTH && !(l.tiles.is_empty() && rare.split_configs.is_empty()) {
            self.too_deep_at(start);
            return Err(());
        }
        // LayoutUtil::MakeLayout: tiles are checked first, then Layout's
        // CHECK on the alignment.
        if let Some((at, v)) = negative_tile {
            let message = check_tile_bounds(&[v])
                .err()
                .map(|e| e.message().to_owned());
            self.error_at(at, message.unwrap_or_default());
            return Err(());
        }
        if rare.tail_padding_alignment_in_elements < 1 {
            if let Err(e) = Layout::default()
                .with_tail_padding_alignment_in_elements(rare.tail_padding_alignment_in_elements)
            {
                self.error_at(tail_padding_at, e.message().to_owned());
            }
            return Err(());
        }
        if rare != Rare::default() {
            l.rare = Some(Box::new(rare));
        }
        Ok(ParsedLayout {
            layout: l,
            physical,
        })
    }

    /// XLA's `ParseDimLevelTypes`; the result is discarded, as in XLA.
    fn parse_dim_level_types(&mut self) {
        self.parse_list(Tok::Lparen, Tok::Rparen, |p| {
            if p.lx.kind == Tok::Ident && matches!(p.lx.token(), b"D" | b"C" | b"S" | b"H") {
                p.lx.lex();
                p.eat(Tok::Plus);
                p.eat(Tok::Tilde);
                return true;
            }
            p.token_error("expected a DimLevelType abbreviation (D, C, or S)");
            false
        });
    }

    /// XLA's `ParseTiles`: a tile whose list fails is kept with what was
    /// read of it.
    fn parse_tiles(&mut self, tiles: &mut Tiles, negative: &mut Option<(usize, i64)>) {
        loop {
            let mut tile = Tile::default();
            let ok = self.parse_list(Tok::Lparen, Tok::Rparen, |p| {
                if p.lx.kind == Tok::Int {
                    let v = p.lx.int;
                    if v < 0 && v != Tile::COMBINE_DIMENSION && negative.is_none() {
                        *negative = Some((p.lx.start, v));
                    }
                    tile.push_unchecked(v);
                    p.lx.lex();
                    return true;
                }
                // XLA tries an integer first, which records this error even
                // when a `*` follows.
                p.token_error("expects integer");
                if p.eat(Tok::Asterisk) {
                    tile.push_unchecked(Tile::COMBINE_DIMENSION);
                    return true;
                }
                false
            });
            tiles.push(tile);
            if !ok || self.lx.kind != Tok::Lparen {
                return;
            }
        }
    }

    /// XLA's `ParseLayoutIntAttribute`.
    fn parse_int_attribute(&mut self, value: &mut i64, description: &'static str) {
        if !self.expect_with(Tok::Lparen, || {
            format!("expects {description} to start with kLparen")
        }) {
            return;
        }
        let Some(v) = self.parse_int() else {
            return;
        };
        *value = v;
        self.expect_with(Tok::Rparen, || {
            format!("expects {description} to end with kRparen")
        });
    }

    /// The `(t)` of a layout's `#(t)` or `*(t)`, an unsigned integer type
    /// (XLA's `ParseLayout`), with XLA's messages naming the attribute's
    /// token and what it holds: `expects kOctothorp to be followed by
    /// kLparen`, `expects index primitive type to be followed by kRparen`.
    fn parse_type_attribute(&mut self, [token, holds]: [&str; 2], out: &mut PrimitiveType) {
        self.expect_with(Tok::Lparen, || {
            format!("expects {token} to be followed by kLparen")
        });
        self.parse_unsigned_integer_type(out);
        self.expect_with(Tok::Rparen, || {
            format!("expects {holds} to be followed by kRparen")
        });
    }

    fn parse_unsigned_integer_type(&mut self, out: &mut PrimitiveType) {
        if let Some(t) = self.parse_primitive_type() {
            *out = t;
            if !t.is_unsigned_integral() {
                self.token_error("expecting an unsigned integer type");
            }
        }
    }

    /// XLA's `ParseSplitConfigs`.
    fn parse_split_configs(&mut self, out: &mut Vec<SplitConfig>) {
        loop {
            if !self.expect(Tok::Lparen, "expects split configs to start with kLparen") {
                return;
            }
            let Some(dimension) = self.parse_int() else {
                return;
            };
            let mut indices = Vec::new();
            let ok = self.parse_list(Tok::Colon, Tok::Rparen, |p| match p.parse_int() {
                Some(v) => {
                    indices.push(v);
                    true
                }
                None => false,
            });
            out.push(SplitConfig::new(dimension, indices));
            if !ok || self.lx.kind != Tok::Lparen {
                return;
            }
        }
    }

    /// XLA's `ParsePhysicalShape`: the shape is whatever its parse left.
    fn parse_physical_shape(&mut self, depth: usize) -> Result<Shape, Partial> {
        if !self.expect(Tok::Lparen, "expects physical shape to start with kLparen") {
            return Err(None);
        }
        let shape = self.parse_shape(depth + 1);
        self.expect(Tok::Rparen, "expects physical shape to end with kRparen");
        shape
    }

    // ---------------------------------------------------------- program shapes

    /// A program shape in either of the forms XLA writes: the named one of
    /// `ProgramShape::ToString` and of a computation's signature (XLA's
    /// `ParseParamListToShape`: `(name: shape, ...) -> shape`), or the
    /// unnamed one of `entry_computation_layout` (the inside of XLA's
    /// `ParseComputationLayout`: `(shape, ...)->shape`). The token after
    /// the `(` decides: a name (or the `(unknown)` that XLA prints for an
    /// empty one) starts the named form.
    fn parse_program_shape(&mut self) -> Option<ProgramShape> {
        let mut ahead = self.lx;
        let first = ahead.lex();
        let first_is_b = ahead.token() == b"b";
        let second = ahead.lex();
        let named = self.lx.kind == Tok::Lparen
            && match first {
                Tok::Name => true,
                // `b(` starts a buffer shape; any other identifier is a name.
                Tok::Ident => !(first_is_b && second == Tok::Lparen),
                Tok::Lparen => second == Tok::KwUnknown,
                _ => false,
            };
        let mut parameters = Vec::new();
        if named {
            // XLA's `ParseParamList`.
            if !self.expect(Tok::Lparen, "expects '(' at the beginning of param list") {
                return None;
            }
            if self.lx.kind != Tok::Rparen {
                loop {
                    let name = self.parse_parameter_name()?;
                    let shape = self.parse_shape(0).ok()?;
                    parameters.push((name, shape));
                    if !self.eat(Tok::Comma) {
                        break;
                    }
                }
            }
            if !self.expect(Tok::Rparen, "expects ')' at the end of param list")
                || !self.expect(Tok::Arrow, "expects '->'")
            {
                return None;
            }
        } else {
            // XLA's `ParseComputationLayout`, inside its braces.
            if !self.expect(Tok::Lparen, "Expects ( before parameter shape list") {
                return None;
            }
            while self.lx.kind != Tok::Rparen {
                let shape = self.parse_shape(0).ok()?;
                parameters.push((String::new(), shape));
                if self.lx.kind == Tok::Rparen {
                    break;
                }
                if !self.expect(Tok::Comma, "Expects , between parameter shapes") {
                    return None;
                }
            }
            if !self.expect(Tok::Rparen, "Expects ) at end of parameter shape list")
                || !self.expect(Tok::Arrow, "Expects -> before result shape")
            {
                return None;
            }
        }
        let result = self.parse_shape(0).ok()?;
        Some(ProgramShape::new(parameters, result))
    }

    /// XLA's `ParseName` for a parameter (`x.1:`, `x`, `%x`), and the
    /// `(unknown):` that `ProgramShape::ToString` prints for an empty name.
    fn parse_parameter_name(&mut self) -> Option<String> {
        let name = match self.lx.kind {
            Tok::Name | Tok::Ident => {
                let token = self.lx.token();
                let token = token.strip_prefix(b"%").unwrap_or(token);
                let token = token.strip_suffix(b":").unwrap_or(token);
                String::from_utf8_lossy(token).into_owned()
            }
            Tok::Lparen if self.lx.look_ahead() == Tok::KwUnknown => {
                self.lx.lex();
                self.lx.lex();
                if !self.expect(Tok::Rparen, "expects ')' after (unknown") {
                    return None;
                }
                if self.lx.kind != Tok::Colon {
                    self.token_error("expects ':' after (unknown)");
                    return None;
                }
                String::new()
            }
            _ => {
                self.token_error("expects name");
                return None;
            }
        };
        self.lx.lex();
        Some(name)
    }

    // ----------------------------------------------------------------- errors

    /// Where `offset` is: line (1-based), column (0-based bytes), the
    /// line's text without its line break (or a window of it), and the
    /// offset's column in that text.
    fn position(&self, offset: usize) -> (Location, &'a str, usize) {
        let text = self.text;
        let bytes = text.as_bytes();
        let offset = offset.min(text.len());
        // Lines are counted from the origin the caller knows, so that the
        // cost of a message does not grow with the text before it.
        let known = if offset >= self.origin.offset {
            self.origin
        } else {
            TEXT_START
        };
        let (base, mut line) = (known.offset, known.line);
        let mut line_start = known.offset - known.column;
        for (i, &b) in bytes[base..offset].iter().enumerate() {
            if b == b'\n' {
                line += 1;
                line_start = base + i + 1;
            }
        }
        let window_end = offset.saturating_add(SOURCE_WINDOW).min(bytes.len());
        let line_end = bytes[offset..window_end]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(window_end, |i| offset + i);
        let location = Location {
            line,
            column: offset - line_start,
            offset,
        };
        // A long line is cut to a window around the error, so that a
        // message stays short whatever the input.
        let mut from = line_start.max(offset.saturating_sub(SOURCE_WINDOW));
        let mut to = line_end;
        while !text.is_char_boundary(from) {
            from -= 1;
        }
        while !text.is_char_boundary(to) {
            to += 1;
        }
        let source = &text[from..to];
        let source = source.strip_suffix('\r').unwrap_or(source);
        (location, source, offset - from)
    }

    /// XLA's `InvalidArgument("Syntax error:\n%s", GetError())`: every
    /// recorded error as `was parsing L:C: error: MSG`, the source line and
    /// a caret. The location is that of the last error, the one that
    /// stopped the parse.
    pub(crate) fn syntax_error(&self) -> Error {
        // The places first, so that the message is allocated once: a
        // parse that fails (a quarter of the cost of a whole corpus of
        // shape strings with its errors) spent half its time growing it.
        let places: Vec<_> = self
            .errors
            .iter()
            .map(|(offset, msg)| (self.position(*offset), msg))
            .collect();
        // "\nwas parsing L:C: error: " with two numbers of up to 20
        // digits (63 bytes), the message, "\n", the source, "\n", up to
        // one byte of the caret's line per source byte, and "^".
        let capacity = places
            .iter()
            .map(|((_, source, _), msg)| 66 + msg.len() + 2 * source.len())
            .sum::<usize>();
        let mut message = String::with_capacity("Syntax error:\n".len() + capacity);
        message.push_str("Syntax error:");
        if self.errors.is_empty() {
            // XLA's parser fails without a message in a few places
            // (`last_tile_dims={other}`): its text is then this line and
            // an empty one.
            message.push('\n');
        }
        let mut diagnostics = Vec::with_capacity(self.errors.len());
        for ((location, source, caret), msg) in places {
            let diagnostic = Diagnostic::new(location, msg.clone());
            // Writing into a `String` cannot fail.
            message.push('\n');
            let _ = diagnostic.write_to(&mut message);
            message.push('\n');
            message.push_str(source);
            message.push('\n');
            diagnostics.push(diagnostic);
            for &b in source.as_bytes().iter().take(caret) {
                if b == b'\t' {
                    message.push('\t');
                } else if b & 0xC0 != 0x80 {
                    message.push(' ');
                }
            }
            message.push('^');
        }
        Error::new(ErrorKind::Parse, message).with_diagnostics(diagnostics)
    }

    /// `Syntax error:\nExtra content after <what>`, located at the extra
    /// token.
    pub(crate) fn extra_content_error(&self, what: &str) -> Error {
        let (location, _, _) = self.position(self.lx.start);
        let message = format!("Extra content after {what}");
        Error::new(ErrorKind::Parse, format!("Syntax error:\n{message}"))
            .with_diagnostics(vec![Diagnostic::new(location, message)])
    }
}

/// How many bytes of the source line a message shows on either side of
/// the error.
const SOURCE_WINDOW: usize = 120;

/// An array (or token/opaque) shape from parts the caller has checked, or
/// a partial one for a message.
fn unchecked_array(
    t: PrimitiveType,
    dims: Dims,
    dynamic: DynamicFlags,
    layout: Option<Layout>,
) -> Shape {
    match t {
        PrimitiveType::Token => Shape::Token,
        PrimitiveType::OpaqueType => Shape::Opaque,
        _ => Shape::Array(ArrayShape {
            element_type: t,
            dimensions: dims,
            dynamic,
            layout,
        }),
    }
}

/// XLA's `ParseShape` on a whole string, by the full parser (the caller
/// tries the fast path first).
pub(crate) fn parse_shape(text: &str, options: &ParseOptions) -> Result<Shape, Error> {
    let mut p = Parser::new(text, 0, options);
    match p.parse_shape(0) {
        Ok(_) if p.lx.kind != Tok::Eof => Err(p.extra_content_error("shape")),
        Ok(shape) if p.invalid_arrays == 0 => Ok(shape),
        _ => Err(p.syntax_error()),
    }
}

/// What a shape written at some position of a larger text (an HLO module)
/// parses to.
// Moved once per shape read; boxing would allocate per shape.
#[allow(clippy::large_enum_variant)]
pub(crate) enum ShapeAt {
    /// A valid shape.
    Valid(Shape),
    /// A shape XLA's parser accepts and XLA's validation rejects
    /// (`f32[]{:T()}`): the validation error, located.
    Rejected(Error),
    /// Text that does not parse: XLA's syntax error, located.
    Failed(Error),
}

/// XLA's `ParseShape` on the shape that starts at `at` in `text`, by the
/// full parser (`text::parse_shape_at` tries the fast path first).
pub(crate) fn parse_shape_at(text: &str, at: Location, options: &ParseOptions) -> (ShapeAt, usize) {
    let mut p = Parser::new(text, at.offset, options);
    p.origin = at;
    let outcome = match p.parse_shape(0) {
        Ok(shape) if p.invalid_arrays == 0 => ShapeAt::Valid(shape),
        // Rejected only when validation recorded every error: any other
        // error makes the text one that does not parse.
        Ok(_) if p.errors.len() == p.invalid_arrays => match p.first_invalid.take() {
            Some(error) => ShapeAt::Rejected(error),
            None => ShapeAt::Failed(p.syntax_error()),
        },
        Ok(_) => ShapeAt::Failed(p.syntax_error()),
        Err(_) => ShapeAt::Failed(p.syntax_error()),
    };
    (outcome, p.lx.prev_end)
}

/// XLA's `ParseLayout` on a whole string, keeping only what a [`Layout`]
/// can hold: a physical shape must parse as a valid shape, and the aborts
/// of `MakeLayout` are errors.
pub(crate) fn parse_layout(text: &str) -> Result<Layout, Error> {
    let mut p = Parser::new(text, 0, &ParseOptions::default());
    let Ok(parsed) = p.parse_layout(0) else {
        return Err(p.syntax_error());
    };
    if p.lx.kind != Tok::Eof {
        return Err(p.extra_content_error("layout"));
    }
    if p.invalid_arrays != 0 {
        return Err(p.syntax_error());
    }
    let mut layout = parsed.layout;
    match parsed.physical.map(|p| *p) {
        None => {}
        Some(Ok(shape)) => layout.rare_mut().physical_shape = Some(Box::new(shape)),
        // XLA keeps the invalid or partial shape; its parse recorded why.
        Some(Err(_)) => return Err(p.syntax_error()),
    }
    Ok(layout)
}

/// A program shape in either form XLA prints (see
/// [`Parser::parse_program_shape`]), on a whole string, missing layouts
/// filled as XLA's parser fills them.
pub(crate) fn parse_program_shape(text: &str) -> Result<ProgramShape, Error> {
    let mut p = Parser::new(text, 0, &ParseOptions::default());
    match p.parse_program_shape() {
        Some(_) if p.lx.kind != Tok::Eof => Err(p.extra_content_error("program shape")),
        Some(program_shape) if p.invalid_arrays == 0 => Ok(program_shape),
        _ => Err(p.syntax_error()),
    }
}
