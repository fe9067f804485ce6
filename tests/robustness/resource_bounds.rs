//! The resource bounds of every parser (README, "Robustness"): nesting depth,
//! rank, allocation independent of dimension values, checked size
//! arithmetic, and memory linear in the input.
//!
//! Memory is measured with a counting allocator: the peak of the bytes
//! allocated and not yet freed by the current thread while an operation
//! runs. Time is never asserted on; the large inputs show that each parser
//! finishes and gives the right answer.

use std::alloc::{GlobalAlloc, Layout as AllocLayout, System};
use std::cell::Cell;

use crate::common::*;
use prost::Message;
use xla_shape::formats::{self, ProtoFormats};
use xla_shape::proto::{DESCRIPTOR_POOL, LayoutProto, ShapeProto};
use xla_shape::text::shapes_in_hlo;
use xla_shape::tiling::TiledLayout;
use xla_shape::{ErrorKind, Layout, MAX_NESTING_DEPTH, Shape, index_util, shape_util};

// ------------------------------------------------------------ measuring

/// Counts the bytes each thread has allocated and not freed, and their peak.
struct Counting;

thread_local! {
    static LIVE: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

fn track(delta: isize) {
    if delta > 0 {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
    }
    let _ = LIVE.try_with(|live| {
        let now = live.get() + delta;
        live.set(now);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(now)));
    });
}

// SAFETY: every call is forwarded to the system allocator unchanged; the
// bookkeeping touches only const-initialised thread-locals, which neither
// allocate nor have destructors.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: AllocLayout) -> *mut u8 {
        track(layout.size() as isize);
        // SAFETY: the caller's promises, forwarded unchanged to `System`.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: AllocLayout) -> *mut u8 {
        track(layout.size() as isize);
        // SAFETY: the caller's promises, forwarded unchanged to `System`.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: AllocLayout) {
        track(-(layout.size() as isize));
        // SAFETY: the caller's promises, forwarded unchanged to `System`.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: AllocLayout, new_size: usize) -> *mut u8 {
        track(new_size as isize - layout.size() as isize);
        // SAFETY: the caller's promises, forwarded unchanged to `System`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Runs `f` and returns its result with the most memory (in bytes) it
/// held at once on this thread, beyond what was held before.
pub(crate) fn peak_memory<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = LIVE.with(Cell::get);
    PEAK.with(|p| p.set(before));
    let out = f();
    let peak = PEAK.with(Cell::get);
    (out, (peak - before).max(0) as usize)
}

/// What one input byte may cost in memory at most, in every parser.
///
/// The densest input is a tuple of empty tuples, `((),(),...)`: three
/// bytes per element, each element a `Shape` in a `Vec`, and a growing
/// `Vec` briefly holds its old buffer and one of twice the size, three
/// elements' worth per element: `size_of::<Shape>()` per input byte. The
/// proto formats hold messages that are smaller than a `Shape` and a few
/// copies of the input. Twice that leaves room for allocator rounding
/// while still catching anything superlinear (a quadratic cost at these
/// sizes would be thousands of times over).
fn bytes_per_input_byte() -> usize {
    2 * std::mem::size_of::<Shape>()
}

/// Fixed memory any parse may need whatever its input (descriptor pools,
/// the first blocks of vectors, error messages).
const FIXED_BYTES: usize = 1 << 20;

/// Runs `f` and returns its result with the number of allocations it made
/// on this thread (growing a buffer counts as one).
pub(crate) fn allocations<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = ALLOCATIONS.with(Cell::get);
    let out = f();
    (out, ALLOCATIONS.with(Cell::get) - before)
}

fn assert_linear_memory(what: &str, input_len: usize, peak: usize) {
    assert!(
        peak <= FIXED_BYTES + bytes_per_input_byte() * input_len,
        "{what}: {peak} bytes for {input_len} input bytes"
    );
    if std::env::var_os("XLA_SHAPE_PRINT_MEMORY").is_some() {
        eprintln!("{what}: {peak} bytes for {input_len} input bytes");
    }
}

// ------------------------------------------------------------ nesting

/// `depth` tuples around `leaf`, written as HLO text.
fn nested_text(depth: usize, leaf: &str) -> String {
    format!("{}{leaf}{}", "(".repeat(depth), ")".repeat(depth))
}

/// `depth` tuples around `leaf`, built in memory (with no limit).
fn nested_shape(depth: usize, leaf: &Shape) -> Shape {
    let mut s = leaf.clone();
    for _ in 0..depth {
        s = Shape::Tuple(vec![s]);
    }
    s
}

/// The leaves of the nesting tests, and how many message levels each adds
/// below itself in a ShapeProto: none for a token or an empty tuple, one
/// for an array's layout, two for a layout's tiles or split configs.
const LEAVES: &[(&str, usize)] = &[
    ("token[]", 0),
    ("()", 0),
    ("f32[]", 1),
    ("f32[2]{0}", 1),
    ("f32[2]{0:T(2)}", 2),
    ("f32[2]{0:SC(0:1)}", 2),
    ("b(f32[2])", 2),
];

