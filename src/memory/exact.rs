//! The figures of XLA's buffer assignment, read from an `HloProto`.

use std::collections::HashMap;

use super::{
    AllocationKind, HostBytes, MemoryAnalysis, PeakBuffer, Source, Step, add, by_kind, sample,
};
use crate::error::{Error, ErrorKind, Result};
use crate::hlo::{
    BufferAllocation, BufferAssignment, HeapEventKind, HeapTrace, HloComputation, HloInstruction,
    HloModule, LogicalBuffer,
};
use crate::shape_util::try_get_subshape;

/// XLA's `Layout::kHostMemorySpace` (`xla/layout.h`): the color of host
/// memory under the default colorer.
const HOST_MEMORY_SPACE: i64 = 5;

/// What an allocation holds, the first of XLA's descriptions that applies
/// (`BufferAllocation::ToString`).
fn kind(a: &BufferAllocation) -> AllocationKind {
    if a.is_entry_computation_parameter {
        AllocationKind::Parameter
    } else if a.maybe_live_out {
        AllocationKind::Output
    } else if a.is_thread_local {
        AllocationKind::ThreadLocal
    } else if a.is_constant {
        AllocationKind::Constant
    } else {
        AllocationKind::Temporary
    }
}

pub(super) fn analyze(module: &HloModule) -> Result<MemoryAnalysis> {
    let assignment = module.buffer_assignment.as_ref().ok_or_else(|| {
        Error::new(
            ErrorKind::InvalidArgument,
            "the module carries no buffer assignment (an HloProto or HloSnapshot does)",
        )
    })?;
    // CompiledMemoryStats::PopulateBufferStatsFromAllocations: every
    // allocation counts by its flags, in device or host memory. XLA takes
    // the memory space from the layouts of the values' defining positions,
    // which under the default colorer is the allocation's color.
    let (mut device, mut host) = (HostBytes::default(), HostBytes::default());
    let mut total = 0i64;
    for a in &assignment.allocations {
        let side = if a.color == HOST_MEMORY_SPACE {
            &mut host
        } else {
            &mut device
        };
        total = add(total, a.size)?;
        if a.is_entry_computation_parameter {
            side.arguments = add(side.arguments, a.size)?;
            if a.is_parameter_aliased_with_output {
                side.aliased = add(side.aliased, a.size)?;
            }
        }
        if a.maybe_live_out {
            side.outputs = add(side.outputs, a.size)?;
        }
        if a.is_preallocated_temp_buffer() {
            side.temporaries = add(side.temporaries, a.size)?;
        }
    }
    let by_kind = by_kind(
        assignment
            .allocations
            .iter()
            .map(|a| (kind(a), a.color, a.size)),
    )?;
    let names = Names::new(module, assignment);
    let base = device
        .arguments
        .saturating_add(device.outputs)
        .saturating_sub(device.aliased);
    let mut peak_buffers = Vec::new();
    let mut timeline = Vec::new();
    for a in &assignment.allocations {
        match kind(a) {
            AllocationKind::Parameter | AllocationKind::Output => {
                // One row per allocation: the buffer that defines it (the
                // parameter, or the largest output value).
                let defining = a
                    .assigned
                    .iter()
                    .filter_map(|x| names.buffer(x.logical_buffer_id))
                    .max_by_key(|b| (names.is_parameter(b), b.size));
                if let Some(b) = defining {
                    peak_buffers.push(names.peak_buffer(b, a.size, kind(a)));
                }
            }
            AllocationKind::Temporary => {
                let sizes: HashMap<i64, i64> = a
                    .assigned
                    .iter()
                    .map(|x| (x.logical_buffer_id, x.size))
                    .collect();
                // The traces of the buffers placed in this allocation.
                // (`buffer_allocation_index` is the index the allocation
                // had when the heap was simulated; XLA renumbers
                // allocations afterwards, so it may name another.)
                let traces: Vec<&HeapTrace> = assignment
                    .heap_traces
                    .iter()
                    .filter(|t| t.events.iter().any(|e| sizes.contains_key(&e.buffer_id)))
                    .collect();
                // XLA combines the temporary allocations of a memory space
                // into one (`BufferAssignment::CombineTempAllocations`),
                // and its peak buffers are theirs joined: the heap's at its
                // peak, and the buffers that had an allocation of their own
                // (tuple index tables), which no trace mentions.
                let traced: std::collections::HashSet<i64> = traces
                    .iter()
                    .flat_map(|t| t.events.iter().map(|e| e.buffer_id))
                    .collect();
                // One per such allocation: the values of one buffer share
                // its offset, and XLA lists the first (by id).
                let mut untraced: Vec<(i64, i64, i64)> = a
                    .assigned
                    .iter()
                    .filter(|x| !traced.contains(&x.logical_buffer_id))
                    .map(|x| (x.offset, x.logical_buffer_id, x.size))
                    .collect();
                untraced.sort_unstable();
                untraced.dedup_by_key(|x| x.0);
                for (_, id, size) in untraced {
                    if let Some(b) = names.buffer(id) {
                        peak_buffers.push(names.peak_buffer(b, size, AllocationKind::Temporary));
                    }
                }
                for trace in traces {
                    let replay = replay(trace, &sizes);
                    for id in &replay.at_peak {
                        if let Some(b) = names.buffer(*id) {
                            peak_buffers.push(names.peak_buffer(
                                b,
                                sizes[id],
                                AllocationKind::Temporary,
                            ));
                        }
                    }
                    if a.color != HOST_MEMORY_SPACE {
                        timeline.extend(replay.steps);
                    }
                }
            }
            AllocationKind::ThreadLocal | AllocationKind::Constant => {}
        }
    }
    peak_buffers.sort_by_key(|b| std::cmp::Reverse(b.bytes));
    let timeline = sample(timeline)
        .into_iter()
        .map(|(id, live)| Step {
            instruction: names.instruction_of(id),
            live: base.saturating_add(live),
        })
        .collect();
    Ok(MemoryAnalysis {
        module: module.name.clone(),
        source: Source::BufferAssignment,
        arguments: device.arguments,
        outputs: device.outputs,
        aliased: device.aliased,
        temporaries: device.temporaries,
        host,
        allocations_total: Some(total),
        by_kind,
        peak_buffers,
        timeline,
    })
}

