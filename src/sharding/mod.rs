//! Sharding as XLA has it: `HloSharding` (`xla/hlo/ir/hlo_sharding.{h,cc}`)
//! with its text, its `OpSharding` bytes, its validation, the shapes and
//! index ranges each device holds, and Shardy's `#sdy.sharding`.
//!
//! - [`HloSharding`]: replicated, maximal (one device), manual, unknown,
//!   unreduced, tiled (an explicit device list or an iota
//!   [`TileAssignment`], with a replicated last dimension or subgroups),
//!   the named form ([`NamedSharding`] over a [`Mesh`]), and tuples of
//!   them; with metadata and shard groups. Built the way XLA builds it, so
//!   that every value is in XLA's canonical form.
//! - Text: `str::parse` is the HLO parser's `ParseSharding`, `Display`
//!   is `HloSharding::ToString` (and [`HloSharding::to_string_with_metadata`]
//!   its `include_metadata` form), byte for byte.
//! - Bytes: [`HloSharding::from_proto_bytes`] / [`HloSharding::to_proto_bytes`]
//!   are `FromProto` / `ToProto` over the `OpSharding` of
//!   `xla/xla_data.proto`; `TryFrom<&OpSharding>` and
//!   [`HloSharding::to_proto`] the same over the generated message.
//! - [`HloSharding::validate`]: XLA's `Validate` against a shape and a
//!   device count, with XLA's messages.
//! - Per device: [`HloSharding::tile_shape`], [`HloSharding::tile_offset_for_device`],
//!   [`HloSharding::tile_limit_for_device`], [`HloSharding::device_slices`]
//!   (every device's [`DeviceSlice`], uneven splits cut as XLA cuts them),
//!   [`HloSharding::devices_indices_map`] and [`HloSharding::shard_shape`]
//!   (jax's), [`HloSharding::replica_groups`],
//!   [`HloSharding::shard_byte_size`].
//! - Modules: [`crate::hlo::HloInstruction::sharding`] holds each
//!   instruction's sharding, from text and from `.pb` modules.
//! - [`shardy`]: `#sdy.sharding<@mesh, [...]>` with its `sdy.mesh`, to and
//!   from `HloSharding` as XLA's Shardy export and import convert them.
//!
//! ```
//! use xla_shape::sharding::HloSharding;
//! let s: HloSharding = "{devices=[2,1,2]<=[4] last_tile_dim_replicate}".parse()?;
//! assert_eq!(s.to_string(), "{devices=[2,1,2]<=[4] last_tile_dim_replicate}");
//! assert_eq!(hex(&s.to_proto_bytes()), "08031a0302010230014a0104520100");
//! assert_eq!(s.num_devices()?, 4);
//! // Device 2 holds rows 4..8 of an f32[8,3].
//! let shape = "f32[8,3]".parse()?;
//! assert_eq!(s.tile_offset_for_device(&shape, 2)?, [4, 0]);
//! assert_eq!(s.tile_limit_for_device(&shape, 2)?, [8, 3]);
//! # fn hex(b: &[u8]) -> String { b.iter().map(|b| format!("{b:02x}")).collect() }
//! # Ok::<(), xla_shape::Error>(())
//! ```
//!
//! Where XLA aborts (a `CHECK` on input it did not validate), this module
//! returns an error; the deliberate differences are in
//! `docs/differences.md` ("Sharding").

mod construct;
mod device;
mod named;
pub mod shardy;
mod strings;
mod text;
mod tile_assignment;
mod validate;
mod wire;

pub(crate) use text::parse_sharding_at;

pub use device::DeviceSlice;
pub use named::{AxisRef, DimensionSharding, Mesh, MeshDevices, NamedSharding};
pub(crate) use strings::unescape_mlir;
pub use tile_assignment::{MAX_LISTED_DEVICES, TileAssignment};

use crate::error::{Error, Result};
use crate::proto::OpMetadata;
pub use crate::proto::op_sharding::Type as OpShardingType;

/// A shard group: instructions whose shardings XLA's propagation keeps the
/// same (`shard_as N`) or alike (`shard_like N`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShardGroup {
    /// `shard_as N`: the members end with the same sharding.
    As(i64),
    /// `shard_like N`: the members are sharded alike where they can be.
    Like(i64),
}

impl ShardGroup {
    /// The group's id.
    pub fn id(self) -> i64 {
        match self {
            ShardGroup::As(id) | ShardGroup::Like(id) => id,
        }
    }
}

