//! MLIR types as StableHLO text writes them (`tensor<2x3xf32>`,
//! `!stablehlo.token`, `tuple<...>`), their XLA shapes (XLA's
//! `TypeToShape`, `xla/hlo/translate/mhlo_to_hlo/type_to_shape.cc`, with
//! the element types of `ConvertMlirTypeToPrimitiveType`,
//! `xla/mlir/utils/type_util.cc`), and the way back (XLA's
//! `ConvertShapeToType`, `xla/hlo/translate/hlo_to_mhlo/hlo_utils.h`).

use std::collections::HashMap;
use std::fmt;

use super::cursor::{Cursor, error_at};
use crate::error::{Error, Result};
use crate::limits::MAX_NESTING_DEPTH;
use crate::model::{ArrayShape, PrimitiveType, Shape};

/// MLIR's `ShapedType::kDynamic`: the size of a `?` dimension (and of a
/// `?` bound).
pub const DYNAMIC: i64 = i64::MIN;

/// Whether an MLIR integer type is signless (`i32`), signed (`si32`) or
/// unsigned (`ui32`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Signedness {
    /// `iN`: XLA reads it as signed (`sN`), and `i1` as `pred`.
    Signless,
    /// `siN`.
    Signed,
    /// `uiN`: XLA's `uN` (and `ui1` is `pred`).
    Unsigned,
}

macro_rules! float_types {
    ($($variant:ident = $mlir:literal => $xla:expr,)*) => {
        /// MLIR's builtin floating-point types, each with the spelling MLIR
        /// prints (`BuiltinTypes.td`).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        #[allow(missing_docs)]
        pub enum FloatType {
            $($variant,)*
        }

        impl FloatType {
            /// Every floating-point type.
            pub const ALL: &'static [FloatType] = &[$(FloatType::$variant,)*];

            /// The spelling MLIR prints: `bf16`, `f8E4M3FN`, ...
            pub fn mlir_name(self) -> &'static str {
                match self {
                    $(FloatType::$variant => $mlir,)*
                }
            }

            /// XLA's element type for it (`ConvertMlirTypeToPrimitiveType`):
            /// `Invalid` for `tf32`, `f80` and `f128`, which XLA has none for.
            pub fn primitive_type(self) -> PrimitiveType {
                match self {
                    $(FloatType::$variant => $xla,)*
                }
            }
        }
    };
}

float_types! {
    Bf16 = "bf16" => PrimitiveType::Bf16,
    F16 = "f16" => PrimitiveType::F16,
    Tf32 = "tf32" => PrimitiveType::Invalid,
    F32 = "f32" => PrimitiveType::F32,
    F64 = "f64" => PrimitiveType::F64,
    F80 = "f80" => PrimitiveType::Invalid,
    F128 = "f128" => PrimitiveType::Invalid,
    F8E5M2 = "f8E5M2" => PrimitiveType::F8e5m2,
    F8E4M3 = "f8E4M3" => PrimitiveType::F8e4m3,
    F8E4M3FN = "f8E4M3FN" => PrimitiveType::F8e4m3fn,
    F8E5M2FNUZ = "f8E5M2FNUZ" => PrimitiveType::F8e5m2fnuz,
    F8E4M3FNUZ = "f8E4M3FNUZ" => PrimitiveType::F8e4m3fnuz,
    F8E4M3B11FNUZ = "f8E4M3B11FNUZ" => PrimitiveType::F8e4m3b11fnuz,
    F8E3M4 = "f8E3M4" => PrimitiveType::F8e3m4,
    F8E8M0FNU = "f8E8M0FNU" => PrimitiveType::F8e8m0fnu,
    F6E2M3FN = "f6E2M3FN" => PrimitiveType::F6e2m3fn,
    F6E3M2FN = "f6E3M2FN" => PrimitiveType::F6e3m2fn,
    F4E2M1FN = "f4E2M1FN" => PrimitiveType::F4e2m1fn,
}

