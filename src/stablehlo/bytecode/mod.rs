//! MLIR bytecode, as `jax.export` ships it (`Exported.mlir_module_serialized`,
//! a StableHLO portable artifact: the VHLO dialect), read into the same
//! model as the text: MLIR's format (`mlir/docs/BytecodeFormat.md`, and
//! `mlir/lib/Bytecode/Reader/BytecodeReader.cpp` for what the document
//! leaves out: the properties section, the op-name and block-argument
//! encodings of versions 4 to 6), VHLO's attributes and types
//! (`stablehlo/dialect/VhloBytecode.cpp`) and the order in which VHLO
//! operations store their attributes (their names sorted, as ODS writes
//! properties; checked on the artifacts of jaxlib 0.10.2).
//!
//! What the text names, the bytes number: values are named as MLIR prints
//! them when it has no better name (`%arg0` for arguments, `%0`, `%1`, ...
//! for results, per function), operations' places are byte offsets
//! ([`Location::line`] 0), and locations are the attributes of the
//! location table, kept as aliases `#locN` (N the attribute's index) as the
//! text keeps `#loc` aliases.

mod attrs;
mod reader;

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use self::attrs::{Attr, Entry, Tables, Ty, text};
use self::reader::{Reader, error_at};
use super::flow::{DecodedAttrs, Fact, Flow, OpAttrs, OpView, result_names};
use super::{Argument, Attribute, Function, FunctionResult, Mesh, Operation, StableHloModule};
use crate::error::{Location, Result};
use crate::limits::MAX_NESTING_DEPTH;

/// The newest bytecode version this reader knows (`bytecode::kVersion`,
/// `mlir/include/mlir/Bytecode/Encoding.h`): jaxlib 0.10.2 writes 6.
const VERSION: u64 = 6;

/// Section IDs (`bytecode::Section::ID`).
const STRING: u8 = 0;
const DIALECT: u8 = 1;
const ATTR_TYPE: u8 = 2;
const ATTR_TYPE_OFFSET: u8 = 3;
const IR: u8 = 4;
const PROPERTIES: u8 = 8;

/// `bytecode::OpEncodingMask`.
const HAS_ATTRS: u8 = 0b0000_0001;
const HAS_RESULTS: u8 = 0b0000_0010;
const HAS_OPERANDS: u8 = 0b0000_0100;
const HAS_SUCCESSORS: u8 = 0b0000_1000;
const HAS_INLINE_REGIONS: u8 = 0b0001_0000;
const HAS_USE_LIST_ORDERS: u8 = 0b0010_0000;
const HAS_PROPERTIES: u8 = 0b0100_0000;

/// The attribute names of the VHLO operations whose attributes the reader
/// needs, sorted (the order of their properties): `VhloOps.td`.
const FUNC_V1: &[&str] = &[
    "arg_attrs",
    "function_type",
    "res_attrs",
    "sym_name",
    "sym_visibility",
];
/// `custom_call_v1`'s, and `custom_call_v2`'s (StableHLO 1.18) with
/// `result_tilings` after them.
const CUSTOM_CALL: &[&str] = &[
    "api_version",
    "backend_config",
    "call_target_name",
    "called_computations",
    "has_side_effect",
    "operand_layouts",
    "output_operand_aliases",
    "result_layouts",
    "result_tilings",
];

