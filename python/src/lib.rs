//! Python bindings of the `xla-shape` crate: the extension module
//! `xla_shape._xla_shape`, re-exported by the `xla_shape` package.
//!
//! Every operation is the Rust library's; this crate only converts
//! arguments, results and errors.

mod buffer;
mod dtype;
mod errors;
mod memory;
mod seq;
mod sharding;
mod shards;
mod stablehlo;
mod types;
mod utils;

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};
use xla_shape::formats::{LosslessMessage, ProtoFormats};
use xla_shape::proto::{LayoutProto, ProgramShapeProto, ShapeProto};
use xla_shape::relayout::Relayout;
use xla_shape::text::shapes_in_hlo;
use xla_shape::tiling::{Slot, TiledLayout};
use xla_shape::{Layout, ProgramShape, Shape};

use buffer::Buffer;
use errors::{IntoPyResult, invalid_argument, to_py};
use types::{PyLayout, PyProgramShape, PyShape, as_array, text_form_methods};

/// Copies array data from the layout of `from_shape` to the layout of
/// `to_shape` (same element type and dimensions), as XLA places elements:
/// any dimension order, tiles, sub-byte packing, padding written as zero.
///
/// `array` is any object with the buffer protocol (a NumPy array
/// contiguous in C or Fortran order, `bytes`, `bytearray`, `memoryview`)
/// whose memory holds exactly the bytes of `from_shape`; it is read in
/// place. An array's dtype must be the element type of `from_shape` (or
/// `uint8`, for raw bytes); so must `out`'s be `to_shape`'s. The copy runs
/// without the GIL. With
/// `out` (a writable buffer of exactly the bytes of `to_shape`), the result
/// is written there and `out` is returned; otherwise the result is a new
/// NumPy array whose C-order memory is the destination buffer: of the
/// element type's dtype with the dimensions in major-to-minor order when
/// `to_shape` has no tiles and a same-sized NumPy dtype, else of `uint8`
/// bytes.
#[pyfunction]
#[pyo3(signature = (array, from_shape, to_shape, out=None))]
fn relayout<'py>(
    py: Python<'py>,
    array: &Bound<'py, PyAny>,
    from_shape: PyRef<'py, PyShape>,
    to_shape: PyRef<'py, PyShape>,
    out: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let (src_shape, dst_shape) = (as_array(&from_shape.0)?, as_array(&to_shape.0)?);
    let plan = Relayout::new(src_shape, dst_shape).py()?;
    dtype::check_array_dtype(array, src_shape, "the array")?;
    if let Some(o) = out {
        dtype::check_array_dtype(o, dst_shape, "out")?;
    }
    let src = Buffer::get(array, false)?;
    let (target, result) = match out {
        Some(o) => (o.clone(), o.clone()),
        None => {
            let np = py.import("numpy")?;
            let bytes = np.call_method1("empty", (plan.dst_byte_size(), "uint8"))?;
            let result = utils::typed_view(py, &np, &bytes, dst_shape)?;
            (bytes, result)
        }
    };
    let mut dst = Buffer::get(&target, true)?;
    if src.overlaps(&dst) {
        return Err(invalid_argument(
            "the input and output buffers of relayout overlap",
        ));
    }
    let (s, d) = (src.as_slice(), dst.as_mut_slice());
    py.allow_threads(|| plan.run(s, d)).py()?;
    Ok(result)
}

/// One shape string found in HLO text by `scan_hlo`.
#[pyclass(name = "HloShape", module = "xla_shape", frozen)]
struct PyHloShape {
    /// The shape text as it appears.
    #[pyo3(get)]
    text: String,
    /// 1-based line of the shape's first character.
    #[pyo3(get)]
    line: usize,
    /// 1-based byte column of the shape's first character in its line.
    #[pyo3(get)]
    column: usize,
    /// 0-based byte offset of the shape from the start of the text.
    #[pyo3(get)]
    offset: usize,
    /// Where the shape stands: `"instruction_result"`, `"operand"`,
    /// `"parameter"`, `"computation_result"` or `"other"`.
    #[pyo3(get)]
    role: &'static str,
    shape: Result<Shape, xla_shape::Error>,
}

#[pymethods]
impl PyHloShape {
    /// The parsed shape, or None when the text did not parse (see `error`).
    #[getter]
    fn shape(&self) -> Option<PyShape> {
        self.shape.as_ref().ok().cloned().map(PyShape)
    }

    /// The exception the text raises when parsed, or None.
    #[getter]
    fn error(&self) -> Option<PyErr> {
        self.shape.as_ref().err().cloned().map(to_py)
    }

    fn __repr__(&self) -> String {
        format!(
            "HloShape(text={:?}, line={}, column={}, role={:?})",
            self.text, self.line, self.column, self.role
        )
    }
}

/// Every shape string in HLO text (a module dump, a fragment), with its
/// line, column and role, in order of appearance.
#[pyfunction]
fn scan_hlo(text: &str) -> Vec<PyHloShape> {
    shapes_in_hlo(text)
        .map(|s| PyHloShape {
            text: s.text.to_string(),
            line: s.location.line,
            column: s.location.one_based_column(),
            offset: s.location.offset,
            role: s.role.as_str(),
            shape: s.shape,
        })
        .collect()
}

