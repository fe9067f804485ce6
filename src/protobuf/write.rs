//! Writing the wire format into a caller's `Vec<u8>`, as C++ protobuf
//! serializes: fields in the order the caller writes them, packed repeated
//! scalars, proto3 defaults omitted.
//!
//! [`append`] reserves, once, the most bytes a message can take (the
//! caller's bound: [`MAX_FIELD`] per field, [`MAX_VARINT`] per packed value,
//! the length of strings), then a [`Writer`] fills the reserved space
//! without a check per byte and sets the vector's length once at the end.
//! Pushing each byte onto the `Vec` cost 10% more instructions per encoded
//! shape (a byte stored may alias the vector's length, which is then
//! reloaded and stored again for every byte), and a bounds check per byte
//! (or per field) as much (callgrind, `bench/compare`, the golden corpus:
//! 409 instructions a record unchecked, 451 checked, 449 pushed); prost's
//! `encode_varint` (generic over `BufMut`) cost a third more. Nested
//! messages and packed runs are written in one pass: the body goes after a
//! one-byte length placeholder, which is patched afterwards (and widened,
//! moving the body, only for bodies of 128 bytes or more), so that no size
//! pass is needed.
//!
//! The bound is the one promise the unchecked writes rest on: each
//! caller's bound function sits beside the function that writes (in
//! `model::wire`), every write is checked against it in debug builds (the
//! tests encode every golden shape, tuples of them and edge cases), and the
//! writer's tests run under Miri.

use std::mem::MaybeUninit;

use prost::encoding::WireType;

/// The most bytes a varint takes.
pub(crate) const MAX_VARINT: usize = 10;

/// The most bytes a field takes besides its payload's own bytes (packed
/// values, a string's bytes, a message's fields): two varints, the key and
/// the value or the length.
pub(crate) const MAX_FIELD: usize = 2 * MAX_VARINT;

/// Appends to `out` what `write` writes.
///
/// # Safety
///
/// `write` writes at most `max_len` bytes (the writer does not check in
/// release builds).
#[inline]
pub(crate) unsafe fn append(
    out: &mut Vec<u8>,
    max_len: usize,
    write: impl FnOnce(&mut Writer<'_>),
) {
    out.reserve(max_len);
    let start = out.len();
    let mut w = Writer {
        buf: &mut out.spare_capacity_mut()[..max_len],
        pos: 0,
    };
    write(&mut w);
    let written = w.pos;
    // SAFETY: the writer initializes its bytes in order from the start of
    // the spare capacity (`message` only moves bytes it wrote), so the first
    // `written` of them are initialized, and within the capacity (at most
    // `max_len`, which the capacity holds).
    unsafe { out.set_len(start + written) };
}

/// A cursor over the bytes [`append`] reserved. Its writes are unchecked
/// in release builds: a `Writer` exists only inside `append`, whose caller
/// promises the bound.
pub(crate) struct Writer<'a> {
    buf: &'a mut [MaybeUninit<u8>],
    pos: usize,
}

/// Writes `v` as a varint at `pos` of `buf`; the position after it. The
/// writers keep the position in a local while they write (a byte stored
/// through `buf` could otherwise alias the writer's own fields, which would
/// be reloaded and stored again for every byte).
///
/// # Safety
///
/// The varint's bytes (at most [`MAX_VARINT`]) fit in `buf` from `pos`.
#[inline(always)]
unsafe fn varint_at(buf: &mut [MaybeUninit<u8>], mut pos: usize, mut v: u64) -> usize {
    while v >= 0x80 {
        debug_assert!(pos < buf.len(), "a protobuf writer's bound is too small");
        // SAFETY: the caller's promise.
        unsafe { buf.get_unchecked_mut(pos) }.write((v as u8) | 0x80);
        pos += 1;
        v >>= 7;
    }
    debug_assert!(pos < buf.len(), "a protobuf writer's bound is too small");
    // SAFETY: the caller's promise.
    unsafe { buf.get_unchecked_mut(pos) }.write(v as u8);
    pos + 1
}

