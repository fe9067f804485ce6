//! The figures of XLA's buffer assignment, read from an `HloProto`.

use super::{
    AllocationKind, HostBytes, Map, MemoryAnalysis, PeakBuffer, Set, Source, Step, add, by_kind,
    sample,
};
use crate::error::{Error, ErrorKind, Result};
use crate::hlo::{
    BufferAllocation, HeapEventKind, HeapTrace, HloComputation, HloInstruction, HloModule,
    LogicalBuffer,
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
    let ids = Ids::new(assignment.logical_buffers.iter().map(|b| b.id));
    let base = device
        .arguments
        .saturating_add(device.outputs)
        .saturating_sub(device.aliased);
    // Buffers at the peak (their index in `logical_buffers`, bytes, kind)
    // and the timeline (buffer index, live bytes); named at the end, only
    // those that are kept.
    let mut peaks: Vec<(u32, i64, AllocationKind)> = Vec::new();
    let mut timeline: Vec<(u32, i64)> = Vec::new();
    // Parameters' and outputs' allocations: one row each, for the buffer
    // that defines it (the parameter, or the largest value), chosen once
    // the instructions are known.
    let mut defining: Vec<(Vec<u32>, i64, AllocationKind)> = Vec::new();
    let n = assignment.logical_buffers.len();
    // The traces of each allocation: those whose buffers it holds. (A
    // trace's `buffer_allocation_index` is the index the allocation had
    // when the heap was simulated; XLA renumbers allocations afterwards, so
    // it may name another.)
    let mut owner = vec![u32::MAX; n];
    for (k, a) in assignment.allocations.iter().enumerate() {
        for x in &a.assigned {
            if let Some(b) = ids.get(x.logical_buffer_id)
                && owner[b as usize] == u32::MAX
            {
                owner[b as usize] = k as u32;
            }
        }
    }
    let mut traces_of: Map<u32, Vec<&HeapTrace>> = Map::default();
    for trace in &assignment.heap_traces {
        let first = trace
            .events
            .iter()
            .find_map(|e| ids.get(e.buffer_id).map(|b| owner[b as usize]))
            .filter(|&k| k != u32::MAX);
        if let Some(k) = first {
            traces_of.entry(k).or_default().push(trace);
        }
    }
    let mut in_allocation = vec![i64::MIN; n];
    let mut traced = vec![false; n];
    let mut scratch = Scratch::new(n);
    for (k, a) in assignment.allocations.iter().enumerate() {
        match kind(a) {
            AllocationKind::Parameter | AllocationKind::Output => {
                let held = a
                    .assigned
                    .iter()
                    .filter_map(|x| ids.get(x.logical_buffer_id))
                    .collect();
                defining.push((held, a.size, kind(a)));
            }
            AllocationKind::Temporary => {
                let mut members = Vec::with_capacity(a.assigned.len());
                for x in &a.assigned {
                    if let Some(b) = ids.get(x.logical_buffer_id) {
                        in_allocation[b as usize] = x.size;
                        members.push((x.offset, b, x.size));
                    }
                }
                let traces = traces_of.remove(&(k as u32)).unwrap_or_default();
                // XLA combines the temporary allocations of a memory space
                // into one (`BufferAssignment::CombineTempAllocations`),
                // and its peak buffers are theirs joined: the heap's at its
                // peak, and the buffers that had an allocation of their own
                // (tuple index tables), which no trace mentions: one per
                // such allocation (its values share an offset), the first
                // by id, as XLA lists it.
                for e in traces.iter().flat_map(|t| &t.events) {
                    if let Some(b) = ids.get(e.buffer_id) {
                        traced[b as usize] = true;
                    }
                }
                let mut untraced: Vec<(i64, i64, u32, i64)> = members
                    .iter()
                    .filter(|m| !traced[m.1 as usize])
                    .map(|&(offset, b, size)| {
                        (offset, assignment.logical_buffers[b as usize].id, b, size)
                    })
                    .collect();
                untraced.sort_unstable();
                untraced.dedup_by_key(|x| x.0);
                peaks.extend(
                    untraced
                        .iter()
                        .map(|&(_, _, b, size)| (b, size, AllocationKind::Temporary)),
                );
                for trace in traces {
                    let replay = scratch.replay(trace, &ids, &in_allocation);
                    peaks.extend(
                        replay
                            .at_peak
                            .iter()
                            .map(|&b| (b, in_allocation[b as usize], AllocationKind::Temporary)),
                    );
                    if a.color != HOST_MEMORY_SPACE {
                        timeline.extend(replay.steps);
                    }
                }
                for (_, b, _) in members {
                    in_allocation[b as usize] = i64::MIN;
                    traced[b as usize] = false;
                }
            }
            AllocationKind::ThreadLocal | AllocationKind::Constant => {}
        }
    }
    let timeline = sample(timeline);
    // The instructions of the buffers kept, by id.
    let buffers = &assignment.logical_buffers;
    let wanted: Set<i64> = peaks
        .iter()
        .map(|p| p.0)
        .chain(timeline.iter().map(|t| t.0))
        .chain(defining.iter().flat_map(|d| d.0.iter().copied()))
        .map(|b| buffers[b as usize].instruction_id)
        .collect();
    let names = Names {
        entry: module.entry().map(|c| c.name.as_str()),
        instructions: module
            .instructions()
            .filter_map(|(c, i)| Some((i.id?, (c, i))))
            .filter(|(id, _)| wanted.contains(id))
            .collect(),
    };
    for (held, bytes, kind) in &defining {
        // The entry's parameter, else the largest value of the entry
        // computation (not a loop body's parameter that shares it).
        let b = held.iter().copied().max_by_key(|&b| {
            let b = &buffers[b as usize];
            (names.is_parameter(b), names.in_entry(b), b.size)
        });
        if let Some(b) = b {
            peaks.push((b, *bytes, *kind));
        }
    }
    let mut peak_buffers: Vec<PeakBuffer> = peaks
        .iter()
        .map(|&(b, bytes, kind)| names.peak_buffer(&buffers[b as usize], bytes, kind))
        .collect();
    peak_buffers.sort_by_key(|b| std::cmp::Reverse(b.bytes));
    let timeline = timeline
        .into_iter()
        .map(|(b, live)| Step {
            instruction: names.instruction_of(&buffers[b as usize]),
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
        temporaries_counted: true,
        devices: Vec::new(),
    })
}

