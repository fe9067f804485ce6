//! The properties the fuzz targets assert, shared with the stable
//! `tests/robustness/fuzz_corpus.rs`, which replays every committed input through them.
//!
//! Each function takes the raw fuzz input and panics (through an assertion)
//! when a property fails; an input the library rejects with an error is
//! fine, as long as nothing panics on the way.

#![allow(dead_code)]

use prost::Message;
use xla_shape::formats::{self, JsonOptions, ProtoFormats};
use xla_shape::proto::{LayoutProto, ShapeProto};
use xla_shape::text::{self, ParseOptions};
use xla_shape::tiling::{Slot, TiledLayout};
use xla_shape::{
    ArrayShape, ErrorKind, Layout, PrimitiveType, Shape, Tile, index_util, relayout, shape_util,
};

/// A property over one fuzz input: panics when it does not hold.
pub type Check = fn(&[u8]);

/// The names of the fuzz targets, each with its check: the corpus and
/// regression directories are named after them.
pub const TARGETS: &[(&str, Check)] = &[
    ("proto_roundtrip", proto_roundtrip),
    ("shape_string", shape_string),
    ("layout_string", layout_string),
    ("json_roundtrip", json_roundtrip),
    ("text_format_roundtrip", text_format_roundtrip),
    ("index_math", index_math),
    ("index_text", index_text),
    ("hlo_scan", hlo_scan),
    ("relayout", relayout),
    ("strides", strides),
    ("interop", interop),
    ("hlo_module", hlo_module),
    ("hlo_proto", hlo_proto),
    ("any_message", any_message),
    ("stablehlo_text", stablehlo_text),
    ("memory", memory),
    ("stablehlo_bytecode", stablehlo_bytecode),
    ("sharding", sharding),
    ("padding", padding),
];

/// The fuzz targets of the command-line tool: their properties are in
/// `fuzz/cli_checks.rs`, replayed by the tool's own tests
/// (`cli/tests/robust_fuzz_corpus.rs`).
pub const CLI_TARGETS: &[&str] = &["cli_json", "cli_draw", "cli_sharding"];

/// ShapeProto bytes: whatever decodes re-encodes to bytes that decode to an
/// equal shape, and re-encoding that is a fixed point. Where prost (which
/// is stricter than Google's runtimes) decodes the bytes too, converting its
/// message gives the same answer.
pub fn proto_roundtrip(data: &[u8]) {
    let ours = Shape::from_proto_bytes(data);
    if let Ok(shape) = &ours {
        let bytes = shape.to_proto_bytes();
        let again = Shape::from_proto_bytes(&bytes).expect("re-encoded shape decodes");
        assert_eq!(&again, shape);
        assert_eq!(again.to_proto_bytes(), bytes);
        assert_eq!(ShapeProto::from(shape).encode_to_vec(), bytes);
    }
    if let Ok(p) = ShapeProto::decode(data) {
        let via_prost = Shape::try_from(&p);
        match (&ours, &via_prost) {
            (Ok(a), Ok(b)) => assert_eq!(a, b),
            (Err(a), Err(b)) => assert_eq!(a.message(), b.message()),
            _ => panic!("decoders disagree: ours {ours:?}, prost's {via_prost:?}"),
        }
    }
}

/// An HLO shape string: what parses prints to a string that parses to an
/// equal shape and prints the same again (the printed form is a fixed
/// point); the shape's proto bytes decode to it. The same holds without
/// filled layouts and for the layout-less printed form.
pub fn shape_string(data: &[u8]) {
    let Ok(input) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(shape) = input.parse::<Shape>() {
        let printed = shape.to_string();
        let again: Shape = printed
            .parse()
            .unwrap_or_else(|e| panic!("printed shape {printed:?} does not parse: {e}"));
        assert_eq!(again, shape, "{printed}");
        assert_eq!(again.to_string(), printed);
        // What the text accepts, the proto formats hold and read back.
        let bytes = shape.to_proto_bytes();
        let decoded = Shape::from_proto_bytes(&bytes)
            .unwrap_or_else(|e| panic!("proto of {printed} does not decode: {e}"));
        assert_eq!(decoded, shape);
        // HumanString (no layouts) is a fixed point too.
        let plain = format!("{shape:#}");
        let keep = ParseOptions {
            fill_missing_layouts: false,
        };
        let reparsed = text::parse_shape_with(&plain, &keep)
            .unwrap_or_else(|e| panic!("layout-less {plain:?} does not parse: {e}"));
        assert_eq!(format!("{reparsed:#}"), plain);
    }
    let keep = ParseOptions {
        fill_missing_layouts: false,
    };
    if let Ok(shape) = text::parse_shape_with(input, &keep) {
        let printed = shape.to_string();
        let again = text::parse_shape_with(&printed, &keep)
            .unwrap_or_else(|e| panic!("printed shape {printed:?} does not parse: {e}"));
        assert_eq!(again, shape, "{printed}");
        assert_eq!(again.to_string(), printed);
    }
}

/// An HLO layout string (`{1,0:T(8,128)}`): what parses prints to a string
/// that parses to an equal layout and prints the same again (unless XLA
/// prints it as unparsable, see below); its LayoutProto bytes decode to it.
pub fn layout_string(data: &[u8]) {
    let Ok(input) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(layout) = input.parse::<Layout>() else {
        return;
    };
    let printed = layout.to_string();
    let bytes = layout.to_proto_bytes();
    let decoded = Layout::from_proto_bytes(&bytes)
        .unwrap_or_else(|e| panic!("proto of {printed} does not decode: {e}"));
    assert_eq!(decoded, layout);
    // XLA prints an index or pointer type that is not an integer type as
    // `#(invalid)` / `*(invalid)`, which its parser rejects (the oracle's
    // answer to `{1,0:#(f32)}` is in tests/data/oracle/fuzz_layout.jsonl).
    let unprintable = [
        layout.index_primitive_type(),
        layout.pointer_primitive_type(),
    ]
    .into_iter()
    .any(|t| t != PrimitiveType::Invalid && !t.is_integral());
    if unprintable {
        assert!(printed.contains("(invalid)"), "{printed}");
        return;
    }
    let again: Layout = printed
        .parse()
        .unwrap_or_else(|e| panic!("printed layout {printed:?} does not parse: {e}"));
    assert_eq!(again, layout, "{printed}");
    assert_eq!(again.to_string(), printed);
}

/// Writes `p` as JSON in every style, parses each back and checks it is the
/// same message, written the same again.
fn json_fixed_point<M>(p: &M)
where
    M: prost_reflect::ReflectMessage + Default + PartialEq + std::fmt::Debug,
{
    for options in [
        JsonOptions::new(),
        JsonOptions::new().pretty(true),
        JsonOptions::new().preserve_proto_field_names(true),
    ] {
        let json = formats::to_json_with(p, &options);
        let again: M = formats::from_json(&json)
            .unwrap_or_else(|e| panic!("written JSON {json} does not parse: {e}"));
        assert_eq!(&again, p, "{json}");
        assert_eq!(formats::to_json_with(&again, &options), json);
    }
}

/// proto3 JSON: whatever parses as a ShapeProto (or a LayoutProto) is
/// written to JSON that parses to an equal message, and writing that is a
/// fixed point; its binary form decodes to it. A ShapeProto that converts
/// to a `Shape` gives the same shape after a trip through the shape's JSON.
pub fn json_roundtrip(data: &[u8]) {
    let Ok(input) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(p) = formats::from_json::<ShapeProto>(input) {
        json_fixed_point(&p);
        assert_eq!(ShapeProto::decode(&p.encode_to_vec()[..]).as_ref(), Ok(&p));
        if let Ok(shape) = Shape::try_from(&p) {
            let json = shape.to_json();
            let again = Shape::from_json(&json)
                .unwrap_or_else(|e| panic!("JSON of {shape} does not convert back: {e}"));
            assert_eq!(again, shape);
        }
    }
    if let Ok(p) = formats::from_json::<LayoutProto>(input) {
        json_fixed_point(&p);
        assert_eq!(LayoutProto::decode(&p.encode_to_vec()[..]).as_ref(), Ok(&p));
    }
}

/// Writes `p` in the text format, on many lines and on one, parses each
/// back and checks it is the same message, written the same again.
fn text_format_fixed_point<M>(p: &M)
where
    M: prost_reflect::ReflectMessage + Default + PartialEq + std::fmt::Debug,
{
    let text = formats::to_text_format(p);
    let again: M = formats::from_text_format(&text)
        .unwrap_or_else(|e| panic!("written text format {text:?} does not parse: {e}"));
    assert_eq!(&again, p, "{text}");
    assert_eq!(formats::to_text_format(&again), text);
    let line = formats::to_text_format_one_line(p);
    let again: M = formats::from_text_format(&line)
        .unwrap_or_else(|e| panic!("one-line text format {line:?} does not parse: {e}"));
    assert_eq!(&again, p, "{line}");
    assert_eq!(formats::to_text_format_one_line(&again), line);
}

