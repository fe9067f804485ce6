//! `OpSharding` (`xla/xla_data.proto`) to and from [`HloSharding`]: XLA's
//! `HloSharding::FromProto` and `ToProto`, and the bytes.
//!
//! Reading the bytes follows Google's runtimes at the `OpSharding` level
//! (the crate's byte layer, `each_field` over the field numbers of
//! `proto::fields`: a known field with another wire type is an unknown
//! field, the last scalar wins, packed and unpacked runs concatenate,
//! `named_sharding` given twice merges); the nested `OpMetadata`,
//! `ShapeProto` and `NamedShardingProto` messages are read by prost
//! (`docs/differences.md`, "Sharding"). Writing is prost's encoding of each
//! field in field order, as XLA's C++ runtime orders and packs them
//! (checked byte for byte against jaxlib 0.10.2 in `tests/sharding/`).

use prost::Message;
use prost::encoding;

use crate::error::{Error, ErrorKind, Nesting, Result};
use crate::limits::MAX_NESTING_DEPTH;
use crate::proto::fields::op_sharding as field;
use crate::proto::fields::{named_sharding, op_metadata};
use crate::proto::op_sharding::{ShardGroupType, Type};
use crate::proto::{
    AxisRefProto, MeshProto, NamedShardingProto, OpMetadata, OpSharding, ShapeProto,
    axis_ref_proto, mesh_proto, named_sharding_proto,
};
use crate::protobuf::{DECODE_CONTEXT, Varint, WireError, WireType, each_field};

use super::named::{AxisRef, DimensionSharding, Mesh, MeshDevices, NamedSharding};
use super::tile_assignment::{TileAssignment, checked_product, product};
use super::{HloSharding, Kind, ShardGroup, construct};

/// Reads one `OpSharding` message (`depth` messages deep). The nested
/// messages are gathered while the fields are walked and read once the
/// walk is done, in their order (a message given twice merges).
fn decode(bytes: &[u8], depth: usize) -> Result<OpSharding> {
    if depth >= MAX_NESTING_DEPTH {
        return Err(WireError::TooDeep.into());
    }
    let mut m = OpSharding::default();
    let (mut tuple, mut metadata, mut tile_shape, mut named) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    each_field(bytes, depth, |r, number, wire| {
        let len = wire == WireType::LengthDelimited;
        Ok(match (number, wire) {
            (field::TYPE, WireType::Varint) => {
                m.r#type = i32::from_varint(r.varint()?);
                true
            }
            (field::TILE_ASSIGNMENT_DIMENSIONS, _) => {
                r.repeated_varint(wire, &mut m.tile_assignment_dimensions)?
            }
            (field::TILE_ASSIGNMENT_DEVICES, _) => {
                r.repeated_varint(wire, &mut m.tile_assignment_devices)?
            }
            (field::IOTA_RESHAPE_DIMS, _) => r.repeated_varint(wire, &mut m.iota_reshape_dims)?,
            (field::LAST_TILE_DIMS, _) => r.repeated_varint(wire, &mut m.last_tile_dims)?,
            (field::IOTA_TRANSPOSE_PERM, _) => {
                r.repeated_varint(wire, &mut m.iota_transpose_perm)?
            }
            (field::REPLICATE_ON_LAST_TILE_DIM, WireType::Varint) => {
                m.replicate_on_last_tile_dim = bool::from_varint(r.varint()?);
                true
            }
            (field::IS_SHARD_GROUP, WireType::Varint) => {
                m.is_shard_group = bool::from_varint(r.varint()?);
                true
            }
            (field::SHARD_GROUP_ID, WireType::Varint) => {
                m.shard_group_id = i64::from_varint(r.varint()?);
                true
            }
            (field::SHARD_GROUP_TYPE, WireType::Varint) => {
                m.shard_group_type = i32::from_varint(r.varint()?);
                true
            }
            (field::TUPLE_SHARDINGS, _) if len => {
                tuple.push(r.len_delimited()?);
                true
            }
            (field::METADATA, _) if len => {
                metadata.push(r.len_delimited()?);
                true
            }
            (field::TILE_SHAPE, _) if len => {
                tile_shape.push(r.len_delimited()?);
                true
            }
            (field::NAMED_SHARDING, _) if len => {
                named.push(r.len_delimited()?);
                true
            }
            _ => false,
        })
    })?;
    for inner in tuple {
        m.tuple_shardings.push(decode(inner, depth + 1)?);
    }
    for inner in metadata {
        m.metadata.push(OpMetadata::decode(inner)?);
    }
    for inner in tile_shape {
        m.tile_shape
            .get_or_insert_with(ShapeProto::default)
            .merge(inner)?;
    }
    for inner in named {
        m.named_sharding
            .get_or_insert_with(NamedShardingProto::default)
            .merge(inner)?;
    }
    Ok(m)
}

