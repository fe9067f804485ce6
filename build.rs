//! Compiles the XLA schema (`proto/xla/xla_data.proto`,
//! `proto/xla/service/hlo.proto`, `proto/xla/service/metrics.proto`) with
//! protox (pure Rust, no `protoc`) into prost types, and writes the encoded
//! descriptor set that prost-reflect uses for JSON and text format. The
//! well-known types that `hlo.proto` imports (`google/protobuf/any.proto`, ...)
//! come from protox's bundled copies and map to `prost_types`.

use std::path::PathBuf;

fn main() {
    const FILES: [&str; 3] = [
        "xla/xla_data.proto",
        "xla/service/metrics.proto",
        "xla/service/hlo.proto",
    ];
    for file in FILES {
        println!("cargo:rerun-if-changed=proto/{file}");
    }
    println!("cargo:rerun-if-changed=build.rs");

    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR is set by cargo"));

    let mut compiler = protox::Compiler::new(["proto"]).expect("proto include path");
    // Source info carries the schema's comments into the generated docs; the
    // descriptor set embedded for reflection goes without it.
    compiler.include_source_info(true).include_imports(true);
    compiler
        .open_files(FILES)
        .unwrap_or_else(|e| panic!("the schema does not compile: {e}"));
    let fds = compiler.file_descriptor_set();
    let mut reflection = fds.clone();
    for file in &mut reflection.file {
        file.source_code_info = None;
    }
    std::fs::write(
        out_dir.join("xla_descriptor_set.bin"),
        prost::Message::encode_to_vec(&reflection),
    )
    .expect("write descriptor set");

    let mut config = prost_build::Config::new();
    // Every message implements prost_reflect::ReflectMessage over the crate's
    // descriptor pool, so formats can reach any message reflectively.
    for file in fds.file.iter().filter(|f| f.package() == "xla") {
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
