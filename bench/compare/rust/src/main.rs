//! The crate's side of the comparison suite (`bench/compare/run.sh`).
//!
//! `xla-shape-compare bench DIR`: one round of every measurement on the
//! inputs `prep.py` wrote into DIR, each a monotonic clock (`Instant`)
//! around N passes after one warm-up pass, printed as
//! `RESULT <work> <case> <ns per item>` lines, as the C++, C and Python
//! harnesses print theirs. `decode` is `Shape::decode_from` into one reused
//! `Shape` (as the C++ side parses into one reused message), `decode_new`
//! is `Shape::from_proto_bytes`, a new `Shape` each time.
//!
//! `xla-shape-compare filter DIR`: keeps in `mixed.bin` and `shapes.txt`
//! the records the crate accepts (a few golden protos fail XLA's
//! `ShapeUtil::ValidateShape`, which decoding into `Shape` applies), so that
//! every side works on the same inputs.
//!
//! `xla-shape-compare once OP N DIR`: OP done N times and nothing else, for
//! instruction counts (callgrind runs it with N = 0 and N > 0).
//! `xla-shape-compare relayout CASE N`: likewise for one relayout row.

use std::fmt::Write as _;
use std::hint::black_box;
use std::path::Path;
use std::time::Instant;
use xla_shape::relayout::Relayout;
use xla_shape::{ArrayShape, Layout, PrimitiveType, Shape, index_util};

fn read_records(path: &Path) -> Vec<Vec<u8>> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut out = Vec::new();
    let mut rest = &bytes[..];
    while rest.len() >= 4 {
        let n = u32::from_le_bytes([rest[0], rest[1], rest[2], rest[3]]) as usize;
        out.push(rest[4..4 + n].to_vec());
        rest = &rest[4 + n..];
    }
    out
}

fn read_texts(dir: &Path) -> Vec<String> {
    read_lines(dir, "shapes.txt")
}

fn read_lines(dir: &Path, name: &str) -> Vec<String> {
    std::fs::read_to_string(dir.join(name))
        .expect(name)
        .lines()
        .map(str::to_owned)
        .collect()
}

/// Parses every string of the whole corpus (`shapes_all.txt`), the ones
/// it refuses included (their errors built and dropped), as the jaxlib
/// side catches XLA's.
fn parse_every(texts: &[String]) {
    for t in texts {
        let _ = black_box(black_box(t.as_str()).parse::<Shape>());
    }
}

/// Nanoseconds per item of `passes` calls of `f`, each doing `items` items,
/// after one warm-up call.
fn time(passes: u64, items: u64, mut f: impl FnMut()) -> f64 {
    f();
    let start = Instant::now();
    for _ in 0..passes {
        f();
    }
    start.elapsed().as_nanos() as f64 / (passes * items) as f64
}

fn report(work: &str, case: &str, ns: f64) {
    println!("RESULT {work} {case} {ns:.3}");
}

const PROTO_CASES: [(&str, u64); 3] = [("mixed", 2_000), ("rank4", 1_000_000), ("tuple", 10_000)];

/// Decodes every record into one reused `Shape` (`Shape::decode_from`), as
/// the C++ side parses into one reused message.
fn decode_all(records: &[Vec<u8>], shape: &mut Shape) -> usize {
    let mut n = 0;
    for r in records {
        shape
            .decode_from(black_box(r))
            .expect("golden bytes decode");
        n += black_box(&*shape).is_tuple() as usize;
    }
    n
}

/// Decodes every record into a new `Shape` (`Shape::from_proto_bytes`),
/// dropped after use.
fn decode_all_new(records: &[Vec<u8>]) -> usize {
    let mut n = 0;
    for r in records {
        let shape = Shape::from_proto_bytes(black_box(r)).expect("golden bytes decode");
        n += black_box(&shape).is_tuple() as usize;
    }
    n
}

fn encode_all(shapes: &[Shape], out: &mut Vec<u8>) -> usize {
    let mut n = 0;
    for s in shapes {
        out.clear();
        black_box(s).encode_to(out);
        n += black_box(&out).len();
    }
    n
}

fn row_major(t: PrimitiveType, dims: &[i64]) -> ArrayShape {
    let mtm: Vec<i64> = (0..dims.len() as i64).rev().collect();
    ArrayShape::new(t, dims.to_vec())
        .unwrap()
        .with_layout(Some(Layout::new(mtm)))
        .unwrap()
}