#[test]
fn nesting_counts_proto_message_levels_in_every_format() {
    assert_eq!(MAX_NESTING_DEPTH, 100);
    for &(leaf_text, below) in LEAVES {
        let leaf: Shape = leaf_text.parse().unwrap();
        for depth in 95..=101 {
            // The deepest message of the ShapeProto, counted from the root
            // (level 0) as protobuf's recursion limit counts it.
            let levels = depth + below;
            let what = format!("{depth} tuples around {leaf_text} ({levels} levels)");
            let shape = nested_shape(depth, &leaf);
            let bytes = shape.to_proto_bytes();
            let proto = ShapeProto::from(&shape);

            // Binary: upb's limit, 100 levels below the root.
            let decoded = Shape::from_proto_bytes(&bytes);
            let typed = ShapeProto::decode(&bytes[..]).map_err(xla_shape::Error::from);
            let in_memory = Shape::try_from(&proto);
            // HLO text, counted as the ShapeProto would be.
            let parsed = nested_text(depth, leaf_text).parse::<Shape>();
            // Text format: the binary limit.
            let pbtxt = formats::from_text_format::<ShapeProto>(&formats::to_text_format(&proto));
            if levels <= 100 {
                assert_eq!(decoded.as_ref(), Ok(&shape), "{what}");
                assert_eq!(typed.as_ref(), Ok(&proto), "{what}");
                assert_eq!(in_memory.as_ref(), Ok(&shape), "{what}");
                assert_eq!(parsed.as_ref(), Ok(&shape), "{what}");
                assert_eq!(pbtxt.as_ref(), Ok(&proto), "{what}");
            } else {
                assert_eq!(decoded.unwrap_err().kind(), ErrorKind::Decode, "{what}");
                assert_eq!(typed.unwrap_err().kind(), ErrorKind::Decode, "{what}");
                assert_eq!(in_memory.unwrap_err().kind(), ErrorKind::Decode, "{what}");
                let err = parsed.unwrap_err();
                assert_eq!(err.kind(), ErrorKind::Parse, "{what}");
                assert!(
                    err.message()
                        .contains("shape nesting exceeds the limit of 100 levels"),
                    "{what}: {err}"
                );
                assert_eq!(pbtxt.unwrap_err().kind(), ErrorKind::Format, "{what}");
            }
            // JSON: json_format.Parse counts the root as level 1 and allows
            // 100, so one level less than binary.
            let json = formats::from_json::<ShapeProto>(&formats::to_json(&proto));
            if levels < 100 {
                assert_eq!(json.as_ref(), Ok(&proto), "{what}");
            } else {
                let err = json.unwrap_err();
                assert_eq!(
                    err.message(),
                    "invalid JSON message: Message too deep. Max recursion depth is 100",
                    "{what}"
                );
            }
        }
    }
}

#[test]
fn buffers_and_physical_shapes_count_as_levels() {
    // b(...) holds an array, one ShapeProto level below it (buffers do not
    // nest: XLA's MakeValidatedBufferShape wants an array inside).
    let buffers = |n: usize| nested_text(n, "b(f32[2])");
    // n tuples, the buffer at n, its array at n + 1, the layout at n + 2.
    let shape: Shape = buffers(98).parse().unwrap();
    assert_eq!(Shape::from_proto_bytes(&shape.to_proto_bytes()), Ok(shape));
    let err = buffers(99).parse::<Shape>().unwrap_err();
    assert!(err.message().contains("nesting exceeds the limit of 100"));

    // A layout on its own is the root; its physical shape is level 1.
    let physical = |n: usize| format!("{{0:P({})}}", nested_text(n, "f32[]"));
    for n in [97, 98, 99] {
        let layout = physical(n).parse::<Layout>();
        // n tuples in the physical shape: f32[]'s layout is at 1 + n + 1.
        if n + 2 <= 100 {
            let layout = layout.unwrap();
            let bytes = layout.to_proto_bytes();
            assert_eq!(Layout::from_proto_bytes(&bytes), Ok(layout));
        } else {
            assert!(
                layout
                    .unwrap_err()
                    .message()
                    .contains("nesting exceeds the limit")
            );
        }
    }
}

#[test]
fn text_nesting_agrees_with_xla_protobuf_step() {
    // fuzz_nesting.jsonl: XLA's parser has no nesting limit; the oracle
    // then serialises the shape and protobuf (upb) decodes it, which fails
    // beyond 100 levels. Our parser accepts exactly what that round trip
    // accepts.
    let mut checked = 0;
    for r in records("oracle/fuzz_nesting.jsonl") {
        let kind = str_field(&r["input"], "kind");
        let text = str_field(&r["input"], "text");
        let ok = str_field(&r, "status") == "ok";
        let ours = if kind == "layout_text" {
            text.parse::<Layout>().map(|l| l.to_string())
        } else {
            text.parse::<Shape>().map(|s| s.to_string())
        };
        match ours {
            Ok(printed) => {
                assert!(ok, "{text}: XLA's protobuf step failed, we parsed");
                assert_eq!(printed, str_field(&r, "xla_str"));
            }
            Err(e) => {
                assert!(!ok, "{text}: {e}");
                assert!(e.message().contains("nesting exceeds the limit of 100"));
            }
        }
        checked += 1;
    }
    assert_eq!(checked, 10);
}