/// The protobuf text format: whatever parses as a ShapeProto (or a
/// LayoutProto) is written to text that parses to an equal message, and
/// writing that is a fixed point; a ShapeProto that converts to a `Shape`
/// gives the same shape after a trip through the shape's text format.
pub fn text_format_roundtrip(data: &[u8]) {
    let Ok(input) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(p) = formats::from_text_format::<ShapeProto>(input) {
        text_format_fixed_point(&p);
        assert_eq!(ShapeProto::decode(&p.encode_to_vec()[..]).as_ref(), Ok(&p));
        if let Ok(shape) = Shape::try_from(&p) {
            let text = shape.to_text_format();
            let again = Shape::from_text_format(&text)
                .unwrap_or_else(|e| panic!("text format of {shape} does not convert back: {e}"));
            assert_eq!(again, shape);
        }
    }
    if let Ok(p) = formats::from_text_format::<LayoutProto>(input) {
        text_format_fixed_point(&p);
        assert_eq!(LayoutProto::decode(&p.encode_to_vec()[..]).as_ref(), Ok(&p));
    }
}

/// Reads the fuzz input as a stream of choices; zeros once it runs out.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn byte(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&b, rest)) => {
                self.0 = rest;
                b
            }
            None => 0,
        }
    }

    /// A number below `n` (`n > 0`).
    fn below(&mut self, n: usize) -> usize {
        usize::from(self.byte()) % n
    }

    fn pick<T: Copy>(&mut self, from: &[T]) -> T {
        from[self.below(from.len())]
    }

    /// A number in `0..n` (`n > 0`), from eight bytes.
    fn index_below(&mut self, n: i64) -> i64 {
        let mut v = 0u64;
        for _ in 0..8 {
            v = (v << 8) | u64::from(self.byte());
        }
        (v % n as u64) as i64
    }
}

/// Element types of arrays, sub-byte ones included.
const TYPES: &[PrimitiveType] = &[
    PrimitiveType::Pred,
    PrimitiveType::S4,
    PrimitiveType::U4,
    PrimitiveType::S8,
    PrimitiveType::Bf16,
    PrimitiveType::F32,
    PrimitiveType::S64,
    PrimitiveType::C128,
];

/// Dimension sizes: small ones mostly, some that make sizes overflow.
const SIZES: &[i64] = &[
    0,
    1,
    1,
    2,
    2,
    3,
    3,
    4,
    5,
    7,
    8,
    13,
    16,
    127,
    128,
    129,
    1 << 20,
    1 << 31,
    1 << 40,
    i64::MAX,
];

/// Tile bounds, `*` included.
const BOUNDS: &[i64] = &[1, 2, 2, 3, 4, 8, 128, Tile::COMBINE_DIMENSION];

/// A valid array shape with a layout, built from the fuzz input: up to
/// rank 6, a permutation for minor_to_major, up to three tiles, dynamic
/// (bounded) dimensions, `E(n)` and `L(n)`. `None` when the input describes
/// a shape that validation rejects (sizes that overflow, tiles on a type
/// that cannot have them, ...).
fn array_shape(b: &mut Bytes<'_>) -> Option<ArrayShape> {
    let rank = b.below(7);
    let t = b.pick(TYPES);
    let dims: Vec<i64> = (0..rank).map(|_| b.pick(SIZES)).collect();
    let dynamic: Vec<bool> = (0..rank).map(|_| b.byte() < 32).collect();
    let layout = layout(b, rank)?;
    ArrayShape::from_parts(t, dims, dynamic, Some(layout)).ok()
}

/// A layout for `rank` dimensions: a permutation, up to three tiles, and
/// sometimes `E(n)` and `L(n)`.
fn layout(b: &mut Bytes<'_>, rank: usize) -> Option<Layout> {
    let mut minor_to_major: Vec<i64> = (0..rank as i64).collect();
    for i in (1..rank).rev() {
        minor_to_major.swap(i, b.below(i + 1));
    }
    let mut layout = Layout::new(minor_to_major);
    let mut tiles = Vec::new();
    for _ in 0..b.below(4) {
        let len = 1 + b.below(rank + 2);
        let bounds: Vec<i64> = (0..len).map(|_| b.pick(BOUNDS)).collect();
        tiles.push(Tile::new(bounds).ok()?);
    }
    layout = layout.with_tiles(tiles);
    if b.byte() < 48 {
        layout = layout.with_element_size_in_bits(b.pick(&[1, 2, 4, 8, 16]));
    }
    if b.byte() < 48 {
        layout = layout
            .with_tail_padding_alignment_in_elements(b.pick(&[1, 2, 3, 8, 1024]))
            .ok()?;
    }
    Some(layout)
}

/// Index math on an arbitrary valid array shape and index:
/// `index_util`'s linear and multidimensional indices are inverses, a
/// `TiledLayout` maps an element's offset back to it, every slot is an
/// element or padding consistently with `offset`, and without tiles
/// `tiling` and `index_util` agree.
pub fn index_math(data: &[u8]) {
    let mut b = Bytes(data);
    let Some(shape) = array_shape(&mut b) else {
        return;
    };
    index_checks(&shape, &mut b);
}

/// [`index_math`]'s checks on a shape read from HLO text (the text, a zero
/// byte, then the choices of the index and slot): the layouts the parser
/// accepts, with whatever tiles, `E(n)`, `L(n)`, `S(n)` and dynamic
/// dimensions the text gives, not only those `array_shape` builds. Text
/// that does not parse, or parses to a tuple, a shape without a layout or
/// one with an unbounded dynamic dimension, is left to `shape_string`.
pub fn index_text(data: &[u8]) {
    let (text, choices) = match data.iter().position(|&c| c == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &[][..]),
    };
    let Ok(text) = std::str::from_utf8(text) else {
        return;
    };
    let Ok(xla_shape::Shape::Array(shape)) = text.parse::<xla_shape::Shape>() else {
        return;
    };
    // XLA's ElementsIn, and so the index math, is undefined for an
    // unbounded dynamic dimension (`f32[?]`), which only text can give.
    let unbounded = (0..shape.dimensions().len()).any(|i| shape.is_unbounded_dynamic_dimension(i));
    if shape.layout().is_none() || unbounded {
        return;
    }
    index_checks(&shape, &mut Bytes(choices));
}

/// The checks of [`index_math`] on `shape`, with an index and a slot
/// chosen by `b`.
fn index_checks(shape: &ArrayShape, b: &mut Bytes<'_>) {
    let shape = shape.clone();
    let dims = shape.dimensions().to_vec();
    let count = shape_util::elements_in(&shape).expect("a valid shape has an element count");
    // A multidimensional index from the input, and its linear index.
    let index: Vec<i64> = dims
        .iter()
        .map(|&d| if d > 0 { b.index_below(d) } else { 0 })
        .collect();
    if count > 0 {
        assert!(index_util::index_in_bounds(&shape, &index));
        let linear = index_util::multidimensional_index_to_linear_index(&shape, &index)
            .expect("an index of the rank");
        assert!(
            (0..count).contains(&linear),
            "{linear} of {count} in {shape}"
        );
        assert_eq!(
            index_util::linear_index_to_multidimensional_index(&shape, linear).unwrap(),
            index
        );
        // And the other way, from a linear index.
        let l = b.index_below(count);
        let m = index_util::linear_index_to_multidimensional_index(&shape, l).unwrap();
        assert!(index_util::index_in_bounds(&shape, &m));
        assert_eq!(
            index_util::multidimensional_index_to_linear_index(&shape, &m).unwrap(),
            l
        );
        // BumpIndices steps through row-major order.
        let row_major: Vec<i64> = (0..dims.len() as i64).rev().collect();
        let mut next = index.clone();
        let bumped = index_util::bump_indices(&shape, &mut next).unwrap();
        let before = index_util::multidimensional_index_to_linear_index_with_minor_to_major(
            &shape, &row_major, &index,
        )
        .unwrap();
        if bumped {
            let after = index_util::multidimensional_index_to_linear_index_with_minor_to_major(
                &shape, &row_major, &next,
            )
            .unwrap();
            assert_eq!(after, before + 1, "{index:?} -> {next:?} in {shape}");
        } else {
            assert_eq!(before, count - 1);
            assert_eq!(next, index);
        }
    } else {
        assert!(index_util::linear_index_to_multidimensional_index(&shape, 0).is_err());
    }

    let Ok(tiled) = TiledLayout::new(&shape) else {
        return;
    };
    assert_eq!(tiled.element_count(), count);
    assert!(tiled.slot_count() >= tiled.tiled_element_count());
    assert!(tiled.tiled_element_count() >= count);
    assert!(tiled.byte_size() >= tiled.unpadded_byte_size());
    // The tiles' roundings account for the tiled count: count times every
    // rounded / size (checked where the products fit i128).
    let product = |f: fn(&xla_shape::tiling::Rounding) -> i64, start: i64| {
        tiled
            .roundings()
            .iter()
            .try_fold(i128::from(start), |acc, r| {
                acc.checked_mul(i128::from(f(r)))
            })
    };
    if count > 0
        && let (Some(num), Some(den)) = (product(|r| r.rounded, count), product(|r| r.size, 1))
        && let Some(lhs) = i128::from(tiled.tiled_element_count()).checked_mul(den)
    {
        assert_eq!(lhs, num, "{tiled}: {:?}", tiled.roundings());
    }
    if count > 0 {
        let offset = tiled.offset(&index).expect("an index in bounds");
        assert!((0..tiled.slot_count()).contains(&offset));
        assert_eq!(tiled.slot(offset).unwrap(), Slot::Element(index.clone()));
        if shape.layout().is_some_and(|l| l.tiles().is_empty()) {
            let linear =
                index_util::multidimensional_index_to_linear_index(&shape, &index).unwrap();
            assert_eq!(offset, linear, "{index:?} in {shape}");
        }
    }
    if tiled.slot_count() > 0 {
        let offset = b.index_below(tiled.slot_count());
        match tiled.slot(offset).unwrap() {
            Slot::Element(i) => assert_eq!(tiled.offset(&i).unwrap(), offset, "{tiled}"),
            Slot::Padding => {
                let untiled = shape.layout().is_some_and(|l| l.tiles().is_empty());
                assert!(!untiled || offset >= count, "{offset} in {tiled}");
            }
        }
    }
    assert!(tiled.slot(-1).is_err());
    assert!(tiled.slot(tiled.slot_count()).is_err());
}