/// Reads MLIR bytecode into a module.
pub(crate) fn parse(bytes: &[u8]) -> Result<StableHloModule> {
    let mut r = Reader::new(bytes, 0);
    let magic = r
        .bytes(4)
        .map_err(|_| error_at(0, "not MLIR bytecode (too short)"))?;
    if magic != b"ML\xefR" {
        return Err(error_at(
            0,
            "not MLIR bytecode: it does not start with 'ML\\xefR'",
        ));
    }
    let at = r.offset();
    let version = r.varint()?;
    if version > VERSION {
        return Err(error_at(
            at,
            format!("bytecode version {version} is newer than the current version {VERSION}"),
        ));
    }
    let producer = text(r.c_string()?);
    let mut sections: [Option<Reader<'_>>; 9] = Default::default();
    while !r.is_empty() {
        let at = r.offset();
        let (id, data) = r.section()?;
        // Sections this reader does not know carry their length: skipped.
        let Some(slot) = sections.get_mut(usize::from(id)) else {
            continue;
        };
        if slot.is_some() {
            return Err(error_at(at, format!("duplicate top-level section: {id}")));
        }
        *slot = Some(data);
    }
    let required = |id: u8, name: &str| {
        sections[usize::from(id)].ok_or_else(|| {
            error_at(
                bytes.len(),
                format!("missing data for top-level section: {name} ({id})"),
            )
        })
    };
    let strings = read_strings(required(STRING, "String")?)?;
    let props = match sections[usize::from(PROPERTIES)] {
        Some(p) => read_properties(p)?,
        None if version >= 5 => {
            return Err(error_at(
                bytes.len(),
                "missing data for top-level section: Properties (8)",
            ));
        }
        None => Vec::new(),
    };
    let (dialects, op_names) = read_dialects(required(DIALECT, "Dialect")?, &strings, version)?;
    let (attrs, types) = read_attr_types(
        required(ATTR_TYPE, "AttrType")?,
        required(ATTR_TYPE_OFFSET, "AttrTypeOffset")?,
        dialects.len(),
    )?;
    let ir = required(IR, "IR")?;
    let mut walker = Walker {
        tables: Tables::new(bytes, strings, dialects, attrs, types),
        op_names,
        props,
        version,
        module: StableHloModule {
            name: None,
            attributes: Vec::new(),
            meshes: Vec::new(),
            functions: Vec::new(),
            location_aliases: Vec::new(),
            alias_index: HashMap::new(),
            producer: None,
        },
        flow: Flow::default(),
        scopes: Vec::new(),
        function: None,
        entry_of: None,
        saw_module: false,
        ir_len: ir.remaining(),
        results: 0,
        arguments: 0,
        depth: 0,
        region_depth: 0,
        in_function_body: false,
        locations: HashSet::new(),
        pool: Vec::new(),
        facts: Vec::new(),
    };
    walker.read_ir(ir)?;
    let mut module = walker.module;
    module.producer = Some(producer);
    Ok(module)
}

fn read_strings(mut r: Reader<'_>) -> Result<Vec<&[u8]>> {
    let n = r.count("strings")?;
    let mut lengths = Vec::with_capacity(n);
    for _ in 0..n {
        lengths.push(r.varint()?);
    }
    // The lengths are in reverse order; the data (each string with its
    // null terminator) fills the rest of the section.
    let data_start = r.offset();
    let data = r.bytes(r.remaining() as u64)?;
    let mut strings = vec![&data[..0]; n];
    let mut end = data.len();
    for (slot, &len) in strings.iter_mut().rev().zip(&lengths) {
        let len = usize::try_from(len)
            .ok()
            .filter(|&l| l >= 1 && l <= end)
            .ok_or_else(|| error_at(data_start, "string size exceeds the available data size"))?;
        *slot = &data[end - len..end - 1];
        end -= len;
    }
    if end != 0 {
        return Err(error_at(
            data_start,
            "unexpected trailing data between the offsets for strings and their data",
        ));
    }
    Ok(strings)
}

/// The properties section: one blob per entry (`PropertiesSectionReader`).
fn read_properties(mut r: Reader<'_>) -> Result<Vec<Reader<'_>>> {
    if r.is_empty() {
        return Ok(Vec::new());
    }
    let n = r.count("properties")?;
    let mut blobs = Vec::with_capacity(n);
    for _ in 0..n {
        let len = r.varint()?;
        blobs.push(r.sub(len)?);
    }
    if !r.is_empty() {
        return Err(r.error("Broken properties section: didn't exhaust the offsets table"));
    }
    Ok(blobs)
}

/// An operation name: its dialect, its name in it, and whether the
/// producer knew it (version 5 and later).
struct OpName<'a> {
    dialect: usize,
    name: &'a [u8],
    registered: Option<bool>,
}

fn read_dialects<'a>(
    mut r: Reader<'a>,
    strings: &[&'a [u8]],
    version: u64,
) -> Result<(Vec<&'a str>, Vec<OpName<'a>>)> {
    let string = |r: &Reader<'_>, i: u64| {
        usize::try_from(i)
            .ok()
            .and_then(|i| strings.get(i).copied())
            .ok_or_else(|| r.error(format!("invalid string index: {i}")))
    };
    let n = r.count("dialects")?;
    let mut dialects = Vec::with_capacity(n);
    for _ in 0..n {
        let (index, versioned) = if version < 1 {
            (r.varint()?, false)
        } else {
            r.varint_with_flag()?
        };
        let name = string(&r, index)?;
        dialects.push(std::str::from_utf8(name).unwrap_or("?"));
        if versioned {
            // The dialect's version, a nested section: not needed.
            r.section()?;
        }
    }
    if version >= 4 {
        r.varint()?;
    }
    let mut ops = Vec::new();
    while !r.is_empty() {
        let at = r.offset();
        let dialect = usize::try_from(r.varint()?)
            .ok()
            .filter(|&d| d < dialects.len())
            .ok_or_else(|| error_at(at, "invalid dialect index"))?;
        let count = r.count("operation names")?;
        for _ in 0..count {
            let (index, registered) = if version < 5 {
                (r.varint()?, None)
            } else {
                let (i, f) = r.varint_with_flag()?;
                (i, Some(f))
            };
            ops.push(OpName {
                dialect,
                name: string(&r, index)?,
                registered,
            });
        }
    }
    Ok((dialects, ops))
}

