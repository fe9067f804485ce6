//! The module view against XLA's own files: every compiled program of
//! `tests/data/hlo/` (`NAME.pb`, the `HloModuleProto` XLA wrote, and
//! `NAME.txt`, XLA's text of the same module, jaxlib 0.10.2).

mod common;

use prost::Message;
use xla_shape::formats::LosslessMessage;
use xla_shape::hlo::{HloModule, MemoryReport, ModuleMessage, ModuleSource};
use xla_shape::proto::{DESCRIPTOR_POOL, HloModuleProto};
use xla_shape::{ErrorKind, Shape};

fn pb(name: &str) -> Vec<u8> {
    std::fs::read(common::data_path(&format!("hlo/{name}.pb"))).expect("golden module")
}

fn txt(name: &str) -> String {
    std::fs::read_to_string(common::data_path(&format!("hlo/{name}.txt"))).expect("golden text")
}

/// `(computation, name, opcode, printed shape)` of every instruction.
fn rows(m: &HloModule) -> Vec<(String, String, String, String)> {
    m.instructions()
        .map(|(c, i)| {
            let shape = i
                .shape
                .as_ref()
                .expect("XLA's shapes are valid")
                .to_string();
            (c.name.clone(), i.name.clone(), i.opcode.clone(), shape)
        })
        .collect()
}

#[test]
fn binary_and_text_modules_agree_instruction_for_instruction() {
    for name in common::HLO_PROGRAMS {
        let from_pb = HloModule::read(&pb(name)).unwrap();
        let from_txt = HloModule::read(txt(name).as_bytes()).unwrap();
        assert_eq!(from_pb.source, ModuleSource::Proto(ModuleMessage::Module));
        assert_eq!(from_txt.source, ModuleSource::Text);
        assert_eq!(from_pb.name, from_txt.name, "{name}");
        let mut a = rows(&from_pb);
        let mut b = rows(&from_txt);
        assert!(!a.is_empty(), "{name}");
        // XLA's text orders computations and instructions as its printer
        // does; compare as sets of instructions.
        a.sort();
        b.sort();
        assert_eq!(a, b, "{name}");
        let entry = |m: &HloModule| {
            let e = m.entry().unwrap();
            (e.name.clone(), e.root().map(|r| r.name.clone()))
        };
        assert_eq!(entry(&from_pb), entry(&from_txt), "{name}");
        assert_eq!(
            from_pb.entry_computation_layout,
            from_txt.entry_computation_layout.clone().map(|mut p| {
                // The text's layout has no parameter names.
                let names = from_pb
                    .entry_computation_layout
                    .as_ref()
                    .unwrap()
                    .parameter_names()
                    .to_vec();
                let shapes = p.parameters().to_vec();
                p = xla_shape::ProgramShape::new(
                    names.into_iter().zip(shapes).collect(),
                    p.result().clone(),
                );
                p
            }),
            "{name}"
        );
        assert!(from_pb.program_shape.is_some() && from_txt.program_shape.is_some());
        assert_eq!(
            from_pb.program_shape.as_ref().unwrap().parameter_names(),
            from_txt.program_shape.as_ref().unwrap().parameter_names(),
            "{name}"
        );
    }
}

/// The view's own decoding reads only some fields; it must agree with the
/// generated types of the whole schema.
#[test]
fn the_view_agrees_with_the_generated_schema_types() {
    for name in common::HLO_PROGRAMS {
        let bytes = pb(name);
        let full = HloModuleProto::decode(bytes.as_slice()).unwrap();
        let view = HloModule::read(&bytes).unwrap();
        assert_eq!(full.name, view.name);
        assert_eq!(full.computations.len(), view.computations.len());
        for (c, v) in full.computations.iter().zip(&view.computations) {
            assert_eq!((Some(c.id), &c.name), (v.id, &v.name));
            assert_eq!(c.instructions.len(), v.instructions.len());
            for (i, w) in c.instructions.iter().zip(&v.instructions) {
                assert_eq!((&i.name, &i.opcode, Some(i.id)), (&w.name, &w.opcode, w.id));
                assert_eq!(i.operand_ids, w.operand_ids);
                let shape = Shape::try_from(i.shape.as_ref().unwrap()).unwrap();
                assert_eq!(&shape, w.shape.as_ref().unwrap());
            }
            let root = v.root().unwrap();
            assert_eq!(root.id, Some(c.root_id));
        }
        let entry = view.entry().unwrap();
        assert_eq!(entry.id, Some(full.entry_computation_id));
        assert_eq!(entry.name, full.entry_computation_name);
    }
}