#[test]
fn a_megabyte_of_open_parentheses_in_every_parser() {
    let parens = "(".repeat(1 << 20);
    let (err, peak) = peak_memory(|| parens.parse::<Shape>().unwrap_err());
    assert_eq!(err.kind(), ErrorKind::Parse);
    assert!(
        err.message()
            .contains("shape nesting exceeds the limit of 100 levels")
    );
    // The message shows a window of the line, not the megabyte.
    assert!(err.message().len() < 1000);
    assert_linear_memory("HLO shape", parens.len(), peak);

    let layout = format!("{{0:P{parens}");
    let (err, peak) = peak_memory(|| layout.parse::<Layout>().unwrap_err());
    assert!(
        err.message()
            .contains("shape nesting exceeds the limit of 100 levels")
    );
    assert_linear_memory("HLO layout", layout.len(), peak);

    // No type keyword anywhere: nothing is found.
    let (found, peak) = peak_memory(|| shapes_in_hlo(&parens).count());
    assert_eq!(found, 0);
    assert_linear_memory("HLO scan", parens.len(), peak);
    let with_leaf = format!("{parens}f32[2]");
    let found: Vec<_> = shapes_in_hlo(&with_leaf).collect();
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].text, "f32[2]");

    // JSON: brackets and objects.
    for json in [
        "[".repeat(1 << 20),
        "{\"tupleShapes\":[".repeat((1 << 20) / 16),
        parens.clone(),
    ] {
        let (err, peak) = peak_memory(|| formats::from_json::<ShapeProto>(&json).unwrap_err());
        assert_eq!(err.kind(), ErrorKind::Format);
        assert_linear_memory("JSON", json.len(), peak);
    }
    // Text format: parentheses are no token of it; braces are messages.
    for pbtxt in [
        parens.clone(),
        "tuple_shapes {".repeat((1 << 20) / 14),
        "layout <".repeat((1 << 20) / 8),
    ] {
        let (err, peak) =
            peak_memory(|| formats::from_text_format::<ShapeProto>(&pbtxt).unwrap_err());
        assert_eq!(err.kind(), ErrorKind::Format);
        assert_linear_memory("text format", pbtxt.len(), peak);
    }
    // As proto bytes, 0x28 is field 5 (layout) with the varint wire type:
    // an unknown field holding 40, then the next. The element type is
    // never set, so the shape is invalid.
    let (err, peak) = peak_memory(|| Shape::from_proto_bytes(parens.as_bytes()).unwrap_err());
    assert_eq!(
        err.message(),
        "Shape Error: Invalid element type. Shape(primitive_type_invalid): primitive_type_invalid[]"
    );
    assert_linear_memory("ShapeProto bytes", parens.len(), peak);
    assert!(Layout::from_proto_bytes(parens.as_bytes()).is_ok());
}

// ------------------------------------------------------------ sizes

/// The same shape in every input format.
struct Inputs {
    text: String,
    proto: ShapeProto,
}

impl Inputs {
    fn array(text: &str, element_type: i32, dims: &[i64]) -> Inputs {
        Inputs {
            text: text.to_owned(),
            proto: ShapeProto {
                element_type,
                dimensions: dims.to_vec(),
                ..Default::default()
            },
        }
    }

    /// The shape (or the error) from each path: HLO text, ShapeProto
    /// bytes, the proto in memory, JSON, text format.
    fn parse_all(&self) -> Vec<(&'static str, xla_shape::Result<Shape>)> {
        vec![
            ("text", self.text.parse::<Shape>()),
            (
                "bytes",
                Shape::from_proto_bytes(&self.proto.encode_to_vec()),
            ),
            ("message", Shape::try_from(&self.proto)),
            ("json", Shape::from_json(&formats::to_json(&self.proto))),
            (
                "text format",
                Shape::from_text_format(&formats::to_text_format(&self.proto)),
            ),
        ]
    }
}

#[test]
fn dimensions_whose_product_overflows_are_rejected_on_every_path() {
    // ShapeUtil::ValidateShape, dimensions: 2^32 * 2^32 = 2^64 overflows the running product
    // of ValidateDimensions.
    let dims = Inputs::array("f32[4294967296,4294967296]", 11, &[1 << 32, 1 << 32]);
    for (path, result) in dims.parse_all() {
        let err = result.unwrap_err();
        assert!(
            err.message().contains(
                "Shape Error: Dimensions overflow. Shape(f32): f32[4294967296,4294967296]"
            ),
            "{path}: {err}"
        );
    }
    // ShapeUtil::ValidateShape, byte size: 2^62 elements fit, 2^62 * 4 bytes do not.
    let bytes = Inputs::array("f32[4611686018427387904]", 11, &[1 << 62]);
    for (path, result) in bytes.parse_all() {
        let err = result.unwrap_err();
        assert!(
            err.message()
                .contains("Shape f32[4611686018427387904] size may overflow int64_t."),
            "{path}: {err}"
        );
    }
    // Three dimensions whose product wraps to a small positive number in
    // 64-bit arithmetic: 2^22 * 2^22 * 2^22 = 2^66, which wraps to 0 mod
    // 2^64; a wrapping product would pass.
    let wrap = Inputs::array(
        "s8[4194304,4194304,4194304]",
        2,
        &[1 << 22, 1 << 22, 1 << 22],
    );
    for (path, result) in wrap.parse_all() {
        assert!(
            result
                .unwrap_err()
                .message()
                .contains("Shape Error: Dimensions overflow."),
            "{path}"
        );
    }
}

