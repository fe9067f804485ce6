//! `sharding`: an HloSharding read and explained: XLA's text and bytes, its
//! kind and device count, and with `--shape` what each device holds.

use std::io::Write;

use serde_json::{Value, json};
use xla_shape::sharding::{HloSharding, shardy};
use xla_shape::{Error, ErrorKind, Result, Shape, formats, proto, text};

use crate::input::{self, Limits};
use crate::output::{Failure, write_json};

/// The forms of a sharding on input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ShardingFormat {
    /// HloSharding text, `{devices=[2,1]0,1}` (also an `mhlo.sharding`
    /// value, quoted).
    Text,
    /// OpSharding bytes as hex.
    Hex,
    /// OpSharding bytes.
    Pb,
    /// OpSharding as proto3 JSON.
    Json,
    /// OpSharding as protobuf text format.
    Pbtxt,
    /// A Shardy `#sdy.sharding<@mesh, [...]>` (with `--mesh`).
    Shardy,
}

/// What `sharding` is asked.
pub struct Options<'a> {
    pub from: Option<ShardingFormat>,
    pub shape: Option<&'a str>,
    pub mesh: Option<&'a str>,
    pub json: bool,
}

fn utf8(bytes: &[u8]) -> Result<&str> {
    std::str::from_utf8(bytes)
        .map_err(|e| Error::new(ErrorKind::Format, format!("input is not UTF-8 text: {e}")))
}

/// The sharding of an `mhlo.sharding = "..."` attribute or a quoted
/// string: the text between the quotes, `\"` and `\\` unescaped.
fn unquote(t: &str) -> Option<String> {
    let t = t.trim();
    let t = t
        .strip_prefix("mhlo.sharding")
        .map_or(t, |r| r.trim_start().trim_start_matches('=').trim_start());
    let inner = t.strip_prefix('"')?.strip_suffix('"')?;
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some(n) => out.push(n),
                None => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    Some(out)
}