impl FloatType {
    /// The type MLIR spells `name`.
    pub fn from_mlir_name(name: &str) -> Option<FloatType> {
        Self::ALL.iter().copied().find(|t| t.mlir_name() == name)
    }
}

/// An element type of a tensor (or a type on its own, such as `i32`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ElementType {
    /// `iN`, `siN`, `uiN`.
    Integer {
        /// The width in bits.
        width: u32,
        /// Signless, signed or unsigned.
        signedness: Signedness,
    },
    /// A builtin floating-point type.
    Float(FloatType),
    /// `complex<T>`.
    Complex(Box<ElementType>),
    /// `index`.
    Index,
    /// A quantized type of the `quant` dialect (`!quant.uniform<i8:f32,
    /// 1.0:3>`): the data is stored as its storage type.
    Quantized {
        /// The storage type (`i8`, `u8` in the quant dialect's spelling,
        /// read as `i8` and `ui8`).
        storage: Box<ElementType>,
        /// The type as written.
        text: Box<str>,
    },
    /// Any other type, as written (`!my.type<...>`, `none`).
    Other(Box<str>),
}

impl ElementType {
    /// XLA's element type for it, as `ConvertMlirTypeToPrimitiveType`
    /// converts it: `i1` and `ui1` are `pred`, other signless and signed
    /// integers of 2, 4, 8, 16, 32 or 64 bits `sN`, unsigned ones `uN`,
    /// `complex<f32>` `c64` and `complex<f64>` `c128`; `Invalid` for the
    /// rest (other widths, `tf32`, `index`, `complex<bf16>`, ...).
    ///
    /// A quantized type gives its storage type's, where XLA's conversion
    /// (jaxlib 0.10.2) has none (see `docs/differences.md`).
    #[doc(alias = "ConvertMlirTypeToPrimitiveType")]
    pub fn primitive_type(&self) -> PrimitiveType {
        use PrimitiveType as P;
        match self {
            ElementType::Integer { width, signedness } => match (width, signedness) {
                (1, _) => P::Pred,
                (2, Signedness::Unsigned) => P::U2,
                (4, Signedness::Unsigned) => P::U4,
                (8, Signedness::Unsigned) => P::U8,
                (16, Signedness::Unsigned) => P::U16,
                (32, Signedness::Unsigned) => P::U32,
                (64, Signedness::Unsigned) => P::U64,
                (2, _) => P::S2,
                (4, _) => P::S4,
                (8, _) => P::S8,
                (16, _) => P::S16,
                (32, _) => P::S32,
                (64, _) => P::S64,
                _ => P::Invalid,
            },
            ElementType::Float(f) => f.primitive_type(),
            ElementType::Complex(e) => match e.primitive_type() {
                P::F32 => P::C64,
                P::F64 => P::C128,
                _ => P::Invalid,
            },
            ElementType::Quantized { storage, .. } => storage.primitive_type(),
            ElementType::Index | ElementType::Other(_) => P::Invalid,
        }
    }

    /// The MLIR element type of an XLA element type, as XLA's
    /// `ConvertPrimitiveTypeToMlirType` makes it: `pred` is `i1`, `sN`
    /// signless `iN`, `uN` `uiN`, `c64` `complex<f32>`.
    ///
    /// # Errors
    ///
    /// XLA's `Unsupported type: TUPLE` for a type that is not an array
    /// element type.
    #[doc(alias = "ConvertPrimitiveTypeToMlirType")]
    pub fn from_primitive_type(t: PrimitiveType) -> Result<ElementType> {
        use PrimitiveType as P;
        if t == P::Pred {
            return Ok(ElementType::Integer {
                width: 1,
                signedness: Signedness::Signless,
            });
        }
        if let Some(f) = FloatType::ALL
            .iter()
            .copied()
            .find(|f| f.primitive_type() == t && t != P::Invalid)
        {
            return Ok(ElementType::Float(f));
        }
        if t.is_integral() {
            return Ok(ElementType::Integer {
                width: t.bit_width().unwrap_or(0),
                signedness: if t.is_unsigned_integral() {
                    Signedness::Unsigned
                } else {
                    Signedness::Signless
                },
            });
        }
        match t {
            P::C64 => Ok(ElementType::Complex(Box::new(ElementType::Float(
                FloatType::F32,
            )))),
            P::C128 => Ok(ElementType::Complex(Box::new(ElementType::Float(
                FloatType::F64,
            )))),
            _ => Err(Error::invalid_argument(format!(
                "Unsupported type: {}",
                t.as_str_name()
            ))),
        }
    }
}

