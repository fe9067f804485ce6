//! Instruction shardings of whole modules: XLA's text and the
//! `HloModuleProto` jax gives XLA for the same sharded programs
//! (`tests/data/sharding/sharded_*`, with each instruction's sharding as jaxlib
//! 0.10.2 reads XLA's printed attribute in
//! `tests/data/oracle/sharding_modules.jsonl`; both written by
//! `tests/data/oracle/sharding_modules_gen.py`).

use std::collections::BTreeMap;

use xla_shape::hlo::HloModule;
use xla_shape::sharding::{HloSharding, shardy};

use crate::common::{data_path, records};
use crate::oracle::hex;

const MODULES: [&str; 4] = [
    "sharded_constraint",
    "sharded_manual",
    "sharded_matmul",
    "sharded_tuple",
];

/// Each instruction's sharding (or its error's message), by name.
fn shardings(module: &HloModule) -> BTreeMap<String, Result<HloSharding, String>> {
    module
        .instructions()
        .filter_map(|(_, i)| {
            let s = i.sharding.as_ref()?;
            Some((
                i.name.clone(),
                s.clone().map_err(|e| e.message().to_owned()),
            ))
        })
        .collect()
}

#[test]
fn text_and_binary_modules_give_xlas_shardings() {
    let golden = records("oracle/sharding_modules.jsonl");
    let mut seen = 0;
    for name in MODULES {
        let text = std::fs::read_to_string(data_path(&format!("sharding/{name}.txt"))).unwrap();
        let pb = std::fs::read(data_path(&format!("sharding/{name}.pb"))).unwrap();
        let from_text = shardings(&HloModule::from_text(&text).unwrap());
        let from_pb = shardings(&HloModule::read(&pb).unwrap());
        assert_eq!(from_text, from_pb, "{name}: text and binary agree");
        let want: Vec<_> = golden.iter().filter(|r| r["module"] == name).collect();
        assert_eq!(from_text.len(), want.len(), "{name}: one per attribute");
        for r in want {
            let s = from_text[r["instruction"].as_str().unwrap()]
                .as_ref()
                .unwrap();
            assert_eq!(s.to_string(), r["printed"].as_str().unwrap(), "{name}");
            assert_eq!(hex(&s.to_proto_bytes()), r["proto"].as_str().unwrap());
            seen += 1;
        }
    }
    assert!(seen >= 12);
}

/// XLA's text keeps the Shardy sharding jax wrote beside the one XLA's
/// export made of it (`frontend_attributes={xla.sdy.sharding="..."}`):
/// converted with the module's mesh (`xla.sdy.meshes`), ours is XLA's.
#[test]
fn shardy_attributes_convert_to_the_shardings_beside_them() {
    let mut checked = 0;
    for name in MODULES {
        let text = std::fs::read_to_string(data_path(&format!("sharding/{name}.txt"))).unwrap();
        let module = HloModule::from_text(&text).unwrap();
        let header = text.lines().next().unwrap();
        let mesh_at = header.find("#sdy.mesh<").unwrap();
        let mesh_end = mesh_at + header[mesh_at..].find(">}").unwrap() + 1;
        let (_, mesh) = shardy::parse_mesh(&header[mesh_at..mesh_end]).unwrap();
        let by_name = shardings(&module);
        for line in text.lines() {
            let Some(at) = line.find("xla.sdy.sharding=\"#sdy.sharding<") else {
                continue;
            };
            let start = at + "xla.sdy.sharding=\"".len();
            let end = start + line[start..].find(">\"").unwrap() + 1;
            let sdy: shardy::ShardySharding =
                line[start..end].replace("\\\"", "\"").parse().unwrap();
            let instruction = line.split(" = ").next().unwrap().trim();
            let ours = sdy.to_hlo_sharding(&mesh).unwrap();
            assert_eq!(
                Ok(ours),
                by_name[instruction].clone(),
                "{name}: {instruction}"
            );
            checked += 1;
        }
    }
    assert!(checked >= 4);
}

