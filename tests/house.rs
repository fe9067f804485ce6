//! The crate's structure seen from outside: `ProgramShapeProto` bytes read
//! with the same Google wire semantics as a standalone `ShapeProto`
//! (XLA's answers in `tests/data/oracle/wire.jsonl`), and the encoders that
//! write into a caller's buffer.

mod common;

use common::*;
use prost::Message;
use prost::encoding::{WireType, encode_key, encode_varint};
use xla_shape::proto::{DESCRIPTOR_POOL, ProgramShapeProto};
use xla_shape::{ProgramShape, Shape};

/// The number of `ProgramShapeProto.<name>` in the schema.
fn field(name: &str) -> u32 {
    DESCRIPTOR_POOL
        .get_message_by_name("xla.ProgramShapeProto")
        .unwrap()
        .get_field_by_name(name)
        .unwrap()
        .number()
}

/// Appends a length-delimited field `name` of `ProgramShapeProto`.
fn put(out: &mut Vec<u8>, name: &str, body: &[u8]) {
    encode_key(field(name), WireType::LengthDelimited, out);
    encode_varint(body.len() as u64, out);
    out.extend_from_slice(body);
}

/// Every `ShapeProto` of wire.jsonl, as the result and as a named
/// parameter of a `ProgramShapeProto`: decoded as the standalone bytes
/// are (XLA's verdict on those is checked by `tests/proto_wire.rs`).
#[test]
fn program_shape_bytes_follow_googles_wire_semantics() {
    let mut n = 0;
    for r in records("oracle/wire.jsonl") {
        let line = str_field(&r, "line");
        let input = hex(r["input"]["hex"].as_str().unwrap());
        let standalone = Shape::from_proto_bytes(&input);

        let mut as_result = Vec::new();
        put(&mut as_result, "result", &input);
        // The parameter goes with a well-formed result, f32[].
        let f32_scalar = "f32[]".parse::<Shape>().unwrap().to_proto_bytes();
        let mut as_parameter = Vec::new();
        put(&mut as_parameter, "parameters", &input);
        put(&mut as_parameter, "result", &f32_scalar);
        put(&mut as_parameter, "parameter_names", b"x");

        let by_result = ProgramShape::from_proto_bytes(&as_result);
        let by_parameter = ProgramShape::from_proto_bytes(&as_parameter);
        match &standalone {
            Ok(s) => {
                let p = by_result.unwrap_or_else(|e| panic!("{line}: {e}"));
                assert_eq!(p.result(), s, "{line}");
                let p = by_parameter.unwrap_or_else(|e| panic!("{line}: {e}"));
                assert_eq!(p.parameters(), std::slice::from_ref(s), "{line}");
                assert_eq!(p.parameter_names(), ["x"], "{line}");
            }
            Err(e) => {
                for ours in [by_result, by_parameter] {
                    let ours = ours.expect_err(line);
                    assert_eq!(ours.kind(), e.kind(), "{line}");
                    assert_eq!(ours.message(), e.message(), "{line}");
                }
            }
        }
        n += 1;
    }
    assert_eq!(n, 29);
}

/// A result given twice is merged, as for any singular message field
/// (protobuf encoding guide, "Last One Wins" / merging of embedded
/// messages): `element_type: F32` (10 0b) then `dimensions: [2]`
/// (1a 01 02) read as one `f32[2]`.
#[test]
fn a_result_given_twice_is_merged() {
    let mut bytes = Vec::new();
    put(&mut bytes, "result", &[0x10, 0x0b]);
    put(&mut bytes, "result", &[0x1a, 0x01, 0x02]);
    let p = ProgramShape::from_proto_bytes(&bytes).unwrap();
    assert_eq!(p.result().to_string(), "f32[2]");
    // prost reads the same bytes the same way here; the two decoders part
    // only where Google's runtimes and prost do (see proto_wire.rs).
    let prost = ProgramShapeProto::decode(&bytes[..]).unwrap();
    assert_eq!(ProgramShape::try_from(&prost).unwrap(), p);
}