impl fmt::Display for ElementType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ElementType::Integer { width, signedness } => {
                let prefix = match signedness {
                    Signedness::Signless => "i",
                    Signedness::Signed => "si",
                    Signedness::Unsigned => "ui",
                };
                write!(f, "{prefix}{width}")
            }
            ElementType::Float(t) => f.write_str(t.mlir_name()),
            ElementType::Complex(e) => write!(f, "complex<{e}>"),
            ElementType::Index => f.write_str("index"),
            ElementType::Quantized { text, .. } => f.write_str(text),
            ElementType::Other(text) => f.write_str(text),
        }
    }
}

/// The encoding of a ranked tensor type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Encoding {
    /// `#stablehlo.bounds<4, ?>` (or MHLO's `#mhlo.type_extensions<bounds
    /// = [4, ?]>`): one bound per dimension, [`DYNAMIC`] for `?`.
    Bounds(Vec<i64>),
    /// Any other encoding attribute, as written; XLA's `TypeToShape`
    /// ignores it.
    Other(Box<str>),
}

/// A tensor type: `tensor<2x?xf32, #stablehlo.bounds<?, 4>>`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TensorType {
    /// The dimensions, [`DYNAMIC`] for `?`; `None` for an unranked tensor
    /// (`tensor<*xf32>`).
    pub dimensions: Option<Vec<i64>>,
    /// The element type.
    pub element: ElementType,
    /// The encoding, if any.
    pub encoding: Option<Encoding>,
}

/// An MLIR type of a value: what StableHLO programs pass around.
///
/// ```
/// use xla_shape::stablehlo::Type;
///
/// let t: Type = "tensor<?x3xf32, #stablehlo.bounds<4, ?>>".parse()?;
/// assert_eq!(t.to_shape()?.to_string(), "f32[<=4,3]{1,0}");
/// let back = Type::from_shape(&"(s32[2]{0}, pred[], token[])".parse()?)?;
/// assert_eq!(back.to_string(), "tuple<tensor<2xi32>, tensor<i1>, !stablehlo.token>");
/// # Ok::<(), xla_shape::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Type {
    /// `tensor<...>`.
    Tensor(TensorType),
    /// `vector<2x3xf32>` (XLA reads it as a static array).
    Vector(TensorType),
    /// `!stablehlo.token` (also `!mhlo.token` and `!stablehlo.future<...>`,
    /// which XLA reads as a token too).
    Token,
    /// `tuple<...>`.
    Tuple(Vec<Type>),
    /// An element type used as a type of its own (`i32`): XLA reads it as a
    /// scalar.
    Scalar(ElementType),
    /// Any other type, as written: XLA's `TypeToShape` has no shape for it.
    Other(Box<str>),
}

impl Type {
    /// The XLA shape of the type, as XLA's `TypeToShape` makes it: default
    /// (descending) layouts, `?` unbounded dynamic (`f32[?]`), a `?` with a
    /// bound bounded dynamic (`f32[<=4]`), tokens and tuples as such.
    ///
    /// # Errors
    ///
    /// Where `TypeToShape` gives no valid shape (an element type XLA has
    /// none for, an unranked tensor, a bound on a static dimension, any
    /// other type) the conversion fails with XLA's `Shape Error: Invalid
    /// element type. Shape(primitive_type_invalid):
    /// primitive_type_invalid[]`, which the message keeps, followed by the
    /// type; shapes that XLA's validation rejects give its message.
    #[doc(alias = "TypeToShape")]
    pub fn to_shape(&self) -> Result<Shape> {
        self.to_shape_at(0)
    }