fn read_attr_types<'a>(
    data: Reader<'a>,
    mut offsets: Reader<'a>,
    dialects: usize,
) -> Result<(Vec<Entry<'a>>, Vec<Entry<'a>>)> {
    let num_attrs = offsets.count("attributes")?;
    let num_types = offsets.count("types")?;
    let section_base = data.offset();
    let mut data = data;
    let mut read = |total: usize, offsets: &mut Reader<'a>| -> Result<Vec<Entry<'a>>> {
        let mut entries = Vec::with_capacity(total);
        while entries.len() < total {
            let at = offsets.offset();
            let dialect = usize::try_from(offsets.varint()?)
                .ok()
                .filter(|&d| d < dialects)
                .ok_or_else(|| error_at(at, "invalid dialect index"))?;
            let n = offsets.count("entries")?;
            for _ in 0..n {
                let at = offsets.offset();
                let (size, custom) = offsets.varint_with_flag()?;
                let offset = data.offset();
                let bytes = data.bytes(size).map_err(|_| {
                    error_at(
                        at,
                        "Attribute or Type entry offset points past the end of section",
                    )
                })?;
                entries.push(Entry {
                    dialect,
                    custom,
                    data: bytes,
                    offset,
                });
            }
        }
        Ok(entries)
    };
    let attrs = read(num_attrs, &mut offsets)?;
    let types = read(num_types, &mut offsets)?;
    let _ = section_base;
    if !offsets.is_empty() {
        return Err(offsets.error("unexpected trailing data in the Attribute/Type offset section"));
    }
    Ok((attrs, types))
}

/// The values of one isolated region (a function), by their number in it
/// (`ValueScope`): each value's name and type index.
#[derive(Default)]
struct Scope {
    values: Vec<Option<(Rc<str>, u64)>>,
    next: Vec<usize>,
}

/// What a region being read has seen.
#[derive(Default)]
struct Region {
    /// The facts of the values its first terminator returns.
    returned: Option<Vec<Option<Fact>>>,
    /// The regions around it inside its function.
    depth: usize,
}

struct Walker<'a> {
    tables: Tables<'a>,
    op_names: Vec<OpName<'a>>,
    props: Vec<Reader<'a>>,
    version: u64,
    module: StableHloModule,
    flow: Flow,
    scopes: Vec<Scope>,
    /// The function whose body is being read.
    function: Option<usize>,
    /// The function whose arguments the next block's arguments are.
    entry_of: Option<usize>,
    saw_module: bool,
    /// The size of the IR section: no scope holds more values.
    ir_len: usize,
    /// The next result and argument numbers of the function.
    results: usize,
    arguments: usize,
    /// Regions open around the position.
    depth: usize,
    /// Regions open around the position inside the function.
    region_depth: usize,
    /// Whether the next region is a function's body (depth 0).
    in_function_body: bool,
    /// The location attributes defined as aliases.
    locations: HashSet<u64>,
    /// Vectors for operations' indices, reused.
    pool: Vec<Vec<u64>>,
    /// The facts of an operation's results, reused.
    facts: Vec<Option<Fact>>,
}

/// An operation as read, before its regions.
struct Op<'a> {
    dialect: &'a str,
    name: &'a [u8],
    /// Where it starts in the input.
    at: usize,
    /// Its location attribute.
    location: u64,
    attr_dict: Option<u64>,
    /// The attribute indices of its properties, in order, or the
    /// properties attribute of an operation the producer did not know.
    properties: Vec<u64>,
    result_types: Vec<u64>,
    operands: Vec<u64>,
    regions: usize,
    isolated: bool,
}

/// The operation's name as StableHLO text writes it: VHLO's
/// `vhlo.add_v1` is `stablehlo.add`, `func_v1`, `call_v1` and `return_v1`
/// are `func`'s (a `return` inside a nested region is `stablehlo.return`).
fn text_name(dialect: &str, name: &str, depth: usize) -> String {
    if dialect != "vhlo" {
        return if name.is_empty() {
            dialect.to_owned()
        } else {
            format!("{dialect}.{name}")
        };
    }
    let base = match name.rfind("_v") {
        Some(i) if name[i + 2..].bytes().all(|b| b.is_ascii_digit()) && i + 2 < name.len() => {
            &name[..i]
        }
        _ => name,
    };
    match base {
        "func" | "call" => format!("func.{base}"),
        "return" if depth == 0 => "func.return".to_owned(),
        _ => format!("stablehlo.{base}"),
    }
}

/// The operations whose operand types the layout rules look at.
const OPERAND_TYPES: &[&str] = &["reshape", "slice", "pad", "concatenate", "broadcast_in_dim"];

fn is_terminator(name: &str) -> bool {
    matches!(name, "func.return" | "stablehlo.return" | "sdy.return")
}