/// The text of an HLO module: the scan never panics, finds shapes in order
/// and inside the text, and every shape it finds parses from its own text
/// to the same shape.
pub fn hlo_scan(data: &[u8]) {
    let Ok(input) = std::str::from_utf8(data) else {
        return;
    };
    let mut last_start = None;
    for found in text::shapes_in_hlo(input) {
        assert_eq!(&input[found.range.clone()], found.text);
        assert!(
            last_start.is_none_or(|s| s < found.range.start),
            "shapes out of order at {:?}",
            found.range
        );
        last_start = Some(found.range.start);
        if let Ok(shape) = &found.shape {
            let again: Shape = found.text.parse().unwrap_or_else(|e| {
                panic!("found shape {:?} does not parse alone: {e}", found.text)
            });
            assert_eq!(&again, shape, "{}", found.text);
        }
    }
}

/// The most slots or bytes a relayout check copies, so that a run stays
/// fast; larger arrays are only planned.
const MAX_COPY: i64 = 1 << 14;

/// Bit `k` of a buffer: bit `k % 8` of byte `k / 8`, least significant
/// first, as `relayout` packs sub-byte elements.
fn bit(buf: &[u8], k: usize) -> bool {
    buf[k / 8] >> (k % 8) & 1 == 1
}

fn set_bit(buf: &mut [u8], k: usize, v: bool) {
    if v {
        buf[k / 8] |= 1 << (k % 8);
    } else {
        buf[k / 8] &= !(1 << (k % 8));
    }
}

/// The per-element reference of a relayout: a zeroed destination, then
/// for every element the low `min(src_bits, dst_bits)` bits copied, one
/// by one, from bit `src_bit(index)` to the element's slot.
fn reference_relayout(
    dst: &TiledLayout,
    src: &[u8],
    src_bits: usize,
    src_bit: impl Fn(&[i64]) -> usize,
) -> Vec<u8> {
    let db = dst.element_size_in_bits() as usize;
    let mut out = vec![0u8; dst.byte_size() as usize];
    let dims = dst.dimensions().to_vec();
    for_each_index(&dims, |index| {
        let s = src_bit(index);
        let d = dst.offset(index).expect("an index in bounds") as usize * db;
        for k in 0..src_bits.min(db) {
            set_bit(&mut out, d + k, bit(src, s + k));
        }
    });
    out
}

/// Calls `f` on every index of `dims` in row-major order.
fn for_each_index(dims: &[i64], mut f: impl FnMut(&[i64])) {
    if dims.contains(&0) {
        return;
    }
    let mut index = vec![0i64; dims.len()];
    loop {
        f(&index);
        let mut k = dims.len();
        loop {
            if k == 0 {
                return;
            }
            k -= 1;
            index[k] += 1;
            if index[k] < dims[k] {
                break;
            }
            index[k] = 0;
        }
    }
}

/// Buffer contents from the input: a byte pattern that differs between
/// neighbours, so that a misplaced element shows.
fn buffer(b: &mut Bytes<'_>, len: usize) -> Vec<u8> {
    let seed = b.byte();
    (0..len)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed) ^ (i >> 8) as u8)
        .collect()
}

/// A buffer length: mostly `need`, sometimes one off or empty.
fn length(b: &mut Bytes<'_>, need: usize) -> usize {
    match b.below(8) {
        0 => need + 1,
        1 => need.saturating_sub(1),
        2 => 0,
        _ => need,
    }
}

/// Strides for `rank` dimensions: small ones of either sign mostly, some
/// huge.
fn view_strides(b: &mut Bytes<'_>, rank: usize) -> Vec<i64> {
    const STRIDES: &[i64] = &[
        0,
        1,
        1,
        2,
        3,
        4,
        6,
        8,
        12,
        16,
        64,
        -1,
        -2,
        -8,
        1 << 31,
        1 << 59,
        1 << 62,
        i64::MAX,
        i64::MIN,
    ];
    (0..rank).map(|_| b.pick(STRIDES)).collect()
}

/// `relayout` between two layouts of an arbitrary array, and from an
/// arbitrary strided view (negative, zero and huge strides, any byte
/// offset): planning never panics, a wrong buffer length is a
/// `BufferSize` error, and the copy equals a per-element reference,
/// padding zeroed, for arrays of up to 16 KiB.
pub fn relayout(data: &[u8]) {
    let mut b = Bytes(data);
    let Some(src) = array_shape(&mut b) else {
        return;
    };
    let Some(dst_layout) = layout(&mut b, src.rank()) else {
        return;
    };
    let Ok(dst) = src.clone().with_layout(Some(dst_layout)) else {
        return;
    };
    let (Ok(src_t), Ok(dst_t)) = (TiledLayout::new(&src), TiledLayout::new(&dst)) else {
        assert!(relayout::Relayout::new(&src, &dst).is_err());
        return;
    };
    let small = |t: &TiledLayout| t.slot_count() <= MAX_COPY && t.byte_size() <= MAX_COPY;
    if b.byte() < 128 {
        let Ok(plan) = relayout::Relayout::new(&src, &dst) else {
            return;
        };
        assert_eq!(plan.src_byte_size() as i64, src_t.byte_size());
        assert_eq!(plan.dst_byte_size() as i64, dst_t.byte_size());
        if !small(&src_t) || !small(&dst_t) {
            return;
        }
        let need = plan.src_byte_size();
        let len = length(&mut b, need);
        let bytes = buffer(&mut b, len);
        let mut out = vec![0xa5u8; plan.dst_byte_size()];
        let ran = plan.run(&bytes, &mut out);
        if len != need {
            assert_eq!(ran.unwrap_err().kind(), ErrorKind::BufferSize);
            return;
        }
        ran.unwrap_or_else(|e| panic!("{src} -> {dst}: {e}"));
        let sb = src_t.element_size_in_bits() as usize;
        let expected = reference_relayout(&dst_t, &bytes, sb, |i| {
            src_t.offset(i).unwrap() as usize * sb
        });
        assert!(out == expected, "{src} -> {dst}");
        assert_eq!(
            relayout::relayout_to_vec(&src, &bytes, &dst).unwrap(),
            expected
        );
    } else {
        // A strided view of the same dimensions, elements of `ByteWidth`
        // bytes.
        let e = src.element_type().byte_width().unwrap_or(1);
        let st = view_strides(&mut b, src.rank());
        let offset = b.pick(&[0usize, 1, 7, 64, 1 << 40]);
        let Ok(view) = relayout::StridedSource::new(
            src.element_type(),
            src.dimensions().to_vec(),
            st.iter().map(|&s| s.saturating_mul(e)).collect::<Vec<_>>(),
        ) else {
            return;
        };
        let view = view.with_byte_offset(offset);
        let Ok(plan) = relayout::Relayout::from_strided(&view, &dst) else {
            return;
        };
        assert_eq!(plan.dst_byte_size() as i64, dst_t.byte_size());
        if plan.src_byte_size() > MAX_COPY as usize || !small(&dst_t) {
            return;
        }
        let need = plan.src_byte_size();
        let len = length(&mut b, need);
        let bytes = buffer(&mut b, len);
        let mut out = vec![0x5au8; plan.dst_byte_size()];
        let ran = plan.run(&bytes, &mut out);
        if len < need {
            assert_eq!(ran.unwrap_err().kind(), ErrorKind::BufferSize);
            return;
        }
        ran.unwrap_or_else(|err| panic!("{view:?} -> {dst}: {err}"));
        let expected = reference_relayout(&dst_t, &bytes, 8 * e as usize, |i| {
            let byte = i
                .iter()
                .zip(view.byte_strides())
                .fold(i128::from(view.byte_offset()), |acc, (&i, &s)| {
                    acc + i128::from(i) * i128::from(s)
                });
            8 * usize::try_from(byte).expect("a strided element inside its buffer")
        });
        assert!(out == expected, "{view:?} -> {dst}");
    }
}