#[test]
fn sizes_of_valid_shapes_that_overflow_are_errors() {
    // s8[2^63-1] is valid: its byte size, 2^63-1, fits. One tile of 2 pads
    // it to 2^63 elements, which does not.
    let shape: Shape = "s8[9223372036854775807]{0:T(2)}".parse().unwrap();
    let array = shape.as_array().unwrap();
    assert_eq!(shape_util::byte_size_of(&shape, 8), Ok(i64::MAX));
    let err = TiledLayout::new(array).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Overflow, "{err}");
    assert_eq!(
        shape_util::array_size(array).unwrap_err().kind(),
        ErrorKind::Overflow
    );
}

#[test]
fn rank_is_bounded_only_by_the_input() {
    let rank = 20_000;
    let text = format!("f32[{}]", vec!["1"; rank].join(","));
    let (shape, peak) = peak_memory(|| text.parse::<Shape>().unwrap());
    assert_eq!(shape.rank(), Some(rank));
    assert_linear_memory("rank in HLO text", text.len(), peak);
    let inputs = Inputs {
        text,
        proto: ShapeProto::from(&shape),
    };
    for (path, result) in inputs.parse_all() {
        assert_eq!(result.as_ref(), Ok(&shape), "{path}");
    }
    let bytes = shape.to_proto_bytes();
    let (_, peak) = peak_memory(|| Shape::from_proto_bytes(&bytes).unwrap());
    assert_linear_memory("rank in ShapeProto bytes", bytes.len(), peak);
    let json = shape.to_json();
    let (_, peak) = peak_memory(|| Shape::from_json(&json).unwrap());
    assert_linear_memory("rank in JSON", json.len(), peak);
    let pbtxt = shape.to_text_format();
    let (_, peak) = peak_memory(|| Shape::from_text_format(&pbtxt).unwrap());
    assert_linear_memory("rank in text format", pbtxt.len(), peak);
}

#[test]
fn nothing_allocates_in_proportion_to_a_dimension() {
    // 2^62 one-byte elements: every operation below works on the
    // dimensions, never on the elements.
    const SMALL: usize = 64 << 10;
    let text = "s8[4611686018427387904]{0:T(1024)L(4)}";
    let (shape, peak) = peak_memory(|| text.parse::<Shape>().unwrap());
    assert!(peak < SMALL, "parse: {peak}");
    let bytes = shape.to_proto_bytes();
    let (decoded, peak) = peak_memory(|| Shape::from_proto_bytes(&bytes).unwrap());
    assert!(peak < SMALL, "decode: {peak}");
    assert_eq!(decoded, shape);
    let json = shape.to_json();
    let (_, peak) = peak_memory(|| Shape::from_json(&json).unwrap());
    assert!(peak < SMALL, "JSON: {peak}");
    let array = shape.as_array().unwrap();
    let last = (1i64 << 62) - 1;
    let (offset, peak) = peak_memory(|| {
        let tiled = TiledLayout::new(array).unwrap();
        let offset = tiled.offset(&[last]).unwrap();
        assert_eq!(
            tiled.slot(offset).unwrap(),
            xla_shape::tiling::Slot::Element(vec![last])
        );
        offset
    });
    assert!(peak < SMALL, "tiling: {peak}");
    // One tile of 1024 on a dimension that is a multiple of 1024: the
    // offset of an element is its index.
    assert_eq!(offset, last);
    let (index, peak) =
        peak_memory(|| index_util::linear_index_to_multidimensional_index(array, last).unwrap());
    assert!(peak < SMALL, "index_util: {peak}");
    assert_eq!(index, [last]);
    let (size, peak) = peak_memory(|| shape_util::byte_size_of(&shape, 8).unwrap());
    assert!(peak < SMALL, "byte_size_of: {peak}");
    assert_eq!(size, 1 << 62);
}

#[test]
fn tiles_of_bound_one_cost_nothing_per_element() {
    // T(3) cuts T(8)'s remainder across digits, so elements are mapped by
    // the tiling graph; each later (1) tile adds a quotient equal to its
    // dividend and a remainder that is always 0. 16,000 of them once made
    // every offset walk (and allocate) 32,000 nodes.
    let base = "f32[4096]{0:T(8)(3)}".parse::<Shape>().unwrap();
    let ones = format!("f32[4096]{{0:T(8)(3){}}}", "(1)".repeat(16_000));
    let ones = ones.parse::<Shape>().unwrap();
    let base = TiledLayout::new(base.as_array().unwrap()).unwrap();
    let tiled = TiledLayout::new(ones.as_array().unwrap()).unwrap();
    // The (1) tiles only append dimensions of size 1: the same offsets.
    assert_eq!(tiled.physical_shape()[..3], *base.physical_shape());
    assert_eq!(tiled.slot_count(), base.slot_count());
    let mut index = [0i64];
    for i in 0..4096 {
        let (offset, n) = allocations(|| tiled.offset(&[i]).unwrap());
        assert_eq!(n, 0, "offset of {i}");
        assert_eq!(offset, base.offset(&[i]).unwrap());
        let (element, n) = allocations(|| tiled.slot_into(offset, &mut index).unwrap());
        assert_eq!(n, 0, "slot {offset}");
        assert!(element);
        assert_eq!(index, [i]);
    }
    for o in 0..tiled.slot_count() {
        assert_eq!(tiled.slot(o).unwrap(), base.slot(o).unwrap(), "slot {o}");
    }
}

