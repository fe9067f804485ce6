//! The `stablehlo` submodule: StableHLO text, MLIR bytecode and
//! `jax.export` serializations read without MLIR (the Rust module
//! `xla_shape::stablehlo`): types as XLA shapes and back, the entry
//! signature of XLA's conversion, and every value's shape.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};
use xla_shape::stablehlo::{
    CompileLayout, JaxExport, LayoutMode, Signature, SignatureValue, StableHloModule, Type,
};

use crate::errors::{IntoPyResult, to_py};
use crate::sharding::PyHloSharding;
use crate::types::{PyProgramShape, PyShape};

/// A parameter or result of the entry function.
#[pyclass(name = "SignatureValue", module = "xla_shape.stablehlo", frozen)]
pub struct PySignatureValue(SignatureValue);

#[pymethods]
impl PySignatureValue {
    /// A name for people: the argument's location name (JAX writes the
    /// Python parameter's name) or value name; the result's
    /// `jax.result_info`, or `result[i]`.
    #[getter]
    fn name(&self) -> &str {
        &self.0.name
    }

    /// The MLIR type as written (`tensor<2x3xf32>`).
    #[getter]
    fn r#type(&self) -> String {
        self.0.ty.to_string()
    }

    /// The shape with the layout XLA's conversion gives it.
    #[getter]
    fn shape(&self) -> PyShape {
        PyShape(self.0.shape.clone())
    }

    /// `mhlo.sharding` (its string) or `sdy.sharding` (as written).
    #[getter]
    fn sharding(&self) -> Option<&str> {
        self.0.sharding.as_deref()
    }

    /// The sharding read as XLA's conversion reads it (`mhlo.sharding`, or
    /// `sdy.sharding` over the module's mesh), None without one; raises
    /// for a sharding that does not read.
    #[getter]
    fn hlo_sharding(&self) -> PyResult<Option<PyHloSharding>> {
        match self.0.hlo_sharding() {
            None => Ok(None),
            Some(Ok(s)) => Ok(Some(PyHloSharding(s.clone()))),
            Some(Err(e)) => Err(to_py(e)),
        }
    }

    /// `mhlo.memory_kind`.
    #[getter]
    fn memory_kind(&self) -> Option<&str> {
        self.0.memory_kind.as_deref()
    }

    /// `mhlo.layout_mode`: `"default"`, `"auto"` or a layout (`"{0,1}"`).
    #[getter]
    fn layout_mode(&self) -> Option<String> {
        self.0.layout_mode.as_ref().map(|m| match m {
            LayoutMode::Default => "default".to_owned(),
            LayoutMode::Auto => "auto".to_owned(),
            LayoutMode::UserSpecified(l) => l.to_string(),
        })
    }

    /// The layout compilation asks for: `"default"` (the device's),
    /// `"auto"` (the compiler's choice) or a layout.
    #[getter]
    fn compile_layout(&self) -> String {
        match &self.0.compile {
            CompileLayout::Default { .. } => "default".to_owned(),
            CompileLayout::Auto => "auto".to_owned(),
            CompileLayout::UserSpecified { layout, .. } => layout.to_string(),
        }
    }

    /// The memory space compilation puts it in (5 for `pinned_host`, 6
    /// for `unpinned_host`), None for `auto`.
    #[getter]
    fn compile_memory_space(&self) -> Option<i64> {
        match &self.0.compile {
            CompileLayout::Default { memory_space }
            | CompileLayout::UserSpecified { memory_space, .. } => Some(*memory_space),
            CompileLayout::Auto => None,
        }
    }

    /// Whether the conversion's layout of this result comes from the body
    /// (a final transpose) rather than from its type.
    #[getter]
    fn layout_from_body(&self) -> bool {
        self.0.layout_from_body
    }

    fn __repr__(&self) -> String {
        format!(
            "SignatureValue(name={:?}, shape={:?})",
            self.0.name,
            self.0.shape.to_string()
        )
    }
}

/// The signature of a StableHLO module's `@main` as XLA's conversion gives
/// it (`lowered.compiler_ir('hlo')`), and what compilation adds.
#[pyclass(name = "Signature", module = "xla_shape.stablehlo", frozen)]
pub struct PySignature(Signature);

#[pymethods]
impl PySignature {
    /// The entry computation layout as XLA's HLO header prints it:
    /// `(f32[2,3]{1,0})->f32[3,2]{0,1}`.
    #[getter]
    fn entry_computation_layout(&self) -> String {
        self.0
            .entry_computation_layout()
            .to_computation_layout_string()
    }