/// A heap trace replayed: the live bytes after each event (with the
/// event's buffer), and the buffers live at the first point where the live
/// bytes peak.
struct Replay {
    steps: Vec<(i64, i64)>,
    at_peak: Vec<i64>,
}

/// Replays `trace` as XLA's `ComputePeakMemoryLogicalBuffers`
/// (`xla/service/buffer_assignment.cc`) does: a buffer shared with a live
/// one (`SHARE_WITH`) adds no bytes while another of its group is live.
/// Events of buffers not in the allocation (`sizes`) are skipped.
fn replay(trace: &HeapTrace, sizes: &HashMap<i64, i64>) -> Replay {
    let mut outstanding: HashMap<i64, i64> = HashMap::new();
    let mut canonical: HashMap<i64, i64> = HashMap::new();
    let mut allocated: HashMap<i64, i64> = HashMap::new();
    let mut steps = Vec::with_capacity(trace.events.len());
    let (mut live, mut max) = (0i64, 0i64);
    let mut deltas = Vec::with_capacity(trace.events.len());
    for e in &trace.events {
        let Some(&size) = sizes.get(&e.buffer_id) else {
            continue;
        };
        let delta = match e.kind {
            HeapEventKind::Alloc => {
                outstanding.insert(e.buffer_id, 1);
                allocated.insert(e.buffer_id, size);
                size
            }
            HeapEventKind::ShareWith => {
                canonical.insert(e.buffer_id, e.share_with_canonical_id);
                let n = outstanding.entry(e.share_with_canonical_id).or_insert(0);
                *n += 1;
                let bytes = if *n == 1 { size } else { 0 };
                allocated.insert(e.buffer_id, bytes);
                bytes
            }
            HeapEventKind::Free => {
                let id = canonical.get(&e.buffer_id).copied().unwrap_or(e.buffer_id);
                *outstanding.entry(id).or_insert(0) -= 1;
                -allocated.get(&e.buffer_id).copied().unwrap_or(0)
            }
            HeapEventKind::Other(_) => 0,
        };
        live = live.saturating_add(delta);
        max = max.max(live);
        deltas.push((e.buffer_id, delta));
        steps.push((e.buffer_id, live));
    }
    // The buffers live at the first point the maximum is reached.
    let mut at_peak = std::collections::HashSet::new();
    let mut live = 0i64;
    for &(id, delta) in &deltas {
        if delta > 0 {
            at_peak.insert(id);
        } else if delta < 0 {
            at_peak.remove(&id);
        }
        live = live.saturating_add(delta);
        if live == max {
            break;
        }
    }
    let mut at_peak: Vec<i64> = at_peak.into_iter().collect();
    at_peak.sort_unstable();
    Replay { steps, at_peak }
}

/// The instructions and logical buffers of a module, by id.
struct Names<'m> {
    instructions: HashMap<i64, (&'m HloComputation, &'m HloInstruction)>,
    buffers: HashMap<i64, &'m LogicalBuffer>,
}

impl<'m> Names<'m> {
    fn new(module: &'m HloModule, assignment: &'m BufferAssignment) -> Self {
        Names {
            instructions: module
                .instructions()
                .filter_map(|(c, i)| Some((i.id?, (c, i))))
                .collect(),
            buffers: assignment
                .logical_buffers
                .iter()
                .map(|b| (b.id, b))
                .collect(),
        }
    }

    fn buffer(&self, id: i64) -> Option<&'m LogicalBuffer> {
        self.buffers.get(&id).copied()
    }

    fn is_parameter(&self, b: &LogicalBuffer) -> bool {
        self.instructions
            .get(&b.instruction_id)
            .is_some_and(|(_, i)| i.opcode == "parameter")
    }

    /// The name of the instruction that defines buffer `id`.
    fn instruction_of(&self, id: i64) -> String {
        self.buffer(id)
            .and_then(|b| self.instructions.get(&b.instruction_id))
            .map_or_else(|| format!("buffer {id}"), |(_, i)| i.name.clone())
    }

    fn peak_buffer(&self, b: &LogicalBuffer, bytes: i64, kind: AllocationKind) -> PeakBuffer {
        let (computation, instruction, shape) = match self.instructions.get(&b.instruction_id) {
            Some((c, i)) => {
                let shape = match &i.shape {
                    Ok(s) => try_get_subshape(s, &b.shape_index)
                        .map_or_else(|_| s.to_string(), |s| s.to_string()),
                    Err(rejected) => rejected.written.clone(),
                };
                (c.name.clone(), i.name.clone(), shape)
            }
            None => (
                String::new(),
                format!("instruction {}", b.instruction_id),
                String::new(),
            ),
        };
        PeakBuffer {
            instruction,
            computation,
            shape_index: b.shape_index.clone(),
            shape,
            bytes,
            kind,
        }
    }
}
