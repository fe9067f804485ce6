//! `memory_analysis`: the memory a module needs; `explain_padding` and
//! `padding`: what a shape's tiles cost and why (`xla_shape::memory`).

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString};
use xla_shape::Shape;
use xla_shape::hlo::{BufferAssignment, HloModule};
use xla_shape::memory::{
    self, Cause, Change, EstimateOptions, ListedAllocation, MemoryAnalysis, Padding, PaddingEntry,
    PaddingOptions, PeakBuffer, Suggestion,
};
use xla_shape::stablehlo::{StableHloModule, is_jax_export, is_mlir_bytecode, looks_like_mlir};
use xla_shape::tiling::RoundedPart;

use crate::errors::{self, IntoPyResult, invalid_argument};
use crate::seq::Seq;
use crate::types::PyShape;

/// A buffer live when memory use peaks.
#[pyclass(name = "PeakBuffer", module = "xla_shape", frozen)]
pub struct PyPeakBuffer {
    /// The instruction that defines it.
    #[pyo3(get)]
    instruction: String,
    /// Its computation.
    #[pyo3(get)]
    computation: String,
    /// Where in the instruction's shape.
    #[pyo3(get)]
    shape_index: Vec<i64>,
    /// Its shape, as HLO text prints it.
    #[pyo3(get)]
    shape: String,
    /// Its bytes.
    #[pyo3(get)]
    bytes: i64,
    /// What holds it: `"parameter"`, `"output"`, `"temporary"`, ...
    #[pyo3(get)]
    kind: &'static str,
}

#[pymethods]
impl PyPeakBuffer {
    fn __repr__(&self) -> String {
        format!(
            "PeakBuffer({}/{}, {}, {} bytes, {})",
            self.computation, self.instruction, self.shape, self.bytes, self.kind
        )
    }
}

impl From<&PeakBuffer> for PyPeakBuffer {
    fn from(b: &PeakBuffer) -> Self {
        PyPeakBuffer {
            instruction: b.instruction.clone(),
            computation: b.computation.clone(),
            shape_index: b.shape_index.clone(),
            shape: b.shape.clone(),
            bytes: b.bytes,
            kind: b.kind.as_str(),
        }
    }
}

/// How much memory a module needs: exact from XLA's buffer assignment, or
/// estimated.
#[pyclass(name = "MemoryAnalysis", module = "xla_shape", frozen)]
pub struct PyMemoryAnalysis(MemoryAnalysis);

#[pymethods]
impl PyMemoryAnalysis {
    /// `"buffer_assignment"` (exact) or `"estimate"`.
    #[getter]
    fn source(&self) -> &'static str {
        self.0.source.as_str()
    }
    /// The module's name.
    #[getter]
    fn module(&self) -> &str {
        &self.0.module
    }
    /// Bytes of the arguments (XLA's `argument_size_in_bytes`).
    #[getter]
    fn arguments(&self) -> i64 {
        self.0.arguments
    }
    /// Bytes of the result (`output_size_in_bytes`).
    #[getter]
    fn outputs(&self) -> i64 {
        self.0.outputs
    }
    /// Argument bytes that outputs reuse (`alias_size_in_bytes`).
    #[getter]
    fn aliased(&self) -> i64 {
        self.0.aliased
    }
    /// Bytes of the block of temporaries (`temp_size_in_bytes`); 0 when
    /// not counted (`temporaries_counted`).
    #[getter]
    fn temporaries(&self) -> i64 {
        self.0.temporaries
    }
    /// Whether the temporaries are counted: False for a StableHLO module,
    /// whose operations are not simulated.
    #[getter]
    fn temporaries_counted(&self) -> bool {
        self.0.temporaries_counted
    }
    /// Per device, for a module before partitioning whose entry values
    /// carry shardings: `(device, arguments, outputs)` bytes after
    /// partitioning, ascending by device; empty otherwise.
    #[getter]
    fn devices(&self) -> Vec<(i64, i64, i64)> {
        self.0
            .devices
            .iter()
            .map(|d| (d.device, d.arguments, d.outputs))
            .collect()
    }
    /// The device whose arguments and outputs take the most bytes:
    /// `(device, arguments, outputs)`, or None.
    #[getter]
    fn device_max(&self) -> Option<(i64, i64, i64)> {
        self.0
            .device_max()
            .map(|d| (d.device, d.arguments, d.outputs))
    }
    /// What must fit: arguments + outputs + temporaries - aliased.
    #[getter]
    fn peak(&self) -> i64 {
        self.0.peak()
    }
    /// Every allocation's bytes (exact only), else None.
    #[getter]
    fn allocations_total(&self) -> Option<i64> {
        self.0.allocations_total
    }
    /// Host-memory bytes: `(arguments, outputs, aliased, temporaries)`.
    #[getter]
    fn host(&self) -> (i64, i64, i64, i64) {
        let h = &self.0.host;
        (h.arguments, h.outputs, h.aliased, h.temporaries)
    }
    /// The allocations by kind: `(kind, memory_space, count, bytes)`.
    #[getter]
    fn by_kind(&self) -> Vec<(&'static str, i64, usize, i64)> {
        self.0
            .by_kind
            .iter()
            .map(|k| (k.kind.as_str(), k.memory_space, k.count, k.bytes))
            .collect()
    }
    /// The buffers live at the peak, largest first.
    #[getter]
    fn peak_buffers(&self) -> Vec<PyPeakBuffer> {
        self.0.peak_buffers.iter().map(PyPeakBuffer::from).collect()
    }
    /// The live bytes over the program: `(instruction, live bytes)` steps.
    #[getter]
    fn timeline(&self) -> Vec<(String, i64)> {
        self.0
            .timeline
            .iter()
            .map(|s| (s.instruction.clone(), s.live))
            .collect()
    }
    /// The step of the timeline where the live bytes peak, or None.
    #[getter]
    fn peak_step(&self) -> Option<usize> {
        self.0.peak_step()
    }

    fn __repr__(&self) -> String {
        format!(
            "MemoryAnalysis({}, source={}, peak={}, arguments={}, outputs={}, aliased={}, temporaries={})",
            self.0.module,
            self.0.source.as_str(),
            self.0.peak(),
            self.0.arguments,
            self.0.outputs,
            self.0.aliased,
            self.0.temporaries
        )
    }
}

