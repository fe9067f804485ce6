//! `jax.export`'s serialization (`Exported.serialize()`): a flatbuffer of
//! the schema `jax/_src/export/serialization.fbs` (its Python reading,
//! `serialization_generated.py` of jax 0.10.2, serialization version 11),
//! which carries the module's bytecode with the abstract values and
//! shardings of its inputs and outputs.
//!
//! Read with a small reader of its own rather than the `flatbuffers`
//! crate: the crate reads tables through generated code whose accessors
//! are `unsafe` and trust a verifier run beforehand, while this reader
//! checks every offset where it follows it, in safe code, and says at
//! which byte the input stops making sense.

use std::fmt;

use super::StableHloModule;
use crate::error::{Error, Result};
use crate::limits::MAX_NESTING_DEPTH;

fn error_at(offset: usize, message: impl fmt::Display) -> Error {
    Error::decode(format!(
        "jax.export serialization: byte {offset}: {message}"
    ))
}

/// A table of the flatbuffer: where it starts and its vtable.
#[derive(Clone, Copy)]
struct Table<'a> {
    buf: &'a [u8],
    pos: usize,
    vtable: usize,
    vtable_len: usize,
}

fn read_u16(buf: &[u8], at: usize) -> Result<u16> {
    buf.get(at..at.wrapping_add(2))
        .filter(|_| at.checked_add(2).is_some())
        .map(|b| u16::from_le_bytes([b[0], b[1]]))
        .ok_or_else(|| error_at(at, "offset past the end of the buffer"))
}

fn read_u32(buf: &[u8], at: usize) -> Result<u32> {
    at.checked_add(4)
        .and_then(|end| buf.get(at..end))
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .ok_or_else(|| error_at(at, "offset past the end of the buffer"))
}

/// Follows the unsigned offset stored at `at`.
fn follow(buf: &[u8], at: usize) -> Result<usize> {
    let off = read_u32(buf, at)? as usize;
    at.checked_add(off)
        .filter(|&p| p < buf.len())
        .ok_or_else(|| error_at(at, "offset past the end of the buffer"))
}

impl<'a> Table<'a> {
    fn at(buf: &'a [u8], pos: usize) -> Result<Table<'a>> {
        let soffset = read_u32(buf, pos)? as i32;
        let vtable = (pos as i64)
            .checked_sub(i64::from(soffset))
            .and_then(|v| usize::try_from(v).ok())
            .ok_or_else(|| error_at(pos, "vtable offset out of the buffer"))?;
        let vtable_len = usize::from(
            read_u16(buf, vtable).map_err(|_| error_at(pos, "vtable offset out of the buffer"))?,
        );
        if vtable_len < 4 || vtable.checked_add(vtable_len).is_none_or(|e| e > buf.len()) {
            return Err(error_at(vtable, "malformed vtable"));
        }
        Ok(Table {
            buf,
            pos,
            vtable,
            vtable_len,
        })
    }

    /// Where field `voffset` (4, 6, 8, ...) is, if present.
    fn field(&self, voffset: usize) -> Result<Option<usize>> {
        if voffset + 2 > self.vtable_len {
            return Ok(None);
        }
        let off = usize::from(read_u16(self.buf, self.vtable + voffset)?);
        Ok((off != 0).then(|| self.pos + off))
    }

    /// An error about field `voffset`, named at its vtable entry (which
    /// is in the buffer, where the field itself may not be).
    fn field_error(&self, voffset: usize) -> impl Fn(Error) -> Error {
        let at = self.vtable + voffset;
        move |_| error_at(at, "field past the end of the buffer")
    }

    fn u8(&self, voffset: usize) -> Result<u8> {
        match self.field(voffset)? {
            Some(at) => {
                self.buf.get(at).copied().ok_or_else(|| {
                    error_at(self.vtable + voffset, "field past the end of the buffer")
                })
            }
            None => Ok(0),
        }
    }

    fn u16(&self, voffset: usize) -> Result<u16> {
        match self.field(voffset)? {
            Some(at) => read_u16(self.buf, at).map_err(self.field_error(voffset)),
            None => Ok(0),
        }
    }

    fn u32(&self, voffset: usize) -> Result<u32> {
        match self.field(voffset)? {
            Some(at) => read_u32(self.buf, at).map_err(self.field_error(voffset)),
            None => Ok(0),
        }
    }

    /// Follows the offset held by field `voffset`.
    fn follow_field(&self, voffset: usize, at: usize) -> Result<usize> {
        if at.checked_add(4).is_none_or(|end| end > self.buf.len()) {
            return Err(self.field_error(voffset)(Error::decode("")));
        }
        follow(self.buf, at)
    }

    fn table(&self, voffset: usize) -> Result<Option<Table<'a>>> {
        match self.field(voffset)? {
            Some(at) => Ok(Some(Table::at(self.buf, self.follow_field(voffset, at)?)?)),
            None => Ok(None),
        }
    }

