//! Memory of the readers of whole modules and messages on large inputs:
//! HLO module text, `HloModuleProto` bytes, the memory report, and any
//! message's JSON and text format. Each holds at most a stated multiple of
//! its input (measured with the counting allocator of
//! `resource_bounds.rs`), so memory grows linearly with the input whatever
//! its size; `fuzz/linearity` measures their time.

use crate::common;
use crate::resource_bounds::{allocations, peak_memory};

use xla_shape::formats::{self, JsonOptions, LosslessMessage};
use xla_shape::hlo::{HloModule, MemoryReport};
use xla_shape::proto::DESCRIPTOR_POOL;

/// About 2 MiB of input.
const SIZE: usize = 2 << 20;

/// A golden module's text with its computations repeated to `SIZE` bytes
/// (the names repeat, which the view does not check).
fn module_text() -> String {
    let text = std::fs::read_to_string(common::data_path("hlo/reduce_variadic.txt")).unwrap();
    let (header, body) = text.split_once('\n').unwrap();
    format!("{header}\n{}", body.repeat(SIZE / body.len() + 1))
}

/// A golden `HloModuleProto` repeated to `SIZE` bytes: concatenated
/// messages are one message whose repeated fields append.
fn module_pb() -> Vec<u8> {
    let pb = std::fs::read(common::data_path("hlo/reduce_variadic.pb")).unwrap();
    pb.repeat(SIZE / pb.len() + 1)
}

/// Asserts that `peak` is at most `per_byte` times `input` bytes, plus
/// 1 MiB of fixed cost (descriptor pools, first blocks of vectors).
fn within(what: &str, input: usize, peak: usize, per_byte: usize) {
    if std::env::var_os("XLA_SHAPE_PRINT_MEMORY").is_some() {
        eprintln!(
            "{what}: {peak} bytes at peak for {input} input bytes ({:.2} per byte)",
            peak as f64 / input as f64
        );
    }
    assert!(
        peak <= (1 << 20) + per_byte * input,
        "{what}: {peak} bytes for {input} input bytes, over {per_byte} per byte"
    );
}

/// Reads a module of `input` bytes with `read`, holding its peak memory to
/// `bound` per input byte; then builds its memory report, held to
/// `BOUND_REPORT`. Every instruction owns its name, opcode, operands and
/// shape: a few allocations each, none per input byte.
fn check_module(
    what: &str,
    input: usize,
    bound: usize,
    read: impl FnOnce() -> xla_shape::Result<HloModule>,
) {
    let ((module, count), peak) = peak_memory(|| allocations(read));
    let module = module.unwrap();
    within(what, input, peak, bound);
    let instructions = module.instructions().count();
    assert!(instructions > 1000);
    assert!(
        count <= 16 * instructions + 1000,
        "{what}: {count} allocations for {instructions} instructions"
    );
    let (report, peak) = peak_memory(|| MemoryReport::new(&module).map(|r| r.largest(10).len()));
    report.unwrap();
    within(&format!("{what} report"), input, peak, BOUND_REPORT);
}

#[test]
fn module_text_is_read_in_memory_linear_in_its_size() {
    let text = module_text();
    check_module("module text", text.len(), BOUND_TEXT, || {
        HloModule::from_text(&text)
    });
}

#[test]
fn module_bytes_are_read_in_memory_linear_in_their_size() {
    let bytes = module_pb();
    check_module("module .pb", bytes.len(), BOUND_PB, || {
        HloModule::read(&bytes)
    });
}

#[test]
fn message_formats_are_read_in_memory_linear_in_their_size() {
    let descriptor = DESCRIPTOR_POOL
        .get_message_by_name("xla.HloModuleProto")
        .unwrap();
    let bytes = module_pb();
    let (message, peak) = peak_memory(|| LosslessMessage::decode(descriptor.clone(), &bytes[..]));
    let message = message.unwrap();
    within(
        "HloModuleProto, lossless binary",
        bytes.len(),
        peak,
        BOUND_LOSSLESS,
    );
    let json = message.to_json(&JsonOptions::new());
    let (read, peak) = peak_memory(|| formats::from_json_dynamic(descriptor.clone(), &json));
    read.unwrap();
    within("HloModuleProto, JSON", json.len(), peak, BOUND_MESSAGE);
    let text = message.to_text_format();
    let (read, peak) = peak_memory(|| formats::from_text_format_dynamic(descriptor.clone(), &text));
    read.unwrap();
    within(
        "HloModuleProto, text format",
        text.len(),
        peak,
        BOUND_MESSAGE,
    );
}

