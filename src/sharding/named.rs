//! The named form of a sharding ("HloShardingV3"): XLA's `NamedSharding`,
//! `Mesh` and `AxisRef` (`xla/hlo/ir/named_sharding.{h,cc}`,
//! `xla/hlo/ir/mesh_and_axis.{h,cc}`), written
//! `{mesh['x'=2,'y'=4], [{'x'}, {}], replicated={'y'}}`, and its conversion
//! to the tiled form (`HloSharding::V3ToV2Sharding`).

use std::collections::HashMap;
use std::fmt;

use crate::error::{Error, Result};
use crate::proto::OpMetadata;
use crate::proto::op_sharding::Type;

use super::strings::write_axis_list;
use super::tile_assignment::{TileAssignment, checked_product, product};
use super::{HloSharding, construct};
use crate::model::join;

/// How a mesh numbers its devices.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum MeshDevices {
    /// `0, 1, 2, ...` in row-major order of the axes (nothing printed).
    Iota,
    /// An iota reshaped and transposed, `device_ids=([r...]T(p...))`,
    /// in XLA's canonical form (never a plain iota).
    IotaTransposed {
        /// The dimensions the iota is reshaped to.
        reshape_dims: Vec<i64>,
        /// The permutation applied to them.
        transpose_perm: Vec<i64>,
    },
    /// An explicit list, `device_ids=(3,2,1,0)`.
    List(Vec<i64>),
}

/// A mesh of devices with named axes (XLA's `Mesh`): `mesh['x'=2,'y'=4]`,
/// possibly with its device order, or `maximal_mesh[device_id=N]`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Mesh {
    axes: Vec<(String, i64)>,
    devices: MeshDevices,
    maximal: Option<i64>,
}

/// One mesh axis, or a part of one, that a dimension is sharded over
/// (XLA's `AxisRef`): axis `index`, or its sub-axis of `size` devices after
/// `pre_size` (`'x':(2)4`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AxisRef {
    index: i64,
    sub: Option<(i64, i64)>,
}

/// The axes one array dimension is sharded over, major to minor, and
/// whether propagation may add more (`?`, open) (XLA's
/// `NamedSharding::DimensionSharding`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DimensionSharding {
    axes: Vec<AxisRef>,
    closed: bool,
}

/// A sharding in named form (XLA's `NamedSharding`): a mesh, the axes each
/// dimension is sharded over, and the axes over which the array is
/// replicated, unreduced or manual.
#[derive(Clone, Debug)]
pub struct NamedSharding {
    pub(crate) mesh: Mesh,
    pub(crate) dims: Vec<DimensionSharding>,
    pub(crate) replicated: Vec<AxisRef>,
    pub(crate) unreduced: Vec<AxisRef>,
    pub(crate) manual: Vec<AxisRef>,
    pub(crate) metadata: Vec<OpMetadata>,
}

impl PartialEq for NamedSharding {
    /// XLA's `NamedSharding::operator==`: the meshes' device assignments
    /// (not their axis names), the dimension shardings and the axes; not
    /// the metadata.
    fn eq(&self, other: &Self) -> bool {
        self.mesh.device_assignment() == other.mesh.device_assignment()
            && self.dims == other.dims
            && self.replicated == other.replicated
            && self.unreduced == other.unreduced
            && self.manual == other.manual
    }
}

impl Eq for NamedSharding {}

impl Mesh {
    /// A mesh of named axes whose devices are `0, 1, ...` in row-major
    /// order (XLA's `Mesh(axis_sizes, axis_names)`).
    ///
    /// # Errors
    ///
    /// XLA's `ValidateMesh` messages: duplicate axis names.
    pub fn new(axes: Vec<(String, i64)>) -> Result<Self> {
        Mesh::with_devices(axes, MeshDevices::Iota)
    }

