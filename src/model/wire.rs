//! The wire format of `ShapeProto`, `LayoutProto` and `ProgramShapeProto`,
//! over the crate's byte layer.
//!
//! Decoding follows Google's runtimes (C++ protobuf, upb) rather than
//! prost where they differ: a known field with an unexpected wire type is
//! an unknown field and is skipped, groups are skipped, singular message
//! fields that occur twice are merged, packed and unpacked repeated scalars
//! are both accepted and concatenate, the last value of a scalar wins, and
//! nesting deeper than [`MAX_NESTING_DEPTH`] is an error. Encoding writes
//! exactly what XLA's `ToProto` followed by C++ serialization writes: fields
//! in number order, packed repeated scalars, defaults omitted.

use crate::error::{Error, Result};
use crate::limits::MAX_NESTING_DEPTH;
use crate::model::inline::InlineVec;
use crate::model::layout::Layout;
use crate::model::primitive_type::PrimitiveType;
use crate::model::program_shape::ProgramShape;
use crate::model::raw::{RawLayout, RawProgramShape, RawShape};
use crate::model::shape::{ArrayShape, Shape};
use crate::model::tile::{SplitConfig, Tile, check_tile_bounds};
use crate::model::validate;
use crate::proto::fields::{layout, program_shape, shape, split_config, tile};
use crate::protobuf::write::{self, MAX_FIELD, MAX_VARINT, Writer};
use crate::protobuf::{Reader, Varint, VarintSink, WireError, WireResult, WireType, each_field};

/// Decodes `ShapeProto` bytes with Google's semantics into a raw tree.
pub(crate) fn decode_shape(buf: &[u8]) -> Result<RawShape> {
    let mut p = RawShape::default();
    merge_shape(buf, &mut p, 0)?;
    Ok(p)
}

/// Decodes `LayoutProto` bytes with Google's semantics into a raw layout.
pub(crate) fn decode_layout(buf: &[u8]) -> Result<RawLayout> {
    let mut p = RawLayout::default();
    merge_layout(buf, &mut p, 0)?;
    Ok(p)
}

/// Decodes `ProgramShapeProto` bytes with Google's semantics: its shapes
/// are read exactly as a standalone `ShapeProto` is, one level down.
pub(crate) fn decode_program_shape(buf: &[u8]) -> Result<RawProgramShape> {
    let mut p = RawProgramShape::default();
    let mut r = Reader::new(buf);
    while !r.at_end() {
        let (field, wire) = r.key()?;
        match (field, wire) {
            (program_shape::PARAMETERS, WireType::LengthDelimited) => {
                let mut s = RawShape::default();
                merge_shape(r.len_delimited()?, &mut s, 1)?;
                p.parameters.push(s);
            }
            (program_shape::RESULT, WireType::LengthDelimited) => {
                // A singular message given twice is merged.
                let s = p.result.get_or_insert_with(Default::default);
                merge_shape(r.len_delimited()?, s, 1)?;
            }
            (program_shape::PARAMETER_NAMES, WireType::LengthDelimited) => {
                // proto3 strings must be UTF-8: C++ and upb fail the parse.
                let name = std::str::from_utf8(r.len_delimited()?).map_err(|_| {
                    Error::decode(format!(
                        "{}invalid string value: data is not UTF-8 encoded",
                        crate::protobuf::DECODE_CONTEXT
                    ))
                })?;
                p.parameter_names.push(name.to_owned());
            }
            _ => r.skip(field, wire, 0, MAX_NESTING_DEPTH)?,
        }
    }
    Ok(p)
}

// --- one pass for the common case --------------------------------------

/// How deep [`decode_valid_shape`] follows tuples; deeper input is left to
/// the full decoder (whose limit, [`MAX_NESTING_DEPTH`], is far above).
const ONE_PASS_DEPTH: usize = 16;

/// A valid shape read in one pass from `ShapeProto` bytes of the kind XLA
/// writes, straight into the model's storage: the same shape as
/// [`decode_shape`] followed by `FromProto` and validation, or `None` when
/// the bytes hold anything else (an unknown or repeated field, a field
/// with an unexpected wire type, a buffer, a physical shape, split configs,
/// sparse attributes, a shape or layout that XLA rejects, malformed
/// bytes...), for which the full decoder runs from the start and gives
/// XLA's answer. A test checks both on every golden proto and mutations of
/// them.
#[cfg(test)]
pub(crate) fn decode_valid_shape(buf: &[u8]) -> Option<Shape> {
    let mut out = Shape::slot();
    valid_shape(buf, 0, &mut out)?;
    Some(out)
}