    /// A vector: where its elements start and how many there are, each of
    /// `size` bytes.
    fn vector(&self, voffset: usize, size: usize) -> Result<Option<(usize, usize)>> {
        let Some(at) = self.field(voffset)? else {
            return Ok(None);
        };
        let v = self.follow_field(voffset, at)?;
        let n = read_u32(self.buf, v)? as usize;
        let start = v + 4;
        if n.checked_mul(size)
            .and_then(|b| b.checked_add(start))
            .is_none_or(|end| end > self.buf.len())
        {
            return Err(error_at(
                v,
                format!("a vector of {n} elements does not fit"),
            ));
        }
        Ok(Some((start, n)))
    }

    fn bytes(&self, voffset: usize) -> Result<&'a [u8]> {
        Ok(match self.vector(voffset, 1)? {
            Some((start, n)) => &self.buf[start..start + n],
            None => &[],
        })
    }

    fn string(&self, voffset: usize) -> Result<Option<String>> {
        let Some(at) = self.field(voffset)? else {
            return Ok(None);
        };
        Ok(Some(string_at(self.buf, self.follow_field(voffset, at)?)?))
    }

    fn strings(&self, voffset: usize) -> Result<Vec<String>> {
        let Some((start, n)) = self.vector(voffset, 4)? else {
            return Ok(Vec::new());
        };
        (0..n)
            .map(|i| string_at(self.buf, follow(self.buf, start + 4 * i)?))
            .collect()
    }

    fn tables(&self, voffset: usize) -> Result<Vec<Table<'a>>> {
        let Some((start, n)) = self.vector(voffset, 4)? else {
            return Ok(Vec::new());
        };
        (0..n)
            .map(|i| Table::at(self.buf, follow(self.buf, start + 4 * i)?))
            .collect()
    }

    fn u32s(&self, voffset: usize) -> Result<Vec<u32>> {
        let Some((start, n)) = self.vector(voffset, 4)? else {
            return Ok(Vec::new());
        };
        (0..n).map(|i| read_u32(self.buf, start + 4 * i)).collect()
    }

    fn u16s(&self, voffset: usize) -> Result<Vec<u16>> {
        let Some((start, n)) = self.vector(voffset, 2)? else {
            return Ok(Vec::new());
        };
        (0..n).map(|i| read_u16(self.buf, start + 2 * i)).collect()
    }
}

fn string_at(buf: &[u8], at: usize) -> Result<String> {
    let n = read_u32(buf, at)? as usize;
    let bytes = (at + 4)
        .checked_add(n)
        .and_then(|end| buf.get(at + 4..end))
        .ok_or_else(|| error_at(at, format!("a string of {n} bytes does not fit")))?;
    Ok(String::from_utf8_lossy(bytes).into_owned())
}

/// The abstract value of an input or output (`AbstractValue`): jax's
/// dtype name, its dimensions (numbers, or symbolic expressions such as
/// `b`), and its memory space.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Aval {
    /// jax's name of the element type (`float32`, `bfloat16`, `key<fry>`).
    pub dtype: String,
    /// Each dimension as jax writes it: `3`, or a symbolic dimension.
    pub shape: Vec<String>,
    /// `host` or `any` when not the device's memory.
    pub memory_space: Option<String>,
    /// Whether it is a token (`AbstractValueKind.abstractToken`).
    pub token: bool,
}

impl fmt::Display for Aval {
    /// As jax prints it: `float32[2,3]`, `float32<host>[8,4]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.token {
            return f.write_str("AbstractToken()");
        }
        f.write_str(&self.dtype)?;
        if let Some(m) = &self.memory_space {
            write!(f, "<{m}>")?;
        }
        write!(f, "[{}]", self.shape.join(","))
    }
}