/// A parameter name that is not UTF-8 fails the parse, as proto3 strings
/// do in C++ and upb.
#[test]
fn parameter_names_must_be_utf8() {
    let mut bytes = Vec::new();
    put(&mut bytes, "parameters", &[0x10, 0x0b]);
    put(&mut bytes, "result", &[0x10, 0x0b]);
    put(&mut bytes, "parameter_names", &[0xff]);
    let err = ProgramShape::from_proto_bytes(&bytes).unwrap_err();
    assert_eq!(err.kind(), xla_shape::ErrorKind::Decode);
}

/// Our encoder of `ProgramShapeProto` writes what prost writes for the
/// same message (prost is the peer: both follow the C++ serializer's field
/// order), for every golden shape as result and parameter.
#[test]
fn program_shape_encoding_agrees_with_prost() {
    let mut buf = Vec::new();
    let mut n = 0;
    for r in records("shapes.jsonl") {
        let Ok(s) = Shape::from_proto_bytes(&hex(str_field(&r, "proto_hex"))) else {
            continue;
        };
        let p = ProgramShape::new(vec![("a".into(), s.clone()), (String::new(), s.clone())], s);
        let ours = p.to_proto_bytes();
        assert_eq!(
            ours,
            ProgramShapeProto::from(&p).encode_to_vec(),
            "{}",
            id(&r)
        );
        assert_eq!(ProgramShape::from_proto_bytes(&ours).unwrap(), p);
        buf.clear();
        p.encode_to(&mut buf);
        assert_eq!(buf, ours);
        n += 1;
    }
    assert!(n > 100, "{n}");
}

/// `encode_to` appends: what was in the buffer stays.
#[test]
fn encode_to_appends_to_the_callers_buffer() {
    let s: Shape = "(f32[2]{0}, s8[])".parse().unwrap();
    let mut buf = vec![0xaa];
    s.encode_to(&mut buf);
    assert_eq!(buf[0], 0xaa);
    assert_eq!(buf[1..], s.to_proto_bytes());
}

/// `to_proto_bytes` hands out exactly the encoded length, as prost's
/// `encode_to_vec` does, though the writer reserves an upper bound first:
/// for small shapes, for a tuple whose bytes outgrow the per-thread scratch
/// (64 KiB), and again after it, on the same thread and on a fresh one.
#[test]
fn to_proto_bytes_holds_exactly_its_length() {
    let small: Shape = "bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}"
        .parse()
        .unwrap();
    let large = Shape::Tuple(vec![small.clone(); 3000]);
    let check = |s: &Shape| {
        let bytes = s.to_proto_bytes();
        let mut direct = Vec::new();
        s.encode_to(&mut direct);
        assert_eq!(bytes, direct);
        assert_eq!(bytes.capacity(), bytes.len());
        bytes.len()
    };
    assert!(check(&large) > 64 << 10);
    for s in [&small, &large, &small] {
        check(s);
    }
    let layout = small.layout().unwrap();
    let bytes = layout.to_proto_bytes();
    assert_eq!(bytes.capacity(), bytes.len());
    std::thread::spawn(move || check(&small)).join().unwrap();
}

/// Parse errors carry their `was parsing` lines as structured diagnostics:
/// rendered, they are XLA's lines (the oracle's answers in
/// `tests/data/oracle/diagnostics.jsonl`), in XLA's order.
#[test]
fn parse_diagnostics_render_as_xlas_lines() {
    let mut n = 0;
    for r in records("oracle/diagnostics.jsonl") {
        let text = str_field(&r, "line");
        let err = text.parse::<Shape>().unwrap_err();
        let xla: Vec<&str> = str_field(&r, "xla_error")
            .lines()
            .filter(|l| l.starts_with("was parsing "))
            .collect();
        let ours: Vec<String> = err.diagnostics().iter().map(|d| d.to_string()).collect();
        if xla.is_empty() {
            // `Syntax error:\nExtra content after shape`: one diagnostic,
            // at the extra token ("extra" on line 2, after two spaces).
            let d = &err.diagnostics()[0];
            assert!(str_field(&r, "xla_error").ends_with(d.message()), "{text}");
            assert_eq!((d.location().line, d.location().column), (2, 2));
        } else {
            assert_eq!(ours, xla, "{text}");
        }
        assert_eq!(
            err.location(),
            err.diagnostics().last().map(|d| d.location())
        );
        n += 1;
    }
    assert_eq!(n, 3);
}