/// [`decode_valid_shape`] into `out`, reusing what it holds: an array's
/// vectors and layout, a tuple's elements (`out` is left unspecified, but
/// possibly invalid, when it gives `None`). Shapes are built where they end
/// up, not moved there: a `Shape` is 256 bytes (304 when this was
/// written), and moves were a fifth of the instructions.
pub(crate) fn decode_valid_shape_into(buf: &[u8], out: &mut Shape) -> Option<()> {
    valid_shape(buf, 0, out)
}

/// The keys (field number and wire type, as on the wire) that the one-pass
/// decoder takes: XLA's packed runs, and single values as Google's runtimes
/// also accept them.
mod keys {
    use crate::proto::fields::{layout, shape, tile};
    use crate::protobuf::{WireType, key_of};
    const V: WireType = WireType::Varint;
    const LEN: WireType = WireType::LengthDelimited;
    pub(super) const ELEMENT_TYPE: u64 = key_of(shape::ELEMENT_TYPE, V);
    pub(super) const DIMENSIONS: u64 = key_of(shape::DIMENSIONS, V);
    pub(super) const DIMENSIONS_PACKED: u64 = key_of(shape::DIMENSIONS, LEN);
    pub(super) const TUPLE_SHAPES: u64 = key_of(shape::TUPLE_SHAPES, LEN);
    pub(super) const LAYOUT: u64 = key_of(shape::LAYOUT, LEN);
    pub(super) const DYNAMIC: u64 = key_of(shape::IS_DYNAMIC_DIMENSION, V);
    pub(super) const DYNAMIC_PACKED: u64 = key_of(shape::IS_DYNAMIC_DIMENSION, LEN);
    pub(super) const MINOR_TO_MAJOR: u64 = key_of(layout::MINOR_TO_MAJOR, V);
    pub(super) const MINOR_TO_MAJOR_PACKED: u64 = key_of(layout::MINOR_TO_MAJOR, LEN);
    pub(super) const TILES: u64 = key_of(layout::TILES, LEN);
    pub(super) const ELEMENT_SIZE_IN_BITS: u64 = key_of(layout::ELEMENT_SIZE_IN_BITS, V);
    pub(super) const MEMORY_SPACE: u64 = key_of(layout::MEMORY_SPACE, V);
    pub(super) const DYNAMIC_SHAPE_METADATA_PREFIX_BYTES: u64 =
        key_of(layout::DYNAMIC_SHAPE_METADATA_PREFIX_BYTES, V);
    pub(super) const TAIL_PADDING_ALIGNMENT_IN_ELEMENTS: u64 =
        key_of(layout::TAIL_PADDING_ALIGNMENT_IN_ELEMENTS, V);
    pub(super) const TILE_DIMENSIONS: u64 = key_of(tile::DIMENSIONS, V);
    pub(super) const TILE_DIMENSIONS_PACKED: u64 = key_of(tile::DIMENSIONS, LEN);
}

fn valid_shape(buf: &[u8], depth: usize, out: &mut Shape) -> Option<()> {
    if depth > ONE_PASS_DEPTH {
        return None;
    }
    let mut r = Reader::new(buf);
    // XLA writes the element type first (C++ serializes in field-number
    // order); bytes that do not start with it go to the full decoder.
    if r.raw_key().ok()? != keys::ELEMENT_TYPE {
        return None;
    }
    let t = PrimitiveType::from_number(r.varint().ok()? as i32)?;
    if t.is_array_type() {
        return valid_array(r, t, out.reused_array());
    }
    match t {
        PrimitiveType::Tuple => {
            let elements = out.reused_tuple();
            let mut n = 0;
            while !r.at_end() {
                if r.raw_key().ok()? != keys::TUPLE_SHAPES {
                    return None;
                }
                let bytes = r.len_delimited().ok()?;
                if n == elements.len() {
                    elements.push(Shape::slot());
                }
                valid_shape(bytes, depth + 1, &mut elements[n])?;
                n += 1;
            }
            elements.truncate(n);
        }
        PrimitiveType::Token if r.at_end() => *out = Shape::Token,
        PrimitiveType::OpaqueType if r.at_end() => *out = Shape::Opaque,
        _ => return None,
    }
    Some(())
}

