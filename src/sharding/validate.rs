//! XLA's `HloSharding::Validate` (`xla/hlo/ir/hlo_sharding.cc`): whether a
//! sharding fits a shape and a device count, with XLA's messages and its
//! `Note: While validating ...` lines (`tsl::errors::AppendToMessage`).

use std::collections::HashSet;

use crate::error::{Error, Result};
use crate::model::shape::Shape;
use crate::shape_util;

use super::{HloSharding, Kind};

fn invalid(message: impl Into<String>) -> Error {
    Error::invalid_argument(message)
}

/// `tsl::errors::AppendToMessage`: the note on a line of its own, after a
/// tab.
fn append(e: Error, note: String) -> Error {
    invalid(format!("{}\n\t{note}", e.message()))
}

/// XLA's `DeviceInRange`.
fn device_in_range(device: i64, num_devices: Option<i64>) -> Result<()> {
    if device < 0 {
        return Err(invalid(format!(
            "device {device} is negative in tile assignment"
        )));
    }
    if let Some(n) = num_devices
        && device >= n
    {
        return Err(invalid(format!(
            "device {device} >= num_devices ({n}) in tile assignment"
        )));
    }
    Ok(())
}

impl HloSharding {
    /// XLA's `HloSharding::Validate(shape, num_devices)`: whether this
    /// sharding can be applied to `shape` over `num_devices` devices (any
    /// number when `None`).
    ///
    /// ```
    /// use xla_shape::sharding::HloSharding;
    /// let s: HloSharding = "{devices=[2,2]0,1,2,5}".parse()?;
    /// let err = s.validate(&"f32[4,4]".parse()?, Some(4)).unwrap_err();
    /// assert_eq!(
    ///     err.message(),
    ///     "device 5 >= num_devices (4) in tile assignment\n\t\
    ///      Note: While validating sharding {devices=[2,2]0,1,2,5} against shape f32[4,4]"
    /// );
    /// # Ok::<(), xla_shape::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidArgument`](crate::ErrorKind::InvalidArgument)
    /// with XLA's message.
    #[doc(alias = "HloSharding::Validate")]
    pub fn validate(&self, shape: &Shape, num_devices: Option<i64>) -> Result<()> {
        if shape.is_token() {
            return Ok(());
        }
        let r = if self.is_tuple() {
            self.validate_tuple(shape, num_devices)
        } else {
            self.validate_non_tuple(shape, num_devices)
        };
        r.map_err(|e| {
            append(
                e,
                format!(
                    "Note: While validating sharding {self} against shape {}",
                    shape_util::human_string(shape)
                ),
            )
        })
    }

    fn validate_tuple(&self, shape: &Shape, num_devices: Option<i64>) -> Result<()> {
        if !shape.is_tuple() {
            return Err(invalid(
                "Sharding is tuple-shaped but validation shape is not.",
            ));
        }
        let elements = self.tuple_elements();
        let leaf_count = shape_util::get_leaf_count(shape);
        if leaf_count == 0 && elements.len() <= 1 {
            return Ok(());
        }
        if leaf_count != elements.len() as i64 {
            return Err(Error::malformed(format!(
                "Shape {} has {leaf_count} leaf nodes while this sharding has {}",
                shape_util::human_string(shape),
                elements.len()
            )));
        }
        let mut leaves = Vec::with_capacity(elements.len());
        shape_util::for_each_leaf_shape(shape, |leaf, index| {
            leaves.push((leaf.clone(), index.clone()))
        });
        for ((leaf, index), element) in leaves.iter().zip(elements) {
            element.validate_non_tuple(leaf, num_devices).map_err(|e| {
                append(
                    e,
                    format!(
                        "Note: While validating sharding tuple element {index} which is {element}"
                    ),
                )
            })?;
        }
        Ok(())
    }

    fn validate_non_tuple(&self, shape: &Shape, num_devices: Option<i64>) -> Result<()> {
        if shape.is_tuple() {
            return Err(invalid("Validation shape is a tuple but sharding is not."));
        }
        if self.is_replicated() || self.is_manual() || self.is_unreduced() || self.is_unknown() {
            return Ok(());
        }
        if let Some(d) = self.unique_device() {
            return device_in_range(d, num_devices);
        }
        let assignment_devices = match &self.kind {
            Kind::Named(n) => n.mesh.num_devices(),
            Kind::Tiled(t) => t.tile_assignment.num_elements(),
            _ => 0,
        };
        if assignment_devices == 1 {
            return Err(invalid(
                "Tile assignment only contains a single device. If a replicated sharding was intended, use HloSharding::Replicated(). If a device placement was intended, use HloSharding::AssignDevice()",
            ));
        }
        let rank = shape.rank().unwrap_or(0);
        let tiled_rank = match &self.kind {
            Kind::Named(n) => Some(n.dims.len()),
            _ => self.tiled_data_rank(),
        };
        if tiled_rank != Some(rank) {
            return Err(invalid(format!(
                "Number of tile assignment dimensions (excluding subgroups) is different than the input rank. sharding={self}, input_shape={}",
                shape_util::human_string(shape)
            )));
        }
        let Kind::Tiled(t) = &self.kind else {
            if let (Kind::Named(n), Some(want)) = (&self.kind, num_devices)
                && n.mesh.num_devices() != want
            {
                return Err(invalid(format!(
                    "sharding should have {want} devices but has {}",
                    n.mesh.num_devices()
                )));
            }
            return Ok(());
        };
        let ta = &t.tile_assignment;
        if ta.is_iota() {
            if let Some(want) = num_devices
                && ta.num_elements() != want
            {
                return Err(invalid(format!(
                    "tile_assignment should have {want} devices but has {}",
                    ta.num_elements()
                )));
            }
            return Ok(());
        }
        let devices = ta.list_ref().unwrap_or(&[]);
        let mut seen = HashSet::with_capacity(devices.len());
        for &d in devices {
            device_in_range(d, num_devices)?;
            if !seen.insert(d) {
                return Err(invalid(format!(
                    "device {d} is not unique in tile assignment"
                )));
            }
        }
        if let Some(want) = num_devices
            && seen.len() as i64 != want
        {
            return Err(invalid(format!(
                "tile_assignment should have {want} devices but has {}",
                seen.len()
            )));
        }
        Ok(())
    }
}