/// `TF_RET_CHECK` of `FromProto`: XLA's streamed text, or a sentence ending
/// with XLA's condition.
fn ret_check(message: impl Into<String>) -> Error {
    Error::malformed(message)
}

fn subgroup_type(t: i32) -> Result<Type> {
    Type::try_from(t).map_err(|_| {
        ret_check(format!(
            "OpSharding last_tile_dims holds {t}, which is no OpSharding.Type (XLA indexes an array with it)"
        ))
    })
}

impl HloSharding {
    /// XLA's `HloSharding::FromProto` on `OpSharding` bytes (jaxlib's
    /// `HloSharding.from_proto(OpSharding.FromString(bytes))`).
    ///
    /// ```
    /// use xla_shape::sharding::HloSharding;
    /// // type: OTHER, tile_assignment_dimensions: [2, 1], devices: [0, 1]
    /// let s = HloSharding::from_proto_bytes(&[0x08, 0x03, 0x1a, 0x02, 0x02, 0x01, 0x22, 0x02, 0x00, 0x01])?;
    /// assert_eq!(s.to_string(), "{devices=[2,1]0,1}");
    /// # Ok::<(), xla_shape::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Decode`] for bytes that are not an `OpSharding`;
    /// [`ErrorKind::MalformedProto`] for what `FromProto` rejects (its
    /// `RET_CHECK`s), with XLA's text.
    #[doc(alias = "HloSharding::FromProto")]
    pub fn from_proto_bytes(bytes: &[u8]) -> Result<Self> {
        let m = decode(bytes, 0)?;
        HloSharding::try_from(&m)
    }

    /// XLA's `ToProto`, encoded as XLA's C++ runtime encodes it: each field
    /// in field order, `OpMetadata.profile_type` packed (prost's generated
    /// field is unpacked, so `prost::Message::encode_to_vec` of
    /// [`to_proto`](Self::to_proto) differs there).
    #[doc(alias = "HloSharding::ToProto")]
    pub fn to_proto_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        encode_op_sharding(&self.to_proto(), &mut out);
        out
    }

    /// XLA's `HloSharding::ToProto`.
    pub fn to_proto(&self) -> OpSharding {
        let mut out = OpSharding::default();
        match &self.kind {
            Kind::Tuple(elements) => {
                out.r#type = Type::Tuple as i32;
                out.tuple_shardings = elements.iter().map(HloSharding::to_proto).collect();
                return out;
            }
            Kind::Named(n) => {
                out.named_sharding = Some(named_to_proto(n));
                return out;
            }
            _ => {}
        }
        out.metadata = self.metadata.clone();
        let t = match &self.kind {
            Kind::Replicated => Type::Replicated,
            Kind::Maximal(d) => {
                out.tile_assignment_devices = vec![*d];
                Type::Maximal
            }
            Kind::Manual => Type::Manual,
            Kind::Unreduced => Type::Unreduced,
            Kind::Unknown => Type::Unknown,
            Kind::Tiled(t) => {
                let ta = &t.tile_assignment;
                match ta.iota_parts() {
                    Some((r, p)) => {
                        out.iota_reshape_dims = r.to_vec();
                        out.iota_transpose_perm = p.iter().map(|&p| p as i32).collect();
                    }
                    None => out.tile_assignment_devices = ta.list_ref().unwrap_or(&[]).to_vec(),
                }
                out.replicate_on_last_tile_dim = t.replicate_on_last_tile_dim;
                out.last_tile_dims = t.subgroup_types.iter().map(|&t| t as i32).collect();
                out.tile_assignment_dimensions = ta.dimensions().to_vec();
                Type::Other
            }
            Kind::Tuple(_) | Kind::Named(_) => Type::Other,
        };
        out.r#type = t as i32;
        if self.is_shard_group()
            && let Some(g) = self.shard_group
        {
            out.is_shard_group = true;
            out.shard_group_id = g.id();
            out.shard_group_type = match g {
                ShardGroup::As(_) => ShardGroupType::As,
                ShardGroup::Like(_) => ShardGroupType::Like,
            } as i32;
        }
        out
    }
}

