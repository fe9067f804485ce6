//! The reader's own edges: MLIR forms jax does not write but MLIR does,
//! errors with their line and column, attributes it does not know, the
//! limits.

use xla_shape::stablehlo::{CompileLayout, LayoutMode, StableHloModule};
use xla_shape::{ErrorKind, MAX_NESTING_DEPTH};

fn err(text: &str) -> (usize, usize, String) {
    let e = StableHloModule::from_text(text).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Parse, "{e}");
    let l = e.location().unwrap();
    (
        l.line,
        l.column + 1,
        e.diagnostics()[0].message().to_owned(),
    )
}

#[test]
fn errors_say_where() {
    assert_eq!(
        err("module {\n  func.func @main(%arg0: tensor<2xfoo>) {\n  }\n}\n"),
        (2, 35, "expected element type, found 'foo'".into())
    );
    assert_eq!(
        err("module {\n  %0 = \"a.b\"(%x : tensor<f32>\n}\n"),
        (3, 1, "expected ')', found '}'".into())
    );
    assert_eq!(err("module {\n"), (1, 8, "'{' is never closed".into()));
    assert_eq!(
        err("func.func @main() {\n  %0 = a.b \"abc\n}\n"),
        (2, 12, "expected '\"' in string literal".into())
    );
    assert_eq!(
        err("func.func @main() {\n  %0:2 = a.b : tensor<f32>\n}\n"),
        (2, 3, "expected 2 result types after ':' in 'a.b'".into())
    );
    assert_eq!(err("= 3"), (1, 1, "expected operation name".into()));
    assert_eq!(
        err("module {\n  frobnicate %x\n}"),
        (2, 3, "custom op 'frobnicate' is unknown".into())
    );
    // The message starts with MLIR's `line:column:`.
    let e = StableHloModule::from_text("module {\n").unwrap_err();
    assert_eq!(e.message(), "1:8: '{' is never closed");
}

#[test]
fn unknown_attributes_are_kept_as_written() {
    let text = r#"module @m attributes {foo.bar = #foo.baz<[1, "}", {x}]>, my.flag} {
  func.func public @main(%arg0: tensor<2xf32> {foo.arg = {a = [1, 2]}, mhlo.sharding = "{replicated}"}) -> (tensor<2xf32> {jax.result_info = "out"}) {
    %0 = stablehlo.add %arg0, %arg0 {foo.op = #foo.bar<x>} : tensor<2xf32>
    return %0 : tensor<2xf32>
  }
}
"#;
    let m = StableHloModule::from_text(text).unwrap();
    assert_eq!(m.name.as_deref(), Some("m"));
    assert_eq!(
        m.attribute("foo.bar").unwrap().value,
        r#"#foo.baz<[1, "}", {x}]>"#
    );
    assert_eq!(m.attribute("my.flag").unwrap().value, "");
    let main = m.main().unwrap();
    let arg = &main.arguments[0];
    assert_eq!(arg.attribute("foo.arg").unwrap().value, "{a = [1, 2]}");
    assert_eq!(
        arg.attribute("mhlo.sharding").unwrap().as_str().as_deref(),
        Some("{replicated}")
    );
    let sig = m.signature().unwrap();
    assert_eq!(sig.parameters[0].sharding.as_deref(), Some("{replicated}"));
    assert_eq!(sig.results[0].name, "out");
}

