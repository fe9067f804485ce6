//! The attribute and type tables of MLIR bytecode, decoded on demand: the
//! builtin dialect's encoding (`mlir/include/mlir/IR/BuiltinDialectBytecode.td`,
//! `mlir/lib/IR/BuiltinDialectBytecode.cpp`), VHLO's
//! (`stablehlo/dialect/VhloBytecode.cpp`, its `AttributeCode` and
//! `TypeCode`), Shardy's (`shardy/dialect/sdy/ir/bytecode.td`), and the
//! assembly-format fallback (the entry's text).
//!
//! Entries refer to others by index, so a table is a graph: each entry is
//! decoded once (memoized), nesting stops at [`MAX_NESTING_DEPTH`], and
//! everything built from entries (types, text) is charged to a budget of a
//! fixed multiple of the input, so that a small input cannot expand into a
//! large model.

use std::fmt::Write as _;
use std::rc::Rc;

use super::reader::{Reader, error_at};
use crate::error::Result;
use crate::limits::MAX_NESTING_DEPTH;
use crate::model::write_joined;
use crate::stablehlo::types::{
    ElementType, Encoding, FloatType, Signedness, TensorType, Type, TypeParser,
};

/// One entry of the attribute or type table.
pub(crate) struct Entry<'a> {
    /// The index of its dialect.
    pub dialect: usize,
    /// Whether the dialect encoded it (else its assembly text).
    pub custom: bool,
    /// Its bytes, and where they start in the input.
    pub data: &'a [u8],
    pub offset: usize,
}

/// A decoded attribute. Nested attributes and types stay indices into the
/// tables.
#[derive(Debug)]
pub(crate) enum Attr {
    Unit,
    Bool(bool),
    /// An integer of type `ty`, its bits as the type reads them.
    Int {
        value: i128,
        ty: u64,
    },
    /// A float of type `ty`, as its bits.
    Float {
        bits: u128,
        ty: u64,
    },
    Str(String),
    Array(Vec<u64>),
    Dict(Vec<(u64, u64)>),
    Type(u64),
    /// `#stablehlo.bounds` (VHLO's `TypeExtensionsV1Attr`).
    Bounds(Vec<i64>),
    /// Dense elements of a shaped type, their raw bytes at `data` in the
    /// input (i1 elements of VHLO tensors packed eight to a byte).
    Dense {
        ty: u64,
        data: std::ops::Range<usize>,
        packed_bools: bool,
    },
    /// `@root::@nested`.
    SymbolRef(u64, Vec<u64>),
    /// An enumeration value of a dialect (`comparison_direction`, ...).
    Enum(&'static str, u64),
    Loc(Loc),
    Sdy(Sdy),
    /// The assembly text of an entry the dialect did not encode.
    Text(String),
    /// An attribute this reader does not decode: its dialect and code.
    Unknown(String),
}

/// A location attribute.
#[derive(Debug)]
pub(crate) enum Loc {
    Unknown,
    /// `"name"(child)`.
    Name(u64, u64),
    /// `callsite(callee at caller)`.
    CallSite(u64, u64),
    /// `"file":line:col [to ...]`: the filename attribute and 0 to 4
    /// numbers (`FileLineColRange`).
    File(u64, Vec<u64>),
    /// `fused<metadata>[...]`.
    Fused(Vec<u64>, Option<u64>),
}

/// A Shardy attribute (`bytecode.td`'s `SdyDialectTypes`).
#[derive(Debug)]
pub(crate) enum Sdy {
    ManualAxes(Vec<u64>),
    MeshAxis(String, i64),
    Mesh(Vec<u64>, Vec<i64>),
    SubAxis(i64, i64),
    AxisRef(String, Option<u64>),
    Dim {
        axes: Vec<u64>,
        closed: bool,
        priority: Option<u64>,
    },
    Sharding {
        mesh: u64,
        dims: Vec<u64>,
        replicated: Vec<u64>,
        unreduced: Vec<u64>,
    },
    PerValue(Vec<u64>),
}

/// The type forms both the builtin and the VHLO dialect encode, each the
/// same way (`BuiltinDialectBytecode.td`, `VhloBytecode.cpp`).
enum Form {
    /// `elementType: Type`.
    Complex,
    /// `inputs: Type[]`, `outputs: Type[]`.
    Function,
    /// `shape: svarint[]`, `elementType: Type`.
    Tensor,
    /// `encoding: Attribute`, then as `Tensor`.
    EncodedTensor,
    /// As `Tensor`.
    Vector,
    /// `elementTypes: Type[]`.
    Tuple,
    /// `elementType: Type`.
    Unranked,
}

/// A decoded type: a value's type, or a function's.
#[derive(Clone, Debug)]
pub(crate) enum Ty {
    Value(Type),
    Function(Vec<Type>, Vec<Type>),
}

/// The attribute and type tables with their memos and the expansion
/// budget.
pub(crate) struct Tables<'a> {
    pub strings: Vec<&'a [u8]>,
    pub dialects: Vec<&'a str>,
    pub attrs: Vec<Entry<'a>>,
    pub types: Vec<Entry<'a>>,
    attr_memo: Vec<Option<Rc<Attr>>>,
    type_memo: Vec<Option<(Rc<Ty>, usize)>>,
    /// Units (bytes of text, nodes of types) still allowed.
    budget: usize,
    /// The input, for dense data.
    input: &'a [u8],
    /// Entries being decoded or printed, one inside another: the nesting
    /// of the graph (which may have cycles) however it is reached.
    active: usize,
}

/// A string of the string table as text (invalid UTF-8 replaced).
pub(crate) fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