    /// A mesh with its device order.
    ///
    /// # Errors
    ///
    /// XLA's `ValidateMesh` messages (duplicate axis names; a device list
    /// that is not a permutation of `0..n`, or is the identity), and a
    /// device list or iota whose size is not the mesh's.
    pub fn with_devices(axes: Vec<(String, i64)>, devices: MeshDevices) -> Result<Self> {
        let devices = match devices {
            MeshDevices::IotaTransposed {
                reshape_dims,
                transpose_perm,
            } => {
                let t = TileAssignment::iota(&[], &reshape_dims, &transpose_perm);
                let (r, p) = t.iota_parts().unwrap_or((&[], &[]));
                if r.len() <= 1 {
                    MeshDevices::Iota
                } else {
                    MeshDevices::IotaTransposed {
                        reshape_dims: r.to_vec(),
                        transpose_perm: p.to_vec(),
                    }
                }
            }
            d => d,
        };
        let mesh = Mesh {
            axes,
            devices,
            maximal: None,
        };
        mesh.validate()?;
        Ok(mesh)
    }

    /// `maximal_mesh[device_id=N]`: the mesh of one device (XLA's
    /// `Mesh(device_id)`).
    pub fn maximal(device: i64) -> Self {
        Mesh {
            axes: Vec::new(),
            devices: MeshDevices::Iota,
            maximal: Some(device),
        }
    }

    /// XLA's `ValidateMesh`, as jaxlib 0.10.2 has it.
    fn validate(&self) -> Result<()> {
        let mut seen = std::collections::HashSet::new();
        for (name, _) in &self.axes {
            if !seen.insert(name.as_str()) {
                return Err(Error::invalid_argument(format!(
                    "Mesh has duplicate axis names. Duplicate axis name: {name}"
                )));
            }
        }
        let sizes: Vec<i64> = self.axis_sizes();
        match &self.devices {
            MeshDevices::Iota => Ok(()),
            MeshDevices::IotaTransposed { reshape_dims, .. } => {
                if product(reshape_dims) != product(&sizes) {
                    return Err(Error::invalid_argument(format!(
                        "mesh device_ids iota size {} does not match the product of the mesh axis sizes {}",
                        product(reshape_dims),
                        product(&sizes)
                    )));
                }
                Ok(())
            }
            MeshDevices::List(ids) => {
                let n = checked_product(&sizes);
                if n != Some(ids.len() as i64) {
                    return Err(Error::invalid_argument(format!(
                        "Expected {} device_ids based on mesh axes, but got {}",
                        product(&sizes),
                        ids.len()
                    )));
                }
                if let Some(&d) = ids.iter().find(|&&d| d < 0) {
                    return Err(Error::invalid_argument(format!(
                        "Mesh device ids must be non-negative. Device id: {d}"
                    )));
                }
                if ids.iter().enumerate().all(|(i, &d)| d == i as i64) {
                    return Err(Error::invalid_argument(
                        "Non-iota device assignment has iota device id list [0,1,2,3...].",
                    ));
                }
                let mut sorted = ids.clone();
                sorted.sort_unstable();
                if sorted.iter().enumerate().any(|(i, &d)| d != i as i64) {
                    return Err(Error::invalid_argument(
                        "Device ids must be a permutation of [0,1,2,3...].",
                    ));
                }
                Ok(())
            }
        }
    }

    /// The axes, name and size, in order.
    pub fn axes(&self) -> &[(String, i64)] {
        &self.axes
    }

    /// The number of axes.
    pub fn num_axes(&self) -> usize {
        self.axes.len()
    }

    /// The axis sizes.
    pub fn axis_sizes(&self) -> Vec<i64> {
        self.axes.iter().map(|a| a.1).collect()
    }

    /// The size of axis `i`.
    fn axis_size(&self, i: i64) -> i64 {
        usize::try_from(i)
            .ok()
            .and_then(|i| self.axes.get(i))
            .map_or(0, |a| a.1)
    }

    /// How the devices are ordered.
    pub fn devices(&self) -> &MeshDevices {
        &self.devices
    }

    /// The device of a maximal mesh.
    pub fn maximal_device(&self) -> Option<i64> {
        self.maximal
    }

    /// Whether this is `maximal_mesh[...]` (XLA's `Mesh::IsMaximal`).
    pub fn is_maximal(&self) -> bool {
        self.maximal.is_some()
    }

