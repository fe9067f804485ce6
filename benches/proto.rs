//! Decode + validate into a new `Shape` (`from_proto_bytes`) and into one
//! reused `Shape` (`decode_from`), and encode, for the rank-4 tiled shape
//! `bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}` (41 bytes) and a tuple of
//! 100 of them. Baselines in the same run: prost's own decode of the raw
//! `ShapeProto` (no validation, no model) and prost's encode of it.

use criterion::{Criterion, criterion_group, criterion_main};
use prost::Message;
use std::hint::black_box;
use xla_shape::Shape;
use xla_shape::proto::ShapeProto;

fn rank4() -> Shape {
    "bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}"
        .parse()
        .unwrap()
}

fn bench(c: &mut Criterion) {
    let one = rank4();
    let tuple = Shape::Tuple(vec![one.clone(); 100]);
    for (name, shape) in [("rank4", &one), ("tuple100", &tuple)] {
        let bytes = shape.to_proto_bytes();
        if name == "rank4" {
            assert_eq!(bytes.len(), 41);
        }
        let mut g = c.benchmark_group(name);
        g.bench_function("prost_decode_raw (baseline)", |b| {
            b.iter(|| ShapeProto::decode(black_box(&bytes[..])).unwrap())
        });
        g.bench_function("decode_validate", |b| {
            b.iter(|| Shape::from_proto_bytes(black_box(&bytes)).unwrap())
        });
        let mut reused = Shape::Tuple(Vec::new());
        g.bench_function("decode_validate_reused", |b| {
            b.iter(|| {
                reused.decode_from(black_box(&bytes)).unwrap();
                black_box(&reused);
            })
        });
        let proto = ShapeProto::from(shape);
        g.bench_function("prost_encode_raw (baseline)", |b| {
            b.iter(|| black_box(&proto).encode_to_vec())
        });
        g.bench_function("encode", |b| b.iter(|| black_box(shape).to_proto_bytes()));
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
