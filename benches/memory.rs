//! Memory analysis: `xla-shape memory` on a generated 100 MB `HloProto`
//! (read the file, build the module view with its buffer assignment, sum
//! the allocations, replay the heap trace), against reading the same file
//! in the same run; and the estimate on a 10 MB module held in memory.
//! Target: the 100 MB `HloProto` in under a second on one core.
//!
//! `cargo bench --bench memory`

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use prost::Message;
use xla_shape::Shape;
use xla_shape::hlo::HloModule;
use xla_shape::memory::{self, EstimateOptions};
use xla_shape::proto::{
    BufferAllocationProto, BufferAssignmentProto, HeapSimulatorTrace, HloComputationProto,
    HloInstructionProto, HloModuleProto, HloProto, LogicalBufferProto,
    buffer_allocation_proto::Assigned, heap_simulator_trace::Event, logical_buffer_proto::Location,
};

/// An optimized module as XLA:CPU dumps it, `size` bytes or more: one
/// entry computation, a parameter, then a chain of fusions each reading the
/// two before it, and the buffer assignment: the parameter's and the
/// result's allocations and one block of temporaries with every other
/// buffer, its heap trace allocating each buffer and freeing it two steps
/// later (event names as XLA writes them).
fn hlo_proto(size: usize) -> Vec<u8> {
    let shape = "f32[1024,256]{1,0}".parse::<Shape>().unwrap().to_proto();
    let bytes = 1024 * 256 * 4;
    let mut entry = HloComputationProto {
        name: "main.1".into(),
        id: 1,
        ..Default::default()
    };
    let mut assignment = BufferAssignmentProto::default();
    let mut temporaries = BufferAllocationProto {
        index: 2,
        ..Default::default()
    };
    let mut trace = HeapSimulatorTrace {
        whole_module_simulation: true,
        buffer_allocation_index: 2,
        ..Default::default()
    };
    let mut len = 0;
    let mut id = 0i64;
    while len < size || id < 3 {
        id += 1;
        let name = format!("ynn_fusion.{id}");
        entry.instructions.push(HloInstructionProto {
            name: name.clone(),
            opcode: if id == 1 { "parameter" } else { "fusion" }.into(),
            shape: Some(shape.clone()),
            id,
            operand_ids: (id.saturating_sub(2).max(1)..id).collect(),
            ..Default::default()
        });
        assignment.logical_buffers.push(LogicalBufferProto {
            id,
            size: bytes,
            defined_at: Some(Location {
                instruction_id: id,
                ..Default::default()
            }),
            ..Default::default()
        });
        if id > 1 {
            temporaries.assigned.push(Assigned {
                logical_buffer_id: id,
                offset: (id % 3) * bytes,
                size: bytes,
                ..Default::default()
            });
            let event = |kind: i32, buffer_id: i64| Event {
                kind,
                buffer_id,
                computation_name: "main.1".into(),
                instruction_name: format!("ynn_fusion.{buffer_id}"),
                ..Default::default()
            };
            trace.events.push(event(0, id));
            if id > 3 {
                trace.events.push(event(1, id - 2));
            }
        }
        len = id as usize * 190;
    }
    entry.root_id = id;
    // The last buffer is the result's.
    temporaries.assigned.pop();
    temporaries.size = 3 * bytes;
    assignment.buffer_allocations = vec![
        BufferAllocationProto {
            index: 0,
            size: bytes,
            is_entry_computation_parameter: true,
            assigned: vec![Assigned {
                logical_buffer_id: 1,
                size: bytes,
                ..Default::default()
            }],
            ..Default::default()
        },
        BufferAllocationProto {
            index: 1,
            size: bytes,
            maybe_live_out: true,
            assigned: vec![Assigned {
                logical_buffer_id: id,
                size: bytes,
                ..Default::default()
            }],
            ..Default::default()
        },
        temporaries,
    ];
    assignment.heap_simulator_traces.push(trace);
    HloProto {
        hlo_module: Some(HloModuleProto {
            name: "big".into(),
            entry_computation_name: "main.1".into(),
            entry_computation_id: 1,
            computations: vec![entry],
            ..Default::default()
        }),
        buffer_assignment: Some(assignment),
    }
    .encode_to_vec()
}

fn write(name: &str, bytes: &[u8]) -> PathBuf {
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// `memory` on a file: read, view, analyse.
fn analyse(path: &PathBuf) -> i64 {
    let bytes = std::fs::read(path).unwrap();
    let module = HloModule::read(&bytes).unwrap();
    drop(bytes);
    memory::analyze(&module).unwrap().peak()
}

fn bench(c: &mut Criterion) {
    let proto = hlo_proto(100_000_000);
    let path = write("memory.hlo.pb", &proto);
    let len = proto.len() as u64;
    drop(proto);
    let mut g = c.benchmark_group("memory_hlo_proto");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(len));
    g.bench_function("read_file_baseline", |b| {
        b.iter(|| std::fs::read(black_box(&path)).unwrap().len())
    });
    g.bench_function("exact", |b| b.iter(|| analyse(black_box(&path))));
    g.finish();

    // The estimate, on the same kind of module without its assignment.
    let small = hlo_proto(10_000_000);
    let module = HloModule::read(&small).unwrap();
    let mut g = c.benchmark_group("memory_estimate");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(small.len() as u64));
    g.bench_function("estimate_of_view", |b| {
        b.iter(|| {
            memory::estimate(black_box(&module), &EstimateOptions::default())
                .unwrap()
                .peak()
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