// ------------------------------------------------------------ linearity

#[test]
fn wide_inputs_cost_memory_linear_in_their_size() {
    let n = 100_000;
    let cases: Vec<(&str, String)> = vec![
        (
            "tuple of empty tuples",
            format!("({})", vec!["()"; n].join(",")),
        ),
        (
            "tuple of scalars",
            format!("({})", vec!["f32[]"; n].join(",")),
        ),
        ("tiles", format!("f32[2]{{0:T{}}}", "(2)".repeat(n))),
        (
            "split configs",
            format!("f32[2]{{0:SC{}}}", "(0:1)".repeat(n)),
        ),
        (
            "minor_to_major",
            format!("f32[2]{{{}}}", vec!["0"; n].join(",")),
        ),
    ];
    for (what, text) in &cases {
        let (_, peak) = peak_memory(|| {
            let _ = text.parse::<Shape>();
        });
        assert_linear_memory(what, text.len(), peak);
        let (_, peak) = peak_memory(|| shapes_in_hlo(text).count());
        assert_linear_memory(what, text.len(), peak);
    }
    // The proto formats, on a smaller tuple (their parsers are slower in
    // unoptimised builds).
    let tuple: Shape = format!("({})", vec!["f32[]"; n / 10].join(","))
        .parse()
        .unwrap();
    let bytes = tuple.to_proto_bytes();
    let (_, peak) = peak_memory(|| Shape::from_proto_bytes(&bytes).unwrap());
    assert_linear_memory("tuple as bytes", bytes.len(), peak);
    let json = tuple.to_json();
    let (_, peak) = peak_memory(|| formats::from_json::<ShapeProto>(&json).unwrap());
    assert_linear_memory("tuple as JSON", json.len(), peak);
    let pbtxt = tuple.to_text_format();
    let (_, peak) = peak_memory(|| formats::from_text_format::<ShapeProto>(&pbtxt).unwrap());
    assert_linear_memory("tuple as text format", pbtxt.len(), peak);
    let layout = LayoutProto {
        minor_to_major: vec![0; n],
        ..Default::default()
    };
    let bytes = layout.encode_to_vec();
    let (_, peak) = peak_memory(|| Layout::from_proto_bytes(&bytes).unwrap());
    assert_linear_memory("layout bytes", bytes.len(), peak);
}

#[test]
fn ten_megabytes_of_hlo_are_scanned_whole() {
    // The golden modules, repeated until the text passes 10 MB; every copy
    // gives the shapes one copy gives, at the same offsets within it.
    let mut module = String::new();
    for name in ["matmul_bf16", "conv_nchw", "reduce_variadic", "scan_tuple"] {
        let path = format!("{}/tests/data/hlo/{name}.txt", env!("CARGO_MANIFEST_DIR"));
        module.push_str(&std::fs::read_to_string(path).unwrap());
        module.push('\n');
    }
    let one: Vec<(usize, String)> = shapes_in_hlo(&module)
        .map(|s| (s.range.start, s.text.to_owned()))
        .collect();
    assert!(one.len() > 100, "{}", one.len());
    let copies = (10 << 20) / module.len() + 1;
    let big = module.repeat(copies);
    assert!(big.len() >= 10 << 20);
    let (count, peak) = peak_memory(|| {
        let mut count = 0;
        for (i, found) in shapes_in_hlo(&big).enumerate() {
            let (copy, k) = (i / one.len(), i % one.len());
            assert_eq!(found.range.start, copy * module.len() + one[k].0);
            assert_eq!(found.text, one[k].1);
            assert!(found.shape.is_ok());
            count += 1;
        }
        count
    });
    assert_eq!(count, copies * one.len());
    // The scan holds one shape at a time.
    assert!(peak < 1 << 20, "{peak}");
}

#[test]
fn shapes_inside_unclosed_tuples_are_found() {
    // 99 unclosed tuples, each level a list of three arrays: no tuple
    // parses (each runs to the end of the text), every array is found on
    // its own, 99 * 3 of them. The scanner tries each `(` once.
    let level = "(f32[2],s32[],pred[3],";
    let text = level.repeat(99);
    let found: Vec<_> = shapes_in_hlo(&text).collect();
    assert_eq!(found.len(), 99 * 3);
    for (i, s) in found.iter().enumerate() {
        assert_eq!(s.text, ["f32[2]", "s32[]", "pred[3]"][i % 3]);
        assert!(s.shape.is_ok());
    }
    // Complete tuples inside an unclosed one are found whole: three of
    // them, then the last array.
    let text = format!("({}f32[2]", "(f32[],s32[]),".repeat(3));
    let texts: Vec<_> = shapes_in_hlo(&text).map(|s| s.text).collect();
    assert_eq!(
        texts,
        ["(f32[],s32[])", "(f32[],s32[])", "(f32[],s32[])", "f32[2]"]
    );
}