    /// The number of devices (XLA's `num_elements()` of its device
    /// assignment): the product of the axis sizes; 1 for a maximal mesh, 0
    /// for `mesh[]`.
    pub fn num_devices(&self) -> i64 {
        if self.maximal.is_some() {
            1
        } else if self.axes.is_empty() {
            0
        } else {
            product(&self.axis_sizes())
        }
    }

    /// The devices as an array over the axes (XLA's `device_assignment()`).
    pub fn device_assignment(&self) -> TileAssignment {
        if let Some(d) = self.maximal {
            return TileAssignment::list(vec![1], vec![d]);
        }
        let sizes = self.axis_sizes();
        if sizes.is_empty() {
            return TileAssignment::list(vec![0], Vec::new());
        }
        match &self.devices {
            MeshDevices::Iota => TileAssignment::iota_of(&sizes),
            MeshDevices::IotaTransposed {
                reshape_dims,
                transpose_perm,
            } => TileAssignment::iota(&sizes, reshape_dims, transpose_perm),
            MeshDevices::List(ids) => TileAssignment::list(sizes, ids.clone()),
        }
    }

    /// The axis numbers by name, for looking up many names (the first
    /// axis of a name, as XLA's `flat_hash_map` fill keeps the last: names
    /// are unique in a valid mesh).
    pub(crate) fn axis_numbers(&self) -> HashMap<&str, i64> {
        let mut out = HashMap::with_capacity(self.axes.len());
        for (i, (name, _)) in self.axes.iter().enumerate() {
            out.entry(name.as_str()).or_insert(i as i64);
        }
        out
    }

    /// The index of the axis named `name` (looked up in `numbers`, the
    /// mesh's [`axis_numbers`](Self::axis_numbers)), or the axis `name`
    /// numbers.
    pub(crate) fn find_axis(&self, numbers: &HashMap<&str, i64>, name: &str) -> Result<i64> {
        if let Some(&i) = numbers.get(name) {
            return Ok(i);
        }
        match name.parse::<i64>() {
            Ok(i) if i >= 0 && (i as usize) < self.axes.len() => Ok(i),
            Ok(i) => Err(Error::invalid_argument(format!(
                "axis index {i} is out of bounds for mesh {self} which has {} axes",
                self.axes.len()
            ))),
            Err(_) => Err(Error::invalid_argument(format!(
                "axis '{name}' is not a valid axis name or index in mesh {self}"
            ))),
        }
    }
}

impl fmt::Display for Mesh {
    /// XLA's `Mesh::ToString` as jaxlib 0.10.2 prints it:
    /// `mesh['x'=2,'y'=4]`, `mesh['x'=4], device_ids=([2,2]T(1,0))`,
    /// `maximal_mesh[device_id=3]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(d) = self.maximal {
            return write!(f, "maximal_mesh[device_id={d}]");
        }
        f.write_str("mesh[")?;
        for (i, (name, size)) in self.axes.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "'{name}'={size}")?;
        }
        f.write_str("]")?;
        match &self.devices {
            MeshDevices::Iota => Ok(()),
            MeshDevices::IotaTransposed {
                reshape_dims,
                transpose_perm,
            } => write!(
                f,
                ", device_ids=([{}]T({}))",
                join(reshape_dims, ","),
                join(transpose_perm, ",")
            ),
            MeshDevices::List(ids) => write!(f, ", device_ids=({})", join(ids, ",")),
        }
    }
}

impl AxisRef {
    /// The whole of mesh axis `index`.
    pub fn new(index: i64) -> Self {
        AxisRef { index, sub: None }
    }

    /// The sub-axis of `size` devices after `pre_size` of mesh axis `index`
    /// (XLA's `AxisRef(index, {pre_size, size})`).
    ///
    /// # Errors
    ///
    /// XLA's `CHECK`s: `pre_size` at least 1, `size` at least 2.
    pub fn sub_axis(index: i64, pre_size: i64, size: i64) -> Result<Self> {
        if pre_size <= 0 {
            return Err(Error::invalid_argument("sub-axis pre-size must be >= 1"));
        }
        if size <= 1 {
            return Err(Error::invalid_argument("sub-axis size must be > 1"));
        }
        Ok(AxisRef {
            index,
            sub: Some((pre_size, size)),
        })
    }