/// A golden StableHLO program (jax's text with debug locations) repeated
/// to `SIZE` bytes: each copy is a `module` of its own, read into the one
/// module's functions.
fn stablehlo_text() -> String {
    let text = std::fs::read_to_string(common::data_path(
        "stablehlo/programs/linalg_svd.debug.mlir",
    ))
    .unwrap();
    text.repeat(SIZE / text.len() + 1)
}

#[test]
fn stablehlo_text_is_read_in_memory_linear_in_its_size() {
    use xla_shape::stablehlo::StableHloModule;
    let text = stablehlo_text();
    let ((module, count), peak) = peak_memory(|| allocations(|| StableHloModule::from_text(&text)));
    let module = module.unwrap();
    within("StableHLO text", text.len(), peak, BOUND_STABLEHLO);
    let operations = module.operations().count();
    assert!(operations > 1000);
    if std::env::var_os("XLA_SHAPE_PRINT_MEMORY").is_some() {
        eprintln!("StableHLO text: {count} allocations for {operations} operations");
    }
    assert!(
        count <= 16 * operations + 1000,
        "{count} allocations for {operations} operations"
    );
    let (signature, peak) = peak_memory(|| module.signature().map(|s| s.parameters.len()));
    signature.unwrap();
    within("StableHLO signature", text.len(), peak, 1);
}

/// Memory analysis, exact: a golden `HloProto` of the memory corpus
/// (jaxlib 0.10.2's dump, with its buffer assignment) with its
/// computations, buffers, allocations and heap traces repeated to `SIZE`
/// bytes. Estimated: an entry computation of `SIZE` bytes of instructions,
/// each adding the two before it.
#[test]
fn memory_analysis_is_held_to_a_multiple_of_the_input() {
    use prost::Message;
    use xla_shape::memory::{self, EstimateOptions};
    use xla_shape::proto::HloProto;
    let pb = std::fs::read(common::data_path("memory/lstm_scan_grad/hlo.pb")).unwrap();
    let mut proto = HloProto::decode(pb.as_slice()).unwrap();
    fn repeat<T: Clone>(v: &mut Vec<T>, times: usize) {
        *v = std::iter::repeat_n(v.as_slice(), times)
            .flatten()
            .cloned()
            .collect();
    }
    let times = SIZE / pb.len() + 1;
    repeat(&mut proto.hlo_module.as_mut().unwrap().computations, times);
    let b = proto.buffer_assignment.as_mut().unwrap();
    repeat(&mut b.logical_buffers, times);
    repeat(&mut b.buffer_allocations, times);
    repeat(&mut b.heap_simulator_traces, times);
    let bytes = proto.encode_to_vec();
    let (analysis, peak) = peak_memory(|| {
        let module = HloModule::read(&bytes)?;
        memory::analyze(&module).map(|a| a.peak())
    });
    assert!(analysis.unwrap() > 0);
    within(
        "memory of an HloProto (view and exact)",
        bytes.len(),
        peak,
        BOUND_MEMORY_EXACT,
    );

    let mut text = String::from(
        "HloModule m\n\nENTRY e {\n  a0 = f32[1024]{0} parameter(0)\n  a1 = f32[1024]{0} negate(a0)\n",
    );
    let mut k = 2;
    while text.len() < SIZE {
        text.push_str(&format!(
            "  a{k} = f32[1024]{{0}} add(a{}, a{})\n",
            k - 1,
            k - 2
        ));
        k += 1;
    }
    text.push_str(&format!(
        "  ROOT r = f32[1024]{{0}} negate(a{})\n}}\n",
        k - 1
    ));
    let module = HloModule::from_text(&text).unwrap();
    let (analysis, peak) =
        peak_memory(|| memory::estimate(&module, &EstimateOptions::default()).map(|a| a.peak()));
    assert!(analysis.unwrap() > 0);
    within(
        "memory estimate of module text (beyond the view)",
        text.len(),
        peak,
        BOUND_MEMORY_ESTIMATE,
    );
}