    /// The entry computation layout as a ProgramShape, parameters named.
    fn program_shape(&self) -> PyProgramShape {
        PyProgramShape(self.0.entry_computation_layout().clone())
    }

    /// The parameters.
    #[getter]
    fn parameters(&self) -> Vec<PySignatureValue> {
        self.0
            .parameters
            .iter()
            .cloned()
            .map(PySignatureValue)
            .collect()
    }

    /// The results.
    #[getter]
    fn results(&self) -> Vec<PySignatureValue> {
        self.0
            .results
            .iter()
            .cloned()
            .map(PySignatureValue)
            .collect()
    }

    /// The input/output aliases: `(output_index, parameter)` pairs.
    #[getter]
    fn input_output_alias(&self) -> Vec<(Vec<i64>, usize)> {
        self.0
            .input_output_alias
            .iter()
            .map(|a| (a.output_index.clone(), a.parameter))
            .collect()
    }

    /// The parameters that are buffer donors.
    #[getter]
    fn buffer_donors(&self) -> Vec<usize> {
        self.0.buffer_donors.clone()
    }

    /// The entry computation layout compilation asks for on XLA:CPU, or
    /// None when a layout is left to the compiler (`auto`).
    #[getter]
    fn compile_entry_computation_layout(&self) -> Option<String> {
        self.0
            .compile_entry_computation_layout()
            .map(|p| p.to_computation_layout_string())
    }

    /// What compilation applies that the conversion's layout does not
    /// show, one sentence each.
    #[getter]
    fn notes(&self) -> Vec<String> {
        self.0.notes()
    }

    /// `mhlo.num_partitions`.
    #[getter]
    fn num_partitions(&self) -> Option<i64> {
        self.0.num_partitions
    }

    /// `mhlo.num_replicas`.
    #[getter]
    fn num_replicas(&self) -> Option<i64> {
        self.0.num_replicas
    }

    fn __repr__(&self) -> String {
        format!(
            "Signature({:?})",
            self.0
                .entry_computation_layout()
                .to_computation_layout_string()
        )
    }
}

/// One value of a module: a function's parameter or result, or an
/// operation's result.
#[pyclass(name = "Value", module = "xla_shape.stablehlo", frozen)]
pub struct PyValue {
    /// 1-based line where the argument, result type or operation starts.
    #[pyo3(get)]
    line: usize,
    /// 1-based byte column in that line.
    #[pyo3(get)]
    column: usize,
    /// 0-based byte offset from the start of the text.
    #[pyo3(get)]
    offset: usize,
    /// The function.
    #[pyo3(get)]
    function: String,
    /// `"parameter"`, `"result"` or `"operation"`.
    #[pyo3(get)]
    kind: &'static str,
    /// The operation's name (`stablehlo.add`); None for parameters and
    /// results.
    #[pyo3(get)]
    operation: Option<String>,
    /// The value's name: `%0`, `%0#1`, `%arg0`; `result[i]` for a
    /// function's result.
    #[pyo3(get)]
    name: String,
    /// The location's name (`jit(f)/add`, the argument's Python name), if
    /// the text has locations.
    #[pyo3(get)]
    location_name: Option<String>,
    ty: Type,
}

#[pymethods]
impl PyValue {
    /// The MLIR type as written.
    #[getter]
    fn r#type(&self) -> String {
        self.ty.to_string()
    }

    /// The XLA shape of the type, or None when XLA has none (see `error`).
    #[getter]
    fn shape(&self) -> Option<PyShape> {
        self.ty.to_shape().ok().map(PyShape)
    }

    /// The exception the type raises when converted, or None.
    #[getter]
    fn error(&self) -> Option<PyErr> {
        self.ty.to_shape().err().map(to_py)
    }

    fn __repr__(&self) -> String {
        format!(
            "Value(name={:?}, type={:?}, line={}, column={})",
            self.name,
            self.ty.to_string(),
            self.line,
            self.column
        )
    }
}