#[test]
fn the_scan_reads_unclosed_tuples_once() {
    // 99 unclosed tuples: the scan parses the text once from the first
    // `(` (which fails at the end, like parsing the text whole) and then
    // each array it finds once. Counted in allocations, that is about
    // those of the whole parse plus those of parsing each array alone;
    // twice that leaves room for the scanner's own bookkeeping. A scan
    // that tried each `(` again would read the rest of the text up to 99
    // times (27 times as many allocations as now).
    let text = "(f32[2],s32[],pred[3],".repeat(99);
    let (_, whole) = allocations(|| text.parse::<Shape>().unwrap_err());
    let arrays: usize = ["f32[2]", "s32[]", "pred[3]"]
        .iter()
        .map(|a| allocations(|| a.parse::<Shape>().unwrap()).1)
        .sum::<usize>()
        * 99;
    let (found, scan) = allocations(|| shapes_in_hlo(&text).count());
    assert_eq!(found, 99 * 3);
    assert!(
        scan <= 2 * (whole + arrays),
        "{scan} > 2 * ({whole} + {arrays})"
    );
}

#[test]
fn long_names_in_proto_text_are_not_copied_into_errors() {
    // A name of 20 MiB where a field or enum name belongs. The first pass
    // over JSON once decoded and cloned every key, and each error quoted
    // the whole name: 84 MB held for 20 MB of duplicate keys, and a 20 MB
    // message for every case. Errors now keep at most 4 KiB of the
    // parser's message (the location still points at the name).
    let n = 20 << 20;
    let long = "x".repeat(n);
    // The schema's descriptors are built on first use: not counted.
    formats::from_json::<ShapeProto>("{}").unwrap();
    let duplicate = format!("{{\"{long}\": 1, \"{long}\": 2}}");
    let (r, peak) = peak_memory(|| formats::from_json::<ShapeProto>(&duplicate));
    let e = r.unwrap_err();
    assert!(
        e.to_string()
            .starts_with("invalid JSON message: duplicate key \"xxx")
    );
    assert!(peak < FIXED_BYTES, "duplicate keys: {peak} bytes");
}

