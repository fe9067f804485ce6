//! Writing the wire format into a caller's `Vec<u8>`, as C++ protobuf
//! serializes: fields in the order the caller writes them, packed repeated
//! scalars, proto3 defaults omitted.
//!
//! Keys and varints are prost's `encoding` helpers. Nested messages are
//! written in one pass: the body goes after a one-byte length placeholder,
//! which is patched afterwards (and widened, moving the body, only for
//! bodies of 128 bytes or more), so that no size pass over the tree is
//! needed.

use prost::encoding::{WireType, encode_key, encode_varint, encoded_len_varint};

/// Writes the key of field `number` with `wire`.
#[inline(always)]
pub(crate) fn key(out: &mut Vec<u8>, number: u32, wire: WireType) {
    encode_key(number, wire, out);
}

/// Writes a varint field holding `v` (an `int64`, or an enum's number
/// sign-extended), unless it is 0, the proto3 default.
#[inline]
pub(crate) fn int64(out: &mut Vec<u8>, number: u32, v: i64) {
    if v != 0 {
        key(out, number, WireType::Varint);
        encode_varint(v as u64, out);
    }
}

/// Writes a packed repeated `int64` field, unless it is empty.
pub(crate) fn packed_int64(out: &mut Vec<u8>, number: u32, values: &[i64]) {
    if values.is_empty() {
        return;
    }
    key(out, number, WireType::LengthDelimited);
    let len: usize = values.iter().map(|&v| encoded_len_varint(v as u64)).sum();
    encode_varint(len as u64, out);
    for &v in values {
        encode_varint(v as u64, out);
    }
}

/// Writes a packed repeated `bool` field, unless it is empty.
pub(crate) fn packed_bool(out: &mut Vec<u8>, number: u32, values: &[bool]) {
    if values.is_empty() {
        return;
    }
    key(out, number, WireType::LengthDelimited);
    encode_varint(values.len() as u64, out);
    out.extend(values.iter().map(|&b| u8::from(b)));
}

/// Writes a `string` field (repeated strings write every value, the empty
/// one included).
pub(crate) fn string(out: &mut Vec<u8>, number: u32, s: &str) {
    key(out, number, WireType::LengthDelimited);
    encode_varint(s.len() as u64, out);
    out.extend_from_slice(s.as_bytes());
}

/// Writes a message field: its key, then the body `body` writes, prefixed
/// by its length.
#[inline]
pub(crate) fn message(out: &mut Vec<u8>, number: u32, body: impl FnOnce(&mut Vec<u8>)) {
    key(out, number, WireType::LengthDelimited);
    let at = out.len();
    out.push(0);
    body(out);
    let len = out.len() - at - 1;
    if len < 0x80 {
        out[at] = len as u8;
    } else {
        let mut prefix = Vec::with_capacity(10);
        encode_varint(len as u64, &mut prefix);
        out.splice(at..at + 1, prefix);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_bodies_widen_their_length_prefix() {
        // A 200-byte body: length 200 is the varint c8 01.
        let mut out = Vec::new();
        message(&mut out, 4, |out| out.extend([7u8; 200]));
        assert_eq!(&out[..3], [0x22, 0xc8, 0x01]);
        assert_eq!(out.len(), 203);
        assert!(out[3..].iter().all(|&b| b == 7));
    }

    #[test]
    fn defaults_and_empty_runs_are_omitted() {
        let mut out = Vec::new();
        int64(&mut out, 7, 0);
        packed_int64(&mut out, 1, &[]);
        packed_bool(&mut out, 6, &[]);
        assert!(out.is_empty());
        // Field 16 takes a two-byte key: (16 << 3) | 0 = 128 = 80 01.
        int64(&mut out, 16, 1);
        assert_eq!(out, [0x80, 0x01, 0x01]);
    }
}
