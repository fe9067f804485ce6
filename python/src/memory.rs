//! `memory_analysis`: the memory a module needs (`xla_shape::memory`).

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};
use xla_shape::hlo::{BufferAssignment, HloModule};
use xla_shape::memory::{self, EstimateOptions, MemoryAnalysis, PeakBuffer};

use crate::errors::{IntoPyResult, invalid_argument};

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
    /// Bytes of the block of temporaries (`temp_size_in_bytes`).
    #[getter]
    fn temporaries(&self) -> i64 {
        self.0.temporaries
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
    let mut view = if module.is_instance_of::<PyString>() {
        let text: String = module.extract()?;
        py.allow_threads(|| HloModule::from_text(&text)).py()?
    } else if let Ok(bytes) = module.downcast::<PyBytes>() {
        let bytes = bytes.as_bytes().to_vec();
        py.allow_threads(|| HloModule::read(&bytes)).py()?
    } else {
        return Err(pyo3::exceptions::PyTypeError::new_err(
            "module must be str (HLO text) or bytes (a file's bytes: text, HloModuleProto, HloProto or HloSnapshot)",
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