    fn to_shape_at(&self, depth: usize) -> Result<Shape> {
        let invalid = || {
            Error::invalid_shape(format!(
                "Shape Error: Invalid element type. Shape(primitive_type_invalid): \
                 primitive_type_invalid[]; type: {self}"
            ))
        };
        match self {
            Type::Scalar(e) => {
                let t = e.primitive_type();
                if t == PrimitiveType::Invalid {
                    return Err(invalid());
                }
                Ok(ArrayShape::new(t, [])?.into())
            }
            Type::Vector(v) => {
                let (Some(dims), t) = (&v.dimensions, v.element.primitive_type()) else {
                    return Err(invalid());
                };
                if t == PrimitiveType::Invalid || dims.contains(&DYNAMIC) {
                    return Err(invalid());
                }
                Ok(ArrayShape::new(t, dims.clone())?.into())
            }
            Type::Tensor(tensor) => {
                let Some(dims) = &tensor.dimensions else {
                    return Err(invalid());
                };
                let bounds = match &tensor.encoding {
                    Some(Encoding::Bounds(b)) => {
                        if b.len() != dims.len() {
                            return Err(Error::invalid_shape(format!(
                                "bounds length is {}, expected it to match the rank {}; type: {self}",
                                b.len(),
                                dims.len()
                            )));
                        }
                        Some(b)
                    }
                    _ => None,
                };
                let mut sizes = Vec::with_capacity(dims.len());
                let mut dynamic = Vec::with_capacity(dims.len());
                for (i, &d) in dims.iter().enumerate() {
                    let bound = bounds.map_or(DYNAMIC, |b| b[i]);
                    if d == DYNAMIC {
                        sizes.push(if bound == DYNAMIC {
                            ArrayShape::UNBOUNDED_SIZE
                        } else {
                            bound
                        });
                        dynamic.push(true);
                    } else {
                        if bound != DYNAMIC {
                            return Err(invalid());
                        }
                        sizes.push(d);
                        dynamic.push(false);
                    }
                }
                let t = tensor.element.primitive_type();
                if t == PrimitiveType::Invalid {
                    return Err(invalid());
                }
                Ok(ArrayShape::with_dynamic_dimensions(t, sizes, dynamic)?.into())
            }
            Type::Tuple(types) => {
                if depth >= MAX_NESTING_DEPTH {
                    return Err(too_deep());
                }
                let shapes = types
                    .iter()
                    .map(|t| t.to_shape_at(depth + 1))
                    .collect::<Result<Vec<_>>>()?;
                Ok(Shape::Tuple(shapes))
            }
            Type::Token => Ok(Shape::Token),
            Type::Other(_) => Err(invalid()),
        }
    }

    /// The MLIR type of an XLA shape, as XLA's `ConvertShapeToType` makes
    /// it when it imports HLO: an array is a `tensor` (a bounded dynamic
    /// dimension `?` with its bound in `#stablehlo.bounds`, an unbounded one
    /// `?`; the layout is not part of the type), a tuple a `tuple`, a token
    /// `!stablehlo.token`.
    ///
    /// # Errors
    ///
    /// `InvalidArgument` for an opaque or buffer shape, which have no
    /// tensor type.
    #[doc(alias = "ConvertShapeToType", alias = "ConvertTensorShapeToType")]
    pub fn from_shape(shape: &Shape) -> Result<Type> {
        Self::from_shape_at(shape, 0)
    }