/// StableHLO as Python hands it over: text (`str`), or `bytes` of MLIR
/// bytecode, of `jax.export`'s serialization, or of text
/// (`StableHloModule::read`).
fn read(source: &Bound<'_, PyAny>) -> PyResult<StableHloModule> {
    if let Ok(text) = source.downcast::<PyString>() {
        return StableHloModule::from_text(&text.to_cow()?).py();
    }
    match source.downcast::<PyBytes>() {
        Ok(bytes) => StableHloModule::read(bytes.as_bytes()).py(),
        Err(_) => Err(pyo3::exceptions::PyTypeError::new_err(
            "expected StableHLO as str or bytes",
        )),
    }
}

/// The signature of StableHLO's `@main` as XLA's conversion gives it: from
/// text, or from the bytes of MLIR bytecode or of a `jax.export`
/// serialization.
#[pyfunction]
fn signature(source: &Bound<'_, PyAny>) -> PyResult<PySignature> {
    read(source)?.signature().py().map(PySignature)
}

/// Every value of StableHLO (text or bytes, as `signature` takes it) with
/// its type and place: each function's parameters and results, each
/// operation's results, in order. In bytecode `line` is 0 and `offset` the
/// byte offset of the operation.
#[pyfunction]
fn scan(source: &Bound<'_, PyAny>) -> PyResult<Vec<PyValue>> {
    let module = read(source)?;
    let mut out = Vec::new();
    for f in &module.functions {
        for a in &f.arguments {
            out.push(PyValue {
                line: a.location.line,
                column: a.location.one_based_column(),
                offset: a.location.offset,
                function: f.name.clone(),
                kind: "parameter",
                operation: None,
                name: format!("%{}", a.name),
                location_name: a
                    .debug_location
                    .as_deref()
                    .and_then(|l| module.location_name(l)),
                ty: a.ty.clone(),
            });
        }
        for (i, r) in f.results.iter().enumerate() {
            out.push(PyValue {
                line: r.location.line,
                column: r.location.one_based_column(),
                offset: r.location.offset,
                function: f.name.clone(),
                kind: "result",
                operation: None,
                name: format!("result[{i}]"),
                location_name: None,
                ty: r.ty.clone(),
            });
        }
        for op in &f.operations {
            let location_name = op
                .debug_location
                .as_deref()
                .and_then(|l| module.location_name(l));
            let names = value_names(&op.results);
            for (i, ty) in op.result_types.iter().enumerate() {
                out.push(PyValue {
                    line: op.location.line,
                    column: op.location.one_based_column(),
                    offset: op.location.offset,
                    function: f.name.clone(),
                    kind: "operation",
                    operation: Some(op.name.clone()),
                    name: names.get(i).cloned().unwrap_or_default(),
                    location_name: location_name.clone(),
                    ty: ty.clone(),
                });
            }
        }
    }
    Ok(out)
}

/// `%0`, `%0:2`, `%a, %b` as one name per result: `%0`, `%0#0`, `%0#1`,
/// `%a`, `%b`.
fn value_names(results: &str) -> Vec<String> {
    let mut names = Vec::new();
    for group in results.split(',').map(str::trim).filter(|g| !g.is_empty()) {
        match group.split_once(':') {
            Some((name, count)) => {
                let count: usize = count.trim().parse().unwrap_or(0);
                names.extend((0..count).map(|i| format!("{name}#{i}")));
            }
            None => names.push(group.to_owned()),
        }
    }
    names
}

/// The XLA shape of an MLIR type (XLA's `TypeToShape`): `tensor<2x3xf32>`
/// is `f32[2,3]{1,0}`.
#[pyfunction]
fn type_to_shape(r#type: &str) -> PyResult<PyShape> {
    let ty: Type = r#type.parse().py()?;
    ty.to_shape().py().map(PyShape)
}

/// The MLIR type of an XLA shape, as XLA imports it (`ConvertShapeToType`):
/// `f32[<=4,3]` is `tensor<?x3xf32, #stablehlo.bounds<4, ?>>`.
#[pyfunction]
fn shape_to_type(shape: PyRef<'_, PyShape>) -> PyResult<String> {
    Type::from_shape(&shape.0).py().map(|t| t.to_string())
}

/// Whether text (or its start) looks like MLIR rather than HLO text.
#[pyfunction]
fn looks_like_mlir(text: &str) -> bool {
    xla_shape::stablehlo::looks_like_mlir(text)
}

/// Whether bytes start with MLIR bytecode's magic number (`ML\xefR`).
#[pyfunction]
fn is_mlir_bytecode(data: &[u8]) -> bool {
    xla_shape::stablehlo::is_mlir_bytecode(data)
}

