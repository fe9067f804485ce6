//! How much memory a module needs, and why: XLA's own buffer assignment
//! read exactly where the input carries it, an estimate from a liveness
//! simulation for any other module.
//!
//! - **Exact** ([`Source::BufferAssignment`]): an `HloProto` (what XLA
//!   writes with `--xla_dump_hlo_as_proto`, `*.cpu_after_optimizations.hlo.pb`)
//!   or an `HloSnapshot` that holds one carries XLA's buffer assignment.
//!   [`MemoryAnalysis::arguments`], `outputs`, `aliased` and `temporaries`
//!   are summed from its allocations as XLA's PJRT clients sum them
//!   (`CompiledMemoryStats::PopulateBufferStatsFromAllocations`,
//!   `xla/pjrt/pjrt_executable.cc`): what `compiled.memory_analysis()`
//!   reports, byte for byte; [`MemoryAnalysis::allocations_total`] is the
//!   "Total bytes" of XLA's `*-memory-usage-report.txt`.
//! - **Estimate** ([`Source::Estimate`]): any other module, text or binary,
//!   before or after optimization. Arguments and outputs are counted as
//!   XLA counts them; temporaries come from a simulation of XLA's buffer
//!   assignment over the module's schedule (its program order when it has
//!   none): buffers that alias are one buffer (`HloAliasAnalysis`), each
//!   is live from its definition to its last use (`HloLiveRange`), an
//!   instruction may take over a dying operand's buffer
//!   (`HloDataflowAnalysis::CanShareOperandBufferWithUser`), and the
//!   temporaries are packed into one block as the heap simulator packs
//!   them (`GlobalDecreasingSizeBestFitHeap`). See `docs/memory.md` for
//!   what it models, what it does not, and how close it comes to XLA.
//! - **Padding explained** ([`explain_padding`], [`padding`]): what a
//!   shape's tiled layout costs, the dimensions whose rounding to a tile
//!   causes it ([`tiling::TiledLayout::roundings`](crate::tiling::TiledLayout::roundings)),
//!   and the nearest dimension order or sizes that pad less under the same
//!   tiles; for a shape string, or for every shape of the out-of-memory
//!   listings XLA prints ([`Listing`]: XLA:TPU's "Largest program
//!   allocations in hbm", XLA:GPU's "BufferAssignment OOM Debugging"), with
//!   the figures the listing printed checked against the shape's
//!   ([`ListingCheck`]).
//!
//! ```
//! use xla_shape::hlo::HloModule;
//! use xla_shape::memory::{self, Source};
//!
//! // The concatenate's 8 KiB are a temporary; the slice is the result.
//! let module = HloModule::from_text(
//!     "HloModule m, entry_computation_layout={(f32[1024]{0})->f32[1024]{0}}\n\
//!      ENTRY e {\n  p = f32[1024]{0} parameter(0)\n  \
//!      c = f32[2048]{0} concatenate(p, p), dimensions={0}\n  \
//!      ROOT r = f32[1024]{0} slice(c), slice={[512:1536]}\n}\n",
//! )?;
//! let m = memory::analyze(&module)?;
//! assert_eq!(m.source, Source::Estimate);
//! assert_eq!((m.arguments, m.outputs, m.temporaries), (4096, 4096, 8192));
//! assert_eq!(m.peak(), 16384);
//! assert_eq!(m.peak_buffers[0].instruction, "c");
//! # Ok::<(), xla_shape::Error>(())
//! ```

mod devices;
mod estimate;
mod exact;
mod graph;
mod heap;
mod listing;
mod padding;
mod stablehlo;

pub use listing::{
    ListedAllocation, Listing, ListingFormat, human_readable_num_bytes, print_size_like,
    printed_size_agrees,
};
pub use padding::{
    Cause, Change, Figure, ListingCheck, Padding, PaddingEntries, PaddingEntry, PaddingOptions,
    Suggestion, explain_padding, padding, padding_entries,
};

use crate::error::{Error, Result};
use crate::hlo::HloModule;

pub use stablehlo::analyze_stablehlo;

/// Where the figures of a [`MemoryAnalysis`] come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Source {
    /// XLA's buffer assignment, which the input carries: exact.
    BufferAssignment,
    /// The crate's simulation of XLA's buffer assignment: an estimate.
    Estimate,
}

