//! `HloSharding` as a Python class: jaxlib's `xla_client.HloSharding`
//! names, plus XLA's text and bytes without jaxlib and jax's per-device
//! answers (`devices_indices_map`, `shard_shape`).

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyTuple};
use xla_shape::sharding::{DeviceSlice, HloSharding, OpShardingType, TileAssignment};
use xla_shape::{Shape, text};

use crate::errors::{IntoPyResult, invalid_argument};
use crate::seq::Seq;
use crate::types::{PyShape, Reduced, as_array, display_as_model, reduce_to_proto_bytes};

/// How an array (or each leaf of a tuple) is split across devices: XLA's
/// `HloSharding`, with the methods of jaxlib's `xla_client.HloSharding`
/// (jaxlib 0.10.2) and the same answers. `str()` and `repr()` are XLA's
/// text (`{devices=[2,1]0,1}`); equality is XLA's (metadata aside).
#[pyclass(name = "HloSharding", module = "xla_shape", frozen, eq, hash, str)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct PyHloSharding(pub HloSharding);

display_as_model!(PyHloSharding);

/// An `OpSharding.Type` from its name (`"REPLICATED"`), its number, or an
/// enum with a `name` (jaxlib's `OpSharding.Type.REPLICATED`).
fn type_from(value: &Bound<'_, PyAny>) -> PyResult<OpShardingType> {
    if let Ok(name) = value.extract::<String>() {
        return OpShardingType::from_str_name(&name)
            .ok_or_else(|| invalid_argument(format!("no OpSharding type is named {name:?}")));
    }
    if let Ok(n) = value.extract::<i32>() {
        return OpShardingType::try_from(n)
            .map_err(|_| invalid_argument(format!("no OpSharding type has number {n}")));
    }
    if let Ok(name) = value.getattr("name") {
        return type_from(&name);
    }
    Err(PyTypeError::new_err(
        "an OpSharding type is a name such as \"REPLICATED\", a number, or an enum with a name",
    ))
}

fn types_from(values: Seq<Bound<'_, PyAny>>) -> PyResult<Vec<OpShardingType>> {
    values.iter().map(type_from).collect()
}

/// The dimensions of an array given as a `Shape`, its HLO text, or a
/// sequence of sizes (jax's `global_shape`).
fn dims_of(value: &Bound<'_, PyAny>) -> PyResult<Vec<i64>> {
    if let Ok(shape) = value.downcast::<PyShape>() {
        return Ok(as_array(&shape.get().0)?.dimensions().to_vec());
    }
    if let Ok(text) = value.extract::<String>() {
        let shape = text::parse_shape(&text).py()?;
        return Ok(as_array(&shape)?.dimensions().to_vec());
    }
    value.extract::<Seq<i64>>().map(|s| s.0).map_err(|_| {
        PyTypeError::new_err("a shape is a Shape, its text, or a sequence of dimension sizes")
    })
}

/// A `Shape`, or a shape's HLO text.
fn shape_of(value: &Bound<'_, PyAny>) -> PyResult<Shape> {
    if let Ok(shape) = value.downcast::<PyShape>() {
        return Ok(shape.get().0.clone());
    }
    let text: String = value
        .extract()
        .map_err(|_| PyTypeError::new_err("expected a Shape or a shape's text"))?;
    text::parse_shape(&text).py()
}

/// `{device: (slice, ...)}` of `slices`, `slice(None)` along the
/// dimensions `whole` marks.
fn slice_map<'py>(
    py: Python<'py>,
    slices: &[DeviceSlice],
    whole: impl Fn(usize) -> bool,
) -> PyResult<Bound<'py, PyDict>> {
    // Python's `slice(start, stop)` (step None, as jax writes it), or
    // `slice(None)` for a dimension the sharding does not split.
    let slice = py.import("builtins")?.getattr("slice")?;
    let map = PyDict::new(py);
    for d in slices {
        let index = d
            .offsets
            .iter()
            .zip(&d.limits)
            .enumerate()
            .map(|(k, (&start, &stop))| {
                if whole(k) {
                    slice.call1((py.None(),))
                } else {
                    slice.call1((start, stop))
                }
            })
            .collect::<PyResult<Vec<_>>>()?;
        map.set_item(d.device, PyTuple::new(py, index)?)?;
    }
    Ok(map)
}

