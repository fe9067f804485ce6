//! What each device holds: XLA's `TileShape`, `TileOffsetForDevice`,
//! `TileLimitForDevice` and `EachTile` (`xla/hlo/ir/hlo_sharding.cc`),
//! jax's `devices_indices_map` (`jax/_src/op_shardings.py`), the replica
//! groups of a partially replicated sharding, and each device's bytes.
//!
//! XLA splits a dimension of size `n` over `k` tiles of `ceil(n / k)`
//! elements; the last tiles are cut at the end of the array (and can be
//! empty): the offset of tile `i` is `min(i * ceil(n / k), n)`, its limit
//! `min((i + 1) * ceil(n / k), n)`. The SPMD partitioner gives every device
//! a buffer of the full tile shape, the cut part being padding.

use std::collections::BTreeMap;

use crate::error::{Error, Result};
use crate::model::join;
use crate::model::shape::{ArrayShape, Shape};
use crate::tiling::TiledLayout;

use super::{HloSharding, Kind};

/// The part of an array one device holds: per dimension, the half-open
/// range `offsets[i]..limits[i]` (jax's `slice(start, stop)`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DeviceSlice {
    /// The device id.
    pub device: i64,
    /// The first index held, per dimension (XLA's `TileOffsetForDevice`).
    pub offsets: Vec<i64>,
    /// One past the last index held, per dimension (XLA's
    /// `TileLimitForDevice`).
    pub limits: Vec<i64>,
}

impl DeviceSlice {
    /// The shape of the slice: `limits - offsets` per dimension.
    pub fn shape(&self) -> Vec<i64> {
        self.limits
            .iter()
            .zip(&self.offsets)
            .map(|(l, o)| l - o)
            .collect()
    }

    /// The part of `array` the slice holds, as XLA's `TileShape` for the
    /// device gives it: the slice's dimensions, with `array`'s element
    /// type, dynamic dimensions and layout. With the slices of
    /// [`HloSharding::device_slices`], every device's shape in one pass
    /// (where [`HloSharding::tile_shape_for_device`] finds one device).
    ///
    /// # Errors
    ///
    /// When the slice's rank is not `array`'s.
    pub fn part_of(&self, array: &ArrayShape) -> Result<Shape> {
        with_dimensions(array, self.shape())
    }
}

fn not_for(what: &str, s: &HloSharding) -> Error {
    Error::invalid_argument(format!(
        "{what} is not defined for the sharding {s} (XLA CHECK-fails on it)"
    ))
}

fn ceil_of_ratio(n: i64, k: i64) -> Option<i64> {
    if k <= 0 || n < 0 {
        return None;
    }
    Some(n / k + i64::from(n % k != 0))
}

impl HloSharding {
    /// The tiled form of a leaf sharding and its data rank, for the
    /// per-device functions; `None` for replicated and maximal shardings.
    fn tiles_of(&self, what: &str) -> Result<Option<(HloSharding, usize)>> {
        if self.is_tuple() {
            return Err(not_for(what, self));
        }
        let s = self.leaf_v2()?.into_owned();
        match &s.kind {
            Kind::Replicated | Kind::Maximal(_) => Ok(None),
            Kind::Tiled(_) => {
                let rank = s.tiled_data_rank().ok_or_else(|| not_for(what, self))?;
                Ok(Some((s, rank)))
            }
            _ => Err(not_for(what, self)),
        }
    }

    /// The number of tiles along each of the array's `rank` dimensions.
    fn split_counts(s: &HloSharding, rank: usize, dims: &[i64]) -> Result<Vec<i64>> {
        if dims.len() != rank {
            return Err(Error::invalid_argument(format!(
                "Shape rank is not same as tile rank: {} vs {rank}",
                dims.len()
            )));
        }
        let ta = s.tile_assignment().map(|t| t.dimensions()).unwrap_or(&[]);
        Ok(ta[..rank].to_vec())
    }