impl<'a> Tables<'a> {
    pub(crate) fn new(
        input: &'a [u8],
        strings: Vec<&'a [u8]>,
        dialects: Vec<&'a str>,
        attrs: Vec<Entry<'a>>,
        types: Vec<Entry<'a>>,
    ) -> Self {
        let mut attr_memo = Vec::new();
        attr_memo.resize_with(attrs.len(), || None);
        let mut type_memo = Vec::new();
        type_memo.resize_with(types.len(), || None);
        Tables {
            strings,
            dialects,
            attrs,
            types,
            attr_memo,
            type_memo,
            budget: input.len().saturating_mul(16).saturating_add(1 << 16),
            input,
            active: 0,
        }
    }

    /// Enters one more level of nested entries.
    fn enter(&mut self, at: usize) -> Result<()> {
        if self.active >= 2 * MAX_NESTING_DEPTH {
            return Err(error_at(
                at,
                format!(
                    "attributes and types nest deeper than {} levels",
                    2 * MAX_NESTING_DEPTH
                ),
            ));
        }
        self.active += 1;
        Ok(())
    }

    /// Charges `units` to the budget.
    pub(crate) fn charge(&mut self, units: usize, at: usize) -> Result<()> {
        if units > self.budget {
            return Err(error_at(
                at,
                "the attributes and types expand beyond 16 times the size of the input",
            ));
        }
        self.budget -= units;
        Ok(())
    }