/// The memory `module` needs (see `xla_shape.memory_analysis` in the
/// stubs).
#[pyfunction]
#[pyo3(signature = (module, buffer_assignment=None, *, estimate=false, alignment=64))]
pub fn memory_analysis(
    py: Python<'_>,
    module: &Bound<'_, PyAny>,
    buffer_assignment: Option<&Bound<'_, PyBytes>>,
    estimate: bool,
    alignment: i64,
) -> PyResult<PyMemoryAnalysis> {
    if alignment < 1 {
        return Err(invalid_argument("alignment must be at least 1"));
    }
    let stablehlo = |bytes: &[u8]| -> PyResult<Option<StableHloModule>> {
        let text = std::str::from_utf8(bytes).ok();
        if is_mlir_bytecode(bytes) || is_jax_export(bytes) || text.is_some_and(looks_like_mlir) {
            if buffer_assignment.is_some() {
                return Err(invalid_argument(
                    "a buffer assignment is for an HLO module, not StableHLO",
                ));
            }
            return Ok(Some(StableHloModule::read(bytes).py()?));
        }
        Ok(None)
    };
    let mut view = if module.is_instance_of::<PyString>() {
        let text: String = module.extract()?;
        if let Some(m) = stablehlo(text.as_bytes())? {
            return Ok(PyMemoryAnalysis(
                py.allow_threads(|| memory::analyze_stablehlo(&m)).py()?,
            ));
        }
        py.allow_threads(|| HloModule::from_text(&text)).py()?
    } else if let Ok(bytes) = module.downcast::<PyBytes>() {
        let bytes = bytes.as_bytes().to_vec();
        if let Some(m) = stablehlo(&bytes)? {
            return Ok(PyMemoryAnalysis(
                py.allow_threads(|| memory::analyze_stablehlo(&m)).py()?,
            ));
        }
        py.allow_threads(|| HloModule::read(&bytes)).py()?
    } else {
        return Err(pyo3::exceptions::PyTypeError::new_err(
            "module must be str (HLO or StableHLO text) or bytes (a file's bytes: text, HloModuleProto, HloProto, HloSnapshot, MLIR bytecode or a jax.export serialization)",
        ));
    };
    if let Some(b) = buffer_assignment {
        view.buffer_assignment = Some(BufferAssignment::from_proto_bytes(b.as_bytes()).py()?);
    }
    let options = EstimateOptions::default().with_alignment(alignment);
    let analysis = py
        .allow_threads(|| {
            if estimate {
                memory::estimate(&view, &options)
            } else if view.buffer_assignment.is_some() {
                memory::exact(&view)
            } else {
                memory::estimate(&view, &options)
            }
        })
        .py()?;
    Ok(PyMemoryAnalysis(analysis))
}