    /// The mesh axis index.
    pub fn index(&self) -> i64 {
        self.index
    }

    /// `(pre_size, size)` of a sub-axis.
    pub fn sub_axis_info(&self) -> Option<(i64, i64)> {
        self.sub
    }

    /// The number of devices along this axis (XLA's `AxisRef::size`).
    pub fn size(&self, mesh: &Mesh) -> i64 {
        match self.sub {
            Some((_, size)) => size,
            None => mesh.axis_size(self.index),
        }
    }

    fn pre_size(&self) -> i64 {
        self.sub.map_or(1, |s| s.0)
    }

    fn next_pre_size(&self) -> i64 {
        self.sub.map_or(1, |(p, s)| p.wrapping_mul(s))
    }

    /// XLA's `AxisRef::Validate`.
    fn validate(&self, mesh: &Mesh) -> Result<()> {
        if self.index < 0 || self.index as usize >= mesh.num_axes() {
            return Err(Error::invalid_argument(format!(
                "Axis index must be less than number of axes. Axis index: {}, Number of axes: {}",
                self.index,
                mesh.num_axes()
            )));
        }
        let Some((_, size)) = self.sub else {
            return Ok(());
        };
        let axis_size = mesh.axis_size(self.index);
        let next = self.next_pre_size();
        if next == 0 || axis_size % next != 0 {
            return Err(Error::invalid_argument(format!(
                "Sub-axis next_pre_size must divide the full axis size. Next pre-size: {next}, Axis size: {axis_size}"
            )));
        }
        if size >= axis_size {
            return Err(Error::invalid_argument(format!(
                "Sub-axis size must be strictly less than the full axis size. Sub-axis size: {size}, Axis size: {axis_size}"
            )));
        }
        Ok(())
    }

    /// XLA's `CanCoexistWithoutOverlap`.
    fn can_coexist_without_overlap(&self, other: &AxisRef) -> bool {
        if self.index != other.index {
            return true;
        }
        let (Some(_), Some(_)) = (self.sub, other.sub) else {
            return false;
        };
        let (a, b) = (self.pre_size(), other.pre_size());
        let (an, bn) = (self.next_pre_size(), other.next_pre_size());
        if an > b && bn > a {
            return false;
        }
        let max_pre = a.max(b);
        let min_next = an.min(bn);
        min_next != 0 && max_pre % min_next == 0
    }

    /// XLA's `CanMerge`.
    fn can_merge(&self, other: &AxisRef) -> bool {
        self.index == other.index
            && self.sub.is_some()
            && other.sub.is_some()
            && self.next_pre_size() == other.pre_size()
    }

    /// XLA's `AxisRef::ToString(&mesh)`: the quoted axis name, and
    /// `:(pre)size` for a sub-axis.
    pub(crate) fn fmt_in(&self, mesh: &Mesh, f: &mut impl fmt::Write) -> fmt::Result {
        let name = usize::try_from(self.index)
            .ok()
            .and_then(|i| mesh.axes.get(i))
            .map(|a| a.0.as_str());
        match name {
            Some(n) => write!(f, "'{n}'")?,
            None => write!(f, "{}", self.index)?,
        }
        if let Some((p, s)) = self.sub {
            write!(f, ":({p}){s}")?;
        }
        Ok(())
    }
}

impl DimensionSharding {
    /// The axes one dimension is sharded over, and whether it is closed.
    pub fn new(axes: Vec<AxisRef>, closed: bool) -> Self {
        DimensionSharding { axes, closed }
    }

    /// The axes, major to minor.
    pub fn axes(&self) -> &[AxisRef] {
        &self.axes
    }

    /// Whether propagation may not add axes (no `?`).
    pub fn is_closed(&self) -> bool {
        self.closed
    }

    /// The number of shards (XLA's `getShardedSize`).
    pub fn sharded_size(&self, mesh: &Mesh) -> i64 {
        self.axes
            .iter()
            .fold(1i64, |p, a| p.wrapping_mul(a.size(mesh)))
    }
}