    /// XLA's `TileShape` loop: `ceil(n / k)` for the first `rank`
    /// dimensions of `dims`, the others unchanged.
    fn tile_shape_dims(s: &HloSharding, rank: usize, dims: &[i64]) -> Result<Vec<i64>> {
        if dims.len() < rank {
            return Err(Error::invalid_argument(format!(
                "the shape has {} dimensions and the sharding tiles {rank} (XLA's TileShape writes past them)",
                dims.len()
            )));
        }
        let mut out = HloSharding::tile_sizes(s, rank, &dims[..rank])?;
        out.extend_from_slice(&dims[rank..]);
        Ok(out)
    }

    /// The tile size along each dimension, `ceil(n / k)`.
    fn tile_sizes(s: &HloSharding, rank: usize, dims: &[i64]) -> Result<Vec<i64>> {
        let counts = HloSharding::split_counts(s, rank, dims)?;
        dims.iter()
            .zip(&counts)
            .map(|(&n, &k)| {
                ceil_of_ratio(n, k).ok_or_else(|| {
                    Error::invalid_argument(format!(
                        "a dimension of size {n} cannot be split into {k} tiles"
                    ))
                })
            })
            .collect()
    }

    /// XLA's `TileShape(shape)`: the shape of one tile, each sharded
    /// dimension rounded up (`ceil(n / k)`); the shape itself when the
    /// sharding does not tile (replicated, maximal, manual, unreduced,
    /// unknown). This is the buffer every device holds after SPMD
    /// partitioning (jaxlib's `HloSharding.tile(shape)`).
    ///
    /// ```
    /// use xla_shape::sharding::HloSharding;
    /// let s: HloSharding = "{devices=[3,1]<=[3]}".parse()?;
    /// assert_eq!(s.tile_shape(&"f32[10,4]".parse()?)?.to_string(), "f32[4,4]{1,0}");
    /// # Ok::<(), xla_shape::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// For a tuple sharding or a non-array shape, when the shape's rank is
    /// not the sharding's, or a dimension cannot be split.
    #[doc(alias = "HloSharding::TileShape")]
    pub fn tile_shape(&self, shape: &Shape) -> Result<Shape> {
        if !self.is_tuple() && !self.is_tiled() {
            return Ok(shape.clone());
        }
        let array = array_of(shape)?;
        let Some((s, rank)) = self.tiles_of("TileShape")? else {
            return Ok(shape.clone());
        };
        let sizes = HloSharding::tile_shape_dims(&s, rank, array.dimensions())?;
        with_dimensions(array, sizes)
    }

    /// XLA's `TileShape(shape, device)`: the part of `shape` that `device`
    /// holds, cut at the end of the array (`limit - offset`).
    ///
    /// # Errors
    ///
    /// As [`tile_offset_for_device`](Self::tile_offset_for_device).
    pub fn tile_shape_for_device(&self, shape: &Shape, device: i64) -> Result<Shape> {
        if !self.is_tuple() && !self.is_tiled() {
            return Ok(shape.clone());
        }
        let array = array_of(shape)?;
        self.device_slice(array.dimensions(), device)?
            .part_of(array)
    }

    /// XLA's `TileOffsetForDevice`: the first index of `shape` that
    /// `device` holds, per dimension (zeros for replicated and maximal
    /// shardings).
    ///
    /// # Errors
    ///
    /// For tuple, manual, unreduced and unknown shardings (XLA
    /// CHECK-fails), a device not in the tile assignment, or a rank that is
    /// not the sharding's.
    #[doc(alias = "HloSharding::TileOffsetForDevice")]
    pub fn tile_offset_for_device(&self, shape: &Shape, device: i64) -> Result<Vec<i64>> {
        Ok(self
            .device_slice(array_of(shape)?.dimensions(), device)?
            .offsets)
    }

    /// XLA's `TileLimitForDevice`: one past the last index of `shape` that
    /// `device` holds, per dimension.
    ///
    /// # Errors
    ///
    /// As [`tile_offset_for_device`](Self::tile_offset_for_device).
    #[doc(alias = "HloSharding::TileLimitForDevice")]
    pub fn tile_limit_for_device(&self, shape: &Shape, device: i64) -> Result<Vec<i64>> {
        Ok(self
            .device_slice(array_of(shape)?.dimensions(), device)?
            .limits)
    }