/// The fields after the element type `t` of an array, into `a` (emptied
/// by [`Shape::reused_array`]), then XLA's validation.
#[inline(always)]
fn valid_array(mut r: Reader<'_>, t: PrimitiveType, a: &mut ArrayShape) -> Option<()> {
    a.element_type = t;
    let mut has_layout = false;
    while !r.at_end() {
        match r.raw_key().ok()? {
            keys::DIMENSIONS_PACKED => a.dimensions.push_packed(r.len_delimited().ok()?).ok()?,
            keys::DIMENSIONS => a.dimensions.push_varint(r.varint().ok()?),
            keys::LAYOUT if !has_layout => {
                has_layout = true;
                let l = match &mut a.layout {
                    Some(l) => {
                        l.reset();
                        l
                    }
                    None => a.layout.insert(Layout::default()),
                };
                valid_layout_fields(r.len_delimited().ok()?, l)?;
            }
            keys::DYNAMIC_PACKED => a.dynamic.push_packed(r.len_delimited().ok()?).ok()?,
            keys::DYNAMIC => a.dynamic.push_varint(r.varint().ok()?),
            _ => return None,
        }
    }
    if !has_layout {
        a.layout = None;
    }
    let rank = a.dimensions.len();
    if a.dynamic.len() != rank {
        if !a.dynamic.is_empty() {
            return None;
        }
        for _ in 0..rank {
            a.dynamic.push(false);
        }
    }
    let valid = validate::array_dimensions_valid(t, &a.dimensions)
        && a.layout
            .as_ref()
            .is_none_or(|l| validate::layout_valid_for_rank(l, rank));
    valid.then_some(())
}

/// The fields of a `LayoutProto` that [`decode_valid_shape`] takes, as
/// `Layout::FromProto` sets them (alignment 0 read as 1), into `l` (a
/// default layout); `None` for any other field, a negative tile bound other
/// than `*` or a negative alignment.
#[inline]
fn valid_layout_fields(buf: &[u8], l: &mut Layout) -> Option<()> {
    let mut r = Reader::new(buf);
    while !r.at_end() {
        match r.raw_key().ok()? {
            keys::MINOR_TO_MAJOR_PACKED => {
                l.minor_to_major.push_packed(r.len_delimited().ok()?).ok()?
            }
            keys::MINOR_TO_MAJOR => l.minor_to_major.push_varint(r.varint().ok()?),
            keys::TILES => {
                let mut t = Tile::default();
                let mut tr = Reader::new(r.len_delimited().ok()?);
                while !tr.at_end() {
                    match tr.raw_key().ok()? {
                        keys::TILE_DIMENSIONS_PACKED => {
                            t.push_packed(tr.len_delimited().ok()?).ok()?
                        }
                        keys::TILE_DIMENSIONS => t.push_varint(tr.varint().ok()?),
                        _ => return None,
                    }
                }
                if check_tile_bounds(t.dimensions()).is_err() {
                    return None;
                }
                l.tiles.push(t);
            }
            keys::ELEMENT_SIZE_IN_BITS => l.element_size_in_bits = r.varint().ok()? as i64,
            keys::MEMORY_SPACE => l.memory_space = r.varint().ok()? as i64,
            keys::DYNAMIC_SHAPE_METADATA_PREFIX_BYTES => {
                let n = r.varint().ok()? as i64;
                if n != 0 || l.rare.is_some() {
                    l.rare_mut().dynamic_shape_metadata_prefix_bytes = n;
                }
            }
            keys::TAIL_PADDING_ALIGNMENT_IN_ELEMENTS => {
                let n = match r.varint().ok()? as i64 {
                    0 => 1,
                    n if n > 0 => n,
                    _ => return None,
                };
                // XLA writes the alignment even when it is 1.
                if n != 1 || l.rare.is_some() {
                    l.rare_mut().tail_padding_alignment_in_elements = n;
                }
            }
            _ => return None,
        }
    }
    Some(())
}

/// Where dimensions and minor_to_major (int64) and dynamic-dimension flags
/// (bool) go as they are read.
impl<T: Varint + Default, const N: usize> VarintSink for InlineVec<T, N> {
    #[inline]
    fn reserve_varints(&mut self, n: usize) {
        self.reserve(n);
    }
    #[inline]
    fn push_varint(&mut self, v: u64) {
        self.push(T::from_varint(v));
    }
    #[inline(always)]
    fn push_packed(&mut self, payload: &[u8]) -> WireResult<()> {
        push_packed_in_place(self, payload, T::from_varint)
    }
}