/// The tiled arrangement of an array shape with a layout, after XLA's
/// tiled-layout document: sizes with and without padding, the offset of
/// every element and what every slot holds.
#[pyclass(name = "TiledLayout", module = "xla_shape", frozen)]
struct PyTiledLayout(TiledLayout);

#[pymethods]
impl PyTiledLayout {
    /// The tiled arrangement of `shape` (an array with a layout).
    #[new]
    fn py_new(shape: PyRef<'_, PyShape>) -> PyResult<Self> {
        TiledLayout::new(as_array(&shape.0)?)
            .py()
            .map(PyTiledLayout)
    }

    /// The shape.
    fn shape(&self) -> PyShape {
        PyShape(self.0.shape().clone().into())
    }

    /// The dimensions of the tiled array, major to minor, padding included.
    fn physical_shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.0.physical_shape())
    }

    /// The bits each element takes (`E(n)`, or the type's own width).
    fn element_size_in_bits(&self) -> i64 {
        self.0.element_size_in_bits()
    }

    /// The number of elements, padding excluded.
    fn element_count(&self) -> i64 {
        self.0.element_count()
    }

    /// The number of elements with tile padding.
    fn tiled_element_count(&self) -> i64 {
        self.0.tiled_element_count()
    }

    /// The number of element slots, tile and tail padding included.
    fn slot_count(&self) -> i64 {
        self.0.slot_count()
    }

    /// The byte size of the buffer, padding included (XLA's
    /// `ShapeUtil::ArraySize`).
    fn byte_size(&self) -> i64 {
        self.0.byte_size()
    }

    /// The byte size without padding.
    fn unpadded_byte_size(&self) -> i64 {
        self.0.unpadded_byte_size()
    }

    /// The bytes of padding.
    fn padding_byte_size(&self) -> i64 {
        self.0.padding_byte_size()
    }

    /// Whether the buffer has padding.
    fn has_padding(&self) -> bool {
        self.0.has_padding()
    }

    /// The slot (element offset) of the element at `index`.
    fn offset(&self, index: seq::Seq<i64>) -> PyResult<i64> {
        self.0.offset(&index).py()
    }

    /// The index of the element in slot `offset`, or None for padding.
    fn slot(&self, offset: i64) -> PyResult<Option<Vec<i64>>> {
        Ok(match self.0.slot(offset).py()? {
            Slot::Element(index) => Some(index),
            Slot::Padding => None,
        })
    }

    /// The byte ranges `(start, stop)` that hold the box
    /// `start[d] <= index[d] < limit[d]`, sorted and merged (see
    /// `byte_ranges`).
    #[pyo3(signature = (start, limit, max_ranges=shards::DEFAULT_MAX_RANGES))]
    fn byte_ranges(
        &self,
        py: Python<'_>,
        start: seq::Seq<i64>,
        limit: seq::Seq<i64>,
        max_ranges: usize,
    ) -> PyResult<Vec<(u64, u64)>> {
        shards::layout_byte_ranges(py, &self.0, &start, &limit, max_ranges)
    }

    /// The slot ranges `(start, stop)` (offsets in elements) that hold
    /// exactly the elements of the box, sorted and merged.
    #[pyo3(signature = (start, limit, max_ranges=shards::DEFAULT_MAX_RANGES))]
    fn slot_ranges(
        &self,
        py: Python<'_>,
        start: seq::Seq<i64>,
        limit: seq::Seq<i64>,
        max_ranges: usize,
    ) -> PyResult<Vec<(i64, i64)>> {
        let ranges = py
            .allow_threads(|| self.0.slot_ranges(&start, &limit, max_ranges))
            .py()?;
        Ok(shards::pairs(ranges))
    }

    /// The byte ranges that hold the indices `start <= i < stop` of the
    /// layout's most major dimension, every index of the others.
    #[pyo3(signature = (start, stop, max_ranges=shards::DEFAULT_MAX_RANGES))]
    fn row_byte_ranges(
        &self,
        py: Python<'_>,
        start: i64,
        stop: i64,
        max_ranges: usize,
    ) -> PyResult<Vec<(u64, u64)>> {
        let ranges = py
            .allow_threads(|| self.0.row_byte_ranges(start..stop, max_ranges))
            .py()?;
        Ok(shards::pairs(ranges))
    }

    /// Whether every index of dimension `dim` is one contiguous range of
    /// slots holding just its elements.
    fn is_row_addressable(&self, py: Python<'_>, dim: usize) -> PyResult<bool> {
        py.allow_threads(|| self.0.is_row_addressable(dim)).py()
    }

    fn __repr__(&self) -> String {
        format!("TiledLayout({:?})", self.0.shape().to_string())
    }
}

/// The schema messages a `LosslessMessage` can hold.
const MESSAGE_NAMES: &str = "'ShapeProto', 'LayoutProto' or 'ProgramShapeProto'";