/// What pads an array (`xla_shape::memory::Cause`): `kind` is
/// `"rounding"` (a tile's bound rounds a part of the shape up),
/// `"element_size"` (`E(n)` wider than the type) or `"tail_padding"`
/// (`L(n)`); `str()` says it in words.
#[pyclass(name = "PaddingCause", module = "xla_shape", frozen, str)]
pub struct PyPaddingCause {
    /// `"rounding"`, `"element_size"` or `"tail_padding"`.
    #[pyo3(get)]
    kind: &'static str,
    /// The array's index in a tuple (empty for an array).
    #[pyo3(get)]
    index: Vec<i64>,
    /// How many times the bytes it multiplies them by.
    #[pyo3(get)]
    factor: f64,
    /// A rounding's tile, as HLO writes it (`"(8,128)"`).
    #[pyo3(get)]
    tile: Option<String>,
    /// What a rounding rounds: `"dimension"`, `"leading"` (a leading
    /// dimension of 1), `"combined"` (dimensions `*` bounds combine) or
    /// `"tiled"` (a part an earlier tile made).
    #[pyo3(get)]
    part: Option<&'static str>,
    /// The logical dimensions of that part.
    #[pyo3(get)]
    dimensions: Vec<usize>,
    /// The tile's bound that rounds it.
    #[pyo3(get)]
    bound: Option<i64>,
    /// The part's size (`"tail_padding"`: the elements after tiling).
    #[pyo3(get)]
    size: Option<i64>,
    /// Its size rounded up to a multiple of the bound (`"tail_padding"`:
    /// the slots after tail padding).
    #[pyo3(get)]
    rounded: Option<i64>,
    /// The bits each element takes (`"element_size"`).
    #[pyo3(get)]
    bits: Option<i64>,
    /// The bits of its type (`"element_size"`).
    #[pyo3(get)]
    type_bits: Option<i64>,
    /// `n` of `L(n)` (`"tail_padding"`).
    #[pyo3(get)]
    alignment: Option<i64>,
    text: String,
}