/// jax's dtype names by the schema's `DType` values
/// (`serialization_generated.py`, class `DType`).
const DTYPES: &[&str] = &[
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float16",
    "float32",
    "float64",
    "complex64",
    "complex128",
    "bfloat16",
    "int4",
    "uint4",
    "float8_e4m3b11fnuz",
    "float8_e4m3fn",
    "float8_e4m3fnuz",
    "float8_e5m2",
    "float8_e5m2fnuz",
    "float0",
    "float8_e4m3",
    "float8_e3m4",
    "float8_e8m0fnu",
    "float4_e2m1fn",
    "key<fry>",
    "key<rbg>",
    "key<unsafe_rbg>",
];

/// A mesh without devices (`AbstractMesh`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AbstractMesh {
    /// Each axis's name and size.
    pub axes: Vec<(String, u32)>,
    /// Each axis's type: `Auto`, `Explicit`, `Manual`.
    pub axis_types: Vec<String>,
    /// The kind of device (`cpu`), its number of cores and platform, when
    /// recorded.
    pub device: Option<(String, Option<u32>, String)>,
}

impl fmt::Display for AbstractMesh {
    /// As jax prints it: `AbstractMesh('x': 4, 'y': 2, axis_types=(Auto,
    /// Auto), device_kind=cpu, num_cores=None, platform=cpu)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("AbstractMesh(")?;
        for (i, (name, size)) in self.axes.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "'{name}': {size}")?;
        }
        f.write_str(", axis_types=(")?;
        f.write_str(&self.axis_types.join(", "))?;
        if self.axis_types.len() == 1 {
            f.write_str(",")?;
        }
        f.write_str(")")?;
        if let Some((kind, cores, platform)) = &self.device {
            write!(f, ", device_kind={kind}, num_cores=")?;
            match cores {
                Some(c) => write!(f, "{c}")?,
                None => f.write_str("None")?,
            }
            write!(f, ", platform={platform}")?;
        }
        f.write_str(")")
    }
}

/// A sharding by mesh axes (`NamedSharding`): the mesh, the partition
/// spec (for each dimension the mesh axes it is split over) and the memory
/// kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NamedSharding {
    /// The mesh.
    pub mesh: AbstractMesh,
    /// For each dimension, the axes it is split over (none: replicated).
    pub spec: Vec<Vec<String>>,
    /// Axes the value is reduced over, and not yet reduced over.
    pub reduced: Vec<String>,
    /// Axes the value is not yet reduced over.
    pub unreduced: Vec<String>,
    /// The memory kind (`device`, `pinned_host`), if any.
    pub memory_kind: Option<String>,
}

impl fmt::Display for NamedSharding {
    /// As jax prints it: `NamedSharding(mesh=AbstractMesh(...),
    /// spec=P('x', None), memory_kind=device)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "NamedSharding(mesh={}, spec=P(", self.mesh)?;
        for (i, axes) in self.spec.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            match axes.as_slice() {
                [] => f.write_str("None")?,
                [one] => write!(f, "'{one}'")?,
                many => {
                    f.write_str("(")?;
                    for (j, a) in many.iter().enumerate() {
                        if j > 0 {
                            f.write_str(", ")?;
                        }
                        write!(f, "'{a}'")?;
                    }
                    f.write_str(")")?;
                }
            }
        }
        if self.spec.len() == 1 {
            f.write_str(",")?;
        }
        for (key, axes) in [("reduced", &self.reduced), ("unreduced", &self.unreduced)] {
            if !axes.is_empty() {
                let list: Vec<String> = axes.iter().map(|a| format!("'{a}'")).collect();
                write!(f, ", {key}={{{}}}", list.join(", "))?;
            }
        }
        f.write_str(")")?;
        if let Some(m) = &self.memory_kind {
            write!(f, ", memory_kind={m}")?;
        }
        f.write_str(")")
    }
}

/// The sharding of an input or output.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Sharding {
    /// A `NamedSharding` (every export since jax of January 2026).
    Named(NamedSharding),
    /// An `OpSharding` proto, as its bytes (older exports).
    Hlo(Vec<u8>),
}

impl fmt::Display for Sharding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Sharding::Named(n) => write!(f, "{n}"),
            Sharding::Hlo(bytes) => {
                f.write_str("OpSharding(0x")?;
                for b in bytes {
                    write!(f, "{b:02x}")?;
                }
                f.write_str(")")
            }
        }
    }
}

