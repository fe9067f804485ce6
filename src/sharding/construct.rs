//! XLA's canonicalizing constructors of `HloSharding`
//! (`xla/hlo/ir/hlo_sharding.cc`): `PartialTile` (replication groups
//! sorted, trivial cases folded) and `Subgroup` (subgroup dimensions of
//! size one dropped, dimensions of one type merged, types ordered), which
//! the parser, `FromProto` and the named form's conversion all go through.

use crate::error::{Error, Result};
use crate::model::join;
use crate::proto::OpMetadata;
use crate::proto::op_sharding::Type;

use super::tile_assignment::{TileAssignment, product};
use super::{HloSharding, Kind, Tiled};

/// XLA's `GroupMinorIotaDimsSorted`: regroups the minor dimensions of an
/// iota's transpose so that they total `group_size` and their members are
/// sorted, splitting one dimension if needed; `None` when the minor
/// dimensions do not divide evenly.
fn group_minor_iota_dims_sorted(
    dims: &[i64],
    perm: &[i64],
    mut group_size: i64,
) -> Option<(Vec<i64>, Vec<i64>)> {
    let mut grouped_dims = 0usize;
    let mut split: Option<(usize, i64)> = None;
    for i in (0..perm.len()).rev() {
        let dim = usize::try_from(perm[i]).ok()?;
        let dim_size = *dims.get(dim)?;
        if dim_size <= 0 || group_size <= 0 {
            return None;
        }
        if dim_size <= group_size {
            if group_size % dim_size != 0 {
                return None;
            }
            group_size /= dim_size;
            grouped_dims += 1;
        } else {
            if dim_size % group_size != 0 {
                return None;
            }
            split = Some((dim, dim_size / group_size));
            grouped_dims += 1;
            break;
        }
    }
    let Some((split_i, major)) = split else {
        let mut new_perm = perm.to_vec();
        let n = new_perm.len();
        new_perm[n - grouped_dims..].sort();
        return Some((dims.to_vec(), new_perm));
    };
    let mut new_dims = vec![0i64; dims.len() + 1];
    let mut new_perm = vec![0i64; perm.len() + 1];
    new_dims[..split_i].copy_from_slice(&dims[..split_i]);
    new_dims[split_i] = major;
    new_dims[split_i + 1] = dims[split_i] / major;
    new_dims[split_i + 2..].copy_from_slice(&dims[split_i + 1..]);
    let shift = |d: i64| if d <= split_i as i64 { d } else { d + 1 };
    let mut perm_split = 0usize;
    for (i, &d) in perm.iter().enumerate() {
        new_perm[i] = shift(d);
        if d == split_i as i64 {
            perm_split = i;
            break;
        }
    }
    new_perm[perm_split + 1] = new_perm[perm_split] + 1;
    for i in perm_split + 2..new_perm.len() {
        new_perm[i] = shift(perm[i - 1]);
    }
    let n = new_perm.len();
    new_perm[n - grouped_dims..].sort();
    Some((new_dims, new_perm))
}

impl HloSharding {
    /// A tiled sharding with no replication (XLA's `HloSharding::Tile`).
    #[doc(alias = "HloSharding::Tile")]
    pub fn tile(tile_assignment: TileAssignment) -> Self {
        HloSharding::leaf(Kind::Tiled(Tiled {
            tile_assignment,
            replicate_on_last_tile_dim: false,
            subgroup_types: Vec::new(),
        }))
    }

    /// An iota tiled sharding `[dims]<=[n]` (XLA's `HloSharding::IotaTile`).
    #[doc(alias = "HloSharding::IotaTile")]
    pub fn iota_tile(dims: &[i64]) -> Self {
        HloSharding::tile(TileAssignment::iota_of(dims))
    }

    /// A partially replicated tiled sharding whose last dimension
    /// replicates (XLA's `HloSharding::PartialTile`): one dimension or a
    /// last dimension holding every device is `{replicated}`, a last
    /// dimension of one is dropped, and the members of each replication
    /// group are sorted (an iota form stays one where XLA keeps it).
    ///
    /// # Errors
    ///
    /// When the devices must be listed to be sorted and cannot be (see
    /// [`TileAssignment::devices`]).
    #[doc(alias = "HloSharding::PartialTile")]
    pub fn partial_tile(tile_assignment: TileAssignment) -> Result<Self> {
        partial_tile(tile_assignment, Vec::new())
    }