impl Source {
    /// `"buffer_assignment"` or `"estimate"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Source::BufferAssignment => "buffer_assignment",
            Source::Estimate => "estimate",
        }
    }
}

/// What an allocation holds, in the order XLA's buffer assignment prints
/// the first that applies (`BufferAllocation::ToString`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum AllocationKind {
    /// A parameter of the entry computation (an argument).
    Parameter,
    /// Part of the result.
    Output,
    /// Private to a thread: values of fused computations and reducers.
    ThreadLocal,
    /// A constant.
    Constant,
    /// Temporaries, packed into one block.
    Temporary,
}

impl AllocationKind {
    /// `parameter`, `output`, `thread_local`, `constant`, `temporary`.
    pub fn as_str(self) -> &'static str {
        match self {
            AllocationKind::Parameter => "parameter",
            AllocationKind::Output => "output",
            AllocationKind::ThreadLocal => "thread_local",
            AllocationKind::Constant => "constant",
            AllocationKind::Temporary => "temporary",
        }
    }
}

/// The allocations of one kind in one memory space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KindTotal {
    /// What they hold.
    pub kind: AllocationKind,
    /// The memory space (XLA's color under its default colorer: 0 the
    /// device's, 5 the host's).
    pub memory_space: i64,
    /// How many allocations.
    pub count: usize,
    /// Their bytes.
    pub bytes: i64,
}

/// A buffer live when memory use peaks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PeakBuffer {
    /// The instruction that defines it.
    pub instruction: String,
    /// Its computation.
    pub computation: String,
    /// Where in the instruction's shape.
    pub shape_index: Vec<i64>,
    /// Its shape, as HLO text prints it (the shape as written for one that
    /// XLA's validation rejects).
    pub shape: String,
    /// Its bytes.
    pub bytes: i64,
    /// What holds it.
    pub kind: AllocationKind,
}

/// The bytes live at one step of the program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// The instruction at this step (exact: the one whose buffer the heap
    /// simulator allocated or freed).
    pub instruction: String,
    /// The bytes live after it: arguments, outputs and the temporaries live
    /// then.
    pub live: i64,
}

/// How much memory a module needs.
///
/// `peak()` is what has to fit: arguments, outputs and temporaries, with
/// the outputs that reuse an argument's buffer counted once. Constants
/// and thread-local buffers are apart (XLA's `CompiledMemoryStats` leaves
/// them out too); [`MemoryAnalysis::by_kind`] lists them.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct MemoryAnalysis {
    /// The module's name.
    pub module: String,
    /// Exact (XLA's buffer assignment) or estimated.
    pub source: Source,
    /// Bytes of the arguments (XLA's `argument_size_in_bytes`): the entry
    /// computation's parameters, outside host memory.
    pub arguments: i64,
    /// Bytes of the result (`output_size_in_bytes`), tuple index tables
    /// included.
    pub outputs: i64,
    /// Bytes of arguments whose buffers outputs reuse (`alias_size_in_bytes`).
    pub aliased: i64,
    /// Bytes of the block of temporaries (`temp_size_in_bytes`); 0 when
    /// they are not counted ([`temporaries_counted`](Self::temporaries_counted)).
    pub temporaries: i64,
    /// Whether the temporaries are counted: false for a StableHLO module
    /// ([`analyze_stablehlo`]), whose operations the estimate does not
    /// simulate, so that [`peak`](Self::peak) leaves them out.
    pub temporaries_counted: bool,
    /// The same four in host memory (memory space 5), for the exact
    /// analysis.
    pub host: HostBytes,
    /// Every allocation's bytes (exact only): the "Total bytes" of XLA's
    /// memory-usage report, summed over memory spaces.
    pub allocations_total: Option<i64>,
    /// The allocations by kind and memory space.
    pub by_kind: Vec<KindTotal>,
    /// The buffers live when the live bytes peak, largest first: every
    /// argument and output, and the temporaries live then.
    pub peak_buffers: Vec<PeakBuffer>,
    /// The live bytes over the program: XLA's heap simulator trace (exact)
    /// or the simulated schedule (estimate). A longer program is sampled
    /// to [`TIMELINE_STEPS`] steps, each the highest of the steps it stands
    /// for, so that the peak is kept.
    pub timeline: Vec<Step>,
    /// Per device, for a module before partitioning whose entry parameters
    /// or result carry shardings: each device's argument and output bytes
    /// once XLA's SPMD partitioner has cut them (each value's tile shape,
    /// uneven splits rounded up, with the layout's tiles and padding; a
    /// value replicated, on one device or without a sharding whole), in
    /// ascending device order. Empty otherwise (no sharding, or a module
    /// XLA scheduled or assigned buffers to, which is per device already).
    /// The devices are those the shardings span, or StableHLO's
    /// `mhlo.num_partitions` if more; where neither says (HLO text whose
    /// shardings are all replicated), one entry, device 0, stands for
    /// every device.
    pub devices: Vec<DeviceBytes>,
}