/// The values of a packed run, `value` of each varint: written straight
/// into the free slots of a vector kept in place, then (past its capacity)
/// pushed.
#[inline(always)]
fn push_packed_in_place<T: Default, const N: usize>(
    out: &mut InlineVec<T, N>,
    payload: &[u8],
    value: impl Fn(u64) -> T,
) -> WireResult<()> {
    // The usual run: values below 128, a byte each.
    if payload.iter().all(|&b| b < 0x80) {
        match out {
            InlineVec::Inline { len, items } if payload.len() <= N - *len as usize => {
                let n = *len as usize;
                for (slot, &b) in items[n..].iter_mut().zip(payload) {
                    *slot = value(u64::from(b));
                }
                *len = (n + payload.len()) as u8;
                return Ok(());
            }
            InlineVec::Heap(v) => {
                v.extend(payload.iter().map(|&b| value(u64::from(b))));
                return Ok(());
            }
            InlineVec::Inline { .. } => {}
        }
    }
    let mut r = Reader::new(payload);
    if let InlineVec::Inline { len, items } = out {
        let mut n = *len as usize;
        while n < N && !r.at_end() {
            match r.varint() {
                Ok(v) => items[n] = value(v),
                Err(e) => {
                    *len = n as u8;
                    return Err(e);
                }
            }
            n += 1;
        }
        *len = n as u8;
    }
    while !r.at_end() {
        out.push(value(r.varint()?));
    }
    Ok(())
}

/// Where a tile's bounds go as they are read.
impl VarintSink for Tile {
    fn reserve_varints(&mut self, _: usize) {}
    #[inline]
    fn push_varint(&mut self, v: u64) {
        self.push_unchecked(i64::from_varint(v));
    }
}

/// Reads the fields of one nested message at `depth` with `field`
/// ([`each_field`]), once its depth is checked against the limit.
#[inline]
fn nested<'a>(
    bytes: &'a [u8],
    depth: usize,
    field: impl FnMut(&mut Reader<'a>, u32, WireType) -> WireResult<bool>,
) -> WireResult<()> {
    if depth > MAX_NESTING_DEPTH {
        return Err(WireError::TooDeep);
    }
    each_field(bytes, depth, field)
}

/// Reads the fields of a `ShapeProto` at `depth` into `p` (merging into
/// what it holds, as Google's runtimes merge a message given twice).
fn merge_shape(bytes: &[u8], p: &mut RawShape, depth: usize) -> WireResult<()> {
    nested(bytes, depth, |r, field, wire| {
        Ok(match (field, wire) {
            (shape::ELEMENT_TYPE, WireType::Varint) => set(&mut p.element_type, r)?,
            (shape::DIMENSIONS, _) => r.repeated_varint(wire, &mut p.dimensions)?,
            (shape::IS_DYNAMIC_DIMENSION, _) => r.repeated_varint(wire, &mut p.dynamic)?,
            (shape::TUPLE_SHAPES, WireType::LengthDelimited) => {
                if depth >= MAX_NESTING_DEPTH {
                    return Err(WireError::TooDeep);
                }
                let mut element = RawShape::default();
                merge_shape(r.len_delimited()?, &mut element, depth + 1)?;
                p.tuple_shapes.push(element);
                true
            }
            (shape::LAYOUT, WireType::LengthDelimited) => {
                let layout = p.layout.get_or_insert_with(Default::default);
                merge_layout(r.len_delimited()?, layout, depth + 1)?;
                true
            }
            _ => false,
        })
    })
}

/// Reads a varint field into `slot`, as its type reads it: the field is
/// known.
#[inline(always)]
fn set<T: Varint>(slot: &mut T, r: &mut Reader<'_>) -> WireResult<bool> {
    *slot = T::from_varint(r.varint()?);
    Ok(true)
}