/// `jax.export`'s serialization of an `Exported`, read without jax: what
/// the function takes and gives, on which platforms, and its module.
///
/// ```
/// use xla_shape::stablehlo::JaxExport;
/// # let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/stablehlo/export/transpose.bin")).unwrap();
/// // `bytes`: `jax.export.export(jax.jit(lambda x: x.T))(x).serialize()`
/// let exported = JaxExport::from_bytes(&bytes)?;
/// assert_eq!(exported.in_avals[0].to_string(), "float32[2,3]");
/// assert_eq!(exported.platforms, ["cpu"]);
/// let signature = exported.module()?.signature()?;
/// assert_eq!(
///     signature.entry_computation_layout().to_computation_layout_string(),
///     "(f32[2,3]{1,0})->f32[3,2]{0,1}"
/// );
/// # Ok::<(), xla_shape::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JaxExport {
    /// The serialization version the bytes say (jax writes 3 for
    /// compatibility with older readers).
    pub serialization_version: u16,
    /// The exported function's name.
    pub function_name: String,
    /// The abstract value of each input and output.
    pub in_avals: Vec<Aval>,
    /// See `in_avals`.
    pub out_avals: Vec<Aval>,
    /// The sharding of each input and output (`None`: unspecified).
    pub in_shardings: Vec<Option<Sharding>>,
    /// See `in_shardings`.
    pub out_shardings: Vec<Option<Sharding>>,
    /// The number of devices the module is for.
    pub nr_devices: u32,
    /// The platforms it was lowered for (`cpu`, `cuda`, `tpu`).
    pub platforms: Vec<String>,
    /// The effects, by their Python type names.
    pub ordered_effects: Vec<String>,
    /// See `ordered_effects`.
    pub unordered_effects: Vec<String>,
    /// The safety checks disabled at export: `platform`,
    /// `custom_call(NAME)`, `shape_assertions`.
    pub disabled_safety_checks: Vec<String>,
    /// The calling convention of the module.
    pub calling_convention_version: u16,
    /// The inputs the module keeps (the others are unused).
    pub module_kept_var_idx: Vec<u16>,
    /// Whether the module takes the values of dimension variables.
    pub uses_global_constants: bool,
    /// The module: MLIR bytecode (a StableHLO portable artifact).
    pub mlir_module_serialized: Vec<u8>,
    /// The serialization of its VJP, if it was exported with one.
    pub vjp: Option<Box<JaxExport>>,
}

/// Field offsets of the tables (`serialization_generated.py`: each
/// accessor's `self._tab.Offset(N)`).
mod field {
    pub const EXPORTED_SERIALIZATION_VERSION: usize = 4;
    pub const EXPORTED_FUNCTION_NAME: usize = 6;
    pub const EXPORTED_IN_AVALS: usize = 10;
    pub const EXPORTED_OUT_AVALS: usize = 14;
    pub const EXPORTED_NR_DEVICES_SHORT: usize = 16;
    pub const EXPORTED_IN_SHARDINGS: usize = 18;
    pub const EXPORTED_OUT_SHARDINGS: usize = 20;
    pub const EXPORTED_PLATFORMS: usize = 22;
    pub const EXPORTED_ORDERED_EFFECTS: usize = 24;
    pub const EXPORTED_UNORDERED_EFFECTS: usize = 26;
    pub const EXPORTED_DISABLED_CHECKS: usize = 28;
    pub const EXPORTED_MLIR_MODULE_SERIALIZED: usize = 30;
    pub const EXPORTED_CALLING_CONVENTION_VERSION: usize = 32;
    pub const EXPORTED_MODULE_KEPT_VAR_IDX: usize = 34;
    pub const EXPORTED_USES_GLOBAL_CONSTANTS: usize = 36;
    pub const EXPORTED_VJP: usize = 38;
    pub const EXPORTED_NR_DEVICES: usize = 40;
    pub const EXPORTED_UNIQUE_AVALS: usize = 42;
    pub const EXPORTED_UNIQUE_ABSTRACT_MESHES: usize = 44;
    pub const EXPORTED_UNIQUE_NAMED_SHARDINGS: usize = 46;
    pub const EXPORTED_IN_AVALS_IDXS: usize = 48;
    pub const EXPORTED_OUT_AVALS_IDXS: usize = 50;
    pub const EXPORTED_IN_SHARDINGS_IDXS: usize = 52;
    pub const EXPORTED_OUT_SHARDINGS_IDXS: usize = 54;
    pub const AVAL_KIND: usize = 4;
    pub const AVAL_SHAPE: usize = 6;
    pub const AVAL_DTYPE: usize = 8;
    pub const AVAL_MEMORY_SPACE: usize = 10;
    pub const SHARDING_HLO_SHARDING_PROTO: usize = 6;
    pub const SHARDING_NAMED_SHARDING: usize = 8;
    pub const NAMED_MESH: usize = 4;
    pub const NAMED_SPEC: usize = 6;
    pub const NAMED_MEMORY_KIND: usize = 8;
    pub const NAMED_ABSTRACT_MESH_IDX: usize = 10;
    pub const MESH_AXIS_SIZES: usize = 4;
    pub const MESH_AXIS_NAMES: usize = 6;
    pub const MESH_AXIS_TYPES: usize = 8;
    pub const MESH_ABSTRACT_DEVICE: usize = 10;
    pub const DEVICE_KIND: usize = 4;
    pub const DEVICE_NUM_CORES: usize = 6;
    pub const DEVICE_PLATFORM: usize = 8;
    pub const SPEC_PARTITIONS: usize = 4;
    pub const SPEC_REDUCED: usize = 6;
    pub const SPEC_UNREDUCED: usize = 8;
    pub const ONE_AXIS_AXES: usize = 4;
    pub const EFFECT_TYPE_NAME: usize = 4;
    pub const CHECK_KIND: usize = 4;
    pub const CHECK_CUSTOM_CALL_TARGET: usize = 6;
}