/// Whether bytes are `jax.export`'s serialization (a flatbuffer holding
/// MLIR bytecode).
#[pyfunction]
fn is_jax_export(data: &[u8]) -> bool {
    xla_shape::stablehlo::is_jax_export(data)
}

/// `jax.export`'s serialization read without jax (`read_export`).
#[pyclass(name = "Export", module = "xla_shape.stablehlo", frozen)]
pub struct PyExport(JaxExport);

#[pymethods]
impl PyExport {
    /// The exported function's name.
    #[getter]
    fn function_name(&self) -> &str {
        &self.0.function_name
    }

    /// Each input's abstract value as jax prints it (`float32[2,3]`).
    #[getter]
    fn in_avals(&self) -> Vec<String> {
        self.0.in_avals.iter().map(ToString::to_string).collect()
    }

    /// Each output's abstract value.
    #[getter]
    fn out_avals(&self) -> Vec<String> {
        self.0.out_avals.iter().map(ToString::to_string).collect()
    }

    /// Each input's sharding as jax prints it, or None.
    #[getter]
    fn in_shardings(&self) -> Vec<Option<String>> {
        self.0
            .in_shardings
            .iter()
            .map(|s| s.as_ref().map(ToString::to_string))
            .collect()
    }

    /// Each output's sharding, or None.
    #[getter]
    fn out_shardings(&self) -> Vec<Option<String>> {
        self.0
            .out_shardings
            .iter()
            .map(|s| s.as_ref().map(ToString::to_string))
            .collect()
    }

    /// The number of devices.
    #[getter]
    fn nr_devices(&self) -> u32 {
        self.0.nr_devices
    }

    /// The platforms lowered for.
    #[getter]
    fn platforms(&self) -> Vec<String> {
        self.0.platforms.clone()
    }

    /// The ordered effects, by type name.
    #[getter]
    fn ordered_effects(&self) -> Vec<String> {
        self.0.ordered_effects.clone()
    }

    /// The unordered effects, by type name.
    #[getter]
    fn unordered_effects(&self) -> Vec<String> {
        self.0.unordered_effects.clone()
    }

    /// The safety checks disabled at export.
    #[getter]
    fn disabled_safety_checks(&self) -> Vec<String> {
        self.0.disabled_safety_checks.clone()
    }

    /// The calling convention version.
    #[getter]
    fn calling_convention_version(&self) -> u16 {
        self.0.calling_convention_version
    }

    /// The inputs the module keeps.
    #[getter]
    fn module_kept_var_idx(&self) -> Vec<u16> {
        self.0.module_kept_var_idx.clone()
    }

    /// Whether the module takes the dimension variables' values.
    #[getter]
    fn uses_global_constants(&self) -> bool {
        self.0.uses_global_constants
    }

    /// The module's MLIR bytecode.
    #[getter]
    fn mlir_module_serialized<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.0.mlir_module_serialized)
    }

    /// The signature of the module's `@main` as XLA's conversion gives it.
    fn signature(&self) -> PyResult<PySignature> {
        self.0.module().py()?.signature().py().map(PySignature)
    }

    fn __repr__(&self) -> String {
        format!(
            "Export(function_name={:?}, in_avals={:?}, out_avals={:?}, platforms={:?})",
            self.0.function_name,
            self.in_avals(),
            self.out_avals(),
            self.0.platforms
        )
    }
}

/// Reads `Exported.serialize()`'s bytes.
#[pyfunction]
fn read_export(data: &[u8]) -> PyResult<PyExport> {
    JaxExport::from_bytes(data).py().map(PyExport)
}

/// Fills the `stablehlo` submodule.
pub fn add(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PySignature>()?;
    m.add_class::<PySignatureValue>()?;
    m.add_class::<PyValue>()?;
    m.add_class::<PyExport>()?;
    m.add_function(wrap_pyfunction!(read_export, m)?)?;
    m.add_function(wrap_pyfunction!(is_mlir_bytecode, m)?)?;
    m.add_function(wrap_pyfunction!(is_jax_export, m)?)?;
    m.add_function(wrap_pyfunction!(signature, m)?)?;
    m.add_function(wrap_pyfunction!(scan, m)?)?;
    m.add_function(wrap_pyfunction!(type_to_shape, m)?)?;
    m.add_function(wrap_pyfunction!(shape_to_type, m)?)?;
    m.add_function(wrap_pyfunction!(looks_like_mlir, m)?)?;
    Ok(())
}