impl<'a> Walker<'a> {
    fn read_ir(&mut self, mut r: Reader<'a>) -> Result<()> {
        // The IR section is one block of a region of its own
        // (`parseIRSection`).
        self.scopes.push(Scope::default());
        self.push_values(&r, 0)?;
        let mut top = Region::default();
        self.read_block(&mut r, &mut top)?;
        Ok(())
    }

    /// Reserves `n` values for a region in the current scope.
    fn push_values(&mut self, r: &Reader<'_>, n: u64) -> Result<()> {
        let ir_len = self.ir_len;
        let scope = self
            .scopes
            .last_mut()
            .ok_or_else(|| r.error("no value scope"))?;
        let n = usize::try_from(n)
            .ok()
            .filter(|&n| scope.values.len().saturating_add(n) <= ir_len)
            .ok_or_else(|| r.error(format!("{n} values do not fit in the IR section")))?;
        scope.next.push(scope.values.len());
        scope.values.resize(scope.values.len() + n, None);
        Ok(())
    }

    fn pop_values(&mut self) {
        if let Some(scope) = self.scopes.last_mut()
            && let Some(start) = scope.next.pop()
        {
            scope.values.truncate(start);
        }
    }

    /// Defines the next value of the current region.
    fn define(&mut self, r: &Reader<'_>, name: Rc<str>, ty: u64) -> Result<()> {
        let scope = self
            .scopes
            .last_mut()
            .ok_or_else(|| r.error("no value scope"))?;
        let next = scope.next.last_mut().ok_or_else(|| r.error("no region"))?;
        let slot = scope.values.get_mut(*next).ok_or_else(|| {
            r.error("value index range was outside of the expected range for the parent region")
        })?;
        *slot = Some((name, ty));
        *next += 1;
        Ok(())
    }

    /// A block: its header (`parseBlockHeader`), then its operations.
    fn read_block(&mut self, r: &mut Reader<'a>, region: &mut Region) -> Result<()> {
        let (ops, has_args) = r.varint_with_flag()?;
        if has_args {
            let n = self.read_block_arguments(r)?;
            if self.version >= 3 && r.byte()? != 0 {
                skip_use_list_orders(r, n)?;
            }
        }
        for _ in 0..ops {
            if r.is_empty() {
                return Err(r.error("attempting to parse a byte at the end of the bytecode"));
            }
            self.read_operation(r, region)?;
        }
        Ok(())
    }

    /// A block's arguments (`parseBlockArguments`); those of a function's
    /// entry block name its arguments.
    fn read_block_arguments(&mut self, r: &mut Reader<'a>) -> Result<u64> {
        let n = r.count("block arguments")?;
        let entry_of = self.entry_of.take();
        for i in 0..n {
            let at = r.offset();
            let (ty, location) = if self.version >= 4 {
                let (ty, has_loc) = r.varint_with_flag()?;
                (ty, if has_loc { Some(r.varint()?) } else { None })
            } else {
                let ty = r.varint()?;
                (ty, Some(r.varint()?))
            };
            let name = format!("arg{}", self.arguments);
            self.arguments += 1;
            let debug_location = match location {
                Some(l) => Some(self.location(l, at)?),
                None => None,
            };
            if let Some(f) = entry_of
                && let Some(arg) = self
                    .module
                    .functions
                    .get_mut(f)
                    .and_then(|f| f.arguments.get_mut(i))
            {
                arg.name.clone_from(&name);
                arg.debug_location = debug_location;
            }
            self.define(r, format!("%{name}").into(), ty)?;
        }
        Ok(n as u64)
    }

    /// The alias `#locN` of the location attribute `index`, defined with
    /// the aliases it refers to.
    fn location(&mut self, index: u64, at: usize) -> Result<String> {
        if self.locations.insert(index) {
            let mut work = vec![index];
            while let Some(i) = work.pop() {
                if i != index && !self.locations.insert(i) {
                    continue;
                }
                let name = format!("loc{i}");
                let (text, children) = self.tables.location_text(i, at)?;
                let aliases = &mut self.module.location_aliases;
                self.module.alias_index.insert(name.clone(), aliases.len());
                aliases.push((name, text));
                work.extend(children);
            }
        }
        Ok(format!("#loc{index}"))
    }

    /// An operation and its regions.
    fn read_operation(&mut self, r: &mut Reader<'a>, region: &mut Region) -> Result<()> {
        let op = self.read_header(r)?;
        let result = self.read_operation_with(r, region, &op);
        for mut v in [op.properties, op.result_types, op.operands] {
            v.clear();
            self.pool.push(v);
        }
        result
    }