#[test]
fn a_bad_sharding_is_kept_with_its_error() {
    let text = "HloModule m\n\nENTRY main {\n  \
                p = f32[4,6]{1,0} parameter(0), sharding={devices=[2,2]<=[4]\n  \
                q = f32[4,6]{1,0} parameter(1), sharding={devices=[2,2]0,1,2,3}, metadata={op_name=\"a, sharding={x}\"}\n  \
                ROOT t = (f32[4,6]{1,0}, f32[4,6]{1,0}) tuple(p, q), frontend_attributes={a=\"sharding={\"}\n}\n";
    let module = HloModule::from_text(text).unwrap();
    let entry = module.entry().unwrap();
    let p = entry.instructions[0].sharding.as_ref().unwrap();
    let e = p.as_ref().unwrap_err();
    // The message of `{devices=[2,2]<=[4]` alone (XLA's `unexpected token`,
    // tests/sharding/text.rs), located on line 4 of the module.
    let alone = "{devices=[2,2]<=[4]".parse::<HloSharding>().unwrap_err();
    assert_eq!(
        e.diagnostics()[0].message(),
        alone.diagnostics()[0].message()
    );
    assert_eq!(e.diagnostics()[0].location().line, 4);
    let q = entry.instructions[1].sharding.as_ref().unwrap();
    assert_eq!(q.as_ref().unwrap().to_string(), "{devices=[2,2]0,1,2,3}");
    // Text in strings and nested values is not an attribute.
    assert!(entry.instructions[2].sharding.is_none());
}

/// In a binary module, an `OpSharding` that XLA's `FromProto` rejects is
/// kept with its error; bytes that are no `OpSharding` fail the module.
#[test]
fn binary_shardings_keep_fromproto_errors() {
    use prost::Message;
    use xla_shape::proto::{HloModuleProto, OpSharding};
    let pb = std::fs::read(data_path("sharding/sharded_matmul.pb")).unwrap();
    let mut m = HloModuleProto::decode(&pb[..]).unwrap();
    // Type OTHER (3) with no devices: `FromProto`'s RET_CHECK
    // `!proto.tile_assignment_devices().empty()` (xla_data.proto,
    // OpSharding; hlo_sharding.cc).
    let bad = OpSharding {
        r#type: 3,
        ..OpSharding::default()
    };
    let i = &mut m.computations[0].instructions[0];
    i.sharding = Some(bad);
    let name = i.name.clone();
    let module = HloModule::read(&m.encode_to_vec()).unwrap();
    let e = shardings(&module)[&name].clone().unwrap_err();
    assert!(
        e.contains("!proto.tile_assignment_devices().empty()"),
        "{e}"
    );
    // Field 40 (`HloInstructionProto.sharding`, hlo.proto) holding bytes
    // that are no message: a key without its value (0x08: field 1,
    // varint). The instruction goes back in its computation (field 2 of
    // HloComputationProto) and the computation in the module (field 3 of
    // HloModuleProto).
    let mut instruction = m.computations[0].instructions[0].clone();
    instruction.sharding = None;
    let mut bytes = instruction.encode_to_vec();
    bytes.extend(field(40, &[0x08]));
    let mut computation = m.computations[0].clone();
    computation.instructions.remove(0);
    let mut computation_bytes = computation.encode_to_vec();
    computation_bytes.extend(field(2, &bytes));
    let mut rest = m.clone();
    rest.computations.remove(0);
    let mut module = rest.encode_to_vec();
    module.extend(field(3, &computation_bytes));
    let e = HloModule::read(&module).unwrap_err();
    assert_eq!(e.kind(), xla_shape::ErrorKind::Decode, "{e}");
}

/// A length-delimited field: its key, length and bytes.
fn field(number: u64, value: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    for mut v in [number << 3 | 2, value.len() as u64] {
        while v >= 0x80 {
            out.push((v as u8) | 0x80);
            v >>= 7;
        }
        out.push(v as u8);
    }
    out.extend_from_slice(value);
    out
}