#[pymethods]
impl PyHloSharding {
    /// The sharding of XLA's text (`{devices=[2,1]0,1}`, `{replicated}`,
    /// the named form, tuples, metadata), as XLA's `ParseSharding`.
    #[staticmethod]
    fn from_string(text: &str) -> PyResult<Self> {
        text.parse().py().map(PyHloSharding)
    }

    /// The sharding of an `mhlo.sharding` attribute of StableHLO text
    /// (`mhlo.sharding = "{replicated}"`, its quoted value, or the value),
    /// as XLA's conversion to HLO reads it: `OpSharding` bytes if the value
    /// parses as them, else XLA's text.
    #[staticmethod]
    fn from_mhlo_sharding(text: &str) -> PyResult<Self> {
        HloSharding::from_mhlo_sharding(text)
            .py()
            .map(PyHloSharding)
    }

    /// The sharding of an `OpSharding` message: any message object with
    /// `SerializeToString()` (jaxlib's `OpSharding`, one generated from
    /// xla_data.proto), or its serialized bytes; read as XLA's
    /// `HloSharding::FromProto`.
    #[staticmethod]
    fn from_proto(message: &Bound<'_, PyAny>) -> PyResult<Self> {
        if let Ok(bytes) = message.downcast::<PyBytes>() {
            return Self::from_proto_bytes(bytes.as_bytes());
        }
        if !message.hasattr("SerializeToString")? {
            return Err(PyTypeError::new_err(
                "from_proto takes an OpSharding message or its serialized bytes",
            ));
        }
        let data = message.call_method0("SerializeToString")?;
        let data = data
            .downcast::<PyBytes>()
            .map_err(|_| PyTypeError::new_err("SerializeToString() did not return bytes"))?;
        Self::from_proto_bytes(data.as_bytes())
    }

    /// The sharding of serialized `OpSharding` bytes (XLA's `FromProto`).
    #[staticmethod]
    fn from_proto_bytes(data: &[u8]) -> PyResult<Self> {
        HloSharding::from_proto_bytes(data).py().map(PyHloSharding)
    }