#[test]
fn long_names_are_held_at_most_once() {
    // The parsers copied a name they do not know two to six times (into
    // a `String`, into their message, into serde_json's error): 4.0 times
    // the record for an unknown JSON key, 3.0 for a JSON enum name, 2.0
    // for a text-format field or enum name, 4.6 to 5.6 for a string where
    // the text format wants a number or enum. The reader now replaces such
    // a name by a placeholder before parsing (one copy of the record, the
    // edited input) and writes the name back into the message, cut at 4
    // KiB; the error is the same, at the same place.
    let n = 20 << 20;
    let long = "x".repeat(n);
    let message = |name: &str| DESCRIPTOR_POOL.get_message_by_name(name).unwrap();
    let (shape, metrics) = (message("xla.ShapeProto"), message("xla.PassMetrics"));
    formats::from_json_dynamic(metrics.clone(), "{}").unwrap();
    formats::from_text_format_dynamic(metrics.clone(), "").unwrap();
    // (message, input, the message's start, the location's offset:
    // serde_json's, the closing quote of the name, or the closing brace of
    // an `Any` whose `@type` is read after the name).
    let json = [
        (
            &shape,
            format!("{{\"{long}\": 1}}"),
            "invalid JSON message: unrecognized field name 'xxx",
            Some(2 + n),
        ),
        (
            &shape,
            format!("{{\"elementType\": \"{long}\"}}"),
            "invalid JSON message: unrecognized enum value 'xxx",
            Some(17 + n),
        ),
        (
            &shape,
            format!("{{\"elementType\": \"F32\",\n \"layout\": {{\"{long}\": 1}}}}"),
            "invalid JSON message: unrecognized field name 'xxx",
            Some(36 + n),
        ),
        // An `Any` whose `@type` comes after the name (4.0 times the record
        // before the readers looked into such an `Any`): the reader writes
        // that `@type` first, so the error is at the name's closing quote,
        // as for any unknown key.
        (
            &metrics,
            format!(
                "{{\"customMetrics\": {{\"{long}\": 1, \"@type\": \"type.googleapis.com/xla.PassMetrics\"}}}}"
            ),
            "invalid JSON message: unrecognized field name 'xxx",
            Some(20 + n),
        ),
        // A name after a late `@type` (4.0 times): at its closing quote.
        (
            &metrics,
            format!(
                "{{\"customMetrics\": {{\"passName\": \"p\", \"@type\": \"type.googleapis.com/xla.PassMetrics\", \"{long}\": 1}}}}"
            ),
            "invalid JSON message: unrecognized field name 'xxx",
            Some(85 + n),
        ),
        // A type URL naming no message (4.0 times each), first or late in
        // its `Any`, with or without a `/`: at the `Any`'s `}`.
        (
            &metrics,
            format!("{{\"customMetrics\": {{\"@type\": \"type.googleapis.com/{long}\"}}}}"),
            "invalid JSON message: message 'xxx",
            Some(50 + n),
        ),
        (
            &metrics,
            format!(
                "{{\"customMetrics\": {{\"passName\": \"p\", \"@type\": \"type.googleapis.com/{long}\"}}}}"
            ),
            "invalid JSON message: message 'xxx",
            Some(67 + n),
        ),
        (
            &metrics,
            format!("{{\"customMetrics\": {{\"@type\": \"{long}\"}}}}"),
            "invalid JSON message: unsupported type url 'xxx",
            Some(30 + n),
        ),
    ];
    for (descriptor, input, start, offset) in &json {
        let (r, peak) = peak_memory(|| formats::from_json_dynamic((*descriptor).clone(), input));
        let e = r.unwrap_err();
        check_long_name_error(&e, start, *offset);
        assert!(
            peak <= input.len() + FIXED_BYTES,
            "{start}: {peak} bytes for {}",
            input.len()
        );
    }
    let text = [
        (
            &shape,
            format!("{long}: 1"),
            "invalid text format message: field 'xxx",
        ),
        (
            &shape,
            format!("element_type: {long}"),
            "invalid text format message: value 'xxx",
        ),
        (
            &shape,
            format!("dimensions: \"{long}\""),
            "invalid text format message: expected an integer, but found '\"xxx",
        ),
        (
            &shape,
            format!("element_type: \"{long}\""),
            "invalid text format message: expected an enum value, but found '\"xxx",
        ),
        (
            &shape,
            format!("dimensions: {long}"),
            "invalid text format message: expected an integer, but found 'xxx",
        ),
        (
            &shape,
            format!("layout {{ {long}: 1 }}"),
            "invalid text format message: field 'xxx",
        ),
        // A name after a `.` in an extension's name (2.0 times before) or
        // an `Any` expansion's type (2.0 times) or domain (3.0 times).
        (
            &shape,
            format!("[a.{long}]: 1"),
            "invalid text format message: extension 'a.xxx",
        ),
        (
            &shape,
            format!("[type.googleapis.com/xla.{long}] {{ }}"),
            "invalid text format message: message type 'xla.xxx",
        ),
        // Strings with escapes (5.6 times before): the message prints the
        // string's bytes as the parser decoded them.
        (
            &shape,
            format!("dimensions: \"\\n{long}\""),
            "invalid text format message: expected an integer, but found '\"\\nxxx",
        ),
        // A byte escape above `\x7f` (5.6 times before: such strings were
        // left alone), valid UTF-8 or not.
        (
            &shape,
            format!("dimensions: \"\\xff{long}\""),
            "invalid text format message: expected an integer, but found '\"\\xffxxx",
        ),
        (
            &shape,
            format!("element_type: \"\\303\\251{long}\\342\""),
            "invalid text format message: expected an enum value, but found '\"\\xc3\\xa9xxx",
        ),
    ];
    for (descriptor, input, start) in &text {
        let (r, peak) =
            peak_memory(|| formats::from_text_format_dynamic((*descriptor).clone(), input));
        let e = r.unwrap_err();
        check_long_name_error(&e, start, None);
        assert!(
            peak <= input.len() + FIXED_BYTES,
            "{start}: {peak} bytes for {}",
            input.len()
        );
    }
    // Messages that quote none of the name: an Any expansion's domain,
    // and a valid string with escapes before an unknown field.
    let whole = [
        (
            &shape,
            format!("[a.{long}/xla.ShapeProto] {{ }}"),
            "invalid text format message: the field type must be 'google.protobuf.Any' to use Any expansion syntax",
        ),
        (
            &metrics,
            format!("pass_name: \"\\u00e9{long}\" nope: 1"),
            "invalid text format message: field 'nope' not found for message 'xla.PassMetrics'",
        ),
        // A string field given bytes that are not UTF-8 (the parser's
        // copy of the string, twice the record before), and valid UTF-8
        // spelled with byte escapes before an unknown field.
        (
            &metrics,
            format!("pass_name: \"{long}\\x80\""),
            "invalid text format message: string is not valid utf-8",
        ),
        (
            &metrics,
            format!("pass_name: \"\\xe2\\x82\\xac{long}\" nope: 1"),
            "invalid text format message: field 'nope' not found for message 'xla.PassMetrics'",
        ),
    ];
    for (descriptor, input, message) in &whole {
        let (r, peak) =
            peak_memory(|| formats::from_text_format_dynamic((*descriptor).clone(), input));
        assert_eq!(r.unwrap_err().to_string(), *message);
        assert!(peak <= input.len() + FIXED_BYTES, "{message}: {peak} bytes");
    }
}

fn check_long_name_error(e: &xla_shape::Error, start: &str, offset: Option<usize>) {
    assert_eq!(e.kind(), ErrorKind::Format);
    let message = e.to_string();
    assert!(message.starts_with(start), "{}...", &message[..100]);
    assert!(message.len() < 4200, "{}...", &message[..100]);
    assert!(message.ends_with("..."), "{}...", &message[..100]);
    assert_eq!(e.location().map(|l| l.offset), offset, "{start}");
}

// ------------------------------------------------------------ sharding

