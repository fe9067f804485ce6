//! Writing the wire format into a caller's `Vec<u8>`, as C++ protobuf
//! serializes: fields in the order the caller writes them, packed repeated
//! scalars, proto3 defaults omitted.
//!
//! Keys and varints are written by [`varint`], a loop over `Vec::push`,
//! because prost's `encode_varint` (generic over `BufMut`) costs a third
//! more instructions per encoded shape, and a varint made on the stack and
//! appended at once a fifth more (callgrind, `Shape::to_proto_bytes` of
//! `bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}`). Nested messages and
//! packed runs are written in one pass: the body goes after a one-byte
//! length placeholder, which is patched afterwards (and widened, moving the
//! body, only for bodies of 128 bytes or more), so that no size pass is
//! needed.

use prost::encoding::WireType;

/// Writes `v` as a varint.
#[inline]
pub(crate) fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Writes the key of field `number` with `wire`.
#[inline(always)]
pub(crate) fn key(out: &mut Vec<u8>, number: u32, wire: WireType) {
    varint(out, super::key_of(number, wire));
}

/// Writes a varint field holding `v` (an `int64`, or an enum's number
/// sign-extended), unless it is 0, the proto3 default.
#[inline]
pub(crate) fn int64(out: &mut Vec<u8>, number: u32, v: i64) {
    if v != 0 {
        key(out, number, WireType::Varint);
        varint(out, v as u64);
    }
}

/// Writes a packed repeated `int64` field, unless it is empty: in one pass,
/// as [`message`] writes a body (a length pass first costs more).
pub(crate) fn packed_int64(out: &mut Vec<u8>, number: u32, values: &[i64]) {
    if values.is_empty() {
        return;
    }
    message(out, number, |out| {
        for &v in values {
            varint(out, v as u64);
        }
    });
}

/// Writes a packed repeated `bool` field, unless it is empty.
pub(crate) fn packed_bool(out: &mut Vec<u8>, number: u32, values: &[bool]) {
    if values.is_empty() {
        return;
    }
    key(out, number, WireType::LengthDelimited);
    varint(out, values.len() as u64);
    out.extend(values.iter().map(|&b| u8::from(b)));
}

/// Writes a `string` field (repeated strings write every value, the empty
/// one included).
pub(crate) fn string(out: &mut Vec<u8>, number: u32, s: &str) {
    key(out, number, WireType::LengthDelimited);
    varint(out, s.len() as u64);
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
        varint(&mut prefix, len as u64);
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
    fn packed_runs_match_prost_at_every_length_prefix_width() {
        // Runs whose bodies take one- and two-byte length prefixes (127,
        // 128 and 300 bytes of one-byte values; 1280 takes two bytes and
        // -1 ten), against prost's own packed encoder.
        for values in [
            vec![5i64; 127],
            vec![5; 128],
            vec![5; 300],
            vec![1280; 64],
            vec![-1, 0, 1 << 40, i64::MAX, i64::MIN],
        ] {
            let mut ours = Vec::new();
            packed_int64(&mut ours, 3, &values);
            let mut theirs = Vec::new();
            prost::encoding::int64::encode_packed(3, &values, &mut theirs);
            assert_eq!(ours, theirs, "{} values", values.len());
        }
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