impl TryFrom<&OpSharding> for HloSharding {
    type Error = Error;

    /// XLA's `HloSharding::FromProto`.
    fn try_from(p: &OpSharding) -> Result<Self> {
        from_proto(p, 0)
    }
}

fn shard_group_of(p: &OpSharding) -> Option<ShardGroup> {
    let group = if p.shard_group_type == ShardGroupType::As as i32 {
        ShardGroup::As(p.shard_group_id)
    } else {
        ShardGroup::Like(p.shard_group_id)
    };
    p.is_shard_group.then_some(group)
}

fn from_proto(p: &OpSharding, depth: usize) -> Result<HloSharding> {
    if depth >= MAX_NESTING_DEPTH {
        return Err(Error::too_deep(
            ErrorKind::Decode,
            DECODE_CONTEXT,
            Nesting::Messages,
        ));
    }
    if let Some(named) = &p.named_sharding {
        return Ok(HloSharding::named(named_from_proto(named)?));
    }
    let metadata = p.metadata.clone();
    let group = shard_group_of(p);
    let with = |s: HloSharding| Ok(s.with_metadata(metadata.clone()).with_shard_group(group));
    match Type::try_from(p.r#type) {
        Ok(Type::Tuple) => {
            if !p.metadata.is_empty() {
                return Err(ret_check("Tuple sharding is expected to have no metadata."));
            }
            let elements = p
                .tuple_shardings
                .iter()
                .map(|e| from_proto(e, depth + 1))
                .collect::<Result<Vec<_>>>()?;
            return Ok(HloSharding::tuple(elements).with_shard_group(group));
        }
        Ok(Type::Replicated) => return with(HloSharding::replicate()),
        Ok(Type::Manual) => return with(HloSharding::manual()),
        Ok(Type::Unreduced) => return with(HloSharding::unreduced()),
        Ok(Type::Unknown) => return with(HloSharding::unknown()),
        Ok(Type::Maximal) => {
            let [d] = p.tile_assignment_devices.as_slice() else {
                return Err(ret_check(format!(
                    "Maximal sharding is expected to have single device assignment, but {} has provided.",
                    p.tile_assignment_devices.len()
                )));
            };
            return with(HloSharding::assign_device(*d));
        }
        Ok(Type::Other) => {}
        Err(_) => {
            return Err(ret_check(format!(
                "OpSharding type {} is not OTHER (proto.type() == OpSharding::OTHER)",
                p.r#type
            )));
        }
    }
    let use_iota = !p.iota_reshape_dims.is_empty();
    if use_iota {
        if !p.tile_assignment_devices.is_empty() {
            return Err(ret_check(
                "OpSharding has both iota_reshape_dims and tile_assignment_devices (proto.tile_assignment_devices().empty())",
            ));
        }
        if p.iota_reshape_dims.len() != p.iota_transpose_perm.len() {
            return Err(ret_check(format!(
                "OpSharding has {} iota_reshape_dims and {} iota_transpose_perm (proto.iota_reshape_dims().size() == proto.iota_transpose_perm().size())",
                p.iota_reshape_dims.len(),
                p.iota_transpose_perm.len()
            )));
        }
        if p.iota_reshape_dims.iter().all(|&d| d == 1) {
            return with(HloSharding::replicate());
        }
    } else {
        if p.tile_assignment_devices.is_empty() {
            return Err(ret_check(
                "OpSharding of type OTHER has no devices (!proto.tile_assignment_devices().empty())",
            ));
        }
        if p.tile_assignment_devices.len() == 1 {
            return with(HloSharding::replicate());
        }
    }
    let dims = &p.tile_assignment_dimensions;
    if dims.is_empty() {
        return Err(ret_check(
            "OpSharding of type OTHER has no tile_assignment_dimensions (!proto.tile_assignment_dimensions().empty())",
        ));
    }
    if dims.iter().any(|&d| d <= 0) {
        return Err(ret_check(format!(
            "OpSharding tile_assignment_dimensions {dims:?} are not all positive (absl::c_all_of(proto.tile_assignment_dimensions(), [](int64_t d) {{ return d > 0; }}))"
        )));
    }
    let n = product(dims);
    let ta = if use_iota {
        if n != product(&p.iota_reshape_dims) {
            return Err(ret_check(format!(
                "OpSharding tile_assignment_dimensions hold {n} devices and iota_reshape_dims {} (product_of_dimensions == product_of_iota_dimensions)",
                product(&p.iota_reshape_dims)
            )));
        }
        let perm: Vec<i64> = p
            .iota_transpose_perm
            .iter()
            .map(|&x| i64::from(x))
            .collect();
        if perm
            .iter()
            .any(|&x| x < 0 || x as usize >= p.iota_reshape_dims.len())
        {
            return Err(ret_check(format!(
                "OpSharding iota_transpose_perm {perm:?} is not a permutation of the iota_reshape_dims (XLA reads past its array)"
            )));
        }
        TileAssignment::iota(dims, &p.iota_reshape_dims, &perm)
    } else {
        if checked_product(dims) != Some(p.tile_assignment_devices.len() as i64) {
            return Err(ret_check(format!(
                "OpSharding tile_assignment_dimensions hold {n} devices and tile_assignment_devices {} (product_of_dimensions == proto.tile_assignment_devices().size())",
                p.tile_assignment_devices.len()
            )));
        }
        TileAssignment::list(dims.clone(), p.tile_assignment_devices.clone())
    };
    let s = if !p.last_tile_dims.is_empty() {
        if p.replicate_on_last_tile_dim {
            return Err(ret_check(
                "OpSharding has both last_tile_dims and replicate_on_last_tile_dim (!proto.replicate_on_last_tile_dim())",
            ));
        }
        let types = p
            .last_tile_dims
            .iter()
            .map(|&t| subgroup_type(t))
            .collect::<Result<Vec<_>>>()?;
        construct::subgroup(ta, &types, metadata.clone())?
    } else if p.replicate_on_last_tile_dim {
        construct::partial_tile(ta, metadata.clone())?
    } else {
        HloSharding::tile(ta).with_metadata(metadata.clone())
    };
    Ok(s.with_shard_group(group))
}