    /// The string at `index` of the string table.
    pub(crate) fn string(&self, r: &Reader<'_>, index: u64) -> Result<&'a [u8]> {
        usize::try_from(index)
            .ok()
            .and_then(|i| self.strings.get(i).copied())
            .ok_or_else(|| r.error(format!("invalid string index: {index}")))
    }

    /// A string read as a string-table index.
    fn read_string(&self, r: &mut Reader<'_>) -> Result<String> {
        let i = r.varint()?;
        Ok(text(self.string(r, i)?))
    }

    /// The attribute at `index`, decoded.
    pub(crate) fn attr(&mut self, index: u64, at: usize) -> Result<Rc<Attr>> {
        let i = usize::try_from(index)
            .ok()
            .filter(|&i| i < self.attrs.len())
            .ok_or_else(|| error_at(at, format!("invalid Attribute index: {index}")))?;
        if let Some(a) = &self.attr_memo[i] {
            return Ok(a.clone());
        }
        self.enter(at)?;
        let attr = self.decode_attr(i);
        self.active -= 1;
        let attr = Rc::new(attr?);
        self.attr_memo[i] = Some(attr.clone());
        Ok(attr)
    }

    fn decode_attr(&mut self, i: usize) -> Result<Attr> {
        let entry = &self.attrs[i];
        let mut r = Reader::new(entry.data, entry.offset);
        let dialect = self.dialects.get(entry.dialect).copied().unwrap_or("");
        let attr = if !entry.custom {
            let t = r.c_string()?;
            self.charge(t.len(), entry.offset)?;
            Attr::Text(text(t))
        } else {
            match dialect {
                "builtin" => self.builtin_attr(&mut r)?,
                "vhlo" => self.vhlo_attr(&mut r)?,
                "sdy" => self.sdy_attr(&mut r)?,
                _ => Attr::Unknown(format!("#{dialect}<attribute>")),
            }
        };
        Ok(attr)
    }

    /// The string of a string attribute at `index` (builtin or VHLO), or
    /// its text.
    pub(crate) fn attr_string(&mut self, index: u64, at: usize) -> Result<String> {
        match &*self.attr(index, at)? {
            Attr::Str(s) => Ok(s.clone()),
            _ => {
                let mut out = String::new();
                self.render(index, at, 0, &mut out)?;
                Ok(out)
            }
        }
    }

    fn list(&self, r: &mut Reader<'_>) -> Result<Vec<u64>> {
        let n = r.count("list items")?;
        (0..n).map(|_| r.varint()).collect()
    }

    fn signed_list(&self, r: &mut Reader<'_>) -> Result<Vec<i64>> {
        let n = r.count("list items")?;
        (0..n).map(|_| r.signed_varint()).collect()
    }

    fn blob(&self, r: &mut Reader<'_>) -> Result<std::ops::Range<usize>> {
        let n = r.varint()?;
        let start = r.offset();
        let data = r.bytes(n)?;
        Ok(start..start + data.len())
    }

    /// `readAPIntWithKnownWidth`: a byte up to 8 bits, a signed varint up
    /// to 64, else the active words.
    fn ap_int(&self, r: &mut Reader<'_>, width: u32) -> Result<u128> {
        if width <= 8 {
            return Ok(u128::from(r.byte()?));
        }
        if width <= 64 {
            return Ok(u128::from(r.signed_varint()? as u64));
        }
        let words = r.count("words")?;
        let mut value = 0u128;
        for i in 0..words {
            let w = r.signed_varint()? as u64;
            if i < 2 {
                value |= u128::from(w) << (64 * i);
            }
        }
        Ok(value)
    }

    /// The bit width of an integer type for `IntegerAttr` (index: 64).
    fn int_width(&mut self, ty: u64, at: usize) -> Result<(u32, bool)> {
        match &*self.ty(ty, at, 0)? {
            Ty::Value(Type::Scalar(ElementType::Integer { width, signedness })) => {
                Ok((*width, *signedness == Signedness::Unsigned))
            }
            Ty::Value(Type::Scalar(ElementType::Index)) => Ok((64, false)),
            _ => Err(error_at(at, "expected an integer type")),
        }
    }

    fn float_width(&mut self, ty: u64, at: usize) -> Result<u32> {
        let width = match &*self.ty(ty, at, 0)? {
            Ty::Value(Type::Scalar(ElementType::Float(f))) => match f {
                FloatType::Bf16 | FloatType::F16 => 16,
                FloatType::Tf32 => 19,
                FloatType::F32 => 32,
                FloatType::F64 => 64,
                FloatType::F80 => 80,
                FloatType::F128 => 128,
                FloatType::F6E2M3FN | FloatType::F6E3M2FN => 6,
                FloatType::F4E2M1FN => 4,
                _ => 8,
            },
            _ => return Err(error_at(at, "expected a floating-point type")),
        };
        Ok(width)
    }

    fn int_attr(&mut self, r: &mut Reader<'_>) -> Result<Attr> {
        let at = r.offset();
        let ty = r.varint()?;
        let (width, unsigned) = self.int_width(ty, at)?;
        let bits = self.ap_int(r, width)?;
        let value = if width >= 128 {
            bits as i128
        } else {
            let masked = bits & ((1u128 << width) - 1);
            if !unsigned && width > 0 && masked >> (width - 1) & 1 == 1 {
                masked as i128 - (1i128 << width)
            } else {
                masked as i128
            }
        };
        Ok(Attr::Int { value, ty })
    }

    fn float_attr(&mut self, r: &mut Reader<'_>) -> Result<Attr> {
        let at = r.offset();
        let ty = r.varint()?;
        let width = self.float_width(ty, at)?;
        let bits = self.ap_int(r, width)?;
        Ok(Attr::Float { bits, ty })
    }

    /// The builtin dialect's attributes (`BuiltinDialectAttributes`, in
    /// the order of their codes).
    fn builtin_attr(&mut self, r: &mut Reader<'_>) -> Result<Attr> {
        let code = r.varint()?;
        Ok(match code {
            0 => Attr::Array(self.list(r)?),
            1 => dict(r)?,
            2 | 3 => {
                let s = self.read_string(r)?;
                self.charge(s.len(), r.offset())?;
                Attr::Str(s)
            }
            4 => Attr::SymbolRef(r.varint()?, Vec::new()),
            5 => {
                let root = r.varint()?;
                Attr::SymbolRef(root, self.list(r)?)
            }
            6 => Attr::Type(r.varint()?),
            7 => Attr::Unit,
            8 => {
                let attr = self.int_attr(r)?;
                match attr {
                    Attr::Int { value, ty } if self.is_i1(ty, r.offset())? => {
                        Attr::Bool(value != 0)
                    }
                    a => a,
                }
            }
            9 => self.float_attr(r)?,
            10 => Attr::Loc(Loc::CallSite(r.varint()?, r.varint()?)),
            11 => {
                let file = r.varint()?;
                let line = r.varint()?;
                let col = r.varint()?;
                Attr::Loc(Loc::File(file, vec![line, col]))
            }
            12 => Attr::Loc(Loc::Fused(self.list(r)?, None)),
            13 => {
                let locs = self.list(r)?;
                Attr::Loc(Loc::Fused(locs, Some(r.varint()?)))
            }
            14 => Attr::Loc(Loc::Name(r.varint()?, r.varint()?)),
            15 => Attr::Loc(Loc::Unknown),
            18 => {
                let ty = r.varint()?;
                let data = self.blob(r)?;
                Attr::Dense {
                    ty,
                    data,
                    packed_bools: false,
                }
            }
            22 => {
                let file = r.varint()?;
                let numbers = self.list(r)?;
                if numbers.len() > 4 {
                    return Err(r.error("a file location has at most 4 numbers"));
                }
                Attr::Loc(Loc::File(file, numbers))
            }
            _ => Attr::Unknown(format!("#builtin<attribute {code}>")),
        })
    }

    fn is_i1(&mut self, ty: u64, at: usize) -> Result<bool> {
        Ok(matches!(
            &*self.ty(ty, at, 0)?,
            Ty::Value(Type::Scalar(ElementType::Integer { width: 1, .. }))
        ))
    }

    /// VHLO's attributes (`vhlo_encoding::AttributeCode`).
    fn vhlo_attr(&mut self, r: &mut Reader<'_>) -> Result<Attr> {
        let at = r.offset();
        let code = r.varint()?;
        Ok(match code {
            1 => Attr::Array(self.list(r)?),
            2 => match r.varint()? {
                0 => Attr::Bool(false),
                1 => Attr::Bool(true),
                v => return Err(error_at(at, format!("unsupported value: {v}"))),
            },
            3 => Attr::Enum("comparison_direction", r.varint()?),
            4 => Attr::Enum("comparison_type", r.varint()?),
            5 => Attr::Enum("custom_call_api_version", r.varint()?),
            6 => dict(r)?,
            7 => Attr::Enum("fft_type", r.varint()?),
            8 => self.float_attr(r)?,
            9 => self.int_attr(r)?,
            11 => Attr::Enum("precision", r.varint()?),
            12 => Attr::Enum("rng_algorithm", r.varint()?),
            13 => Attr::Enum("rng_distribution", r.varint()?),
            14 => {
                let s = self.read_string(r)?;
                self.charge(s.len(), r.offset())?;
                Attr::Str(s)
            }
            15 => {
                let ty = r.varint()?;
                let data = self.blob(r)?;
                Attr::Dense {
                    ty,
                    data,
                    packed_bools: true,
                }
            }
            16 => Attr::Enum("transpose", r.varint()?),
            17 => Attr::Type(r.varint()?),
            18 => Attr::Bounds(self.signed_list(r)?),
            19 => Attr::Enum("result_accuracy_mode", r.varint()?),
            _ => Attr::Unknown(format!("#vhlo<attribute {code}>")),
        })
    }

    /// Shardy's attributes (`SdyDialectTypes` of `bytecode.td`).
    fn sdy_attr(&mut self, r: &mut Reader<'_>) -> Result<Attr> {
        let code = r.varint()?;
        let sdy = match code {
            0 => Sdy::ManualAxes(self.list(r)?),
            1 => {
                let name = self.read_string(r)?;
                Sdy::MeshAxis(name, r.signed_varint()?)
            }
            2 => {
                let axes = self.list(r)?;
                Sdy::Mesh(axes, self.signed_list(r)?)
            }
            3 => Sdy::SubAxis(r.signed_varint()?, r.signed_varint()?),
            4 => {
                let name = self.read_string(r)?;
                let (index, present) = r.varint_with_flag()?;
                Sdy::AxisRef(name, present.then_some(index))
            }
            5 => {
                let axes = self.list(r)?;
                let closed = r.byte()? != 0;
                let (priority, present) = r.varint_with_flag()?;
                Sdy::Dim {
                    axes,
                    closed,
                    priority: present.then_some(priority),
                }
            }
            6 | 15 | 17 => {
                let mesh = r.varint()?;
                let dims = self.list(r)?;
                let replicated = self.list(r)?;
                let unreduced = if code == 6 { Vec::new() } else { self.list(r)? };
                Sdy::Sharding {
                    mesh,
                    dims,
                    replicated,
                    unreduced,
                }
            }
            7 | 16 => Sdy::PerValue(self.list(r)?),
            _ => return Ok(Attr::Unknown(format!("#sdy<attribute {code}>"))),
        };
        Ok(Attr::Sdy(sdy))
    }

    /// The type at `index`, decoded, at nesting `depth`.
    pub(crate) fn ty(&mut self, index: u64, at: usize, depth: usize) -> Result<Rc<Ty>> {
        Ok(self.ty_weighed(index, at, depth)?.0)
    }

    /// The value type at `index` (a function type is an error), charged
    /// to the budget.
    pub(crate) fn value_type(&mut self, index: u64, at: usize) -> Result<Type> {
        let (ty, weight) = self.ty_weighed(index, at, 0)?;
        self.charge(weight, at)?;
        match &*ty {
            Ty::Value(t) => Ok(t.clone()),
            Ty::Function(..) => Err(error_at(at, "expected a value type, found a function type")),
        }
    }

    /// The type and its weight (the nodes a copy of it holds).
    fn ty_weighed(&mut self, index: u64, at: usize, depth: usize) -> Result<(Rc<Ty>, usize)> {
        let i = usize::try_from(index)
            .ok()
            .filter(|&i| i < self.types.len())
            .ok_or_else(|| error_at(at, format!("invalid Type index: {index}")))?;
        if let Some((t, w)) = &self.type_memo[i] {
            return Ok((t.clone(), *w));
        }
        if depth >= MAX_NESTING_DEPTH {
            return Err(error_at(
                at,
                format!("type nesting exceeds the limit of {MAX_NESTING_DEPTH} levels"),
            ));
        }
        self.enter(at)?;
        let decoded = self.decode_type(i, depth);
        self.active -= 1;
        let (ty, weight) = decoded?;
        self.charge(weight, at)?;
        let ty = Rc::new(ty);
        self.type_memo[i] = Some((ty.clone(), weight));
        Ok((ty, weight))
    }

    fn decode_type(&mut self, i: usize, depth: usize) -> Result<(Ty, usize)> {
        let entry = &self.types[i];
        let offset = entry.offset;
        let mut r = Reader::new(entry.data, offset);
        let dialect = self.dialects.get(entry.dialect).copied().unwrap_or("");
        let (ty, weight) = if !entry.custom {
            let t = text(r.c_string()?);
            let parsed = {
                let mut c = crate::stablehlo::cursor::Cursor::new(&t);
                TypeParser::default()
                    .parse_type(&mut c)
                    .ok()
                    .filter(|_| c.at_end())
            };
            let weight = t.len() + 1;
            (
                Ty::Value(parsed.unwrap_or_else(|| Type::Other(t.into()))),
                weight,
            )
        } else {
            match dialect {
                "builtin" => self.builtin_type(&mut r, depth)?,
                "vhlo" => self.vhlo_type(&mut r, depth)?,
                _ => (Ty::Value(Type::Other(format!("!{dialect}.type").into())), 1),
            }
        };
        Ok((ty, weight))
    }

    /// A nested value type and its weight.
    fn nested(&mut self, r: &mut Reader<'_>, depth: usize) -> Result<(Type, usize)> {
        let at = r.offset();
        let index = r.varint()?;
        let (ty, weight) = self.ty_weighed(index, at, depth + 1)?;
        match &*ty {
            Ty::Value(t) => Ok((t.clone(), weight)),
            Ty::Function(..) => Err(error_at(at, "expected a value type, found a function type")),
        }
    }

    fn nested_list(&mut self, r: &mut Reader<'_>, depth: usize) -> Result<(Vec<Type>, usize)> {
        let n = r.count("types")?;
        let mut types = Vec::with_capacity(n);
        let mut weight: usize = 1;
        for _ in 0..n {
            let (t, w) = self.nested(r, depth)?;
            weight = weight.saturating_add(w);
            types.push(t);
        }
        Ok((types, weight))
    }

    fn element(&mut self, r: &mut Reader<'_>, depth: usize) -> Result<(ElementType, usize)> {
        let at = r.offset();
        let (t, w) = self.nested(r, depth)?;
        Ok((
            match t {
                Type::Scalar(e) => e,
                Type::Other(text) => ElementType::Other(text),
                other => {
                    return Err(error_at(
                        at,
                        format!("expected element type, found {other}"),
                    ));
                }
            },
            w,
        ))
    }

    fn shaped(
        &mut self,
        r: &mut Reader<'_>,
        depth: usize,
        encoding: Option<Encoding>,
    ) -> Result<(TensorType, usize)> {
        let dims = self.signed_list(r)?;
        let (element, w) = self.element(r, depth)?;
        let weight = w.saturating_add(dims.len() + 1);
        Ok((
            TensorType {
                dimensions: Some(dims),
                element,
                encoding,
            },
            weight,
        ))
    }

    fn encoding(&mut self, r: &mut Reader<'_>) -> Result<Encoding> {
        let at = r.offset();
        let index = r.varint()?;
        Ok(match &*self.attr(index, at)? {
            Attr::Bounds(b) => Encoding::Bounds(b.clone()),
            _ => {
                let mut out = String::new();
                self.render(index, at, 0, &mut out)?;
                Encoding::Other(out.into())
            }
        })
    }

    /// The type forms the builtin and VHLO dialects encode alike.
    fn form(&mut self, r: &mut Reader<'_>, depth: usize, form: Form) -> Result<(Ty, usize)> {
        Ok(match form {
            Form::Complex => {
                let (e, w) = self.element(r, depth)?;
                let e = ElementType::Complex(Box::new(e));
                (Ty::Value(Type::Scalar(e)), w + 1)
            }
            Form::Function => {
                let (inputs, w1) = self.nested_list(r, depth)?;
                let (results, w2) = self.nested_list(r, depth)?;
                (Ty::Function(inputs, results), w1.saturating_add(w2))
            }
            Form::Tensor | Form::EncodedTensor => {
                let encoding = if matches!(form, Form::EncodedTensor) {
                    Some(self.encoding(r)?)
                } else {
                    None
                };
                let (t, w) = self.shaped(r, depth, encoding)?;
                (Ty::Value(Type::Tensor(t)), w)
            }
            Form::Vector => {
                let (t, w) = self.shaped(r, depth, None)?;
                (Ty::Value(Type::Vector(t)), w)
            }
            Form::Tuple => {
                let (types, w) = self.nested_list(r, depth)?;
                (Ty::Value(Type::Tuple(types)), w)
            }
            Form::Unranked => {
                let (element, w) = self.element(r, depth)?;
                let t = TensorType {
                    dimensions: None,
                    element,
                    encoding: None,
                };
                (Ty::Value(Type::Tensor(t)), w + 1)
            }
        })
    }

    /// The builtin dialect's types (`BuiltinDialectTypes`).
    fn builtin_type(&mut self, r: &mut Reader<'_>, depth: usize) -> Result<(Ty, usize)> {
        let code = r.varint()?;
        let scalar = |e| (Ty::Value(Type::Scalar(e)), 1);
        let float = |f| scalar(ElementType::Float(f));
        Ok(match code {
            0 => {
                let v = r.varint()?;
                let width = u32::try_from(v >> 2)
                    .ok()
                    .filter(|&w| w < 1 << 24)
                    .ok_or_else(|| r.error("integer width out of range"))?;
                let signedness = match v & 3 {
                    0 => Signedness::Signless,
                    1 => Signedness::Signed,
                    _ => Signedness::Unsigned,
                };
                scalar(ElementType::Integer { width, signedness })
            }
            1 => scalar(ElementType::Index),
            2 => self.form(r, depth, Form::Function)?,
            3 => float(FloatType::Bf16),
            4 => float(FloatType::F16),
            5 => float(FloatType::F32),
            6 => float(FloatType::F64),
            7 => float(FloatType::F80),
            8 => float(FloatType::F128),
            9 => self.form(r, depth, Form::Complex)?,
            // `none` as the text reader reads it: a type of its own, an
            // element (`tensor<2xnone>`) where one is wanted.
            12 => (Ty::Value(Type::Other("none".into())), 1),
            13 => self.form(r, depth, Form::Tensor)?,
            14 => self.form(r, depth, Form::EncodedTensor)?,
            15 => self.form(r, depth, Form::Tuple)?,
            18 => self.form(r, depth, Form::Unranked)?,
            19 => self.form(r, depth, Form::Vector)?,
            _ => (
                Ty::Value(Type::Other(format!("!builtin.type{code}").into())),
                1,
            ),
        })
    }

    /// VHLO's types (`vhlo_encoding::TypeCode`).
    fn vhlo_type(&mut self, r: &mut Reader<'_>, depth: usize) -> Result<(Ty, usize)> {
        let code = r.varint()?;
        let scalar = |e| (Ty::Value(Type::Scalar(e)), 1);
        let float = |f| scalar(ElementType::Float(f));
        let int = |width, signedness| scalar(ElementType::Integer { width, signedness });
        use Signedness::{Signless, Unsigned};
        Ok(match code {
            0 => int(1, Signless),
            1 => self.form(r, depth, Form::Complex)?,
            2 => float(FloatType::Bf16),
            3 => float(FloatType::F16),
            4 => float(FloatType::F32),
            5 => float(FloatType::F64),
            6 => float(FloatType::F8E4M3FN),
            7 => float(FloatType::F8E5M2),
            8 => self.form(r, depth, Form::Function)?,
            9 => scalar(ElementType::Index),
            31 => int(2, Signless),
            10 => int(4, Signless),
            11 => int(8, Signless),
            12 => int(16, Signless),
            13 => int(32, Signless),
            14 => int(64, Signless),
            32 => int(2, Unsigned),
            15 => int(4, Unsigned),
            16 => int(8, Unsigned),
            17 => int(16, Unsigned),
            18 => int(32, Unsigned),
            19 => int(64, Unsigned),
            20 => self.form(r, depth, Form::Tensor)?,
            21 => self.form(r, depth, Form::EncodedTensor)?,
            22 => (Ty::Value(Type::Token), 1),
            42 => {
                let (_, w) = self.nested_list(r, depth)?;
                (Ty::Value(Type::Token), w)
            }
            23 => self.form(r, depth, Form::Tuple)?,
            24 | 30 => self.quantized(r, depth, code == 30)?,
            25 => self.form(r, depth, Form::Unranked)?,
            26 => (Ty::Value(Type::Other("!shape.witness".into())), 1),
            27 => float(FloatType::F8E4M3FNUZ),
            28 => float(FloatType::F8E5M2FNUZ),
            29 => float(FloatType::F8E4M3B11FNUZ),
            33 => (Ty::Value(Type::Other("none".into())), 1),
            34 => float(FloatType::Tf32),
            35 => float(FloatType::F8E4M3),
            36 => float(FloatType::F8E3M4),
            37 => float(FloatType::F4E2M1FN),
            38 => float(FloatType::F6E2M3FN),
            39 => float(FloatType::F6E3M2FN),
            40 => float(FloatType::F8E8M0FNU),
            _ => (
                Ty::Value(Type::Other(format!("!vhlo.type{code}").into())),
                1,
            ),
        })
    }

    /// `UniformQuantizedV1Type` and `UniformQuantizedPerAxisV1Type`: the
    /// element type is the storage type, signed when bit 0 of the flags is
    /// set (`quant::QuantizationFlags::Signed`).
    fn quantized(
        &mut self,
        r: &mut Reader<'_>,
        depth: usize,
        per_axis: bool,
    ) -> Result<(Ty, usize)> {
        let flags = r.varint()?;
        let at = r.offset();
        let (storage, w1) = self.element(r, depth)?;
        let (expressed, w2) = self.element(r, depth)?;
        let width = match storage {
            ElementType::Integer { width, .. } => width,
            _ => return Err(error_at(at, "expected an integer storage type")),
        };
        let (storage_name, signedness) = if flags & 1 == 1 {
            ("i", Signedness::Signed)
        } else {
            ("u", Signedness::Unsigned)
        };
        let params = if per_axis {
            let axis = r.varint()?;
            let _min = r.signed_varint()?;
            let _max = r.signed_varint()?;
            let scales = r.count("scales")?;
            for _ in 0..scales {
                r.signed_varint()?;
            }
            let zero_points = r.count("zero points")?;
            for _ in 0..zero_points {
                r.signed_varint()?;
            }
            format!(":{axis}, {{{scales} scales}}")
        } else {
            let scale = f64::from_bits(r.signed_varint()? as u64);
            let zero_point = r.signed_varint()?;
            let _min = r.signed_varint()?;
            let _max = r.signed_varint()?;
            format!(", {}:{zero_point}", float_text(scale))
        };
        let text = format!("!quant.uniform<{storage_name}{width}:{expressed}{params}>");
        let weight = w1.saturating_add(w2).saturating_add(text.len());
        let e = ElementType::Quantized {
            storage: Box::new(ElementType::Integer { width, signedness }),
            text: text.into(),
        };
        Ok((Ty::Value(Type::Scalar(e)), weight))
    }

    /// Appends the MLIR text of each attribute of `items`, separated by
    /// `, ` (the elements of an array, a mesh's axes, a dimension's axes).
    fn render_list(
        &mut self,
        items: &[u64],
        at: usize,
        depth: usize,
        out: &mut String,
    ) -> Result<()> {
        for (i, &item) in items.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            self.render(item, at, depth, out)?;
        }
        Ok(())
    }