impl std::fmt::Display for PyPaddingCause {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

#[pymethods]
impl PyPaddingCause {
    fn __repr__(&self) -> String {
        format!("PaddingCause({})", self.text)
    }
}

impl From<&Cause> for PyPaddingCause {
    fn from(c: &Cause) -> Self {
        let mut out = PyPaddingCause {
            kind: "other",
            index: c.index().as_slice().to_vec(),
            factor: c.factor(),
            tile: None,
            part: None,
            dimensions: Vec::new(),
            bound: None,
            size: None,
            rounded: None,
            bits: None,
            type_bits: None,
            alignment: None,
            text: c.to_string(),
        };
        match c {
            Cause::Rounding { tile, rounding, .. } => {
                let (part, dimensions) = match &rounding.part {
                    RoundedPart::Dimension(d) => ("dimension", vec![*d]),
                    RoundedPart::Leading => ("leading", Vec::new()),
                    RoundedPart::Combined(dims) => ("combined", dims.clone()),
                    RoundedPart::Tiled { dimension, .. } => {
                        ("tiled", dimension.iter().copied().collect())
                    }
                };
                out.kind = "rounding";
                out.tile = Some(tile.to_string());
                out.part = Some(part);
                out.dimensions = dimensions;
                out.bound = Some(rounding.bound);
                out.size = Some(rounding.size);
                out.rounded = Some(rounding.rounded);
            }
            Cause::ElementSize {
                bits, type_bits, ..
            } => {
                out.kind = "element_size";
                out.bits = Some(*bits);
                out.type_bits = Some(*type_bits);
            }
            Cause::TailPadding {
                alignment,
                elements,
                slots,
                ..
            } => {
                out.kind = "tail_padding";
                out.alignment = Some(*alignment);
                out.size = Some(*elements);
                out.rounded = Some(*slots);
            }
            _ => {}
        }
        out
    }
}

/// A change that pads less under the same tiles
/// (`xla_shape::memory::Suggestion`): `change` is `"order"` (another
/// order of the dimensions in memory) or `"size"` (another size for one
/// dimension); `str()` says it in words.
#[pyclass(name = "PaddingSuggestion", module = "xla_shape", frozen, str)]
pub struct PyPaddingSuggestion {
    /// `"order"` or `"size"`.
    #[pyo3(get)]
    change: &'static str,
    /// The layout's new `minor_to_major` (`"order"`).
    #[pyo3(get)]
    minor_to_major: Option<Vec<i64>>,
    /// The same array transposed so that that order is the default one
    /// (`"order"`).
    #[pyo3(get)]
    transposed: Option<PyShape>,
    /// The dimension (`"size"`).
    #[pyo3(get)]
    dimension: Option<usize>,
    /// Its new size (`"size"`).
    #[pyo3(get)]
    size: Option<i64>,
    /// The array with the change.
    #[pyo3(get)]
    shape: PyShape,
    /// Its bytes.
    #[pyo3(get)]
    padded: i64,
    /// Its unpadded bytes.
    #[pyo3(get)]
    unpadded: i64,
    /// padded / unpadded.
    #[pyo3(get)]
    expansion: f64,
    text: String,
}

impl std::fmt::Display for PyPaddingSuggestion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

#[pymethods]
impl PyPaddingSuggestion {
    fn __repr__(&self) -> String {
        format!("PaddingSuggestion({}: {} bytes)", self.text, self.padded)
    }
}

impl From<&Suggestion> for PyPaddingSuggestion {
    fn from(s: &Suggestion) -> Self {
        let mut out = PyPaddingSuggestion {
            change: "other",
            minor_to_major: None,
            transposed: None,
            dimension: None,
            size: None,
            shape: PyShape(s.shape.clone()),
            padded: s.padded,
            unpadded: s.unpadded,
            expansion: s.expansion(),
            text: s.change.to_string(),
        };
        match &s.change {
            Change::Order {
                minor_to_major,
                transposed,
            } => {
                out.change = "order";
                out.minor_to_major = Some(minor_to_major.clone());
                out.transposed = Some(PyShape(transposed.as_ref().clone()));
            }
            Change::Size { dimension, size } => {
                out.change = "size";
                out.dimension = Some(*dimension);
                out.size = Some(*size);
            }
            _ => {}
        }
        out
    }
}

/// What a shape's layout costs, and why (`xla_shape::memory::Padding`).
#[pyclass(name = "Padding", module = "xla_shape", frozen)]
pub struct PyPadding {
    /// The shape explained, with the tiles assumed when `tiles_assumed`.
    #[pyo3(get)]
    shape: PyShape,
    /// Tiles came from `tiles=`, for arrays that had none.
    #[pyo3(get)]
    tiles_assumed: bool,
    /// The elements' bytes.
    #[pyo3(get)]
    unpadded: i64,
    /// The buffer's bytes, every tile applied.
    #[pyo3(get)]
    padded: i64,
    /// padded / unpadded (1.0 without elements).
    #[pyo3(get)]
    expansion: f64,
    causes: Vec<Cause>,
    suggestions: Vec<Suggestion>,
}

#[pymethods]
impl PyPadding {
    /// What pads it, in the order the layout applies.
    #[getter]
    fn causes(&self) -> Vec<PyPaddingCause> {
        self.causes.iter().map(PyPaddingCause::from).collect()
    }
    /// Changes that pad less under the same tiles, the order first.
    #[getter]
    fn suggestions(&self) -> Vec<PyPaddingSuggestion> {
        self.suggestions
            .iter()
            .map(PyPaddingSuggestion::from)
            .collect()
    }