impl Writer<'_> {
    #[inline(always)]
    fn byte(&mut self, b: u8) {
        debug_assert!(
            self.pos < self.buf.len(),
            "a protobuf writer's bound is too small"
        );
        // SAFETY: within the bound `append`'s caller promised.
        unsafe { self.buf.get_unchecked_mut(self.pos) }.write(b);
        self.pos += 1;
    }

    /// Writes `v` as a varint.
    #[inline(always)]
    pub(crate) fn varint(&mut self, v: u64) {
        // SAFETY: within the bound `append`'s caller promised.
        self.pos = unsafe { varint_at(self.buf, self.pos, v) };
    }

    /// Writes the key of field `number` with `wire`.
    #[inline(always)]
    pub(crate) fn key(&mut self, number: u32, wire: WireType) {
        self.varint(super::key_of(number, wire));
    }

    /// Writes a varint field holding `v` (an `int64`, or an enum's number
    /// sign-extended), unless it is 0, the proto3 default.
    #[inline(always)]
    pub(crate) fn int64(&mut self, number: u32, v: i64) {
        if v != 0 {
            let buf = &mut *self.buf;
            let key = super::key_of(number, WireType::Varint);
            // SAFETY: within the bound `append`'s caller promised.
            self.pos = unsafe {
                let pos = varint_at(buf, self.pos, key);
                varint_at(buf, pos, v as u64)
            };
        }
    }

    /// Writes a packed repeated `int64` field, unless it is empty: in one
    /// pass, as [`message`](Self::message) writes a body (a length pass
    /// first costs more).
    #[inline(always)]
    pub(crate) fn packed_int64(&mut self, number: u32, values: &[i64]) {
        if values.is_empty() {
            return;
        }
        self.message(number, |w| {
            let buf = &mut *w.buf;
            let mut pos = w.pos;
            for &v in values {
                // SAFETY: within the bound `append`'s caller promised.
                pos = unsafe { varint_at(buf, pos, v as u64) };
            }
            w.pos = pos;
        });
    }

    /// Writes a packed repeated `bool` field, unless it is empty.
    #[inline(always)]
    pub(crate) fn packed_bool(&mut self, number: u32, values: &[bool]) {
        if values.is_empty() {
            return;
        }
        self.key(number, WireType::LengthDelimited);
        self.varint(values.len() as u64);
        for &b in values {
            self.byte(u8::from(b));
        }
    }

    /// Writes a `string` field (repeated strings write every value, the
    /// empty one included).
    pub(crate) fn string(&mut self, number: u32, s: &str) {
        self.key(number, WireType::LengthDelimited);
        self.varint(s.len() as u64);
        self.bytes(s.as_bytes());
    }

    /// Writes `bytes` as they are.
    pub(crate) fn bytes(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.byte(b);
        }
    }

    /// Writes a message field: its key, then the body `body` writes,
    /// prefixed by its length.
    #[inline(always)]
    pub(crate) fn message(&mut self, number: u32, body: impl FnOnce(&mut Self)) {
        self.key(number, WireType::LengthDelimited);
        let at = self.pos;
        self.byte(0);
        body(self);
        let len = self.pos - at - 1;
        if len < 0x80 {
            self.buf[at].write(len as u8);
        } else {
            self.widen(at, len);
        }
    }

    /// Replaces the one-byte length placeholder at `at` by the varint of
    /// `len`, moving the `len` bytes of the body after it.
    #[cold]
    fn widen(&mut self, at: usize, len: usize) {
        let width = prost::encoding::encoded_len_varint(len as u64);
        self.buf.copy_within(at + 1..self.pos, at + width);
        let end = self.pos + width - 1;
        self.pos = at;
        self.varint(len as u64);
        self.pos = end;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_bodies_widen_their_length_prefix() {
        // A 200-byte body: length 200 is the varint c8 01.
        let mut out = Vec::new();
        // SAFETY: a key, a length of at most 10 bytes and 200 bytes.
        unsafe {
            append(&mut out, 213, |w| {
                w.message(4, |w| (0..200).for_each(|_| w.byte(7)))
            })
        };
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
            let mut ours = vec![9];
            // SAFETY: a field and a varint per value.
            unsafe {
                append(&mut ours, MAX_FIELD + MAX_VARINT * values.len(), |w| {
                    w.packed_int64(3, &values)
                })
            };
            assert_eq!(ours.remove(0), 9, "appended after what was there");
            let mut theirs = Vec::new();
            prost::encoding::int64::encode_packed(3, &values, &mut theirs);
            assert_eq!(ours, theirs, "{} values", values.len());
        }
    }

    #[test]
    fn defaults_and_empty_runs_are_omitted() {
        let mut out = Vec::new();
        // SAFETY: nothing is written.
        unsafe {
            append(&mut out, 0, |w| {
                w.int64(7, 0);
                w.packed_int64(1, &[]);
                w.packed_bool(6, &[]);
            })
        };
        assert!(out.is_empty());
        // Field 16 takes a two-byte key: (16 << 3) | 0 = 128 = 80 01.
        // SAFETY: one field.
        unsafe { append(&mut out, MAX_FIELD, |w| w.int64(16, 1)) };
        assert_eq!(out, [0x80, 0x01, 0x01]);
    }
}
