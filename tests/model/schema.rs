//! `proto/xla/xla_data.proto`, `proto/xla/service/hlo.proto` and
//! `proto/xla/service/metrics.proto` declare exactly the upstream schema:
//! compiled with protox, each `FileDescriptorProto` equals the one embedded in
//! jaxlib 0.10.2 (`tests/data/*.descriptor.binpb`), source info aside.

use prost::Message;
use prost_types::{DescriptorProto, FileDescriptorProto};

/// The descriptor embedded in jaxlib, `tests/data/{stem}.descriptor.binpb`.
fn reference_of(stem: &str) -> FileDescriptorProto {
    let path = format!(
        "{}/tests/data/{stem}.descriptor.binpb",
        env!("CARGO_MANIFEST_DIR")
    );
    let bytes = std::fs::read(&path).expect("reference descriptor");
    FileDescriptorProto::decode(bytes.as_slice()).expect("reference descriptor decodes")
}

/// Our `proto/{name}` compiled with protox.
fn ours_of(name: &str) -> FileDescriptorProto {
    let mut compiler = protox::Compiler::new([concat!(env!("CARGO_MANIFEST_DIR"), "/proto")])
        .expect("include path");
    compiler.include_source_info(false);
    compiler.open_file(name).expect("schema compiles");
    let set = compiler.file_descriptor_set();
    set.file
        .into_iter()
        .find(|f| f.name() == name)
        .expect("the schema file")
}

fn reference() -> FileDescriptorProto {
    reference_of("xla_data")
}

/// `json_name` is derived from the field name by every compiler (protoc
/// writes it into descriptor sets, the C++ gencode's embedded copy omits
/// it), so it is dropped on both sides along with source info.
fn normalise(mut f: FileDescriptorProto) -> FileDescriptorProto {
    fn message(m: &mut DescriptorProto) {
        for field in &mut m.field {
            field.json_name = None;
        }
        m.nested_type.iter_mut().for_each(message);
    }
    f.source_code_info = None;
    f.message_type.iter_mut().for_each(message);
    f
}

#[test]
fn schema_equals_the_jaxlib_descriptor() {
    assert_same("xla/xla_data.proto", "xla_data");
}

#[test]
fn hlo_schema_equals_the_jaxlib_descriptor() {
    assert_same("xla/service/hlo.proto", "hlo");
}

#[test]
fn metrics_schema_equals_the_jaxlib_descriptor() {
    assert_same("xla/service/metrics.proto", "metrics");
}

fn assert_same(name: &str, stem: &str) {
    let reference = normalise(reference_of(stem));
    let ours = normalise(ours_of(name));
    assert_eq!(reference.name(), name);
    assert_eq!(reference.package(), "xla");
    assert_eq!(ours.dependency, reference.dependency, "imports differ");
    // Compare piece by piece first, for a readable failure.
    assert_eq!(ours.enum_type, reference.enum_type, "enums differ");
    assert_eq!(ours.message_type.len(), reference.message_type.len());
    for (a, b) in ours.message_type.iter().zip(&reference.message_type) {
        assert_eq!(a, b, "message {} differs", b.name());
    }
    assert_eq!(ours, reference);
}

#[test]
fn hlo_reference_has_the_module_messages() {
    let r = reference_of("hlo");
    let names: Vec<_> = r.message_type.iter().map(|m| m.name()).collect();
    for m in [
        "HloModuleProto",
        "HloInstructionProto",
        "HloProto",
        "HloSnapshot",
    ] {
        assert!(names.contains(&m), "{m}");
    }
    // SOURCE.md of the reference: 21 messages, 5 enums at file level.
    assert_eq!(r.message_type.len(), 21);
    assert_eq!(r.enum_type.len(), 5);
}

#[test]
fn reference_has_the_shape_messages() {
    let r = reference();
    let names: Vec<_> = r
        .message_type
        .iter()
        .map(|m| m.name().to_string())
        .collect();
    for m in [
        "ShapeProto",
        "LayoutProto",
        "TileProto",
        "SplitConfigProto",
        "ProgramShapeProto",
    ] {
        assert!(names.iter().any(|n| n == m), "{m}");
    }
    assert_eq!(r.message_type.len(), 51);
    assert_eq!(r.enum_type.len(), 12);
}