    fn read_operation_with(
        &mut self,
        r: &mut Reader<'a>,
        region: &mut Region,
        op: &Op<'a>,
    ) -> Result<()> {
        let at = op.at;
        let dialect = op.dialect;
        let name = std::str::from_utf8(op.name).unwrap_or("?");
        match (dialect, name) {
            ("builtin", "module") => return self.read_module(r, op),
            ("vhlo", "func_v1") => return self.read_function(r, op),
            ("sdy", "mesh") => {
                let mesh = match op.properties.as_slice() {
                    [mesh, sym_name, ..] => Some((*mesh, *sym_name)),
                    _ => None,
                };
                if let Some((mesh, sym_name)) = mesh {
                    let name = self.tables.attr_string(sym_name, at)?;
                    let mut value = String::new();
                    self.tables.render(mesh, at, 0, &mut value)?;
                    let value = value
                        .strip_prefix("#sdy.mesh")
                        .map(str::to_owned)
                        .unwrap_or(value);
                    self.module.meshes.push(Mesh {
                        name,
                        value,
                        location: Location {
                            line: 0,
                            column: 0,
                            offset: at,
                        },
                    });
                }
                return self.read_regions(r, op, &mut Vec::new());
            }
            _ => {}
        }
        let text = text_name(dialect, name, region.depth);
        // Results: named as MLIR prints them when it has no better name.
        let count = op.result_types.len();
        let first = self.results;
        let results = match count {
            0 => String::new(),
            1 => format!("%{first}"),
            n => format!("%{first}:{n}"),
        };
        if count > 0 {
            self.results += 1;
        }
        let names = result_names(&[(first, count)]);
        let mut result_types = Vec::with_capacity(count);
        for (&t, value) in op.result_types.iter().zip(&names) {
            result_types.push(self.tables.value_type(t, at)?);
            self.define(r, value.as_str().into(), t)?;
        }
        let debug_location = Some(self.location(op.location, at)?);
        let slot = self.function.and_then(|f| {
            let ops = &mut self.module.functions.get_mut(f)?.operations;
            ops.push(Operation {
                name: String::new(),
                results,
                result_types: Vec::new(),
                location: Location {
                    line: 0,
                    column: 0,
                    offset: at,
                },
                debug_location,
                depth: region.depth,
            });
            Some(ops.len() - 1)
        });
        // Operands, by name.
        let mut operands: Vec<Rc<str>> = Vec::with_capacity(op.operands.len());
        let mut operand_type_indices = self.pool.pop().unwrap_or_default();
        if let Some(scope) = self.scopes.last() {
            for &v in &op.operands {
                match usize::try_from(v).ok().and_then(|v| scope.values.get(v)) {
                    Some(Some((name, ty))) => {
                        operands.push(name.clone());
                        operand_type_indices.push(*ty);
                    }
                    Some(None) => operands.push(format!("%forward{v}").into()),
                    None => return Err(error_at(at, format!("invalid value index: {v}"))),
                }
            }
        }
        let mut first_region = Vec::new();
        self.read_regions(r, op, &mut first_region)?;
        let base = text.strip_prefix("stablehlo.").unwrap_or(&text);
        let operand_types =
            if OPERAND_TYPES.contains(&base) && operand_type_indices.len() == operands.len() {
                let mut types = Vec::with_capacity(operand_type_indices.len());
                for &t in &operand_type_indices {
                    types.push(self.tables.value_type(t, at)?);
                }
                Some(types)
            } else {
                None
            };
        let decoded = if dialect == "vhlo" {
            self.decoded_attrs(base, op)?
        } else {
            DecodedAttrs::default()
        };
        operand_type_indices.clear();
        self.pool.push(operand_type_indices);
        let operand_names: Vec<&str> = operands.iter().map(|o| &**o).collect();
        let region_result = first_region
            .first()
            .and_then(|r: &Option<Vec<Option<Fact>>>| r.as_deref());
        let op = OpView {
            name: &text,
            attrs: OpAttrs::Decoded(&decoded),
            operands: &operand_names,
            operand_types: operand_types.as_deref(),
            result_types: &result_types,
            region_result,
        };
        self.flow.apply(
            &op,
            names,
            is_terminator(&text),
            &mut self.facts,
            &mut region.returned,
        );
        if let Some(o) = self.module.operation_mut(self.function, slot) {
            o.result_types = result_types;
            o.name = text;
        }
        Ok(())
    }

    /// `builtin.module`: the first one's name and attributes are the
    /// module's; its operations start afresh, as functions do.
    fn read_module(&mut self, r: &mut Reader<'a>, op: &Op<'a>) -> Result<()> {
        let at = op.at;
        if !self.saw_module {
            self.saw_module = true;
            if let Some(&name) = op.properties.first()
                && name != u64::MAX
            {
                self.module.name = Some(self.tables.attr_string(name, at)?);
            }
            if let Some(dict) = op.attr_dict {
                self.module.attributes = self.attributes(dict, at)?;
                // Before properties (version 5), `sym_name` was an attribute.
                if let Some(i) = self
                    .module
                    .attributes
                    .iter()
                    .position(|a| a.name == "sym_name")
                {
                    let a = self.module.attributes.remove(i);
                    self.module.name = a.as_str().or(Some(a.value));
                }
            }
        }
        let outer = self.function.take();
        let result = self.read_regions(r, op, &mut Vec::new());
        self.function = outer;
        result
    }

