//! `proto/xla/xla_data.proto` declares exactly the upstream schema: compiled
//! with protox, its `FileDescriptorProto` equals the one embedded in jaxlib
//! 0.10.2 (`tests/data/xla_data.descriptor.binpb`), source info aside.

use prost::Message;
use prost_types::{DescriptorProto, FileDescriptorProto};

fn reference() -> FileDescriptorProto {
    let bytes = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/xla_data.descriptor.binpb"
    ))
    .expect("reference descriptor");
    FileDescriptorProto::decode(bytes.as_slice()).expect("reference descriptor decodes")
}

fn ours() -> FileDescriptorProto {
    let mut compiler = protox::Compiler::new([concat!(env!("CARGO_MANIFEST_DIR"), "/proto")])
        .expect("include path");
    compiler.include_source_info(false);
    compiler
        .open_file("xla/xla_data.proto")
        .expect("schema compiles");
    let set = compiler.file_descriptor_set();
    set.file
        .into_iter()
        .find(|f| f.name() == "xla/xla_data.proto")
        .expect("the schema file")
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
    let reference = normalise(reference());
    let ours = normalise(ours());
    assert_eq!(reference.name(), "xla/xla_data.proto");
    assert_eq!(reference.package(), "xla");
    // Compare piece by piece first, for a readable failure.
    assert_eq!(ours.enum_type, reference.enum_type, "enums differ");
    assert_eq!(ours.message_type.len(), reference.message_type.len());
    for (a, b) in ours.message_type.iter().zip(&reference.message_type) {
        assert_eq!(a, b, "message {} differs", b.name());
    }
    assert_eq!(ours, reference);
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