/// One device's bytes of a module before partitioning.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceBytes {
    /// The device (partition) number.
    pub device: i64,
    /// Its argument bytes (`argument_size_in_bytes` of the partitioned
    /// program).
    pub arguments: i64,
    /// Its output bytes (`output_size_in_bytes`), tuple index tables
    /// included.
    pub outputs: i64,
}

/// Host-memory bytes of an exact analysis (`host_*_size_in_bytes`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HostBytes {
    /// `host_argument_size_in_bytes`.
    pub arguments: i64,
    /// `host_output_size_in_bytes`.
    pub outputs: i64,
    /// `host_alias_size_in_bytes`.
    pub aliased: i64,
    /// `host_temp_size_in_bytes`.
    pub temporaries: i64,
}

impl MemoryAnalysis {
    /// What has to fit in device memory: `arguments + outputs + temporaries
    /// - aliased`.
    pub fn peak(&self) -> i64 {
        self.arguments
            .saturating_add(self.outputs)
            .saturating_add(self.temporaries)
            .saturating_sub(self.aliased)
    }

    /// The device whose arguments and outputs take the most bytes (the
    /// first such), if [`devices`](Self::devices) has any.
    pub fn device_max(&self) -> Option<&DeviceBytes> {
        let total = |d: &DeviceBytes| d.arguments.saturating_add(d.outputs);
        let max = self.devices.iter().map(total).max()?;
        self.devices.iter().find(|d| total(d) == max)
    }

    /// The step at which the timeline's live bytes are highest (the first
    /// such), if the timeline has steps.
    pub fn peak_step(&self) -> Option<usize> {
        let max = self.timeline.iter().map(|s| s.live).max()?;
        self.timeline.iter().position(|s| s.live == max)
    }
}

/// Options of the estimate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct EstimateOptions {
    /// The alignment of each temporary's offset in the block: 64 bytes, as
    /// on XLA:CPU (`cpu_function_runtime::MinAlign`).
    pub alignment: i64,
}

impl Default for EstimateOptions {
    fn default() -> Self {
        EstimateOptions { alignment: 64 }
    }
}

impl EstimateOptions {
    /// The options with `alignment`.
    pub fn with_alignment(mut self, alignment: i64) -> Self {
        self.alignment = alignment;
        self
    }
}

/// The memory a module needs: exact when it carries XLA's buffer
/// assignment, estimated otherwise.
///
/// # Errors
///
/// As [`exact`] or [`estimate`].
pub fn analyze(module: &HloModule) -> Result<MemoryAnalysis> {
    if module.buffer_assignment.is_some() {
        exact(module)
    } else {
        estimate(module, &EstimateOptions::default())
    }
}