    /// XLA's `TileIndexForDevice`: the index of the tile `device` holds,
    /// over the data dimensions.
    ///
    /// # Errors
    ///
    /// For shardings that do not tile, or a device not in the assignment.
    #[doc(alias = "HloSharding::TileIndexForDevice")]
    pub fn tile_index_for_device(&self, device: i64) -> Result<Vec<i64>> {
        let Some((s, rank)) = self.tiles_of("TileIndexForDevice")? else {
            return Err(not_for("TileIndexForDevice", self));
        };
        let ta = s
            .tile_assignment()
            .ok_or_else(|| not_for("TileIndexForDevice", self))?;
        let mut index = ta.index_of(device)?.ok_or_else(|| {
            Error::invalid_argument(format!(
                "device {device} is not in the tile assignment of {self}"
            ))
        })?;
        index.truncate(rank);
        Ok(index)
    }

    /// The slice of an array of dimensions `dims` that `device` holds
    /// (XLA's `TileOffsetForDevice` and `TileLimitForDevice` together).
    ///
    /// # Errors
    ///
    /// As [`tile_offset_for_device`](Self::tile_offset_for_device).
    pub fn device_slice(&self, dims: &[i64], device: i64) -> Result<DeviceSlice> {
        let Some((s, rank)) = self.tiles_of("TileOffsetForDevice")? else {
            return Ok(DeviceSlice {
                device,
                offsets: vec![0; dims.len()],
                limits: dims.to_vec(),
            });
        };
        let sizes = HloSharding::tile_sizes(&s, rank, dims)?;
        let index = s.tile_index_for_device(device)?;
        Ok(slice_of(device, &index, &sizes, dims))
    }

    /// Every device's slice of an array of dimensions `dims`, in ascending
    /// order of device id: jax's `devices_indices_map` over the devices of
    /// the tile assignment (XLA's `EachTile`), each slice cut at the end of
    /// the array. A replicated sharding names no devices: use
    /// [`devices_indices_map`](Self::devices_indices_map) with a count.
    ///
    /// ```
    /// use xla_shape::sharding::HloSharding;
    /// let s: HloSharding = "{devices=[2,1,2]0,2,1,3 last_tile_dim_replicate}".parse()?;
    /// let slices = s.device_slices(&[6, 5])?;
    /// assert_eq!(slices[1].device, 1);
    /// assert_eq!((slices[1].offsets.as_slice(), slices[1].limits.as_slice()), (&[3, 0][..], &[6, 5][..]));
    /// # Ok::<(), xla_shape::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`tile_offset_for_device`](Self::tile_offset_for_device); when
    /// the devices cannot be listed.
    #[doc(alias = "devices_indices_map")]
    pub fn device_slices(&self, dims: &[i64]) -> Result<Vec<DeviceSlice>> {
        if self.is_tuple() {
            return Err(not_for("devices_indices_map", self));
        }
        let v2 = self.leaf_v2()?;
        match &v2.kind {
            Kind::Maximal(d) => Ok(vec![DeviceSlice {
                device: *d,
                offsets: vec![0; dims.len()],
                limits: dims.to_vec(),
            }]),
            Kind::Replicated => Ok(Vec::new()),
            Kind::Tiled(t) => {
                let rank = v2
                    .tiled_data_rank()
                    .ok_or_else(|| not_for("devices_indices_map", self))?;
                let sizes = HloSharding::tile_sizes(&v2, rank, dims)?;
                super::tile_assignment::check_listable(t.tile_assignment.num_elements())?;
                let mut out: BTreeMap<i64, DeviceSlice> = BTreeMap::new();
                t.tile_assignment.each(|index, device| {
                    // XLA's `TileIndexForDevice` keeps the last tile of a
                    // device listed twice.
                    out.insert(device, slice_of(device, &index[..rank], &sizes, dims));
                })?;
                Ok(out.into_values().collect())
            }
            _ => Err(not_for("devices_indices_map", self)),
        }
    }

