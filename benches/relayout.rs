//! Relayout throughput at 16 and 256 MiB, against a plain memory copy of
//! the same number of bytes measured in the same run (the floor): 2-D
//! transposes of 1-, 2-, 4- and 8-byte elements, NCHW <-> NHWC with 3, 64
//! and 256 channels, untiling XLA's TPU layouts `T(8,128)(2,1)` (bf16),
//! `T(8,128)(4,1)` (s8) and `T(8,128)` (f32), and tiling into the first
//! two. Each case's throughput divided by the copy's is its ratio to a
//! memory copy (target at least 0.5).
//!
//! `cargo bench --bench relayout -- --warm-up-time 1 --measurement-time 3`
//! (`-- 16MiB` or `-- 256MiB` for one size; with `--features rayon`, each
//! case again as `_threads`, the same copy by `Relayout::run_parallel` on
//! every core of the machine).
//!
//! On a loaded machine the two sides of a ratio measured seconds apart
//! see different loads. `RELAYOUT_PAIRED=ROUNDS cargo bench --bench
//! relayout -- [FILTER]` times instead, in each of `ROUNDS` rounds, a
//! memory copy of the case's destination size and then the case, one
//! after the other, and prints per case (whose name contains `FILTER`)
//! the ratio of the best throughputs of the two (preemption only ever
//! slows a copy down) and the median of the rounds' ratios. With
//! `RELAYOUT_ROUNDS=1` too, each case's rounds follow on a line of their
//! own, in order: the case's GiB/s, then the copy's.

use criterion::{BenchmarkGroup, Criterion, Throughput, criterion_group};
use std::hint::black_box;
use std::time::Instant;
use xla_shape::relayout::Relayout;
use xla_shape::{ArrayShape, Layout, PrimitiveType, Tile};

fn shape(t: PrimitiveType, dims: &[i64], mtm: &[i64], tiles: Vec<Tile>) -> ArrayShape {
    ArrayShape::new(t, dims.to_vec())
        .unwrap()
        .with_layout(Some(Layout::new(mtm.to_vec()).with_tiles(tiles)))
        .unwrap()
}

/// The cases for `bytes` bytes of data (a power of two, 16 MiB or more):
/// name, source shape, destination shape.
fn cases(bytes: i64) -> Vec<(String, ArrayShape, ArrayShape)> {
    use PrimitiveType::{Bf16, F32, F64, S8, S16, U8};
    let mut out = Vec::new();
    for t in [U8, S16, F32, F64] {
        let e = t.byte_width().unwrap();
        // A square number of bytes, or twice one: rows of 2^k elements.
        let elements = bytes / e;
        let rows = 1i64 << ((63 - elements.leading_zeros()) / 2);
        let dims = [rows, elements / rows];
        out.push((
            format!("transpose_{}_{}x{}", t.lowercase_name(), dims[0], dims[1]),
            shape(t, &dims, &[1, 0], vec![]),
            shape(t, &dims, &[0, 1], vec![]),
        ));
    }
    for c in [3i64, 64, 256] {
        // N x C x 64 x 64 f32, N rounded so that the array has about
        // `bytes` bytes.
        let n = (bytes / (4 * c * 64 * 64)).max(1);
        let dims = [n, c, 64, 64];
        let nchw = shape(F32, &dims, &[3, 2, 1, 0], vec![]);
        let nhwc = shape(F32, &dims, &[1, 3, 2, 0], vec![]);
        out.push((
            format!("nchw_to_nhwc_{n}x{c}x64x64"),
            nchw.clone(),
            nhwc.clone(),
        ));
        out.push((format!("nhwc_to_nchw_{n}x{c}x64x64"), nhwc, nchw));
    }
    // XLA's TPU layouts untiled into row-major, and row-major tiled into
    // those with groups of rows interleaved (bf16 in pairs, 8-bit types in
    // fours): 8 MiB of bf16 and s8, 16 MiB of f32.
    for (t, rows, minor, both_ways) in [
        (Bf16, bytes / 2 / 4096, Some([2, 1]), true),
        (S8, bytes / 2 / 2048, Some([4, 1]), true),
        (F32, bytes / 4 / 2048, None, false),
    ] {
        let mut tiles = vec![Tile::new([8, 128]).unwrap()];
        let mut name = format!("{}_8x128", t.lowercase_name());
        if let Some(m) = minor {
            tiles.push(Tile::new(m).unwrap());
            name += &format!("_{}x{}", m[0], m[1]);
        }
        let tiled = shape(t, &[rows, 2048], &[1, 0], tiles);
        let plain = shape(t, &[rows, 2048], &[1, 0], vec![]);
        out.push((
            format!("untile_{name}_{rows}x2048"),
            tiled.clone(),
            plain.clone(),
        ));
        if both_ways {
            out.push((format!("tile_{name}_{rows}x2048"), plain, tiled));
        }
    }
    out
}

fn memcpy(
    g: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>,
    src: &[u8],
    dst: &mut [u8],
) {
    g.throughput(Throughput::Bytes(src.len() as u64));
    g.bench_function("memcpy", |b| {
        b.iter(|| {
            dst.copy_from_slice(black_box(src));
            black_box(&mut *dst);
        })
    });
}