impl JaxExport {
    /// Reads `Exported.serialize()`'s bytes.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Decode`](crate::ErrorKind::Decode), naming the byte,
    /// for bytes that are not such a flatbuffer (an offset out of the
    /// buffer, a vector or string that does not fit, an index out of its
    /// table, VJPs nested deeper than [`MAX_NESTING_DEPTH`]).
    pub fn from_bytes(bytes: &[u8]) -> Result<JaxExport> {
        let root = Table::at(bytes, follow(bytes, 0)?)?;
        let budget = Budget(std::cell::Cell::new(
            bytes.len().saturating_mul(16).saturating_add(1 << 16),
        ));
        read_exported(root, 0, &budget)
    }

    /// The module, read from its bytecode
    /// ([`StableHloModule::from_bytecode`]).
    ///
    /// # Errors
    ///
    /// As [`StableHloModule::from_bytecode`].
    pub fn module(&self) -> Result<StableHloModule> {
        StableHloModule::from_bytecode(&self.mlir_module_serialized)
    }
}

/// Whether `bytes` look like `jax.export`'s serialization: a flatbuffer
/// whose root table holds MLIR bytecode (which starts `ML\xefR`) where
/// `mlir_module_serialized` is.
///
/// ```
/// use xla_shape::stablehlo::is_jax_export;
/// # let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/stablehlo/export/transpose.bin")).unwrap();
/// assert!(is_jax_export(&bytes));
/// assert!(!is_jax_export(b"ML\xefR\x06"));
/// ```
pub fn is_jax_export(bytes: &[u8]) -> bool {
    let module = || -> Result<bool> {
        let root = Table::at(bytes, follow(bytes, 0)?)?;
        Ok(root
            .bytes(field::EXPORTED_MLIR_MODULE_SERIALIZED)?
            .starts_with(b"ML\xefR"))
    };
    module().unwrap_or(false)
}

/// What copies of shared entries (avals, meshes, shardings referred to by
/// index) may still take: a fixed multiple of the input, so that indices
/// cannot multiply a large entry.
struct Budget(std::cell::Cell<usize>);

impl Budget {
    fn charge(&self, units: usize, at: usize) -> Result<()> {
        let left = self.0.get();
        if units > left {
            return Err(error_at(
                at,
                "the shared avals and shardings expand beyond 16 times the input",
            ));
        }
        self.0.set(left - units);
        Ok(())
    }
}

fn aval_weight(a: &Aval) -> usize {
    a.dtype.len() + a.shape.iter().map(|d| d.len() + 8).sum::<usize>() + 32
}

fn mesh_weight(m: &AbstractMesh) -> usize {
    m.axes.iter().map(|(n, _)| n.len() + 8).sum::<usize>() + m.axis_types.len() * 8 + 64
}

fn named_weight(n: &NamedSharding) -> usize {
    mesh_weight(&n.mesh)
        + n.spec.iter().flatten().map(|a| a.len() + 8).sum::<usize>()
        + n.spec.len() * 8
        + 64
}

