//! Whole modules: `report` on a generated 100 MB HLO text module (read the
//! file line by line, read each line with `TextReader`, add up the sizes of
//! every instruction's buffer, as `xla-shape report` does) and on a large
//! binary `HloModuleProto` (read the file, build the module view, compute
//! the memory report), in MB/s, against the baseline of reading the same
//! file in the same run. Target: at least 200 MB/s for text.
//!
//! `cargo bench --bench hlo`

use std::hint::black_box;
use std::io::BufRead;
use std::path::PathBuf;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use prost::Message;
use xla_shape::hlo::{BufferTally, HloModule, MemoryReport, TextLine, TextReader};
use xla_shape::proto::{HloComputationProto, HloInstructionProto, HloModuleProto};
use xla_shape::{Shape, text::shapes_in_hlo};

/// Instruction lines in XLA's printed form, with TPU layouts, operands and
/// metadata, repeated in computations of 1000 instructions until the text
/// reaches `size` bytes.
fn module_text(size: usize) -> String {
    const LINES: [&str; 4] = [
        "bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)} parameter(0), metadata={op_name=\"x\"}",
        "f32[1024,4096]{1,0:T(8,128)} multiply(%a, %b), metadata={op_name=\"jit(f)/mul\" stack_frame_id=3}",
        "(f32[128]{0:T(256)}, s32[]{:T(256)S(1)}) tuple(%c, %d)",
        "s8[2048,512]{0,1:T(8,128)(4,1)S(1)} convert(%e), metadata={op_name=\"jit(f)/convert_element_type\"}",
    ];
    let mut text = String::from(
        "HloModule big, entry_computation_layout={(bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)})->f32[1024,4096]{1,0:T(8,128)}}\n\n",
    );
    let mut c = 0;
    while text.len() < size {
        text.push_str(&format!(
            "%computation.{c} (p: bf16[8,1,1280,16384]) -> f32[1024,4096] {{\n"
        ));
        for i in 0..1000 {
            let root = if i == 999 { "ROOT " } else { "" };
            text.push_str(&format!(
                "  {root}%i.{c}.{i} = {}\n",
                LINES[i % LINES.len()]
            ));
        }
        text.push_str("}\n\n");
        c += 1;
    }
    text.push_str("ENTRY %main (p: bf16[8,1,1280,16384]) -> f32[1024,4096] {\n  ROOT %p = f32[1024,4096]{1,0:T(8,128)} parameter(0)\n}\n");
    text
}

/// The same kind of module as a binary `HloModuleProto`.
fn module_proto(size: usize) -> Vec<u8> {
    let shapes: Vec<_> = [
        "bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}",
        "f32[1024,4096]{1,0:T(8,128)}",
        "(f32[128]{0:T(256)}, s32[]{:T(256)S(1)})",
        "s8[2048,512]{0,1:T(8,128)(4,1)S(1)}",
    ]
    .iter()
    .map(|s| s.parse::<Shape>().unwrap().to_proto())
    .collect();
    let mut module = HloModuleProto {
        name: "big".into(),
        ..Default::default()
    };
    let mut id = 0i64;
    let mut len = 0;
    while len < size {
        let mut c = HloComputationProto {
            name: format!("computation.{}", module.computations.len()),
            id: module.computations.len() as i64,
            ..Default::default()
        };
        for i in 0..1000 {
            id += 1;
            c.instructions.push(HloInstructionProto {
                name: format!("i.{id}"),
                opcode: "multiply".into(),
                shape: Some(shapes[i % shapes.len()].clone()),
                id,
                operand_ids: vec![id - 1, id - 2],
                ..Default::default()
            });
        }
        c.root_id = id;
        len += c.encoded_len();
        module.computations.push(c);
    }
    module.encode_to_vec()
}

fn write(name: &str, bytes: &[u8]) -> PathBuf {
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// `report` on module text: one line at a time.
fn report_text(path: &PathBuf) -> usize {
    let mut file = std::io::BufReader::with_capacity(1 << 16, std::fs::File::open(path).unwrap());
    let mut module = TextReader::new();
    let mut tally = BufferTally::new(10);
    let mut line = Vec::new();
    let mut start = 0;
    loop {
        line.clear();
        let n = file.read_until(b'\n', &mut line).unwrap();
        if n == 0 {
            break;
        }
        let text = std::str::from_utf8(line.strip_suffix(b"\n").unwrap_or(&line)).unwrap();
        if let TextLine::Instruction(i) = module.line(text, start).unwrap() {
            tally.add(&i.sizes(), || i.name.to_owned()).unwrap();
        }
        start += n;
    }
    module.finish(start).unwrap();
    tally.totals().total.buffers
}

/// `report` on a binary module: read whole.
fn report(path: &PathBuf) -> usize {
    let bytes = std::fs::read(path).unwrap();
    let module = HloModule::read(&bytes).unwrap();
    drop(bytes);
    MemoryReport::new(&module).unwrap().rows.len()
}

fn bench(c: &mut Criterion) {
    let text = module_text(100_000_000);
    let text_path = write("module.txt", text.as_bytes());
    // Every shape of the generated text must be valid.
    assert!(shapes_in_hlo(&text[..100_000]).all(|s| s.shape.is_ok()));
    drop(text);
    let pb_path = write("module.pb", &module_proto(50_000_000));
    for (name, path) in [("text", &text_path), ("pb", &pb_path)] {
        let len = std::fs::metadata(path).unwrap().len();
        let mut g = c.benchmark_group(format!("report_{name}"));
        g.sample_size(10);
        g.throughput(Throughput::Bytes(len));
        g.bench_function("read_file_baseline", |b| {
            b.iter(|| std::fs::read(black_box(path)).unwrap().len())
        });
        let run = if name == "text" { report_text } else { report };
        g.bench_function("report", |b| b.iter(|| run(black_box(path))));
        g.finish();
    }
}

/// Where the time of `report` goes, on 10 MB modules held in memory: the
/// module view, then the report of the view.
fn phases(c: &mut Criterion) {
    let text = module_text(10_000_000);
    let pb = module_proto(10_000_000);
    for (name, bytes) in [("text", text.as_bytes()), ("pb", pb.as_slice())] {
        let mut g = c.benchmark_group(format!("phases_{name}"));
        g.sample_size(10);
        g.throughput(Throughput::Bytes(bytes.len() as u64));
        g.bench_function("view", |b| {
            b.iter(|| HloModule::read(black_box(bytes)).unwrap())
        });
        let module = HloModule::read(bytes).unwrap();
        g.bench_function("report_of_view", |b| {
            b.iter(|| MemoryReport::new(black_box(&module)).unwrap().rows.len())
        });
        g.finish();
    }
}

criterion_group!(benches, phases, bench);
criterion_main!(benches);