    fn from_shape_at(shape: &Shape, depth: usize) -> Result<Type> {
        match shape {
            Shape::Array(a) => {
                let element = ElementType::from_primitive_type(a.element_type())?;
                let mut dims = Vec::with_capacity(a.rank());
                let mut bounds = Vec::with_capacity(a.rank());
                let mut bounded = false;
                for i in 0..a.rank() {
                    if a.is_dynamic_dimension(i) {
                        dims.push(DYNAMIC);
                        if a.is_unbounded_dynamic_dimension(i) {
                            bounds.push(DYNAMIC);
                        } else {
                            bounds.push(a.dimension(i));
                            bounded = true;
                        }
                    } else {
                        dims.push(a.dimension(i));
                        bounds.push(DYNAMIC);
                    }
                }
                Ok(Type::Tensor(TensorType {
                    dimensions: Some(dims),
                    element,
                    encoding: bounded.then_some(Encoding::Bounds(bounds)),
                }))
            }
            Shape::Tuple(shapes) => {
                if depth >= MAX_NESTING_DEPTH {
                    return Err(too_deep());
                }
                Ok(Type::Tuple(
                    shapes
                        .iter()
                        .map(|s| Self::from_shape_at(s, depth + 1))
                        .collect::<Result<_>>()?,
                ))
            }
            Shape::Token => Ok(Type::Token),
            Shape::Opaque | Shape::Buffer(_) => Err(Error::invalid_argument(format!(
                "no MLIR type for the shape {shape}"
            ))),
        }
    }
}

fn too_deep() -> Error {
    Error::invalid_shape(format!(
        "type nesting exceeds the limit of {MAX_NESTING_DEPTH} levels"
    ))
}

impl std::str::FromStr for Type {
    type Err = Error;

    /// Parses one type, alone in the text but for whitespace.
    fn from_str(s: &str) -> Result<Type> {
        let mut c = Cursor::new(s);
        c.skip_trivia();
        let t = TypeParser::default().parse_type(&mut c)?;
        c.skip_trivia();
        if !c.at_end() {
            return Err(c.error("expected end of type"));
        }
        Ok(t)
    }
}

impl fmt::Display for Type {
    /// MLIR's printed form of the type.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Tensor(t) => write_shaped(f, "tensor", t),
            Type::Vector(t) => write_shaped(f, "vector", t),
            Type::Token => f.write_str("!stablehlo.token"),
            Type::Tuple(types) => {
                f.write_str("tuple<")?;
                for (i, t) in types.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{t}")?;
                }
                f.write_str(">")
            }
            Type::Scalar(e) => write!(f, "{e}"),
            Type::Other(text) => f.write_str(text),
        }
    }
}

fn write_dim(f: &mut fmt::Formatter<'_>, d: i64) -> fmt::Result {
    if d == DYNAMIC {
        f.write_str("?")
    } else {
        write!(f, "{d}")
    }
}

fn write_shaped(f: &mut fmt::Formatter<'_>, kind: &str, t: &TensorType) -> fmt::Result {
    write!(f, "{kind}<")?;
    match &t.dimensions {
        None => f.write_str("*x")?,
        Some(dims) => {
            for &d in dims {
                write_dim(f, d)?;
                f.write_str("x")?;
            }
        }
    }
    write!(f, "{}", t.element)?;
    match &t.encoding {
        None => {}
        Some(Encoding::Bounds(bounds)) => {
            f.write_str(", #stablehlo.bounds<")?;
            for (i, &b) in bounds.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write_dim(f, b)?;
            }
            f.write_str(">")?;
        }
        Some(Encoding::Other(text)) => write!(f, ", {text}")?,
    }
    f.write_str(">")
}

/// Parses types, resolving the type aliases (`!name = type`) defined so
/// far.
#[derive(Default)]
pub(crate) struct TypeParser {
    pub(crate) aliases: HashMap<Box<str>, Type>,
}

impl TypeParser {
    /// The type at the cursor.
    pub(crate) fn parse_type(&self, c: &mut Cursor<'_>) -> Result<Type> {
        self.parse_type_at(c, 0)
    }

    /// Whether a type can start at the cursor.
    pub(crate) fn starts_type(c: &Cursor<'_>) -> bool {
        match c.peek() {
            Some(b'!') => true,
            Some(ch) if ch.is_ascii_alphabetic() => c.peek_bare_id().is_some_and(|id| {
                matches!(
                    id,
                    "tensor" | "tuple" | "vector" | "complex" | "index" | "none"
                ) || parse_builtin_element(id).is_some()
            }),
            _ => false,
        }
    }

