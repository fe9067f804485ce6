//! Compiles `proto/xla/xla_data.proto` with protox (pure Rust, no `protoc`)
//! into prost types, and writes the encoded descriptor set that
//! prost-reflect uses for JSON and text format.

use std::path::PathBuf;

fn main() {
    let proto = "proto/xla/xla_data.proto";
    println!("cargo:rerun-if-changed={proto}");
    println!("cargo:rerun-if-changed=build.rs");

    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR is set by cargo"));

    let mut compiler = protox::Compiler::new(["proto"]).expect("proto include path");
    compiler.include_source_info(false).include_imports(true);
    compiler
        .open_file("xla/xla_data.proto")
        .unwrap_or_else(|e| panic!("{proto} does not compile: {e}"));
    let fds = compiler.file_descriptor_set();
    let encoded = compiler.encode_file_descriptor_set();
    std::fs::write(out_dir.join("xla_descriptor_set.bin"), &encoded).expect("write descriptor set");

    let mut config = prost_build::Config::new();
    // Every message implements prost_reflect::ReflectMessage over the crate's
    // descriptor pool, so formats can reach any message reflectively.
    for file in &fds.file {
        let package = file.package();
        for message in &file.message_type {
            annotate(
                &mut config,
                &format!("{package}.{}", message.name()),
                message,
            );
        }
    }
    config.btree_map(["."]);
    config
        .compile_fds(fds)
        .unwrap_or_else(|e| panic!("prost-build failed: {e}"));
}

fn annotate(
    config: &mut prost_build::Config,
    full_name: &str,
    message: &prost_types::DescriptorProto,
) {
    // Only with the `formats` feature, which brings prost-reflect.
    config
        .type_attribute(
            full_name,
            r#"#[cfg_attr(feature = "formats", derive(::prost_reflect::ReflectMessage))]"#,
        )
        .type_attribute(
            full_name,
            format!(r#"#[cfg_attr(feature = "formats", prost_reflect(message_name = "{full_name}"))]"#),
        )
        .type_attribute(
            full_name,
            r#"#[cfg_attr(feature = "formats", prost_reflect(descriptor_pool = "crate::proto::DESCRIPTOR_POOL"))]"#,
        );
    for nested in &message.nested_type {
        if nested.options.as_ref().is_some_and(|o| o.map_entry()) {
            continue;
        }
        annotate(config, &format!("{full_name}.{}", nested.name()), nested);
    }
}
