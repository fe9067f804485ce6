//! The memory a StableHLO module needs, from its signature: arguments,
//! outputs and aliased bytes as XLA counts them once it has converted and
//! compiled the module, and per device from the signature's shardings.
//! Temporaries are not counted: the StableHLO reader keeps each
//! operation's result types but not its operands, so the liveness
//! simulation of the estimate cannot run on it (and before optimization it
//! would be an order of magnitude, not a figure; see `docs/memory.md`).

use super::devices::{Value, per_device, value_bytes};
use super::{AllocationKind, HostBytes, MemoryAnalysis, PeakBuffer, Source, add, by_kind};
use crate::error::Result;
use crate::model::Shape;
use crate::shape_util::for_each_subshape;
use crate::sharding::HloSharding;
use crate::stablehlo::{Signature, SignatureValue, StableHloModule};

/// The memory `module` needs: [`Source::Estimate`], with the arguments and
/// outputs of its entry function `@main` in the layouts compilation asks
/// for (XLA:CPU's default layout, sub-byte types packed, or
/// `mhlo.layout_mode`'s; the conversion's for `auto`), every subshape an
/// allocation and tuple index tables included, `pinned_host` values in
/// [`MemoryAnalysis::host`]; the aliased bytes of `tf.aliasing_output`
/// and of `jax.buffer_donor`s matched in order to the first output of
/// the same shape (XLA's `OptimizeInputOutputBufferAlias`); no temporaries
/// ([`MemoryAnalysis::temporaries_counted`] is false); and
/// [`MemoryAnalysis::devices`] from the signature's shardings.
///
/// ```
/// use xla_shape::memory::analyze_stablehlo;
/// use xla_shape::stablehlo::StableHloModule;
///
/// let module = StableHloModule::from_text(
///     r#"module @m attributes {mhlo.num_partitions = 8 : i32} {
///   func.func public @main(%arg0: tensor<64x32xf32> {mhlo.sharding = "{devices=[4,2]<=[8]}"}) -> (tensor<64x32xf32> {mhlo.sharding = "{replicated}"}) {
///     return %arg0 : tensor<64x32xf32>
///   }
/// }"#,
/// )?;
/// let m = analyze_stablehlo(&module)?;
/// assert_eq!((m.arguments, m.outputs, m.temporaries_counted), (8192, 8192, false));
/// // Each of 8 devices holds a f32[16,16] shard of the argument and the
/// // whole result.
/// assert_eq!(m.devices.len(), 8);
/// assert_eq!((m.devices[0].arguments, m.devices[0].outputs), (1024, 8192));
/// # Ok::<(), xla_shape::Error>(())
/// ```
///
/// # Errors
///
/// As [`StableHloModule::signature`]; a sharding that does not read
/// ([`SignatureValue::hlo_sharding`]) or does not fit its value;
/// [`ErrorKind::Overflow`](crate::ErrorKind::Overflow) for sizes whose sum
/// overflows `i64`.
pub fn analyze_stablehlo(module: &StableHloModule) -> Result<MemoryAnalysis> {
    let signature = module.signature()?;
    let compiled = signature.compile_entry_computation_layout();
    let layout = compiled
        .as_ref()
        .unwrap_or_else(|| signature.entry_computation_layout());
    let parameters: Vec<&Shape> = layout.parameters().iter().collect();
    let result = layout.result();

    let mut host = HostBytes::default();
    let (mut arguments, mut outputs) = (0, 0);
    let mut kinds: Vec<(AllocationKind, i64, i64)> = Vec::new();
    let mut peak_buffers = Vec::new();
    for (p, shape) in signature.parameters.iter().zip(&parameters) {
        let bytes = value_bytes(shape, None, false)?;
        arguments = add(arguments, bytes)?;
        host.arguments = add(host.arguments, value_bytes(shape, None, true)?)?;
        buffers(
            p,
            shape,
            AllocationKind::Parameter,
            &mut kinds,
            &mut peak_buffers,
        );
    }
    outputs = add(outputs, value_bytes(result, None, false)?)?;
    host.outputs = value_bytes(result, None, true)?;
    match (signature.results.as_slice(), result) {
        ([one], _) => buffers(
            one,
            result,
            AllocationKind::Output,
            &mut kinds,
            &mut peak_buffers,
        ),
        (results, Shape::Tuple(elements)) => {
            for (r, shape) in results.iter().zip(elements) {
                buffers(
                    r,
                    shape,
                    AllocationKind::Output,
                    &mut kinds,
                    &mut peak_buffers,
                );
            }
            // The result tuple's index table.
            kinds.push((
                AllocationKind::Output,
                0,
                crate::shape_util::byte_size_of(result, 8)?,
            ));
        }
        _ => {}
    }
    let aliased = aliased(&signature, &parameters, result)?;
    peak_buffers.sort_by(|a, b| {
        b.bytes
            .cmp(&a.bytes)
            .then_with(|| a.instruction.cmp(&b.instruction))
    });

    let mut values: Vec<Value<'_>> = Vec::with_capacity(parameters.len());
    for (p, shape) in signature.parameters.iter().zip(&parameters) {
        values.push((shape, p.hlo_sharding().transpose()?));
    }
    let result_sharding = result_sharding(&signature)?;
    let devices = per_device(
        &values,
        (result, result_sharding.as_ref()),
        signature.num_partitions,
    )?;
    Ok(MemoryAnalysis {
        module: module.name.clone().unwrap_or_else(|| "main".into()),
        source: Source::Estimate,
        arguments,
        outputs,
        aliased,
        temporaries: 0,
        temporaries_counted: false,
        host,
        allocations_total: None,
        by_kind: by_kind(kinds.into_iter())?,
        peak_buffers,
        timeline: Vec::new(),
        devices,
    })
}