fn read_aval(t: Table<'_>) -> Result<Aval> {
    let dtype = t.u8(field::AVAL_DTYPE)?;
    let dtype = DTYPES
        .get(usize::from(dtype))
        .map_or_else(|| format!("dtype{dtype}"), |d| (*d).to_owned());
    let memory_space = match t.u8(field::AVAL_MEMORY_SPACE)? {
        2 => Some("host".to_owned()),
        3 => Some("any".to_owned()),
        _ => None,
    };
    Ok(Aval {
        dtype,
        shape: t.strings(field::AVAL_SHAPE)?,
        memory_space,
        token: t.u8(field::AVAL_KIND)? == 1,
    })
}

fn read_mesh(t: Table<'_>) -> Result<AbstractMesh> {
    let sizes = t.u32s(field::MESH_AXIS_SIZES)?;
    let names = t.strings(field::MESH_AXIS_NAMES)?;
    let types = t.bytes(field::MESH_AXIS_TYPES)?;
    let device = match t.table(field::MESH_ABSTRACT_DEVICE)? {
        Some(d) => {
            let kind = d.string(field::DEVICE_KIND)?.unwrap_or_default();
            let cores = d
                .field(field::DEVICE_NUM_CORES)?
                .map(|_| d.u32(field::DEVICE_NUM_CORES))
                .transpose()?;
            let platform = d.string(field::DEVICE_PLATFORM)?.unwrap_or_default();
            Some((kind, cores, platform))
        }
        None => None,
    };
    Ok(AbstractMesh {
        axes: names.into_iter().zip(sizes).collect(),
        axis_types: types
            .iter()
            .map(|t| match t {
                1 => "Auto".to_owned(),
                2 => "Explicit".to_owned(),
                3 => "Manual".to_owned(),
                t => format!("AxisType{t}"),
            })
            .collect(),
        device,
    })
}

fn read_named(t: Table<'_>, meshes: &[AbstractMesh], budget: &Budget) -> Result<NamedSharding> {
    let mesh = if meshes.is_empty() {
        match t.table(field::NAMED_MESH)? {
            Some(m) => read_mesh(m)?,
            None => return Err(error_at(t.pos, "a named sharding without its mesh")),
        }
    } else {
        let i = t.u32(field::NAMED_ABSTRACT_MESH_IDX)? as usize;
        let mesh = meshes
            .get(i)
            .ok_or_else(|| error_at(t.pos, format!("abstract mesh index {i} out of range")))?;
        budget.charge(mesh_weight(mesh), t.pos)?;
        mesh.clone()
    };
    let (spec, reduced, unreduced) = match t.table(field::NAMED_SPEC)? {
        Some(s) => (
            s.tables(field::SPEC_PARTITIONS)?
                .into_iter()
                .map(|p| p.strings(field::ONE_AXIS_AXES))
                .collect::<Result<Vec<_>>>()?,
            s.strings(field::SPEC_REDUCED)?,
            s.strings(field::SPEC_UNREDUCED)?,
        ),
        None => Default::default(),
    };
    Ok(NamedSharding {
        mesh,
        spec,
        reduced,
        unreduced,
        memory_kind: t.string(field::NAMED_MEMORY_KIND)?,
    })
}

fn read_sharding(
    t: Table<'_>,
    meshes: &[AbstractMesh],
    budget: &Budget,
) -> Result<Option<Sharding>> {
    if let Some(n) = t.table(field::SHARDING_NAMED_SHARDING)? {
        return Ok(Some(Sharding::Named(read_named(n, meshes, budget)?)));
    }
    if t.field(field::SHARDING_HLO_SHARDING_PROTO)?.is_some() {
        return Ok(Some(Sharding::Hlo(
            t.bytes(field::SHARDING_HLO_SHARDING_PROTO)?.to_vec(),
        )));
    }
    Ok(None)
}

