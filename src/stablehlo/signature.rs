//! The entry function's signature as XLA's conversion gives it, and what
//! compilation adds.
//!
//! XLA converts the module (`ConvertStablehloToHlo`,
//! `xla/hlo/translate/stablehlo.cc`) with `@main` as the entry computation:
//! its parameters are its arguments' shapes (`TypeToShape`, default
//! layouts), its result the one result's shape or a tuple of them, with the
//! layouts the body gives (see the `flow` module). The module attributes
//! `mhlo.xla_entry_computation_parameter_layouts` / `..._tiles` and
//! `mhlo.xla_entry_computation_result_layout` / `..._tiles` set the entry
//! layouts (`module_attributes_exporter.cc`); `tf.aliasing_output` and
//! `jax.buffer_donor` on arguments make the input/output aliasing and the
//! buffer donors (`mlir_hlo_to_hlo.cc`).
//!
//! The conversion leaves `mhlo.layout_mode` and `mhlo.memory_kind` to
//! compilation: PJRT's `LayoutModesToXlaShapes` (`xla/pjrt/utils.cc`) asks
//! the compiler for the device's default layout, the layout written, or
//! lets it choose (`auto`), and puts `pinned_host` values in memory space 5
//! (`Layout::kHostMemorySpace`) and, in jaxlib 0.10.2, `unpinned_host`
//! ones in 6. [`Signature`]
//! says so beside the conversion's layout ([`SignatureValue::compile`]).

use super::flow::Fact;
use super::{Attribute, Function, StableHloModule, Type};
use crate::error::{Error, Result};
use crate::limits::MAX_NESTING_DEPTH;
use crate::model::{Layout, ProgramShape, Shape, Tile};
use crate::sharding::HloSharding;
use crate::sharding::shardy::{self, MeshRef, ShardySharding};

/// `Layout::kHostMemorySpace`: where `pinned_host` values live
/// (`GetMemorySpaceColor`, `xla/pjrt/utils.cc`).
const HOST_MEMORY_SPACE: i64 = 5;

/// Where jaxlib 0.10.2 compiles `unpinned_host` values: memory space 6
/// (XLA:CPU's compiled layout of `memory_out_unpinned_host` in
/// `tests/data/stablehlo/programs.jsonl`; the `GetMemorySpaceColor` of
/// older XLA put both host kinds in 5).
const UNPINNED_HOST_MEMORY_SPACE: i64 = 6;

/// XLA's `LayoutMode` (`xla/pjrt/layout_mode.h`): how compilation chooses
/// the layout of an entry parameter or result, from `mhlo.layout_mode`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LayoutMode {
    /// `default`: the device's default layout for the shape.
    Default,
    /// `auto`: the compiler chooses.
    Auto,
    /// A layout written in XLA's syntax (`{0,1}`).
    UserSpecified(Layout),
}

impl LayoutMode {
    /// XLA's `LayoutMode::FromString`: `default`, `auto`, or a layout that
    /// XLA's `ParseLayout` reads.
    ///
    /// # Errors
    ///
    /// XLA's `Error parsing user-specified layout mode '...': ...`.
    #[doc(alias = "LayoutMode::FromString")]
    pub fn from_string(s: &str) -> Result<LayoutMode> {
        match s {
            "default" => Ok(LayoutMode::Default),
            "auto" => Ok(LayoutMode::Auto),
            _ => s
                .parse::<Layout>()
                .map(LayoutMode::UserSpecified)
                .map_err(|e| {
                    Error::invalid_argument(format!(
                        "Error parsing user-specified layout mode '{s}': {}",
                        e.message()
                    ))
                }),
        }
    }
}