    /// Each device's slice of an array of dimensions `dims` among
    /// `num_devices` devices: [`device_slices`](Self::device_slices), or,
    /// for a replicated sharding, which names no devices, the whole array
    /// on each of devices `0..num_devices` (as
    /// [`devices_indices_map`](Self::devices_indices_map) answers), without
    /// requiring the sharding's device count to be `num_devices`.
    ///
    /// # Errors
    ///
    /// As [`device_slices`](Self::device_slices); a replicated sharding
    /// over more than [`MAX_LISTED_DEVICES`](super::MAX_LISTED_DEVICES)
    /// devices.
    pub fn device_slices_among(&self, dims: &[i64], num_devices: i64) -> Result<Vec<DeviceSlice>> {
        if self.is_replicated() && !self.is_tuple() {
            return whole_on(dims, num_devices);
        }
        self.device_slices(dims)
    }

    /// jax's `devices_indices_map` for `num_devices` devices
    /// (`op_sharding_to_indices`): every device the whole array when the
    /// sharding is replicated or uses one device; otherwise each device's
    /// slice, `num_devices` being the sharding's own count.
    ///
    /// # Errors
    ///
    /// When `num_devices` is not the sharding's device count (jax asserts
    /// it), a device id is not below it or is listed twice, and as
    /// [`device_slices`](Self::device_slices).
    #[doc(alias = "op_sharding_to_indices")]
    pub fn devices_indices_map(&self, dims: &[i64], num_devices: i64) -> Result<Vec<DeviceSlice>> {
        if !self.is_tuple() && (self.is_replicated() || self.num_devices()? == 1) {
            return whole_on(dims, num_devices);
        }
        if self.num_devices()? != num_devices {
            return Err(Error::invalid_argument(format!(
                "the sharding {self} has {} devices, not {num_devices}",
                self.num_devices()?
            )));
        }
        let slices = self.device_slices(dims)?;
        if let Some(s) = slices
            .iter()
            .find(|s| s.device < 0 || s.device >= num_devices)
        {
            return Err(Error::invalid_argument(format!(
                "device {} of {self} is not below the device count {num_devices}",
                s.device
            )));
        }
        // One slice per device in range, ascending: fewer than
        // `num_devices` when a device is listed twice and another not at
        // all (jax fails on the hole).
        if let Some(missing) = (0..num_devices).zip(&slices).find(|(d, s)| s.device != *d) {
            return Err(Error::invalid_argument(format!(
                "the sharding {self} places no tile on device {}: another device is listed twice",
                missing.0
            )));
        }
        if (slices.len() as i64) < num_devices {
            return Err(Error::invalid_argument(format!(
                "the sharding {self} places no tile on device {}: another device is listed twice",
                slices.len()
            )));
        }
        Ok(slices)
    }

