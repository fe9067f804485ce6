//! Which bytes hold a box of a tiled buffer, and each device's shard of a
//! global array (and back), over Python buffers: the library's
//! `TiledLayout::byte_ranges` and `relayout::Shards`, run without the GIL.

use pyo3::prelude::*;
use xla_shape::ArrayShape;
use xla_shape::relayout::Shards;
use xla_shape::sharding::HloSharding;
use xla_shape::tiling::TiledLayout;

use crate::buffer::Buffer;
use crate::errors::{IntoPyResult, invalid_argument};
use crate::seq::Seq;
use crate::sharding::PyHloSharding;
use crate::types::{PyShape, as_array};
use crate::{dtype, utils};

/// Ranges returned at most unless the caller asks for more.
pub const DEFAULT_MAX_RANGES: usize = 1 << 20;

/// The byte ranges `(start, stop)` of the buffer of `shape` (an array with
/// a layout, tiled or not) that hold the elements of the box
/// `start[d] <= index[d] < limit[d]`: sorted, touching ranges merged. With
/// sub-byte elements (`E(4)`) a range's first and last bytes may also hold
/// bits of elements outside the box. Raises when the box is not within the
/// shape or needs more than `max_ranges` ranges.
#[pyfunction]
#[pyo3(signature = (shape, start, limit, max_ranges=DEFAULT_MAX_RANGES))]
pub fn byte_ranges(
    py: Python<'_>,
    shape: PyRef<'_, PyShape>,
    start: Seq<i64>,
    limit: Seq<i64>,
    max_ranges: usize,
) -> PyResult<Vec<(u64, u64)>> {
    let t = TiledLayout::new(as_array(&shape.0)?).py()?;
    layout_byte_ranges(py, &t, &start, &limit, max_ranges)
}

/// `TiledLayout::byte_ranges` as `(start, stop)` pairs, without the GIL.
pub fn layout_byte_ranges(
    py: Python<'_>,
    t: &TiledLayout,
    start: &[i64],
    limit: &[i64],
    max_ranges: usize,
) -> PyResult<Vec<(u64, u64)>> {
    let ranges = py
        .allow_threads(|| t.byte_ranges(start, limit, max_ranges))
        .py()?;
    Ok(pairs(ranges))
}

/// Ranges as Python's `(start, stop)` tuples.
pub fn pairs<T>(ranges: Vec<std::ops::Range<T>>) -> Vec<(T, T)> {
    ranges.into_iter().map(|r| (r.start, r.end)).collect()
}

/// The device ids a sharding places data on, when the caller gives none:
/// one past the largest id of its slices. A replicated sharding names no
/// device and needs a count.
fn device_count(
    sharding: &HloSharding,
    global: &ArrayShape,
    num_devices: Option<i64>,
) -> PyResult<i64> {
    if let Some(n) = num_devices {
        return Ok(n);
    }
    if sharding.is_replicated() {
        return Err(invalid_argument(
            "a replicated sharding names no devices: give num_devices",
        ));
    }
    let slices = sharding.device_slices(global.dimensions()).py()?;
    Ok(slices.iter().map(|s| s.device + 1).max().unwrap_or(0))
}

fn plan(
    global_shape: &PyShape,
    sharding: &PyHloSharding,
    device_shape: &PyShape,
    num_devices: Option<i64>,
) -> PyResult<(Shards, ArrayShape, ArrayShape)> {
    let global = as_array(&global_shape.0)?;
    let device = as_array(&device_shape.0)?;
    let n = device_count(&sharding.0, global, num_devices)?;
    let plan = Shards::new(global, &sharding.0, device, n).py()?;
    Ok((plan, global.clone(), device.clone()))
}

