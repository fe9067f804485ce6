//! StableHLO, JAX's default artifact: MLIR text as `jax.jit(f).lower(x)
//! .as_text()` writes it, read without MLIR. The reader knows MLIR's syntax
//! (operations, regions, attribute dictionaries, locations, aliases) and
//! the builtin and StableHLO types; it reads every function's signature and
//! attributes and every operation's result types, and skips what it need
//! not understand (operands, attributes of operations, the meaning of
//! each operation).
//!
//! From there it gives what XLA's own conversion gives
//! (`xla/hlo/translate/stablehlo.cc`, `ConvertStablehloToHlo`, which
//! `lowered.compiler_ir('hlo')` runs):
//!
//! - each type as an XLA [`Shape`](crate::Shape) (XLA's `TypeToShape`,
//!   `xla/hlo/translate/mhlo_to_hlo/type_to_shape.cc`), and a shape as its
//!   tensor type ([`Type`]);
//! - the entry computation's signature ([`Signature`]): the
//!   `entry_computation_layout` XLA prints after the conversion, the
//!   input/output aliasing from donation, and, beside it, what compilation
//!   applies that the conversion does not print (`mhlo.layout_mode`,
//!   `mhlo.memory_kind`, `xla/pjrt/utils.cc`).
//!
//! ```
//! use xla_shape::stablehlo::StableHloModule;
//!
//! let text = r#"
//! module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
//!   func.func public @main(%arg0: tensor<2x3xf32> {tf.aliasing_output = 0 : i32}) -> (tensor<3x2xf32> {jax.result_info = "result"}) {
//!     %0 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
//!     return %0 : tensor<3x2xf32>
//!   }
//! }
//! "#;
//! let module = StableHloModule::from_text(text)?;
//! let main = module.main().unwrap();
//! assert_eq!(main.arguments[0].ty.to_string(), "tensor<2x3xf32>");
//! let op = &main.operations[0];
//! assert_eq!((op.name.as_str(), op.location.line), ("stablehlo.transpose", 4));
//! assert_eq!(op.result_types[0].to_shape()?.to_string(), "f32[3,2]{1,0}");
//!
//! // XLA's conversion: a final transpose keeps its permuted layout.
//! let signature = module.signature()?;
//! assert_eq!(
//!     signature.entry_computation_layout().to_computation_layout_string(),
//!     "(f32[2,3]{1,0})->f32[3,2]{0,1}"
//! );
//! assert_eq!(signature.input_output_alias_string(), "{ {}: (0, {}, may-alias) }");
//! # Ok::<(), xla_shape::Error>(())
//! ```
//!
//! The reader is linear in its input and bounded in memory and recursion
//! ([`MAX_NESTING_DEPTH`] levels of regions and
//! of types); text that is not MLIR, or that it cannot go on with, is an
//! [`ErrorKind::Parse`](crate::ErrorKind::Parse) error whose message starts
//! with the line and column (`3:14: expected type`). Attributes it does not
//! know are kept as written, never an error.

mod bytecode;
mod cursor;
mod export;
mod flow;
mod parser;
mod signature;
mod types;

use std::collections::HashMap;

use crate::error::{Location, Result};
use crate::limits::MAX_NESTING_DEPTH;

pub use export::{AbstractMesh, Aval, JaxExport, NamedSharding, Sharding, is_jax_export};
pub use signature::{Alias, CompileLayout, LayoutMode, Signature, SignatureValue};
pub use types::{DYNAMIC, ElementType, Encoding, FloatType, Signedness, TensorType, Type};

/// An attribute of a module, function, argument or result:
/// `mhlo.sharding = "{replicated}"`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attribute {
    /// The name (`mhlo.sharding`).
    pub name: String,
    /// The value as written (`"{replicated}"`, `1 : i32`,
    /// `#sdy.sharding<@mesh, [{"x"}]>`); empty for a unit attribute.
    pub value: String,
    /// Where the attribute's name starts.
    pub location: Location,
}