    fn parse_type_at(&self, c: &mut Cursor<'_>, depth: usize) -> Result<Type> {
        if depth >= MAX_NESTING_DEPTH {
            return Err(c.error(format!(
                "type nesting exceeds the limit of {MAX_NESTING_DEPTH} levels"
            )));
        }
        let start = c.pos();
        let at = c.location();
        if c.peek() == Some(b'!') {
            return self.parse_dialect_type(c, true);
        }
        let Some(id) = c.peek_bare_id() else {
            return Err(c.error("expected type"));
        };
        match id {
            "tensor" | "vector" => {
                c.bump(id.len());
                let tensor = self.parse_shaped(c, depth, id == "vector")?;
                Ok(if id == "tensor" {
                    Type::Tensor(tensor)
                } else {
                    Type::Vector(tensor)
                })
            }
            "tuple" => {
                c.bump(id.len());
                c.expect(b'<')?;
                let mut types = Vec::new();
                c.skip_trivia();
                if !c.eat(b'>') {
                    loop {
                        c.skip_trivia();
                        types.push(self.parse_type_at(c, depth + 1)?);
                        if c.list_next(b'>', "tuple type")? {
                            break;
                        }
                    }
                }
                Ok(Type::Tuple(types))
            }
            _ => {
                let e = self.parse_element(c, depth).map_err(|e| {
                    if c.pos() == start {
                        error_at(at, "expected type")
                    } else {
                        e
                    }
                })?;
                Ok(match e {
                    ElementType::Other(text) => Type::Other(text),
                    e => Type::Scalar(e),
                })
            }
        }
    }

    /// `!stablehlo.token`, `!alias`, `!quant.uniform<...>`, or any other
    /// dialect type (kept as written). `as_type`: whether the result is a
    /// value type (else an element type is wanted).
    fn parse_dialect_type(&self, c: &mut Cursor<'_>, as_type: bool) -> Result<Type> {
        let start = c.pos();
        let at = c.location();
        c.bump(1);
        let Some(name) = c.suffix_id() else {
            return Err(error_at(at, "expected dialect type or type alias name"));
        };
        if !name.contains('.') {
            // A type alias.
            return match self.aliases.get(name) {
                Some(t) => Ok(t.clone()),
                None => Err(error_at(at, format!("undefined symbol alias id '{name}'"))),
            };
        }
        if c.peek() == Some(b'<') {
            c.skip_group()?;
        }
        let text = &c.text()[start..c.pos()];
        match name {
            "stablehlo.token" | "mhlo.token" | "stablehlo.future" => Ok(Type::Token),
            "quant.uniform" | "quant.calibrated" | "quant.any" | "quant.quantile" => {
                let mut inner = Cursor::new(text);
                inner.bump(name.len() + 1);
                let storage = if inner.eat(b'<') {
                    inner.skip_trivia();
                    Self::parse_quant_storage(&mut inner)
                } else {
                    None
                };
                let e = match storage {
                    Some(storage) => ElementType::Quantized {
                        storage: Box::new(storage),
                        text: text.into(),
                    },
                    None => ElementType::Other(text.into()),
                };
                Ok(if as_type {
                    match e {
                        ElementType::Other(t) => Type::Other(t),
                        e => Type::Scalar(e),
                    }
                } else {
                    Type::Scalar(e)
                })
            }
            _ => Ok(Type::Other(text.into())),
        }
    }

    /// The storage type at the start of a quantized type's parameters:
    /// the quant dialect writes `i8` (signed) and `u8` (unsigned), or a
    /// float type.
    fn parse_quant_storage(c: &mut Cursor<'_>) -> Option<ElementType> {
        let id = c.bare_id()?;
        for (prefix, signedness) in [('u', Signedness::Unsigned), ('i', Signedness::Signed)] {
            if let Some(rest) = id.strip_prefix(prefix)
                && let Ok(width) = rest.parse::<u32>()
            {
                return Some(ElementType::Integer { width, signedness });
            }
        }
        parse_builtin_element(id)
    }