/// A tiled sharding's device array and how its trailing dimensions are
/// read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Tiled {
    pub(crate) tile_assignment: TileAssignment,
    pub(crate) replicate_on_last_tile_dim: bool,
    pub(crate) subgroup_types: Vec<OpShardingType>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Replicated,
    Manual,
    Unknown,
    Unreduced,
    Maximal(i64),
    Tiled(Tiled),
    Named(Box<NamedSharding>),
    Tuple(Vec<HloSharding>),
}

/// How an array (or each leaf of a tuple) is laid out across devices:
/// XLA's `HloSharding`.
///
/// Values are always in the form XLA builds: parsing `{devices=[2,2,1]<=[4]
/// last_tile_dim_replicate}` gives `{devices=[2,2]<=[4]}`, as XLA's
/// `PartialTile` does. Equality is XLA's `operator==` on that form (an iota
/// and an explicit list of the same devices are equal; the named form is
/// compared as it is written).
#[derive(Clone, Debug)]
pub struct HloSharding {
    pub(crate) kind: Kind,
    pub(crate) metadata: Vec<OpMetadata>,
    pub(crate) shard_group: Option<ShardGroup>,
}

impl PartialEq for HloSharding {
    /// XLA's `HloSharding::operator==`: the kind, the tile assignment and
    /// subgroups, the tuple elements and the shard group; not the metadata.
    fn eq(&self, other: &Self) -> bool {
        self.kind == other.kind && self.shard_group == other.shard_group
    }
}

impl Eq for HloSharding {}

impl std::hash::Hash for HloSharding {
    /// Consistent with `==`: equal shardings hash equally (the tile
    /// assignment by its dimensions, the named form by its dimension
    /// shardings and axes), whatever their form.
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        std::mem::discriminant(&self.kind).hash(state);
        match &self.kind {
            Kind::Maximal(device) => device.hash(state),
            Kind::Tiled(t) => {
                t.tile_assignment.hash(state);
                t.replicate_on_last_tile_dim.hash(state);
                t.subgroup_types.hash(state);
            }
            Kind::Named(n) => {
                n.dims.hash(state);
                n.replicated.hash(state);
                n.unreduced.hash(state);
                n.manual.hash(state);
            }
            Kind::Tuple(elements) => elements.hash(state),
            Kind::Replicated | Kind::Manual | Kind::Unknown | Kind::Unreduced => {}
        }
        self.shard_group.hash(state);
    }
}

impl HloSharding {
    pub(crate) fn leaf(kind: Kind) -> Self {
        HloSharding {
            kind,
            metadata: Vec::new(),
            shard_group: None,
        }
    }

    /// `{replicated}`: every device holds the whole array (XLA's
    /// `HloSharding::Replicate`).
    #[doc(alias = "HloSharding::Replicate")]
    pub fn replicate() -> Self {
        HloSharding::leaf(Kind::Replicated)
    }

    /// `{manual}`: the array is partitioned by hand (XLA's `Manual`).
    #[doc(alias = "HloSharding::Manual")]
    pub fn manual() -> Self {
        HloSharding::leaf(Kind::Manual)
    }

    /// `{unknown}`: a placeholder for propagation to fill (XLA's `Unknown`).
    #[doc(alias = "HloSharding::Unknown")]
    pub fn unknown() -> Self {
        HloSharding::leaf(Kind::Unknown)
    }

    /// `{unreduced}`: each device holds a partial result still to be
    /// reduced (XLA's `Unreduced`).
    #[doc(alias = "HloSharding::Unreduced")]
    pub fn unreduced() -> Self {
        HloSharding::leaf(Kind::Unreduced)
    }

    /// `{maximal device=N}`: one device holds the whole array (XLA's
    /// `AssignDevice`).
    #[doc(alias = "HloSharding::AssignDevice")]
    pub fn assign_device(device: i64) -> Self {
        HloSharding::leaf(Kind::Maximal(device))
    }

    /// A tuple of shardings, one per leaf of a tuple shape in pre-order
    /// (XLA's `FlatTuple`).
    #[doc(alias = "HloSharding::FlatTuple")]
    pub fn tuple(elements: Vec<HloSharding>) -> Self {
        HloSharding::leaf(Kind::Tuple(elements))
    }

    /// The named form `{mesh[...], [...]}` (XLA's `HloSharding(NamedSharding)`).
    pub fn named(named: NamedSharding) -> Self {
        HloSharding::leaf(Kind::Named(Box::new(named)))
    }

    /// This sharding with `metadata` (an `OpMetadata` per source of the
    /// sharding). XLA keeps no metadata on a tuple: on a tuple this sets
    /// nothing.
    pub fn with_metadata(mut self, metadata: Vec<OpMetadata>) -> Self {
        match &mut self.kind {
            Kind::Tuple(_) => {}
            Kind::Named(n) => n.metadata = metadata,
            _ => self.metadata = metadata,
        }
        self
    }

