//! Per-device argument and output bytes of a module before partitioning:
//! what each device holds of the entry parameters and the result once XLA's
//! SPMD partitioner has cut them (`xla/service/spmd/spmd_partitioner.cc`:
//! an entry parameter or the root of sharding S becomes, on every device,
//! the shape `HloSharding::TileShape` gives, uneven splits rounded up and
//! padded; a replicated, maximal or manual value keeps its whole shape).

use super::{DeviceBytes, add};
use crate::error::{Error, Result};
use crate::model::Shape;
use crate::shape_util::byte_size_of;
use crate::sharding::HloSharding;

/// Tuple index tables hold 8-byte pointers, as on every 64-bit backend.
const POINTER_SIZE: i64 = 8;
/// XLA's `Layout::kHostMemorySpace`: host buffers count apart.
const HOST_MEMORY_SPACE: i64 = 5;

/// An entry parameter or the result, with its sharding as read (`None`:
/// it has none).
pub(super) type Value<'a> = (&'a Shape, Option<&'a HloSharding>);

/// Each device's bytes of `parameters` and `result`, devices `0..n` where
/// `n` is the largest device count of their shardings or
/// `num_partitions`; empty when none of them has a sharding.
pub(super) fn per_device(
    parameters: &[Value<'_>],
    result: Value<'_>,
    num_partitions: Option<i64>,
) -> Result<Vec<DeviceBytes>> {
    let all = || parameters.iter().chain(std::iter::once(&result));
    if all().all(|(_, s)| s.is_none()) {
        return Ok(Vec::new());
    }
    let mut n = num_partitions.unwrap_or(0).max(0);
    for (_, s) in all() {
        if let Some(s) = s {
            n = n.max(device_count(s)?);
        }
    }
    // Every device holds the same shapes after SPMD partitioning (the tile
    // shape, padded), so one figure serves each device.
    let mut arguments = 0;
    for (shape, s) in parameters {
        arguments = add(arguments, value_bytes(shape, *s, false)?)?;
    }
    let outputs = value_bytes(result.0, result.1, false)?;
    Ok((0..n.max(1))
        .map(|device| DeviceBytes {
            device,
            arguments,
            outputs,
        })
        .collect())
}

/// The devices a sharding spans: its tile assignment's (every leaf's for a
/// tuple); 1 for a maximal one, 0 for one that names none.
fn device_count(s: &HloSharding) -> Result<i64> {
    if s.is_tuple() {
        let mut n = 0;
        for e in s.tuple_elements() {
            n = n.max(device_count(e)?);
        }
        return Ok(n);
    }
    match s.unique_device() {
        Some(d) => Ok(d.saturating_add(1)),
        None => s.num_devices(),
    }
}

/// The bytes one device holds of a value of `shape` sharded by `s` (the
/// whole value when `s` is `None`), in device memory or, with `host`, in
/// host memory (memory space 5): each array leaf its shard
/// (`HloSharding::shard_byte_size`) or whole, each tuple its index table
/// (in device memory).
pub(super) fn value_bytes(shape: &Shape, s: Option<&HloSharding>, host: bool) -> Result<i64> {
    let mut leaves = Vec::new();
    leaf_shapes(shape, &mut leaves, 0)?;
    let leaf_shardings: Vec<Option<&HloSharding>> = match s {
        Some(s) if s.is_tuple() => {
            let elements = s.tuple_elements();
            if elements.len() != leaves.len() {
                return Err(Error::invalid_argument(format!(
                    "the sharding {s} has {} elements for the {} leaves of {shape}",
                    elements.len(),
                    leaves.len()
                )));
            }
            elements.iter().map(Some).collect()
        }
        other => vec![other; leaves.len()],
    };
    let mut total = if host { 0 } else { tables(shape, 0)? };
    for (leaf, s) in leaves.iter().zip(leaf_shardings) {
        let in_host = leaf
            .as_array()
            .and_then(|a| a.layout())
            .is_some_and(|l| l.memory_space() == HOST_MEMORY_SPACE);
        if in_host != host {
            continue;
        }
        let bytes = match s {
            Some(s) if leaf.as_array().is_some() => s.shard_byte_size(leaf)?,
            _ => byte_size_of(leaf, POINTER_SIZE)?,
        };
        total = add(total, bytes)?;
    }
    Ok(total)
}

/// The leaves of `shape` in pre-order (XLA's tuple shardings list them so).
fn leaf_shapes<'s>(shape: &'s Shape, out: &mut Vec<&'s Shape>, depth: usize) -> Result<()> {
    match shape {
        Shape::Tuple(elements) => {
            if depth >= crate::MAX_NESTING_DEPTH {
                return Err(Error::invalid_argument("shapes nest too deeply"));
            }
            for e in elements {
                leaf_shapes(e, out, depth + 1)?;
            }
        }
        _ => out.push(shape),
    }
    Ok(())
}

/// The bytes of the index tables of `shape`'s tuples.
fn tables(shape: &Shape, depth: usize) -> Result<i64> {
    let Shape::Tuple(elements) = shape else {
        return Ok(0);
    };
    if depth >= crate::MAX_NESTING_DEPTH {
        return Err(Error::invalid_argument("shapes nest too deeply"));
    }
    let mut total = byte_size_of(shape, POINTER_SIZE)?;
    for e in elements {
        total = add(total, tables(e, depth + 1)?)?;
    }
    Ok(total)
}