/// A protobuf message decoded without losing anything: fields this schema
/// does not know (written by a newer XLA) and fields retired from it
/// (LayoutProto's `padded_dimensions`, ...) are kept byte for byte, and
/// `encode()` writes what Google's runtime writes.
#[pyclass(name = "LosslessMessage", module = "xla_shape", frozen)]
struct PyLosslessMessage(LosslessMessage);

text_form_methods! { PyLosslessMessage, "the known fields", {
    /// Decodes `data` as `message`: `"ShapeProto"` (default),
    /// `"LayoutProto"` or `"ProgramShapeProto"`.
    #[staticmethod]
    #[pyo3(signature = (data, message="ShapeProto"))]
    fn decode(data: &[u8], message: &str) -> PyResult<Self> {
        let m = match message.strip_prefix("xla.").unwrap_or(message) {
            "ShapeProto" => LosslessMessage::decode_as::<ShapeProto>(data),
            "LayoutProto" => LosslessMessage::decode_as::<LayoutProto>(data),
            "ProgramShapeProto" => LosslessMessage::decode_as::<ProgramShapeProto>(data),
            other => {
                return Err(invalid_argument(format!(
                    "unknown message {other:?}: expected {MESSAGE_NAMES}"
                )));
            }
        };
        m.py().map(PyLosslessMessage)
    }

    /// The message's full name: `"xla.ShapeProto"`.
    #[getter]
    fn message(&self) -> String {
        self.0.descriptor().full_name().to_string()
    }

    /// The bytes Google's runtime writes for the message: known fields in
    /// field-number order, then the unknown ones as they came.
    fn encode<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.0.encode_to_vec())
    }

    /// The unknown fields of the top level, as raw bytes.
    fn unknown_fields<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.0.unknown_fields())
    }

    /// Whether any level holds fields this schema does not know.
    fn has_unknown_fields(&self) -> bool {
        self.0.has_unknown_fields()
    }

    /// The retired fields the message carries, as `(path, name, number)`.
    fn retired_fields(&self) -> Vec<(String, &'static str, u32)> {
        self.0
            .retired_fields()
            .iter()
            .map(|f| (f.path().to_string(), f.name(), f.number()))
            .collect()
    }

    /// The `Shape`, `Layout` or `ProgramShape` of the known fields,
    /// validated as XLA does.
    fn to_model(&self, py: Python<'_>) -> PyResult<PyObject> {
        Ok(match self.0.descriptor().name() {
            "ShapeProto" => PyShape(Shape::from_lossless(&self.0).py()?)
                .into_pyobject(py)?
                .into_any()
                .unbind(),
            "LayoutProto" => PyLayout(Layout::from_lossless(&self.0).py()?)
                .into_pyobject(py)?
                .into_any()
                .unbind(),
            _ => PyProgramShape(ProgramShape::from_lossless(&self.0).py()?)
                .into_pyobject(py)?
                .into_any()
                .unbind(),
        })
    }

    fn __repr__(&self) -> String {
        format!(
            "LosslessMessage({}, {} bytes)",
            self.0.descriptor().full_name(),
            self.0.encoded_len()
        )
    }
}}

#[pymodule]
fn _xla_shape(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::register(m)?;
    m.add_function(wrap_pyfunction!(types::element_type_number, m)?)?;
    m.add_function(wrap_pyfunction!(types::lowercase_name, m)?)?;
    m.add_class::<PyLayout>()?;
    m.add_class::<PyShape>()?;
    m.add_class::<PyProgramShape>()?;
    m.add_class::<PyTiledLayout>()?;
    m.add_class::<PyHloShape>()?;
    m.add_class::<PyLosslessMessage>()?;
    m.add_class::<sharding::PyHloSharding>()?;
    m.add_function(wrap_pyfunction!(relayout, m)?)?;
    m.add_function(wrap_pyfunction!(shards::byte_ranges, m)?)?;
    m.add_function(wrap_pyfunction!(shards::shard, m)?)?;
    m.add_function(wrap_pyfunction!(shards::assemble, m)?)?;
    m.add_function(wrap_pyfunction!(scan_hlo, m)?)?;
    m.add_class::<memory::PyMemoryAnalysis>()?;
    m.add_class::<memory::PyPeakBuffer>()?;
    m.add_function(wrap_pyfunction!(memory::memory_analysis, m)?)?;
    m.add_class::<memory::PyPadding>()?;
    m.add_class::<memory::PyPaddingCause>()?;
    m.add_class::<memory::PyPaddingSuggestion>()?;
    m.add_class::<memory::PyPaddingEntry>()?;
    m.add_function(wrap_pyfunction!(memory::explain_padding, m)?)?;
    m.add_function(wrap_pyfunction!(memory::padding, m)?)?;
    m.add("MAX_NESTING_DEPTH", xla_shape::MAX_NESTING_DEPTH)?;
    utils::register(m)?;
    utils::submodule(
        m,
        "stablehlo",
        "StableHLO text read without MLIR: types as XLA shapes, the entry signature.",
        stablehlo::add,
    )?;
    Ok(())
}