impl Attribute {
    /// The value of a string attribute, escapes undone (`"{replicated}"`
    /// is `{replicated}`).
    pub fn as_str(&self) -> Option<String> {
        let v = self.value.trim();
        let inner = v.strip_prefix('"')?.strip_suffix('"')?;
        Some(cursor::unescape(inner))
    }

    /// The value of an integer attribute (`1 : i32` is 1).
    pub fn as_integer(&self) -> Option<i64> {
        let v = self.value.trim();
        let number = v.split_once(':').map_or(v, |(n, _)| n).trim();
        number.parse().ok()
    }

    /// The value of a boolean attribute (`true`, `false`).
    pub fn as_bool(&self) -> Option<bool> {
        match self.value.trim() {
            "true" => Some(true),
            "false" => Some(false),
            _ => None,
        }
    }
}

/// The attribute named `name` among `attributes`.
fn find<'a>(attributes: &'a [Attribute], name: &str) -> Option<&'a Attribute> {
    attributes.iter().find(|a| a.name == name)
}

/// An argument of a function: `%arg0: tensor<2xf32> {mhlo.sharding =
/// "{replicated}"} loc("x")`.
#[derive(Clone, Debug, PartialEq)]
pub struct Argument {
    /// The value's name, without `%` (`arg0`); empty in a declaration.
    pub name: String,
    /// The type.
    pub ty: Type,
    /// The argument's attributes.
    pub attributes: Vec<Attribute>,
    /// Its location as written, without `loc(...)` (`"x"`, `#loc3`).
    pub debug_location: Option<String>,
    /// Where the argument starts.
    pub location: Location,
}

impl Argument {
    /// The attribute named `name`.
    pub fn attribute(&self, name: &str) -> Option<&Attribute> {
        find(&self.attributes, name)
    }
}

/// A result of a function: its type and attributes.
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionResult {
    /// The type.
    pub ty: Type,
    /// The result's attributes (`jax.result_info`, `mhlo.sharding`, ...).
    pub attributes: Vec<Attribute>,
    /// Where the result's type starts.
    pub location: Location,
}

impl FunctionResult {
    /// The attribute named `name`.
    pub fn attribute(&self, name: &str) -> Option<&Attribute> {
        find(&self.attributes, name)
    }
}

/// One operation inside a function, at any depth of regions.
#[derive(Clone, Debug, PartialEq)]
pub struct Operation {
    /// The operation's name (`stablehlo.add`, `func.return`; `return` and
    /// `call` as written inside a function).
    pub name: String,
    /// Its results as written before `=` (`%0`, `%0:2`, `%a, %b`), empty
    /// when it has none.
    pub results: String,
    /// The type of each result, in order.
    pub result_types: Vec<Type>,
    /// Where the operation starts (its results, or its name).
    pub location: Location,
    /// Its location as written, without `loc(...)` (`#loc15`, `"x"`).
    pub debug_location: Option<String>,
    /// How many regions enclose it inside its function (0 for the
    /// function's own body).
    pub depth: usize,
}

/// A function (`func.func`).
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    /// The name, without `@`.
    pub name: String,
    /// `public`, `private`, `nested`, or `None` when not written (public).
    pub visibility: Option<String>,
    /// The arguments.
    pub arguments: Vec<Argument>,
    /// The results.
    pub results: Vec<FunctionResult>,
    /// The function's own attributes (`attributes {...}`).
    pub attributes: Vec<Attribute>,
    /// Every operation of the body, in order, nested regions included
    /// (each with its [`depth`](Operation::depth)); empty for a
    /// declaration.
    pub operations: Vec<Operation>,
    /// Where `func.func` starts.
    pub location: Location,
    /// The layout each result takes in XLA's conversion, from the body.
    pub(crate) result_facts: Vec<Option<flow::Fact>>,
}

impl Function {
    /// The attribute named `name`.
    pub fn attribute(&self, name: &str) -> Option<&Attribute> {
        find(&self.attributes, name)
    }
}