#[test]
fn modules_reencode_byte_for_byte_through_the_lossless_path() {
    let descriptor = DESCRIPTOR_POOL
        .get_message_by_name("xla.HloModuleProto")
        .unwrap();
    for name in common::HLO_PROGRAMS {
        let bytes = pb(name);
        let m = LosslessMessage::decode(descriptor.clone(), bytes.as_slice()).unwrap();
        assert_eq!(m.encode_to_vec(), bytes, "{name}");
    }
}

#[test]
fn reports_of_the_binary_and_the_text_module_agree() {
    for name in common::HLO_PROGRAMS {
        let a = HloModule::read(&pb(name)).unwrap();
        let b = HloModule::read(txt(name).as_bytes()).unwrap();
        let (ra, rb) = (
            MemoryReport::new(&a).unwrap(),
            MemoryReport::new(&b).unwrap(),
        );
        assert_eq!(ra.totals, rb.totals, "{name}");
        assert!(ra.totals.total.byte_size > 0);
    }
}

/// `HloProto` (field 1: the module) and `HloSnapshot` (field 1: an
/// `HloProto`), built around a golden module by hand: tag `0x0a` is field
/// 1, wire type 2 (length-delimited), followed by the varint length.
#[test]
fn wrapped_modules_are_detected_and_read() {
    fn wrap(inner: &[u8]) -> Vec<u8> {
        let mut out = vec![0x0a];
        prost::encoding::encode_varint(inner.len() as u64, &mut out);
        out.extend_from_slice(inner);
        out
    }
    let module = pb("scan_tuple");
    let expected = HloModule::read(&module).unwrap();
    let proto = wrap(&module);
    let snapshot = wrap(&proto);
    assert_eq!(ModuleMessage::detect(&module), ModuleMessage::Module);
    assert_eq!(ModuleMessage::detect(&proto), ModuleMessage::Proto);
    assert_eq!(ModuleMessage::detect(&snapshot), ModuleMessage::Snapshot);
    for (bytes, message) in [
        (proto, ModuleMessage::Proto),
        (snapshot, ModuleMessage::Snapshot),
    ] {
        let m = HloModule::read(&bytes).unwrap();
        assert_eq!(m.source, ModuleSource::Proto(message));
        assert_eq!(m.computations, expected.computations);
    }
}

#[test]
fn a_truncated_module_is_a_decode_error() {
    let bytes = pb("matmul_bf16");
    for cut in [bytes.len() / 3, bytes.len() - 1] {
        let err = HloModule::read(&bytes[..cut]).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Decode, "{cut}: {err}");
        assert_eq!(err.context()[0].message(), "xla.HloModuleProto");
        assert!(
            err.to_string()
                .starts_with("not a valid xla.HloModuleProto: ")
        );
        assert_fields_are_the_schemas(&err);
    }
}

/// The top-level fields of `bytes` (a well-formed message): each field's
/// number and the byte range of the whole field (key included).
fn top_level_fields(bytes: &[u8]) -> Vec<(u32, std::ops::Range<usize>)> {
    let mut fields = Vec::new();
    let mut buf = bytes;
    while !buf.is_empty() {
        let start = bytes.len() - buf.len();
        let (number, wire) = prost::encoding::decode_key(&mut buf).unwrap();
        prost::encoding::skip_field(wire, number, &mut buf, Default::default()).unwrap();
        fields.push((number, start..bytes.len() - buf.len()));
    }
    fields
}

/// The number of `message.field` in the schema.
fn field_number(message: &str, field: &str) -> u32 {
    DESCRIPTOR_POOL
        .get_message_by_name(message)
        .unwrap()
        .get_field_by_name(field)
        .unwrap()
        .number()
}

/// Every level of an error's context names a message of the schema and,
/// where it has one, a field of that message.
fn assert_fields_are_the_schemas(err: &xla_shape::Error) {
    for level in err.context() {
        let message = DESCRIPTOR_POOL
            .get_message_by_name(level.message())
            .unwrap_or_else(|| panic!("{}: {err}", level.message()));
        if let Some(field) = level.field() {
            assert!(message.get_field_by_name(field).is_some(), "{field}: {err}");
        }
    }
}

