//! HLO text: parsing and printing a rank-4 tiled shape and the golden
//! shape strings, scanning a 100 KB module for its shapes. Each group has
//! a baseline measured in the same run, so the figures can be read as
//! ratios on any machine.
//!
//! `cargo bench --bench text`
//!
//! Figures on the 2-core development machine (shared, load average 4 to
//! 5), 2026-11-23: parse 119 ns (1.8x the baseline clone of the same
//! shape, 66 ns); print 73 ns (`to_string`, 1.1x the clone); the 435
//! golden strings: parse 115 ns, print through `write!` 43 ns and through
//! `print_to` 33 ns per string (copying one: 4.4 ns). The scan of the
//! 103 KB module: 374 us, 265 MiB/s, 12x the plain byte loop (2026-11).
//! Under heavier load all figures grow by up to 2x; the ratios hold better.

use std::fmt::Write;
use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use xla_shape::Shape;
use xla_shape::text::shapes_in_hlo;

const SHAPE: &str = "bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}";

/// The golden modules of tests/data/hlo, repeated to at least 100 KB.
fn module_text() -> String {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/hlo");
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    names.sort();
    let one: String = names
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect::<Vec<_>>()
        .join("\n");
    let mut text = String::new();
    while text.len() < 100_000 {
        text.push_str(&one);
        text.push('\n');
    }
    text
}

fn shape(c: &mut Criterion) {
    let mut g = c.benchmark_group("shape");
    let parsed: Shape = SHAPE.parse().unwrap();
    g.bench_function("baseline: copy the string", |b| {
        b.iter(|| black_box(SHAPE).to_owned())
    });
    g.bench_function("parse", |b| {
        b.iter(|| black_box(SHAPE).parse::<Shape>().unwrap())
    });
    g.bench_function("print", |b| b.iter(|| black_box(&parsed).to_string()));
    g.bench_function("baseline: clone the shape", |b| {
        b.iter(|| black_box(&parsed).clone())
    });
    g.finish();
}

/// The golden shape strings that XLA printed and parsed back
/// (`xla_str` of tests/data/shapes.jsonl where `reparse_str` is present)
/// and the crate accepts: the inputs of the comparison with XLA's parser and
/// printer in BENCHMARKS.md.
fn golden_strings() -> Vec<String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/shapes.jsonl");
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap())
        .filter(|r| !r["reparse_str"].is_null())
        .filter_map(|r| r["xla_str"].as_str().map(str::to_owned))
        .filter(|t| t.parse::<Shape>().is_ok())
        .collect()
}

fn golden(c: &mut Criterion) {
    let texts = golden_strings();
    let shapes: Vec<Shape> = texts.iter().map(|t| t.parse().unwrap()).collect();
    let mut g = c.benchmark_group("golden_strings");
    g.throughput(Throughput::Elements(texts.len() as u64));
    g.bench_function("baseline: copy each string", |b| {
        let mut out = String::new();
        b.iter(|| {
            for t in &texts {
                out.clear();
                out.push_str(black_box(t));
                black_box(&out);
            }
        })
    });
    g.bench_function("parse", |b| {
        b.iter(|| {
            for t in &texts {
                black_box(black_box(t.as_str()).parse::<Shape>().unwrap());
            }
        })
    });
    g.bench_function("print (write! into a reused String)", |b| {
        let mut out = String::new();
        b.iter(|| {
            for s in &shapes {
                out.clear();
                write!(out, "{}", black_box(s)).unwrap();
                black_box(&out);
            }
        })
    });
    g.bench_function("print_to (a reused String)", |b| {
        let mut out = String::new();
        b.iter(|| {
            for s in &shapes {
                out.clear();
                black_box(s).print_to(&mut out);
                black_box(&out);
            }
        })
    });
    g.finish();
}

fn scan(c: &mut Criterion) {
    let text = module_text();
    let mut g = c.benchmark_group("scan_100kb");
    g.throughput(Throughput::Bytes(text.len() as u64));
    g.bench_function("baseline: count lines, byte loop", |b| {
        b.iter(|| {
            let mut n = 0usize;
            for &c in black_box(text.as_bytes()) {
                n += usize::from(c == b'\n');
            }
            n
        })
    });
    g.bench_function("shapes_in_hlo (parsed)", |b| {
        b.iter(|| {
            shapes_in_hlo(black_box(&text))
                .filter(|s| s.shape.is_ok())
                .count()
        })
    });
    g.finish();
}

criterion_group!(benches, shape, golden, scan);
criterion_main!(benches);