/// Each device's argument and output bytes of `module`, from the
/// shardings of its entry parameters and root ([`MemoryAnalysis::devices`]):
/// empty for a module without them, and for a module XLA scheduled
/// (`is_scheduled`, after optimization and so after partitioning: its
/// shapes are per device already).
///
/// # Errors
///
/// A sharding that XLA's parser or `FromProto` rejects, or that does not
/// fit its shape (a tuple sharding of another number of leaves, a tile
/// assignment of another rank).
pub fn devices(module: &HloModule) -> Result<Vec<DeviceBytes>> {
    let Some(entry) = module.entry() else {
        return Ok(Vec::new());
    };
    if module.is_scheduled || module.buffer_assignment.is_some() {
        return Ok(Vec::new());
    }
    fn sharding(i: &crate::hlo::HloInstruction) -> Result<Option<&crate::sharding::HloSharding>> {
        match &i.sharding {
            None => Ok(None),
            Some(Ok(s)) => Ok(Some(s)),
            Some(Err(e)) => Err(e.clone()),
        }
    }
    let mut parameters: Vec<(i64, devices::Value<'_>)> = Vec::new();
    for i in entry
        .instructions
        .iter()
        .filter(|i| i.opcode == "parameter")
    {
        if let Ok(shape) = &i.shape {
            parameters.push((i.parameter_number.unwrap_or(0), (shape, sharding(i)?)));
        }
    }
    parameters.sort_by_key(|(n, _)| *n);
    let Some(root) = entry.root() else {
        return Ok(Vec::new());
    };
    let Ok(result) = &root.shape else {
        return Ok(Vec::new());
    };
    let parameters: Vec<devices::Value<'_>> = parameters.into_iter().map(|(_, v)| v).collect();
    devices::per_device(&parameters, (result, sharding(root)?), None)
}

/// The exact figures of XLA's buffer assignment, which `module` carries
/// (an `HloProto` or an `HloSnapshot` that holds one).
///
/// # Errors
///
/// [`ErrorKind::InvalidArgument`](crate::ErrorKind::InvalidArgument) for a
/// module without a buffer assignment,
/// [`ErrorKind::Overflow`](crate::ErrorKind::Overflow) for sizes whose sum
/// overflows `i64`.
pub fn exact(module: &HloModule) -> Result<MemoryAnalysis> {
    exact::analyze(module)
}

/// The estimate for `module`, whatever it carries.
///
/// # Errors
///
/// A module without an entry computation, with an operand or a called
/// computation it does not hold, or with computations that call each other
/// deeper than [`MAX_NESTING_DEPTH`](crate::MAX_NESTING_DEPTH);
/// [`ErrorKind::Overflow`](crate::ErrorKind::Overflow) for sizes whose sum
/// overflows `i64`.
pub fn estimate(module: &HloModule, options: &EstimateOptions) -> Result<MemoryAnalysis> {
    let mut analysis = estimate::analyze(module, options)?;
    analysis.devices = devices(module)?;
    Ok(analysis)
}

/// The hash maps of memory analysis: keyed by ids and indices of the
/// input, hashed with `foldhash` as the module reader's shape cache is.
type Map<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;
type Set<K> = std::collections::HashSet<K, foldhash::fast::RandomState>;

/// The most steps a [`MemoryAnalysis::timeline`] holds.
pub const TIMELINE_STEPS: usize = 4096;

/// `steps` (a key and the live bytes) sampled to at most
/// [`TIMELINE_STEPS`]: each run of consecutive steps is kept as its highest
/// (the first of equals).
fn sample<K>(steps: Vec<(K, i64)>) -> Vec<(K, i64)> {
    if steps.len() <= TIMELINE_STEPS {
        return steps;
    }
    let run = steps.len().div_ceil(TIMELINE_STEPS);
    let mut out: Vec<(K, i64)> = Vec::with_capacity(TIMELINE_STEPS);
    for (n, step) in steps.into_iter().enumerate() {
        if n % run == 0 {
            out.push(step);
        } else if let Some(last) = out.last_mut()
            && step.1 > last.1
        {
            *last = step;
        }
    }
    out
}

/// `a + b`, or the overflow error of memory analysis.
fn add(a: i64, b: i64) -> Result<i64> {
    a.checked_add(b)
        .ok_or_else(|| Error::overflow("the module's byte totals overflow i64"))
}

/// The totals by kind and memory space of `allocations` (kind, memory
/// space, bytes), in order.
fn by_kind(
    allocations: impl Iterator<Item = (AllocationKind, i64, i64)>,
) -> Result<Vec<KindTotal>> {
    let mut totals: Vec<KindTotal> = Vec::new();
    for (kind, memory_space, bytes) in allocations {
        match totals
            .iter_mut()
            .find(|t| (t.kind, t.memory_space) == (kind, memory_space))
        {
            Some(t) => {
                t.count += 1;
                t.bytes = add(t.bytes, bytes)?;
            }
            None => totals.push(KindTotal {
                kind,
                memory_space,
                count: 1,
                bytes,
            }),
        }
    }
    totals.sort_by_key(|t| (t.memory_space, t.kind));
    Ok(totals)
}