    /// This sharding in shard group `group` (XLA's `SetShardGroup`).
    pub fn with_shard_group(mut self, group: Option<ShardGroup>) -> Self {
        self.shard_group = group;
        self
    }

    /// The metadata (XLA's `metadata()`; of the named form, its own).
    pub fn metadata(&self) -> &[OpMetadata] {
        match &self.kind {
            Kind::Named(n) => &n.metadata,
            _ => &self.metadata,
        }
    }

    /// The shard group as written: `shard_as -1` is kept (XLA prints it)
    /// although XLA's `IsShardGroup` does not count an id of -1.
    pub fn shard_group(&self) -> Option<ShardGroup> {
        self.shard_group
    }

    /// XLA's `IsShardGroup`: a shard group with an id other than -1 (for a
    /// tuple: every element is in one, and there is an element).
    pub fn is_shard_group(&self) -> bool {
        match &self.kind {
            Kind::Tuple(e) => !e.is_empty() && e.iter().all(HloSharding::is_shard_group),
            Kind::Named(_) => false,
            _ => self.shard_group.is_some_and(|g| g.id() != -1),
        }
    }

    /// Whether this is a tuple sharding (XLA's `IsTuple`).
    #[doc(alias = "HloSharding::IsTuple")]
    pub fn is_tuple(&self) -> bool {
        matches!(self.kind, Kind::Tuple(_))
    }

    /// The elements of a tuple sharding, one per leaf (XLA's
    /// `tuple_elements()`); empty for a leaf, as jaxlib's.
    #[doc(alias = "HloSharding::tuple_elements")]
    pub fn tuple_elements(&self) -> &[HloSharding] {
        match &self.kind {
            Kind::Tuple(e) => e,
            _ => &[],
        }
    }

    /// The named form, if this is one (XLA's `UseNamedShardingLeaf`).
    pub fn named_sharding(&self) -> Option<&NamedSharding> {
        match &self.kind {
            Kind::Named(n) => Some(n),
            _ => None,
        }
    }

    fn all(&self, leaf: impl Fn(&HloSharding) -> bool + Copy) -> bool {
        match &self.kind {
            Kind::Tuple(e) => e.iter().all(|s| s.all(leaf)),
            _ => leaf(self),
        }
    }

    /// XLA's `IsReplicated`: every device holds everything (for a tuple:
    /// every element is replicated).
    #[doc(alias = "HloSharding::IsReplicated")]
    pub fn is_replicated(&self) -> bool {
        self.all(|s| match &s.kind {
            Kind::Replicated => true,
            Kind::Named(n) => n.is_replicated(),
            _ => false,
        })
    }

    /// XLA's `IsTileMaximal` (jaxlib's `is_maximal`): one tile, the whole
    /// array: replicated or on one device. For a tuple, jaxlib 0.10.2
    /// answers true when every element is replicated or every element is
    /// on one device (not for a mix of the two).
    #[doc(alias = "HloSharding::IsTileMaximal")]
    pub fn is_maximal(&self) -> bool {
        let single = |s: &HloSharding| match &s.kind {
            Kind::Maximal(_) => true,
            Kind::Named(n) => n.is_maximal(),
            _ => false,
        };
        match &self.kind {
            Kind::Tuple(_) => self.is_replicated() || self.all(single),
            _ => self.is_replicated() || single(self),
        }
    }

    /// XLA's `IsManual`.
    #[doc(alias = "HloSharding::IsManual")]
    pub fn is_manual(&self) -> bool {
        self.all(|s| match &s.kind {
            Kind::Manual => true,
            Kind::Named(n) => n.is_manual(),
            _ => false,
        })
    }

    /// XLA's `IsUnknown`.
    #[doc(alias = "HloSharding::IsUnknown")]
    pub fn is_unknown(&self) -> bool {
        self.all(|s| matches!(s.kind, Kind::Unknown))
    }

    /// XLA's `IsUnreduced`.
    #[doc(alias = "HloSharding::IsUnreduced")]
    pub fn is_unreduced(&self) -> bool {
        self.all(|s| match &s.kind {
            Kind::Unreduced => true,
            Kind::Named(n) => n.is_unreduced(),
            _ => false,
        })
    }

    /// XLA's `IsTiled`: not maximal, manual, unreduced or unknown.
    #[doc(alias = "HloSharding::IsTiled")]
    pub fn is_tiled(&self) -> bool {
        !self.is_maximal() && !self.is_manual() && !self.is_unreduced() && !self.is_unknown()
    }