    /// The `OpSharding` XLA's `ToProto` writes: its serialized bytes, or,
    /// given a protobuf class `cls` (jaxlib's `OpSharding`, one generated
    /// from xla_data.proto), a message of that class.
    #[pyo3(signature = (cls=None))]
    fn to_proto<'py>(
        &self,
        py: Python<'py>,
        cls: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let bytes = self.to_serialized_proto(py);
        match cls {
            None => Ok(bytes.into_any()),
            Some(cls) => {
                let message = cls.call0()?;
                message.call_method1("ParseFromString", (bytes,))?;
                Ok(message)
            }
        }
    }

    /// The serialized `OpSharding`, byte for byte as jaxlib's
    /// `to_proto().SerializeToString()`.
    fn to_serialized_proto<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.0.to_proto_bytes())
    }

    /// `{replicated}`.
    #[staticmethod]
    fn replicate() -> Self {
        PyHloSharding(HloSharding::replicate())
    }

    /// `{manual}`.
    #[staticmethod]
    fn manual() -> Self {
        PyHloSharding(HloSharding::manual())
    }

    /// `{unknown}`.
    #[staticmethod]
    fn unknown() -> Self {
        PyHloSharding(HloSharding::unknown())
    }

    /// `{unreduced}`.
    #[staticmethod]
    fn unreduced() -> Self {
        PyHloSharding(HloSharding::unreduced())
    }

    /// jaxlib's `iota_tile`: devices
    /// `numpy.arange(n).reshape(reshape_dims).transpose(transpose_perm)`
    /// tiled as `dims`, the last `len(subgroup_types)` dimensions being
    /// subgroups of those types (names such as `"REPLICATED"`, numbers, or
    /// jaxlib's `OpSharding.Type`).
    #[staticmethod]
    #[pyo3(signature = (dims, reshape_dims=Seq(Vec::new()), transpose_perm=Seq(Vec::new()), subgroup_types=Seq(Vec::new())))]
    fn iota_tile(
        dims: Seq<i64>,
        reshape_dims: Seq<i64>,
        transpose_perm: Seq<i64>,
        subgroup_types: Seq<Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let types = types_from(subgroup_types)?;
        HloSharding::iota_tile_with(&dims, &reshape_dims, &transpose_perm, &types)
            .py()
            .map(PyHloSharding)
    }

    /// jaxlib's `subgroup_with_device_ordering`: the devices of the array
    /// `tile_assignment` (a NumPy array or nested lists of ints), its last
    /// `len(subgroup_types)` dimensions subgroups of those types (XLA's
    /// `HloSharding::Subgroup`).
    #[staticmethod]
    #[pyo3(signature = (tile_assignment, subgroup_types=Seq(Vec::new())))]
    fn subgroup_with_device_ordering(
        py: Python<'_>,
        tile_assignment: &Bound<'_, PyAny>,
        subgroup_types: Seq<Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let array = py
            .import("numpy")?
            .call_method1("asarray", (tile_assignment, "int64"))?;
        let dims: Vec<i64> = array.getattr("shape")?.extract()?;
        let devices: Vec<i64> = array
            .call_method0("ravel")?
            .call_method0("tolist")?
            .extract()?;
        let ta = TileAssignment::from_devices(&dims, devices).py()?;
        HloSharding::subgroup(ta, &types_from(subgroup_types)?)
            .py()
            .map(PyHloSharding)
    }

    /// jaxlib's `tuple_sharding`: one sharding per leaf of the tuple
    /// `shape` (XLA's `HloSharding::Tuple`).
    #[staticmethod]
    fn tuple_sharding(shape: &Bound<'_, PyAny>, shardings: Vec<PyHloSharding>) -> PyResult<Self> {
        let shape = shape_of(shape)?;
        let elements = shardings.into_iter().map(|s| s.0).collect();
        HloSharding::tuple_for(&shape, elements)
            .py()
            .map(PyHloSharding)
    }

    /// The elements of a tuple sharding (empty for the others).
    fn tuple_elements(&self) -> Vec<PyHloSharding> {
        self.0
            .tuple_elements()
            .iter()
            .cloned()
            .map(PyHloSharding)
            .collect()
    }

    /// The number of devices of the tile assignment: 1 for a maximal
    /// sharding, 0 for one that names no devices.
    fn num_devices(&self) -> PyResult<i64> {
        self.0.num_devices().py()
    }

    /// The number of tile assignment dimensions.
    fn num_dimensions(&self) -> PyResult<usize> {
        self.0.num_dimensions().py()
    }

    /// The tile assignment's dimensions (`[1]` maximal, `[0]` for the
    /// kinds that name no devices).
    fn tile_assignment_dimensions(&self) -> PyResult<Vec<i64>> {
        self.0.tile_assignment_dimensions().py()
    }

    /// Every device of the tile assignment in row-major order.
    fn tile_assignment_devices(&self) -> PyResult<Vec<i64>> {
        self.0.tile_assignment_devices().py()
    }

    /// Every device holds the whole array (for a tuple: every element).
    fn is_replicated(&self) -> bool {
        self.0.is_replicated()
    }

    /// jaxlib's `is_maximal` (XLA's `IsTileMaximal`): replicated or on one
    /// device.
    fn is_maximal(&self) -> bool {
        self.0.is_maximal()
    }

    /// `{manual}`.
    fn is_manual(&self) -> bool {
        self.0.is_manual()
    }

    /// Split into tiles over devices.
    fn is_tiled(&self) -> bool {
        self.0.is_tiled()
    }

    /// `{unknown}`.
    fn is_unknown(&self) -> bool {
        self.0.is_unknown()
    }

    /// `{unreduced}`.
    fn is_unreduced(&self) -> bool {
        self.0.is_unreduced()
    }

    /// The tile assignment is an iota (`<=[...]`).
    fn is_tile_assignment_iota(&self) -> bool {
        self.0.is_tile_assignment_iota()
    }

    /// The last tile dimension replicates (`last_tile_dim_replicate`).
    fn replicate_on_last_tile_dim(&self) -> bool {
        self.0.replicate_on_last_tile_dim()
    }

    /// The types of the subgroup dimensions (`last_tile_dims`), as names:
    /// `["MANUAL", "REPLICATED"]`.
    fn subgroup_types(&self) -> Vec<&'static str> {
        self.0
            .subgroup_types()
            .iter()
            .map(|t| t.as_str_name())
            .collect()
    }

    /// The shape of one tile of `shape` (XLA's `TileShape`; uneven splits
    /// round up).
    fn tile(&self, shape: &Bound<'_, PyAny>) -> PyResult<PyShape> {
        self.0.tile_shape(&shape_of(shape)?).py().map(PyShape)
    }

    /// The tiled form of a named sharding (itself for the others).
    fn v3_to_v2_sharding(&self) -> PyResult<Self> {
        self.0.to_v2().py().map(PyHloSharding)
    }

    /// jax's `devices_indices_map`: `{device id: (slice, ...)}`, the part
    /// of an array of `shape` (a `Shape`, its text, or the sizes) each
    /// device holds, `slice(None)` along dimensions not split; for a
    /// sharding that names no devices, `num_devices` devices (default: the
    /// sharding's own count) each holding everything. Like jax, raises for
    /// a split that is not even (see `device_slices`).
    #[pyo3(signature = (shape, num_devices=None))]
    fn devices_indices_map<'py>(
        &self,
        py: Python<'py>,
        shape: &Bound<'py, PyAny>,
        num_devices: Option<i64>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let dims = dims_of(shape)?;
        // jax checks the split first ("raises a good error message"), and
        // refuses unreduced shardings.
        self.0.shard_shape(&dims).py()?;
        let v2 = self.0.to_v2().py()?;
        if v2.is_unreduced() || v2.subgroup_types().contains(&OpShardingType::Unreduced) {
            return Err(invalid_argument(
                "device_indices_map doesn't work with unreduced (as in jax)",
            ));
        }
        let n = match num_devices {
            Some(n) => n,
            None => self.0.num_devices().py()?,
        };
        let slices = self.0.devices_indices_map(&dims, n).py()?;
        let whole_array = v2.is_replicated() || v2.num_devices().py()? == 1;
        let (ways, _) = if whole_array {
            (Vec::new(), 1)
        } else {
            v2.num_ways_dim_sharded().py()?
        };
        slice_map(py, &slices, |k| {
            whole_array || ways.get(k).is_none_or(|&w| w == 1)
        })
    }

    /// jax's `shard_shape`: the dimensions each device holds, when the
    /// sharding splits `shape` evenly (raises otherwise, as jax).
    fn shard_shape<'py>(
        &self,
        py: Python<'py>,
        shape: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.0.shard_shape(&dims_of(shape)?).py()?)
    }

    /// Each device's part of `shape` as XLA's partitioner cuts it (XLA's
    /// `TileOffsetForDevice` and `TileLimitForDevice`): `{device id:
    /// (slice(start, stop), ...)}`, uneven splits clipped at the array's
    /// end (a device past it holds an empty slice).
    fn device_slices<'py>(
        &self,
        py: Python<'py>,
        shape: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let slices = self.0.device_slices(&dims_of(shape)?).py()?;
        slice_map(py, &slices, |_| false)
    }

    /// XLA's `TileOffsetForDevice`: where `device`'s tile starts.
    fn tile_offset_for_device(&self, shape: &Bound<'_, PyAny>, device: i64) -> PyResult<Vec<i64>> {
        self.0
            .tile_offset_for_device(&shape_of(shape)?, device)
            .py()
    }

    /// XLA's `TileLimitForDevice`: where `device`'s tile ends (clipped at
    /// the array's end).
    fn tile_limit_for_device(&self, shape: &Bound<'_, PyAny>, device: i64) -> PyResult<Vec<i64>> {
        self.0.tile_limit_for_device(&shape_of(shape)?, device).py()
    }

    /// The groups of devices that hold the same data.
    fn replica_groups(&self) -> PyResult<Vec<Vec<i64>>> {
        self.0.replica_groups().py()
    }

    /// XLA's `HloSharding::Validate` against `shape` (and a device count):
    /// raises with XLA's message.
    #[pyo3(signature = (shape, num_devices=None))]
    fn validate(&self, shape: &Bound<'_, PyAny>, num_devices: Option<i64>) -> PyResult<()> {
        self.0.validate(&shape_of(shape)?, num_devices).py()
    }

    /// XLA's text; with `include_metadata`, with the `metadata={...}` that
    /// HLO module text prints.
    #[pyo3(signature = (include_metadata=false))]
    fn to_string(&self, include_metadata: bool) -> String {
        if include_metadata {
            self.0.to_string_with_metadata()
        } else {
            self.0.to_string()
        }
    }

    /// XLA's text, as jaxlib's `repr` (no class name around it).
    fn __repr__(&self) -> String {
        self.0.to_string()
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Reduced<'py>> {
        reduce_to_proto_bytes(slf, slf.get().to_serialized_proto(slf.py()))
    }
}
