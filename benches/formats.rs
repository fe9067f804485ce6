//! The proto formats on the rank-4 TPU shape
//! `bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}` (XLA's 41-byte
//! ShapeProto), with every figure also given as a multiple of prost's own
//! decode of the same `ShapeProto` measured in the same run.
//!
//! ```text
//! cargo bench --bench formats -- --warm-up-time 1 --measurement-time 3
//! ```

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use bytes::Bytes;
use criterion::Criterion;
use prost::Message;
use xla_shape::Shape;
use xla_shape::formats::{self, JsonOptions, LosslessMessage, ProtoFormats};
use xla_shape::proto::ShapeProto;

const GROUP: &str = "formats";
const BASELINE: &str = "decode_prost_ShapeProto";

fn shape() -> Shape {
    "bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}"
        .parse()
        .unwrap()
}

fn benches(c: &mut Criterion) {
    let shape = shape();
    let bytes = shape.to_proto_bytes();
    assert_eq!(bytes.len(), 41);
    let shared = Bytes::from(bytes.clone());
    let proto = ShapeProto::decode(&bytes[..]).unwrap();
    let lossless = LosslessMessage::decode_as::<ShapeProto>(&bytes[..]).unwrap();
    let json = formats::to_json(&proto);
    let pretty = JsonOptions::new().pretty(true);
    let text = formats::to_text_format(&proto);
    let hex = formats::to_hex(&bytes);

    let mut g = c.benchmark_group(GROUP);
    g.bench_function(BASELINE, |b| {
        b.iter(|| ShapeProto::decode(black_box(&bytes[..])).unwrap())
    });
    g.bench_function("decode_prost_ShapeProto_from_Bytes", |b| {
        b.iter(|| ShapeProto::decode(black_box(shared.clone())).unwrap())
    });
    g.bench_function("decode_Shape_validated", |b| {
        b.iter(|| Shape::from_proto_bytes(black_box(&bytes[..])).unwrap())
    });
    let descriptor = prost_reflect::ReflectMessage::descriptor(&proto);
    g.bench_function("decode_prost_reflect_DynamicMessage", |b| {
        b.iter(|| {
            prost_reflect::DynamicMessage::decode(descriptor.clone(), black_box(&bytes[..]))
                .unwrap()
        })
    });
    g.bench_function("decode_lossless", |b| {
        b.iter(|| LosslessMessage::decode_as::<ShapeProto>(black_box(&bytes[..])).unwrap())
    });
    g.bench_function("encode_prost_ShapeProto", |b| {
        b.iter(|| black_box(&proto).encode_to_vec())
    });
    g.bench_function("encode_Shape", |b| {
        b.iter(|| black_box(&shape).to_proto_bytes())
    });
    g.bench_function("encode_Shape_into_Vec", |b| {
        let mut buf = Vec::with_capacity(64);
        b.iter(|| {
            buf.clear();
            black_box(&shape).encode_to(&mut buf);
        })
    });
    g.bench_function("encode_lossless", |b| {
        b.iter(|| black_box(&lossless).encode_to_vec())
    });
    g.bench_function("to_json", |b| {
        b.iter(|| formats::to_json(black_box(&proto)))
    });
    g.bench_function("to_json_pretty", |b| {
        b.iter(|| formats::to_json_with(black_box(&proto), &pretty))
    });
    g.bench_function("to_json_serde_Shape", |b| {
        b.iter(|| serde_json::to_string(black_box(&shape)).unwrap())
    });
    g.bench_function("from_json", |b| {
        b.iter(|| formats::from_json::<ShapeProto>(black_box(&json)).unwrap())
    });
    g.bench_function("from_json_Shape_validated", |b| {
        b.iter(|| Shape::from_json(black_box(&json)).unwrap())
    });
    g.bench_function("to_text_format", |b| {
        b.iter(|| formats::to_text_format(black_box(&proto)))
    });
    g.bench_function("to_text_format_one_line", |b| {
        b.iter(|| formats::to_text_format_one_line(black_box(&proto)))
    });
    g.bench_function("from_text_format", |b| {
        b.iter(|| formats::from_text_format::<ShapeProto>(black_box(&text)).unwrap())
    });
    g.bench_function("to_hex", |b| b.iter(|| formats::to_hex(black_box(&bytes))));
    g.bench_function("from_hex", |b| {
        b.iter(|| formats::from_hex(black_box(&hex)).unwrap())
    });
    g.finish();
}

fn criterion_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target"))
        .join("criterion")
}

/// The mean time of a benchmark measured in this run, from criterion's
/// `estimates.json`.
fn mean_ns(dir: &Path, id: &str, since: SystemTime) -> Option<f64> {
    let path = dir.join(GROUP).join(id).join("new").join("estimates.json");
    let modified = std::fs::metadata(&path).ok()?.modified().ok()?;
    if modified < since {
        return None;
    }
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()?;
    v["mean"]["point_estimate"].as_f64()
}

fn main() {
    let start = SystemTime::now();
    let dir = criterion_dir();
    let mut c = Criterion::default()
        .output_directory(&dir)
        .configure_from_args();
    benches(&mut c);
    c.final_summary();

    let Some(base) = mean_ns(&dir, BASELINE, start) else {
        return;
    };
    println!("\nmean time, and as a multiple of prost's ShapeProto decode ({base:.1} ns):");
    let entries = std::fs::read_dir(dir.join(GROUP))
        .into_iter()
        .flatten()
        .flatten();
    let mut rows: Vec<(String, f64)> = entries
        .filter_map(|e| {
            let id = e.file_name().to_string_lossy().into_owned();
            mean_ns(&dir, &id, start).map(|ns| (id, ns))
        })
        .collect();
    rows.sort_by(|a, b| a.1.total_cmp(&b.1));
    for (id, ns) in rows {
        println!("  {id:40} {ns:>10.1} ns  {:>7.2}x", ns / base);
    }
}