    /// A sharding with subgroup dimensions of the given types last (XLA's
    /// `HloSharding::Subgroup`), canonicalized as XLA does: one type over
    /// no data tiling is `{manual}`, `{replicated}` or `{unreduced}`;
    /// subgroup dimensions of size one are dropped; dimensions of one type
    /// are merged; types are ordered manual, unreduced, replicated.
    ///
    /// # Errors
    ///
    /// When there are more types than dimensions, or the devices must be
    /// listed and cannot be.
    #[doc(alias = "HloSharding::Subgroup")]
    pub fn subgroup(tile_assignment: TileAssignment, subgroup_types: &[Type]) -> Result<Self> {
        subgroup(tile_assignment, subgroup_types, Vec::new())
    }
}

impl HloSharding {
    /// jaxlib's `HloSharding.iota_tile(dims, reshape_dims, transpose_perm,
    /// subgroup_types)` (`IotaTileHelper` of XLA's Python bindings,
    /// `xla/python/xla_compiler.cc`): the tiled sharding whose devices are
    /// `numpy.arange(n).reshape(reshape_dims).transpose(transpose_perm)`
    /// (`0, 1, 2, ...` when `reshape_dims` is empty), the last
    /// `subgroup_types.len()` dimensions being subgroups of those types.
    ///
    /// ```
    /// use xla_shape::sharding::{HloSharding, OpShardingType};
    /// let s = HloSharding::iota_tile_with(&[4, 2], &[2, 4], &[1, 0], &[])?;
    /// assert_eq!(s.to_string(), "{devices=[4,2]<=[2,4]T(1,0)}");
    /// let s = HloSharding::iota_tile_with(&[2, 2], &[], &[], &[OpShardingType::Replicated])?;
    /// assert_eq!(s.to_string(), "{devices=[2,2]<=[4] last_tile_dim_replicate}");
    /// # Ok::<(), xla_shape::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// XLA's messages: `dims` empty, `reshape_dims` and `transpose_perm` of
    /// different sizes or products, more subgroup types than dimensions;
    /// also (where XLA's behaviour is undefined) a negative dimension or a
    /// `transpose_perm` that is not a permutation.
    #[doc(alias = "IotaTileHelper")]
    pub fn iota_tile_with(
        dims: &[i64],
        reshape_dims: &[i64],
        transpose_perm: &[i64],
        subgroup_types: &[Type],
    ) -> Result<Self> {
        if dims.is_empty() {
            return Err(Error::invalid_argument("`dims` should not be empty."));
        }
        if reshape_dims.len() != transpose_perm.len() {
            return Err(Error::invalid_argument(format!(
                "`reshape_dims` and `transpose_perm` should have the same size, saw [{}] v.s. [{}]",
                join(reshape_dims, ","),
                join(transpose_perm, ",")
            )));
        }
        if !reshape_dims.is_empty() && product(dims) != product(reshape_dims) {
            return Err(Error::invalid_argument(format!(
                "Cannot reshape from `dims` [{}] to `reshape_dims` [{}].",
                join(dims, ","),
                join(reshape_dims, ",")
            )));
        }
        if subgroup_types.len() > dims.len() {
            return Err(Error::invalid_argument(format!(
                "`subgroup_types`({}) should not have more dimensions than `dims`({}).",
                subgroup_types.len(),
                dims.len()
            )));
        }
        if dims.iter().chain(reshape_dims).any(|&d| d < 0) {
            return Err(Error::invalid_argument(format!(
                "iota_tile: dimensions must not be negative: [{}] and [{}]",
                join(dims, ","),
                join(reshape_dims, ",")
            )));
        }
        let mut seen = vec![false; transpose_perm.len()];
        for &p in transpose_perm {
            match usize::try_from(p).ok().and_then(|p| seen.get_mut(p)) {
                Some(slot) if !*slot => *slot = true,
                _ => {
                    return Err(Error::invalid_argument(format!(
                        "iota_tile: `transpose_perm` [{}] is not a permutation",
                        join(transpose_perm, ",")
                    )));
                }
            }
        }
        let ta = if reshape_dims.is_empty() {
            TileAssignment::iota_of(dims)
        } else {
            TileAssignment::iota(dims, reshape_dims, transpose_perm)
        };
        if subgroup_types.is_empty() {
            Ok(HloSharding::tile(ta))
        } else {
            HloSharding::subgroup(ta, subgroup_types)
        }
    }

