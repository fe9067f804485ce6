//! The protobuf wire format of `ShapeProto` and `LayoutProto`, by hand.
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
use crate::model::convert::{MAX_NESTING_DEPTH, RawLayout, RawShape};
use crate::model::layout::Layout;
use crate::model::shape::Shape;
use crate::model::tile::{SplitConfig, Tile};

const VARINT: u8 = 0;
const I64: u8 = 1;
const LEN: u8 = 2;
const SGROUP: u8 = 3;
const EGROUP: u8 = 4;
const I32: u8 = 5;

/// Why bytes are not a well-formed message. Kept to one byte so that the
/// reader's hot functions return in registers; turned into an [`Error`] once,
/// at the top.
#[derive(Clone, Copy, Debug)]
pub(crate) enum WireError {
    Truncated,
    VarintTooLong,
    InvalidFieldNumber,
    InvalidWireType,
    UnexpectedEndGroup,
    MismatchedEndGroup,
    TooDeep,
}

impl From<WireError> for Error {
    fn from(e: WireError) -> Error {
        Error::decode(match e {
            WireError::Truncated => {
                "failed to decode protobuf message: unexpected end of input".to_string()
            }
            WireError::VarintTooLong => {
                "failed to decode protobuf message: varint longer than 10 bytes".to_string()
            }
            WireError::InvalidFieldNumber => {
                "failed to decode protobuf message: invalid field number 0".to_string()
            }
            WireError::InvalidWireType => {
                "failed to decode protobuf message: invalid wire type".to_string()
            }
            WireError::UnexpectedEndGroup => {
                "failed to decode protobuf message: unexpected end group".to_string()
            }
            WireError::MismatchedEndGroup => {
                "failed to decode protobuf message: mismatched end group".to_string()
            }
            WireError::TooDeep => format!(
                "failed to decode protobuf message: nesting exceeds the recursion limit of {MAX_NESTING_DEPTH}"
            ),
        })
    }
}

pub(crate) type WireResult<T> = std::result::Result<T, WireError>;