/// Logical buffer ids to their index in `logical_buffers`: a vector when the
/// ids are small (XLA numbers them from 0), a map otherwise. The first of
/// equal ids is kept.
enum Ids {
    Dense(Vec<u32>),
    Sparse(Map<i64, u32>),
}

impl Ids {
    fn new(ids: impl ExactSizeIterator<Item = i64> + Clone) -> Ids {
        let n = ids.len();
        let dense_limit = (2 * n + 1024) as i64;
        if ids.clone().all(|id| (0..dense_limit).contains(&id)) {
            let mut index = vec![u32::MAX; dense_limit as usize];
            for (k, id) in ids.enumerate() {
                if index[id as usize] == u32::MAX {
                    index[id as usize] = k as u32;
                }
            }
            Ids::Dense(index)
        } else {
            let mut index = Map::default();
            for (k, id) in ids.enumerate() {
                index.entry(id).or_insert(k as u32);
            }
            Ids::Sparse(index)
        }
    }

    fn get(&self, id: i64) -> Option<u32> {
        match self {
            Ids::Dense(v) => usize::try_from(id)
                .ok()
                .and_then(|i| v.get(i))
                .copied()
                .filter(|&k| k != u32::MAX),
            Ids::Sparse(m) => m.get(&id).copied(),
        }
    }
}

/// A heap trace replayed: the live bytes after each event (with the
/// event's buffer), and the buffers live at the first point where the live
/// bytes peak.
struct Replay {
    steps: Vec<(u32, i64)>,
    at_peak: Vec<u32>,
}

/// The state of a replay, one entry per logical buffer, kept between the
/// replays of an analysis (each resets what it touched), so that many
/// small traces cost their own length, not the module's.
struct Scratch {
    outstanding: Vec<i64>,
    canonical: Vec<u32>,
    allocated: Vec<i64>,
    at: Vec<bool>,
}