    /// XLA's `HloSharding::Tuple(tuple_shape, shardings)` (jaxlib's
    /// `HloSharding.tuple_sharding`): one sharding per leaf of `shape`.
    ///
    /// # Errors
    ///
    /// Where XLA CHECK-fails: `shape` not a tuple, an element that is a
    /// tuple, a count of elements (when there are any) other than the
    /// shape's leaves (one for a tuple without leaves).
    #[doc(alias = "HloSharding::Tuple")]
    pub fn tuple_for(shape: &crate::Shape, elements: Vec<HloSharding>) -> Result<Self> {
        if !shape.is_tuple() {
            return Err(Error::invalid_argument(format!(
                "a tuple sharding needs a tuple shape, not {shape}"
            )));
        }
        if let Some(t) = elements.iter().find(|e| e.is_tuple()) {
            return Err(Error::invalid_argument(format!(
                "the elements of a tuple sharding are not tuples: {t}, tuple shape = {shape}"
            )));
        }
        let required = crate::shape_util::get_leaf_count(shape).max(1);
        if !elements.is_empty() && elements.len() as i64 != required {
            return Err(Error::invalid_argument(format!(
                "Flat list has {}, required {required}",
                elements.len()
            )));
        }
        Ok(HloSharding::tuple(elements))
    }
}

pub(crate) fn partial_tile(ta: TileAssignment, metadata: Vec<OpMetadata>) -> Result<HloSharding> {
    let dims = ta.dimensions();
    let num_elements = ta.num_elements();
    let last = dims.last().copied().unwrap_or(0);
    if dims.len() == 1 || last == num_elements {
        return Ok(HloSharding::replicate().with_metadata(metadata));
    }
    if last == 1 {
        let new_dims = dims[..dims.len() - 1].to_vec();
        return Ok(HloSharding::tile(ta.reshape(new_dims)).with_metadata(metadata));
    }
    let group_size = last;
    let tiled = |t: TileAssignment| {
        HloSharding::leaf(Kind::Tiled(Tiled {
            tile_assignment: t,
            replicate_on_last_tile_dim: true,
            subgroup_types: Vec::new(),
        }))
        .with_metadata(metadata.clone())
    };
    if let Some((reshape_dims, perm)) = ta.iota_parts() {
        let minor = perm
            .last()
            .and_then(|&p| usize::try_from(p).ok())
            .and_then(|p| reshape_dims.get(p));
        if minor == Some(&group_size) {
            return Ok(tiled(ta));
        }
        if group_size > 1
            && let Some((r, p)) = group_minor_iota_dims_sorted(reshape_dims, perm, group_size)
        {
            return Ok(tiled(TileAssignment::iota(ta.dimensions(), &r, &p)));
        }
    }
    let mut devices = ta.devices()?;
    if group_size > 0 {
        for chunk in devices.chunks_mut(group_size as usize) {
            chunk.sort_unstable();
        }
    }
    Ok(tiled(TileAssignment::list(
        ta.dimensions().to_vec(),
        devices,
    )))
}

/// XLA's `kOrderedTypes`: the order of merged subgroup types.
const ORDERED_TYPES: [Type; 7] = [
    Type::Maximal,
    Type::Tuple,
    Type::Other,
    Type::Manual,
    Type::Unreduced,
    Type::Replicated,
    Type::Unknown,
];