/// The result's sharding: the one result's, or the tuple of every
/// result's when all have one (XLA gives the root a tuple sharding then);
/// `None` when no result has one. A result without one among others that
/// have one is taken as replicated.
fn result_sharding(signature: &Signature) -> Result<Option<HloSharding>> {
    let mut shardings = Vec::with_capacity(signature.results.len());
    for r in &signature.results {
        shardings.push(r.hlo_sharding().transpose()?.cloned());
    }
    if shardings.iter().all(Option::is_none) {
        return Ok(None);
    }
    if let [one] = shardings.as_slice() {
        return Ok(one.clone());
    }
    Ok(Some(HloSharding::tuple(
        shardings
            .into_iter()
            .map(|s| s.unwrap_or_else(HloSharding::replicate))
            .collect(),
    )))
}

/// One peak buffer and one allocation per array leaf of `shape` (a
/// parameter or a result named `v.name`), and one per tuple index table.
fn buffers(
    v: &SignatureValue,
    shape: &Shape,
    kind: AllocationKind,
    kinds: &mut Vec<(AllocationKind, i64, i64)>,
    peak: &mut Vec<PeakBuffer>,
) {
    for_each_subshape(shape, |s, index| {
        let space = s
            .as_array()
            .and_then(|a| a.layout())
            .map_or(0, |l| l.memory_space());
        let bytes = crate::shape_util::byte_size_of(s, 8).unwrap_or(0);
        kinds.push((kind, space, bytes));
        peak.push(PeakBuffer {
            instruction: v.name.clone(),
            computation: "main".into(),
            shape_index: index.as_slice().to_vec(),
            shape: s.to_string(),
            bytes,
            kind,
        });
    });
}

/// The argument bytes outputs reuse: each `tf.aliasing_output` parameter,
/// and each buffer donor matched to the first output leaf of its shape not
/// yet taken.
fn aliased(signature: &Signature, parameters: &[&Shape], result: &Shape) -> Result<i64> {
    let mut total = 0;
    let mut taken_params = Vec::new();
    for a in &signature.input_output_alias {
        if let Some(p) = parameters.get(a.parameter) {
            total = add(total, value_bytes(p, None, false)?)?;
            taken_params.push(a.parameter);
        }
    }
    if !signature.input_output_alias.is_empty() {
        return Ok(total);
    }
    let mut leaves: Vec<Shape> = Vec::new();
    for_each_subshape(result, |s, _| {
        if s.as_array().is_some() {
            leaves.push(s.clone());
        }
    });
    let mut taken = vec![false; leaves.len()];
    for &d in &signature.buffer_donors {
        let Some(p) = parameters.get(d) else { continue };
        if let Some(k) = (0..leaves.len()).find(|&k| !taken[k] && leaves[k] == **p) {
            taken[k] = true;
            total = add(total, value_bytes(p, None, false)?)?;
        }
    }
    Ok(total)
}