    /// The rest of `tensor` or `vector` after its keyword: `<2x?xf32,
    /// encoding>`.
    fn parse_shaped(&self, c: &mut Cursor<'_>, depth: usize, vector: bool) -> Result<TensorType> {
        c.expect(b'<')?;
        c.skip_trivia();
        let mut dims = Some(Vec::new());
        if c.peek() == Some(b'*') {
            c.bump(1);
            if !c.eat(b'x') {
                return Err(c.error("expected 'x' in dimension list"));
            }
            dims = None;
        } else {
            loop {
                let d = match c.peek() {
                    Some(b'?') => {
                        c.bump(1);
                        DYNAMIC
                    }
                    Some(b'0'..=b'9') => {
                        let at = c.location();
                        let digits = c.decimal().unwrap_or_default();
                        let d: i64 = digits
                            .parse()
                            .map_err(|_| error_at(at, "invalid dimension"))?;
                        d
                    }
                    _ => break,
                };
                if !c.eat(b'x') {
                    return Err(c.error("expected 'x' in dimension list"));
                }
                if let Some(dims) = dims.as_mut() {
                    dims.push(d);
                }
            }
        }
        let element = self.parse_element(c, depth + 1)?;
        c.skip_trivia();
        let mut encoding = None;
        if !vector && c.eat(b',') {
            c.skip_trivia();
            encoding = Some(parse_encoding(c)?);
            c.skip_trivia();
        }
        c.expect(b'>')?;
        Ok(TensorType {
            dimensions: dims,
            element,
            encoding,
        })
    }

    /// An element type.
    fn parse_element(&self, c: &mut Cursor<'_>, depth: usize) -> Result<ElementType> {
        if depth >= MAX_NESTING_DEPTH {
            return Err(c.error(format!(
                "type nesting exceeds the limit of {MAX_NESTING_DEPTH} levels"
            )));
        }
        if c.peek() == Some(b'!') {
            let at = c.location();
            return match self.parse_dialect_type(c, false)? {
                Type::Scalar(e) => Ok(e),
                Type::Other(text) => Ok(ElementType::Other(text)),
                _ => Err(error_at(at, "expected element type")),
            };
        }
        let at = c.location();
        let Some(id) = c.bare_id() else {
            return Err(c.error("expected element type"));
        };
        match id {
            "complex" => {
                c.expect(b'<')?;
                c.skip_trivia();
                let e = self.parse_element(c, depth + 1)?;
                c.skip_trivia();
                c.expect(b'>')?;
                Ok(ElementType::Complex(Box::new(e)))
            }
            "index" => Ok(ElementType::Index),
            "none" => Ok(ElementType::Other("none".into())),
            _ => parse_builtin_element(id)
                .ok_or_else(|| error_at(at, format!("expected element type, found '{id}'"))),
        }
    }
}

