//! XLA's buffer assignment as an `HloProto` carries it
//! (`BufferAssignmentProto`, written by `BufferAssignment::ToProto` in
//! `xla/service/buffer_assignment.cc`), read straight from the bytes.
//!
//! Only what memory analysis needs is kept: every logical buffer (its id,
//! size, defining instruction and shape index, color), every allocation
//! (its flags, size, color, parameter, and the buffers assigned to it with
//! their offsets), and the heap simulator's traces without their names
//! (an event's instruction is its buffer's). `buffer_aliases` and
//! `peak_buffers` are skipped: the peak is worked out from the traces.
//! Google's runtime's semantics hold as in the rest of the module reader:
//! a singular message given twice is merged (each occurrence read into the
//! same value), repeated fields append, the last scalar wins, a known field
//! with another wire type is an unknown field.

use crate::limits::MAX_NESTING_DEPTH;
use crate::proto::fields::{buffer_allocation, buffer_assignment, heap_trace, logical_buffer};
use crate::protobuf::{WireResult, WireType, count_fields, each_field};

/// The buffer assignment of a compiled module (`BufferAssignmentProto`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BufferAssignment {
    /// The logical buffers (XLA's `HloValue`s), in the order of the proto.
    pub logical_buffers: Vec<LogicalBuffer>,
    /// The allocations, in the order of the proto (their `index`).
    pub allocations: Vec<BufferAllocation>,
    /// The heap simulator's traces: how the buffers of each allocation that
    /// XLA packed were allocated and freed, in program order.
    pub heap_traces: Vec<HeapTrace>,
}

/// One logical buffer (`LogicalBufferProto`): a value an instruction
/// defines.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LogicalBuffer {
    /// Its id, which allocations and traces refer to.
    pub id: i64,
    /// Its size in bytes.
    pub size: i64,
    /// The id of the instruction that defines it (`defined_at`).
    pub instruction_id: i64,
    /// Where in the instruction's shape (`defined_at.shape_index`).
    pub shape_index: Vec<i64>,
    /// Its color: the memory space under XLA's default colorer.
    pub color: i64,
}

/// One allocation (`BufferAllocationProto`): a block of memory, and the
/// logical buffers placed in it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BufferAllocation {
    /// Its index.
    pub index: i64,
    /// Its size in bytes.
    pub size: i64,
    /// Private to a thread: buffers of computations that run in a parallel
    /// context (fused computations, reducers).
    pub is_thread_local: bool,
    /// Holds a tuple's index table.
    pub is_tuple: bool,
    /// Holds a parameter of the entry computation.
    pub is_entry_computation_parameter: bool,
    /// Holds a constant.
    pub is_constant: bool,
    /// The parameter it holds, for an entry parameter.
    pub parameter_number: i64,
    /// Where in the parameter's shape.
    pub parameter_shape_index: Vec<i64>,
    /// An entry parameter whose buffer an output shares.
    pub is_parameter_aliased_with_output: bool,
    /// May hold part of the entry computation's result.
    pub maybe_live_out: bool,
    /// Its color: the memory space under XLA's default colorer.
    pub color: i64,
    /// The logical buffers placed in it.
    pub assigned: Vec<Assigned>,
}

impl BufferAssignment {
    /// Reads `BufferAssignmentProto` bytes: what an `HloProto` holds in its
    /// field `buffer_assignment`, and what PJRT gives as
    /// `CompiledMemoryStats::serialized_buffer_assignment`
    /// (`compiled.memory_analysis().serialized_buffer_assignment_proto` in
    /// jax). Attach it to the module it belongs to
    /// ([`HloModule::buffer_assignment`](super::HloModule::buffer_assignment))
    /// for [`memory::exact`](crate::memory::exact).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Decode`](crate::ErrorKind::Decode) for bytes that are
    /// not such a message.
    pub fn from_proto_bytes(bytes: &[u8]) -> crate::Result<BufferAssignment> {
        let mut assignment = BufferAssignment::default();
        read(&mut assignment, bytes, 0).map_err(|e| {
            crate::Error::from(e)
                .in_context(crate::error::ErrorContext::new("xla.BufferAssignmentProto"))
        })?;
        Ok(assignment)
    }
}