// ------------------------------------------------------------------ writing

/// Appends `m` as length-delimited field `number`.
fn length_delimited(number: u32, body: &[u8], out: &mut Vec<u8>) {
    encoding::encode_key(number, WireType::LengthDelimited, out);
    encoding::encode_varint(body.len() as u64, out);
    out.extend_from_slice(body);
}

/// `OpSharding` bytes as XLA's C++ runtime writes them: prost's encoding
/// of each field in field order (as C++ orders them), except that
/// `OpMetadata.profile_type` is packed as C++ packs it (prost's generated
/// field says `packed = "false"`, so `prost::Message::encode_to_vec` of
/// the message writes it unpacked).
pub(crate) fn encode_op_sharding(p: &OpSharding, out: &mut Vec<u8>) {
    if p.r#type != 0 {
        encoding::int32::encode(field::TYPE, &p.r#type, out);
    }
    if let Some(shape) = &p.tile_shape {
        encoding::message::encode(field::TILE_SHAPE, shape, out);
    }
    encoding::int64::encode_packed(
        field::TILE_ASSIGNMENT_DIMENSIONS,
        &p.tile_assignment_dimensions,
        out,
    );
    encoding::int64::encode_packed(
        field::TILE_ASSIGNMENT_DEVICES,
        &p.tile_assignment_devices,
        out,
    );
    for t in &p.tuple_shardings {
        let mut body = Vec::new();
        encode_op_sharding(t, &mut body);
        length_delimited(field::TUPLE_SHARDINGS, &body, out);
    }
    if p.replicate_on_last_tile_dim {
        encoding::bool::encode(field::REPLICATE_ON_LAST_TILE_DIM, &true, out);
    }
    for m in &p.metadata {
        length_delimited(field::METADATA, &encode_op_metadata(m), out);
    }
    encoding::int32::encode_packed(field::LAST_TILE_DIMS, &p.last_tile_dims, out);
    encoding::int64::encode_packed(field::IOTA_RESHAPE_DIMS, &p.iota_reshape_dims, out);
    encoding::int32::encode_packed(field::IOTA_TRANSPOSE_PERM, &p.iota_transpose_perm, out);
    if p.is_shard_group {
        encoding::bool::encode(field::IS_SHARD_GROUP, &true, out);
    }
    if p.shard_group_id != 0 {
        encoding::int64::encode(field::SHARD_GROUP_ID, &p.shard_group_id, out);
    }
    if p.shard_group_type != 0 {
        encoding::int32::encode(field::SHARD_GROUP_TYPE, &p.shard_group_type, out);
    }
    if let Some(n) = &p.named_sharding {
        length_delimited(field::NAMED_SHARDING, &encode_named_sharding(n), out);
    }
}