    /// jax's `get_num_ways_dim_sharded` (`jax._src.op_shardings`): how many
    /// ways each dimension of the array is split, and how many devices hold
    /// each piece. `([], 1)` for a replicated or unreduced sharding; the
    /// named form is read as [`to_v2`](Self::to_v2) converts it.
    ///
    /// ```
    /// use xla_shape::sharding::HloSharding;
    /// let s: HloSharding = "{devices=[4,1,2]<=[8] last_tile_dim_replicate}".parse()?;
    /// assert_eq!(s.num_ways_dim_sharded()?, (vec![4, 1], 2));
    /// # Ok::<(), xla_shape::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// For a manual sharding (jax asserts it is not), a tuple, and subgroups
    /// jax does not handle (`last_tile_dims={manual}`: jax's
    /// `Unhandled OpSharding type` error).
    #[doc(alias = "get_num_ways_dim_sharded")]
    pub fn num_ways_dim_sharded(&self) -> Result<(Vec<i64>, i64)> {
        use crate::proto::op_sharding::Type;
        if let Kind::Named(_) = self.kind {
            return self.to_v2()?.num_ways_dim_sharded();
        }
        if self.is_manual() || self.is_tuple() {
            return Err(not_for("jax's get_num_ways_dim_sharded", self));
        }
        if self.is_replicated() || self.is_unreduced() {
            return Ok((Vec::new(), 1));
        }
        let partitions = self.tile_assignment_dimensions()?;
        let types = self.subgroup_types();
        let n = partitions.len();
        let last = |k: usize| partitions.get(n.wrapping_sub(k)).copied();
        let leading = |k: usize| partitions[..n.saturating_sub(k)].to_vec();
        let has = |t: Type| types.contains(&t);
        Ok(match types {
            [Type::Replicated] => (leading(1), last(1).unwrap_or(1)),
            [Type::Unreduced] => (leading(1), 1),
            [_, _] if has(Type::Replicated) && has(Type::Unreduced) => {
                // The replicas: the size of the REPLICATED subgroup, one of
                // the last two dimensions.
                let at = usize::from(types[1] == Type::Replicated);
                (
                    leading(2),
                    partitions
                        .get(n.saturating_sub(2) + at)
                        .copied()
                        .unwrap_or(1),
                )
            }
            _ if self.replicate_on_last_tile_dim() => (leading(1), last(1).unwrap_or(1)),
            [] => (partitions, 1),
            _ => {
                return Err(Error::invalid_argument(format!(
                    "Unhandled OpSharding type: {self} (jax's get_num_ways_dim_sharded takes no subgroups but REPLICATED and UNREDUCED)"
                )));
            }
        })
    }

    /// jax's `Sharding.shard_shape` (`_common_shard_shape`): the dimensions
    /// of the data each device holds, when the sharding splits every
    /// dimension evenly; `dims` itself for a sharding replicated, on one
    /// device, or unreduced. For uneven splits (which jax refuses) see
    /// [`device_slices`](Self::device_slices) and
    /// [`tile_shape_for_device`](Self::tile_shape_for_device).
    ///
    /// ```
    /// use xla_shape::sharding::HloSharding;
    /// let s: HloSharding = "{devices=[4,1,2]<=[8] last_tile_dim_replicate}".parse()?;
    /// assert_eq!(s.shard_shape(&[8, 6])?, [2, 6]);
    /// assert!(s.shard_shape(&[7, 6]).unwrap_err().message().contains(
    ///     "implies that array axis 0 is partitioned 4 times, but the dimension size is 7"));
    /// # Ok::<(), xla_shape::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// jax's `IndivisibleError` message when a dimension does not divide
    /// evenly; when the sharding splits another number of dimensions than
    /// `dims` has; as [`num_ways_dim_sharded`](Self::num_ways_dim_sharded).
    #[doc(alias = "_common_shard_shape")]
    pub fn shard_shape(&self, dims: &[i64]) -> Result<Vec<i64>> {
        let v2 = self.to_v2()?;
        // jax's `is_hlo_sharding_replicated`: one device, or replicated.
        if !v2.is_tuple() && (v2.num_devices()? == 1 || v2.is_replicated() || v2.is_unreduced()) {
            return Ok(dims.to_vec());
        }
        let (partitions, _) = v2.num_ways_dim_sharded()?;
        if partitions.len() != dims.len() {
            return Err(Error::invalid_argument(format!(
                "the sharding {self} splits {} dimensions; the shape has {}",
                partitions.len(),
                dims.len()
            )));
        }
        let list = |v: &[i64]| join(v, ", ");
        // A Python tuple: `(7,)` for one element.
        let tuple = match dims {
            [d] => format!("({d},)"),
            _ => format!("({})", list(dims)),
        };
        dims.iter()
            .zip(&partitions)
            .enumerate()
            .map(|(axis, (&size, &ways))| {
                if ways > 0 && size % ways == 0 {
                    return Ok(size / ways);
                }
                Err(Error::invalid_argument(format!(
                    "Sharding {self} implies that array axis {axis} is partitioned {ways} times, but the dimension size is {size} (full shape: {tuple}, per-dimension tiling factors: [{}] should evenly divide the shape)",
                    list(&partitions)
                )))
            })
            .collect()
    }

