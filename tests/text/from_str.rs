//! `FromStr` of the types beside `Shape`: `ArrayShape`, and `ProgramShape`
//! in both forms XLA prints (the ENTRY signature and
//! `entry_computation_layout`), against the golden programs and XLA's
//! parser.

use crate::common::*;
use xla_shape::{ProgramShape, Shape};

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