/// What compilation asks for an entry parameter or result
/// (`LayoutModeToXlaShape`, `xla/pjrt/utils.cc`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CompileLayout {
    /// The device's default layout for the (per-device) shape, in
    /// `memory_space`: on XLA:CPU the descending layout, with the element
    /// size in bits of sub-byte types (`s4[2,3]{1,0:E(4)}`).
    Default {
        /// The memory space (0, or 5 for host memory kinds).
        memory_space: i64,
    },
    /// The layout `mhlo.layout_mode` writes, in `memory_space`.
    UserSpecified {
        /// The layout.
        layout: Layout,
        /// The memory space.
        memory_space: i64,
    },
    /// `auto`: left to the compiler (and no memory space is set).
    Auto,
}

/// An entry parameter or result.
#[derive(Clone, Debug, PartialEq)]
pub struct SignatureValue {
    /// A name for people: a parameter's location name (JAX writes the
    /// Python argument's name) or value name (`arg0`); a result's
    /// `jax.result_info`, or `result[i]`.
    pub name: String,
    /// The type.
    pub ty: Type,
    /// The shape with the layout XLA's conversion gives it (what the
    /// entry computation layout holds).
    pub shape: Shape,
    /// `mhlo.sharding` (its string) or `sdy.sharding` (as written); read
    /// with [`hlo_sharding`](Self::hlo_sharding).
    pub sharding: Option<String>,
    /// `mhlo.memory_kind`.
    pub memory_kind: Option<String>,
    /// `mhlo.layout_mode`.
    pub layout_mode: Option<LayoutMode>,
    /// What compilation asks for it.
    pub compile: CompileLayout,
    /// For a result: whether its layout in the conversion comes from the
    /// body (a final transpose) rather than from its type.
    pub layout_from_body: bool,
    /// The sharding read, or why it cannot be.
    hlo_sharding: Option<Result<HloSharding>>,
}

impl SignatureValue {
    /// The sharding as XLA's conversion gives the entry parameter or the
    /// root: `mhlo.sharding` read as `ConvertSharding` reads it
    /// ([`HloSharding::from_mhlo_sharding`]), or `sdy.sharding` over the
    /// module's `sdy.mesh` it names (or its inline mesh) as XLA's Shardy
    /// export converts it ([`ShardySharding::to_hlo_sharding`]); `None`
    /// when it has neither, an error when the text does not read or names
    /// a mesh the module does not have.
    ///
    /// ```
    /// use xla_shape::stablehlo::StableHloModule;
    /// let module = StableHloModule::from_text(
    ///     r#"module @m {
    ///   sdy.mesh @mesh = <["x"=4, "y"=2]>
    ///   func.func public @main(%arg0: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) -> tensor<8x4xf32> {
    ///     return %arg0 : tensor<8x4xf32>
    ///   }
    /// }"#,
    /// )?;
    /// let signature = module.signature()?;
    /// let s = signature.parameters[0].hlo_sharding().unwrap()?;
    /// assert_eq!(s.to_string(), "{devices=[4,1,2]<=[8] last_tile_dim_replicate}");
    /// assert!(signature.results[0].hlo_sharding().is_none());
    /// # Ok::<(), xla_shape::Error>(())
    /// ```
    pub fn hlo_sharding(&self) -> Option<Result<&HloSharding>> {
        self.hlo_sharding
            .as_ref()
            .map(|r| r.as_ref().map_err(Clone::clone))
    }
}

/// An input/output alias: output `output_index` may reuse parameter
/// `parameter`'s buffer (`HloInputOutputAliasConfig`, kind `may-alias`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Alias {
    /// The index in the result (`{}` for a single result, `{1}` for the
    /// second of several).
    pub output_index: Vec<i64>,
    /// The parameter number.
    pub parameter: usize,
}

/// The entry function's signature, as XLA's conversion gives it and as
/// compilation applies it.
#[derive(Clone, Debug, PartialEq)]
pub struct Signature {
    /// The parameters.
    pub parameters: Vec<SignatureValue>,
    /// The results (the entry result is their tuple when there are not
    /// exactly one).
    pub results: Vec<SignatureValue>,
    entry_computation_layout: ProgramShape,
    /// The input/output aliases (`tf.aliasing_output`).
    pub input_output_alias: Vec<Alias>,
    /// The parameters that are buffer donors (`jax.buffer_donor`).
    pub buffer_donors: Vec<usize>,
    /// `mhlo.num_partitions`.
    pub num_partitions: Option<i64>,
    /// `mhlo.num_replicas`.
    pub num_replicas: Option<i64>,
}