    /// The attributes of a dictionary attribute, each value as MLIR
    /// prints it.
    fn attributes(&mut self, dict: u64, at: usize) -> Result<Vec<Attribute>> {
        let attr = self.tables.attr(dict, at)?;
        let Attr::Dict(pairs) = &*attr else {
            return Ok(Vec::new());
        };
        let mut out = Vec::with_capacity(pairs.len());
        for &(name, value) in pairs {
            let name = self.tables.attr_string(name, at)?;
            let mut text = String::new();
            if !matches!(&*self.tables.attr(value, at)?, Attr::Unit) {
                self.tables.render(value, at, 0, &mut text)?;
            }
            out.push(Attribute {
                name,
                value: text,
                location: Location {
                    line: 0,
                    column: 0,
                    offset: at,
                },
            });
        }
        Ok(out)
    }

    /// The attribute dictionaries of an array of them (`arg_attrs`,
    /// `res_attrs`).
    fn attribute_lists(&mut self, array: Option<u64>, at: usize) -> Result<Vec<Vec<Attribute>>> {
        let Some(array) = array else {
            return Ok(Vec::new());
        };
        let attr = self.tables.attr(array, at)?;
        let Attr::Array(items) = &*attr else {
            return Ok(Vec::new());
        };
        let mut out = Vec::with_capacity(items.len());
        for &item in items {
            out.push(self.attributes(item, at)?);
        }
        Ok(out)
    }

    /// `vhlo.func_v1`: a function, then its body.
    fn read_function(&mut self, r: &mut Reader<'a>, op: &Op<'a>) -> Result<()> {
        let at = op.at;
        let prop = |name: &str| {
            FUNC_V1
                .iter()
                .position(|n| *n == name)
                .and_then(|i| op.properties.get(i).copied())
        };
        let name = match prop("sym_name") {
            Some(a) => self.tables.attr_string(a, at)?,
            None => return Err(error_at(at, "a function without a name (sym_name)")),
        };
        let visibility = match prop("sym_visibility") {
            Some(a) => Some(self.tables.attr_string(a, at)?).filter(|v| !v.is_empty()),
            None => None,
        };
        let (inputs, outputs) = match prop("function_type")
            .map(|a| self.tables.attr(a, at))
            .transpose()?
        {
            Some(attr) => match &*attr {
                Attr::Type(t) => match &*self.tables.ty(*t, at, 0)? {
                    Ty::Function(i, o) => {
                        let weight = i.len() + o.len();
                        self.tables.charge(weight, at)?;
                        (i.clone(), o.clone())
                    }
                    _ => return Err(error_at(at, "expected a function type")),
                },
                _ => return Err(error_at(at, "expected a function type")),
            },
            None => return Err(error_at(at, "a function without a type (function_type)")),
        };
        let mut arg_attrs = self.attribute_lists(prop("arg_attrs"), at)?.into_iter();
        let mut res_attrs = self.attribute_lists(prop("res_attrs"), at)?.into_iter();
        let location = Location {
            line: 0,
            column: 0,
            offset: at,
        };
        let arguments = inputs
            .into_iter()
            .map(|ty| Argument {
                name: String::new(),
                ty,
                attributes: arg_attrs.next().unwrap_or_default(),
                debug_location: None,
                location,
            })
            .collect();
        let results: Vec<FunctionResult> = outputs
            .into_iter()
            .map(|ty| FunctionResult {
                ty,
                attributes: res_attrs.next().unwrap_or_default(),
                location,
            })
            .collect();
        let result_count = results.len();
        let attributes = match op.attr_dict {
            Some(d) => self.attributes(d, at)?,
            None => Vec::new(),
        };
        self.module.functions.push(Function {
            name,
            visibility,
            arguments,
            results,
            attributes,
            operations: Vec::new(),
            location,
            result_facts: Vec::new(),
        });
        let index = self.module.functions.len() - 1;
        self.flow.enter_function();
        let outer = self.function.replace(index);
        self.entry_of = Some(index);
        let (results_before, arguments_before, depth_before) =
            (self.results, self.arguments, self.region_depth);
        self.results = 0;
        self.arguments = 0;
        self.region_depth = 0;
        let mut returned = Vec::new();
        let result = self.read_function_body(r, op, &mut returned);
        self.function = outer;
        self.entry_of = None;
        self.results = results_before;
        self.arguments = arguments_before;
        self.region_depth = depth_before;
        result?;
        if let Some(f) = self.module.functions.get_mut(index) {
            let facts = returned.into_iter().next().flatten().unwrap_or_default();
            if facts.len() == result_count && facts.iter().any(Option::is_some) {
                f.result_facts = facts;
            }
        }
        Ok(())
    }

