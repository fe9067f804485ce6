//! `text::shapes_in_hlo` finds every shape string
//! of the golden HLO modules (tests/data/hlo, compiled by jaxlib 0.10.2),
//! each parses, and prints back as written (with the default layout where
//! a signature wrote none, as XLA does).

use std::collections::HashMap;

use crate::common::*;
use xla_shape::text::{ParseOptions, ShapeRole, shapes_in_hlo, shapes_in_hlo_with};

fn hlo_files() -> Vec<(String, String)> {
    let dir = data_path("hlo");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            (p.file_name().unwrap().to_string_lossy().into_owned(), text)
        })
        .collect();
    files.sort();
    assert_eq!(files.len(), 20);
    files
}

/// What XLA printed for each shape string of the golden programs that the
/// golden set parsed on its own (`hlo_text/*` records).
fn xla_printed() -> HashMap<String, String> {
    records("shapes.jsonl")
        .into_iter()
        .filter(|r| r["category"] == "hlo_text")
        .map(|r| {
            (
                str_field(&r["input"], "text").to_owned(),
                str_field(&r, "xla_str").to_owned(),
            )
        })
        .collect()
}

const TYPES: &[&str] = &[
    "pred",
    "s1",
    "s2",
    "s4",
    "s8",
    "s16",
    "s32",
    "s64",
    "u1",
    "u2",
    "u4",
    "u8",
    "u16",
    "u32",
    "u64",
    "f16",
    "f32",
    "bf16",
    "f64",
    "f8e5m2",
    "f8e4m3",
    "f8e4m3fn",
    "f8e4m3b11fnuz",
    "f8e3m4",
    "f8e5m2fnuz",
    "f8e4m3fnuz",
    "f4e2m1fn",
    "f8e8m0fnu",
    "f6e3m2fn",
    "f6e2m3fn",
    "c64",
    "c128",
    "token",
    "opaque",
];

/// A reference scan, independent of the crate's: the offset of every
/// `type[` that stands alone outside a string literal.
fn array_starts(text: &str) -> Vec<usize> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut in_string = false;
    for i in 0..b.len() {
        match b[i] {
            b'"' if i == 0 || b[i - 1] != b'\\' => in_string = !in_string,
            b'\n' => in_string = false,
            _ => {}
        }
        let alone = i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b"_.-%".contains(&b[i - 1]));
        if in_string || !alone {
            continue;
        }
        if TYPES
            .iter()
            .any(|t| text[i..].starts_with(t) && b.get(i + t.len()) == Some(&b'['))
        {
            out.push(i);
        }
    }
    out
}

#[test]
fn every_shape_string_of_the_golden_modules_is_found_and_prints_back() {
    let printed_by_xla = xla_printed();
    let keep = ParseOptions {
        fill_missing_layouts: false,
    };
    let mut total = 0;
    let mut compared_with_xla = 0;
    for (name, text) in hlo_files() {
        let found: Vec<_> = shapes_in_hlo(&text).collect();
        let kept: Vec<_> = shapes_in_hlo_with(&text, &keep).collect();
        assert_eq!(found.len(), kept.len(), "{name}");
        for (s, k) in found.iter().zip(&kept) {
            let what = format!("{name}:{}: {}", s.location.line, s.text);
            assert_eq!(s.text, &text[s.range.clone()], "{what}");
            assert_eq!(s.range, k.range, "{what}");
            assert_eq!(s.location.offset, s.range.start, "{what}");
            assert_eq!(
                s.location.line,
                1 + text[..s.range.start].matches('\n').count(),
                "{what}"
            );
            let line_start = text[..s.range.start].rfind('\n').map_or(0, |i| i + 1);
            assert_eq!(s.location.column, s.range.start - line_start, "{what}");
            let shape = s.shape.as_ref().unwrap_or_else(|e| panic!("{what}: {e}"));
            // Without filling, the string prints back exactly as written.
            let kept_shape = k.shape.as_ref().unwrap();
            assert_eq!(kept_shape.to_string(), s.text, "{what}");
            // With filling, layouts written stay, missing ones are XLA's
            // default, as XLA prints them.
            if let Some(xla) = printed_by_xla.get(s.text) {
                assert_eq!(&shape.to_string(), xla, "{what}");
                compared_with_xla += 1;
            }
            if !matches!(s.role, ShapeRole::Parameter | ShapeRole::ComputationResult) {
                assert_eq!(shape.to_string(), s.text, "{what}");
            }
            total += 1;
        }
        // Every array the reference scan sees is inside a shape found.
        for start in array_starts(&text) {
            assert!(
                found.iter().any(|s| s.range.contains(&start)),
                "{name}: no shape found at {start}: {}",
                &text[start..(start + 40).min(text.len())]
            );
        }
    }
    assert!(total > 500, "only {total} shapes found");
    assert!(compared_with_xla > 100, "only {compared_with_xla} compared");
}