    /// XLA's `IsManualSubgroup`: a subgroup dimension is manual.
    #[doc(alias = "HloSharding::IsManualSubgroup")]
    pub fn is_manual_subgroup(&self) -> bool {
        self.all(|s| s.subgroup_types().contains(&OpShardingType::Manual))
    }

    /// The single device a maximal sharding (or a tuple of maximal
    /// shardings on one device) uses (XLA's `UniqueDevice`).
    #[doc(alias = "HloSharding::UniqueDevice")]
    pub fn unique_device(&self) -> Option<i64> {
        match &self.kind {
            Kind::Tuple(e) => {
                let mut unique = None;
                for s in e {
                    let d = s.unique_device()?;
                    if unique.is_some_and(|u| u != d) {
                        return None;
                    }
                    unique = Some(d);
                }
                unique
            }
            Kind::Maximal(d) => Some(*d),
            Kind::Named(n) => n.maximal_device(),
            _ => None,
        }
    }

    pub(crate) fn tiled(&self) -> Option<&Tiled> {
        match &self.kind {
            Kind::Tiled(t) => Some(t),
            _ => None,
        }
    }

    /// The tile assignment of a tiled sharding (XLA's `tile_assignment()`);
    /// `None` for the other kinds (see [`tile_assignment_dimensions`](Self::tile_assignment_dimensions)
    /// for what jaxlib answers for them) and for the named form (whose
    /// device assignment is [`Mesh::device_assignment`]; see
    /// [`to_v2`](Self::to_v2)).
    pub fn tile_assignment(&self) -> Option<&TileAssignment> {
        self.tiled().map(|t| &t.tile_assignment)
    }

    /// Whether the last tile dimension is a replication group (XLA's
    /// `ReplicateOnLastTileDim`).
    #[doc(alias = "HloSharding::ReplicateOnLastTileDim")]
    pub fn replicate_on_last_tile_dim(&self) -> bool {
        self.tiled().is_some_and(|t| t.replicate_on_last_tile_dim)
    }

    /// The types of the trailing subgroup dimensions (XLA's
    /// `subgroup_types()`, printed as `last_tile_dims={...}`).
    #[doc(alias = "HloSharding::subgroup_types")]
    pub fn subgroup_types(&self) -> &[OpShardingType] {
        self.tiled().map_or(&[], |t| &t.subgroup_types)
    }

    /// jaxlib's `tile_assignment_dimensions()`: the tile assignment's
    /// dimensions; `[1]` for a maximal sharding and `[0]` for the other
    /// untiled kinds (XLA's empty `TileAssignment` has one dimension of
    /// size 0).
    ///
    /// # Errors
    ///
    /// For a tuple (jaxlib aborts); the named form is converted as
    /// [`to_v2`](Self::to_v2) does (jaxlib aborts).
    pub fn tile_assignment_dimensions(&self) -> Result<Vec<i64>> {
        Ok(match &self.kind {
            Kind::Tiled(t) => t.tile_assignment.dimensions().to_vec(),
            Kind::Maximal(_) => vec![1],
            Kind::Replicated | Kind::Manual | Kind::Unknown | Kind::Unreduced => vec![0],
            Kind::Named(_) => return self.to_v2()?.tile_assignment_dimensions(),
            Kind::Tuple(_) => return Err(tuple_error("tile_assignment_dimensions")),
        })
    }

    /// jaxlib's `tile_assignment_devices()`: every device of the tile
    /// assignment in row-major order; `[device]` for a maximal sharding,
    /// nothing for the other untiled kinds.
    ///
    /// # Errors
    ///
    /// For a tuple; when the devices cannot be listed (see
    /// [`TileAssignment::devices`]).
    pub fn tile_assignment_devices(&self) -> Result<Vec<i64>> {
        Ok(match &self.kind {
            Kind::Tiled(t) => t.tile_assignment.devices()?,
            Kind::Maximal(d) => vec![*d],
            Kind::Replicated | Kind::Manual | Kind::Unknown | Kind::Unreduced => Vec::new(),
            Kind::Named(_) => return self.to_v2()?.tile_assignment_devices(),
            Kind::Tuple(_) => return Err(tuple_error("tile_assignment_devices")),
        })
    }

    /// Whether the tile assignment is an iota (jaxlib's
    /// `is_tile_assignment_iota`).
    pub fn is_tile_assignment_iota(&self) -> bool {
        self.tile_assignment().is_some_and(TileAssignment::is_iota)
    }