/// A StableHLO portable artifact of about `SIZE` bytes (a chain of
/// additions, each with its location) and the golden exports: the reader
/// holds a bounded multiple of the input, allocates a bounded number of
/// times per operation, and the signature takes no more.
#[test]
fn stablehlo_bytecode_is_read_in_memory_linear_in_its_size() {
    use xla_shape::stablehlo::{JaxExport, StableHloModule};
    let bytes = crate::vhlo_bytecode::chain_of_adds(SIZE / 8);
    let ((module, count), peak) =
        peak_memory(|| allocations(|| StableHloModule::from_bytecode(&bytes)));
    let module = module.unwrap();
    within("StableHLO bytecode", bytes.len(), peak, BOUND_BYTECODE);
    let operations = module.operations().count();
    assert!(operations > SIZE / 8, "{operations} operations");
    if std::env::var_os("XLA_SHAPE_PRINT_MEMORY").is_some() {
        eprintln!("StableHLO bytecode: {count} allocations for {operations} operations");
    }
    assert!(
        count <= 16 * operations + 1000,
        "{count} allocations for {operations} operations"
    );
    let (signature, peak) = peak_memory(|| module.signature().map(|s| s.parameters.len()));
    signature.unwrap();
    within("StableHLO bytecode signature", bytes.len(), peak, 1);
    // A serialized export: its module is copied out once.
    let exported = std::fs::read(common::data_path(
        "stablehlo/bytecode/exports/all_dtypes.bin",
    ))
    .unwrap();
    let (read, peak) = peak_memory(|| JaxExport::from_bytes(&exported));
    read.unwrap();
    within(
        "jax.export serialization",
        exported.len(),
        peak,
        BOUND_EXPORT,
    );
}

// The bounds, per input byte: about twice what was measured on these
// inputs (XLA_SHAPE_PRINT_MEMORY=1 prints the figures): module text 4.4,
// .pb 8.0, the report 12 to 15 (the view and the JSON document), the
// lossless decoding 25 (a tree of every field of every instruction, each
// singular value a 56-byte `prost_reflect::Value`, list elements of
// numbers 4 or 8 bytes; 31 when list elements were `Value`s too, 70 when
// each message's fields were a B-tree, whose nodes hold eleven), JSON 12
// and text format 8 (prost-reflect's dynamic message).
const BOUND_TEXT: usize = 8;
const BOUND_PB: usize = 16;
const BOUND_REPORT: usize = 32;
const BOUND_LOSSLESS: usize = 48;
const BOUND_MESSAGE: usize = 24;
/// StableHLO text: every operation keeps its name, results, types and
/// location.
const BOUND_STABLEHLO: usize = 8;
// Memory analysis (measured 6.2 and 4.5): the view of an `HloProto` with
// its buffer assignment and the exact analysis; the estimate's own tables
// beside a view it is given.
const BOUND_MEMORY_EXACT: usize = 16;
const BOUND_MEMORY_ESTIMATE: usize = 12;
/// StableHLO bytecode: 12 bytes of the chain of additions hold an
/// operation of the model (its name, result name, type, location alias:
/// about 400 bytes with the value's name in its scope), so the bound per
/// byte is larger than the text's: 37 measured.
const BOUND_BYTECODE: usize = 64;
/// A serialized export: its avals and shardings (small) and a copy of the
/// module's bytecode.
const BOUND_EXPORT: usize = 4;

/// Module text read one line at a time (`TextReader`, as `report` and
/// `scan` stream it) holds the shapes it has seen to a fixed budget, not
/// a number of them: 128 distinct instruction lines of 16 KB (rank-8,000
/// shapes) held every shape, 19 MB for 2 MB of text (4,096 such lines, 66
/// MB, held 2.9 GB). The reader now holds about one line's shape.
#[test]
fn module_text_streamed_holds_a_fixed_budget_of_shapes() {
    use xla_shape::hlo::{TextLine, TextReader};
    let rank = 8000;
    let mut lines = vec!["HloModule m".to_owned(), "ENTRY e {".to_owned()];
    for i in 0..128 {
        // Each shape distinct: its first dimension is the line's number.
        let dims = format!("{}{}", i + 1, ",1".repeat(rank - 1));
        lines.push(format!("  a{i} = f32[{dims}] parameter({i})"));
    }
    lines.push("}".to_owned());
    let longest = lines.iter().map(String::len).max().unwrap();
    let input: usize = lines.iter().map(|l| l.len() + 1).sum();
    let (count, peak) = peak_memory(|| {
        let mut reader = TextReader::new();
        let (mut start, mut instructions) = (0, 0);
        for line in &lines {
            if let TextLine::Instruction(i) = reader.line(line, start).unwrap() {
                assert!(i.shape().is_ok());
                instructions += 1;
            }
            start += line.len() + 1;
        }
        reader.finish(start).unwrap();
        instructions
    });
    assert_eq!(count, 128);
    if std::env::var_os("XLA_SHAPE_PRINT_MEMORY").is_some() {
        eprintln!(
            "module text streamed: {peak} bytes at peak for {input} input bytes, lines of {longest}"
        );
    }
    assert!(
        peak <= (1 << 20) + 32 * longest,
        "{peak} bytes at peak for {input} bytes of lines of {longest}"
    );
}

