//! The properties the fuzz targets assert, shared with the stable
//! `tests/robustness/fuzz_corpus.rs`, which replays every committed input through them.
//!
//! Each function takes the raw fuzz input and panics (through an assertion)
//! when a property fails; an input the library rejects with an error is
//! fine, as long as nothing panics on the way.

#![allow(dead_code)]

use prost::Message;
use xla_shape::formats::{self, JsonOptions, ProtoModel};
use xla_shape::proto::{LayoutProto, ShapeProto};
use xla_shape::text::{self, ParseOptions};
use xla_shape::tiling::{Slot, TiledLayout};
use xla_shape::{ArrayShape, Layout, PrimitiveType, Shape, Tile, index_util, shape_util};

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
    ("hlo_scan", hlo_scan),
];

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
    ArrayShape::from_parts(t, dims, dynamic, Some(layout)).ok()
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