/// Reads the fields of a `LayoutProto` at `depth` into `p`.
fn merge_layout(bytes: &[u8], p: &mut RawLayout, depth: usize) -> WireResult<()> {
    nested(bytes, depth, |r, field, wire| {
        Ok(match (field, wire) {
            (layout::MINOR_TO_MAJOR, _) => r.repeated_varint(wire, &mut p.minor_to_major)?,
            (layout::TILES, WireType::LengthDelimited) => {
                let mut t = Tile::default();
                nested(r.len_delimited()?, depth + 1, |r, f, w| match f {
                    tile::DIMENSIONS => r.repeated_varint(w, &mut t),
                    _ => Ok(false),
                })?;
                p.tiles.push(t);
                true
            }
            (layout::ELEMENT_SIZE_IN_BITS, WireType::Varint) => {
                set(&mut p.element_size_in_bits, r)?
            }
            (layout::MEMORY_SPACE, WireType::Varint) => set(&mut p.memory_space, r)?,
            (layout::PHYSICAL_SHAPE, WireType::LengthDelimited) => {
                if depth >= MAX_NESTING_DEPTH {
                    return Err(WireError::TooDeep);
                }
                let physical = p.physical_shape.get_or_insert_with(Default::default);
                merge_shape(r.len_delimited()?, physical, depth + 1)?;
                true
            }
            (layout::INDEX_PRIMITIVE_TYPE, WireType::Varint) => {
                set(&mut p.index_primitive_type, r)?
            }
            (layout::POINTER_PRIMITIVE_TYPE, WireType::Varint) => {
                set(&mut p.pointer_primitive_type, r)?
            }
            (layout::DYNAMIC_SHAPE_METADATA_PREFIX_BYTES, WireType::Varint) => {
                set(&mut p.dynamic_shape_metadata_prefix_bytes, r)?
            }
            (layout::TAIL_PADDING_ALIGNMENT_IN_ELEMENTS, WireType::Varint) => {
                set(&mut p.tail_padding_alignment_in_elements, r)?
            }
            (layout::SPLIT_CONFIGS, WireType::LengthDelimited) => {
                let mut dimension = 0;
                let mut indices = Vec::new();
                nested(r.len_delimited()?, depth + 1, |r, f, w| {
                    Ok(match (f, w) {
                        (split_config::DIMENSION, WireType::Varint) => set(&mut dimension, r)?,
                        (split_config::SPLIT_INDICES, _) => r.repeated_varint(w, &mut indices)?,
                        _ => false,
                    })
                })?;
                p.split_configs.push(SplitConfig::new(dimension, indices));
                true
            }
            // Everything else, the sparse fields included (which XLA's
            // Layout::FromProto ignores), is skipped.
            _ => false,
        })
    })
}

// --- encoding ------------------------------------------------------------

/// The most bytes [`write_layout`] writes for `l`: [`MAX_FIELD`] per field,
/// [`MAX_VARINT`] per packed value.
#[inline(always)]
fn layout_max_len(l: &Layout) -> usize {
    // minor_to_major's run and six scalar fields.
    let mut n = 7 * MAX_FIELD + MAX_VARINT * l.minor_to_major.len();
    if !l.tiles.is_empty() {
        n += l
            .tiles
            .iter()
            .map(|t| 2 * MAX_FIELD + MAX_VARINT * t.dimensions().len())
            .sum::<usize>();
    }
    let r = l.rare();
    if !r.split_configs.is_empty() {
        n += r
            .split_configs
            .iter()
            .map(|s| 3 * MAX_FIELD + MAX_VARINT * s.split_indices().len())
            .sum::<usize>();
    }
    if let Some(p) = &r.physical_shape {
        n += MAX_FIELD + shape_max_len(p);
    }
    n
}

/// The most bytes [`write_shape`] writes for the array `a`: the element
/// type, the dimensions' and flags' runs and the layout.
#[inline(always)]
fn array_max_len(a: &ArrayShape) -> usize {
    let layout = match &a.layout {
        Some(l) => MAX_FIELD + layout_max_len(l),
        None => 0,
    };
    3 * MAX_FIELD + (MAX_VARINT + 1) * a.dimensions.len() + layout
}

/// The most bytes [`write_shape`] writes for `s`.
#[inline]
fn shape_max_len(s: &Shape) -> usize {
    match s {
        Shape::Array(a) => array_max_len(a),
        Shape::Tuple(elements) => {
            // Arrays, the usual elements, without a call each.
            let element = |e: &Shape| match e {
                Shape::Array(a) => array_max_len(a),
                _ => shape_max_len(e),
            };
            MAX_FIELD
                + elements
                    .iter()
                    .map(|e| MAX_FIELD + element(e))
                    .sum::<usize>()
        }
        Shape::Buffer(inner) => 2 * MAX_FIELD + shape_max_len(inner),
        Shape::Token | Shape::Opaque => MAX_FIELD,
    }
}