/// A Shardy mesh of the module: `sdy.mesh @mesh = <["x"=4, "y"=2]>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mesh {
    /// The mesh's name, without `@`.
    pub name: String,
    /// Its value as written (`<["x"=4, "y"=2]>`).
    pub value: String,
    /// Where `sdy.mesh` starts.
    pub location: Location,
}

/// A StableHLO module read from MLIR text: its attributes, meshes and
/// functions.
#[derive(Clone, Debug, PartialEq)]
pub struct StableHloModule {
    /// The module's name (`jit_f` of `module @jit_f`), if it has one.
    pub name: Option<String>,
    /// The module's attributes (`mhlo.num_partitions`, ...).
    pub attributes: Vec<Attribute>,
    /// The Shardy meshes.
    pub meshes: Vec<Mesh>,
    /// Every function, in order.
    pub functions: Vec<Function>,
    /// The location aliases (`#loc3 = loc("f.py":6:12)`): each name
    /// without `#` and the location as written (without `loc(...)`).
    pub location_aliases: Vec<(String, String)>,
    /// The index in `location_aliases` of each name.
    alias_index: HashMap<String, usize>,
    /// The producer of MLIR bytecode (`StableHLO_v1.15.0`); `None` for
    /// text.
    pub producer: Option<String>,
}

impl StableHloModule {
    /// Operation `slot` of function `function`, where a reader placed it
    /// before reading its body.
    pub(crate) fn operation_mut(
        &mut self,
        function: Option<usize>,
        slot: Option<usize>,
    ) -> Option<&mut Operation> {
        self.functions.get_mut(function?)?.operations.get_mut(slot?)
    }
}

impl StableHloModule {
    /// Reads MLIR text as JAX writes it (`lowered.as_text()`, with or
    /// without `debug_info`): a `module` (or the operations of one), with
    /// `#loc` aliases, type aliases and `{-# ... #-}` resources around it.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Parse`](crate::ErrorKind::Parse), with the line and
    /// column: text that is not MLIR (an operation without a name, brackets
    /// that do not match, a string left open), a type that does not parse,
    /// an operation whose result types cannot be found after its last `:`,
    /// regions or types nested deeper than
    /// [`MAX_NESTING_DEPTH`].
    pub fn from_text(text: &str) -> Result<StableHloModule> {
        parser::parse(text)
    }

    /// Reads MLIR bytecode as `jax.export` ships it
    /// (`Exported.mlir_module_serialized`, a StableHLO portable artifact:
    /// the VHLO dialect, version 1 of each operation mapped to its
    /// StableHLO name) into the same model as [`from_text`](Self::from_text):
    /// the signature, types and operations read from the bytes are those
    /// of the text the artifact deserializes to.
    ///
    /// What only the text has is made up as MLIR prints it: values are
    /// `%arg0`, `%0`, `%1:2`, ... per function; an operation's
    /// [`location`](Operation::location) has line 0 and the byte offset
    /// of the operation; debug locations are aliases `#locN` (N the index
    /// of the location in the bytecode's attribute table) defined in
    /// [`location_aliases`](Self::location_aliases).
    ///
    /// ```
    /// use xla_shape::stablehlo::StableHloModule;
    /// # let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/stablehlo/export/transpose.mlirbc")).unwrap();
    /// // `bytes`: `jax.export.export(jax.jit(lambda x: x.T))(x).mlir_module_serialized`
    /// let module = StableHloModule::from_bytecode(&bytes)?;
    /// assert_eq!(module.producer.as_deref(), Some("StableHLO_v1.15.0"));
    /// let op = &module.main().unwrap().operations[0];
    /// assert_eq!(op.name, "stablehlo.transpose");
    /// assert_eq!(
    ///     module.signature()?.entry_computation_layout().to_computation_layout_string(),
    ///     "(f32[2,3]{1,0})->f32[3,2]{0,1}"
    /// );
    /// # Ok::<(), xla_shape::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Decode`](crate::ErrorKind::Decode), whose message
    /// names the byte where reading stopped (`MLIR bytecode: byte 291:
    /// invalid Attribute index: 99`): bytes that are not MLIR bytecode, a
    /// version newer than 6, a section or entry cut short, an index out of
    /// its table, nesting deeper than [`MAX_NESTING_DEPTH`], attributes
    /// and types that would expand beyond 16 times the input. Sections,
    /// dialects, attributes and types the reader does not know are
    /// skipped (their lengths are written) or kept as written.
    pub fn from_bytecode(bytes: &[u8]) -> Result<StableHloModule> {
        bytecode::parse(bytes)
    }