/// An error's context: message, field, index and name of each level.
type Level<'a> = (&'a str, Option<&'a str>, Option<usize>, Option<&'a str>);

fn levels(err: &xla_shape::Error) -> Vec<Level<'_>> {
    err.context()
        .iter()
        .map(|c| (c.message(), c.field(), c.index(), c.name()))
        .collect()
}

/// Cut inside a computation, the module's length prefix of that
/// computation runs past the end: the error is in that element of
/// `computations`, whose name was never read.
#[test]
fn a_truncated_module_names_the_computation_cut() {
    let bytes = pb("matmul_bf16");
    let computations = field_number("xla.HloModuleProto", "computations");
    let fields = top_level_fields(&bytes);
    // The second computation: cut in its middle.
    let (index, range) = fields
        .iter()
        .filter(|(n, _)| *n == computations)
        .map(|(_, r)| r.clone())
        .enumerate()
        .nth(1)
        .unwrap();
    let cut = (range.start + range.end) / 2;
    let err = HloModule::read(&bytes[..cut]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Decode);
    assert_eq!(
        err.message(),
        "failed to decode protobuf message: unexpected end of input"
    );
    let levels = levels(&err);
    assert_eq!(
        levels,
        [(
            "xla.HloModuleProto",
            Some("computations"),
            Some(index),
            None
        )]
    );
    assert_eq!(
        err.to_string(),
        format!(
            "not a valid xla.HloModuleProto: computations[{index}]: {}",
            err.message()
        )
    );
}

/// A golden module whose entry computation's program shape has one more
/// parameter name than parameters, and the index and name of the entry.
fn with_malformed_entry_program_shape(name: &str) -> (Vec<u8>, usize, String, Vec<u8>) {
    let mut m = HloModuleProto::decode(pb(name).as_slice()).unwrap();
    let entry = m
        .computations
        .iter()
        .position(|c| c.id == m.entry_computation_id)
        .unwrap();
    let computation = &mut m.computations[entry];
    let program_shape = computation.program_shape.as_mut().unwrap();
    program_shape.parameter_names.push("extra".into());
    let program_shape = program_shape.encode_to_vec();
    let entry_name = computation.name.clone();
    (m.encode_to_vec(), entry, entry_name, program_shape)
}

/// `HloModule::from_proto` promises `MalformedProto` for a program shape
/// with different numbers of parameters and names (XLA's
/// `ProgramShape::FromProto`): the kind and message of the program shape's
/// own error, in the context of the entry computation.
#[test]
fn a_malformed_entry_program_shape_keeps_its_kind_and_says_where() {
    let (bytes, entry, entry_name, program_shape) =
        with_malformed_entry_program_shape("scan_tuple");
    let alone = xla_shape::ProgramShape::from_proto_bytes(&program_shape).unwrap_err();
    assert_eq!(alone.kind(), ErrorKind::MalformedProto);
    let err = HloModule::read(&bytes).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::MalformedProto, "{err}");
    assert_eq!(err.message(), alone.message());
    let levels = levels(&err);
    assert_eq!(
        levels,
        [
            (
                "xla.HloModuleProto",
                Some("computations"),
                Some(entry),
                Some(entry_name.as_str())
            ),
            ("xla.HloComputationProto", Some("program_shape"), None, None),
        ]
    );
    assert_eq!(
        err.to_string(),
        format!(
            "not a valid xla.HloModuleProto: computations[{entry}] ({entry_name}): \
             program_shape: {}",
            alone.message()
        )
    );
    assert_fields_are_the_schemas(&err);

    // Wrapped in an `HloProto` (field 1, tag 0x0a), the module is one more
    // level down.
    let mut wrapped = vec![0x0a];
    prost::encoding::encode_varint(bytes.len() as u64, &mut wrapped);
    wrapped.extend_from_slice(&bytes);
    let err = HloModule::read(&wrapped).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::MalformedProto);
    assert_eq!(
        (err.context()[0].message(), err.context()[0].field()),
        ("xla.HloProto", Some("hlo_module"))
    );
    assert_eq!(err.context().len(), 3);
    assert!(
        err.to_string()
            .starts_with("not a valid xla.HloProto: hlo_module: computations["),
        "{err}"
    );
    assert_fields_are_the_schemas(&err);
}