/// The strides functions on arbitrary sizes and strides (huge and
/// negative ones included) never panic, and agree with a per-element
/// reference where there are at most 4096 elements: the view kind, the
/// DirectML buffer size, a layout's element strides, strides back to the
/// layout, and (feature `ndarray`) an `ndarray` view of an array buffer.
pub fn strides(data: &[u8]) {
    use xla_shape::strides::{
        ViewKind, byte_strides, classify_view, dml_buffer_tensor_size, dml_view, element_strides,
        layout_from_byte_strides, layout_from_strides,
    };
    let mut b = Bytes(data);
    // A view: sizes and strides, both possibly huge or negative.
    let rank = b.below(6);
    let sizes: Vec<i64> = (0..rank).map(|_| b.pick(SIZES)).collect();
    let st = view_strides(&mut b, rank);
    let t = b.pick(TYPES);
    let count = sizes
        .iter()
        .try_fold(1i64, |acc, &s| acc.checked_mul(s.max(0)));
    // Interleaved strides over up to 4 Mi elements are enumerated (a
    // second each): only views small enough to check, and those too large
    // to enumerate, keep the runs fast.
    let enumerated = (0..rank)
        .filter(|&d| sizes[d] > 1 && st[d] > 0)
        .try_fold(1i64, |acc, d| acc.checked_mul(sizes[d]));
    let kind = match (count, enumerated) {
        (Some(c), _) if c <= 4096 => Some(classify_view(&sizes, &st)),
        (_, Some(e)) if e > 4096 && e <= 1 << 22 => None,
        _ => Some(classify_view(&sizes, &st)),
    };
    let size = dml_buffer_tensor_size(t, &sizes, Some(&st));
    let _ = dml_buffer_tensor_size(t, &sizes, None);
    let _ = layout_from_strides(&sizes, &st);
    let _ = layout_from_byte_strides(t, &sizes, &st);
    let valid = sizes.iter().chain(&st).all(|&v| v >= 0);
    if valid && count.is_some_and(|c| c <= 4096) {
        let count = count.unwrap();
        // Offsets over the dimensions larger than 1 with a non-zero
        // stride: those that can overlap.
        let rest: Vec<i64> = (0..rank)
            .map(|d| if st[d] > 0 { sizes[d] } else { sizes[d].min(1) })
            .collect();
        let mut sorted: Vec<i128> = Vec::new();
        for_each_index(&rest, |i| {
            sorted.push(
                i.iter()
                    .zip(&st)
                    .map(|(&i, &s)| i128::from(i) * i128::from(s))
                    .sum(),
            )
        });
        sorted.sort_unstable();
        let shared = sorted.windows(2).any(|w| w[0] == w[1]);
        let zero: Vec<usize> = (0..rank).filter(|&d| sizes[d] > 1 && st[d] == 0).collect();
        let kind = kind
            .expect("classified below 4096 elements")
            .expect("a view of at most 4096 elements is classified");
        let expected = if count == 0 {
            ViewKind::Packed
        } else if shared {
            match &kind {
                ViewKind::Overlapping { dims } => ViewKind::Overlapping { dims: dims.clone() },
                _ => panic!("{sizes:?} {st:?} overlap, not {kind:?}"),
            }
        } else if !zero.is_empty() {
            ViewKind::Broadcast { dims: zero }
        } else if sorted.last() == Some(&(i128::from(count) - 1)) {
            ViewKind::Packed
        } else {
            ViewKind::Padded
        };
        assert_eq!(kind, expected, "{sizes:?} {st:?}");
        // DMLCalcBufferTensorSize: one past the last element, in bits,
        // rounded up to bytes and then to 4 bytes.
        let bits: i128 = if t.is_sub_byte_non_pred() {
            i128::from(t.bit_width().unwrap_or(8))
        } else {
            8 * i128::from(t.byte_width().unwrap_or(1))
        };
        let end = sorted.last().map_or(0, |&o| o + 1);
        let bytes = ((end * bits + 7) / 8 + 3) / 4 * 4;
        match size {
            Ok(n) => assert_eq!(i128::from(n), bytes),
            Err(e) => {
                assert_eq!(e.kind(), ErrorKind::Overflow);
                assert!(bytes > i128::from(u64::MAX));
            }
        }
    }

    // A layout's strides, against its offsets.
    let Some(shape) = array_shape(&mut b) else {
        return;
    };
    let Ok(tiled) = TiledLayout::new(&shape) else {
        return;
    };
    let _ = byte_strides(&shape);
    let _ = dml_view(&shape);
    let Ok(es) = element_strides(&shape) else {
        return;
    };
    let dims = tiled.dimensions().to_vec();
    if tiled.element_count() > 4096 {
        return;
    }
    for_each_index(&dims, |i| {
        let by_strides: i64 = i.iter().zip(&es).map(|(&i, &s)| i * s).sum();
        assert_eq!(tiled.offset(i).unwrap(), by_strides, "{shape} at {i:?}");
    });
    if shape.layout().is_some_and(|l| l.tiles().is_empty()) && !dims.contains(&0) {
        let back = layout_from_strides(&dims, &es).expect("a dense layout's own strides");
        let again = shape.clone().with_layout(Some(back)).unwrap();
        assert_eq!(element_strides(&again).unwrap(), es, "{shape}");
    }
    #[cfg(feature = "ndarray")]
    ndarray_views(&mut b, &shape, &tiled, &es);
}

/// An `ndarray` view of a buffer of `shape` holds, at every index, the
/// element at that index's offset; wrong lengths are `BufferSize`.
#[cfg(feature = "ndarray")]
fn ndarray_views(b: &mut Bytes<'_>, shape: &ArrayShape, tiled: &TiledLayout, es: &[i64]) {
    use xla_shape::strides::ndarray_view;
    fn check<T: xla_shape::strides::ViewElement + PartialEq + std::fmt::Debug>(
        shape: &ArrayShape,
        tiled: &TiledLayout,
        bytes: &[u8],
        need: usize,
        from_le: impl Fn(&[u8]) -> T,
    ) {
        let Ok(view) = ndarray_view::<T>(shape, bytes) else {
            // Refused: a type that does not fit, or a wrong length.
            let size = std::mem::size_of::<T>();
            let fits =
                T::views(shape.element_type()) && tiled.element_size_in_bits() == 8 * size as i64;
            // ndarray holds no array whose non-zero lengths multiply past
            // isize::MAX, even with no element.
            let representable = tiled
                .dimensions()
                .iter()
                .filter(|&&d| d != 0)
                .try_fold(1i64, |acc, &d| acc.checked_mul(d))
                .is_some();
            assert!(
                !fits || bytes.len() != need || !representable,
                "{shape}: a view refused"
            );
            return;
        };
        assert_eq!(bytes.len(), need, "{shape}");
        let dims = tiled.dimensions().to_vec();
        assert_eq!(
            view.shape(),
            dims.iter().map(|&d| d as usize).collect::<Vec<_>>()
        );
        let size = std::mem::size_of::<T>();
        for_each_index(&dims, |i| {
            let o = tiled.offset(i).unwrap() as usize * size;
            let at: Vec<usize> = i.iter().map(|&v| v as usize).collect();
            assert_eq!(
                view[at.as_slice()],
                from_le(&bytes[o..o + size]),
                "{shape} {i:?}"
            );
        });
    }
    let _ = es;
    if tiled.byte_size() > MAX_COPY {
        return;
    }
    let need = tiled.byte_size() as usize;
    let len = length(b, need);
    // 8-byte aligned storage, viewed as bytes.
    let words = buffer(b, len.div_ceil(8) * 8 + 8);
    let mut store = vec![0u64; words.len() / 8];
    for (w, c) in store.iter_mut().zip(words.chunks(8)) {
        *w = u64::from_le_bytes(c.try_into().unwrap());
    }
    // SAFETY: u64 has no padding bytes; `len` bytes lie inside `store`.
    let bytes = unsafe { std::slice::from_raw_parts(store.as_ptr().cast::<u8>(), len) };
    check::<u8>(shape, tiled, bytes, need, |c| c[0]);
    check::<u16>(shape, tiled, bytes, need, |c| {
        u16::from_le_bytes(c.try_into().unwrap())
    });
    check::<u32>(shape, tiled, bytes, need, |c| {
        u32::from_le_bytes(c.try_into().unwrap())
    });
    check::<u64>(shape, tiled, bytes, need, |c| {
        u64::from_le_bytes(c.try_into().unwrap())
    });
    check::<i8>(shape, tiled, bytes, need, |c| c[0] as i8);
    check::<i32>(shape, tiled, bytes, need, |c| {
        i32::from_le_bytes(c.try_into().unwrap())
    });
    check::<i64>(shape, tiled, bytes, need, |c| {
        i64::from_le_bytes(c.try_into().unwrap())
    });
}

