//! A sharding on the command line (`sharding`, `draw --sharding`): its
//! forms (`--from`), their detection, and reading one into the library's
//! `HloSharding`, with the Shardy mesh it names or is given.

use xla_shape::sharding::{HloSharding, Mesh, shardy};
use xla_shape::{Error, ErrorKind, Result, formats, proto};

use super::format::utf8;

/// The forms of a sharding on input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ShardingFormat {
    /// HloSharding text, `{devices=[2,1]0,1}`, or an `mhlo.sharding`
    /// attribute or its quoted value, read as XLA reads one.
    Text,
    /// OpSharding bytes as hex.
    Hex,
    /// OpSharding bytes.
    Pb,
    /// OpSharding as proto3 JSON.
    Json,
    /// OpSharding as protobuf text format.
    Pbtxt,
    /// A Shardy `#sdy.sharding<@mesh, [...]>` (with `--mesh`, or its
    /// `sdy.mesh` on the line before).
    Shardy,
}

/// The first words of a Shardy mesh.
const MESH_STARTS: [&str; 3] = ["sdy.mesh", "#sdy.mesh", "<["];

/// The form of an input given without `--from`: `#sdy`, `<@`, or a mesh
/// (then the sharding) starts Shardy, hex digits are hex, other printable
/// text is HloSharding text (or an `mhlo.sharding` value), anything else
/// OpSharding bytes.
pub fn detect(bytes: &[u8]) -> ShardingFormat {
    let Ok(t) = std::str::from_utf8(bytes) else {
        return ShardingFormat::Pb;
    };
    let t = t.trim();
    if ["#sdy", "<@"]
        .iter()
        .chain(&MESH_STARTS)
        .any(|p| t.starts_with(p))
    {
        ShardingFormat::Shardy
    } else if !t.is_empty()
        && t.bytes()
            .all(|c| c.is_ascii_hexdigit() || c.is_ascii_whitespace())
    {
        ShardingFormat::Hex
    } else if t.chars().all(|c| !c.is_control() || c.is_whitespace()) {
        ShardingFormat::Text
    } else {
        ShardingFormat::Pb
    }
}

/// Reads `bytes` as a sharding in the form `from` (detected when `None`),
/// and the Shardy mesh that goes with it: `mesh` (the text of `--mesh`),
/// or for a Shardy input the `sdy.mesh` line before the sharding or the
/// sharding's inline mesh.
pub fn read_sharding(
    bytes: &[u8],
    from: Option<ShardingFormat>,
    mesh: Option<&str>,
) -> Result<(HloSharding, Option<Mesh>)> {
    let mesh = mesh
        .map(|m| shardy::parse_mesh(m).map(|(_, m)| m))
        .transpose()?;
    let sharding = match from.unwrap_or_else(|| detect(bytes)) {
        ShardingFormat::Text => HloSharding::from_mhlo_sharding(utf8(bytes)?)?,
        ShardingFormat::Hex => HloSharding::from_proto_bytes(&formats::from_hex(utf8(bytes)?)?)?,
        ShardingFormat::Pb => HloSharding::from_proto_bytes(bytes)?,
        ShardingFormat::Json => {
            HloSharding::try_from(&formats::from_json::<proto::OpSharding>(utf8(bytes)?)?)?
        }
        ShardingFormat::Pbtxt => HloSharding::try_from(&formats::from_text_format::<
            proto::OpSharding,
        >(utf8(bytes)?)?)?,
        ShardingFormat::Shardy => return read_shardy(utf8(bytes)?, mesh),
    };
    Ok((sharding, mesh))
}

/// A Shardy sharding, after the line of its mesh if it has one, over that
/// mesh, `mesh`, or its inline mesh.
fn read_shardy(text: &str, mesh: Option<Mesh>) -> Result<(HloSharding, Option<Mesh>)> {
    let (inline_mesh, sharding_text) = match text.trim().split_once('\n') {
        Some((first, rest))
            if MESH_STARTS
                .iter()
                .any(|p| first.trim_start().starts_with(p)) =>
        {
            (Some(shardy::parse_mesh(first)?.1), rest)
        }
        _ => (None, text),
    };
    let s: shardy::ShardySharding = sharding_text.trim().parse()?;
    let mesh = match (inline_mesh.or(mesh), &s.mesh) {
        (Some(mesh), _) => mesh,
        (None, shardy::MeshRef::Inline(mesh)) => mesh.clone(),
        (None, _) => {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                "a Shardy sharding needs its mesh: give --mesh '<[\"x\"=2, \"y\"=4]>' (or the sdy.mesh line before the sharding)",
            ));
        }
    };
    Ok((s.to_hlo_sharding(&mesh)?, Some(mesh)))
}