/// A cursor over the bytes of one message, shared by the model's decoder
/// and the reflective decoder of `formats`.
pub(crate) struct Reader<'a> {
    pub(crate) buf: &'a [u8],
    pub(crate) pos: usize,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(buf: &'a [u8]) -> Self {
        Reader { buf, pos: 0 }
    }

    #[inline]
    pub(crate) fn at_end(&self) -> bool {
        self.pos >= self.buf.len()
    }

    #[inline(always)]
    pub(crate) fn varint(&mut self) -> WireResult<u64> {
        match self.buf.get(self.pos) {
            Some(&b) if b < 0x80 => {
                self.pos += 1;
                Ok(u64::from(b))
            }
            _ => self.varint_slow(),
        }
    }

    #[inline(never)]
    fn varint_slow(&mut self) -> WireResult<u64> {
        let mut value = 0u64;
        for i in 0..10 {
            let Some(&b) = self.buf.get(self.pos) else {
                return Err(WireError::Truncated);
            };
            self.pos += 1;
            // The 10th byte carries bit 63; C++ protobuf drops any higher
            // bits it holds rather than failing.
            value |= u64::from(b & 0x7f).wrapping_shl(7 * i);
            if b < 0x80 {
                return Ok(value);
            }
        }
        Err(WireError::VarintTooLong)
    }

    #[inline]
    pub(crate) fn key(&mut self) -> WireResult<(u32, u8)> {
        let key = self.varint()?;
        let field = key >> 3;
        if field == 0 || field > u64::from(u32::MAX >> 3) {
            return Err(WireError::InvalidFieldNumber);
        }
        Ok((field as u32, (key & 7) as u8))
    }

    #[inline]
    pub(crate) fn bytes(&mut self, n: usize) -> WireResult<&'a [u8]> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.buf.len())
            .ok_or(WireError::Truncated)?;
        let s = &self.buf[self.pos..end];
        self.pos = end;
        Ok(s)
    }

    #[inline]
    pub(crate) fn len_delimited(&mut self) -> WireResult<&'a [u8]> {
        let n = self.varint()?;
        let n = usize::try_from(n).map_err(|_| WireError::Truncated)?;
        self.bytes(n)
    }

    /// Skips the value of an unknown field; a group counts as a nested
    /// message towards `max_depth`.
    pub(crate) fn skip(
        &mut self,
        field: u32,
        wire_type: u8,
        depth: usize,
        max_depth: usize,
    ) -> WireResult<()> {
        match wire_type {
            VARINT => self.varint().map(drop),
            I64 => self.bytes(8).map(drop),
            LEN => self.len_delimited().map(drop),
            I32 => self.bytes(4).map(drop),
            SGROUP => {
                if depth >= max_depth {
                    return Err(WireError::TooDeep);
                }
                loop {
                    let (f, wt) = self.key()?;
                    if wt == EGROUP {
                        return if f == field {
                            Ok(())
                        } else {
                            Err(WireError::MismatchedEndGroup)
                        };
                    }
                    self.skip(f, wt, depth + 1, max_depth)?;
                }
            }
            EGROUP => Err(WireError::UnexpectedEndGroup),
            _ => Err(WireError::InvalidWireType),
        }
    }

    /// A little-endian fixed32 value.
    pub(crate) fn fixed32(&mut self) -> WireResult<u32> {
        let b = self.bytes(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// A little-endian fixed64 value.
    pub(crate) fn fixed64(&mut self) -> WireResult<u64> {
        let mut a = [0u8; 8];
        a.copy_from_slice(self.bytes(8)?);
        Ok(u64::from_le_bytes(a))
    }

    /// A packed run: the payload, with `out` reserved for the number of
    /// varints in it (bytes below 0x80 end one).
    #[inline]
    fn packed<T>(&mut self, out: &mut Vec<T>) -> WireResult<Reader<'a>> {
        let payload = self.len_delimited()?;
        out.reserve(payload.iter().filter(|&&b| b < 0x80).count());
        Ok(Reader::new(payload))
    }

    /// A repeated int64 field: one varint, or a packed run of them. False
    /// for any other wire type (the field is then unknown).
    #[inline]
    fn int64s(&mut self, wire_type: u8, out: &mut Vec<i64>) -> WireResult<bool> {
        match wire_type {
            VARINT => out.push(self.varint()? as i64),
            LEN => {
                let mut r = self.packed(out)?;
                while !r.at_end() {
                    out.push(r.varint()? as i64);
                }
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// A repeated bool field, as [`int64s`](Self::int64s).
    #[inline]
    fn bools(&mut self, wire_type: u8, out: &mut Vec<bool>) -> WireResult<bool> {
        match wire_type {
            VARINT => out.push(self.varint()? != 0),
            LEN => {
                let mut r = self.packed(out)?;
                while !r.at_end() {
                    out.push(r.varint()? != 0);
                }
            }
            _ => return Ok(false),
        }
        Ok(true)
    }
}

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

fn merge_shape(r: &mut Reader<'_>, p: &mut RawShape, depth: usize) -> WireResult<()> {
    while !r.at_end() {
        let (field, wt) = r.key()?;
        let known = match (field, wt) {
            (2, VARINT) => {
                p.element_type = r.varint()? as i32;
                true
            }
            (3, _) => r.int64s(wt, &mut p.dimensions)?,
            (6, _) => r.bools(wt, &mut p.dynamic)?,
            (4, LEN) => {
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
            (5, LEN) => {
                let layout = p.layout.get_or_insert_with(Default::default);
                merge_layout(&mut Reader::new(r.len_delimited()?), layout, depth + 1)?;
                true
            }
            _ => false,
        };
        if !known {
            r.skip(field, wt, depth, MAX_NESTING_DEPTH)?;
        }
    }
    Ok(())
}

fn merge_layout(r: &mut Reader<'_>, p: &mut RawLayout, depth: usize) -> WireResult<()> {
    if depth > MAX_NESTING_DEPTH {
        return Err(WireError::TooDeep);
    }
    while !r.at_end() {
        let (field, wt) = r.key()?;
        let known = match (field, wt) {
            (1, _) => r.int64s(wt, &mut p.minor_to_major)?,
            (6, LEN) => {
                if depth >= MAX_NESTING_DEPTH {
                    return Err(WireError::TooDeep);
                }
                let mut tile = Tile::default();
                let mut t = Reader::new(r.len_delimited()?);
                while !t.at_end() {
                    let (f, w) = t.key()?;
                    let known = match (f, w) {
                        (1, VARINT) => {
                            tile.push_unchecked(t.varint()? as i64);
                            true
                        }
                        (1, LEN) => {
                            let mut packed = Reader::new(t.len_delimited()?);
                            while !packed.at_end() {
                                tile.push_unchecked(packed.varint()? as i64);
                            }
                            true
                        }
                        _ => false,
                    };
                    if !known {
                        t.skip(f, w, depth + 1, MAX_NESTING_DEPTH)?;
                    }
                }
                p.tiles.push(tile);
                true
            }
            (7, VARINT) => {
                p.element_size_in_bits = r.varint()? as i64;
                true
            }
            (8, VARINT) => {
                p.memory_space = r.varint()? as i64;
                true
            }
            (10, LEN) => {
                if depth >= MAX_NESTING_DEPTH {
                    return Err(WireError::TooDeep);
                }
                let physical = p.physical_shape.get_or_insert_with(Default::default);
                merge_shape(&mut Reader::new(r.len_delimited()?), physical, depth + 1)?;
                true
            }
            (11, VARINT) => {
                p.index_primitive_type = r.varint()? as i32;
                true
            }
            (12, VARINT) => {
                p.pointer_primitive_type = r.varint()? as i32;
                true
            }
            (15, VARINT) => {
                p.dynamic_shape_metadata_prefix_bytes = r.varint()? as i64;
                true
            }
            (16, VARINT) => {
                p.tail_padding_alignment_in_elements = r.varint()? as i64;
                true
            }
            (17, LEN) => {
                if depth >= MAX_NESTING_DEPTH {
                    return Err(WireError::TooDeep);
                }
                let mut dimension = 0;
                let mut indices = Vec::new();
                let mut s = Reader::new(r.len_delimited()?);
                while !s.at_end() {
                    let (f, w) = s.key()?;
                    let known = match (f, w) {
                        (1, VARINT) => {
                            dimension = s.varint()? as i64;
                            true
                        }
                        (2, _) => s.int64s(w, &mut indices)?,
                        _ => false,
                    };
                    if !known {
                        s.skip(f, w, depth + 1, MAX_NESTING_DEPTH)?;
                    }
                }
                p.split_configs.push(SplitConfig::new(dimension, indices));
                true
            }
            // Everything else, the sparse fields 9, 13 and 14 included
            // (which XLA's FromProto ignores), is skipped.
            _ => false,
        };
        if !known {
            r.skip(field, wt, depth, MAX_NESTING_DEPTH)?;
        }
    }
    Ok(())
}

// --- encoding ------------------------------------------------------------
//
// One pass: a nested message is written after a one-byte length
// placeholder, which is patched afterwards (and widened, moving the body,
// only for bodies of 128 bytes or more).

fn varint_len(v: u64) -> usize {
    // 1 byte per started group of 7 bits; 0 takes one byte.
    (64 - (v | 1).leading_zeros() as usize).div_ceil(7)
}

#[inline]
fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn packed_i64_len(values: &[i64]) -> usize {
    values.iter().map(|&v| varint_len(v as u64)).sum()
}

fn put_packed(out: &mut Vec<u8>, key: u8, values: &[i64]) {
    if values.is_empty() {
        return;
    }
    out.push(key);
    put_varint(out, packed_i64_len(values) as u64);
    for &v in values {
        put_varint(out, v as u64);
    }
}

#[inline]
fn put_scalar(out: &mut Vec<u8>, key: &[u8], v: i64) {
    if v != 0 {
        out.extend_from_slice(key);
        put_varint(out, v as u64);
    }
}

/// Writes `key`, then the message `body` writes, prefixed by its length.
#[inline]
fn put_message(out: &mut Vec<u8>, key: &[u8], body: impl FnOnce(&mut Vec<u8>)) {
    out.extend_from_slice(key);
    let at = out.len();
    out.push(0);
    body(out);
    let len = out.len() - at - 1;
    if len < 0x80 {
        out[at] = len as u8;
    } else {
        let mut prefix = Vec::with_capacity(10);
        put_varint(&mut prefix, len as u64);
        out.splice(at..at + 1, prefix);
    }
}

fn put_layout(out: &mut Vec<u8>, l: &Layout) {
    put_packed(out, 0x0a, &l.minor_to_major);
    for t in &l.tiles {
        put_message(out, &[0x32], |out| put_packed(out, 0x0a, t.dimensions()));
    }
    put_scalar(out, &[0x38], l.element_size_in_bits);
    put_scalar(out, &[0x40], l.memory_space);
    if let Some(p) = &l.physical_shape {
        put_message(out, &[0x52], |out| put_shape(out, p));
    }
    put_scalar(out, &[0x58], l.index_primitive_type as i64);
    put_scalar(out, &[0x60], l.pointer_primitive_type as i64);
    put_scalar(out, &[0x78], l.dynamic_shape_metadata_prefix_bytes);
    put_scalar(out, &[0x80, 0x01], l.tail_padding_alignment_in_elements);
    for s in &l.split_configs {
        put_message(out, &[0x8a, 0x01], |out| {
            put_scalar(out, &[0x08], s.dimension());
            put_packed(out, 0x12, s.split_indices());
        });
    }
}

/// Appends the `ShapeProto` encoding of `s`, as XLA writes it.
pub(crate) fn put_shape(out: &mut Vec<u8>, s: &Shape) {
    put_scalar(out, &[0x10], s.element_type() as i64);
    match s {
        Shape::Array(a) => {
            put_packed(out, 0x1a, &a.dimensions);
            if let Some(l) = &a.layout {
                put_message(out, &[0x2a], |out| put_layout(out, l));
            }
            if !a.dynamic.is_empty() {
                out.push(0x32);
                put_varint(out, a.dynamic.len() as u64);
                out.extend(a.dynamic.iter().map(|&d| u8::from(d)));
            }
        }
        Shape::Tuple(elements) => {
            for e in elements {
                put_message(out, &[0x22], |out| put_shape(out, e));
            }
        }
        Shape::Buffer(inner) => put_message(out, &[0x22], |out| put_shape(out, inner)),
        Shape::Token | Shape::Opaque => {}
    }
}

/// Appends the `LayoutProto` encoding of `l`, as XLA writes it.
pub(crate) fn put_layout_message(out: &mut Vec<u8>, l: &Layout) {
    put_layout(out, l);
}