pub(crate) fn subgroup(
    ta: TileAssignment,
    types: &[Type],
    metadata: Vec<OpMetadata>,
) -> Result<HloSharding> {
    if types.is_empty() {
        return Ok(HloSharding::tile(ta).with_metadata(metadata));
    }
    let ndims = ta.num_dimensions();
    if types.len() > ndims {
        return Err(Error::invalid_argument(format!(
            "{} subgroup types (last_tile_dims) for a tile assignment of {} dimensions",
            types.len(),
            ndims
        )));
    }
    let data_dims = ndims - types.len();
    let dims = ta.dimensions().to_vec();
    if types.iter().all(|&t| t == types[0]) && product(&dims[..data_dims]) == 1 {
        match types[0] {
            Type::Manual => return Ok(HloSharding::manual().with_metadata(metadata)),
            Type::Replicated => return Ok(HloSharding::replicate().with_metadata(metadata)),
            Type::Unreduced => return Ok(HloSharding::unreduced().with_metadata(metadata)),
            _ => {}
        }
    }
    let mut perm: Vec<usize> = (0..data_dims).collect();
    let mut type_to_dims: [Vec<usize>; 7] = Default::default();
    let mut subgroup_count = 0;
    let mut needs_merging = false;
    let mut removed_dims = Vec::new();
    for (i, &t) in types.iter().enumerate() {
        if dims[i + data_dims] == 1 {
            removed_dims.push(i + data_dims);
            needs_merging = true;
            continue;
        }
        let slot = &mut type_to_dims[t as usize];
        if slot.is_empty() {
            subgroup_count += 1;
        } else {
            needs_merging = true;
        }
        slot.push(i + data_dims);
    }
    needs_merging |= subgroup_count > 1;
    if !needs_merging {
        return create_sharding(ta, types.to_vec(), metadata);
    }
    let mut merged_shape = dims[..data_dims].to_vec();
    let mut merged_types = Vec::new();
    for t in ORDERED_TYPES {
        let slot = &type_to_dims[t as usize];
        if slot.is_empty() {
            continue;
        }
        let mut size = 1i64;
        for &d in slot {
            perm.push(d);
            size = size.wrapping_mul(dims[d]);
        }
        merged_shape.push(size);
        merged_types.push(t);
    }
    perm.extend(removed_dims);
    let transposed = ta.transpose(&perm)?;
    let new_ta = transposed.reshape(merged_shape);
    create_sharding(new_ta, merged_types, metadata)
}

/// The `create_sharding` step of XLA's `Subgroup`.
fn create_sharding(
    ta: TileAssignment,
    types: Vec<Type>,
    metadata: Vec<OpMetadata>,
) -> Result<HloSharding> {
    if types.len() == 1 && types[0] == Type::Replicated {
        return partial_tile(ta, metadata);
    }
    if types.len() == 1
        && types[0] == Type::Manual
        && ta.num_elements() == ta.dimensions().last().copied().unwrap_or(0)
    {
        return Ok(HloSharding::manual().with_metadata(metadata));
    }
    if types.last() == Some(&Type::Replicated) {
        let mut s = partial_tile(ta, metadata)?;
        if let Kind::Tiled(t) = &mut s.kind {
            t.replicate_on_last_tile_dim = false;
            t.subgroup_types.extend(types);
        }
        return Ok(s);
    }
    Ok(HloSharding::leaf(Kind::Tiled(Tiled {
        tile_assignment: ta,
        replicate_on_last_tile_dim: false,
        subgroup_types: types,
    }))
    .with_metadata(metadata))
}

#[cfg(test)]
mod tests {
    use super::*;

    // XLA's `GroupMinorIotaDimsSorted` on the case of the oracle's
    // `{devices=[2,1,4]<=[2,4]T(1,0) last_tile_dim_replicate}`, which XLA
    // prints as `<=[2,2,2]T(1,0,2)`: 4 = the 2 of dimension 0 and half of
    // dimension 1, split as [2,2,2] with T(1,0,2).
    #[test]
    fn group_minor_dims_split_a_dimension() {
        assert_eq!(
            group_minor_iota_dims_sorted(&[2, 4], &[1, 0], 4),
            Some((vec![2, 2, 2], vec![1, 0, 2]))
        );
    }
}