/// A shape whose bytes are not a `ShapeProto` (`0x10`: the key of
/// `element_type`, a varint, with no value) fails the module with the
/// shape's own error, in the context of its instruction and computation,
/// each by index and name.
#[test]
fn an_undecodable_shape_names_its_instruction_and_computation() {
    fn put(out: &mut Vec<u8>, number: u32, body: &[u8]) {
        prost::encoding::encode_key(number, prost::encoding::WireType::LengthDelimited, out);
        prost::encoding::encode_varint(body.len() as u64, out);
        out.extend_from_slice(body);
    }
    let shape = [0x10];
    let alone = Shape::from_proto_bytes(&shape).unwrap_err();
    let field = |m, f| field_number(m, f);
    let instruction = |name: &str, shape: &[u8]| {
        let mut i = Vec::new();
        put(
            &mut i,
            field("xla.HloInstructionProto", "name"),
            name.as_bytes(),
        );
        put(&mut i, field("xla.HloInstructionProto", "shape"), shape);
        i
    };
    let good = "f32[2]".parse::<Shape>().unwrap().to_proto_bytes();
    let mut computation = Vec::new();
    put(
        &mut computation,
        field("xla.HloComputationProto", "name"),
        b"body",
    );
    for i in [instruction("a", &good), instruction("b", &shape)] {
        put(
            &mut computation,
            field("xla.HloComputationProto", "instructions"),
            &i,
        );
    }
    let mut module = Vec::new();
    put(&mut module, field("xla.HloModuleProto", "name"), b"m");
    let mut first = Vec::new();
    put(
        &mut first,
        field("xla.HloComputationProto", "name"),
        b"first",
    );
    put(
        &mut module,
        field("xla.HloModuleProto", "computations"),
        &first,
    );
    put(
        &mut module,
        field("xla.HloModuleProto", "computations"),
        &computation,
    );

    let err = HloModule::from_proto(ModuleMessage::Module, &module).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Decode);
    assert_eq!(err.message(), alone.message());
    let levels = levels(&err);
    assert_eq!(
        levels,
        [
            (
                "xla.HloModuleProto",
                Some("computations"),
                Some(1),
                Some("body")
            ),
            (
                "xla.HloComputationProto",
                Some("instructions"),
                Some(1),
                Some("b")
            ),
            ("xla.HloInstructionProto", Some("shape"), None, None),
        ]
    );
    assert_eq!(
        err.to_string(),
        format!(
            "not a valid xla.HloModuleProto: computations[1] (body): instructions[1] (b): \
             shape: {}",
            alone.message()
        )
    );
}

#[test]
fn text_that_is_not_hlo_is_an_error() {
    let err = HloModule::from_text("\n  hello world\n").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Parse);
    assert_eq!(err.message(), "Syntax error:\nexpects HloModule");
    let at = err.location().unwrap();
    assert_eq!((at.line, at.column), (2, 2));
}

/// `tests/data/oracle/hlo_module.jsonl`: XLA's `ParseShape` of
/// `s8[16,,33]{1,0}` fails with `expects integer` at the second comma.
#[test]
fn an_unparsable_shape_names_its_line_and_column() {
    let record = &common::records("oracle/hlo_module.jsonl")[0];
    assert_eq!(record["input"]["text"], "s8[16,,33]{1,0}");
    let xla = record["xla_error"].as_str().unwrap();
    let xla_message = xla
        .lines()
        .nth(1)
        .unwrap()
        .split(" error: ")
        .nth(1)
        .unwrap();
    let text = txt("int4").replacen("s8[16,33]{1,0} multiply", "s8[16,,33]{1,0} multiply", 1);
    let line = text.lines().position(|l| l.contains("[16,,33]")).unwrap() + 1;
    let column = text
        .lines()
        .nth(line - 1)
        .unwrap()
        .find("s8[16,,33]")
        .unwrap()
        + "s8[16,".len();
    let err = HloModule::from_text(&text).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Parse);
    let at = err.location().unwrap();
    assert_eq!((at.line, at.column), (line, column));
    assert!(err.message().starts_with("Syntax error:\n"), "{err}");
    // XLA's column is 1-based after the first line.
    let expected = format!("was parsing {line}:{}: error: {xla_message}", column + 1);
    assert!(err.message().contains(&expected), "{err}");
}