/// Appends the `LayoutProto` encoding of `l`, as XLA writes it.
pub(crate) fn put_layout(out: &mut Vec<u8>, l: &Layout) {
    // SAFETY: `layout_max_len` bounds what `write_layout` writes.
    unsafe { write::append(out, layout_max_len(l), |w| write_layout(w, l)) };
}

/// Appends the `ShapeProto` encoding of `s`, as XLA writes it.
pub(crate) fn put_shape(out: &mut Vec<u8>, s: &Shape) {
    // SAFETY: `shape_max_len` bounds what `write_shape` writes.
    unsafe { write::append(out, shape_max_len(s), |w| write_shape(w, s)) };
}

/// Appends the `ProgramShapeProto` encoding of `p`, as XLA's `ToProto`
/// followed by C++ serialization writes it (the result always present).
pub(crate) fn put_program_shape(out: &mut Vec<u8>, p: &ProgramShape) {
    let shapes: usize = p
        .parameters()
        .iter()
        .chain([p.result()])
        .map(|s| MAX_FIELD + shape_max_len(s))
        .sum();
    let names: usize = p
        .parameter_names()
        .iter()
        .map(|n| MAX_FIELD + n.len())
        .sum();
    // SAFETY: a field per shape and name, each bounded as `put_shape`'s.
    unsafe {
        write::append(out, shapes + names, |w| {
            for s in p.parameters() {
                w.message(program_shape::PARAMETERS, |w| write_shape(w, s));
            }
            w.message(program_shape::RESULT, |w| write_shape(w, p.result()));
            for name in p.parameter_names() {
                w.string(program_shape::PARAMETER_NAMES, name);
            }
        })
    };
}

#[inline(always)]
fn write_layout(w: &mut Writer<'_>, l: &Layout) {
    w.packed_int64(layout::MINOR_TO_MAJOR, &l.minor_to_major);
    for t in &l.tiles {
        w.message(layout::TILES, |w| {
            w.packed_int64(tile::DIMENSIONS, t.dimensions())
        });
    }
    w.int64(layout::ELEMENT_SIZE_IN_BITS, l.element_size_in_bits);
    w.int64(layout::MEMORY_SPACE, l.memory_space);
    let Some(r) = l.rare.as_deref() else {
        // The defaults: only the alignment, 1, is written.
        w.int64(layout::TAIL_PADDING_ALIGNMENT_IN_ELEMENTS, 1);
        return;
    };
    if let Some(p) = &r.physical_shape {
        w.message(layout::PHYSICAL_SHAPE, |w| write_shape(w, p));
    }
    w.int64(layout::INDEX_PRIMITIVE_TYPE, r.index_primitive_type as i64);
    w.int64(
        layout::POINTER_PRIMITIVE_TYPE,
        r.pointer_primitive_type as i64,
    );
    w.int64(
        layout::DYNAMIC_SHAPE_METADATA_PREFIX_BYTES,
        r.dynamic_shape_metadata_prefix_bytes,
    );
    w.int64(
        layout::TAIL_PADDING_ALIGNMENT_IN_ELEMENTS,
        r.tail_padding_alignment_in_elements,
    );
    for s in &r.split_configs {
        w.message(layout::SPLIT_CONFIGS, |w| {
            w.int64(split_config::DIMENSION, s.dimension());
            w.packed_int64(split_config::SPLIT_INDICES, s.split_indices());
        });
    }
}

fn write_shape(w: &mut Writer<'_>, s: &Shape) {
    match s {
        Shape::Array(a) => write_array(w, a),
        Shape::Tuple(elements) => {
            w.int64(shape::ELEMENT_TYPE, PrimitiveType::Tuple as i64);
            for e in elements {
                // Arrays, the usual elements, without a call each.
                w.message(shape::TUPLE_SHAPES, |w| match e {
                    Shape::Array(a) => write_array(w, a),
                    _ => write_shape(w, e),
                });
            }
        }
        Shape::Buffer(inner) => {
            w.int64(shape::ELEMENT_TYPE, PrimitiveType::Buffer as i64);
            w.message(shape::TUPLE_SHAPES, |w| write_shape(w, inner));
        }
        Shape::Token | Shape::Opaque => w.int64(shape::ELEMENT_TYPE, s.element_type() as i64),
    }
}