fn axes_sorted(axes: &[AxisRef], mesh: &Mesh) -> bool {
    axes.windows(2).all(|w| {
        let (a, b) = (&w[0], &w[1]);
        // XLA's `CompareAxisRefs(b, a)` must be false.
        let less = if b.index != a.index {
            b.index < a.index
        } else if b.pre_size() != a.pre_size() {
            b.pre_size() < a.pre_size()
        } else {
            b.size(mesh) < a.size(mesh)
        };
        !less
    })
}

impl NamedSharding {
    /// A named sharding (XLA's `NamedSharding` constructor, whose
    /// `VerifyNamedSharding` it runs).
    ///
    /// # Errors
    ///
    /// XLA's `VerifyNamedSharding` messages (XLA aborts on them).
    pub fn new(
        mesh: Mesh,
        dims: Vec<DimensionSharding>,
        replicated: Vec<AxisRef>,
        unreduced: Vec<AxisRef>,
        manual: Vec<AxisRef>,
    ) -> Result<Self> {
        let s = NamedSharding {
            mesh,
            dims,
            replicated,
            unreduced,
            manual,
            metadata: Vec::new(),
        };
        s.verify()?;
        Ok(s)
    }

    /// XLA's `VerifyNamedSharding`.
    fn verify(&self) -> Result<()> {
        let mesh = &self.mesh;
        let mut seen: HashMap<i64, Vec<AxisRef>> = HashMap::new();
        let track = |axis: &AxisRef, seen: &mut HashMap<i64, Vec<AxisRef>>| -> Result<()> {
            axis.validate(mesh)?;
            let on_dim = seen.entry(axis.index).or_default();
            if on_dim.iter().any(|o| !axis.can_coexist_without_overlap(o)) {
                return Err(Error::invalid_argument(
                    "Axes cannot coexist or axes overlap.",
                ));
            }
            on_dim.push(*axis);
            Ok(())
        };
        let mergeable = |what: &str, a: &AxisRef, b: &AxisRef| {
            let mut s = format!("Adjacent axes in {what} can be merged: ");
            let _ = a.fmt_in(mesh, &mut s);
            s.push_str(", ");
            let _ = b.fmt_in(mesh, &mut s);
            Error::invalid_argument(s)
        };
        for d in &self.dims {
            for (i, a) in d.axes.iter().enumerate() {
                track(a, &mut seen)?;
                if i > 0 && d.axes[i - 1].can_merge(a) {
                    return Err(mergeable("dimension sharding", &d.axes[i - 1], a));
                }
            }
        }
        for (name, axes) in [
            ("Replicated", &self.replicated),
            ("Unreduced", &self.unreduced),
            ("Manual", &self.manual),
        ] {
            if !axes_sorted(axes, mesh) {
                return Err(Error::invalid_argument(format!(
                    "{name} axes must be sorted by mesh axis index and sub-axis pre-size."
                )));
            }
            for (i, a) in axes.iter().enumerate() {
                track(a, &mut seen)?;
                if i > 0 && axes[i - 1].can_merge(a) {
                    return Err(mergeable(&format!("{name} axes"), &axes[i - 1], a));
                }
            }
        }
        Ok(())
    }

    /// The mesh.
    pub fn mesh(&self) -> &Mesh {
        &self.mesh
    }

    /// The sharding of each dimension.
    pub fn dim_shardings(&self) -> &[DimensionSharding] {
        &self.dims
    }

    /// The axes over which the array is explicitly replicated.
    pub fn replicated_axes(&self) -> &[AxisRef] {
        &self.replicated
    }

    /// The axes over which the array is unreduced.
    pub fn unreduced_axes(&self) -> &[AxisRef] {
        &self.unreduced
    }

    /// The axes over which the array is manual.
    pub fn manual_axes(&self) -> &[AxisRef] {
        &self.manual
    }

    /// The metadata.
    pub fn metadata(&self) -> &[OpMetadata] {
        &self.metadata
    }

    /// The number of devices along `axes`.
    fn size_of(&self, axes: &[AxisRef]) -> i64 {
        axes.iter()
            .fold(1i64, |p, a| p.wrapping_mul(a.size(&self.mesh)))
    }

    /// Whether no dimension is split (jaxlib 0.10.2 counts a dimension
    /// over axes of size one as not split).
    fn no_dim_split(&self) -> bool {
        self.dims.iter().all(|d| d.sharded_size(&self.mesh) == 1)
    }