impl Signature {
    /// The signature of `module`'s `@main`.
    ///
    /// # Errors
    ///
    /// `InvalidArgument` when the module has no `@main` (XLA: the entry is
    /// `main`), when `tf.aliasing_output` is not 0 with one result (XLA's
    /// `Aliasing output must be 0 if only one output exists`) or names no
    /// result, or `mhlo.layout_mode` does not parse; a type XLA has no
    /// shape for gives [`Type::to_shape`]'s error.
    pub fn of(module: &StableHloModule) -> Result<Signature> {
        let main = module
            .main()
            .ok_or_else(|| Error::invalid_argument("the module has no function @main"))?;
        let mut parameters = Vec::with_capacity(main.arguments.len());
        let mut input_output_alias = Vec::new();
        let mut buffer_donors = Vec::new();
        let single = main.results.len() == 1;
        for (i, arg) in main.arguments.iter().enumerate() {
            let shape = arg.ty.to_shape()?;
            let attrs = &arg.attributes;
            if let Some(out) = attr(attrs, "tf.aliasing_output").and_then(Attribute::as_integer) {
                let index = if single {
                    if out != 0 {
                        return Err(Error::invalid_argument(
                            "Aliasing output must be 0 if only one output exists",
                        ));
                    }
                    Vec::new()
                } else {
                    if usize::try_from(out).map_or(true, |o| o >= main.results.len()) {
                        return Err(Error::invalid_argument(format!(
                            "tf.aliasing_output = {out} of argument {i} names no result of @main"
                        )));
                    }
                    vec![out]
                };
                input_output_alias.push(Alias {
                    output_index: index,
                    parameter: i,
                });
            }
            if attr(attrs, "jax.buffer_donor").and_then(Attribute::as_bool) == Some(true) {
                buffer_donors.push(i);
            }
            parameters.push(value(
                module,
                super::argument_name(module, arg),
                &arg.ty,
                shape,
                attrs,
            )?);
        }
        let mut results = Vec::with_capacity(main.results.len());
        for (i, r) in main.results.iter().enumerate() {
            let mut shape = r.ty.to_shape()?;
            let mut from_body = false;
            // With Shardy, a result with a sharding goes through a custom
            // call (`xla.sdy.FuncResultSharding`), whose shape is its type's.
            if attr(&r.attributes, "sdy.sharding").is_none()
                && let Some(layout) = result_layout(module, main, i)
                && let Shape::Array(a) = &mut shape
                && let Ok(with) = a.clone().with_layout(Some(Layout::new(layout)))
            {
                *a = with;
                from_body = true;
            }
            let name = attr(&r.attributes, "jax.result_info")
                .and_then(Attribute::as_str)
                .unwrap_or_else(|| format!("result[{i}]"));
            let mut v = value(module, name, &r.ty, shape, &r.attributes)?;
            v.layout_from_body = from_body;
            results.push(v);
        }
        let mut params: Vec<Shape> = parameters.iter().map(|p| p.shape.clone()).collect();
        let mut result = if results.len() == 1 {
            results[0].shape.clone()
        } else {
            Shape::Tuple(results.iter().map(|r| r.shape.clone()).collect())
        };
        apply_entry_attributes(module, &mut params, &mut result)?;
        for (p, shape) in parameters.iter_mut().zip(&params) {
            p.shape = shape.clone();
        }
        match (&result, results.len()) {
            (_, 1) => results[0].shape = result.clone(),
            (Shape::Tuple(elements), _) => {
                for (r, shape) in results.iter_mut().zip(elements) {
                    r.shape = shape.clone();
                }
            }
            _ => {}
        }
        let entry_computation_layout = ProgramShape::new(
            parameters
                .iter()
                .map(|p| (p.name.clone(), p.shape.clone()))
                .collect(),
            result,
        );
        Ok(Signature {
            parameters,
            results,
            entry_computation_layout,
            input_output_alias,
            buffer_donors,
            num_partitions: module
                .attribute("mhlo.num_partitions")
                .and_then(Attribute::as_integer),
            num_replicas: module
                .attribute("mhlo.num_replicas")
                .and_then(Attribute::as_integer),
        })
    }