    /// The number of devices of the tile assignment (XLA's `num_devices()`):
    /// 1 for a maximal sharding, 0 for the other untiled kinds, the device
    /// count of the mesh for the named form.
    ///
    /// # Errors
    ///
    /// For a tuple (XLA aborts).
    #[doc(alias = "HloSharding::num_devices")]
    pub fn num_devices(&self) -> Result<i64> {
        Ok(match &self.kind {
            Kind::Tiled(t) => t.tile_assignment.num_elements(),
            Kind::Maximal(_) => 1,
            Kind::Replicated | Kind::Manual | Kind::Unknown | Kind::Unreduced => 0,
            Kind::Named(n) => n.mesh.num_devices(),
            Kind::Tuple(_) => return Err(tuple_error("num_devices")),
        })
    }

    /// The number of tile assignment dimensions (XLA's `num_dimensions()`).
    ///
    /// # Errors
    ///
    /// For a tuple.
    pub fn num_dimensions(&self) -> Result<usize> {
        Ok(self.tile_assignment_dimensions()?.len())
    }

    /// XLA's `TiledDataRank`: the tile dimensions that split the array
    /// (without the replication and subgroup dimensions), for a tiled
    /// sharding.
    #[doc(alias = "HloSharding::TiledDataRank")]
    pub fn tiled_data_rank(&self) -> Option<usize> {
        let t = self.tiled()?;
        let n = t.tile_assignment.num_dimensions();
        n.checked_sub(usize::from(t.replicate_on_last_tile_dim) + t.subgroup_types.len())
    }

    /// XLA's `SubgroupReplicationDim`: the tile dimension that replicates,
    /// if any.
    #[doc(alias = "HloSharding::SubgroupReplicationDim")]
    pub fn subgroup_replication_dim(&self) -> Option<usize> {
        let t = self.tiled()?;
        if let Some(i) = t
            .subgroup_types
            .iter()
            .position(|&x| x == OpShardingType::Replicated)
        {
            return Some(i + self.tiled_data_rank()?);
        }
        if t.replicate_on_last_tile_dim {
            return t.tile_assignment.num_dimensions().checked_sub(1);
        }
        None
    }

    /// XLA's `HasPartialReplication`.
    #[doc(alias = "HloSharding::HasPartialReplication")]
    pub fn has_partial_replication(&self) -> bool {
        match &self.kind {
            Kind::Tiled(t) => {
                t.replicate_on_last_tile_dim
                    || t.subgroup_types.contains(&OpShardingType::Replicated)
            }
            Kind::Named(n) => n.has_partial_replication(),
            _ => false,
        }
    }

    /// XLA's `UsesDevice`.
    #[doc(alias = "HloSharding::UsesDevice")]
    pub fn uses_device(&self, device: i64) -> bool {
        match &self.kind {
            Kind::Tuple(e) => e.iter().any(|s| s.uses_device(device)),
            Kind::Replicated | Kind::Manual => true,
            Kind::Tiled(t) => t.tile_assignment.uses_device(device),
            Kind::Maximal(d) => *d == device,
            Kind::Unknown | Kind::Unreduced => false,
            Kind::Named(n) => n.mesh.device_assignment().uses_device(device),
        }
    }

    /// The tiled ("V2") sharding of the named form, as XLA's
    /// `V3ToV2Sharding` converts it (what jaxlib's `v3_to_v2_sharding`
    /// returns); any other sharding unchanged.
    ///
    /// # Errors
    ///
    /// When the conversion must list devices and cannot.
    #[doc(alias = "HloSharding::V3ToV2Sharding")]
    pub fn to_v2(&self) -> Result<HloSharding> {
        match &self.kind {
            Kind::Named(n) => n.to_v2(),
            Kind::Tuple(e) => Ok(HloSharding {
                kind: Kind::Tuple(e.iter().map(HloSharding::to_v2).collect::<Result<_>>()?),
                metadata: Vec::new(),
                shard_group: self.shard_group,
            }),
            _ => Ok(self.clone()),
        }
    }

    /// This sharding, or its V2 form when it is named, for the functions
    /// that work on tile assignments.
    pub(crate) fn leaf_v2(&self) -> Result<std::borrow::Cow<'_, HloSharding>> {
        match &self.kind {
            Kind::Named(n) => Ok(std::borrow::Cow::Owned(n.to_v2()?)),
            _ => Ok(std::borrow::Cow::Borrowed(self)),
        }
    }
}

fn tuple_error(what: &str) -> Error {
    Error::invalid_argument(format!(
        "{what} is not defined for a tuple sharding (XLA's CHECK(!IsTuple()))"
    ))
}