    /// A function's body: its region at depth 0 (the function's own).
    fn read_function_body(
        &mut self,
        r: &mut Reader<'a>,
        op: &Op<'a>,
        returned: &mut Vec<Option<Vec<Option<Fact>>>>,
    ) -> Result<()> {
        // `read_regions` counts the function's region as the first level;
        // the operations of the body are at depth 0.
        self.region_depth = 0;
        self.in_function_body = true;
        self.read_regions(r, op, returned)
    }

    /// The attributes the layout rules read, from a VHLO operation's
    /// properties.
    fn decoded_attrs(&mut self, base: &str, op: &Op<'_>) -> Result<DecodedAttrs> {
        let at = op.at;
        let mut d = DecodedAttrs::default();
        let prop = |names: &[&str], name: &str| {
            names
                .iter()
                .position(|n| *n == name)
                .and_then(|i| op.properties.get(i).copied())
        };
        match base {
            "transpose" | "broadcast_in_dim" => {
                if let Some(&a) = op.properties.first() {
                    d.dims = self.ints(a, at)?;
                }
            }
            "get_tuple_element" => {
                if let Some(&a) = op.properties.first()
                    && let Attr::Int { value, .. } = &*self.tables.attr(a, at)?
                {
                    d.index = i64::try_from(*value).ok();
                }
            }
            "func.call" => {
                if let Some(&a) = op.properties.first() {
                    d.callee = Some(self.tables.attr_string(a, at)?);
                }
            }
            "custom_call" => {
                if let Some(a) = prop(CUSTOM_CALL, "result_layouts")
                    && let Attr::Array(items) = &*self.tables.attr(a, at)?
                {
                    let mut layouts = Vec::with_capacity(items.len());
                    for &item in items {
                        match self.ints(item, at)? {
                            Some(l) => layouts.push(l),
                            None => return Ok(d),
                        }
                    }
                    d.result_layouts = Some(layouts);
                }
            }
            _ => {}
        }
        Ok(d)
    }

    /// The integers of a dense integer attribute (a splat expanded to its
    /// type's size).
    fn ints(&mut self, index: u64, at: usize) -> Result<Option<Vec<i64>>> {
        let attr = self.tables.attr(index, at)?;
        let Attr::Dense {
            ty,
            data,
            packed_bools,
        } = &*attr
        else {
            return Ok(None);
        };
        let Some((values, dims)) = self
            .tables
            .dense_ints(*ty, data.clone(), *packed_bools, at)?
        else {
            return Ok(None);
        };
        if let ([v], [n]) = (values.as_slice(), dims.as_slice())
            && let Ok(n) = usize::try_from(*n)
            && n != 1
        {
            // A splat: one value for every element.
            if n > self.ir_len {
                return Ok(None);
            }
            self.tables.charge(n, at)?;
            return Ok(Some(vec![*v; n]));
        }
        Ok(Some(values))
    }