/// The shape of the index-math cases: rank 4, 10,000,000 elements.
const INDEX_DIMS: [i64; 4] = [50, 40, 100, 50];
const INDEX_COUNT: i64 = 10_000_000;
/// Multi-indices for ravel: 1,000,000 of them, index `(k * 7919) % count`
/// for k in 0..1,000,000 (the C and NumPy sides make the same), 10 passes.
const RAVEL_COUNT: i64 = 1_000_000;

fn unravel(shape: &ArrayShape, count: i64) -> i64 {
    let mut index = [0i64; 4];
    let mut sum = 0;
    for linear in 0..count {
        index_util::linear_index_to_multidimensional_index_into(
            shape,
            black_box(linear),
            &mut index,
        )
        .unwrap();
        sum += index[0] ^ index[1] ^ index[2] ^ index[3];
    }
    sum
}

fn ravel_inputs(shape: &ArrayShape) -> Vec<[i64; 4]> {
    let mut index = [0i64; 4];
    (0..RAVEL_COUNT)
        .map(|k| {
            index_util::linear_index_to_multidimensional_index_into(
                shape,
                (k * 7919) % INDEX_COUNT,
                &mut index,
            )
            .unwrap();
            index
        })
        .collect()
}

fn ravel(shape: &ArrayShape, indices: &[[i64; 4]]) -> i64 {
    let mut sum = 0;
    for index in indices {
        sum += index_util::multidimensional_index_to_linear_index(shape, black_box(index)).unwrap();
    }
    sum
}

/// The prepared ravel: `LinearIndexer::ravel` over the strides it holds.
fn ravel_prepared(map: &index_util::LinearIndexer, indices: &[[i64; 4]]) -> i64 {
    let mut sum = 0;
    for index in indices {
        sum += map.ravel(black_box(index)).unwrap();
    }
    sum
}

/// Whether the rows of `work` run: all of them unless `COMPARE_ONLY` (a
/// comma-separated list of `proto`, `text`, `index`, `transpose`,
/// `relayout`) is set.
fn wanted(work: &str) -> bool {
    match std::env::var("COMPARE_ONLY") {
        Ok(only) => only.split(',').any(|w| w.trim() == work),
        Err(_) => true,
    }
}

fn bench(dir: &Path) {
    if wanted("proto") {
        bench_proto(dir);
    }
    if wanted("text") {
        bench_text(dir);
    }
    if wanted("index") {
        bench_index();
    }
    if wanted("transpose") {
        bench_transpose();
    }
    if wanted("relayout") {
        bench_relayout();
    }
}

fn bench_proto(dir: &Path) {
    for (case, passes) in PROTO_CASES {
        let records = read_records(&dir.join(format!("{case}.bin")));
        let shapes: Vec<Shape> = records
            .iter()
            .map(|r| Shape::from_proto_bytes(r).expect("golden bytes decode"))
            .collect();
        let mut out = Vec::new();
        for (s, r) in shapes.iter().zip(&records) {
            out.clear();
            s.encode_to(&mut out);
            assert_eq!(&out, r, "re-encoding changed the bytes");
        }
        let items = records.len() as u64;
        let mut shape = Shape::Tuple(Vec::new());
        report(
            "decode",
            case,
            time(passes, items, || {
                black_box(decode_all(&records, &mut shape));
            }),
        );
        report(
            "decode_new",
            case,
            time(passes, items, || {
                black_box(decode_all_new(&records));
            }),
        );
        report(
            "encode",
            case,
            time(passes, items, || {
                black_box(encode_all(&shapes, &mut out));
            }),
        );
    }
}

fn bench_text(dir: &Path) {
    let texts = read_texts(dir);
    let items = texts.len() as u64;
    report(
        "parse",
        "golden",
        time(2_000, items, || {
            for t in &texts {
                black_box(black_box(t.as_str()).parse::<Shape>().unwrap());
            }
        }),
    );
    let every = read_lines(dir, "shapes_all.txt");
    report(
        "parse",
        "all",
        time(2_000, every.len() as u64, || parse_every(&every)),
    );
    let shapes: Vec<Shape> = texts.iter().map(|t| t.parse().unwrap()).collect();
    let mut buf = String::new();
    report(
        "print",
        "golden",
        time(2_000, items, || {
            for s in &shapes {
                buf.clear();
                write!(buf, "{}", black_box(s)).unwrap();
                black_box(&buf);
            }
        }),
    );
}