    /// Appends the MLIR text of the attribute at `index`, charged to the
    /// budget.
    pub(crate) fn render(
        &mut self,
        index: u64,
        at: usize,
        depth: usize,
        out: &mut String,
    ) -> Result<()> {
        if depth >= MAX_NESTING_DEPTH {
            return Err(error_at(
                at,
                format!("attribute nesting exceeds the limit of {MAX_NESTING_DEPTH} levels"),
            ));
        }
        self.enter(at)?;
        let result = self.render_entry(index, at, depth, out);
        self.active -= 1;
        result
    }

    fn render_entry(
        &mut self,
        index: u64,
        at: usize,
        depth: usize,
        out: &mut String,
    ) -> Result<()> {
        let before = out.len();
        let attr = self.attr(index, at)?;
        match &*attr {
            Attr::Unit => out.push_str("unit"),
            Attr::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Attr::Int { value, ty } => {
                let t = self.type_text(*ty, at)?;
                let _ = write!(out, "{value} : {t}");
            }
            Attr::Float { bits, ty } => {
                let width = self.float_width(*ty, at)?;
                let t = self.type_text(*ty, at)?;
                match width {
                    32 => out.push_str(&float_text(f64::from(f32::from_bits(*bits as u32)))),
                    64 => out.push_str(&float_text(f64::from_bits(*bits as u64))),
                    _ => {
                        let _ = write!(out, "0x{bits:X}");
                    }
                }
                let _ = write!(out, " : {t}");
            }
            Attr::Str(s) => quote(s, out),
            Attr::Array(items) => {
                out.push('[');
                self.render_list(items, at, depth + 1, out)?;
                out.push(']');
            }
            Attr::Dict(pairs) => {
                out.push('{');
                for (i, &(name, value)) in pairs.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    let name = self.attr_string(name, at)?;
                    if !name.is_empty()
                        && name
                            .bytes()
                            .all(|b| b.is_ascii_alphanumeric() || b"_.$-".contains(&b))
                    {
                        out.push_str(&name);
                    } else {
                        quote(&name, out);
                    }
                    if !matches!(&*self.attr(value, at)?, Attr::Unit) {
                        out.push_str(" = ");
                        self.render(value, at, depth + 1, out)?;
                    }
                }
                out.push('}');
            }
            Attr::Type(t) => {
                let t = self.type_text(*t, at)?;
                out.push_str(&t);
            }
            Attr::Bounds(bounds) => {
                out.push_str("#stablehlo.bounds<");
                for (i, &b) in bounds.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    if b == crate::stablehlo::DYNAMIC {
                        out.push('?');
                    } else {
                        let _ = write!(out, "{b}");
                    }
                }
                out.push('>');
            }
            Attr::Dense {
                ty,
                data,
                packed_bools,
            } => {
                let t = self.type_text(*ty, at)?;
                out.push_str("dense<");
                match self.dense_ints(*ty, data.clone(), *packed_bools, at)? {
                    Some((values, dims)) => write_dense(out, &values, &dims),
                    None => {
                        out.push_str("\"0x");
                        for b in &self.input[data.clone()] {
                            let _ = write!(out, "{b:02X}");
                        }
                        out.push('"');
                    }
                }
                let _ = write!(out, "> : {t}");
            }
            Attr::SymbolRef(root, nested) => {
                out.push('@');
                let s = self.attr_string(*root, at)?;
                out.push_str(&s);
                for &n in nested {
                    out.push_str("::");
                    self.render(n, at, depth + 1, out)?;
                }
            }
            Attr::Enum(kind, v) => {
                let _ = write!(out, "#vhlo<{kind} {v}>");
            }
            Attr::Loc(_) => {
                let _ = write!(out, "loc(#loc{index})");
            }
            Attr::Sdy(s) => self.render_sdy(s, at, depth, true, out)?,
            Attr::Text(t) | Attr::Unknown(t) => out.push_str(t),
        }
        let added = out.len() - before;
        self.charge(added, at)
    }

    /// The text of the type at `index`.
    pub(crate) fn type_text(&mut self, index: u64, at: usize) -> Result<String> {
        let t = self.ty(index, at, 0)?;
        let text = match &*t {
            Ty::Value(t) => t.to_string(),
            Ty::Function(inputs, results) => {
                let list = |ts: &[Type]| {
                    ts.iter()
                        .map(|t| t.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                format!("({}) -> ({})", list(inputs), list(results))
            }
        };
        self.charge(text.len(), at)?;
        Ok(text)
    }

    /// The integers of a dense attribute of an integer (or index) type and
    /// its dimensions; `None` for other element types.
    pub(crate) fn dense_ints(
        &mut self,
        ty: u64,
        data: std::ops::Range<usize>,
        packed_bools: bool,
        at: usize,
    ) -> Result<Option<(Vec<i64>, Vec<i64>)>> {
        let t = self.ty(ty, at, 0)?;
        let Ty::Value(Type::Tensor(TensorType {
            dimensions: Some(dims),
            element,
            ..
        })) = &*t
        else {
            return Ok(None);
        };
        let width = match element {
            ElementType::Integer { width, .. } if [8, 16, 32, 64].contains(width) => {
                *width as usize / 8
            }
            ElementType::Index => 8,
            ElementType::Integer { width: 1, .. } if !packed_bools => 1,
            _ => return Ok(None),
        };
        let bytes = &self.input[data];
        if !bytes.len().is_multiple_of(width) {
            return Err(error_at(at, "dense data is not a whole number of elements"));
        }
        self.charge(bytes.len(), at)?;
        let values = bytes
            .chunks_exact(width)
            .map(|c| {
                let mut le = [0u8; 8];
                le[..width].copy_from_slice(c);
                let v = u64::from_le_bytes(le);
                let shift = 64 - 8 * width as u32;
                ((v << shift) as i64) >> shift
            })
            .collect();
        Ok(Some((values, dims.clone())))
    }

    /// Shardy's printed forms: `#sdy.sharding<@mesh, [{"x"}, {}]>`,
    /// `#sdy.mesh<["x"=4]>`, ...; `prefix`: with the `#sdy.name` part.
    fn render_sdy(
        &mut self,
        s: &Sdy,
        at: usize,
        depth: usize,
        prefix: bool,
        out: &mut String,
    ) -> Result<()> {
        let d = depth + 1;
        match s {
            Sdy::ManualAxes(axes) => {
                out.push_str("#sdy<manual_axes{");
                self.render_list(axes, at, d, out)?;
                out.push_str("}>");
            }
            Sdy::MeshAxis(name, size) => {
                quote(name, out);
                let _ = write!(out, "={size}");
            }
            Sdy::Mesh(axes, device_ids) => {
                out.push_str(if prefix { "#sdy.mesh<[" } else { "mesh<[" });
                self.render_list(axes, at, d, out)?;
                out.push(']');
                if !device_ids.is_empty() {
                    out.push_str(", device_ids=[");
                    let _ = write_joined(out, device_ids, ", ");
                    out.push(']');
                }
                out.push('>');
            }
            Sdy::SubAxis(pre, size) => {
                let _ = write!(out, "({pre}){size}");
            }
            Sdy::AxisRef(name, sub) => {
                quote(name, out);
                if let Some(sub) = sub {
                    out.push(':');
                    self.render(*sub, at, d, out)?;
                }
            }
            Sdy::Dim {
                axes,
                closed,
                priority,
            } => {
                out.push('{');
                self.render_list(axes, at, d, out)?;
                if !closed {
                    out.push_str(if axes.is_empty() { "?" } else { ", ?" });
                }
                out.push('}');
                if let Some(p) = priority {
                    let _ = write!(out, "p{p}");
                }
            }
            Sdy::Sharding {
                mesh,
                dims,
                replicated,
                unreduced,
            } => {
                out.push_str(if prefix { "#sdy.sharding<" } else { "<" });
                match &*self.attr(*mesh, at)? {
                    Attr::Sdy(m @ Sdy::Mesh(..)) => self.render_sdy(m, at, d, false, out)?,
                    _ => self.render(*mesh, at, d, out)?,
                }
                out.push_str(", [");
                self.render_list(dims, at, d, out)?;
                out.push(']');
                for (key, axes) in [("replicated", replicated), ("unreduced", unreduced)] {
                    if axes.is_empty() {
                        continue;
                    }
                    let _ = write!(out, ", {key}={{");
                    self.render_list(axes, at, d, out)?;
                    out.push('}');
                }
                out.push('>');
            }
            Sdy::PerValue(shardings) => {
                out.push_str("#sdy.sharding_per_value<[");
                for (i, &s) in shardings.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    match &*self.attr(s, at)? {
                        Attr::Sdy(inner @ Sdy::Sharding { .. }) => {
                            self.render_sdy(inner, at, d, false, out)?;
                        }
                        _ => self.render(s, at, d, out)?,
                    }
                }
                out.push_str("]>");
            }
        }
        Ok(())
    }

    /// The text of the location attribute at `index` one level deep: its
    /// nested locations as `#loc{N}`, which
    /// [`location_alias`](Self::location_alias) defines.
    pub(crate) fn location_text(&mut self, index: u64, at: usize) -> Result<(String, Vec<u64>)> {
        let attr = self.attr(index, at)?;
        let Attr::Loc(loc) = &*attr else {
            return Ok(("unknown".to_owned(), Vec::new()));
        };
        let mut out = String::new();
        let mut children = Vec::new();
        match loc {
            Loc::Unknown => out.push_str("unknown"),
            Loc::Name(name, child) => {
                let name = self.attr_string(*name, at)?;
                quote(&name, &mut out);
                if !matches!(&*self.attr(*child, at)?, Attr::Loc(Loc::Unknown)) {
                    let _ = write!(out, "(#loc{child})");
                    children.push(*child);
                }
            }
            Loc::CallSite(callee, caller) => {
                let _ = write!(out, "callsite(#loc{callee} at #loc{caller})");
                children.extend([*callee, *caller]);
            }
            Loc::File(file, numbers) => {
                let file = self.attr_string(*file, at)?;
                quote(&file, &mut out);
                match numbers.as_slice() {
                    [] => {}
                    [l] => {
                        let _ = write!(out, ":{l}");
                    }
                    [l, c] => {
                        let _ = write!(out, ":{l}:{c}");
                    }
                    [l, c, c2] => {
                        let _ = write!(out, ":{l}:{c} to :{c2}");
                    }
                    [l, c, l2, c2, ..] => {
                        let _ = write!(out, ":{l}:{c} to {l2}:{c2}");
                    }
                }
            }
            Loc::Fused(locs, metadata) => {
                out.push_str("fused");
                if let Some(m) = metadata {
                    out.push('<');
                    self.render(*m, at, 1, &mut out)?;
                    out.push('>');
                }
                out.push('[');
                for (i, l) in locs.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    let _ = write!(out, "#loc{l}");
                }
                out.push(']');
                children.extend(locs.iter().copied());
            }
        }
        self.charge(out.len(), at)?;
        Ok((out, children))
    }
}