impl BufferAllocation {
    /// What XLA calls a preallocated temporary buffer
    /// (`BufferAllocation::IsPreallocatedTempBuffer`): neither an entry
    /// parameter, nor an output, nor thread-local, nor a constant.
    #[doc(alias = "BufferAllocation::IsPreallocatedTempBuffer")]
    pub fn is_preallocated_temp_buffer(&self) -> bool {
        !self.is_entry_computation_parameter
            && !self.maybe_live_out
            && !self.is_thread_local
            && !self.is_constant
    }
}

/// A logical buffer's place in an allocation
/// (`BufferAllocationProto.Assigned`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Assigned {
    /// The logical buffer's id.
    pub logical_buffer_id: i64,
    /// Its offset in the allocation.
    pub offset: i64,
    /// Its size.
    pub size: i64,
}

/// The heap simulator's trace of one allocation (`HeapSimulatorTrace`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HeapTrace {
    /// The events, in program order.
    pub events: Vec<HeapEvent>,
    /// Whether the whole module was simulated at once (rather than one
    /// computation).
    pub whole_module_simulation: bool,
    /// The index of the allocation the buffers were placed in, as it was
    /// when the heap was simulated: XLA may renumber its allocations later
    /// (the buffers' own allocation is the one that holds them).
    pub buffer_allocation_index: i64,
}

/// What happened to a buffer (`HeapSimulatorTrace.Event.Kind`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum HeapEventKind {
    /// Allocated (`ALLOC`, 0).
    #[default]
    Alloc,
    /// Freed (`FREE`, 1).
    Free,
    /// Placed where a live buffer is (`SHARE_WITH`, 2).
    ShareWith,
    /// A kind the schema does not name, kept by its number.
    Other(i32),
}

impl HeapEventKind {
    fn from_number(n: i32) -> Self {
        match n {
            0 => HeapEventKind::Alloc,
            1 => HeapEventKind::Free,
            2 => HeapEventKind::ShareWith,
            n => HeapEventKind::Other(n),
        }
    }
}

/// One event of a heap trace (`HeapSimulatorTrace.Event`); its instruction
/// is the one that defines its buffer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HeapEvent {
    /// What happened.
    pub kind: HeapEventKind,
    /// The logical buffer's id.
    pub buffer_id: i64,
    /// For [`HeapEventKind::ShareWith`], the buffer it shares.
    pub share_with_canonical_id: i64,
}

/// Reads `BufferAssignmentProto` bytes into `into` (depth `depth`): called
/// once per occurrence of the field, which merges them.
pub(super) fn read(into: &mut BufferAssignment, bytes: &[u8], depth: usize) -> WireResult<()> {
    // Room for every buffer, allocation and trace at once.
    into.logical_buffers
        .reserve(count_fields(bytes, buffer_assignment::LOGICAL_BUFFERS));
    into.allocations
        .reserve(count_fields(bytes, buffer_assignment::BUFFER_ALLOCATIONS));
    each_field(bytes, depth, |r, number, wire| {
        if wire != WireType::LengthDelimited {
            return Ok(false);
        }
        match number {
            buffer_assignment::LOGICAL_BUFFERS => {
                let mut b = LogicalBuffer::default();
                logical(&mut b, r.len_delimited()?, depth + 1)?;
                into.logical_buffers.push(b);
            }
            buffer_assignment::BUFFER_ALLOCATIONS => {
                let mut a = BufferAllocation::default();
                allocation(&mut a, r.len_delimited()?, depth + 1)?;
                into.allocations.push(a);
            }
            buffer_assignment::HEAP_SIMULATOR_TRACES => {
                let mut t = HeapTrace::default();
                trace(&mut t, r.len_delimited()?, depth + 1)?;
                into.heap_traces.push(t);
            }
            _ => return Ok(false),
        }
        Ok(true)
    })
}

/// Descends one message level, failing past the nesting limit.
fn deeper(depth: usize) -> WireResult<usize> {
    if depth >= MAX_NESTING_DEPTH {
        Err(crate::protobuf::WireError::TooDeep)
    } else {
        Ok(depth + 1)
    }
}

/// Reads the varint fields of a message: `set` takes each field number
/// and value (an unknown number is read and dropped); every other field
/// is skipped.
fn varints(bytes: &[u8], depth: usize, mut set: impl FnMut(u32, u64)) -> WireResult<()> {
    each_field(bytes, deeper(depth)?, |r, number, wire| {
        if wire != WireType::Varint {
            return Ok(false);
        }
        set(number, r.varint()?);
        Ok(true)
    })
}