#[inline(always)]
fn write_array(w: &mut Writer<'_>, a: &ArrayShape) {
    w.int64(shape::ELEMENT_TYPE, a.element_type as i64);
    w.packed_int64(shape::DIMENSIONS, &a.dimensions);
    if let Some(l) = &a.layout {
        w.message(shape::LAYOUT, |w| write_layout(w, l));
    }
    w.packed_bool(shape::IS_DYNAMIC_DIMENSION, &a.dynamic);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::convert::shape_from_raw;

    fn unhex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    /// The full decoder's answer, comparable: the shape's `Debug` form
    /// (every field, `M(n)` included) or the error.
    fn full(bytes: &[u8]) -> Result<String> {
        shape_from_raw(decode_shape(bytes)?).map(|s| format!("{s:?}"))
    }

    /// Field 4 (`tuple_shapes`) holding `bytes`.
    fn tuple_element(bytes: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        // SAFETY: a key, a length and the bytes.
        unsafe {
            write::append(&mut out, MAX_FIELD + bytes.len(), |w| {
                w.message(shape::TUPLE_SHAPES, |w| w.bytes(bytes))
            })
        };
        out
    }

    /// Shapes whose fields take their longest encodings (ten-byte varints:
    /// `i64::MIN` bounds, `i64::MAX` sizes), two-tile layouts, split
    /// configs, a buffer, tuples whose bodies need a two-byte length, and a
    /// program shape: each encodes as prost encodes its generated message,
    /// within the bound the writer's unchecked stores rest on. No files, so
    /// that Miri runs it (`docs/robustness.md`).
    #[test]
    fn the_longest_encodings_match_prost_within_their_bound() {
        use crate::proto::{
            LayoutProto, ProgramShapeProto, ShapeProto, SplitConfigProto, TileProto,
        };
        use prost::Message;
        let layout = LayoutProto {
            minor_to_major: vec![1, 0],
            tiles: vec![
                TileProto {
                    dimensions: vec![Tile::COMBINE_DIMENSION, 1 << 40],
                },
                TileProto {
                    dimensions: vec![2, 1],
                },
            ],
            tail_padding_alignment_in_elements: i64::MAX,
            element_size_in_bits: i64::MAX,
            memory_space: i64::MAX,
            dynamic_shape_metadata_prefix_bytes: i64::MAX,
            split_configs: vec![SplitConfigProto {
                dimension: 0,
                split_indices: vec![1, 1 << 40],
            }],
            ..Default::default()
        };
        let array = ShapeProto {
            element_type: PrimitiveType::C128 as i32,
            dimensions: vec![ArrayShape::UNBOUNDED_SIZE, 1 << 40],
            is_dynamic_dimension: vec![true, false],
            layout: Some(Box::new(layout.clone())),
            ..Default::default()
        };
        let tuple = |elements: Vec<ShapeProto>| ShapeProto {
            element_type: PrimitiveType::Tuple as i32,
            tuple_shapes: elements,
            ..Default::default()
        };
        let buffer = ShapeProto {
            element_type: PrimitiveType::Buffer as i32,
            tuple_shapes: vec![array.clone()],
            ..Default::default()
        };
        let long = tuple(vec![array.clone(); 3]);
        let token = ShapeProto {
            element_type: PrimitiveType::Token as i32,
            ..Default::default()
        };
        let protos = [
            array.clone(),
            buffer,
            long.clone(),
            tuple(vec![long.clone(), token]),
        ];
        for p in &protos {
            let s = Shape::try_from(p).unwrap();
            let ours = s.to_proto_bytes();
            assert_eq!(ours, ShapeProto::from(&s).encode_to_vec(), "{s}");
            assert!(ours.len() <= shape_max_len(&s), "{s}");
        }
        let widened = Shape::try_from(&long).unwrap().to_proto_bytes();
        assert!(
            widened.len() > 300,
            "the elements' bodies need two-byte lengths"
        );
        let l = Layout::try_from(&layout).unwrap();
        assert_eq!(l.to_proto_bytes(), LayoutProto::from(&l).encode_to_vec());
        assert!(l.to_proto_bytes().len() <= layout_max_len(&l));
        let program = ProgramShape::try_from(&ProgramShapeProto {
            parameters: vec![array, long.clone()],
            result: Some(long),
            parameter_names: vec!["p".repeat(200), String::new()],
        })
        .unwrap();
        assert_eq!(
            program.to_proto_bytes(),
            ProgramShapeProto::from(&program).encode_to_vec()
        );
    }

    /// Every ShapeProto XLA wrote in the golden data (`shapes.jsonl`,
    /// `invalid.jsonl`, `layouts.jsonl`), then tuples of them.
    fn golden_and_tuples() -> Vec<Vec<u8>> {
        let mut corpus = Vec::new();
        for file in ["shapes.jsonl", "invalid.jsonl", "layouts.jsonl"] {
            let path = format!("{}/tests/data/{file}", env!("CARGO_MANIFEST_DIR"));
            for line in std::fs::read_to_string(path).unwrap().lines() {
                let r: serde_json::Value = serde_json::from_str(line).unwrap();
                for key in ["proto_hex", "py_reencode_hex", "reparse_proto_hex"] {
                    if let Some(h) = r[key].as_str() {
                        corpus.push(unhex(h));
                    }
                }
            }
        }
        // Tuples of golden protos, nested twice (field 2 = TUPLE, then
        // field 4 per element).
        for chunk in corpus.clone().chunks(5) {
            let mut t = vec![0x10, 13];
            for e in chunk {
                t.extend(tuple_element(e));
            }
            let mut outer = vec![0x10, 13];
            outer.extend(tuple_element(&t));
            corpus.push(t);
            corpus.push(outer);
        }
        corpus
    }

    /// [`golden_and_tuples`] and `copies` byte mutations of each.
    fn mutated(copies: usize) -> Vec<Vec<u8>> {
        let corpus = golden_and_tuples();
        let originals = corpus.len();
        crate::test_support::with_mutations(
            corpus,
            originals * copies,
            2,
            None,
            0x2545_F491_4F6C_DD1D,
        )
    }

    /// Every ShapeProto XLA wrote in the golden data, tuples of them, and
    /// byte mutations of all: where the one-pass decoder answers, the full
    /// decoder gives the same shape; and it answers for every golden proto
    /// that is valid and of the kind XLA writes.
    #[test]
    fn the_one_pass_decoder_agrees_with_the_full_decoder() {
        let golden = golden_and_tuples();
        let valid_golden = golden.iter().filter(|b| full(b).is_ok()).count();
        let answered_golden = golden
            .iter()
            .filter(|b| decode_valid_shape(b).is_some())
            .count();
        let corpus = mutated(30);
        let mut answered = 0;
        for bytes in &corpus {
            if let Some(shape) = decode_valid_shape(bytes) {
                assert_eq!(Ok(format!("{shape:?}")), full(bytes), "{bytes:02x?}");
                answered += 1;
            }
        }
        assert!(answered > 2000, "{answered}");
        // The golden protos the one pass leaves to the full decoder are
        // the invalid ones and a few of other kinds (a buffer, split
        // configs, a physical shape...), not the common case.
        assert!(
            answered_golden + 40 >= valid_golden,
            "{answered_golden} of {valid_golden}"
        );
    }

    /// `Shape::decode_from` into one shape, reused from each input to the
    /// next (arrays, tuples, tokens, shapes with and without layouts, the
    /// one-pass decoder's misses and errors, in corpus order and reversed),
    /// gives what `Shape::from_proto_bytes` gives for each, and the empty
    /// tuple after an error.
    #[test]
    fn decoding_into_a_reused_shape_agrees_with_decoding_a_new_one() {
        let corpus = mutated(10);
        let mut reused = Shape::Tuple(Vec::new());
        let (mut ok, mut failed) = (0, 0);
        for bytes in corpus.iter().chain(corpus.iter().rev()) {
            let new = Shape::from_proto_bytes(bytes);
            match (reused.decode_from(bytes), new) {
                (Ok(()), Ok(new)) => {
                    assert_eq!(format!("{reused:?}"), format!("{new:?}"), "{bytes:02x?}");
                    ok += 1;
                }
                (Err(e), Err(new)) => {
                    assert_eq!(e, new, "{bytes:02x?}");
                    assert_eq!(format!("{reused:?}"), "Tuple([])");
                    failed += 1;
                }
                (got, new) => panic!("{bytes:02x?}: {got:?} against {new:?}"),
            }
        }
        assert!(ok > 1000 && failed > 1000, "{ok} decoded, {failed} failed");
    }
}