#[test]
fn roles_follow_the_module_structure() {
    let text = std::fs::read_to_string(data_path("hlo/scan_tuple.txt")).unwrap();
    let found: Vec<_> = shapes_in_hlo(&text).collect();
    // entry_computation_layout={(f32[10,8,8]{2,1,0}, f32[4,8]{1,0})->(...)}
    let first: Vec<_> = found[..3].iter().map(|s| (s.text, s.role)).collect();
    assert_eq!(
        first,
        [
            ("f32[10,8,8]{2,1,0}", ShapeRole::Parameter),
            ("f32[4,8]{1,0}", ShapeRole::Parameter),
            (
                "(f32[4,8]{1,0}, f32[4,8]{1,0}, s32[], f32[10]{0})",
                ShapeRole::ComputationResult
            ),
        ]
    );
    let roles_of = |line: &str| -> Vec<(&str, ShapeRole)> {
        let at = text.find(line).unwrap();
        found
            .iter()
            .filter(|s| s.range.start >= at && s.range.end <= at + line.len())
            .map(|s| (s.text, s.role))
            .collect()
    };
    assert_eq!(
        roles_of("%fused_computation (param_0: f32[4,8], param_1: f32[8,8]) -> f32[4,8] {"),
        [
            ("f32[4,8]", ShapeRole::Parameter),
            ("f32[8,8]", ShapeRole::Parameter),
            ("f32[4,8]", ShapeRole::ComputationResult),
        ]
    );
    assert_eq!(
        roles_of("%param_0 = f32[4,8]{1,0} parameter(0)"),
        [("f32[4,8]{1,0}", ShapeRole::InstructionResult)]
    );
    let tuple = roles_of("ROOT %tuple.6 = (s64[], f32[4,8]{1,0}");
    assert!(tuple.is_empty()); // the line prefix is shorter than the shape
    let t = found
        .iter()
        .find(|s| {
            s.text
                .starts_with("(s64[], f32[4,8]{1,0}, f32[4,8]{1,0}, s32[]")
        })
        .unwrap();
    assert_eq!(t.role, ShapeRole::InstructionResult);
    assert!(t.text.contains("/*index=5*/"));
}

#[test]
fn operand_shapes_strings_and_comments() {
    let hlo = r#"
%c = f32[2]{0} add(f32[2]{0} %a, f32[2]{0} %b), metadata={op_name="f32[9] (s32[])"}
// f32[3] in a comment
/* f32[4] */ %t = (f32[2]{0}, /*index=1*/s32[]) tuple(f32[2]{0} %c, s32[] %i)
%u = () tuple()
%w = token[] after-all()
"#;
    let found: Vec<_> = shapes_in_hlo(hlo)
        .map(|s| (s.text, s.role, s.location.line))
        .collect();
    use ShapeRole::*;
    assert_eq!(
        found,
        [
            ("f32[2]{0}", InstructionResult, 2),
            ("f32[2]{0}", Operand, 2),
            ("f32[2]{0}", Operand, 2),
            ("(f32[2]{0}, /*index=1*/s32[])", InstructionResult, 4),
            ("f32[2]{0}", Operand, 4),
            ("s32[]", Operand, 4),
            ("()", InstructionResult, 5),
            ("token[]", InstructionResult, 6),
        ]
    );
}

#[test]
fn bad_shapes_are_reported_with_module_positions() {
    let hlo = "%a = f32[2]{0} parameter(0)\n%b = f32[2,3]{0,0} copy(%a)\n%c = f32[2x3] copy(%a)\n";
    let found: Vec<_> = shapes_in_hlo(hlo).collect();
    assert_eq!(found.len(), 3);
    assert!(found[0].shape.is_ok());
    let e1 = found[1].shape.as_ref().unwrap_err();
    assert_eq!(found[1].text, "f32[2,3]{0,0}");
    assert!(
        e1.message()
            .contains("was parsing 2:14: error: layout minor_to_major field has duplicate values")
    );
    let e2 = found[2].shape.as_ref().unwrap_err();
    assert!(
        e2.message()
            .contains("was parsing 3:10: error: expects integer"),
        "{e2}"
    );
    assert_eq!(e2.location().unwrap().line, 3);
}