    /// The groups of devices that hold the same data: the devices along the
    /// replication dimension for each tile (XLA's
    /// `GetPartitionGroupsForReplication` over that dimension), in
    /// row-major order of the other dimensions. Each device is its own
    /// group when nothing replicates; a maximal sharding is one group.
    ///
    /// ```
    /// use xla_shape::sharding::HloSharding;
    /// let s: HloSharding = "{devices=[2,2]<=[2,2]T(1,0) last_tile_dim_replicate}".parse()?;
    /// assert_eq!(s.replica_groups()?, [vec![0, 2], vec![1, 3]]);
    /// # Ok::<(), xla_shape::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// For shardings that do not tile, and when the devices cannot be
    /// listed.
    pub fn replica_groups(&self) -> Result<Vec<Vec<i64>>> {
        if self.is_tuple() {
            return Err(not_for("replica_groups", self));
        }
        let v2 = self.leaf_v2()?;
        let t = match &v2.kind {
            Kind::Maximal(d) => return Ok(vec![vec![*d]]),
            Kind::Tiled(t) => t,
            _ => return Err(not_for("replica_groups", self)),
        };
        let ta = &t.tile_assignment;
        super::tile_assignment::check_listable(ta.num_elements())?;
        let replication = v2.subgroup_replication_dim();
        let mut groups: BTreeMap<Vec<i64>, Vec<i64>> = BTreeMap::new();
        ta.each(|index, device| {
            let mut key = index.to_vec();
            if let Some(r) = replication {
                key.remove(r);
            }
            groups.entry(key).or_default().push(device);
        })?;
        Ok(groups.into_values().collect())
    }

    /// The bytes each device holds of `shape` after SPMD partitioning: the
    /// size of the [`tile_shape`](Self::tile_shape) in its layout, tiles
    /// and padding included (`tiling::TiledLayout::byte_size`).
    ///
    /// # Errors
    ///
    /// As [`tile_shape`](Self::tile_shape); when the layout cannot be
    /// applied.
    pub fn shard_byte_size(&self, shape: &Shape) -> Result<i64> {
        let tile = self.tile_shape(shape)?;
        let array = array_of(&tile)?;
        Ok(TiledLayout::new(array)?.byte_size())
    }
}

fn array_of(shape: &Shape) -> Result<&ArrayShape> {
    shape.as_array().ok_or_else(|| {
        Error::invalid_argument(format!(
            "per-device shapes are defined for arrays, not {shape}"
        ))
    })
}

/// The whole array of dimensions `dims` on each of devices
/// `0..num_devices` (none for a negative count).
fn whole_on(dims: &[i64], num_devices: i64) -> Result<Vec<DeviceSlice>> {
    super::tile_assignment::check_listable(num_devices)?;
    Ok((0..num_devices.max(0))
        .map(|device| DeviceSlice {
            device,
            offsets: vec![0; dims.len()],
            limits: dims.to_vec(),
        })
        .collect())
}

fn with_dimensions(array: &ArrayShape, dims: Vec<i64>) -> Result<Shape> {
    ArrayShape::from_parts(
        array.element_type(),
        dims,
        array.dynamic_dimensions().to_vec(),
        array.layout().cloned(),
    )
    .map(Shape::from)
}

fn slice_of(device: i64, index: &[i64], sizes: &[i64], dims: &[i64]) -> DeviceSlice {
    let mut offsets = Vec::with_capacity(dims.len());
    let mut limits = Vec::with_capacity(dims.len());
    for ((&i, &size), &n) in index.iter().zip(sizes).zip(dims) {
        offsets.push(i.saturating_mul(size).min(n));
        limits.push(i.saturating_add(1).saturating_mul(size).min(n));
    }
    DeviceSlice {
        device,
        offsets,
        limits,
    }
}