/// A binary module read one instruction at a time (`read_streamed`, as
/// `report` and `scan` read it) holds its computations and one
/// instruction: 200,000 empty instructions (`12 00`, two bytes each) were
/// 128 MB of view for 400 KB of input read whole (`HloModule::read`, 320
/// bytes per input byte).
#[test]
fn binary_modules_streamed_hold_one_instruction_at_a_time() {
    let n = 200_000;
    let mut bytes = vec![0x1a];
    let mut len = 2 * n;
    while len >= 0x80 {
        bytes.push((len as u8 & 0x7f) | 0x80);
        len >>= 7;
    }
    bytes.push(len as u8);
    bytes.extend(std::iter::repeat_n([0x12, 0x00], n).flatten());
    // The first rejected shape loads the descriptor pool (1.4 MB, once).
    HloModule::read_streamed(b"\x1a\x02\x12\x00", &mut |_, _| Ok(())).unwrap();
    let ((count, module), peak) = peak_memory(|| {
        let mut count = 0;
        let module = HloModule::read_streamed(&bytes, &mut |_, i| {
            assert!(i.shape.is_err());
            count += 1;
            Ok(())
        });
        (count, module)
    });
    module.unwrap();
    assert_eq!(count, n);
    within("module .pb streamed", bytes.len(), peak, 1);
}

/// Padding explained, on logs of `SIZE` bytes: a real listing (XLA:TPU's,
/// jax-ml/jax#7502) repeated, explained entry by entry as the CLI does
/// (one entry held at a time) and collected; and the densest logs, an
/// entry per line (`Shape: x`, whose explanation is a parse error, and
/// `N. Size: 1B`, an allocation without a shape), collected. A shape
/// string alone is held as the shape parser holds it (`docs/robustness.md`)
/// and twice more (the explanation keeps the shape, with its tiles).
#[test]
fn padding_is_held_to_a_multiple_of_the_input() {
    use xla_shape::memory::{self, PaddingOptions};
    let options = PaddingOptions::new();
    let listing =
        std::fs::read_to_string(common::data_path("listings/jax-ml_jax_7502.txt")).unwrap();
    let log = listing.repeat(SIZE / listing.len() + 1);
    let (entries, peak) = peak_memory(|| {
        memory::padding_entries(&log, &options)
            .map(|e| e.unwrap().explanation.unwrap().unwrap().padded)
            .filter(|&p| p == 16 << 30)
            .count()
    });
    assert_eq!(entries, SIZE / listing.len() + 1);
    within(
        "padding of a log, entry by entry",
        log.len(),
        peak,
        BOUND_PADDING_STREAM,
    );
    for (what, log) in [
        ("padding of a log, collected", log.clone()),
        ("padding of `Shape: x` lines", "Shape: x\n".repeat(SIZE / 9)),
        (
            "padding of `1. Size: 1B` lines",
            "1. Size: 1B\n".repeat(SIZE / 12),
        ),
    ] {
        let (entries, peak) = peak_memory(|| memory::padding(&log, &options).map(|e| e.len()));
        assert!(entries.unwrap() > 1000);
        within(what, log.len(), peak, BOUND_PADDING);
    }
    let mut shape = String::from("(");
    while shape.len() < SIZE {
        shape.push_str("f32[3,5]{1,0:T(2,2)},");
    }
    shape.push_str("f32[3,5]{1,0:T(2,2)})");
    let (padded, peak) = peak_memory(|| {
        memory::padding(&shape, &options).map(|e| {
            e[0].explanation
                .as_ref()
                .map(|p| p.as_ref().map(|p| p.padded).ok())
        })
    });
    assert_eq!(padded.unwrap().flatten(), Some(96 * (SIZE / 21 + 2) as i64));
    within(
        "padding of a tuple of tiled arrays",
        shape.len(),
        peak,
        BOUND_PADDING_SHAPE,
    );
}

// Padding explained (measured on 2 MiB: 6 KB entry by entry, whatever the
// log; collected, 2.4 per byte for a real listing, 60 for `Shape: x`
// lines, each entry a parse error with XLA's message, and 29 for
// `1. Size: 1B` lines; 46 for the tuple, which the shape parser holds at up
// to 512 per byte, docs/robustness.md).
const BOUND_PADDING_STREAM: usize = 0;
const BOUND_PADDING: usize = 96;
const BOUND_PADDING_SHAPE: usize = 96;