/// XLA's parser accepts `s8[16,33]{1,0:T(}` (the oracle's record: it
/// reads `T()`), recording an error it then ignores. The module reader
/// takes only shapes whose sole errors are validation's, and reports this
/// one as a parse error (docs/differences.md, "HLO modules").
#[test]
fn a_shape_xla_reads_past_an_error_is_an_error() {
    let record = &common::records("oracle/hlo_module.jsonl")[1];
    assert_eq!(record["status"], "ok");
    assert_eq!(record["xla_str"], "s8[16,33]{1,0:T()}");
    let text = txt("int4").replacen("s8[16,33]{1,0} multiply", "s8[16,33]{1,0:T(} multiply", 1);
    let err = HloModule::from_text(&text).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Parse);
    assert!(err.message().contains("expects integer"), "{err}");
}

/// XLA's exporter writes a scalar with an empty tile (`f32[]{:T()}`) and
/// XLA's parser reads it back, though XLA's shape validation rejects it.
/// The module stays readable; the instruction keeps the shape as written.
#[test]
fn a_shape_that_validation_rejects_is_kept_as_written() {
    let text = "HloModule m\n\nENTRY %main () -> f32[] {\n  ROOT %c = f32[]{:T()} constant(1)\n}\n";
    let m = HloModule::from_text(text).unwrap();
    let root = m.entry().unwrap().root().unwrap();
    let rejected = root.shape.as_ref().unwrap_err();
    assert_eq!(rejected.written, "f32[]{:T()}");
    // The message of the crate's validation, which is XLA's
    // (`ShapeUtil::ValidateShape`), as `validate` prints it.
    let direct = "f32[]{:T()}".parse::<Shape>().unwrap_err();
    assert!(
        direct.message().contains(rejected.error.message()),
        "{direct}"
    );
    assert_eq!(rejected.error.location().unwrap().line, 4);
    let report = MemoryReport::new(&m).unwrap();
    assert_eq!(report.rows[0].sizes.byte_size, None);
}

/// The programs of `tests/data/memory/` (jax on the CPU, jaxlib 0.10.2;
/// `tests/data/oracle/memory_gen.py`).
fn memory_programs() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(common::data_path("memory"))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert!(names.len() >= 30);
    names
}

fn memory_file(program: &str, file: &str) -> Vec<u8> {
    std::fs::read(common::data_path(&format!("memory/{program}/{file}"))).unwrap()
}

/// `(computation, name, opcode, shape, called computations by name)` of
/// every instruction, sorted.
fn full_rows(m: &HloModule) -> Vec<(String, String, String, String, Vec<String>)> {
    let by_id: std::collections::HashMap<i64, &str> = m
        .computations
        .iter()
        .filter_map(|c| Some((c.id?, c.name.as_str())))
        .collect();
    let mut rows: Vec<_> = m
        .instructions()
        .map(|(c, i)| {
            let called = if i.called_computation_ids.is_empty() {
                i.called_computations.clone()
            } else {
                i.called_computation_ids
                    .iter()
                    .map(|id| by_id[id].to_owned())
                    .collect()
            };
            (
                c.name.clone(),
                i.name.clone(),
                i.opcode.clone(),
                i.shape.as_ref().unwrap().to_string(),
                called,
            )
        })
        .collect();
    rows.sort();
    rows
}