    /// The entry computation layout XLA prints after the conversion
    /// (`entry_computation_layout={...}` of the HLO module's header), with
    /// the parameters' names: print it with
    /// [`ProgramShape::to_computation_layout_string`].
    pub fn entry_computation_layout(&self) -> &ProgramShape {
        &self.entry_computation_layout
    }

    /// The entry computation layout compilation asks for on XLA:CPU: each
    /// parameter and result with its `mhlo.layout_mode` layout (for
    /// `default` the CPU's: descending, sub-byte types packed, `E(4)` for
    /// `s4`) and its memory space; `None` when one of them is `auto` (the
    /// compiler chooses). For a sharded program the shapes are the global
    /// ones (XLA compiles the per-device shapes with these layouts).
    pub fn compile_entry_computation_layout(&self) -> Option<ProgramShape> {
        let params = self
            .parameters
            .iter()
            .map(|p| Some((p.name.clone(), compiled_shape(p)?)))
            .collect::<Option<Vec<_>>>()?;
        let results = self
            .results
            .iter()
            .map(compiled_shape)
            .collect::<Option<Vec<_>>>()?;
        let result = if results.len() == 1 {
            results.into_iter().next()?
        } else {
            Shape::Tuple(results)
        };
        Some(ProgramShape::new(params, result))
    }

    /// XLA's printed input/output aliasing (`input_output_alias={...}` of
    /// the HLO module's header): `{ {1}: (0, {}, may-alias) }`; empty when
    /// there is none.
    pub fn input_output_alias_string(&self) -> String {
        braced(self.input_output_alias.iter().map(|a| {
            format!(
                "{}: ({}, {{}}, may-alias)",
                index_string(&a.output_index),
                a.parameter
            )
        }))
    }

    /// XLA's printed buffer donors (`buffer_donor={...}` of the HLO
    /// module's header): `{ (0, {}) }`; empty when there is none.
    pub fn buffer_donor_string(&self) -> String {
        braced(self.buffer_donors.iter().map(|p| format!("({p}, {{}})")))
    }

    /// What compilation applies that the conversion's layout does not
    /// show, one sentence per parameter or result concerned.
    pub fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        for (kind, values) in [("parameter", &self.parameters), ("result", &self.results)] {
            for (i, v) in values.iter().enumerate() {
                let what = format!("{kind} {i} ({})", v.name);
                match &v.compile {
                    CompileLayout::Auto => notes.push(format!(
                        "{what}: mhlo.layout_mode = \"auto\": compilation lets the compiler choose the layout"
                    )),
                    CompileLayout::UserSpecified { layout, .. } => {
                        let mut l = String::new();
                        layout.print_to(&mut l);
                        notes.push(format!(
                            "{what}: mhlo.layout_mode: compilation asks for the layout {l}"
                        ));
                    }
                    CompileLayout::Default { .. } if v.layout_from_body => notes.push(format!(
                        "{what}: the conversion's layout comes from the body; compilation asks for the device's default layout ({{{}}} on XLA:CPU)",
                        descending(v.shape.rank().unwrap_or(0))
                    )),
                    CompileLayout::Default { .. } => {}
                }
                let space = match &v.compile {
                    CompileLayout::Default { memory_space }
                    | CompileLayout::UserSpecified { memory_space, .. } => *memory_space,
                    CompileLayout::Auto => 0,
                };
                if space != 0 {
                    notes.push(format!(
                        "{what}: mhlo.memory_kind = \"{}\": compilation puts it in memory space S({space})",
                        v.memory_kind.as_deref().unwrap_or_default()
                    ));
                }
            }
        }
        notes
    }
}