/// The format of an input written without `--from`: `#sdy`, `<@`,
/// `sdy.mesh` or `<[` (a mesh, then the sharding) starts Shardy, hex digits are hex, other printable text is
/// HloSharding text (quoted or not), anything else OpSharding bytes.
fn detect(bytes: &[u8]) -> ShardingFormat {
    let Ok(t) = std::str::from_utf8(bytes) else {
        return ShardingFormat::Pb;
    };
    let t = t.trim();
    if ["#sdy", "<@", "sdy.mesh", "<["]
        .iter()
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

/// Reads the sharding, and the mesh it names or `--mesh` gives.
fn read(
    bytes: &[u8],
    options: &Options<'_>,
) -> Result<(HloSharding, Option<xla_shape::sharding::Mesh>)> {
    let mesh = match options.mesh {
        Some(m) => Some(shardy::parse_mesh(m)?.1),
        None => None,
    };
    let from = options.from.unwrap_or_else(|| detect(bytes));
    let sharding = match from {
        ShardingFormat::Text => {
            let t = utf8(bytes)?;
            match unquote(t) {
                Some(inner) => inner.parse()?,
                None => t.trim().parse()?,
            }
        }
        ShardingFormat::Hex => HloSharding::from_proto_bytes(&formats::from_hex(utf8(bytes)?)?)?,
        ShardingFormat::Pb => HloSharding::from_proto_bytes(bytes)?,
        ShardingFormat::Json => {
            HloSharding::try_from(&formats::from_json::<proto::OpSharding>(utf8(bytes)?)?)?
        }
        ShardingFormat::Pbtxt => HloSharding::try_from(&formats::from_text_format::<
            proto::OpSharding,
        >(utf8(bytes)?)?)?,
        ShardingFormat::Shardy => {
            let t = utf8(bytes)?;
            // The mesh may come first in the input, on a line of its own.
            let (inline_mesh, sharding_text) = match t.trim().split_once('\n') {
                Some((first, rest))
                    if ["sdy.mesh", "#sdy.mesh", "<["]
                        .iter()
                        .any(|p| first.trim_start().starts_with(p)) =>
                {
                    (Some(shardy::parse_mesh(first)?.1), rest)
                }
                _ => (None, t),
            };
            let s: shardy::ShardySharding = sharding_text.trim().parse()?;
            let Some(mesh) = inline_mesh.as_ref().or(mesh.as_ref()) else {
                if let shardy::MeshRef::Inline(m) = &s.mesh {
                    let h = s.to_hlo_sharding(m)?;
                    return Ok((h, Some(m.clone())));
                }
                return Err(Error::new(
                    ErrorKind::InvalidArgument,
                    "a Shardy sharding needs its mesh: give --mesh '<[\"x\"=2, \"y\"=4]>' (or the sdy.mesh line before the sharding)",
                ));
            };
            let h = s.to_hlo_sharding(mesh)?;
            let mesh = mesh.clone();
            return Ok((h, Some(mesh)));
        }
    };
    Ok((sharding, mesh))
}

/// How a tiled sharding cuts the array: `[3,2] over the array's
/// dimensions, each on 2 devices (last_tile_dim_replicate)`.
fn tiles(v2: &HloSharding) -> Result<String> {
    let dims = v2.tile_assignment_dimensions()?;
    let rank = v2.tiled_data_rank().unwrap_or(dims.len()).min(dims.len());
    let list = |d: &[i64]| d.iter().map(i64::to_string).collect::<Vec<_>>().join(",");
    let mut text = format!("[{}] over the array's dimensions", list(&dims[..rank]));
    let extra = &dims[rank..];
    if v2.replicate_on_last_tile_dim() {
        let n = extra.last().copied().unwrap_or(1);
        text.push_str(&format!(", each on {n} devices (last_tile_dim_replicate)"));
    } else if !v2.subgroup_types().is_empty() {
        let groups: Vec<String> = v2
            .subgroup_types()
            .iter()
            .zip(extra)
            .map(|(t, n)| format!("{} {n}", t.as_str_name().to_lowercase()))
            .collect();
        text.push_str(&format!(", subgroups: {}", groups.join(", ")));
    }
    Ok(text)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// One device's part of `shape`.
struct Part {
    device: i64,
    shape: String,
    index: Vec<(i64, i64)>,
}

/// Each device's part of `shape`, ascending by device: the devices of the
/// tile assignment; for a sharding that names none (replicated), the
/// devices of `--mesh`, each holding the whole array.
fn parts(s: &HloSharding, shape: &Shape, mesh_devices: Option<i64>) -> Result<Vec<Part>> {
    let array = shape.as_array().ok_or_else(|| {
        Error::new(
            ErrorKind::InvalidArgument,
            format!("--shape gives {shape}: per-device shapes are for arrays"),
        )
    })?;
    let dims = array.dimensions();
    let slices = if s.is_replicated() {
        s.devices_indices_map(dims, mesh_devices.unwrap_or(0))?
    } else {
        s.device_slices(dims)?
    };
    slices
        .into_iter()
        .map(|d| {
            let part = s.tile_shape_for_device(shape, d.device)?;
            Ok(Part {
                device: d.device,
                shape: part.to_string(),
                index: d
                    .offsets
                    .iter()
                    .copied()
                    .zip(d.limits.iter().copied())
                    .collect(),
            })
        })
        .collect()
}

/// Prints the sharding's text, bytes and kind, and with `--shape` each
/// device's part; fails with XLA's message.
pub fn run(
    arg: Option<&str>,
    options: &Options<'_>,
    limits: &Limits,
    out: &mut impl Write,
) -> Result<(), Failure> {
    let bytes = input::read_all(arg, limits.max_input)?;
    let (s, mesh) = read(&bytes, options)?;
    let shape = match options.shape {
        Some(t) => {
            let shape = text::parse_shape(t)?;
            s.validate(&shape, None)?;
            Some(shape)
        }
        None => None,
    };
    let num_devices = s.num_devices().ok();
    let parts = match &shape {
        Some(shape) if s.is_tuple() => {
            return Err(Failure::Input(crate::output::Problem::new(
                ErrorKind::InvalidArgument.as_str(),
                format!(
                    "--shape {shape}: per-device parts are given for array shardings, and {s} is a tuple"
                ),
            )));
        }
        Some(shape) => Some(parts(&s, shape, mesh.as_ref().map(|m| m.num_devices()))?),
        None => None,
    };
    let proto_hex = hex(&s.to_proto_bytes());
    if options.json {
        let mut doc = json!({
            "sharding": s.to_string(),
            "proto_hex": proto_hex,
            "num_devices": num_devices,
            "replicated": s.is_replicated(),
            "maximal": s.is_maximal(),
            "manual": s.is_manual(),
            "tiled": s.is_tiled(),
            "tuple": s.is_tuple(),
        });
        if let (Some(parts), Value::Object(map)) = (&parts, &mut doc) {
            let devices: Vec<Value> = parts
                .iter()
                .map(|p| {
                    json!({
                        "device": p.device,
                        "shape": p.shape,
                        "index": p.index.iter().map(|&(a, b)| json!([a, b])).collect::<Vec<_>>(),
                    })
                })
                .collect();
            map.insert("devices".into(), Value::Array(devices));
        }
        write_json(out, &doc)?;
        return Ok(());
    }
    writeln!(out, "sharding:    {s}")?;
    let kind = if s.is_tuple() {
        format!("tuple of {}", s.tuple_elements().len())
    } else if s.is_replicated() {
        "replicated".into()
    } else if s.is_manual() {
        "manual".into()
    } else if s.is_unknown() {
        "unknown".into()
    } else if s.is_unreduced() {
        "unreduced".into()
    } else if let Some(d) = s.unique_device() {
        format!("maximal: the whole array on device {d}")
    } else {
        "tiled".into()
    };
    writeln!(out, "kind:        {kind}")?;
    match num_devices {
        Some(n) if s.is_tiled() || s.unique_device().is_some() => {
            writeln!(out, "devices:     {n}")?
        }
        Some(_) => writeln!(out, "devices:     any number (the sharding names none)")?,
        None => {}
    }
    if s.is_tiled() && !s.is_tuple() {
        writeln!(out, "tiles:       {}", tiles(&s.to_v2()?)?)?;
    }
    if proto_hex.is_empty() {
        writeln!(out, "proto (hex): (empty: every field at its default)")?;
    } else {
        writeln!(out, "proto (hex): {proto_hex}")?;
    }
    if let Some(parts) = parts {
        writeln!(out)?;
        let width = parts
            .iter()
            .map(|p| p.shape.len())
            .max()
            .unwrap_or(5)
            .max(5);
        writeln!(out, "{:>6}  {:<width$}  index", "device", "shape")?;
        for p in parts {
            let index: Vec<String> = p.index.iter().map(|(a, b)| format!("{a}:{b}")).collect();
            writeln!(
                out,
                "{:>6}  {:<width$}  [{}]",
                p.device,
                p.shape,
                index.join(", ")
            )?;
        }
    }
    Ok(())
}