#[test]
fn mlir_forms_jax_does_not_write() {
    // One line, results in groups, a generic op with a region and a block
    // label, resources, a type alias, comments.
    let text = r#"// a comment
!t = tensor<2xf32>
module {
  func.func @main(%a: !t, %b: tensor<i1>) -> (!t, tensor<2xf32>) {
    %x, %y:2 = "my.op"(%a) ({
    ^bb0(%c: tensor<f32>):  // a block
      "my.yield"(%c) : (tensor<f32>) -> ()
    }) {attr = 1 : i64} : (tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<i1>)
    func.return %x, %y#0 : !t, tensor<2xf32>
  } }
{-#
  dialect_resources: { builtin: { blob: "0x04000000" } }
#-}
"#;
    let m = StableHloModule::from_text(text).unwrap();
    let main = m.main().unwrap();
    assert_eq!(main.arguments[0].ty.to_string(), "tensor<2xf32>");
    let op = &main.operations[0];
    assert_eq!(op.name, "my.op");
    assert_eq!(op.results, "%x, %y:2");
    assert_eq!(op.result_types.len(), 3);
    assert_eq!(main.operations[1].name, "my.yield");
    assert_eq!(main.operations[1].depth, 1);
    let sig = m.signature().unwrap();
    assert_eq!(
        sig.entry_computation_layout()
            .to_computation_layout_string(),
        "(f32[2]{0}, pred[])->(f32[2]{0}, f32[2]{0})"
    );
    let inline = StableHloModule::from_text(
        "func.func public @main(%arg0: tensor<f32>) -> tensor<f32> { return %arg0 : tensor<f32> }",
    )
    .unwrap();
    assert_eq!(inline.main().unwrap().operations[0].name, "return");
}

#[test]
fn layout_modes_and_memory_kinds_are_left_to_compilation() {
    let text = r#"func.func public @main(%arg0: tensor<2x3xf32> {mhlo.layout_mode = "{0,1}", mhlo.memory_kind = "pinned_host"}, %arg1: tensor<2xf32> {mhlo.layout_mode = "auto"}) -> (tensor<2x3xf32> {mhlo.layout_mode = "default", mhlo.memory_kind = "unpinned_host"}) {
  return %arg0 : tensor<2x3xf32>
}"#;
    let m = StableHloModule::from_text(text).unwrap();
    let sig = m.signature().unwrap();
    // The conversion prints none of it (modules.jsonl, XLA's own answer).
    assert_eq!(
        sig.entry_computation_layout()
            .to_computation_layout_string(),
        "(f32[2,3]{1,0}, f32[2]{0})->f32[2,3]{1,0}"
    );
    assert!(matches!(
        &sig.parameters[0].compile,
        CompileLayout::UserSpecified {
            memory_space: 5,
            ..
        }
    ));
    assert_eq!(sig.parameters[1].layout_mode, Some(LayoutMode::Auto));
    assert_eq!(
        sig.results[0].compile,
        CompileLayout::Default { memory_space: 6 }
    );
    assert!(sig.compile_entry_computation_layout().is_none());
    let notes = sig.notes();
    assert_eq!(notes.len(), 4, "{notes:#?}");
    assert!(notes[0].contains("{0,1}"));
    assert!(notes[1].contains("S(5)"));
    let bad = StableHloModule::from_text(
        r#"func.func public @main(%arg0: tensor<2xf32> {mhlo.layout_mode = "{0,"}) { return }"#,
    )
    .unwrap();
    let e = bad.signature().unwrap_err();
    assert!(
        e.message()
            .starts_with("Error parsing user-specified layout mode '{0,'"),
        "{e}"
    );
}

#[test]
fn nesting_is_bounded() {
    let deep = format!(
        "func.func @main() {{\n{}{}}}\n",
        "%0 = \"a.b\"() ({\n".repeat(MAX_NESTING_DEPTH + 5),
        "}) : () -> tensor<f32>\n".repeat(MAX_NESTING_DEPTH + 5)
    );
    let (_, _, message) = err(&deep);
    assert!(
        message.contains("nesting exceeds the limit of 100"),
        "{message}"
    );
    let shallow = format!(
        "func.func @main() {{\n{}{}}}\n",
        "%0 = \"a.b\"() ({\n".repeat(MAX_NESTING_DEPTH - 2),
        "}) : () -> tensor<f32>\n".repeat(MAX_NESTING_DEPTH - 2)
    );
    let m = StableHloModule::from_text(&shallow).unwrap();
    assert_eq!(m.main().unwrap().operations.len(), MAX_NESTING_DEPTH - 2);
    let types = format!(
        "func.func @main(%a: {}tensor<f32>{}) {{ return }}",
        "tuple<".repeat(200),
        ">".repeat(200)
    );
    let (_, _, message) = err(&types);
    assert!(message.contains("type nesting exceeds"), "{message}");
}

#[test]
fn locations_have_names() {
    let text = r#"#loc1 = loc("x")
module {
  func.func public @main(%arg0: tensor<2xf32> loc("x")) -> tensor<2xf32> {
    %0 = stablehlo.negate %arg0 : tensor<2xf32> loc(#loc4)
    return %0 : tensor<2xf32> loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc = loc(unknown)
#loc2 = loc("f.py":3:5 to :9)
#loc3 = loc(callsite(#loc2 at #loc1))
#loc4 = loc("jit(f)/neg"(#loc3))
"#;
    let m = StableHloModule::from_text(text).unwrap();
    let main = m.main().unwrap();
    let op = &main.operations[0];
    assert_eq!(op.debug_location.as_deref(), Some("#loc4"));
    assert_eq!(m.location_name("#loc4").as_deref(), Some("jit(f)/neg"));
    assert_eq!(m.location_name("#loc3").as_deref(), Some("f.py:3:5"));
    assert_eq!(m.location_name("#loc"), None);
    assert_eq!(m.signature().unwrap().parameters[0].name, "x");
    // An alias that names itself ends at the limit.
    let m = StableHloModule::from_text("module {\n}\n#a = loc(#a)\n").unwrap();
    assert_eq!(m.location_name("#a"), None);
}