/// `{ a, b }`, as XLA prints its alias and donor lists; empty for none.
fn braced(items: impl Iterator<Item = String>) -> String {
    let items: Vec<String> = items.collect();
    if items.is_empty() {
        String::new()
    } else {
        format!("{{ {} }}", items.join(", "))
    }
}

/// `1,0` for rank 2.
fn descending(rank: usize) -> String {
    (0..rank)
        .rev()
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

/// XLA's `ShapeIndex::ToString`: `{}`, `{1}`, `{1,2}`.
fn index_string(index: &[i64]) -> String {
    let items: Vec<String> = index.iter().map(i64::to_string).collect();
    format!("{{{}}}", items.join(","))
}

fn attr<'a>(attrs: &'a [Attribute], name: &str) -> Option<&'a Attribute> {
    attrs.iter().find(|a| a.name == name)
}

/// A parameter or result with what its attributes say.
fn value(
    module: &StableHloModule,
    name: String,
    ty: &Type,
    shape: Shape,
    attrs: &[Attribute],
) -> Result<SignatureValue> {
    let mhlo = attr(attrs, "mhlo.sharding").and_then(Attribute::as_str);
    let sdy = attr(attrs, "sdy.sharding").map(|a| a.value.clone());
    let hlo_sharding = match (&mhlo, &sdy) {
        (Some(text), _) => Some(HloSharding::from_mhlo_sharding(text)),
        (None, Some(text)) => Some(read_shardy(module, text)),
        (None, None) => None,
    };
    let sharding = mhlo.or(sdy);
    let memory_kind = attr(attrs, "mhlo.memory_kind").and_then(Attribute::as_str);
    let layout_mode = attr(attrs, "mhlo.layout_mode")
        .and_then(Attribute::as_str)
        .map(|s| LayoutMode::from_string(&s))
        .transpose()?;
    let memory_space = match memory_kind.as_deref() {
        Some("pinned_host") => HOST_MEMORY_SPACE,
        Some("unpinned_host") => UNPINNED_HOST_MEMORY_SPACE,
        _ => 0,
    };
    let compile = match &layout_mode {
        Some(LayoutMode::Auto) => CompileLayout::Auto,
        Some(LayoutMode::UserSpecified(layout)) => CompileLayout::UserSpecified {
            layout: layout.clone(),
            memory_space,
        },
        Some(LayoutMode::Default) | None => CompileLayout::Default { memory_space },
    };
    Ok(SignatureValue {
        name,
        ty: ty.clone(),
        shape,
        sharding,
        memory_kind,
        layout_mode,
        compile,
        layout_from_body: false,
        hlo_sharding,
    })
}

/// An `sdy.sharding` over the module's mesh it names (or its inline mesh),
/// as XLA's Shardy export converts it.
fn read_shardy(module: &StableHloModule, text: &str) -> Result<HloSharding> {
    let s: ShardySharding = text.parse()?;
    let mesh = match &s.mesh {
        MeshRef::Inline(mesh) => mesh.clone(),
        MeshRef::Name(name) => {
            let m = module.meshes.iter().find(|m| &m.name == name).ok_or_else(|| {
                Error::invalid_argument(format!(
                    "the sharding {text} names the mesh @{name}, which the module does not define"
                ))
            })?;
            shardy::parse_mesh(&m.value)?.1
        }
    };
    s.to_hlo_sharding(&mesh)
}

/// The shape compilation asks for (`LayoutModeToXlaShape`), with the
/// descending layout for `default`.
fn compiled_shape(v: &SignatureValue) -> Option<Shape> {
    let Shape::Array(a) = &v.shape else {
        return Some(v.shape.clone());
    };
    let layout = match &v.compile {
        CompileLayout::Auto => return None,
        CompileLayout::Default { memory_space } => {
            let mut layout = Layout::new(descending_vec(a.rank())).with_memory_space(*memory_space);
            let t = a.element_type();
            if t.is_sub_byte_non_pred() {
                layout = layout.with_element_size_in_bits(i64::from(t.bit_width().unwrap_or(0)));
            }
            layout
        }
        CompileLayout::UserSpecified {
            layout,
            memory_space,
        } => layout.clone().with_memory_space(*memory_space),
    };
    a.clone().with_layout(Some(layout)).ok().map(Shape::Array)
}

