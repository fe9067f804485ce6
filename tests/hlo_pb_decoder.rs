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
    HloComputation, HloInstruction, HloModule, ModuleMessage, ModuleSource, Rejected,
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