fn bench_index() {
    let shape = row_major(PrimitiveType::F32, &INDEX_DIMS);
    report(
        "unravel",
        "rank4",
        time(3, INDEX_COUNT as u64, || {
            black_box(unravel(&shape, INDEX_COUNT));
        }),
    );
    let indices = ravel_inputs(&shape);
    report(
        "ravel",
        "rank4",
        time(10, RAVEL_COUNT as u64, || {
            black_box(ravel(&shape, &indices));
        }),
    );
    let map = index_util::LinearIndexer::new(&shape).unwrap();
    report(
        "ravel_prepared",
        "rank4",
        time(10, RAVEL_COUNT as u64, || {
            black_box(ravel_prepared(&map, &indices));
        }),
    );
}

fn bench_transpose() {
    for mib in [1usize, 16, 256] {
        let bytes = mib << 20;
        let side = ((bytes / 4) as f64).sqrt() as i64;
        let src_shape = row_major(PrimitiveType::U32, &[side, side]);
        let dst_shape = src_shape
            .clone()
            .with_layout(Some(Layout::new(vec![0, 1])))
            .unwrap();
        let plan = Relayout::new(&src_shape, &dst_shape).unwrap();
        let src: Vec<u8> = (0..bytes).map(|i| (i * 131 % 251) as u8).collect();
        let mut dst = vec![1u8; bytes];
        let passes = (512 / mib).clamp(4, 200) as u64;
        let case = format!("{mib}MiB");
        report(
            "transpose",
            &case,
            time(passes, 1, || {
                plan.run(black_box(&src), &mut dst).unwrap();
                black_box(&dst);
            }),
        );
        report(
            "copy",
            &case,
            time(passes, 1, || {
                dst.copy_from_slice(black_box(&src));
                black_box(&dst);
            }),
        );
    }
}

/// XLA's TPU tilings of the relayout rows, as `T(a,b)(c,1)` in the case
/// names: `8x128`, `8x128_2x1`, ...
const TILINGS: [&[[i64; 2]]; 6] = [
    &[[8, 128]],
    &[[8, 128], [2, 1]],
    &[[16, 128], [2, 1]],
    &[[32, 128], [4, 1]],
    &[[4, 128]],
    &[[2, 128], [2, 1]],
];

/// The element type of each width of the relayout rows, and its bits in
/// memory: `s4` packed two a byte (`E(4)` on both sides), as TPUs store
/// `int4`.
const WIDTHS: [(PrimitiveType, &str, i64); 5] = [
    (PrimitiveType::U8, "u8", 8),
    (PrimitiveType::Bf16, "bf16", 16),
    (PrimitiveType::F32, "f32", 32),
    (PrimitiveType::F64, "f64", 64),
    (PrimitiveType::S4, "s4", 4),
];

fn tiling_name(tiling: &[[i64; 2]]) -> String {
    let parts: Vec<String> = tiling.iter().map(|[a, b]| format!("{a}x{b}")).collect();
    parts.join("_")
}

/// Times `plan` from `src` into `dst` and a memory copy of the same
/// bytes right after it, in the same buffers: `RESULT relayout CASE ns`
/// and `RESULT relayout_copy CASE ns`; with the threads of rayon's pool,
/// `run_parallel` and a copy cut into as many pieces (`relayout_threads`,
/// `relayout_threads_copy`).
///
/// `COMPARE_CASES` (comma-separated parts of case names) keeps only the
/// cases whose names contain one of them.
fn relayout_rows(plan: &Relayout, src: &[u8], dst: &mut [u8], case: &str, passes: u64) {
    use rayon::prelude::*;
    if let Ok(only) = std::env::var("COMPARE_CASES")
        && !only.split(',').any(|part| case.contains(part.trim()))
    {
        return;
    }
    let n = plan.dst_byte_size().min(plan.src_byte_size());
    let (src, dst) = (
        &src[..plan.src_byte_size()],
        &mut dst[..plan.dst_byte_size()],
    );
    report(
        "relayout",
        case,
        time(passes, 1, || {
            plan.run(black_box(src), dst).unwrap();
            black_box(&dst);
        }),
    );
    report(
        "relayout_copy",
        case,
        time(passes, 1, || {
            dst[..n].copy_from_slice(black_box(&src[..n]));
            black_box(&dst);
        }),
    );
    report(
        "relayout_threads",
        case,
        time(passes, 1, || {
            plan.run_parallel(black_box(src), dst).unwrap();
            black_box(&dst);
        }),
    );
    let piece = n.div_ceil(4 * rayon::current_num_threads());
    report(
        "relayout_threads_copy",
        case,
        time(passes, 1, || {
            dst[..n]
                .par_chunks_mut(piece)
                .zip(black_box(&src[..n]).par_chunks(piece))
                .for_each(|(d, s)| d.copy_from_slice(s));
            black_box(&dst);
        }),
    );
}