/// Writes `values` of a tensor with dimensions `dims` as MLIR prints dense
/// integers: a splat as one value, rank 1 as a list, higher ranks nested.
fn write_dense(out: &mut String, values: &[i64], dims: &[i64]) {
    let count: Option<usize> = dims
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(usize::try_from(d).ok()?));
    if dims.is_empty() || (values.len() == 1 && count != Some(1)) {
        if let Some(v) = values.first() {
            let _ = write!(out, "{v}");
        }
        return;
    }
    if count != Some(values.len()) {
        // Data that does not fit the type: the values as a list.
        nest(out, values, &[values.len() as i64]);
        return;
    }
    fn nest(out: &mut String, values: &[i64], dims: &[i64]) {
        out.push('[');
        let inner: usize = dims[1..].iter().map(|&d| d.max(0) as usize).product();
        let n = dims[0].max(0) as usize;
        for i in 0..n {
            if i > 0 {
                out.push_str(", ");
            }
            if dims.len() == 1 {
                if let Some(v) = values.get(i) {
                    let _ = write!(out, "{v}");
                }
            } else {
                let start = (i * inner).min(values.len());
                let end = ((i + 1) * inner).min(values.len());
                nest(out, &values[start..end], &dims[1..]);
            }
        }
        out.push(']');
    }
    nest(out, values, dims);
}