/// The short computation headers of `lowered.as_text(dialect="hlo")`
/// (`region_0.1 {`, `ENTRY main.2 {`) are read: the text module before
/// optimization is, instruction for instruction, the `HloModuleProto` XLA
/// dumped before optimizing it, called computations, parameter numbers and
/// tuple indices included.
#[test]
fn lowered_text_with_short_headers_is_the_module_xla_dumped() {
    let mut short = 0;
    for program in memory_programs() {
        let text = String::from_utf8(memory_file(&program, "lowered.txt")).unwrap();
        short += text
            .lines()
            .filter(|l| l.ends_with(" {") && !l.contains("->"))
            .count();
        let lowered = HloModule::read(text.as_bytes()).unwrap();
        let before = HloModule::read(&memory_file(&program, "before.pb")).unwrap();
        assert_eq!(full_rows(&lowered), full_rows(&before), "{program}");
        let numbers = |m: &HloModule| {
            let mut v: Vec<_> = m
                .instructions()
                .map(|(_, i)| (i.name.clone(), i.parameter_number, i.tuple_index))
                .collect();
            v.sort();
            v
        };
        assert_eq!(numbers(&lowered), numbers(&before), "{program}");
        assert_eq!(
            lowered.input_output_alias, before.input_output_alias,
            "{program}"
        );
        assert_eq!(
            lowered.entry().unwrap().name,
            before.entry().unwrap().name,
            "{program}"
        );
    }
    assert!(short > 50, "{short} short headers");
}

/// The optimized module's text (`is_scheduled=true`, stack-frame tables)
/// and the `HloProto` of the same dump agree, schedule included: the text
/// lists each computation's instructions in the order of the proto's
/// `schedule`.
#[test]
fn scheduled_text_and_the_hlo_proto_agree() {
    for program in memory_programs() {
        let text = HloModule::read(&memory_file(&program, "opt.txt")).unwrap();
        let proto = HloModule::read(&memory_file(&program, "hlo.pb")).unwrap();
        assert_eq!(proto.source, ModuleSource::Proto(ModuleMessage::Proto));
        assert!(proto.buffer_assignment.is_some(), "{program}");
        assert!(text.is_scheduled && proto.is_scheduled, "{program}");
        assert_eq!(full_rows(&text), full_rows(&proto), "{program}");
        assert_eq!(
            text.input_output_alias, proto.input_output_alias,
            "{program}"
        );
        let fusions = |m: &HloModule| {
            let mut v: Vec<_> = m
                .instructions()
                .filter_map(|(_, i)| Some((i.name.clone(), i.fusion_kind.clone()?)))
                .collect();
            v.sort();
            v
        };
        assert_eq!(fusions(&text), fusions(&proto), "{program}");
        for sequence in &proto.schedule {
            let c = proto
                .computations
                .iter()
                .find(|c| c.id == Some(sequence.computation_id))
                .unwrap();
            let t = text.computations.iter().find(|t| t.name == c.name).unwrap();
            let scheduled: Vec<&str> = sequence
                .instruction_ids
                .iter()
                .map(|id| {
                    let i = c.instructions.iter().find(|i| i.id == Some(*id)).unwrap();
                    i.name.as_str()
                })
                .collect();
            let written: Vec<&str> = t.instructions.iter().map(|i| i.name.as_str()).collect();
            assert_eq!(scheduled, written, "{program} {}", c.name);
        }
    }
}

/// A line between computations that is neither a computation header, a
/// comment nor a stack-frame table is an error at its line.
#[test]
fn a_line_the_reader_does_not_understand_is_an_error() {
    let text = "HloModule m\n\nFileNames\n1 \"x.py\"\n\nsomething else\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n";
    let err = HloModule::from_text(text).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Parse);
    let at = err.location().unwrap();
    assert_eq!((at.line, at.column), (6, 0), "{err}");
    // Without it, the module reads.
    let ok = text.replace("something else\n", "");
    assert_eq!(HloModule::from_text(&ok).unwrap().instructions().count(), 1);
    // An attribute the view reads, written otherwise, is an error at it.
    let bad = ok.replace(
        "parameter(0)",
        "parameter(0)\n  ROOT t = (f32[]) tuple(p), output_to_operand_aliasing={oops}",
    );
    let err = HloModule::from_text(&bad).unwrap_err();
    let at = err.location().unwrap();
    assert_eq!(at.line, 8, "{err}");
    assert_eq!(&bad.lines().nth(7).unwrap()[at.column..], "{oops}");
}