/// Tiling and untiling `[R, 2048]` arrays (R a multiple of 32, so no
/// padding: both buffers have the same size) and ragged `[R - 5, 2000]`
/// ones (padded when tiled; the copy beside them copies the smaller
/// buffer's bytes) of 1-, 2-, 4- and 8-byte elements and of `s4` packed
/// two a byte (`E(4)`) in each of XLA's TPU tilings, and 2-D transposes
/// `{1,0}` -> `{0,1}` of square (or 1:2) arrays of the whole-byte
/// elements, at 16 and 256 MiB, each beside a memory copy of the same
/// bytes.
fn bench_relayout() {
    let most = 256usize << 20;
    let src: Vec<u8> = (0..most).map(|i| (i * 131 % 251) as u8).collect();
    let mut dst = vec![1u8; most];
    for mib in [16usize, 256] {
        let passes = (512 / mib).clamp(4, 200) as u64;
        for_each_relayout(mib, |plan, case| {
            relayout_rows(plan, &src, &mut dst, case, passes)
        });
    }
}

/// `xla-shape-compare relayout CASE N`: the relayout row CASE run N
/// times and nothing else (for callgrind or perf).
fn profile_relayout(case: &str, n: u64) {
    let mib: usize = case
        .rsplit('_')
        .next()
        .and_then(|m| m.strip_suffix("MiB"))
        .and_then(|m| m.parse().ok())
        .expect("a case name ending in _<size>MiB");
    let mut found = false;
    for_each_relayout(mib, |plan, name| {
        if name == case {
            let src: Vec<u8> = (0..plan.src_byte_size())
                .map(|i| (i * 131 % 251) as u8)
                .collect();
            let mut dst = vec![1u8; plan.dst_byte_size()];
            for _ in 0..n {
                plan.run(black_box(&src), &mut dst).unwrap();
                black_box(&dst);
            }
            found = true;
        }
    });
    assert!(found, "no relayout case {case}");
}

/// Calls `f` with the plan and the name of every relayout case of `mib`
/// MiB.
fn for_each_relayout(mib: usize, mut f: impl FnMut(&Relayout, &str)) {
    {
        let bytes = mib << 20;
        for (t, name, bits) in WIDTHS {
            let rows = (8 * bytes / (2048 * bits as usize)) as i64;
            let packed = |layout: Layout| match bits {
                8.. => layout,
                _ => layout.with_element_size_in_bits(bits),
            };
            // `[R, 2048]`, no padding; and ragged, `[R - 5, 2000]`: the
            // last tile of each row of tiles and the last row of tiles
            // partial (padded to `bytes` tiled), rows of 2000 elements
            // (not a whole number of lines for u8 and bf16).
            for (dims, ragged) in [([rows, 2048], ""), ([rows - 5, 2000], "_ragged")] {
                let plain = row_major(t, &dims)
                    .with_layout(Some(packed(Layout::new(vec![1, 0]))))
                    .unwrap();
                for tiling in TILINGS {
                    let tiles = tiling
                        .iter()
                        .map(|t| xla_shape::Tile::new(t).unwrap())
                        .collect();
                    let tiled = plain
                        .clone()
                        .with_layout(Some(packed(Layout::new(vec![1, 0]).with_tiles(tiles))))
                        .unwrap();
                    let tn = tiling_name(tiling);
                    let tile = Relayout::new(&plain, &tiled).unwrap();
                    f(&tile, &format!("tile_{name}_{tn}{ragged}_{mib}MiB"));
                    let untile = Relayout::new(&tiled, &plain).unwrap();
                    f(&untile, &format!("untile_{name}_{tn}{ragged}_{mib}MiB"));
                }
            }
            if bits < 8 {
                // Sub-byte transposes are not among the rows.
                continue;
            }
            // A square of `bytes`, or 1:2 where `bytes / e` is not a square.
            let e = (bits / 8) as usize;
            let count = bytes / e;
            let side = (count as f64).sqrt() as usize;
            let (r, c) = if side * side == count {
                (side, side)
            } else {
                let r = ((count / 2) as f64).sqrt() as usize;
                (r, 2 * r)
            };
            let a = row_major(t, &[r as i64, c as i64]);
            let b = a
                .clone()
                .with_layout(Some(Layout::new(vec![0, 1])))
                .unwrap();
            let plan = Relayout::new(&a, &b).unwrap();
            f(&plan, &format!("transpose_{name}_{mib}MiB"));
        }
    }
}