/// `Hash` agrees with `Eq`: XLA's `Layout::operator==` never compares
/// `dynamic_shape_metadata_prefix_bytes` (`M(n)`), so shapes that differ
/// only there are equal and must hash equally; shapes XLA tells apart
/// (another layout, element type, tuple arity) are unequal.
#[test]
fn equal_shapes_hash_equally() {
    let state = std::hash::RandomState::new();
    let h = |s: &str| {
        use std::hash::BuildHasher;
        state.hash_one(s.parse::<Shape>().unwrap())
    };
    let a: Shape = "(f32[2,3]{1,0:M(8)}, s8[])".parse().unwrap();
    let b: Shape = "(f32[2,3]{1,0}, s8[])".parse().unwrap();
    assert_eq!(a, b);
    assert_eq!(h("(f32[2,3]{1,0:M(8)}, s8[])"), h("(f32[2,3]{1,0}, s8[])"));
    for (x, y) in [
        ("f32[2,3]{1,0}", "f32[2,3]{0,1}"),
        ("f32[2,3]", "s32[2,3]"),
        ("(f32[])", "(f32[], f32[])"),
        ("f32[<=3]", "f32[3]"),
    ] {
        let (sx, sy) = (x.parse::<Shape>().unwrap(), y.parse::<Shape>().unwrap());
        assert_ne!(sx, sy, "{x} vs {y}");
        assert_ne!(h(x), h(y), "{x} vs {y}");
    }
}

/// `FromStr` for `ArrayShape`: XLA's `ParseShape`, then the array.
#[test]
fn array_shapes_parse_from_strings() {
    let a: xla_shape::ArrayShape = "bf16[8,128]{0,1}".parse().unwrap();
    assert_eq!(Shape::from(a).to_string(), "bf16[8,128]{0,1}");
    let e = "(f32[2])".parse::<xla_shape::ArrayShape>().unwrap_err();
    assert_eq!(e.kind(), xla_shape::ErrorKind::InvalidArgument);
}

/// The text of `tests/data/hlo/NAME.txt` (XLA's print of the module).
fn module_text(name: &str) -> String {
    std::fs::read_to_string(data_path(&format!("hlo/{name}.txt"))).unwrap()
}

/// The value of `entry_computation_layout={...}` on XLA's module line.
fn entry_computation_layout(text: &str) -> &str {
    let first = text.lines().next().unwrap();
    let start =
        first.find("entry_computation_layout={").unwrap() + "entry_computation_layout={".len();
    let mut depth = 0usize;
    for (i, c) in first[start..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => return &first[start..start + i],
            '}' => depth -= 1,
            _ => {}
        }
    }
    panic!("unclosed entry_computation_layout in {first}")
}

/// The signature XLA prints on the ENTRY line: `(x.1: f32[2]) -> f32[2]`.
fn entry_signature(text: &str) -> &str {
    let line = text.lines().find(|l| l.starts_with("ENTRY ")).unwrap();
    let body = line.strip_suffix(" {").unwrap();
    &body[body.find('(').unwrap()..]
}

/// Both printed forms of the golden programs' entry program shape parse to
/// what XLA's `HloModuleProto` holds: the ENTRY signature (XLA's
/// `ProgramShape::ToString` form, names and shapes without layouts) and
/// `entry_computation_layout` (no names, shapes with their layouts).
#[test]
fn program_shapes_parse_from_both_forms_xla_prints() {
    for name in HLO_PROGRAMS {
        let text = module_text(name);
        let pb = std::fs::read(data_path(&format!("hlo/{name}.pb"))).unwrap();
        let module = xla_shape::hlo::HloModule::read(&pb).unwrap();
        let from_proto = module
            .program_shape
            .expect("the module proto's program shape");

        let signature = entry_signature(&text);
        let named: ProgramShape = signature.parse().unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(named.to_string(), signature, "{name}");
        assert_eq!(
            named.parameter_names(),
            from_proto.parameter_names(),
            "{name}"
        );
        assert_eq!(named.to_string(), from_proto.to_string(), "{name}");

        let layout = entry_computation_layout(&text);
        let unnamed: ProgramShape = layout.parse().unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            unnamed.parameter_names().iter().all(String::is_empty),
            "{name}"
        );
        assert_eq!(unnamed.parameters(), from_proto.parameters(), "{name}");
        assert_eq!(unnamed.result(), from_proto.result(), "{name}");
    }
}