fn descending_vec(rank: usize) -> Vec<i64> {
    (0..rank as i64).rev().collect()
}

/// The layout the conversion gives result `index` of `function`, from the
/// body: `None` for the default one.
fn result_layout(module: &StableHloModule, function: &Function, index: usize) -> Option<Vec<i64>> {
    let rank = function.results.get(index)?.ty.to_shape().ok()?.rank()?;
    let fact = function.result_facts.get(index)?.as_ref()?;
    let layout = resolve(module, fact, rank, 0)?;
    let descending = (0..rank as i64).rev().eq(layout.iter().copied());
    (!descending).then_some(layout)
}

/// The minor-to-major order `fact` stands for (of an array of `rank`),
/// calls followed through at most [`MAX_NESTING_DEPTH`] functions; `None`
/// for the default one.
fn resolve(module: &StableHloModule, fact: &Fact, rank: usize, depth: usize) -> Option<Vec<i64>> {
    match fact {
        Fact::Layout(l) if l.len() == rank => Some(l.to_vec()),
        Fact::Call { callee, index, map } if depth < MAX_NESTING_DEPTH => {
            let callee_fact = module
                .function(callee)?
                .result_facts
                .get(*index)
                .and_then(Option::as_ref);
            let base = callee_fact
                .and_then(|f| resolve(module, f, rank, depth + 1))
                .unwrap_or_else(|| descending_vec(rank));
            if map.is_empty() {
                return Some(base);
            }
            base.iter()
                .map(|&d| usize::try_from(d).ok().and_then(|d| map.get(d).copied()))
                .collect()
        }
        _ => None,
    }
}

/// The entry layout attributes of the module
/// (`ExportModuleEntryComputationParameterLayouts` and friends,
/// `module_attributes_exporter.cc`): layouts replace the minor-to-major
/// order (an empty one keeps the default), tiles are appended.
fn apply_entry_attributes(
    module: &StableHloModule,
    params: &mut [Shape],
    result: &mut Shape,
) -> Result<()> {
    if let Some(a) = module.attribute("mhlo.xla_entry_computation_parameter_layouts") {
        let list = nested_lists(&a.value)?;
        for (p, l) in params.iter_mut().zip(list.children()) {
            set_layouts(p, l, 0)?;
        }
    }
    if let Some(a) = module.attribute("mhlo.xla_entry_computation_parameter_tiles") {
        let list = nested_lists(&a.value)?;
        for (p, l) in params.iter_mut().zip(list.children()) {
            add_tiles(p, l, 0)?;
        }
    }
    if let Some(a) = module.attribute("mhlo.xla_entry_computation_result_layout") {
        let list = nested_lists(&a.value)?;
        let node = match list.children() {
            [one] => one.clone(),
            _ => list.clone(),
        };
        set_layouts(result, &node, 0)?;
    }
    if let Some(a) = module.attribute("mhlo.xla_entry_computation_result_tiles") {
        let list = nested_lists(&a.value)?;
        let node = match list.children() {
            [one] => one.clone(),
            _ => list.clone(),
        };
        add_tiles(result, &node, 0)?;
    }
    Ok(())
}

/// An array attribute of dense integer lists: `[dense<[0, 1]> :
/// tensor<2xindex>, [dense<0> : tensor<1xindex>]]`.
#[derive(Clone, Debug)]
enum Node {
    List(Vec<Node>),
    Dense(Vec<i64>),
}

impl Node {
    fn children(&self) -> &[Node] {
        match self {
            Node::List(l) => l,
            Node::Dense(_) => &[],
        }
    }
}