/// The sizes measured, each with a source of that many bytes.
fn sizes() -> impl Iterator<Item = (i64, i64, Vec<u8>)> {
    [16i64, 256].into_iter().map(|mib| {
        let bytes = mib << 20;
        let src: Vec<u8> = (0..bytes as usize)
            .map(|i| (i * 7 + i / 4096) as u8)
            .collect();
        (mib, bytes, src)
    })
}

fn bench(c: &mut Criterion) {
    for (mib, bytes, src) in sizes() {
        let mut dst = vec![0u8; bytes as usize];
        let mut g = c.benchmark_group(format!("relayout_{mib}MiB"));
        g.sample_size(10);
        memcpy(&mut g, &src, &mut dst);
        for (name, from, to) in cases(bytes) {
            let plan = Relayout::new(&from, &to).unwrap();
            let (sn, dn) = (plan.src_byte_size(), plan.dst_byte_size());
            let (src, dst) = (&src[..sn], &mut dst[..dn]);
            g.throughput(Throughput::Bytes(dn as u64));
            g.bench_function(name.as_str(), |b| {
                b.iter(|| {
                    plan.run(black_box(src), dst).unwrap();
                    black_box(&mut *dst);
                })
            });
            #[cfg(feature = "rayon")]
            {
                g.bench_function(format!("{name}_threads"), |b| {
                    b.iter(|| {
                        plan.run_parallel(black_box(src), dst).unwrap();
                        black_box(&mut *dst);
                    })
                });
            }
        }
        g.finish();
    }
}

/// Seconds `f` takes once.
fn seconds(f: impl FnOnce()) -> f64 {
    let t = Instant::now();
    f();
    t.elapsed().as_secs_f64()
}

/// The paired measurement (see the file's documentation): per case, the
/// ratio of its throughput to a memory copy's in each round.
fn paired(rounds: usize, filter: &str) {
    let each_round = std::env::var("RELAYOUT_ROUNDS").is_ok_and(|v| v == "1");
    println!("case | ratio of the best | median ratio | best GiB/s | memcpy's best GiB/s");
    for (mib, bytes, src) in sizes() {
        let mut dst = vec![0u8; bytes as usize];
        for (name, from, to) in cases(bytes) {
            let plan = Relayout::new(&from, &to).unwrap();
            let (sn, dn) = (plan.src_byte_size(), plan.dst_byte_size());
            let (src, dst) = (&src[..sn], &mut dst[..dn]);
            let copy_src = &src[..dn.min(sn)];
            type Run<'a> = Box<dyn Fn(&[u8], &mut [u8]) + 'a>;
            // `mut` only for the parallel row of the `rayon` feature.
            #[cfg_attr(not(feature = "rayon"), allow(unused_mut))]
            let mut runs: Vec<(String, Run<'_>)> = vec![(
                name.clone(),
                Box::new(|s: &[u8], d: &mut [u8]| plan.run(s, d).unwrap()),
            )];
            #[cfg(feature = "rayon")]
            runs.push((
                format!("{name}_threads"),
                Box::new(|s: &[u8], d: &mut [u8]| plan.run_parallel(s, d).unwrap()),
            ));
            for (label, run) in runs {
                let label = format!("relayout_{mib}MiB/{label}");
                if !label.contains(filter) {
                    continue;
                }
                // Warm: pages of both buffers touched, code loaded.
                run(src, dst);
                let rows: Vec<(f64, f64, f64)> = (0..rounds)
                    .map(|_| {
                        let m = seconds(|| {
                            dst[..copy_src.len()].copy_from_slice(black_box(copy_src));
                            black_box(&mut *dst);
                        });
                        let c = seconds(|| {
                            run(black_box(src), dst);
                            black_box(&mut *dst);
                        });
                        let gib = |bytes: usize, s: f64| bytes as f64 / s / f64::from(1 << 30);
                        let (cg, mg) = (gib(dn, c), gib(copy_src.len(), m));
                        (cg / mg, cg, mg)
                    })
                    .collect();
                let best = |f: fn(&(f64, f64, f64)) -> f64| rows.iter().map(f).fold(0.0, f64::max);
                let (cg, mg) = (best(|r| r.1), best(|r| r.2));
                let mut ratios: Vec<f64> = rows.iter().map(|r| r.0).collect();
                ratios.sort_by(f64::total_cmp);
                println!(
                    "{label} | {:.2}x | {:.2}x | {cg:.2} | {mg:.2}",
                    cg / mg,
                    ratios[ratios.len() / 2]
                );
                if each_round {
                    let each: Vec<String> = rows
                        .iter()
                        .map(|(_, c, m)| format!("{c:.1}/{m:.1}"))
                        .collect();
                    println!("  rounds: {}", each.join(" "));
                }
            }
        }
    }
}

criterion_group!(benches, bench);

fn main() {
    if let Some(rounds) = std::env::var("RELAYOUT_PAIRED")
        .ok()
        .and_then(|r| r.parse::<usize>().ok())
    {
        let filter = std::env::args()
            .skip(1)
            .find(|a| !a.starts_with('-'))
            .unwrap_or_default();
        paired(rounds.max(1), &filter);
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