/// `Display` reads back, an empty name included (printed `(unknown)`,
/// which XLA itself does not read back: docs/differences.md).
#[test]
fn program_shape_display_reads_back() {
    for name in HLO_PROGRAMS {
        let pb = std::fs::read(data_path(&format!("hlo/{name}.pb"))).unwrap();
        let p = xla_shape::hlo::HloModule::read(&pb)
            .unwrap()
            .program_shape
            .unwrap();
        let mut names = p.parameter_names().to_vec();
        names[0].clear();
        let p = ProgramShape::new(
            names
                .into_iter()
                .zip(p.parameters().iter().cloned())
                .collect(),
            p.result().clone(),
        );
        let printed = p.to_string();
        assert!(printed.starts_with("((unknown): "), "{printed}");
        let back: ProgramShape = printed.parse().unwrap();
        assert_eq!(back.to_string(), printed);
        assert_eq!(back.parameter_names(), p.parameter_names());
    }
}

/// XLA's verdicts on program shapes in both forms (oracle/program_shape.jsonl):
/// what it accepts parses to what it reprints; what it rejects fails with
/// its message at its column.
#[test]
fn program_shapes_follow_xlas_parser() {
    let records = records("oracle/program_shape.jsonl");
    assert_eq!(records.len(), 12);
    for r in records {
        let input = str_field(&r, "input");
        let ours = input.parse::<ProgramShape>();
        if let Some(printed) = r["printed"].as_str() {
            let ours = ours.unwrap_or_else(|e| panic!("{input}: {e}"));
            let again: ProgramShape = if r["form"] == "layout" {
                entry_computation_layout(printed).parse().unwrap()
            } else {
                entry_signature(printed).parse().unwrap()
            };
            assert_eq!(ours.parameters(), again.parameters(), "{input}");
            assert_eq!(ours.result(), again.result(), "{input}");
            continue;
        }
        let error = str_field(&r, "error");
        let line = r["line"].as_u64().unwrap();
        // XLA's first `was parsing L:C: error: MSG` line, moved to line 1
        // of the input alone: XLA counts columns 1-based on the lines after
        // the first and 0-based on the first (`Diagnostic::xla_column`).
        let xla_line = error.lines().nth(1).unwrap();
        let rest = xla_line
            .strip_prefix(&format!("was parsing {line}:"))
            .unwrap();
        let (column, message) = rest.split_once(':').unwrap();
        let column: usize = column.parse().unwrap();
        let expected = format!("was parsing 1:{}:{message}", column - 1);
        let err = ours.expect_err(input);
        assert_eq!(err.kind(), xla_shape::ErrorKind::Parse, "{input}");
        assert_eq!(err.diagnostics()[0].to_string(), expected, "{input}");
    }
}

/// jaxlib aborts the process on `rank()` / `dimensions()` of a non-array
/// (`tests/data/oracle/model_non_array.jsonl`); here both are `None`.
#[test]
fn rank_and_dimensions_of_a_non_array_are_none() {
    let lines = records("oracle/model_non_array.jsonl");
    assert!(!lines.is_empty());
    for r in &lines {
        assert_eq!(str_field(r, "status"), "abort");
        assert!(str_field(r, "message").starts_with("Check failed"));
        let shape: Shape = str_field(r, "shape").parse().unwrap();
        match str_field(r, "method") {
            "rank" => assert_eq!(shape.rank(), None, "{shape}"),
            "dimensions" => assert_eq!(shape.dimensions(), None, "{shape}"),
            m => panic!("unexpected method {m}"),
        }
    }
}