    /// Reads StableHLO in any of the forms JAX writes, told apart by their
    /// bytes: MLIR bytecode ([`is_mlir_bytecode`]; `Exported
    /// .mlir_module_serialized`, read as [`from_bytecode`](Self::from_bytecode)
    /// reads it), `jax.export`'s serialization ([`is_jax_export`];
    /// `Exported.serialize()`, its module), else text
    /// ([`from_text`](Self::from_text)).
    ///
    /// ```
    /// use xla_shape::stablehlo::StableHloModule;
    /// # let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/stablehlo/export");
    /// # let serialized = std::fs::read(format!("{dir}/transpose.bin")).unwrap();
    /// # let bytecode = std::fs::read(format!("{dir}/transpose.mlirbc")).unwrap();
    /// // `serialized`: `exp.serialize()`; `bytecode`: `exp.mlir_module_serialized`.
    /// let a = StableHloModule::read(&serialized)?;
    /// let b = StableHloModule::read(&bytecode)?;
    /// assert_eq!(a, b);
    /// assert_eq!(StableHloModule::read(b"module {\n}\n")?.functions.len(), 0);
    /// assert!(StableHloModule::read(b"\xff\xfe").is_err());
    /// # Ok::<(), xla_shape::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`from_bytecode`](Self::from_bytecode) for bytecode,
    /// [`JaxExport::from_bytes`] and [`from_bytecode`](Self::from_bytecode)
    /// for a serialization, [`from_text`](Self::from_text) for text;
    /// [`ErrorKind::Decode`](crate::ErrorKind::Decode) for bytes that are
    /// none of them and not UTF-8.
    pub fn read(bytes: &[u8]) -> Result<StableHloModule> {
        if is_mlir_bytecode(bytes) {
            return Self::from_bytecode(bytes);
        }
        if is_jax_export(bytes) {
            return JaxExport::from_bytes(bytes)?.module();
        }
        let text = std::str::from_utf8(bytes).map_err(|e| {
            crate::Error::decode(format!(
                "neither MLIR bytecode, a jax.export serialization nor UTF-8 text: {e}"
            ))
        })?;
        Self::from_text(text)
    }

    /// The function named `name`.
    pub fn function(&self, name: &str) -> Option<&Function> {
        self.functions.iter().find(|f| f.name == name)
    }

    /// The entry function, `@main`, as XLA's conversion takes it.
    pub fn main(&self) -> Option<&Function> {
        self.function("main")
    }

    /// The module attribute named `name`.
    pub fn attribute(&self, name: &str) -> Option<&Attribute> {
        find(&self.attributes, name)
    }

    /// Every operation of every function, with its function.
    pub fn operations(&self) -> impl Iterator<Item = (&Function, &Operation)> {
        self.functions
            .iter()
            .flat_map(|f| f.operations.iter().map(move |o| (f, o)))
    }

    /// The signature of the entry function as XLA's conversion gives it.
    ///
    /// # Errors
    ///
    /// As [`Signature::of`].
    pub fn signature(&self) -> Result<Signature> {
        Signature::of(self)
    }