impl Scratch {
    fn new(n: usize) -> Self {
        Scratch {
            outstanding: vec![0; n],
            canonical: vec![u32::MAX; n],
            allocated: vec![0; n],
            at: vec![false; n],
        }
    }

    /// Replays `trace` as XLA's `ComputePeakMemoryLogicalBuffers`
    /// (`xla/service/buffer_assignment.cc`) does: a buffer shared with a
    /// live one (`SHARE_WITH`) adds no bytes while another of its group is
    /// live. Events of buffers not in the allocation (`size` is `i64::MIN`)
    /// are skipped.
    fn replay(&mut self, trace: &HeapTrace, ids: &Ids, size: &[i64]) -> Replay {
        let mut steps = Vec::with_capacity(trace.events.len());
        let (mut live, mut max) = (0i64, 0i64);
        let mut deltas = Vec::with_capacity(trace.events.len());
        let mut touched = Vec::new();
        for e in &trace.events {
            let Some(b) = ids
                .get(e.buffer_id)
                .filter(|&b| size[b as usize] != i64::MIN)
            else {
                continue;
            };
            let bu = b as usize;
            touched.push(b);
            let delta = match e.kind {
                HeapEventKind::Alloc => {
                    self.outstanding[bu] = 1;
                    self.allocated[bu] = size[bu];
                    size[bu]
                }
                HeapEventKind::ShareWith => match ids.get(e.share_with_canonical_id) {
                    Some(c) => {
                        touched.push(c);
                        self.canonical[bu] = c;
                        self.outstanding[c as usize] += 1;
                        let bytes = if self.outstanding[c as usize] == 1 {
                            size[bu]
                        } else {
                            0
                        };
                        self.allocated[bu] = bytes;
                        bytes
                    }
                    None => 0,
                },
                HeapEventKind::Free => {
                    let c = match self.canonical[bu] {
                        u32::MAX => bu,
                        c => c as usize,
                    };
                    self.outstanding[c] -= 1;
                    -self.allocated[bu]
                }
                HeapEventKind::Other(_) => 0,
            };
            live = live.saturating_add(delta);
            max = max.max(live);
            deltas.push((b, delta));
            steps.push((b, live));
        }
        // The buffers live at the first point the maximum is reached.
        let mut live = 0i64;
        for &(b, delta) in &deltas {
            if delta > 0 {
                self.at[b as usize] = true;
            } else if delta < 0 {
                self.at[b as usize] = false;
            }
            live = live.saturating_add(delta);
            if live == max {
                break;
            }
        }
        touched.sort_unstable();
        touched.dedup();
        let at_peak = touched
            .iter()
            .copied()
            .filter(|&b| self.at[b as usize])
            .collect();
        for &b in &touched {
            let b = b as usize;
            self.outstanding[b] = 0;
            self.canonical[b] = u32::MAX;
            self.allocated[b] = 0;
            self.at[b] = false;
        }
        Replay { steps, at_peak }
    }
}

/// The instructions of a module that the kept buffers name, by id.
struct Names<'m> {
    entry: Option<&'m str>,
    instructions: Map<i64, (&'m HloComputation, &'m HloInstruction)>,
}

impl<'m> Names<'m> {
    fn in_entry(&self, b: &LogicalBuffer) -> bool {
        self.instructions
            .get(&b.instruction_id)
            .is_some_and(|(c, _)| Some(c.name.as_str()) == self.entry)
    }

    /// Whether `b` is defined by a parameter of the entry computation.
    fn is_parameter(&self, b: &LogicalBuffer) -> bool {
        self.in_entry(b)
            && self
                .instructions
                .get(&b.instruction_id)
                .is_some_and(|(_, i)| i.opcode == "parameter")
    }

    /// The name of the instruction that defines `b`.
    fn instruction_of(&self, b: &LogicalBuffer) -> String {
        self.instructions
            .get(&b.instruction_id)
            .map_or_else(|| format!("buffer {}", b.id), |(_, i)| i.name.clone())
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
