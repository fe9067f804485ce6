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

use crate::MAX_NESTING_DEPTH;
use crate::error::{Error, Result};
use crate::model::layout::Layout;
use crate::model::program_shape::ProgramShape;
use crate::model::raw::{RawLayout, RawProgramShape, RawShape};
use crate::model::shape::Shape;
use crate::model::tile::{SplitConfig, Tile};
use crate::protobuf::fields::{layout, program_shape, shape, split_config, tile};
use crate::protobuf::{Reader, VarintSink, WireError, WireResult, WireType, write};

/// Decodes `ShapeProto` bytes with Google's semantics into a raw tree.
pub(crate) fn decode_shape(buf: &[u8]) -> Result<RawShape> {
    let mut p = RawShape::default();
    merge_shape(&mut Reader::new(buf), &mut p, 0)?;
    Ok(p)
}

/// Decodes `LayoutProto` bytes with Google's semantics into a raw layout.
pub(crate) fn decode_layout(buf: &[u8]) -> Result<RawLayout> {
    let mut p = RawLayout::default();
    merge_layout(&mut Reader::new(buf), &mut p, 0)?;
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
                merge_shape(&mut Reader::new(r.len_delimited()?), &mut s, 1)?;
                p.parameters.push(s);
            }
            (program_shape::RESULT, WireType::LengthDelimited) => {
                // A singular message given twice is merged.
                let s = p.result.get_or_insert_with(Default::default);
                merge_shape(&mut Reader::new(r.len_delimited()?), s, 1)?;
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

/// Where a tile's bounds go as they are read.
impl VarintSink for Tile {
    fn reserve_varints(&mut self, _: usize) {}
    #[inline]
    fn push_varint(&mut self, v: u64) {
        self.push_unchecked(v as i64);
    }
}

/// Reads the fields of one nested message with `field`, skipping (at
/// `depth`) those `field` does not take.
#[inline]
fn nested(
    bytes: &[u8],
    depth: usize,
    mut field: impl FnMut(&mut Reader<'_>, u32, WireType) -> WireResult<bool>,
) -> WireResult<()> {
    if depth > MAX_NESTING_DEPTH {
        return Err(WireError::TooDeep);
    }
    let mut r = Reader::new(bytes);
    while !r.at_end() {
        let (number, wire) = r.key()?;
        if !field(&mut r, number, wire)? {
            r.skip(number, wire, depth, MAX_NESTING_DEPTH)?;
        }
    }
    Ok(())
}

fn merge_shape(r: &mut Reader<'_>, p: &mut RawShape, depth: usize) -> WireResult<()> {
    while !r.at_end() {
        let (field, wire) = r.key()?;
        let known = match (field, wire) {
            (shape::ELEMENT_TYPE, WireType::Varint) => {
                p.element_type = r.varint()? as i32;
                true
            }
            (shape::DIMENSIONS, _) => r.repeated_varint(wire, &mut p.dimensions)?,
            (shape::IS_DYNAMIC_DIMENSION, _) => r.repeated_varint(wire, &mut p.dynamic)?,
            (shape::TUPLE_SHAPES, WireType::LengthDelimited) => {
                if depth >= MAX_NESTING_DEPTH {
                    return Err(WireError::TooDeep);
                }
                let mut element = RawShape::default();
                merge_shape(
                    &mut Reader::new(r.len_delimited()?),
                    &mut element,
                    depth + 1,
                )?;
                p.tuple_shapes.push(element);
                true
            }
            (shape::LAYOUT, WireType::LengthDelimited) => {
                let layout = p.layout.get_or_insert_with(Default::default);
                merge_layout(&mut Reader::new(r.len_delimited()?), layout, depth + 1)?;
                true
            }
            _ => false,
        };
        if !known {
            r.skip(field, wire, depth, MAX_NESTING_DEPTH)?;
        }
    }
    Ok(())
}

fn merge_layout(r: &mut Reader<'_>, p: &mut RawLayout, depth: usize) -> WireResult<()> {
    if depth > MAX_NESTING_DEPTH {
        return Err(WireError::TooDeep);
    }
    while !r.at_end() {
        let (field, wire) = r.key()?;
        let known = match (field, wire) {
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
                p.element_size_in_bits = r.varint()? as i64;
                true
            }
            (layout::MEMORY_SPACE, WireType::Varint) => {
                p.memory_space = r.varint()? as i64;
                true
            }
            (layout::PHYSICAL_SHAPE, WireType::LengthDelimited) => {
                if depth >= MAX_NESTING_DEPTH {
                    return Err(WireError::TooDeep);
                }
                let physical = p.physical_shape.get_or_insert_with(Default::default);
                merge_shape(&mut Reader::new(r.len_delimited()?), physical, depth + 1)?;
                true
            }
            (layout::INDEX_PRIMITIVE_TYPE, WireType::Varint) => {
                p.index_primitive_type = r.varint()? as i32;
                true
            }
            (layout::POINTER_PRIMITIVE_TYPE, WireType::Varint) => {
                p.pointer_primitive_type = r.varint()? as i32;
                true
            }
            (layout::DYNAMIC_SHAPE_METADATA_PREFIX_BYTES, WireType::Varint) => {
                p.dynamic_shape_metadata_prefix_bytes = r.varint()? as i64;
                true
            }
            (layout::TAIL_PADDING_ALIGNMENT_IN_ELEMENTS, WireType::Varint) => {
                p.tail_padding_alignment_in_elements = r.varint()? as i64;
                true
            }
            (layout::SPLIT_CONFIGS, WireType::LengthDelimited) => {
                let mut dimension = 0;
                let mut indices = Vec::new();
                nested(r.len_delimited()?, depth + 1, |r, f, w| {
                    Ok(match (f, w) {
                        (split_config::DIMENSION, WireType::Varint) => {
                            dimension = r.varint()? as i64;
                            true
                        }
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
        };
        if !known {
            r.skip(field, wire, depth, MAX_NESTING_DEPTH)?;
        }
    }
    Ok(())
}

// --- encoding ------------------------------------------------------------

/// Appends the `LayoutProto` encoding of `l`, as XLA writes it.
pub(crate) fn put_layout(out: &mut Vec<u8>, l: &Layout) {
    write::packed_int64(out, layout::MINOR_TO_MAJOR, &l.minor_to_major);
    for t in &l.tiles {
        write::message(out, layout::TILES, |out| {
            write::packed_int64(out, tile::DIMENSIONS, t.dimensions())
        });
    }
    write::int64(out, layout::ELEMENT_SIZE_IN_BITS, l.element_size_in_bits);
    write::int64(out, layout::MEMORY_SPACE, l.memory_space);
    if let Some(p) = &l.physical_shape {
        write::message(out, layout::PHYSICAL_SHAPE, |out| put_shape(out, p));
    }
    write::int64(
        out,
        layout::INDEX_PRIMITIVE_TYPE,
        l.index_primitive_type as i64,
    );
    write::int64(
        out,
        layout::POINTER_PRIMITIVE_TYPE,
        l.pointer_primitive_type as i64,
    );
    write::int64(
        out,
        layout::DYNAMIC_SHAPE_METADATA_PREFIX_BYTES,
        l.dynamic_shape_metadata_prefix_bytes,
    );
    write::int64(
        out,
        layout::TAIL_PADDING_ALIGNMENT_IN_ELEMENTS,
        l.tail_padding_alignment_in_elements,
    );
    for s in &l.split_configs {
        write::message(out, layout::SPLIT_CONFIGS, |out| {
            write::int64(out, split_config::DIMENSION, s.dimension());
            write::packed_int64(out, split_config::SPLIT_INDICES, s.split_indices());
        });
    }
}

/// Appends the `ShapeProto` encoding of `s`, as XLA writes it.
pub(crate) fn put_shape(out: &mut Vec<u8>, s: &Shape) {
    write::int64(out, shape::ELEMENT_TYPE, s.element_type() as i64);
    match s {
        Shape::Array(a) => {
            write::packed_int64(out, shape::DIMENSIONS, &a.dimensions);
            if let Some(l) = &a.layout {
                write::message(out, shape::LAYOUT, |out| put_layout(out, l));
            }
            write::packed_bool(out, shape::IS_DYNAMIC_DIMENSION, &a.dynamic);
        }
        Shape::Tuple(elements) => {
            for e in elements {
                write::message(out, shape::TUPLE_SHAPES, |out| put_shape(out, e));
            }
        }
        Shape::Buffer(inner) => {
            write::message(out, shape::TUPLE_SHAPES, |out| put_shape(out, inner))
        }
        Shape::Token | Shape::Opaque => {}
    }
}

/// Appends the `ProgramShapeProto` encoding of `p`, as XLA's `ToProto`
/// followed by C++ serialization writes it (the result always present).
pub(crate) fn put_program_shape(out: &mut Vec<u8>, p: &ProgramShape) {
    for s in p.parameters() {
        write::message(out, program_shape::PARAMETERS, |out| put_shape(out, s));
    }
    write::message(out, program_shape::RESULT, |out| put_shape(out, p.result()));
    for name in p.parameter_names() {
        write::string(out, program_shape::PARAMETER_NAMES, name);
    }
}