/// Well-formed bytes of another message are no module: XLA's
/// `*-memory-usage-report.pb` (a `MemoryUsageReportProto`) and a
/// `ShapeProto` are errors that say what was read.
#[test]
fn a_message_that_is_not_a_module_is_an_error() {
    let report = memory_file("add_small", "memory-usage-report.pb");
    let err = HloModule::read(&report).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Decode);
    assert!(
        err.message()
            .starts_with("not an HLO module: 715 bytes read as xla.HloProto hold no instruction"),
        "{err}"
    );
    assert!(
        err.message()
            .ends_with("top level: field 1 (length-delimited))"),
        "{err}"
    );
    // f32[]: element_type F32 (11).
    let err = HloModule::read(&[0x10, 0x0b]).unwrap_err();
    assert!(
        err.message()
            .ends_with("hold no instruction (0 computations; top level: field 2 (varint))"),
        "{err}"
    );
    // f32[3]: its dimensions (field 3) read as a computation that is no
    // message.
    let err = HloModule::read(&[0x10, 0x0b, 0x1a, 0x01, 0x03]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Decode);
    assert!(
        err.to_string()
            .starts_with("not a valid xla.HloModuleProto: computations[0]: "),
        "{err}"
    );
    // Empty bytes, read as a binary module, hold nothing; read as text (as
    // `read` does: they are UTF-8), they are XLA's `expects HloModule`.
    let err = HloModule::from_proto(ModuleMessage::Module, &[]).unwrap_err();
    assert!(
        err.message()
            .ends_with("(0 computations; top level: no field)"),
        "{err}"
    );
    let err = HloModule::read(&[]).unwrap_err();
    assert_eq!(err.message(), "Syntax error:\nexpects HloModule");
}

/// The `HloSnapshot` XLA writes when a program runs
/// (`--xla_dump_hlo_snapshots`) holds the optimized module and its
/// arguments, and no buffer assignment; one built around the dumped
/// `HloProto` holds both.
#[test]
fn snapshots_are_read_with_their_buffer_assignment_when_they_hold_one() {
    let mut real = 0;
    for program in memory_programs() {
        let Ok(bytes) = std::fs::read(common::data_path(&format!("memory/{program}/snapshot.pb")))
        else {
            continue;
        };
        real += 1;
        let m = HloModule::read(&bytes).unwrap();
        assert_eq!(
            m.source,
            ModuleSource::Proto(ModuleMessage::Snapshot),
            "{program}"
        );
        assert!(m.buffer_assignment.is_none());
        let proto = HloModule::read(&memory_file(&program, "hlo.pb")).unwrap();
        assert_eq!(full_rows(&m), full_rows(&proto), "{program}");
    }
    assert!(real >= 5);
    for program in ["while_loop", "mlp_train_step"] {
        let m = HloModule::read(&memory_file(program, "snapshot_ba.pb")).unwrap();
        let proto = HloModule::read(&memory_file(program, "hlo.pb")).unwrap();
        assert_eq!(m.source, ModuleSource::Proto(ModuleMessage::Snapshot));
        assert_eq!(m.buffer_assignment, proto.buffer_assignment);
        assert_eq!(m.computations, proto.computations);
    }
}

#[test]
fn modules_read_streamed_hand_over_what_the_view_holds() {
    // Every golden module, and each cut short at every 97th byte: the
    // instructions handed over one at a time are the view's, in order,
    // and a module that does not read gives the same error.
    for name in common::HLO_PROGRAMS {
        let bytes = pb(name);
        let mut cuts: Vec<usize> = (1..bytes.len()).step_by(97).collect();
        cuts.push(bytes.len());
        for cut in cuts {
            let bytes = &bytes[..cut];
            let mut streamed = Vec::new();
            let read = HloModule::read_streamed(bytes, &mut |c, i| {
                streamed.push((c.to_owned(), i.clone()));
                Ok(())
            });
            match (HloModule::read(bytes), read) {
                (Ok(whole), Ok(view)) => {
                    let held: Vec<_> = whole
                        .instructions()
                        .map(|(c, i)| (c.name.clone(), i.clone()))
                        .collect();
                    assert_eq!(streamed, held, "{name} cut at {cut}");
                    assert_eq!(view.name, whole.name);
                    assert_eq!(view.entry, whole.entry);
                    assert_eq!(view.program_shape, whole.program_shape);
                    assert!(view.computations.iter().all(|c| c.instructions.is_empty()));
                }
                (Err(a), Err(b)) => assert_eq!(a, b, "{name} cut at {cut}"),
                (a, b) => panic!("{name} cut at {cut}: {:?} / {:?}", a.err(), b.err()),
            }
        }
    }
}