/// The interop conversions on arbitrary input: DLPack types and strides,
/// PJRT buffer types and memory layouts, NumPy type strings. Nothing
/// panics; what converts converts back; a shape imported from DLPack has
/// the strides it was given (where they are compact), and an exported
/// one imports as itself.
pub fn interop(data: &[u8]) {
    use xla_shape::interop::{dlpack, numpy, pjrt};
    let mut b = Bytes(data);
    // Element types both ways.
    let t = b.pick(&PrimitiveType::ALL);
    if let Ok(d) = dlpack::to_dl_data_type(t) {
        assert_eq!(dlpack::from_dl_data_type(d).unwrap(), t);
    }
    if let Ok(n) = pjrt::to_buffer_type(t)
        && t != PrimitiveType::Invalid
    {
        assert_eq!(pjrt::from_buffer_type(n).unwrap(), t);
    }
    // Some dtypes export but do not import (jaxlib refuses `object`).
    if let Ok(d) = numpy::to_dtype(t)
        && let Ok(back) = numpy::from_dtype(d)
    {
        assert_eq!(back, t);
        assert_eq!(numpy::from_dtype_name(d.name).unwrap(), t);
    }
    let raw = dlpack::DLDataType::new(b.byte(), b.byte(), u16::from(b.byte()) % 3);
    let _ = dlpack::from_dl_data_type(raw);
    let _ = raw.to_string();
    let n = i32::from(b.byte() as i8);
    let _ = pjrt::from_buffer_type(n);
    let _ = pjrt::buffer_type_name(n);
    let text_len = b.below(8);
    let text: String = (0..text_len)
        .map(|_| char::from(b.pick(b"<>|=bifucVOW0124816x")))
        .collect();
    let _ = numpy::from_dtype_str(&text);
    let _ = numpy::from_dtype_name(&text);

    // DLPack tensors with arbitrary sizes and strides.
    let rank = b.below(6);
    let sizes: Vec<i64> = (0..rank).map(|_| b.pick(SIZES)).collect();
    let st = view_strides(&mut b, rank);
    let tensor = dlpack::DlpackTensor::new(raw, sizes.clone()).with_strides(st.clone());
    if let Ok(shape) = tensor.to_array_shape() {
        let count = sizes.iter().try_fold(1i64, |a, &s| a.checked_mul(s));
        if let Ok(es) = xla_shape::strides::element_strides(&shape) {
            // Compact strides come back as given for every dimension of
            // more than one element.
            if count.is_some_and(|c| c > 0) {
                for d in 0..rank {
                    if sizes[d] > 1 {
                        assert_eq!(es[d], st[d], "{shape} from {sizes:?} {st:?}");
                    }
                }
            }
        }
    }
    let _ = dlpack::strides_to_layout(&sizes, &st);
    // An exported shape imports as itself, when it has elements (the
    // exported strides of the dimensions more major than one of size 0
    // are 0, which the import reads as broadcasting).
    if let Some(shape) = array_shape(&mut b) {
        let elements = shape_util::elements_in(&shape).is_ok_and(|n| n > 0);
        if let Ok(exported) = dlpack::DlpackTensor::from_array_shape(&shape)
            && elements
        {
            let back = exported
                .to_array_shape()
                .expect("an exported tensor imports");
            assert_eq!(back.element_type(), shape.element_type());
            assert_eq!(back.dimensions(), shape.dimensions());
            // The same strides, but for dimensions of size 1, whose
            // stride DLPack leaves free.
            let again = xla_shape::strides::element_strides(&back).unwrap();
            let given = exported.strides.clone().unwrap();
            for (d, &n) in shape.dimensions().iter().enumerate() {
                if n > 1 {
                    assert_eq!(again[d], given[d], "{shape}: dimension {d}");
                }
            }
        }
        // PJRT's tiled form keeps the permutation and the tiles.
        if let Some(layout) = shape.layout() {
            let tiled = pjrt::MemoryLayout::from_layout(layout);
            let back = tiled.to_layout().expect("a layout's own tiled form");
            assert_eq!(back.minor_to_major(), layout.minor_to_major());
            assert_eq!(back.tiles(), layout.tiles());
            if let Ok(strided) = pjrt::MemoryLayout::strides_of(&shape) {
                assert!(strided.to_layout().is_err());
            }
        }
    }
    // PJRT memory layouts from arbitrary arrays.
    let mtm: Vec<i64> = (0..b.below(5)).map(|_| i64::from(b.byte() as i8)).collect();
    let tile_dims: Vec<i64> = (0..b.below(6)).map(|_| b.pick(BOUNDS)).collect();
    let tile_dim_sizes: Vec<usize> = (0..b.below(4)).map(|_| b.below(4)).collect();
    let layout = pjrt::MemoryLayout::Tiled {
        minor_to_major: mtm,
        tile_dims,
        tile_dim_sizes,
    };
    let _ = layout.to_layout();
    let _ = pjrt::build_shape(n, &sizes, Some(&layout));
    let _ = pjrt::layout_from_byte_strides(t, &sizes, &st);
}

/// The memory report of `module`: nothing panics; the totals are the sums
/// of the rows, overall, by memory space and by element type (its JSON and
/// table are the CLI's, checked by `cli_json`).
fn memory_report(module: &xla_shape::hlo::HloModule) {
    use xla_shape::hlo::{BufferRow, MemoryReport, Total};
    let Ok(report) = MemoryReport::new(module) else {
        return;
    };
    assert_eq!(report.rows.len(), module.instructions().count());
    let sum = |rows: &mut dyn Iterator<Item = &BufferRow<'_>>| {
        rows.fold(Total::default(), |t, r| Total {
            buffers: t.buffers + 1,
            byte_size: t.byte_size + r.sizes.byte_size.unwrap_or(0),
            padded_byte_size: t.padded_byte_size + r.sizes.padded_byte_size.unwrap_or(0),
        })
    };
    let totals = &report.totals;
    assert_eq!(sum(&mut report.rows.iter()), totals.total);
    for (space, total) in &totals.by_memory_space {
        let rows = &mut report
            .rows
            .iter()
            .filter(|r| r.sizes.memory_space == *space);
        assert_eq!(sum(rows), *total, "memory space {space}");
    }
    for (name, total) in &totals.by_element_type {
        let rows = &mut report
            .rows
            .iter()
            .filter(|r| r.sizes.element_type.lowercase_name() == *name);
        assert_eq!(sum(rows), *total, "element type {name}");
    }
    let groups = |m: &mut dyn Iterator<Item = &Total>| m.map(|t| t.buffers).sum::<usize>();
    assert_eq!(
        groups(&mut totals.by_memory_space.values()),
        report.rows.len()
    );
    assert_eq!(
        groups(&mut totals.by_element_type.values()),
        report.rows.len()
    );
    let largest = report.largest(3);
    assert!(largest.len() <= 3);
    assert!(
        largest
            .windows(2)
            .all(|w| w[0].sizes.padded_byte_size.unwrap_or(-1)
                >= w[1].sizes.padded_byte_size.unwrap_or(-1))
    );
    // The streaming accumulator, fed the same rows, holds the same totals
    // and the same largest rows.
    let mut tally = xla_shape::hlo::BufferTally::new(3);
    for (i, row) in module.buffers().enumerate() {
        tally
            .add(&row.sizes, || i)
            .expect("the report's totals fit");
    }
    let (totals, kept) = tally.finish();
    assert_eq!(&totals, &report.totals);
    let expected: Vec<_> = largest.iter().map(|r| r.instruction as *const _).collect();
    let kept: Vec<_> = kept
        .iter()
        .map(|&i| report.rows[i].instruction as *const _)
        .collect();
    assert_eq!(kept, expected);
}

/// HLO module text: reading it never panics; every instruction's location
/// is on its line and points at the text of its shape (the scan finds that
/// shape first there); the memory report adds up.
pub fn hlo_module(data: &[u8]) {
    use xla_shape::hlo::HloModule;
    let Ok(input) = std::str::from_utf8(data) else {
        let _ = HloModule::read(data);
        return;
    };
    let Ok(module) = HloModule::from_text(input) else {
        return;
    };
    let located = |at: xla_shape::Location| assert_located(input, at);
    for computation in &module.computations {
        if let Some(at) = computation.location {
            located(at);
        }
        assert!(
            computation
                .root
                .is_none_or(|r| r < computation.instructions.len())
        );
    }
    assert!(module.entry.is_none_or(|e| e < module.computations.len()));
    for (_, instruction) in module.instructions() {
        let at = instruction
            .location
            .expect("a text instruction has a location");
        located(at);
        // The shape's text runs from the location to the opcode (the
        // instruction's opcode and `(`): one of the places the opcode
        // occurs ends the shape's text.
        let line_end = input[at.offset..]
            .find('\n')
            .map_or(input.len(), |n| at.offset + n);
        let rest = &input[at.offset..line_end];
        let call = format!("{}(", instruction.opcode);
        let mut ends = rest.match_indices(&call).map(|(k, _)| k);
        let shape_text = |k: usize| rest[..k].trim_end_matches([' ', '\t']);
        match &instruction.shape {
            Ok(shape) => assert!(
                ends.any(|k| text::parse_shape(shape_text(k)).as_ref() == Ok(shape)),
                "{shape} is not the text at {at:?}: {rest:.80}"
            ),
            Err(rejected) => assert!(
                ends.any(|k| shape_text(k) == rejected.written),
                "{:?} is not the text at {at:?}: {rest:.80}",
                rejected.written
            ),
        }
    }
    memory_report(&module);
}

