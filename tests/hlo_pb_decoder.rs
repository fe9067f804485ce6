//! The module view read straight from `HloModuleProto` bytes against a
//! view built from prost's generated types of the whole schema: over every
//! golden compiled program (`tests/data/hlo/`, jaxlib 0.10.2) and over
//! mutated modules whose merged form comes from Google's protobuf runtime
//! (`tests/data/oracle/hlo_pb_merge.jsonl`: fields given twice, known
//! fields with the wrong wire type, unknown fields and groups).

mod common;

use prost::Message;
use xla_shape::ProgramShape;
use xla_shape::formats::to_text_format_one_line;
use xla_shape::hlo::{
    BufferDonor, HloComputation, HloInstruction, HloModule, InputOutputAlias, ModuleMessage,
    ModuleSource, OutputOperandAlias, Rejected, ScheduleSequence,
};
use xla_shape::proto::{HloModuleProto, ShapeProto};
use xla_shape::{Result, Shape};

/// The view as the generated types give it: every field decoded by prost,
/// then taken as the view defines it.
fn prost_view(bytes: &[u8]) -> Result<HloModule> {
    let m = HloModuleProto::decode(bytes).expect("canonical bytes decode with prost");
    let shape = |p: Option<&ShapeProto>| {
        let p = p.cloned().unwrap_or_default();
        Shape::try_from(&p).map_err(|error| Rejected {
            written: to_text_format_one_line(&p),
            error,
        })
    };
    let computations: Vec<HloComputation> = m
        .computations
        .iter()
        .map(|c| HloComputation {
            name: c.name.clone(),
            id: Some(c.id),
            root: c.instructions.iter().rposition(|i| i.id == c.root_id),
            location: None,
            instructions: c
                .instructions
                .iter()
                .map(|i| HloInstruction {
                    name: i.name.clone(),
                    opcode: i.opcode.clone(),
                    shape: shape(i.shape.as_ref()),
                    id: Some(i.id),
                    operand_ids: i.operand_ids.clone(),
                    operands: None,
                    location: None,
                    called_computation_ids: i.called_computation_ids.clone(),
                    called_computations: Vec::new(),
                    parameter_number: (i.opcode == "parameter").then_some(i.parameter_number),
                    tuple_index: (i.opcode == "get-tuple-element").then_some(i.tuple_index),
                    fusion_kind: (!i.fusion_kind.is_empty()).then(|| i.fusion_kind.clone()),
                    output_operand_aliasing: i
                        .output_operand_aliasing
                        .iter()
                        .map(|a| OutputOperandAlias {
                            output_index: a.output_shape_index.clone(),
                            operand: a.operand_index,
                            operand_index: a.operand_shape_index.clone(),
                        })
                        .collect(),
                    sharding: i
                        .sharding
                        .as_ref()
                        .map(xla_shape::sharding::HloSharding::try_from),
                })
                .collect(),
        })
        .collect();
    let entry = m.computations.iter().position(|c| {
        if m.entry_computation_id != 0 || m.entry_computation_name.is_empty() {
            c.id == m.entry_computation_id
        } else {
            c.name == m.entry_computation_name
        }
    });
    let program = entry
        .and_then(|e| m.computations[e].program_shape.as_ref())
        .map(ProgramShape::try_from)
        .transpose()?;
    Ok(HloModule {
        name: m.name.clone(),
        computations,
        entry,
        program_shape: program,
        entry_computation_layout: m
            .host_program_shape
            .as_ref()
            .map(ProgramShape::try_from)
            .transpose()?,
        source: ModuleSource::Proto(ModuleMessage::Module),
        is_scheduled: m.schedule.is_some(),
        schedule: {
            let mut s: Vec<_> = m
                .schedule
                .iter()
                .flat_map(|s| &s.sequences)
                .map(|(&computation_id, seq)| ScheduleSequence {
                    computation_id,
                    instruction_ids: seq.instruction_ids.clone(),
                })
                .collect();
            s.sort_by_key(|s| s.computation_id);
            s
        },
        input_output_alias: m
            .input_output_alias
            .iter()
            .flat_map(|a| &a.entries)
            .map(|e| InputOutputAlias {
                output_index: e.output_shape_index.clone(),
                parameter_number: e.parameter_number,
                parameter_index: e.parameter_shape_index.clone(),
                must_alias: e.kind == xla_shape::proto::Kind::MustAlias as i32,
            })
            .collect(),
        buffer_donors: m
            .buffer_donor
            .iter()
            .flat_map(|d| &d.entries)
            .map(|e| BufferDonor {
                parameter_number: e.parameter_number,
                parameter_index: e.parameter_shape_index.clone(),
            })
            .collect(),
        buffer_assignment: None,
    })
}

#[test]
fn the_view_equals_the_generated_types_view_on_every_golden_module() {
    for name in common::HLO_PROGRAMS {
        let bytes = std::fs::read(common::data_path(&format!("hlo/{name}.pb"))).unwrap();
        let ours = HloModule::from_proto(ModuleMessage::Module, &bytes).unwrap();
        assert_eq!(ours, prost_view(&bytes).unwrap(), "{name}");
    }
}