fn nested_lists(text: &str) -> Result<Node> {
    let bad = || {
        Error::invalid_argument(format!(
            "expected an array of dense integer attributes: {text}"
        ))
    };
    let mut stack: Vec<Vec<Node>> = Vec::new();
    let b = text.as_bytes();
    let mut i = 0;
    let mut root = None;
    while i < b.len() {
        match b[i] {
            b'[' => {
                if stack.len() >= MAX_NESTING_DEPTH {
                    return Err(bad());
                }
                stack.push(Vec::new());
                i += 1;
            }
            b']' => {
                let done = Node::List(stack.pop().ok_or_else(bad)?);
                match stack.last_mut() {
                    Some(parent) => parent.push(done),
                    None => root = Some(done),
                }
                i += 1;
            }
            b'd' if text[i..].starts_with("dense<") => {
                let start = i + "dense<".len();
                let close = text[start..].find('>').ok_or_else(bad)? + start;
                let inner = text[start..close].trim();
                let after = &text[close..];
                let end = after.find([',', ']']).map_or(text.len(), |k| close + k);
                let count = after
                    .find("tensor<")
                    .map(|t| {
                        after[t + 7..]
                            .chars()
                            .take_while(char::is_ascii_digit)
                            .collect::<String>()
                    })
                    .and_then(|d| d.parse::<usize>().ok())
                    .unwrap_or(0);
                let values: Vec<i64> = if let Some(list) = inner.strip_prefix('[') {
                    list.trim_end_matches(']')
                        .split(',')
                        .filter(|s| !s.trim().is_empty())
                        .map(|s| s.trim().parse().map_err(|_| bad()))
                        .collect::<Result<_>>()?
                } else if inner.is_empty() {
                    Vec::new()
                } else {
                    let v: i64 = inner.parse().map_err(|_| bad())?;
                    vec![v; count.min(MAX_NESTING_DEPTH * 100)]
                };
                stack.last_mut().ok_or_else(bad)?.push(Node::Dense(values));
                i = end;
            }
            _ => i += 1,
        }
    }
    root.ok_or_else(bad)
}

fn set_layouts(shape: &mut Shape, node: &Node, depth: usize) -> Result<()> {
    if depth > MAX_NESTING_DEPTH {
        return Ok(());
    }
    match (shape, node) {
        (Shape::Tuple(elements), Node::List(list)) => {
            for (s, n) in elements.iter_mut().zip(list) {
                set_layouts(s, n, depth + 1)?;
            }
        }
        (Shape::Array(a), Node::Dense(m2m)) if !m2m.is_empty() => {
            let mut layout = a
                .layout()
                .cloned()
                .unwrap_or_else(|| Layout::new(Vec::<i64>::new()));
            *layout.minor_to_major_mut() = m2m.clone();
            *a = a.clone().with_layout(Some(layout))?;
        }
        _ => {}
    }
    Ok(())
}

fn add_tiles(shape: &mut Shape, node: &Node, depth: usize) -> Result<()> {
    if depth > MAX_NESTING_DEPTH {
        return Ok(());
    }
    match (shape, node) {
        (Shape::Tuple(elements), Node::List(list)) => {
            for (s, n) in elements.iter_mut().zip(list) {
                add_tiles(s, n, depth + 1)?;
            }
        }
        (Shape::Array(a), Node::List(tiles)) => {
            for t in tiles {
                if let Node::Dense(dims) = t
                    && !dims.is_empty()
                {
                    push_tile(a, dims)?;
                }
            }
        }
        (Shape::Array(a), Node::Dense(dims)) => push_tile(a, dims)?,
        _ => {}
    }
    Ok(())
}

fn push_tile(a: &mut crate::model::ArrayShape, dims: &[i64]) -> Result<()> {
    let mut layout = a
        .layout()
        .cloned()
        .unwrap_or_else(|| Layout::new(descending_vec(a.rank())));
    layout.tiles_mut().push(Tile::new(dims)?);
    *a = a.clone().with_layout(Some(layout))?;
    Ok(())
}