/// MLIR's printed float (`2.000000e+00`).
fn float_text(v: f64) -> String {
    if !v.is_finite() {
        return format!("{v}");
    }
    let s = format!("{v:.6e}");
    match s.split_once('e') {
        Some((mantissa, exp)) => {
            let (sign, digits) = match exp.strip_prefix('-') {
                Some(d) => ('-', d),
                None => ('+', exp),
            };
            format!("{mantissa}e{sign}{digits:0>2}")
        }
        None => s,
    }
}

/// A string as MLIR prints it (`llvm::printEscapedString`): `\\` for a
/// backslash, `\XX` for quotes and bytes that do not print.
pub(crate) fn quote(s: &str, out: &mut String) {
    out.push('"');
    for &b in s.as_bytes() {
        match b {
            b'\\' => out.push_str("\\\\"),
            b'"' => out.push_str("\\22"),
            0x20..=0x7E => out.push(b as char),
            _ => {
                let _ = write!(out, "\\{b:02X}");
            }
        }
    }
    out.push('"');
}

/// A dictionary attribute's body: a count, then each entry's name and
/// value as attribute indices (`DictionaryAttr`, builtin code 1; VHLO's
/// `DictionaryV1Attr`, code 6).
fn dict(r: &mut Reader<'_>) -> Result<Attr> {
    let n = r.count("named attributes")?;
    let mut pairs = Vec::with_capacity(n);
    for _ in 0..n {
        pairs.push((r.varint()?, r.varint()?));
    }
    Ok(Attr::Dict(pairs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_as_mlir() {
        assert_eq!(float_text(2.0), "2.000000e+00");
        assert_eq!(float_text(-0.5), "-5.000000e-01");
        assert_eq!(float_text(1e-300), "1.000000e-300");
    }

    #[test]
    fn dense_values() {
        let mut s = String::new();
        write_dense(&mut s, &[1, 0], &[2]);
        assert_eq!(s, "[1, 0]");
        s.clear();
        write_dense(&mut s, &[0], &[3]);
        assert_eq!(s, "0");
        s.clear();
        write_dense(&mut s, &[1, 2, 3, 4], &[2, 2]);
        assert_eq!(s, "[[1, 2], [3, 4]]");
    }
}