/// A builtin integer or float type spelled `id`.
fn parse_builtin_element(id: &str) -> Option<ElementType> {
    if let Some(f) = FloatType::from_mlir_name(id) {
        return Some(ElementType::Float(f));
    }
    let (signedness, digits) = if let Some(d) = id.strip_prefix("si") {
        (Signedness::Signed, d)
    } else if let Some(d) = id.strip_prefix("ui") {
        (Signedness::Unsigned, d)
    } else {
        (Signedness::Signless, id.strip_prefix('i')?)
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // MLIR's `IntegerType::kMaxWidth`.
    let width: u32 = digits.parse().ok().filter(|&w| w < (1 << 24))?;
    Some(ElementType::Integer { width, signedness })
}

/// A tensor's encoding attribute.
fn parse_encoding(c: &mut Cursor<'_>) -> Result<Encoding> {
    let start = c.pos();
    let at = c.location();
    if !c.eat(b'#') {
        return Err(c.error("expected encoding attribute"));
    }
    let name = c.suffix_id().unwrap_or_default();
    if c.peek() != Some(b'<') {
        return Ok(Encoding::Other(c.text()[start..c.pos()].into()));
    }
    let group_start = c.pos();
    let group = c.skip_group()?;
    let inner = &group[1..group.len() - 1];
    let list = match name {
        "stablehlo.bounds" => Some((inner, group_start + 1)),
        "mhlo.type_extensions" => {
            let trimmed = inner.trim_start();
            trimmed
                .strip_prefix("bounds")
                .map(str::trim_start)
                .and_then(|s| s.strip_prefix('='))
                .map(str::trim)
                .and_then(|s| s.strip_prefix('['))
                .and_then(|s| s.strip_suffix(']'))
                .map(|s| (s, group_start + 1))
        }
        _ => None,
    };
    match list {
        Some((list, _)) => parse_bounds(list).map(Encoding::Bounds).ok_or_else(|| {
            error_at(
                at,
                format!("invalid bounds in {}", &c.text()[start..c.pos()]),
            )
        }),
        None => Ok(Encoding::Other(c.text()[start..c.pos()].into())),
    }
}

/// `4, ?` as bounds.
fn parse_bounds(list: &str) -> Option<Vec<i64>> {
    if list.trim().is_empty() {
        return Some(Vec::new());
    }
    list.split(',')
        .map(|b| match b.trim() {
            "?" => Some(DYNAMIC),
            n if !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()) => n.parse().ok(),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(t: &str) -> String {
        match t.parse::<Type>().and_then(|t| t.to_shape()) {
            Ok(s) => s.to_string(),
            Err(e) => format!("error: {e}"),
        }
    }

    #[test]
    fn types_print_as_written() {
        for t in [
            "tensor<2x3xf32>",
            "tensor<f32>",
            "tensor<?x3xf32, #stablehlo.bounds<4, ?>>",
            "tensor<*xf32>",
            "tuple<tensor<2xf32>, !stablehlo.token>",
            "tuple<>",
            "!stablehlo.token",
            "tensor<2xcomplex<f64>>",
            "tensor<2x!quant.uniform<i8:f32, 1.000000e+00:3>>",
            "tensor<4xui4>",
            "tensor<4xsi8>",
            "vector<2x3xf32>",
            "i32",
            "tensor<2xf32, #foo.bar<1>>",
        ] {
            assert_eq!(t.parse::<Type>().unwrap().to_string(), t);
        }
        assert_eq!(
            "tensor<?xf32, #mhlo.type_extensions<bounds = [4]>>"
                .parse::<Type>()
                .unwrap()
                .to_string(),
            "tensor<?xf32, #stablehlo.bounds<4>>"
        );
    }

    #[test]
    fn shapes_as_type_to_shape_makes_them() {
        assert_eq!(shape("tensor<2x3xf32>"), "f32[2,3]{1,0}");
        assert_eq!(shape("tensor<?x3xf32>"), "f32[?,3]{1,0}");
        assert_eq!(
            shape("tensor<?x3xf32, #stablehlo.bounds<4, ?>>"),
            "f32[<=4,3]{1,0}"
        );
        assert_eq!(shape("tensor<2xui1>"), "pred[2]{0}");
        assert_eq!(shape("tensor<2x!quant.uniform<u8:f32, 1.0:3>>"), "u8[2]{0}");
        assert_eq!(
            shape("tuple<tensor<2xf32>, !stablehlo.token>"),
            "(f32[2]{0}, token[])"
        );
        assert!(shape("tensor<2xtf32>").starts_with("error: Shape Error: Invalid element type."));
        assert!(
            shape("tensor<2x3xf32, #stablehlo.bounds<4, ?>>").starts_with("error: Shape Error")
        );
        assert!(shape("tensor<2xi3>").starts_with("error: Shape Error"));
    }

    #[test]
    fn deep_tuples_stop_at_the_limit() {
        let deep = format!("{}tensor<f32>{}", "tuple<".repeat(200), ">".repeat(200));
        let err = deep.parse::<Type>().unwrap_err();
        assert!(err.message().contains("nesting exceeds"), "{err}");
    }
}
