//! `sharding`: an HloSharding read and explained: XLA's text and bytes, its
//! kind and device count, and with `--shape` what each device holds; or,
//! given a StableHLO module (text, bytecode or a `jax.export`
//! serialization, detected when `--from` is not given), the sharding of
//! each argument and result of its `@main` as XLA's conversion gives them.

use std::io::Write;

use serde_json::{Value, json};
use xla_shape::formats::to_hex;
use xla_shape::sharding::HloSharding;
use xla_shape::stablehlo::{SignatureValue, StableHloModule};
use xla_shape::{Error, Result, Shape};

use crate::Context;
use crate::input::{ShardingFormat, is_stablehlo, read_sharding};
use crate::output::{Failure, comma_list};

/// The arguments of `sharding`.
#[derive(Clone, Debug, Default, clap::Args)]
pub struct Args {
    /// The sharding (standard input when absent or '-').
    pub input: Option<String>,
    /// The input form (detected when absent; a StableHLO module is then
    /// read as one, and each argument's and result's sharding printed).
    #[arg(long, value_enum)]
    pub from: Option<ShardingFormat>,
    /// An array shape, in any shape format (or @FILE): list each device's
    /// shape and index ranges.
    #[arg(long, value_name = "SHAPE")]
    pub shape: Option<String>,
    /// The Shardy mesh of a `#sdy.sharding` input, as
    /// `sdy.mesh @mesh = <["x"=2, "y"=4]>`, `#sdy.mesh<...>` or
    /// `<...>`; for a replicated sharding, the devices listed with
    /// --shape.
    #[arg(long, value_name = "MESH")]
    pub mesh: Option<String>,
}

/// How a tiled sharding cuts the array: `[3,2] over the array's
/// dimensions, each on 2 devices (last_tile_dim_replicate)`.
fn tiles(v2: &HloSharding) -> Result<String> {
    let dims = v2.tile_assignment_dimensions()?;
    let rank = v2.tiled_data_rank().unwrap_or(dims.len()).min(dims.len());
    let mut text = format!(
        "[{}] over the array's dimensions",
        comma_list(&dims[..rank])
    );
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
            xla_shape::ErrorKind::InvalidArgument,
            format!("--shape gives {shape}: per-device shapes are for arrays"),
        )
    })?;
    let dims = array.dimensions();
    s.device_slices_among(dims, mesh_devices.unwrap_or(0))?
        .into_iter()
        .map(|d| {
            let part = d.part_of(array)?;
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
pub fn run(args: &Args, cx: &mut Context<impl Write>) -> Result<(), Failure> {
    let bytes = cx.read_all(args.input.as_deref())?;
    if args.from.is_none()
        && let Some(module) = stablehlo_module(&bytes)
    {
        return signature(args, &module, cx);
    }
    let (s, mesh) = read_sharding(&bytes, args.from, args.mesh.as_deref())?;
    let shape = match &args.shape {
        Some(text) => {
            let shape = cx.read_value(Some(text), None)?.into_shape()?;
            s.validate(&shape, None)?;
            Some(shape)
        }
        None => None,
    };
    let num_devices = s.num_devices().ok();
    let parts = match &shape {
        Some(shape) if s.is_tuple() => {
            return Err(Error::new(
                xla_shape::ErrorKind::InvalidArgument,
                format!(
                    "--shape {shape}: per-device parts are given for array shardings, and {s} is a tuple"
                ),
            )
            .into());
        }
        Some(shape) => Some(parts(&s, shape, mesh.as_ref().map(|m| m.num_devices()))?),
        None => None,
    };
    let proto_hex = to_hex(&s.to_proto_bytes());
    if cx.json {
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
        cx.write_json(&doc)?;
        return Ok(());
    }
    let out = &mut cx.out;
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

/// `bytes` as a StableHLO module with a `@main`, if they are one (a
/// sharding's text, `#sdy.sharding<...>` or a quoted `mhlo.sharding`
/// value, is not).
fn stablehlo_module(bytes: &[u8]) -> Option<StableHloModule> {
    if !is_stablehlo(bytes) {
        return None;
    }
    let module = StableHloModule::read(bytes).ok()?;
    module.main().is_some().then_some(module)
}

/// One argument's or result's sharding, for the signature's listing.
fn value_json(v: &SignatureValue) -> Value {
    let (sharding, error) = match v.hlo_sharding() {
        None => (None, None),
        Some(Ok(s)) => (Some(s.to_string()), None),
        Some(Err(e)) => (None, Some(e.to_string())),
    };
    json!({
        "name": v.name,
        "shape": v.shape.to_string(),
        "sharding": sharding,
        "written": v.sharding,
        "error": error,
    })
}

/// The shardings of a StableHLO module's `@main`: each argument's and
/// result's as XLA's `ToString` prints the sharding the conversion gives
/// it, `null`/`-` where it has none. A sharding that does not read is
/// listed with its error, and the exit status is 1.
fn signature(
    args: &Args,
    module: &StableHloModule,
    cx: &mut Context<impl Write>,
) -> Result<(), Failure> {
    if args.shape.is_some() || args.mesh.is_some() {
        return Err(Error::new(
            xla_shape::ErrorKind::InvalidArgument,
            "--shape and --mesh are for one sharding; a StableHLO module gives each value's shape and mesh",
        )
        .into());
    }
    let signature = module.signature()?;
    let failed = signature
        .parameters
        .iter()
        .chain(&signature.results)
        .any(|v| matches!(v.hlo_sharding(), Some(Err(_))));
    if cx.json {
        let doc = json!({
            "parameters": signature.parameters.iter().map(value_json).collect::<Vec<_>>(),
            "results": signature.results.iter().map(value_json).collect::<Vec<_>>(),
            "num_partitions": signature.num_partitions,
        });
        cx.write_json(&doc)?;
    } else {
        let out = &mut cx.out;
        for (kind, values) in [
            ("parameter", &signature.parameters),
            ("result", &signature.results),
        ] {
            for (i, v) in values.iter().enumerate() {
                let sharding = match v.hlo_sharding() {
                    None => "-".to_string(),
                    Some(Ok(s)) => s.to_string(),
                    Some(Err(e)) => format!("error: {e}"),
                };
                writeln!(
                    out,
                    "{kind} {i} ({}) {}: {sharding}",
                    crate::output::printable(&v.name),
                    v.shape
                )?;
            }
        }
    }
    if failed {
        return Err(Failure::Reported);
    }
    Ok(())
}