/// Sharding text, `OpSharding` bytes and Shardy text: memory linear in the
/// input on wide inputs (a million devices, a tuple of 200,000 elements,
/// megabytes of metadata), the nesting limit on tuples of tuples.
#[test]
fn sharding_readers_cost_memory_linear_in_their_input() {
    use xla_shape::sharding::{HloSharding, shardy};
    let n = 1 << 20;
    let devices: Vec<String> = (0..n).rev().map(|d| d.to_string()).collect();
    let text = format!("{{devices=[1024,1024]{}}}", devices.join(","));
    let (s, peak) = peak_memory(|| text.parse::<HloSharding>().unwrap());
    assert_eq!(s.num_devices().unwrap(), n);
    assert_linear_memory("sharding text, a million devices", text.len(), peak);

    let replicated = format!(
        "{{devices=[1024,1024]{} last_tile_dim_replicate}}",
        devices.join(",")
    );
    let (s, peak) = peak_memory(|| replicated.parse::<HloSharding>().unwrap());
    assert!(s.replicate_on_last_tile_dim());
    assert_linear_memory("sharding text, groups sorted", replicated.len(), peak);

    let tuple = format!("{{{}}}", vec!["{replicated}"; 200_000].join(", "));
    let (s, peak) = peak_memory(|| tuple.parse::<HloSharding>().unwrap());
    assert_eq!(s.tuple_elements().len(), 200_000);
    assert_linear_memory("sharding text, a wide tuple", tuple.len(), peak);

    let metadata = format!(
        "{{replicated metadata={{op_name=\"{}\"}}}}",
        "x".repeat(4 << 20)
    );
    let (_, peak) = peak_memory(|| metadata.parse::<HloSharding>().unwrap());
    assert_linear_memory("sharding text, long metadata", metadata.len(), peak);

    for s in [&text, &tuple, &metadata] {
        let bytes = s.parse::<HloSharding>().unwrap().to_proto_bytes();
        let (_, peak) = peak_memory(|| HloSharding::from_proto_bytes(&bytes).unwrap());
        assert_linear_memory("OpSharding bytes", bytes.len(), peak);
    }

    // Tuples of tuples: the message limit of every decoder.
    let mut nested = Vec::new();
    for _ in 0..200 {
        let mut outer = vec![0x08, 0x02, 0x2a];
        prost::encoding::encode_varint(nested.len() as u64, &mut outer);
        outer.extend_from_slice(&nested);
        nested = outer;
    }
    let (err, peak) = peak_memory(|| HloSharding::from_proto_bytes(&nested).unwrap_err());
    assert!(
        err.message().contains("nesting exceeds the limit of 100"),
        "{err}"
    );
    assert_linear_memory("OpSharding bytes, nested", nested.len(), peak);

    let axes: Vec<String> = (0..20_000).map(|i| format!("\"a{i}\"=1")).collect();
    let mesh = format!("<[{}]>", axes.join(", "));
    let dims: Vec<String> = (0..20_000).map(|i| format!("{{\"a{i}\"}}")).collect();
    let sdy = format!("#sdy.sharding<@mesh, [{}]>", dims.join(", "));
    let (r, peak) = peak_memory(|| {
        let (_, m) = shardy::parse_mesh(&mesh).unwrap();
        let s: shardy::ShardySharding = sdy.parse().unwrap();
        s.to_hlo_sharding(&m).map(|h| h.is_replicated())
    });
    assert!(r.is_ok());
    assert_linear_memory("Shardy text", mesh.len() + sdy.len(), peak);
}

/// Listing the devices of an iota tile assignment is refused beyond
/// `MAX_LISTED_DEVICES` (2^20): a few bytes of text cannot make the crate
/// allocate gigabytes, as XLA would. Up to the cap, listing costs 8 bytes
/// per device, a fixed bound of 8 MiB beyond the input (docs/robustness.md).
#[test]
fn listing_devices_is_capped() {
    use xla_shape::sharding::{HloSharding, MAX_LISTED_DEVICES};
    let huge = format!("{{devices=[{0}]<=[{0}]}}", MAX_LISTED_DEVICES + 1);
    let s: HloSharding = huge.parse().unwrap();
    let (err, peak) = peak_memory(|| s.tile_assignment_devices().unwrap_err());
    assert!(err.message().contains("more than the 1048576"), "{err}");
    assert!(peak < 1 << 16, "{peak}");
    // A replication group that XLA sorts by listing the devices.
    let sorted = format!(
        "{{devices=[3,{0}]<=[3,{0}]T(1,0) last_tile_dim_replicate}}",
        1 << 21
    );
    let (err, peak) = peak_memory(|| sorted.parse::<HloSharding>().unwrap_err());
    assert!(err.message().contains("more than the 1048576"), "{err}");
    assert!(peak < 1 << 16, "{peak}");
    // At the cap, 8 bytes a device.
    let at_cap = format!("{{devices=[{0}]<=[{0}]}}", MAX_LISTED_DEVICES);
    let s: HloSharding = at_cap.parse().unwrap();
    let (d, peak) = peak_memory(|| s.tile_assignment_devices().unwrap());
    assert_eq!(d.len() as i64, MAX_LISTED_DEVICES);
    assert!(peak <= 8 * (1 << 20) + (1 << 16), "{peak}");
}
