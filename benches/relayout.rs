//! Relayout throughput on 64 MiB of f32, against a plain memory copy of
//! the same bytes measured in the same run (the floor).
//!
//! `cargo bench --bench relayout -- --warm-up-time 1 --measurement-time 3`

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use xla_shape::relayout::Relayout;
use xla_shape::{ArrayShape, Layout, PrimitiveType, Tile};

const BYTES: usize = 64 << 20;

fn shape(dims: &[i64], mtm: &[i64], tiles: Vec<Tile>) -> ArrayShape {
    ArrayShape::new(PrimitiveType::F32, dims.to_vec())
        .unwrap()
        .with_layout(Some(Layout::new(mtm.to_vec()).with_tiles(tiles)))
        .unwrap()
}

fn bench(c: &mut Criterion) {
    let src: Vec<u8> = (0..BYTES).map(|i| (i * 7 + i / 4096) as u8).collect();
    let mut dst = vec![0u8; BYTES];
    let mut g = c.benchmark_group("relayout_64MiB_f32");
    g.throughput(Throughput::Bytes(BYTES as u64));
    g.sample_size(10);

    g.bench_function("memcpy", |b| {
        b.iter(|| {
            dst.copy_from_slice(black_box(&src));
            black_box(&mut dst);
        })
    });

    let cases = [
        (
            "transpose_2d_4096x4096",
            shape(&[4096, 4096], &[1, 0], vec![]),
            shape(&[4096, 4096], &[0, 1], vec![]),
        ),
        (
            "nchw_to_nhwc_32x64x128x64",
            shape(&[32, 64, 128, 64], &[3, 2, 1, 0], vec![]),
            shape(&[32, 64, 128, 64], &[1, 3, 2, 0], vec![]),
        ),
        (
            "nhwc_to_nchw_32x64x128x64",
            shape(&[32, 64, 128, 64], &[1, 3, 2, 0], vec![]),
            shape(&[32, 64, 128, 64], &[3, 2, 1, 0], vec![]),
        ),
        (
            "untile_8x128_4096x4096",
            shape(&[4096, 4096], &[1, 0], vec![Tile::new([8, 128]).unwrap()]),
            shape(&[4096, 4096], &[1, 0], vec![]),
        ),
    ];
    for (name, from, to) in cases {
        let plan = Relayout::new(&from, &to).unwrap();
        assert_eq!((plan.src_byte_size(), plan.dst_byte_size()), (BYTES, BYTES));
        g.bench_function(name, |b| {
            b.iter(|| {
                plan.run(black_box(&src), &mut dst).unwrap();
                black_box(&mut dst);
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