    fn __repr__(&self) -> String {
        format!(
            "Padding({}, unpadded={}, padded={}, expansion={:.1})",
            self.shape.0, self.unpadded, self.padded, self.expansion
        )
    }
}

impl From<Padding> for PyPadding {
    fn from(p: Padding) -> Self {
        PyPadding {
            tiles_assumed: p.tiles_assumed,
            unpadded: p.unpadded,
            padded: p.padded,
            expansion: p.expansion(),
            shape: PyShape(p.shape),
            causes: p.causes,
            suggestions: p.suggestions,
        }
    }
}

/// One shape of `padding()`: the input's, or one of a listing's.
#[pyclass(name = "PaddingEntry", module = "xla_shape", frozen)]
pub struct PyPaddingEntry {
    /// The shape as written, or None for a listed allocation without one.
    #[pyo3(get)]
    shape: Option<String>,
    /// The explanation, or None (no shape, or `error`).
    #[pyo3(get)]
    padding: Option<Py<PyPadding>>,
    /// Why the shape has no explanation (an `XlaShapeError`), or None.
    #[pyo3(get)]
    error: Option<PyObject>,
    /// The listing's fields as printed (`format`, `memory_space`, `number`,
    /// `line`, `size`, `unpadded`, `extra`, `expansion`, `operator`,
    /// `label`, `instruction`, `allocation_type`, `entry_parameter`), or
    /// None for a shape string.
    #[pyo3(get)]
    listed: Option<PyObject>,
    /// The listing's figures beside ours: `{"size": (printed, ours,
    /// agrees), ...}` for those it printed.
    #[pyo3(get)]
    check: PyObject,
    /// Whether every figure the listing printed agrees (None: it printed
    /// none, or there is no explanation).
    #[pyo3(get)]
    agrees: Option<bool>,
}

#[pymethods]
impl PyPaddingEntry {
    fn __repr__(&self) -> String {
        format!(
            "PaddingEntry({}, agrees={:?})",
            self.shape.as_deref().unwrap_or("no shape"),
            self.agrees
        )
    }
}

fn listed_dict<'py>(py: Python<'py>, l: &ListedAllocation<'_>) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("format", l.format.as_str())?;
    d.set_item("memory_space", l.memory_space)?;
    d.set_item("number", l.number)?;
    d.set_item("line", l.line)?;
    d.set_item("size", l.size)?;
    d.set_item("unpadded", l.unpadded)?;
    d.set_item("extra", l.extra)?;
    d.set_item("expansion", l.expansion)?;
    d.set_item("operator", l.operator)?;
    d.set_item("label", l.label)?;
    d.set_item("instruction", l.instruction())?;
    d.set_item("allocation_type", l.allocation_type)?;
    d.set_item("entry_parameter", l.entry_parameter)?;
    Ok(d)
}

fn entry_to_py(py: Python<'_>, entry: PaddingEntry<'_>) -> PyResult<PyPaddingEntry> {
    let check = PyDict::new(py);
    let mut agrees = None;
    if let Some(c) = entry.check() {
        agrees = c.agrees();
        for (name, figure) in [
            ("size", &c.size),
            ("unpadded", &c.unpadded),
            ("extra", &c.extra),
            ("expansion", &c.expansion),
        ] {
            if let Some(f) = figure {
                check.set_item(name, (f.printed.as_str(), f.ours.as_str(), f.agrees))?;
            }
        }
    }
    let listed = match &entry.listed {
        Some(l) => Some(listed_dict(py, l)?.into_any().unbind()),
        None => None,
    };
    let (padding, error) = match entry.explanation {
        Some(Ok(p)) => (Some(Py::new(py, PyPadding::from(*p))?), None),
        Some(Err(e)) => (None, Some(errors::to_py(e).into_value(py).into_any())),
        None => (None, None),
    };
    Ok(PyPaddingEntry {
        shape: entry.shape.map(str::to_owned),
        padding,
        error,
        listed,
        check: check.into_any().unbind(),
        agrees,
    })
}

fn padding_options(tiles: Seq<String>) -> PyResult<PaddingOptions> {
    let mut options = PaddingOptions::new();
    for t in tiles.iter() {
        options = options.with_tiles_text(t).py()?;
    }
    Ok(options)
}

/// What `shape`'s layout costs and why (see `xla_shape.explain_padding`
/// in the stubs).
#[pyfunction]
#[pyo3(signature = (shape, *, tiles=Seq(Vec::new())))]
pub fn explain_padding(
    py: Python<'_>,
    shape: &Bound<'_, PyAny>,
    tiles: Seq<String>,
) -> PyResult<PyPadding> {
    let shape = if let Ok(s) = shape.downcast::<PyShape>() {
        s.get().0.clone()
    } else if let Ok(text) = shape.downcast::<PyString>() {
        let text: String = text.extract()?;
        py.allow_threads(|| text.parse::<Shape>()).py()?
    } else {
        return Err(pyo3::exceptions::PyTypeError::new_err(
            "shape must be a Shape or str (HLO text)",
        ));
    };
    let options = padding_options(tiles)?;
    let p = py
        .allow_threads(|| memory::explain_padding(&shape, &options))
        .py()?;
    Ok(PyPadding::from(p))
}

/// Every shape of `text` explained: a shape string, or a log with XLA's
/// out-of-memory listings (see `xla_shape.padding` in the stubs).
#[pyfunction]
#[pyo3(signature = (text, *, tiles=Seq(Vec::new())))]
pub fn padding(py: Python<'_>, text: &str, tiles: Seq<String>) -> PyResult<Vec<PyPaddingEntry>> {
    let options = padding_options(tiles)?;
    let entries = py.allow_threads(|| memory::padding(text, &options)).py()?;
    entries.into_iter().map(|e| entry_to_py(py, e)).collect()
}