/// Asserts that `at` is the line and column of its offset in `input`.
fn assert_located(input: &str, at: xla_shape::Location) {
    assert!(at.offset <= input.len(), "{at:?} past the text");
    let line_start = input[..at.offset].rfind('\n').map_or(0, |n| n + 1);
    assert_eq!(at.column, at.offset - line_start, "{at:?}");
    assert_eq!(
        at.line,
        1 + input[..at.offset].matches('\n').count(),
        "{at:?}"
    );
}

/// The message an `hlo_proto` input is read as: its first byte picks one.
fn module_message(choice: u8) -> Option<xla_shape::hlo::ModuleMessage> {
    use xla_shape::hlo::ModuleMessage;
    match choice % 4 {
        0 => Some(ModuleMessage::Module),
        1 => Some(ModuleMessage::Proto),
        2 => Some(ModuleMessage::Snapshot),
        _ => None,
    }
}

/// `HloModuleProto`, `HloProto` or `HloSnapshot` bytes (the first byte
/// picks which, or detection as `HloModule::read` does): nothing panics;
/// what the lossless path decodes re-encodes as Google's runtime writes it,
/// and those bytes re-encode to themselves; where the module view reads
/// both the input and that re-encoding, it reads the same module; the
/// memory report adds up.
pub fn hlo_proto(data: &[u8]) {
    use xla_shape::formats::LosslessMessage;
    use xla_shape::hlo::{HloModule, ModuleMessage};
    use xla_shape::proto::DESCRIPTOR_POOL;
    let Some((&choice, bytes)) = data.split_first() else {
        return;
    };
    let message = module_message(choice).unwrap_or_else(|| ModuleMessage::detect(bytes));
    let view = match module_message(choice) {
        Some(m) => HloModule::from_proto(m, bytes),
        None => HloModule::read(bytes),
    };
    if let Ok(module) = &view {
        memory_report(module);
    }
    let descriptor = DESCRIPTOR_POOL
        .get_message_by_name(message.full_name())
        .expect("the module messages are in the schema");
    let Ok(lossless) = LosslessMessage::decode(descriptor.clone(), bytes) else {
        return;
    };
    let canonical = lossless.encode_to_vec();
    assert_eq!(canonical.len(), lossless.encoded_len());
    let again =
        LosslessMessage::decode(descriptor, &canonical[..]).expect("the lossless encoding decodes");
    assert_eq!(
        again.encode_to_vec(),
        canonical,
        "re-encoding is not a fixed point"
    );
    let from_canonical = HloModule::from_proto(message, &canonical);
    if let (Ok(module), Ok(again)) = (&view, &from_canonical)
        && (module_message(choice).is_some() || module.source == again.source)
    {
        assert_eq!(module, again, "the view differs after re-encoding");
    }
}

/// A byte choosing how the rest is read (even: as `HloModule::read` reads
/// a file, so an `HloProto` brings its buffer assignment; odd: as module
/// text), then a module: memory analysis never panics, exact or estimated.
/// Both keep their invariants: `peak()` is arguments + outputs +
/// temporaries - aliased; the timeline has at most `TIMELINE_STEPS` steps;
/// the peak buffers come largest first; the exact allocations by kind add
/// up to every allocation's bytes; the estimate's sizes are not negative,
/// its aliased bytes are arguments', and no step of its timeline holds more
/// than the peak (the block of temporaries holds every temporary live at
/// once).
pub fn memory(data: &[u8]) {
    use xla_shape::hlo::HloModule;
    use xla_shape::memory::{self, EstimateOptions, MemoryAnalysis, TIMELINE_STEPS};
    let Some((&choice, bytes)) = data.split_first() else {
        return;
    };
    let module = if choice % 2 == 0 {
        HloModule::read(bytes)
    } else {
        let Ok(text) = std::str::from_utf8(bytes) else {
            return;
        };
        HloModule::from_text(text)
    };
    let Ok(module) = module else {
        return;
    };
    let common = |a: &MemoryAnalysis| {
        assert!(a.timeline.len() <= TIMELINE_STEPS);
        assert!(a.peak_step().is_none_or(|k| k < a.timeline.len()));
        let peak = a
            .arguments
            .saturating_add(a.outputs)
            .saturating_add(a.temporaries)
            .saturating_sub(a.aliased);
        assert_eq!(a.peak(), peak);
        assert!(a.peak_buffers.windows(2).all(|w| w[0].bytes >= w[1].bytes));
    };
    if module.buffer_assignment.is_some()
        && let Ok(a) = memory::exact(&module)
    {
        common(&a);
        let by_kind: i128 = a.by_kind.iter().map(|t| t.bytes as i128).sum();
        assert_eq!(Some(by_kind), a.allocations_total.map(i128::from));
    }
    if let Ok(a) = memory::estimate(&module, &EstimateOptions::default()) {
        common(&a);
        assert!(a.allocations_total.is_none());
        assert!(a.arguments >= 0 && a.outputs >= 0 && a.temporaries >= 0);
        assert!(0 <= a.aliased && a.aliased <= a.arguments);
        let max = a.timeline.iter().map(|s| s.live).max();
        assert!(max.is_none_or(|m| m <= a.peak()), "{max:?} > {}", a.peak());
    }
}

/// A byte choosing the tiles assumed (none, `(8,128)` for every type, or
/// `(8,128)(2,1)` for bf16 and `(8,128)` for the rest), then a shape string
/// or a log with XLA's out-of-memory listings: explaining it never panics.
/// Every listed field is text of the log, on the entry's line or after
/// it, and entries come in the order of their lines; an explanation's
/// padded bytes are at least its unpadded bytes, and its causes multiply
/// them by at least 1; a suggested order pads less, and explaining the
/// shape a suggestion gives gives its figures;
/// the listing's figures agree exactly when ours print the same; a size
/// printed as XLA prints it agrees with itself.
pub fn padding(data: &[u8]) {
    use xla_shape::memory::{self, Change, PaddingOptions};
    let Some((&choice, bytes)) = data.split_first() else {
        return;
    };
    let Ok(input) = std::str::from_utf8(bytes) else {
        return;
    };
    let options = match choice % 3 {
        0 => PaddingOptions::new(),
        1 => PaddingOptions::new().with_tiles_text("(8,128)").unwrap(),
        _ => PaddingOptions::new()
            .with_tiles_text("(8,128)")
            .unwrap()
            .with_tiles_text("bf16=(8,128)(2,1)")
            .unwrap(),
    };
    let range = input.as_ptr() as usize..input.as_ptr() as usize + input.len() + 1;
    let inside = |s: &str| range.contains(&(s.as_ptr() as usize));
    let mut last_line = 0;
    let mut entries = 0usize;
    for entry in memory::padding_entries(input, &options) {
        let Ok(entry) = entry else {
            assert_eq!(entries, 0, "the error comes alone");
            continue;
        };
        entries += 1;
        if let Some(l) = &entry.listed {
            assert!(
                l.line >= last_line && l.line >= 1,
                "{} after {last_line}",
                l.line
            );
            last_line = l.line;
            for s in [
                l.size,
                l.shape,
                l.unpadded,
                l.extra,
                l.expansion,
                l.operator,
                l.label,
            ]
            .into_iter()
            .flatten()
            {
                assert!(inside(s), "{s:?} is not text of the input");
            }
            assert_eq!(entry.shape, l.shape);
        }
        let Some(Ok(p)) = &entry.explanation else {
            continue;
        };
        assert!(0 <= p.unpadded && p.unpadded <= p.padded, "{p:?}");
        assert!(p.causes.iter().all(|c| c.factor() >= 1.0), "{:?}", p.causes);
        for s in &p.suggestions {
            if let Change::Order { .. } = &s.change {
                assert!(s.padded < p.padded, "{s:?}");
            }
            let again = memory::explain_padding(&s.shape, &PaddingOptions::new())
                .expect("a suggested shape is explained");
            assert_eq!((again.padded, again.unpadded), (s.padded, s.unpadded));
        }
        if let Some(check) = entry.check() {
            for f in [&check.size, &check.unpadded, &check.extra]
                .into_iter()
                .flatten()
            {
                assert_eq!(f.agrees, f.printed == f.ours, "{f:?}");
            }
        }
    }
    // Sizes printed as XLA prints them read back as themselves.
    for chunk in bytes.chunks_exact(8).take(4) {
        let n = i64::from_le_bytes(chunk.try_into().unwrap());
        for binary in [false, true] {
            let printed = memory::human_readable_num_bytes(n, binary);
            assert!(memory::printed_size_agrees(&printed, n), "{n}: {printed}");
        }
    }
}