/// `OpMetadata` bytes in C++'s order with `profile_type` (field 5) packed:
/// prost's bytes of fields 1 to 4, the packed field, prost's bytes of the
/// rest (prost writes fields in number order).
#[allow(deprecated)] // `profile_type`, which XLA still writes.
fn encode_op_metadata(m: &OpMetadata) -> Vec<u8> {
    let head = OpMetadata {
        op_type: m.op_type.clone(),
        op_name: m.op_name.clone(),
        source_file: m.source_file.clone(),
        source_line: m.source_line,
        ..Default::default()
    };
    let mut tail = m.clone();
    tail.op_type.clear();
    tail.op_name.clear();
    tail.source_file.clear();
    tail.source_line = 0;
    tail.profile_type.clear();
    let mut out = head.encode_to_vec();
    encoding::int32::encode_packed(op_metadata::PROFILE_TYPE, &m.profile_type, &mut out);
    out.extend_from_slice(&tail.encode_to_vec());
    out
}

/// `NamedShardingProto` bytes: its `metadata` (field 6) written by
/// [`encode_op_metadata`] between fields 5 and 7.
fn encode_named_sharding(n: &NamedShardingProto) -> Vec<u8> {
    let head = NamedShardingProto {
        metadata: Vec::new(),
        manual_axes: Vec::new(),
        ..n.clone()
    };
    let tail = NamedShardingProto {
        manual_axes: n.manual_axes.clone(),
        ..Default::default()
    };
    let mut out = head.encode_to_vec();
    for m in &n.metadata {
        length_delimited(named_sharding::METADATA, &encode_op_metadata(m), &mut out);
    }
    out.extend_from_slice(&tail.encode_to_vec());
    out
}

// --------------------------------------------------------------- named form

fn axis_to_proto(a: &AxisRef) -> AxisRefProto {
    AxisRefProto {
        mesh_axis_index: a.index(),
        sub_axis_info: a
            .sub_axis_info()
            .map(|(pre_size, size)| axis_ref_proto::SubAxis { pre_size, size }),
    }
}

fn mesh_to_proto(mesh: &Mesh) -> MeshProto {
    let mut p = MeshProto::default();
    if let Some(d) = mesh.maximal_device() {
        p.device_ids = vec![d];
        return p;
    }
    p.axes = mesh
        .axes()
        .iter()
        .map(|(name, size)| mesh_proto::MeshAxis {
            name: name.clone(),
            size: *size,
        })
        .collect();
    match mesh.devices() {
        MeshDevices::Iota => {}
        MeshDevices::IotaTransposed {
            reshape_dims,
            transpose_perm,
        } => {
            p.iota_transform = Some(mesh_proto::IotaTransform {
                reshape_dims: reshape_dims.clone(),
                transpose_perm: transpose_perm.clone(),
            });
        }
        MeshDevices::List(ids) => p.device_ids = ids.clone(),
    }
    p
}

/// XLA's `NamedSharding::ToProto`.
pub(crate) fn named_to_proto(n: &NamedSharding) -> NamedShardingProto {
    NamedShardingProto {
        mesh: Some(mesh_to_proto(n.mesh())),
        dim_shardings: n
            .dim_shardings()
            .iter()
            .map(|d| named_sharding_proto::DimensionSharding {
                axes: d.axes().iter().map(axis_to_proto).collect(),
                is_closed: d.is_closed(),
            })
            .collect(),
        replicated_axes: n.replicated_axes().iter().map(axis_to_proto).collect(),
        unreduced_axes: n.unreduced_axes().iter().map(axis_to_proto).collect(),
        manual_axes: n.manual_axes().iter().map(axis_to_proto).collect(),
        metadata: n.metadata().to_vec(),
    }
}