fn logical(b: &mut LogicalBuffer, bytes: &[u8], depth: usize) -> WireResult<()> {
    let depth = deeper(depth)?;
    each_field(bytes, depth, |r, number, wire| {
        match (number, wire) {
            (logical_buffer::ID, WireType::Varint) => b.id = r.varint()? as i64,
            (logical_buffer::SIZE, WireType::Varint) => b.size = r.varint()? as i64,
            (logical_buffer::COLOR, WireType::Varint) => b.color = r.varint()? as i64,
            (logical_buffer::DEFINED_AT, WireType::LengthDelimited) => {
                location(b, r.len_delimited()?, depth)?;
            }
            _ => return Ok(false),
        }
        Ok(true)
    })
}

fn location(b: &mut LogicalBuffer, bytes: &[u8], depth: usize) -> WireResult<()> {
    each_field(bytes, deeper(depth)?, |r, number, wire| {
        match (number, wire) {
            (logical_buffer::INSTRUCTION_ID, WireType::Varint) => {
                b.instruction_id = r.varint()? as i64;
                Ok(true)
            }
            (logical_buffer::SHAPE_INDEX, _) => r.repeated_varint(wire, &mut b.shape_index),
            _ => Ok(false),
        }
    })
}

fn allocation(a: &mut BufferAllocation, bytes: &[u8], depth: usize) -> WireResult<()> {
    use buffer_allocation as f;
    let depth = deeper(depth)?;
    a.assigned.reserve(count_fields(bytes, f::ASSIGNED));
    each_field(bytes, depth, |r, number, wire| {
        match (number, wire) {
            (f::ASSIGNED, WireType::LengthDelimited) => {
                let mut x = Assigned::default();
                varints(r.len_delimited()?, depth, |number, v| {
                    let v = v as i64;
                    match number {
                        f::LOGICAL_BUFFER_ID => x.logical_buffer_id = v,
                        f::OFFSET => x.offset = v,
                        f::ASSIGNED_SIZE => x.size = v,
                        _ => {}
                    }
                })?;
                a.assigned.push(x);
            }
            (f::PARAMETER_SHAPE_INDEX, _) => {
                return r.repeated_varint(wire, &mut a.parameter_shape_index);
            }
            (_, WireType::Varint) => {
                let v = r.varint()?;
                let flag = v != 0;
                match number {
                    f::INDEX => a.index = v as i64,
                    f::SIZE => a.size = v as i64,
                    f::IS_THREAD_LOCAL => a.is_thread_local = flag,
                    f::IS_TUPLE => a.is_tuple = flag,
                    f::IS_ENTRY_COMPUTATION_PARAMETER => a.is_entry_computation_parameter = flag,
                    f::IS_CONSTANT => a.is_constant = flag,
                    f::PARAMETER_NUMBER => a.parameter_number = v as i64,
                    f::IS_PARAMETER_ALIASED_WITH_OUTPUT => {
                        a.is_parameter_aliased_with_output = flag
                    }
                    f::MAYBE_LIVE_OUT => a.maybe_live_out = flag,
                    f::COLOR => a.color = v as i64,
                    // An unknown varint field, already read.
                    _ => {}
                }
            }
            _ => return Ok(false),
        }
        Ok(true)
    })
}

fn trace(t: &mut HeapTrace, bytes: &[u8], depth: usize) -> WireResult<()> {
    let depth = deeper(depth)?;
    t.events.reserve(count_fields(bytes, heap_trace::EVENTS));
    each_field(bytes, depth, |r, number, wire| {
        match (number, wire) {
            (heap_trace::EVENTS, WireType::LengthDelimited) => {
                let mut e = HeapEvent::default();
                varints(r.len_delimited()?, depth, |number, v| match number {
                    // An enum is an int32: the low 32 bits of the varint.
                    heap_trace::KIND => e.kind = HeapEventKind::from_number(v as i32),
                    heap_trace::BUFFER_ID => e.buffer_id = v as i64,
                    heap_trace::SHARE_WITH_CANONICAL_ID => e.share_with_canonical_id = v as i64,
                    _ => {}
                })?;
                t.events.push(e);
            }
            (heap_trace::WHOLE_MODULE_SIMULATION, WireType::Varint) => {
                t.whole_module_simulation = r.varint()? != 0;
            }
            (heap_trace::BUFFER_ALLOCATION_INDEX, WireType::Varint) => {
                t.buffer_allocation_index = r.varint()? as i64;
            }
            _ => return Ok(false),
        }
        Ok(true)
    })
}