    /// An operation without its regions (`parseOpWithoutRegions`).
    fn read_header(&mut self, r: &mut Reader<'a>) -> Result<Op<'a>> {
        let at = r.offset();
        let index = r.varint()?;
        let name = usize::try_from(index)
            .ok()
            .and_then(|i| self.op_names.get(i))
            .ok_or_else(|| error_at(at, format!("invalid operation name index: {index}")))?;
        let dialect = self
            .tables
            .dialects
            .get(name.dialect)
            .copied()
            .unwrap_or("");
        let (op_name, registered) = (name.name, name.registered);
        let mask = r.byte()?;
        let location = r.varint()?;
        let mut op = Op {
            dialect,
            name: op_name,
            at,
            location,
            attr_dict: None,
            properties: self.pool.pop().unwrap_or_default(),
            result_types: self.pool.pop().unwrap_or_default(),
            operands: self.pool.pop().unwrap_or_default(),
            regions: 0,
            isolated: false,
        };
        if mask & HAS_ATTRS != 0 {
            op.attr_dict = Some(r.varint()?);
        }
        if mask & HAS_PROPERTIES != 0 {
            match registered {
                None => {
                    return Err(r.error(format!(
                        "Unexpected missing `wasRegistered` opname flag at bytecode version {} with properties.",
                        self.version
                    )));
                }
                Some(true) => {
                    let pat = r.offset();
                    let i = r.varint()?;
                    let blob = usize::try_from(i)
                        .ok()
                        .and_then(|i| self.props.get(i).copied())
                        .ok_or_else(|| {
                            error_at(
                                pat,
                                format!("Properties idx out-of-bound for {}", text(op_name)),
                            )
                        })?;
                    read_property_attrs(blob, dialect, op_name, &mut op.properties)?;
                }
                Some(false) => op.properties.push(r.varint()?),
            }
        }
        if mask & HAS_RESULTS != 0 {
            let n = r.count("results")?;
            for _ in 0..n {
                op.result_types.push(r.varint()?);
            }
        }
        if mask & HAS_OPERANDS != 0 {
            let n = r.count("operands")?;
            for _ in 0..n {
                op.operands.push(r.varint()?);
            }
        }
        if mask & HAS_SUCCESSORS != 0 {
            let n = r.count("successors")?;
            for _ in 0..n {
                r.varint()?;
            }
        }
        if self.version >= 3 && mask & HAS_USE_LIST_ORDERS != 0 {
            skip_use_list_orders(r, op.result_types.len() as u64)?;
        }
        if mask & HAS_INLINE_REGIONS != 0 {
            let (n, isolated) = r.varint_with_flag()?;
            op.regions = usize::try_from(n)
                .ok()
                .filter(|&n| n <= r.remaining().max(1) * 2)
                .ok_or_else(|| r.error(format!("{n} regions do not fit in the bytes left")))?;
            op.isolated = isolated;
        }
        Ok(op)
    }

    /// The regions of `op`; the facts each returns into `returned`.
    fn read_regions(
        &mut self,
        r: &mut Reader<'a>,
        op: &Op<'_>,
        returned: &mut Vec<Option<Vec<Option<Fact>>>>,
    ) -> Result<()> {
        if op.regions == 0 {
            return Ok(());
        }
        if self.depth >= MAX_NESTING_DEPTH {
            return Err(r.error(format!(
                "region nesting exceeds the limit of {MAX_NESTING_DEPTH} levels"
            )));
        }
        let mut own;
        let reader: &mut Reader<'a> = if op.isolated && self.version >= 2 {
            let at = r.offset();
            let (id, data) = r.section()?;
            if id != IR {
                return Err(error_at(at, "expected IR section for region"));
            }
            own = data;
            &mut own
        } else {
            r
        };
        if op.isolated {
            self.scopes.push(Scope::default());
        }
        self.depth += 1;
        let result = (|| -> Result<()> {
            for _ in 0..op.regions {
                let facts = self.read_region(reader)?;
                returned.push(facts);
            }
            Ok(())
        })();
        self.depth -= 1;
        if op.isolated {
            self.scopes.pop();
        }
        result
    }

    /// One region (`parseRegion`), nested in an operation of a function.
    fn read_region(&mut self, r: &mut Reader<'a>) -> Result<Option<Vec<Option<Fact>>>> {
        let body = std::mem::take(&mut self.in_function_body);
        let blocks = r.varint()?;
        if blocks == 0 {
            return Ok(None);
        }
        let values = r.varint()?;
        self.push_values(r, values)?;
        let inner_depth = if body { 0 } else { self.region_depth + 1 };
        let saved = std::mem::replace(&mut self.region_depth, inner_depth);
        self.flow.enter_region();
        let mut region = Region {
            returned: None,
            depth: inner_depth,
        };
        let result = (|| -> Result<()> {
            for _ in 0..blocks {
                if r.is_empty() {
                    return Err(r.error("attempting to parse a byte at the end of the bytecode"));
                }
                self.read_block(r, &mut region)?;
            }
            Ok(())
        })();
        self.flow.leave();
        self.region_depth = saved;
        self.pop_values();
        result?;
        Ok(region.returned)
    }
}

/// The attribute indices of an operation's properties: VHLO operations
/// and `sdy.mesh` write each attribute (`readAttribute`), `builtin.module`
/// its two optional ones (`readOptionalAttribute`: a flag in the low bit;
/// absent ones are `u64::MAX`); other operations' are not read.
fn read_property_attrs(
    blob: Reader<'_>,
    dialect: &str,
    name: &[u8],
    out: &mut Vec<u64>,
) -> Result<()> {
    let mut r = blob;
    match (dialect, name) {
        ("vhlo", _) | ("sdy", b"mesh") => {
            while !r.is_empty() {
                out.push(r.varint()?);
            }
        }
        ("builtin", b"module") => {
            while !r.is_empty() {
                let (i, present) = r.varint_with_flag()?;
                out.push(if present { i } else { u64::MAX });
            }
        }
        _ => {}
    }
    Ok(())
}

/// Skips the use-list orders of `values` values
/// (`parseUseListOrderForRange`).
fn skip_use_list_orders(r: &mut Reader<'_>, values: u64) -> Result<()> {
    let n = if values > 1 { r.varint()? } else { 1 };
    for _ in 0..n {
        if r.is_empty() {
            return Err(r.error("attempting to parse a byte at the end of the bytecode"));
        }
        if values > 1 {
            r.varint()?;
        }
        let (indices, _) = r.varint_with_flag()?;
        for _ in 0..indices {
            r.varint()?;
        }
    }
    Ok(())
}