#[test]
fn mutated_modules_read_as_googles_runtime_merges_them() {
    let records = common::records("oracle/hlo_pb_merge.jsonl");
    assert_eq!(records.len(), 10);
    let mut rejected = 0;
    for r in &records {
        let id = common::id(r);
        let input = common::hex(common::str_field(r, "input"));
        let merged = common::hex(common::str_field(r, "merged"));
        assert_ne!(input, merged, "{id}: the mutation changes the bytes");
        let ours = HloModule::from_proto(ModuleMessage::Module, &input);
        match (ours, prost_view(&merged)) {
            (Ok(a), Ok(b)) => {
                rejected += a.instructions().filter(|(_, i)| i.shape.is_err()).count();
                assert_eq!(a, b, "{id}");
            }
            (Err(a), Err(b)) => assert_eq!(a.kind(), b.kind(), "{id}: {a} / {b}"),
            (a, b) => panic!("{id}: {a:?} / {b:?}"),
        }
        // Wrapped once and twice, the module reads the same.
        let wrapped = wrap(&input);
        assert_eq!(
            HloModule::from_proto(ModuleMessage::Proto, &wrapped).map(strip),
            HloModule::from_proto(ModuleMessage::Module, &input).map(strip),
            "{id}"
        );
    }
    // The tile added to every shape makes XLA's validation reject some of
    // them: the merged shape, not the first occurrence alone, is read.
    assert!(rejected > 0);
}

/// An `HloProto` around `inner` (field 1, wire type 2: tag 0x0a), its
/// module split into two occurrences of field 1, which merge.
fn wrap(inner: &[u8]) -> Vec<u8> {
    let (a, b) = split_at_field(inner);
    let mut out = Vec::new();
    for part in [a, b] {
        out.push(0x0a);
        prost::encoding::encode_varint(part.len() as u64, &mut out);
        out.extend_from_slice(part);
    }
    out
}

/// `bytes` split after its first top-level field.
fn split_at_field(bytes: &[u8]) -> (&[u8], &[u8]) {
    let mut buf = bytes;
    let (_, wire) = prost::encoding::decode_key(&mut buf).unwrap();
    prost::encoding::skip_field(wire, 1, &mut buf, Default::default()).unwrap();
    bytes.split_at(bytes.len() - buf.len())
}

fn strip(mut m: HloModule) -> HloModule {
    m.source = ModuleSource::Text;
    m
}

/// The buffer assignment of every `HloProto` of `tests/data/memory/`
/// (dumped by jaxlib 0.10.2), read from the bytes, equals the one prost's
/// generated types decode.
#[test]
fn buffer_assignments_equal_the_generated_types_view() {
    use xla_shape::hlo::{
        Assigned, BufferAllocation, BufferAssignment, HeapEvent, HeapEventKind, HeapTrace,
        LogicalBuffer,
    };
    let dir = common::data_path("memory");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path().join("hlo.pb");
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        seen += 1;
        let p = xla_shape::proto::HloProto::decode(bytes.as_slice()).unwrap();
        let b = p.buffer_assignment.unwrap();
        let expected = BufferAssignment {
            logical_buffers: b
                .logical_buffers
                .iter()
                .map(|l| {
                    let at = l.defined_at.clone().unwrap_or_default();
                    LogicalBuffer {
                        id: l.id,
                        size: l.size,
                        instruction_id: at.instruction_id,
                        shape_index: at.shape_index,
                        color: l.color,
                    }
                })
                .collect(),
            allocations: b
                .buffer_allocations
                .iter()
                .map(|a| BufferAllocation {
                    index: a.index,
                    size: a.size,
                    is_thread_local: a.is_thread_local,
                    is_tuple: a.is_tuple,
                    is_entry_computation_parameter: a.is_entry_computation_parameter,
                    is_constant: a.is_constant,
                    parameter_number: a.parameter_number,
                    parameter_shape_index: a.parameter_shape_index.clone(),
                    is_parameter_aliased_with_output: a.is_parameter_aliased_with_output,
                    maybe_live_out: a.maybe_live_out,
                    color: a.color,
                    assigned: a
                        .assigned
                        .iter()
                        .map(|x| Assigned {
                            logical_buffer_id: x.logical_buffer_id,
                            offset: x.offset,
                            size: x.size,
                        })
                        .collect(),
                })
                .collect(),
            heap_traces: b
                .heap_simulator_traces
                .iter()
                .map(|t| HeapTrace {
                    events: t
                        .events
                        .iter()
                        .map(|e| HeapEvent {
                            kind: match e.kind {
                                0 => HeapEventKind::Alloc,
                                1 => HeapEventKind::Free,
                                2 => HeapEventKind::ShareWith,
                                n => HeapEventKind::Other(n),
                            },
                            buffer_id: e.buffer_id,
                            share_with_canonical_id: e.share_with_canonical_id,
                        })
                        .collect(),
                    whole_module_simulation: t.whole_module_simulation,
                    buffer_allocation_index: t.buffer_allocation_index,
                })
                .collect(),
        };
        let view = HloModule::read(&bytes).unwrap();
        assert_eq!(view.buffer_assignment, Some(expected), "{}", path.display());
    }
    assert!(seen >= 30);
}
