//! Index math on a rank-4 array with a permuted layout, against the floor:
//! - `to_linear`: every index (read from a list) converted to its linear
//!   position with `index_util`, and with a hand-written loop over
//!   precomputed strides (the floor);
//! - `to_index`: every linear position converted back to its index with
//!   `index_util` into a reused buffer (and into a new `Vec`), and with a
//!   hand-written loop dividing by precomputed strides (the floor);
//! - `iterate`: every index in layout order with `shape_util::indices`
//!   (a `for` loop, and `for_each`), with `for_each_index`, and with plain
//!   nested loops (the floor).
//!
//! Run: `cargo bench --bench index -- --warm-up-time 1 --measurement-time 3`.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use xla_shape::PrimitiveType as T;
use xla_shape::{index_util, shape_util};

const DIMS: [i64; 4] = [16, 32, 24, 20];
const MINOR_TO_MAJOR: [i64; 4] = [1, 3, 0, 2];

fn to_linear(c: &mut Criterion) {
    let shape = shape_util::make_shape_with_dense_layout(T::F32, &DIMS, &MINOR_TO_MAJOR);
    let n = shape_util::elements_in(&shape).unwrap() as u64;
    // Element strides, precomputed: the floor.
    let mut strides = [0i64; 4];
    let mut scale = 1;
    for &d in &MINOR_TO_MAJOR {
        strides[d as usize] = scale;
        scale *= DIMS[d as usize];
    }
    let mut group = c.benchmark_group("to_linear");
    group.throughput(Throughput::Elements(n));
    // Every index, row-major, read from memory by both.
    let mut all = Vec::with_capacity(n as usize);
    for i0 in 0..DIMS[0] {
        for i1 in 0..DIMS[1] {
            for i2 in 0..DIMS[2] {
                for i3 in 0..DIMS[3] {
                    all.push([i0, i1, i2, i3]);
                }
            }
        }
    }
    let all = black_box(all);
    group.bench_function("index_util", |b| {
        b.iter(|| {
            let mut sum = 0i64;
            for index in &all {
                sum = sum.wrapping_add(
                    index_util::multidimensional_index_to_linear_index(&shape, index).unwrap(),
                );
            }
            sum
        })
    });
    group.bench_function("hand_strides", |b| {
        b.iter(|| {
            let mut sum = 0i64;
            for index in &all {
                let mut linear = 0i64;
                for k in 0..4 {
                    linear += index[k] * strides[k];
                }
                sum = sum.wrapping_add(linear);
            }
            sum
        })
    });
    group.finish();
}

fn to_index(c: &mut Criterion) {
    let shape = shape_util::make_shape_with_dense_layout(T::F32, &DIMS, &MINOR_TO_MAJOR);
    let n = shape_util::elements_in(&shape).unwrap();
    // Element strides, precomputed, most major first: the floor divides
    // by each in turn.
    let mut strides = [(0usize, 0i64); 4];
    let mut scale = 1;
    for (k, &d) in MINOR_TO_MAJOR.iter().enumerate() {
        strides[3 - k] = (d as usize, scale);
        scale *= DIMS[d as usize];
    }
    let mut group = c.benchmark_group("to_index");
    group.throughput(Throughput::Elements(n as u64));
    group.bench_function("index_util_into", |b| {
        let mut index = [0i64; 4];
        b.iter(|| {
            let mut sum = 0i64;
            for linear in 0..black_box(n) {
                index_util::linear_index_to_multidimensional_index_into(&shape, linear, &mut index)
                    .unwrap();
                sum = sum.wrapping_add(index[0] ^ index[3]);
            }
            sum
        })
    });
    group.bench_function("hand_strides", |b| {
        let mut index = [0i64; 4];
        b.iter(|| {
            let mut sum = 0i64;
            for linear in 0..black_box(n) {
                let mut rest = linear;
                for &(d, stride) in black_box(&strides) {
                    index[d] = rest / stride;
                    rest %= stride;
                }
                sum = sum.wrapping_add(index[0] ^ index[3]);
            }
            sum
        })
    });
    group.bench_function("index_util_vec", |b| {
        b.iter(|| {
            let mut sum = 0i64;
            for linear in 0..black_box(n) {
                let index =
                    index_util::linear_index_to_multidimensional_index(&shape, linear).unwrap();
                sum = sum.wrapping_add(index[0] ^ index[3]);
            }
            sum
        })
    });
    group.finish();
}

fn iterate(c: &mut Criterion) {
    let shape = shape_util::make_shape_with_dense_layout(T::F32, &DIMS, &MINOR_TO_MAJOR);
    let n = shape_util::elements_in(&shape).unwrap() as u64;
    let mut group = c.benchmark_group("iterate");
    group.throughput(Throughput::Elements(n));
    group.bench_function("indices", |b| {
        b.iter(|| {
            for index in shape_util::indices::<4>(&shape).unwrap() {
                black_box(index);
            }
        })
    });
    group.bench_function("indices_for_each", |b| {
        b.iter(|| {
            shape_util::indices::<4>(&shape).unwrap().for_each(|index| {
                black_box(index);
            })
        })
    });
    group.bench_function("nested_loops", |b| {
        // The same order: dimension 1 fastest, then 3, 0, 2.
        b.iter(|| {
            for i2 in 0..DIMS[2] {
                for i0 in 0..DIMS[0] {
                    for i3 in 0..DIMS[3] {
                        for i1 in 0..DIMS[1] {
                            black_box([i0, i1, i2, i3]);
                        }
                    }
                }
            }
        })
    });
    group.bench_function("for_each_index", |b| {
        b.iter(|| {
            shape_util::for_each_index(&shape, |index| {
                black_box(index);
                true
            })
            .unwrap()
        })
    });
    group.finish();
}

criterion_group!(benches, to_linear, to_index, iterate);
criterion_main!(benches);