/// The files of the schema whose messages `any_message` reads.
const SCHEMA_FILES: &[&str] = &[
    "xla/xla_data.proto",
    "xla/service/hlo.proto",
    "xla/service/metrics.proto",
];

/// Every message of the schema's files, nested ones included, in the
/// pool's order.
fn schema_messages() -> Vec<prost_reflect::MessageDescriptor> {
    xla_shape::proto::DESCRIPTOR_POOL
        .all_messages()
        .filter(|m| SCHEMA_FILES.contains(&m.parent_file().name()))
        .collect()
}

/// `message`'s JSON (every style) and text format (both layouts) read
/// back as the same message, which writes the same again; its binary form
/// decodes losslessly to the same bytes.
fn formats_fixed_point(message: &prost_reflect::DynamicMessage) {
    use prost_reflect::ReflectMessage;
    use xla_shape::formats::LosslessMessage;
    let descriptor = message.descriptor();
    let bytes = message.encode_to_vec();
    let lossless = LosslessMessage::decode(descriptor.clone(), &bytes[..])
        .expect("prost's encoding of a message decodes losslessly");
    assert_eq!(lossless.encode_to_vec().len(), lossless.encoded_len());
    for options in [
        JsonOptions::new(),
        JsonOptions::new().pretty(true),
        JsonOptions::new().preserve_proto_field_names(true),
    ] {
        let json = formats::to_json_with(message, &options);
        assert_eq!(lossless.to_json(&options), json);
        let again = formats::from_json_dynamic(descriptor.clone(), &json)
            .unwrap_or_else(|e| panic!("written JSON {json} does not parse: {e}"));
        assert_eq!(formats::to_json_with(&again, &options), json);
    }
    for one_line in [false, true] {
        let write = |m: &prost_reflect::DynamicMessage| {
            if one_line {
                formats::to_text_format_one_line(m)
            } else {
                formats::to_text_format(m)
            }
        };
        let text = write(message);
        let again = formats::from_text_format_dynamic(descriptor.clone(), &text)
            .unwrap_or_else(|e| panic!("written text format {text:?} does not parse: {e}"));
        assert_eq!(write(&again), text);
    }
}

/// Any message of the schema (`xla_data.proto`, `hlo.proto`,
/// `metrics.proto`) read from binary, JSON or text format. The input is a
/// format byte (binary, JSON, text format, by its value modulo 3), the
/// message's full name, a zero byte and the message: a name that is not in
/// the schema picks a message by the sum of its bytes, so that any input
/// reads some message. Nothing panics; binary input decoded losslessly
/// re-encodes to bytes that re-encode to themselves; whatever reads is
/// written to JSON and text format that read back to the same message and
/// are written the same again, as with Google's runtime.
pub fn any_message(data: &[u8]) {
    use prost_reflect::MessageDescriptor;
    use xla_shape::formats::LosslessMessage;
    static MESSAGES: std::sync::LazyLock<Vec<MessageDescriptor>> =
        std::sync::LazyLock::new(schema_messages);
    let Some((format, rest)) = data.split_first() else {
        return;
    };
    let zero = rest.iter().position(|&b| b == 0).unwrap_or(rest.len());
    let (name, rest) = (&rest[..zero], rest.get(zero + 1..).unwrap_or_default());
    let descriptor = MESSAGES
        .iter()
        .find(|m| m.full_name().as_bytes() == name)
        .unwrap_or_else(|| {
            let sum: usize = name.iter().map(|&b| usize::from(b)).sum();
            &MESSAGES[sum % MESSAGES.len()]
        })
        .clone();
    let message = match format % 3 {
        0 => {
            let Ok(lossless) = LosslessMessage::decode(descriptor.clone(), rest) else {
                return;
            };
            let canonical = lossless.encode_to_vec();
            let again = LosslessMessage::decode(descriptor.clone(), &canonical[..])
                .expect("the lossless encoding decodes");
            assert_eq!(again.encode_to_vec(), canonical);
            let _ = lossless.to_json(&JsonOptions::new());
            let _ = lossless.to_text_format();
            lossless.without_unknown_fields().to_dynamic()
        }
        1 => {
            let Ok(text) = std::str::from_utf8(rest) else {
                return;
            };
            if let Some(long) = with_long_names(text) {
                json_reads_as_prost_reflect(&descriptor, &long);
            }
            let Ok(m) = formats::from_json_dynamic(descriptor, text) else {
                return;
            };
            m
        }
        _ => {
            let Ok(text) = std::str::from_utf8(rest) else {
                return;
            };
            if let Some(long) = with_long_names(text) {
                text_reads_as_prost_reflect(&descriptor, &long);
            }
            let Ok(m) = formats::from_text_format_dynamic(descriptor, text) else {
                return;
            };
            m
        }
    };
    formats_fixed_point(&message);
}

/// `text` with each byte 1 written as 4,096 `x`s and each byte 2 as
/// 65,536: names and strings long enough for the JSON and text-format
/// readers to replace them before parsing (`src/formats/elide.rs`);
/// `None` if it has neither.
fn with_long_names(text: &str) -> Option<String> {
    if !text.contains(['\u{1}', '\u{2}']) {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\u{1}' => out.extend(std::iter::repeat_n('x', 4096)),
            '\u{2}' => out.extend(std::iter::repeat_n('x', 65536)),
            c => out.push(c),
        }
    }
    Some(out)
}

/// A parser's message as the crate gives it: after `prefix`, cut at 4 KiB
/// (on a character boundary) and marked with `...`.
fn cut_message(prefix: &str, message: &dyn std::fmt::Display) -> String {
    let mut s = format!("{prefix}{message}");
    if s.len() > 4096 {
        let mut end = 4096;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        s.truncate(end);
        s.push_str("...");
    }
    s
}

/// The crate's text-format reader, which replaces long names and strings
/// before prost-reflect parses, reads `text` as prost-reflect alone does:
/// the same message, or the same error (cut as the crate cuts it).
fn text_reads_as_prost_reflect(descriptor: &prost_reflect::MessageDescriptor, text: &str) {
    let ours = formats::from_text_format_dynamic(descriptor.clone(), text);
    if matches!(&ours, Err(e) if e.to_string().contains("nesting exceeds")) {
        return;
    }
    let theirs = prost_reflect::DynamicMessage::parse_text_format(descriptor.clone(), text);
    match (ours, theirs) {
        (Ok(a), Ok(b)) => assert_eq!(formats::to_text_format(&a), formats::to_text_format(&b)),
        (Err(a), Err(b)) => assert_eq!(
            a.to_string(),
            cut_message("invalid text format message: ", &b),
            "{}",
            &text[..text.len().min(200)]
        ),
        (a, b) => panic!("ours {a:?}, prost-reflect's {b:?}"),
    }
}

/// The same for the JSON reader, within what the crate reads differently
/// on purpose (duplicate keys, nesting, the empty `Any`: see
/// docs/differences.md) and where prost-reflect itself is not
/// deterministic: it reads the keys before a late `@type` in hash order,
/// so that which of two bad keys it quotes varies from run to run, and
/// places the error after the `@type`. The crate writes a late `@type`
/// first, so that the keys are read in the input's order, as
/// json_format.Parse reads them, and the error is placed at its key: with
/// an `@type` in the input only the messages' first words are compared.
fn json_reads_as_prost_reflect(descriptor: &prost_reflect::MessageDescriptor, json: &str) {
    use serde::de::DeserializeSeed;
    if json.bytes().filter(|b| matches!(b, b'{' | b'[')).count() > 64 {
        return;
    }
    let ours = formats::from_json_dynamic(descriptor.clone(), json);
    if matches!(&ours, Err(e) if e.to_string().contains("duplicate key")) {
        return;
    }
    let mut de = serde_json::Deserializer::from_str(json);
    let theirs = descriptor
        .clone()
        .deserialize(&mut de)
        .and_then(|m| de.end().map(|()| m));
    match (ours, theirs) {
        (_, Err(b)) if b.to_string().contains("'@type'") => {}
        (Ok(a), Ok(b)) => assert_eq!(formats::to_text_format(&a), formats::to_text_format(&b)),
        (Err(a), Err(b)) => {
            let (a, b) = (a.to_string(), cut_message("invalid JSON message: ", &b));
            if json.contains("@type") || json.contains("\\u") {
                let words = |m: &str| m.split([':', '\'']).take(2).collect::<Vec<_>>().concat();
                assert_eq!(words(&a), words(&b), "{a}\n{b}");
            } else {
                assert_eq!(a, b);
            }
        }
        (a, b) => panic!("ours {a:?}, prost-reflect's {b:?}"),
    }
}