    /// XLA's `NamedSharding::IsMaximal`.
    pub fn is_maximal(&self) -> bool {
        self.mesh.is_maximal()
    }

    pub(crate) fn maximal_device(&self) -> Option<i64> {
        self.mesh.maximal
    }

    /// XLA's `NamedSharding::IsReplicated` as jaxlib 0.10.2 answers it: no
    /// dimension split (axes of size one split nothing), no unreduced or
    /// manual axes.
    pub fn is_replicated(&self) -> bool {
        !self.is_maximal()
            && self.no_dim_split()
            && self.unreduced.is_empty()
            && self.manual.is_empty()
    }

    /// XLA's `NamedSharding::IsManual` as jaxlib 0.10.2 answers it: manual
    /// axes spanning every device, no dimension split, no unreduced axes
    /// and no replicated axis of more than one device.
    pub fn is_manual(&self) -> bool {
        !self.is_maximal()
            && self.no_dim_split()
            && self.size_of(&self.replicated) == 1
            && self.unreduced.is_empty()
            && !self.manual.is_empty()
            && self.size_of(&self.manual) == self.mesh.num_devices()
    }

    /// XLA's `NamedSharding::IsUnreduced` as jaxlib 0.10.2 answers it.
    pub fn is_unreduced(&self) -> bool {
        !self.is_maximal()
            && self.no_dim_split()
            && self.size_of(&self.replicated) == 1
            && self.manual.is_empty()
            && !self.unreduced.is_empty()
            && self.size_of(&self.unreduced) == self.mesh.num_devices()
    }

    /// XLA's `NamedSharding::IsTileMaximal`.
    pub fn is_tile_maximal(&self) -> bool {
        self.is_replicated() || self.is_maximal()
    }

    pub(crate) fn has_partial_replication(&self) -> bool {
        // XLA's `HasPartialReplication` of the named form: some axis is used
        // by no dimension and is not unreduced or manual.
        self.to_v2().is_ok_and(|s| s.has_partial_replication())
    }

    /// XLA's `GetOrderedAxisRefs`: every mesh axis, split at every sub-axis
    /// boundary the sharding uses.
    fn ordered_axis_refs(&self) -> Vec<AxisRef> {
        let mut pre_sizes: Vec<Vec<i64>> = self.mesh.axes.iter().map(|a| vec![1, a.1]).collect();
        let all = self
            .dims
            .iter()
            .flat_map(|d| d.axes.iter())
            .chain(&self.replicated)
            .chain(&self.unreduced)
            .chain(&self.manual);
        for a in all {
            if a.sub.is_some()
                && let Some(p) = usize::try_from(a.index)
                    .ok()
                    .and_then(|i| pre_sizes.get_mut(i))
            {
                p.push(a.pre_size());
                p.push(a.next_pre_size());
            }
        }
        let mut out = Vec::new();
        for (i, p) in pre_sizes.iter_mut().enumerate() {
            p.sort_unstable();
            p.dedup();
            if p.len() == 2 {
                out.push(AxisRef::new(i as i64));
                continue;
            }
            for w in p.windows(2) {
                out.push(AxisRef {
                    index: i as i64,
                    sub: Some((w[0], if w[0] == 0 { 0 } else { w[1] / w[0] })),
                });
            }
        }
        out
    }