fn once(op: &str, n: u64, dir: &Path) {
    let one = |case: &str| read_records(&dir.join(format!("{case}.bin")));
    let mut reused = Shape::Tuple(Vec::new());
    match op {
        "decode_rank4" | "decode_tuple" | "decode_new_rank4" | "decode_new_tuple" => {
            let records = one(&op[op.len() - 5..]);
            for _ in 0..n {
                if op.starts_with("decode_new") {
                    black_box(Shape::from_proto_bytes(black_box(&records[0])).unwrap());
                } else {
                    reused.decode_from(black_box(&records[0])).unwrap();
                    black_box(&reused);
                }
            }
        }
        "encode_rank4" | "encode_tuple" => {
            let records = one(&op[7..]);
            let shape = Shape::from_proto_bytes(&records[0]).unwrap();
            let mut out = Vec::with_capacity(records[0].len());
            for _ in 0..n {
                out.clear();
                black_box(&shape).encode_to(&mut out);
                black_box(&out);
            }
        }
        // `to_proto_bytes`, a new vector each time (not in run.sh's table:
        // C++'s side serializes into one reused string).
        "to_proto_bytes_rank4" | "to_proto_bytes_tuple" => {
            let records = one(&op[op.len() - 5..]);
            let shape = Shape::from_proto_bytes(&records[0]).unwrap();
            for _ in 0..n {
                black_box(black_box(&shape).to_proto_bytes());
            }
        }
        "decode_mixed" => {
            let records = one("mixed");
            for _ in 0..n {
                black_box(decode_all(&records, &mut reused));
            }
        }
        "decode_new_mixed" => {
            let records = one("mixed");
            for _ in 0..n {
                black_box(decode_all_new(&records));
            }
        }
        "encode_mixed" => {
            let records = one("mixed");
            let shapes: Vec<Shape> = records
                .iter()
                .map(|r| Shape::from_proto_bytes(r).unwrap())
                .collect();
            let mut out = Vec::new();
            for _ in 0..n {
                black_box(encode_all(&shapes, &mut out));
            }
        }
        "parse" => {
            let texts = read_texts(dir);
            for _ in 0..n {
                for t in &texts {
                    black_box(black_box(t.as_str()).parse::<Shape>().unwrap());
                }
            }
        }
        "parse_all" => {
            let every = read_lines(dir, "shapes_all.txt");
            for _ in 0..n {
                parse_every(&every);
            }
        }
        "print" => {
            let shapes: Vec<Shape> = read_texts(dir).iter().map(|t| t.parse().unwrap()).collect();
            let mut buf = String::new();
            for _ in 0..n {
                for s in &shapes {
                    buf.clear();
                    write!(buf, "{}", black_box(s)).unwrap();
                    black_box(&buf);
                }
            }
        }
        _ => panic!("unknown op {op}"),
    }
}

fn filter(dir: &Path) {
    let path = dir.join("mixed.bin");
    let records = read_records(&path);
    let mut kept = Vec::new();
    let mut count = 0;
    for r in &records {
        if Shape::from_proto_bytes(r).is_ok() {
            kept.extend_from_slice(&(r.len() as u32).to_le_bytes());
            kept.extend_from_slice(r);
            count += 1;
        }
    }
    std::fs::write(&path, kept).unwrap();
    let texts = read_texts(dir);
    let good: Vec<&String> = texts
        .iter()
        .filter(|t| t.parse::<Shape>().is_ok())
        .collect();
    let text: String = good.iter().map(|t| format!("{t}\n")).collect();
    std::fs::write(dir.join("shapes.txt"), text).unwrap();
    println!(
        "kept {count} of {} ShapeProtos and {} of {} shape strings that the crate accepts",
        records.len(),
        good.len(),
        texts.len()
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("filter") if args.len() == 3 => filter(Path::new(&args[2])),
        Some("bench") if args.len() == 3 => bench(Path::new(&args[2])),
        Some("relayout") if args.len() == 4 => {
            profile_relayout(&args[2], args[3].parse().expect("N"))
        }
        Some("once") if args.len() == 5 => {
            once(&args[2], args[3].parse().expect("N"), Path::new(&args[4]))
        }
        _ => {
            eprintln!(
                "usage: xla-shape-compare filter DIR | bench DIR | once OP N DIR | relayout CASE N"
            );
            std::process::exit(2);
        }
    }
}