/// Every golden array's `rank()` and `dimensions()` are jaxlib's; every
/// golden tuple and token gives `None`.
#[test]
fn rank_and_dimensions_agree_with_jaxlib_facts() {
    let mut arrays = 0;
    let mut others = 0;
    for r in records("shapes.jsonl") {
        if r["status"] != "ok" {
            continue;
        }
        // A few printed forms XLA itself does not parse back (`{0:T()}`).
        let Ok(shape) = str_field(&r, "xla_str").parse::<Shape>() else {
            continue;
        };
        let f = &r["facts"];
        if f["is_tuple"] == true || f["is_token"] == true {
            assert_eq!((shape.rank(), shape.dimensions()), (None, None), "{shape}");
            others += 1;
        } else if shape.is_array() {
            let dims: Vec<i64> = serde_json::from_value(f["dimensions"].clone()).unwrap();
            assert_eq!(shape.rank(), f["rank"].as_u64().map(|n| n as usize));
            assert_eq!(shape.dimensions(), Some(&dims[..]), "{shape}");
            arrays += 1;
        }
    }
    assert!(
        arrays > 100 && others > 10,
        "{arrays} arrays, {others} others"
    );
}

/// `#[serde(with = "xla_shape::serde::compact")]` on `Shape` and `Layout`.
#[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
struct Compact<T: xla_shape::serde::compact::Compact> {
    #[serde(with = "xla_shape::serde::compact")]
    #[serde(bound = "")]
    value: T,
}

/// Every golden shape whose printed form XLA's parser reads back writes
/// XLA's printed form (`xla_str`, layout included) and reads back equal; its
/// layout writes the layout part of that form.
#[test]
fn compact_serde_writes_xlas_printed_form() {
    let mut checked = 0;
    for r in records("shapes.jsonl") {
        if r["status"] != "ok" || r["reparse_identical"] != true {
            continue;
        }
        let printed = str_field(&r, "xla_str");
        let Ok(shape) = printed.parse::<Shape>() else {
            continue;
        };
        let json = serde_json::to_string(&Compact {
            value: shape.clone(),
        })
        .unwrap();
        assert_eq!(json, serde_json::json!({ "value": printed }).to_string());
        let back: Compact<Shape> = serde_json::from_str(&json).unwrap();
        assert_eq!(back.value, shape, "{printed}");
        if let Some(layout) = shape.layout() {
            let text = serde_json::to_value(Compact {
                value: layout.clone(),
            })
            .unwrap();
            let text = text["value"].as_str().unwrap();
            // XLA prints no `{}` after a scalar.
            assert!(
                printed.ends_with(text) || (text == "{}" && !printed.contains('{')),
                "{printed} / {text}"
            );
            let back: Compact<xla_shape::Layout> =
                serde_json::from_value(serde_json::json!({ "value": text })).unwrap();
            assert_eq!(&back.value, layout);
        }
        checked += 1;
    }
    assert!(checked > 400, "{checked}");
}

/// An invalid string fails with XLA's message (golden `invalid.jsonl`):
/// every `was parsing L:C: error: ...` line of XLA's status text (the
/// source line under it differs where docs/differences.md says so).
#[test]
fn compact_serde_rejects_with_xlas_message() {
    let mut checked = 0;
    for r in records("invalid.jsonl") {
        if r["status"] != "error" || r["input"]["kind"] != "text" {
            continue;
        }
        let text = r["input"]["text"].as_str().unwrap();
        let err = serde_json::from_value::<Compact<Shape>>(serde_json::json!({ "value": text }))
            .unwrap_err()
            .to_string();
        let xla_error = str_field(&r, "xla_error");
        let mut lines: Vec<&str> = xla_error
            .lines()
            .filter(|l| l.starts_with("was parsing "))
            .collect();
        let whole = xla_message(xla_error);
        if lines.is_empty() {
            // A message without a source position: all of it.
            lines.push(&whole);
        }
        for line in lines {
            assert!(err.contains(line), "{text}: {err:?} lacks {line:?}");
        }
        checked += 1;
    }
    assert!(checked > 10, "{checked}");
}