    /// The tiled form (XLA's `HloSharding::V3ToV2Sharding`).
    pub(crate) fn to_v2(&self) -> Result<HloSharding> {
        let mesh = &self.mesh;
        let metadata = self.metadata.clone();
        if self.is_replicated() {
            return Ok(HloSharding::replicate().with_metadata(metadata));
        }
        if let Some(d) = mesh.maximal {
            return Ok(HloSharding::assign_device(d).with_metadata(metadata));
        }
        let mut tile_dims: Vec<i64> = Vec::new();
        let mut sharded_pos: HashMap<AxisRef, usize> = HashMap::new();
        let mut pos = 0usize;
        // An axis of size one holds nothing: XLA's `GetOrderedAxisRefs`
        // leaves it out of the mesh's axes, so it takes no position.
        for d in &self.dims {
            tile_dims.push(d.sharded_size(mesh));
            for a in d.axes.iter().filter(|a| a.size(mesh) != 1) {
                sharded_pos.insert(*a, pos);
                pos += 1;
            }
        }
        let mut types = Vec::new();
        for (axes, t) in [
            (&self.manual, Type::Manual),
            (&self.unreduced, Type::Unreduced),
        ] {
            if axes.is_empty() {
                continue;
            }
            types.push(t);
            let mut size = 1i64;
            for a in axes.iter() {
                size = size.wrapping_mul(a.size(mesh));
                if a.size(mesh) != 1 {
                    sharded_pos.insert(*a, pos);
                    pos += 1;
                }
            }
            tile_dims.push(size);
        }
        let refs = self.ordered_axis_refs();
        let mut reshape_dims = Vec::with_capacity(refs.len());
        let mut perm = vec![0i64; refs.len()];
        let mut replicated_size = 1i64;
        let mut replicated_pos = pos;
        for (i, a) in refs.iter().enumerate() {
            reshape_dims.push(a.size(mesh));
            let slot = match sharded_pos.get(a) {
                Some(&p) => p,
                None => {
                    replicated_size = replicated_size.wrapping_mul(a.size(mesh));
                    replicated_pos += 1;
                    replicated_pos - 1
                }
            };
            match perm.get_mut(slot) {
                Some(p) => *p = i as i64,
                None => {
                    return Err(Error::invalid_argument(format!(
                        "named sharding {self} uses axes that do not partition its mesh"
                    )));
                }
            }
        }
        if replicated_size > 1 {
            tile_dims.push(replicated_size);
            types.push(Type::Replicated);
        }
        let ta = match &mesh.devices {
            MeshDevices::Iota => TileAssignment::iota(&tile_dims, &reshape_dims, &perm),
            _ => {
                let perm: Vec<usize> = perm.iter().map(|&p| p as usize).collect();
                mesh.device_assignment()
                    .reshape(reshape_dims)
                    .transpose(&perm)?
                    .reshape(tile_dims)
            }
        };
        construct::subgroup(ta, &types, metadata)
    }

    /// XLA's `NamedSharding::ToString(include_metadata)` as jaxlib 0.10.2
    /// prints it.
    pub(crate) fn fmt_with(&self, f: &mut impl fmt::Write, include_metadata: bool) -> fmt::Result {
        write!(f, "{{{}", self.mesh)?;
        let metadata = |f: &mut dyn fmt::Write| -> fmt::Result {
            if include_metadata && !self.metadata.is_empty() {
                f.write_str(", metadata={")?;
                for (i, m) in self.metadata.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    f.write_str("{")?;
                    super::strings::write_metadata(f, m)?;
                    f.write_str("}")?;
                }
                f.write_str("}")?;
            }
            Ok(())
        };
        let no_axes =
            self.replicated.is_empty() && self.unreduced.is_empty() && self.manual.is_empty();
        if self.mesh.is_maximal() {
            metadata(f)?;
            return f.write_str("}");
        }
        if self.dims.is_empty() {
            let special = if no_axes {
                Some("replicated")
            } else if self.is_unreduced() {
                Some("unreduced")
            } else if self.is_manual() {
                Some("manual")
            } else {
                None
            };
            if let Some(word) = special {
                write!(f, ", {word}")?;
                metadata(f)?;
                return f.write_str("}");
            }
        }
        f.write_str(", [")?;
        for (i, d) in self.dims.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write_axis_list(f, &d.axes, !d.closed, |f, a| a.fmt_in(&self.mesh, f))?;
        }
        f.write_str("]")?;
        for (name, axes) in [
            ("replicated", &self.replicated),
            ("unreduced", &self.unreduced),
            ("manual", &self.manual),
        ] {
            if axes.is_empty() {
                continue;
            }
            write!(f, ", {name}=")?;
            write_axis_list(f, axes, false, |f, a| a.fmt_in(&self.mesh, f))?;
        }
        metadata(f)?;
        f.write_str("}")
    }
}

impl fmt::Display for NamedSharding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.fmt_with(f, false)
    }
}