    /// A short name for a location as written (an op's or argument's
    /// [`debug_location`](Operation::debug_location)): the name of a
    /// named location (`"jit(f)/add"(...)` is `jit(f)/add`), `file:line:col`
    /// of a file location, following aliases and the callee of call sites,
    /// at most [`MAX_NESTING_DEPTH`] steps.
    ///
    /// ```
    /// use xla_shape::stablehlo::StableHloModule;
    /// let m = StableHloModule::from_text(
    ///     "module {\n}\n#loc1 = loc(\"f.py\":6:12 to :17)\n#loc2 = loc(\"jit(f)/add\"(#loc1))\n",
    /// )?;
    /// assert_eq!(m.location_name("#loc2").as_deref(), Some("jit(f)/add"));
    /// assert_eq!(m.location_name("#loc1").as_deref(), Some("f.py:6:12"));
    /// assert_eq!(m.location_name("unknown"), None);
    /// # Ok::<(), xla_shape::Error>(())
    /// ```
    pub fn location_name(&self, location: &str) -> Option<String> {
        let mut loc = location.trim();
        for _ in 0..MAX_NESTING_DEPTH {
            if let Some(alias) = loc.strip_prefix('#') {
                let i = match self.alias_index.get(alias) {
                    Some(&i) => i,
                    // Aliases added by hand after reading.
                    None => self
                        .location_aliases
                        .iter()
                        .position(|(name, _)| name == alias)?,
                };
                loc = self.location_aliases.get(i)?.1.trim();
                continue;
            }
            if let Some(rest) = loc.strip_prefix("callsite(") {
                loc = rest.split(" at ").next()?.trim_end_matches(')').trim();
                continue;
            }
            if let Some(rest) = loc.strip_prefix("fused") {
                let start = rest.find('[')?;
                loc = rest[start + 1..]
                    .split(',')
                    .next()?
                    .trim_end_matches(']')
                    .trim();
                continue;
            }
            if loc.starts_with('"') {
                let mut c = cursor::Cursor::new(loc);
                let raw = c.string().ok()?;
                let name = cursor::unescape(raw);
                let rest = c.rest();
                if let Some(position) = rest.strip_prefix(':') {
                    let line_col: String =
                        position.split(' ').next().unwrap_or_default().to_owned();
                    return Some(format!("{name}:{line_col}"));
                }
                return Some(name);
            }
            return None;
        }
        None
    }
}

/// Whether `text` (or the start of a text) looks like MLIR: after white
/// space and `//` comments, it starts with `module`, `func.func`, an
/// alias definition (`#loc = ...`, `!t = ...`), a generic operation
/// (`"builtin.module"`) or `{-#`. HLO text (`HloModule`) and shape strings
/// do not.
///
/// ```
/// use xla_shape::stablehlo::looks_like_mlir;
/// assert!(looks_like_mlir("// jax\nmodule @jit_f attributes {"));
/// assert!(looks_like_mlir("#loc1 = loc(\"x\")\nmodule {"));
/// assert!(!looks_like_mlir("HloModule jit_f, entry_computation_layout={()->()}"));
/// assert!(!looks_like_mlir("f32[2,3]{1,0}"));
/// ```
pub fn looks_like_mlir(text: &str) -> bool {
    let mut c = cursor::Cursor::new(text);
    c.skip_trivia();
    let rest = c.rest();
    if rest.starts_with(['#', '!', '"']) || rest.starts_with("{-#") {
        return true;
    }
    matches!(
        c.peek_bare_id(),
        Some("module" | "builtin.module" | "func.func")
    )
}

/// Whether `bytes` start with the magic number of MLIR bytecode (`ML\xefR`,
/// MLIR's `BytecodeFormat.md`): what `jax.export` ships in
/// `Exported.mlir_module_serialized`, read by
/// [`StableHloModule::from_bytecode`].
///
/// ```
/// use xla_shape::stablehlo::is_mlir_bytecode;
/// assert!(is_mlir_bytecode(b"ML\xefR\x0dStableHLO_v1.15.0\x00"));
/// assert!(!is_mlir_bytecode(b"module {"));
/// ```
pub fn is_mlir_bytecode(bytes: &[u8]) -> bool {
    bytes.starts_with(b"ML\xefR")
}

/// An argument's name for people: its location's name (JAX writes the
/// Python parameter's name, `loc("x")`), else its value name.
pub(crate) fn argument_name(module: &StableHloModule, arg: &Argument) -> String {
    arg.debug_location
        .as_deref()
        .and_then(|l| module.location_name(l))
        .unwrap_or_else(|| arg.name.clone())
}
