//! `xla-shape convert --lines --from hlo --to hex` without the I/O: the
//! library loop over 100,000 HLO shape strings (the golden records' printed
//! forms, repeated), each parsed, encoded as ShapeProto bytes and written as
//! hex on its own line. Baseline in the same run: copying the lines to the
//! output unchanged. Target: over 1 million lines per second.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use xla_shape::formats::to_hex;
use xla_shape::text::parse_shape;

fn lines() -> Vec<String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/shapes.jsonl");
    let golden: Vec<String> = std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            v["xla_str"].as_str().unwrap().to_string()
        })
        .filter(|s| parse_shape(s).is_ok())
        .collect();
    golden.iter().cycle().take(100_000).cloned().collect()
}

fn bench(c: &mut Criterion) {
    let lines = lines();
    let bytes: usize = lines.iter().map(|l| l.len() + 1).sum();
    let mut g = c.benchmark_group("convert_lines_hlo_to_hex");
    g.throughput(Throughput::Elements(lines.len() as u64));
    g.sample_size(10);
    g.bench_function("copy lines (baseline)", |b| {
        b.iter(|| {
            let mut out = String::with_capacity(bytes);
            for line in black_box(&lines) {
                out.push_str(line);
                out.push('\n');
            }
            out
        })
    });
    g.bench_function("parse, encode, hex", |b| {
        b.iter(|| {
            let mut out = String::with_capacity(bytes * 2);
            for line in black_box(&lines) {
                match parse_shape(line) {
                    Ok(shape) => out.push_str(&to_hex(&shape.to_proto_bytes())),
                    Err(e) => out.push_str(e.message()),
                }
                out.push('\n');
            }
            out
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