fn read_exported(t: Table<'_>, depth: usize, budget: &Budget) -> Result<JaxExport> {
    use field::*;
    if depth >= MAX_NESTING_DEPTH {
        return Err(error_at(
            t.pos,
            format!("VJPs nested deeper than {MAX_NESTING_DEPTH} levels"),
        ));
    }
    let unique_avals = t
        .tables(EXPORTED_UNIQUE_AVALS)?
        .into_iter()
        .map(read_aval)
        .collect::<Result<Vec<_>>>()?;
    let meshes = t
        .tables(EXPORTED_UNIQUE_ABSTRACT_MESHES)?
        .into_iter()
        .map(read_mesh)
        .collect::<Result<Vec<_>>>()?;
    let named = t
        .tables(EXPORTED_UNIQUE_NAMED_SHARDINGS)?
        .into_iter()
        .map(|n| read_named(n, &meshes, budget))
        .collect::<Result<Vec<_>>>()?;
    let avals = |idxs: usize, list: usize| -> Result<Vec<Aval>> {
        let idxs = t.u32s(idxs)?;
        if !idxs.is_empty() {
            return idxs
                .iter()
                .map(|&i| {
                    let a = unique_avals
                        .get(i as usize)
                        .ok_or_else(|| error_at(t.pos, format!("aval index {i} out of range")))?;
                    budget.charge(aval_weight(a), t.pos)?;
                    Ok(a.clone())
                })
                .collect();
        }
        t.tables(list)?.into_iter().map(read_aval).collect()
    };
    let shardings = |idxs: usize, list: usize| -> Result<Vec<Option<Sharding>>> {
        let idxs = t.u32s(idxs)?;
        if !idxs.is_empty() {
            return idxs
                .iter()
                .map(|&i| match i {
                    0 => Ok(None),
                    i => {
                        let n = named.get(i as usize - 1).ok_or_else(|| {
                            error_at(t.pos, format!("sharding index {i} out of range"))
                        })?;
                        budget.charge(named_weight(n), t.pos)?;
                        Ok(Some(Sharding::Named(n.clone())))
                    }
                })
                .collect();
        }
        t.tables(list)?
            .into_iter()
            .map(|s| read_sharding(s, &meshes, budget))
            .collect()
    };
    let effects = |voffset: usize| -> Result<Vec<String>> {
        t.tables(voffset)?
            .into_iter()
            .map(|e| Ok(e.string(EFFECT_TYPE_NAME)?.unwrap_or_default()))
            .collect()
    };
    let checks = t
        .tables(EXPORTED_DISABLED_CHECKS)?
        .into_iter()
        .map(|c| {
            Ok(match c.u8(CHECK_KIND)? {
                0 => "platform".to_owned(),
                1 => format!(
                    "custom_call({})",
                    c.string(CHECK_CUSTOM_CALL_TARGET)?.unwrap_or_default()
                ),
                2 => "shape_assertions".to_owned(),
                k => format!("check{k}"),
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let nr_devices = match t.u32(EXPORTED_NR_DEVICES)? {
        0 => u32::from(t.u16(EXPORTED_NR_DEVICES_SHORT)?),
        n => n,
    };
    let module = t.bytes(EXPORTED_MLIR_MODULE_SERIALIZED)?;
    budget.charge(module.len(), t.pos)?;
    let vjp = match t.table(EXPORTED_VJP)? {
        Some(v) => Some(Box::new(read_exported(v, depth + 1, budget)?)),
        None => None,
    };
    Ok(JaxExport {
        serialization_version: t.u16(EXPORTED_SERIALIZATION_VERSION)?,
        function_name: t.string(EXPORTED_FUNCTION_NAME)?.unwrap_or_default(),
        in_avals: avals(EXPORTED_IN_AVALS_IDXS, EXPORTED_IN_AVALS)?,
        out_avals: avals(EXPORTED_OUT_AVALS_IDXS, EXPORTED_OUT_AVALS)?,
        in_shardings: shardings(EXPORTED_IN_SHARDINGS_IDXS, EXPORTED_IN_SHARDINGS)?,
        out_shardings: shardings(EXPORTED_OUT_SHARDINGS_IDXS, EXPORTED_OUT_SHARDINGS)?,
        nr_devices,
        platforms: t.strings(EXPORTED_PLATFORMS)?,
        ordered_effects: effects(EXPORTED_ORDERED_EFFECTS)?,
        unordered_effects: effects(EXPORTED_UNORDERED_EFFECTS)?,
        disabled_safety_checks: checks,
        calling_convention_version: t.u16(EXPORTED_CALLING_CONVENTION_VERSION)?,
        module_kept_var_idx: t.u16s(EXPORTED_MODULE_KEPT_VAR_IDX)?,
        uses_global_constants: t.u8(EXPORTED_USES_GLOBAL_CONSTANTS)? != 0,
        mlir_module_serialized: module.to_vec(),
        vjp,
    })
}