fn axis_from_proto(p: &AxisRefProto) -> Result<AxisRef> {
    match &p.sub_axis_info {
        Some(s) => AxisRef::sub_axis(p.mesh_axis_index, s.pre_size, s.size),
        None => Ok(AxisRef::new(p.mesh_axis_index)),
    }
}

/// XLA's `Mesh::FromProto`.
fn mesh_from_proto(p: &MeshProto) -> Result<Mesh> {
    if p.axes.is_empty() {
        return match p.device_ids.as_slice() {
            [] => Mesh::new(Vec::new()),
            [d] => Ok(Mesh::maximal(*d)),
            _ => Err(Error::malformed(
                "Maximal mesh must have exactly 1 device id.",
            )),
        };
    }
    let mut axes = Vec::with_capacity(p.axes.len());
    for a in &p.axes {
        if a.size <= 0 {
            return Err(Error::malformed("Mesh axis size must be positive."));
        }
        axes.push((a.name.clone(), a.size));
    }
    let devices = if !p.device_ids.is_empty() {
        MeshDevices::List(p.device_ids.clone())
    } else if let Some(t) = &p.iota_transform {
        MeshDevices::IotaTransposed {
            reshape_dims: t.reshape_dims.clone(),
            transpose_perm: t.transpose_perm.clone(),
        }
    } else {
        MeshDevices::Iota
    };
    if let MeshDevices::IotaTransposed {
        reshape_dims,
        transpose_perm,
    } = &devices
        && (reshape_dims.len() != transpose_perm.len()
            || transpose_perm
                .iter()
                .any(|&x| x < 0 || x as usize >= reshape_dims.len()))
    {
        return Err(Error::malformed(
            "MeshProto iota_transform transpose_perm is not a permutation of its reshape_dims",
        ));
    }
    Mesh::with_devices(axes, devices).map_err(|e| Error::malformed(e.message()))
}

/// XLA's `NamedSharding::FromProto`.
fn named_from_proto(p: &NamedShardingProto) -> Result<NamedSharding> {
    let mesh = mesh_from_proto(p.mesh.as_ref().unwrap_or(&MeshProto::default()))?;
    let axes = |v: &[AxisRefProto]| v.iter().map(axis_from_proto).collect::<Result<Vec<_>>>();
    let dims = p
        .dim_shardings
        .iter()
        .map(|d| Ok(DimensionSharding::new(axes(&d.axes)?, d.is_closed)))
        .collect::<Result<Vec<_>>>()?;
    let mut n = NamedSharding::new(
        mesh,
        dims,
        axes(&p.replicated_axes)?,
        axes(&p.unreduced_axes)?,
        axes(&p.manual_axes)?,
    )
    .map_err(|e| Error::malformed(e.message()))?;
    n.metadata = p.metadata.clone();
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Each field number against the generated message's tag: a message
    // with only that field set encodes to a key with that number.
    #[test]
    fn field_numbers_match_the_schema() {
        let key = |m: &OpSharding| m.encode_to_vec()[0] >> 3;
        let cases: [(OpSharding, u32); 8] = [
            (
                OpSharding {
                    r#type: 3,
                    ..Default::default()
                },
                field::TYPE,
            ),
            (
                OpSharding {
                    tile_assignment_dimensions: vec![1],
                    ..Default::default()
                },
                field::TILE_ASSIGNMENT_DIMENSIONS,
            ),
            (
                OpSharding {
                    tile_assignment_devices: vec![1],
                    ..Default::default()
                },
                field::TILE_ASSIGNMENT_DEVICES,
            ),
            (
                OpSharding {
                    replicate_on_last_tile_dim: true,
                    ..Default::default()
                },
                field::REPLICATE_ON_LAST_TILE_DIM,
            ),
            (
                OpSharding {
                    last_tile_dims: vec![1],
                    ..Default::default()
                },
                field::LAST_TILE_DIMS,
            ),
            (
                OpSharding {
                    iota_reshape_dims: vec![1],
                    ..Default::default()
                },
                field::IOTA_RESHAPE_DIMS,
            ),
            (
                OpSharding {
                    iota_transpose_perm: vec![1],
                    ..Default::default()
                },
                field::IOTA_TRANSPOSE_PERM,
            ),
            (
                OpSharding {
                    shard_group_id: 1,
                    ..Default::default()
                },
                field::SHARD_GROUP_ID,
            ),
        ];
        for (m, number) in cases {
            assert_eq!(u32::from(key(&m)), number);
        }
    }
}