/// Every device's shard of the global array `array` (any object with the
/// buffer protocol holding exactly the bytes of `global_shape`, whose
/// layout is untiled: a NumPy array in C order with a row-major shape, in
/// Fortran order with `{0,1,...}`), each in the layout of `device_shape`,
/// whose dimensions are the sharding's tile shape (`sharding.tile_shape`:
/// XLA's padded shard; the padding of shards cut at the end of the array
/// is written as zero). The devices are the sharding's, in ascending id
/// order (`devices_indices_map`'s); a replicated sharding copies the array
/// to `num_devices` devices. Returns a list of `(device, buffer)`: each
/// buffer a new NumPy array whose C-order memory is the device's bytes (of
/// the element type's dtype when `device_shape` is untiled, else `uint8`).
///
/// With `out`, a sequence of one writable buffer per device in that
/// order (staging buffers already at hand: pinned host memory, the
/// buffers of `jax.Array.addressable_shards`), the shards are written
/// into them and the list holds those objects. As for `assemble`'s `out`,
/// each must be contiguous (C or Fortran order) and hold exactly
/// `device_shape`'s bytes (`TiledLayout(device_shape).byte_size()`), and
/// an array's dtype must be the element type's or `uint8` (objects
/// without a dtype, such as `bytearray` or `memoryview`, are bytes); no
/// two may share memory, nor any with `array`.
///
/// The copies run without the GIL, on all cores with `parallel=True`
/// (each device's shard a task: many small shards spread over the
/// threads whole).
#[pyfunction]
#[pyo3(signature = (array, global_shape, sharding, device_shape, num_devices=None, parallel=false, out=None))]
#[allow(clippy::too_many_arguments)]
pub fn shard<'py>(
    py: Python<'py>,
    array: &Bound<'py, PyAny>,
    global_shape: PyRef<'py, PyShape>,
    sharding: PyRef<'py, PyHloSharding>,
    device_shape: PyRef<'py, PyShape>,
    num_devices: Option<i64>,
    parallel: bool,
    out: Option<Seq<Bound<'py, PyAny>>>,
) -> PyResult<Vec<(i64, Bound<'py, PyAny>)>> {
    let (plan, global, device) = plan(&global_shape, &sharding, &device_shape, num_devices)?;
    dtype::check_array_dtype(array, &global, "the array")?;
    let src = Buffer::get(array, false)?;
    if src.len() != plan.global_byte_size() {
        return Err(crate::errors::to_py(xla_shape::Error::new(
            xla_shape::ErrorKind::BufferSize,
            format!(
                "the array has {} bytes but {global} takes {} bytes",
                src.len(),
                plan.global_byte_size()
            ),
        )));
    }
    // New NumPy buffers (and the module, for their typed views) unless the
    // caller gives the buffers.
    let (outs, np) = match out {
        Some(given) => {
            for (k, o) in given.iter().enumerate() {
                dtype::check_array_dtype(o, &device, &format!("out[{k}]"))?;
            }
            (given.0, None)
        }
        None => {
            let np = py.import("numpy")?;
            let mut fresh = Vec::with_capacity(plan.devices().len());
            for _ in plan.devices() {
                fresh.push(np.call_method1("empty", (plan.device_byte_size(), "uint8"))?);
            }
            (fresh, Some(np))
        }
    };
    let mut buffers = outs
        .iter()
        .map(|o| Buffer::get(o, true))
        .collect::<PyResult<Vec<_>>>()?;
    // A `&mut [u8]` over a byte that another slice also covers would be
    // undefined behaviour: refused before any slice is made.
    if let Some(k) = buffers.iter().position(|b| b.overlaps(&src)) {
        return Err(invalid_argument(format!(
            "out[{k}] and the array overlap: the shards cannot be written over their source"
        )));
    }
    if let Some((a, b)) = Buffer::overlapping_pair(&buffers) {
        return Err(invalid_argument(format!(
            "out[{a}] and out[{b}] overlap: each device needs a buffer of its own"
        )));
    }
    let s = src.as_slice();
    let mut dst: Vec<&mut [u8]> = buffers.iter_mut().map(Buffer::as_mut_slice).collect();
    py.allow_threads(|| {
        if parallel {
            plan.run_parallel(s, &mut dst)
        } else {
            plan.run(s, &mut dst)
        }
    })
    .py()?;
    drop(dst);
    drop(buffers);
    plan.devices()
        .iter()
        .zip(&outs)
        .map(|(d, o)| {
            let buffer = match &np {
                Some(np) => utils::typed_view(py, np, o, &device)?,
                None => o.clone(),
            };
            Ok((d.device, buffer))
        })
        .collect()
}

/// The global array of `global_shape` assembled from the device buffers
/// `shards` (one per device, in the order `shard` returns them: any
/// objects with the buffer protocol, each exactly the bytes of
/// `device_shape`). Of devices that hold the same slice only the first is
/// read. Returns a new NumPy array of the global shape (its memory in the
/// layout of `global_shape`), or writes into `out` (contiguous, exactly
/// the bytes of `global_shape`, of the element type's dtype or `uint8`,
/// sharing no memory with a shard) and returns it. Runs without the GIL,
/// on all cores with `parallel=True` (the rows of each group of shards a
/// task of its own: many small shards spread over the threads whole).
#[pyfunction]
#[pyo3(signature = (shards, global_shape, sharding, device_shape, num_devices=None, out=None, parallel=false))]
#[allow(clippy::too_many_arguments)]
pub fn assemble<'py>(
    py: Python<'py>,
    shards: Seq<Bound<'py, PyAny>>,
    global_shape: PyRef<'py, PyShape>,
    sharding: PyRef<'py, PyHloSharding>,
    device_shape: PyRef<'py, PyShape>,
    num_devices: Option<i64>,
    out: Option<&Bound<'py, PyAny>>,
    parallel: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let (plan, global, device) = plan(&global_shape, &sharding, &device_shape, num_devices)?;
    for s in shards.iter() {
        dtype::check_array_dtype(s, &device, "a shard")?;
    }
    if let Some(o) = out {
        dtype::check_array_dtype(o, &global, "out")?;
    }
    let inputs = shards
        .iter()
        .map(|s| Buffer::get(s, false))
        .collect::<PyResult<Vec<_>>>()?;
    let (target, result) = match out {
        Some(o) => (o.clone(), o.clone()),
        None => {
            let np = py.import("numpy")?;
            let bytes = np.call_method1("empty", (plan.global_byte_size(), "uint8"))?;
            let result = utils::typed_view(py, &np, &bytes, &global)?;
            (bytes, result)
        }
    };
    let mut dst = Buffer::get(&target, true)?;
    if inputs.iter().any(|i| i.overlaps(&dst)) {
        return Err(invalid_argument(
            "a shard and the output buffer of assemble overlap",
        ));
    }
    let srcs: Vec<&[u8]> = inputs.iter().map(Buffer::as_slice).collect();
    let d = dst.as_mut_slice();
    py.allow_threads(|| {
        if parallel {
            plan.assemble_parallel(&srcs, d)
        } else {
            plan.assemble(&srcs, d)
        }
    })
    .py()?;
    Ok(result)
}