/// StableHLO text: nothing panics; every location the reader gives is the
/// line and column of its offset; every type it read prints as text that
/// reads back as the same type, and converts to a shape or an error; an
/// array shape's tensor type reads back as that shape. The signature is
/// made or refused without panicking, and its entry computation layout
/// reads back as an HLO module header would.
pub fn stablehlo_text(data: &[u8]) {
    use xla_shape::stablehlo::{StableHloModule, Type};
    let Ok(input) = std::str::from_utf8(data) else {
        return;
    };
    let located = |at: xla_shape::Location| assert_located(input, at);
    let module = match StableHloModule::from_text(input) {
        Ok(m) => m,
        Err(e) => {
            assert_eq!(e.kind(), ErrorKind::Parse, "{e}");
            located(e.location().expect("a parse error has a location"));
            return;
        }
    };
    let check_type = |t: &Type| {
        let printed = t.to_string();
        let again: Type = printed
            .parse()
            .unwrap_or_else(|e| panic!("{printed:?} does not read back: {e}"));
        assert_eq!(&again, t, "{printed}");
        if let Ok(shape) = t.to_shape()
            && !matches!(shape, Shape::Tuple(_))
        {
            let back = Type::from_shape(&shape).expect("a shape of a type has a type");
            let shape_again = back.to_shape().expect("its type converts back");
            assert!(
                shape_again.equal_with(&shape, &xla_shape::ShapeEqual::default().ignore_layout()),
                "{t} -> {shape} -> {back} -> {shape_again}"
            );
        }
    };
    for f in &module.functions {
        located(f.location);
        for a in &f.arguments {
            located(a.location);
            check_type(&a.ty);
            a.attributes.iter().for_each(|at| located(at.location));
        }
        for r in &f.results {
            located(r.location);
            check_type(&r.ty);
        }
        for op in &f.operations {
            located(op.location);
            op.result_types.iter().for_each(&check_type);
            if let Some(l) = &op.debug_location {
                let _ = module.location_name(l);
            }
        }
    }
    if let Ok(signature) = module.signature() {
        let layout = signature
            .entry_computation_layout()
            .to_computation_layout_string();
        let header = format!("HloModule m, entry_computation_layout={{{layout}}}\n");
        let read = xla_shape::hlo::HloModule::from_text(&header)
            .unwrap_or_else(|e| panic!("{header}: {e}"));
        assert_eq!(
            read.entry_computation_layout
                .expect("the header has the layout")
                .to_computation_layout_string(),
            layout
        );
        let _ = signature.notes();
        let _ = signature.compile_entry_computation_layout();
    }
}

/// MLIR bytecode and `jax.export` serializations (both readers on every
/// input): neither panics; an error is a `Decode` error naming a byte of
/// the input; every type read prints as text that reads back to the same
/// type; the signature is made or refused without panicking, and an
/// export's module is its bytecode.
pub fn stablehlo_bytecode(data: &[u8]) {
    use xla_shape::stablehlo::{JaxExport, StableHloModule, Type};
    let names_a_byte = |e: &xla_shape::Error, prefix: &str| {
        assert_eq!(e.kind(), ErrorKind::Decode, "{e}");
        let rest = e
            .message()
            .strip_prefix(prefix)
            .unwrap_or_else(|| panic!("{e}"));
        let offset: usize = rest
            .split(':')
            .next()
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{e}"));
        assert!(offset <= data.len(), "{e}");
    };
    let check_type = |t: &Type| {
        let printed = t.to_string();
        if let Ok(again) = printed.parse::<Type>() {
            // Types the text cannot spell (a dialect's own) print as
            // written; the rest read back the same.
            if !matches!(t, Type::Other(_)) {
                assert_eq!(&again, t, "{printed}");
            }
        }
        let _ = t.to_shape();
    };
    match StableHloModule::from_bytecode(data) {
        Err(e) => names_a_byte(&e, "MLIR bytecode: byte "),
        Ok(module) => {
            for f in &module.functions {
                f.arguments.iter().for_each(|a| check_type(&a.ty));
                f.results.iter().for_each(|r| check_type(&r.ty));
                for op in &f.operations {
                    op.result_types.iter().for_each(&check_type);
                    assert!(op.location.offset <= data.len());
                    if let Some(l) = &op.debug_location {
                        let _ = module.location_name(l);
                    }
                }
            }
            let _ = module.signature();
        }
    }
    match JaxExport::from_bytes(data) {
        Err(e) => names_a_byte(&e, "jax.export serialization: byte "),
        Ok(exported) => {
            for a in exported.in_avals.iter().chain(&exported.out_avals) {
                let _ = a.to_string();
            }
            for s in exported
                .in_shardings
                .iter()
                .chain(&exported.out_shardings)
                .flatten()
            {
                let _ = s.to_string();
            }
            assert!(exported.mlir_module_serialized.len() <= data.len());
            if let Ok(m) = exported.module() {
                let _ = m.signature();
            }
        }
    }
}

/// Whether a mesh axis name of `s` (or of one of its elements) holds a
/// backslash, which XLA's text does not print back as it was read.
fn escaped_axis_name(s: &xla_shape::sharding::HloSharding) -> bool {
    s.named_sharding()
        .is_some_and(|n| n.mesh().axes().iter().any(|(name, _)| name.contains('\\')))
        || s.tuple_elements().iter().any(escaped_axis_name)
}

/// Sharding text, `OpSharding` bytes and Shardy text, by the first byte
/// (0: HloSharding text, 1: OpSharding bytes, 2: a Shardy mesh, a newline
/// and a Shardy sharding). Whatever reads writes bytes that read back to
/// a sharding writing the same bytes (XLA's `ToProto` is a fixed point
/// after one `FromProto`), prints without panicking, and answers the
/// per-device questions (on a shape built from the input) without
/// panicking; what a printed form reads back to prints the same once more
/// (XLA canonicalizes at most once more when reading its own text).
pub fn sharding(data: &[u8]) {
    use xla_shape::sharding::{HloSharding, shardy};
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let parsed = match mode % 3 {
        0 => {
            let Ok(text) = std::str::from_utf8(rest) else {
                return;
            };
            let Ok(s) = text.parse::<HloSharding>() else {
                return;
            };
            // XLA reads a mesh axis name as an escaped string and prints it
            // as it is, so a name with a backslash unescapes once more each
            // time its print is read (tests/sharding/text.rs,
            // `mesh_axis_names_are_unescaped_when_read_and_printed_as_they_are`).
            if let Ok(again) = s.to_string().parse::<HloSharding>()
                && !escaped_axis_name(&again)
                && let Ok(third) = again.to_string().parse::<HloSharding>()
            {
                assert_eq!(third.to_string(), again.to_string(), "{text:?}");
            }
            s
        }
        1 => match HloSharding::from_proto_bytes(rest) {
            Ok(s) => s,
            Err(_) => return,
        },
        _ => {
            let Ok(text) = std::str::from_utf8(rest) else {
                return;
            };
            let Some((mesh, sharding)) = text.split_once('\n') else {
                return;
            };
            let (Ok((_, mesh)), Ok(s)) = (
                shardy::parse_mesh(mesh),
                sharding.parse::<shardy::ShardySharding>(),
            ) else {
                return;
            };
            let _ = s.to_string();
            match s.to_hlo_sharding(&mesh) {
                Ok(h) => {
                    if h.num_devices().is_ok_and(|n| n <= 4096) {
                        let _ = shardy::from_hlo_sharding(&h, &mesh, "mesh");
                    }
                    h
                }
                Err(_) => return,
            }
        }
    };
    let _ = parsed.to_string_with_metadata();
    let bytes = parsed.to_proto_bytes();
    let decoded = match HloSharding::from_proto_bytes(&bytes) {
        Ok(decoded) => decoded,
        // XLA's parser takes shardings that XLA's `FromProto` refuses once
        // `ToProto` has written them, with one of its RET_CHECKs (a
        // `MalformedProto` error here): an iota whose reshape dimensions
        // hold another number of devices than the tiles
        // (`{devices=[2,4,2]<=[32]}`), tiles of no device with devices
        // listed (`{devices=[0]0,1}`, printed `{devices=[0]}`), a tile
        // dimension of 0 (`{devices=[0,4,1]<=[4]}`). jaxlib 0.10.2 does the
        // same on each (tests/sharding/proto.rs): so do we.
        Err(e) if e.kind() == ErrorKind::MalformedProto => return,
        Err(e) => panic!("{parsed}: its bytes do not read back: {e}"),
    };
    let again = HloSharding::from_proto_bytes(&decoded.to_proto_bytes()).unwrap();
    assert_eq!(again.to_proto_bytes(), decoded.to_proto_bytes(), "{parsed}");
    // Per device, on a small shape of the sharding's rank, built from the
    // input's length.
    if parsed.num_devices().is_ok_and(|n| n <= 4096) {
        let rank = parsed.tiled_data_rank().unwrap_or(1).min(6);
        let dims: Vec<i64> = (0..rank).map(|i| ((data.len() + i) % 7) as i64).collect();
        if let Ok(shape) = ArrayShape::new(PrimitiveType::F32, dims.clone()) {
            let shape = Shape::from(shape);
            let _ = parsed.tile_shape(&shape);
            let _ = parsed.device_slices(&dims);
            let _ = parsed.replica_groups();
            let _ = parsed.shard_byte_size(&shape);
            let _ = parsed.validate(&shape, parsed.num_devices().ok());
            let _ = parsed.devices_indices_map(&dims, parsed.num_devices().unwrap_or(0));
        }
        let _ = parsed.tile_assignment_devices();
    }
}
