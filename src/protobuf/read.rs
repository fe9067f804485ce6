//! [`Reader`]: a cursor over the bytes of one message.

use prost::encoding::WireType;

use crate::error::{Error, ErrorKind, Nesting};

/// Why bytes are not a well-formed message. Kept to one byte so that the
/// reader's hot functions return in registers; turned into an [`Error`]
/// once, at the top.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
        let detail = match e {
            WireError::Truncated => "unexpected end of input",
            WireError::VarintTooLong => "varint longer than 10 bytes",
            WireError::InvalidFieldNumber => "invalid field number 0",
            WireError::InvalidWireType => "invalid wire type",
            WireError::UnexpectedEndGroup => "unexpected end group",
            WireError::MismatchedEndGroup => "mismatched end group",
            WireError::TooDeep => {
                return Error::too_deep(ErrorKind::Decode, DECODE_CONTEXT, Nesting::Messages);
            }
        };
        Error::decode(format!("{DECODE_CONTEXT}{detail}"))
    }
}

/// The start of every message about bytes that are not well-formed.
pub(crate) const DECODE_CONTEXT: &str = "failed to decode protobuf message: ";

pub(crate) type WireResult<T> = std::result::Result<T, WireError>;

/// A cursor over the bytes of one message.
pub(crate) struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(buf: &'a [u8]) -> Self {
        Reader { buf, pos: 0 }
    }

    /// The offset of the next byte to read.
    #[cfg(feature = "formats")]
    #[inline]
    pub(crate) fn position(&self) -> usize {
        self.pos
    }

    /// The whole buffer, read and unread.
    #[cfg(feature = "formats")]
    #[inline]
    pub(crate) fn buffer(&self) -> &'a [u8] {
        self.buf
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
            // bits it holds rather than failing (prost's decode_varint
            // rejects them).
            value |= u64::from(b & 0x7f).wrapping_shl(7 * i);
            if b < 0x80 {
                return Ok(value);
            }
        }
        Err(WireError::VarintTooLong)
    }

    /// A field key as the varint it is on the wire (`number << 3 | wire
    /// type`), unchecked: one- and two-byte keys (fields up to 2047) are
    /// read inline. Compare it with [`key_of`] constants.
    #[inline(always)]
    pub(crate) fn raw_key(&mut self) -> WireResult<u64> {
        match self.buf.get(self.pos..self.pos + 2) {
            Some(&[b0, _]) if b0 < 0x80 => {
                self.pos += 1;
                Ok(u64::from(b0))
            }
            Some(&[b0, b1]) if b1 < 0x80 => {
                self.pos += 2;
                Ok(u64::from(b0 & 0x7f) | (u64::from(b1) << 7))
            }
            _ => self.varint(),
        }
    }

    /// A field key: its number and wire type. Field number 0, numbers past
    /// 2^29 - 1 and wire types 6 and 7 are errors, as in every runtime.
    #[inline]
    pub(crate) fn key(&mut self) -> WireResult<(u32, WireType)> {
        let key = self.raw_key()?;
        let field = key >> 3;
        if field == 0 || field > u64::from(u32::MAX >> 3) {
            return Err(WireError::InvalidFieldNumber);
        }
        let wire = match key & 7 {
            0 => WireType::Varint,
            1 => WireType::SixtyFourBit,
            2 => WireType::LengthDelimited,
            3 => WireType::StartGroup,
            4 => WireType::EndGroup,
            5 => WireType::ThirtyTwoBit,
            _ => return Err(WireError::InvalidWireType),
        };
        Ok((field as u32, wire))
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

    /// A length-delimited value: a nested message, string, bytes or a
    /// packed run.
    #[inline(always)]
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
        wire: WireType,
        depth: usize,
        max_depth: usize,
    ) -> WireResult<()> {
        match wire {
            WireType::Varint => self.varint().map(drop),
            WireType::SixtyFourBit => self.bytes(8).map(drop),
            WireType::LengthDelimited => self.len_delimited().map(drop),
            WireType::ThirtyTwoBit => self.bytes(4).map(drop),
            WireType::StartGroup => {
                if depth >= max_depth {
                    return Err(WireError::TooDeep);
                }
                loop {
                    let (f, w) = self.key()?;
                    if w == WireType::EndGroup {
                        return if f == field {
                            Ok(())
                        } else {
                            Err(WireError::MismatchedEndGroup)
                        };
                    }
                    self.skip(f, w, depth + 1, max_depth)?;
                }
            }
            WireType::EndGroup => Err(WireError::UnexpectedEndGroup),
        }
    }

    /// A little-endian fixed32 value.
    #[cfg(feature = "formats")]
    pub(crate) fn fixed32(&mut self) -> WireResult<u32> {
        let mut a = [0u8; 4];
        a.copy_from_slice(self.bytes(4)?);
        Ok(u32::from_le_bytes(a))
    }

    /// A little-endian fixed64 value.
    #[cfg(feature = "formats")]
    pub(crate) fn fixed64(&mut self) -> WireResult<u64> {
        let mut a = [0u8; 8];
        a.copy_from_slice(self.bytes(8)?);
        Ok(u64::from_le_bytes(a))
    }

    /// A repeated varint field as Google's runtimes read it: one value
    /// (wire type varint) or a packed run of them (length-delimited),
    /// whatever the schema's `packed` option says; runs and single values
    /// concatenate. False for any other wire type: the field is then an
    /// unknown field.
    #[inline]
    pub(crate) fn repeated_varint(
        &mut self,
        wire: WireType,
        out: &mut impl VarintSink,
    ) -> WireResult<bool> {
        match wire {
            WireType::Varint => out.push_varint(self.varint()?),
            WireType::LengthDelimited => out.push_packed(self.len_delimited()?)?,
            _ => return Ok(false),
        }
        Ok(true)
    }
}

/// Reads every field of the message `bytes`, which sits `depth` messages
/// deep: `f` reads the fields it knows and says so; any other field is
/// skipped as an unknown field (a group counts towards the nesting limit).
pub(crate) fn each_field<'a>(
    bytes: &'a [u8],
    depth: usize,
    mut f: impl FnMut(&mut Reader<'a>, u32, WireType) -> WireResult<bool>,
) -> WireResult<()> {
    let mut r = Reader::new(bytes);
    while !r.at_end() {
        let (number, wire) = r.key()?;
        if !f(&mut r, number, wire)? {
            r.skip(number, wire, depth, crate::limits::MAX_NESTING_DEPTH)?;
        }
    }
    Ok(())
}

/// How many length-delimited fields `wanted` the top level of `bytes`
/// holds, counted by skipping over every value (0 for bytes that are not a
/// message: the walk reports them).
pub(crate) fn count_fields(bytes: &[u8], wanted: u32) -> usize {
    let mut n = 0;
    let mut r = Reader::new(bytes);
    while !r.at_end() {
        let Ok((number, wire)) = r.key() else { break };
        n += usize::from((number, wire) == (wanted, WireType::LengthDelimited));
        if r.skip(number, wire, 0, crate::limits::MAX_NESTING_DEPTH)
            .is_err()
        {
            break;
        }
    }
    n
}

/// The key of field `number` with `wire`, as a varint's value: what
/// [`Reader::raw_key`] reads and `write::key` writes.
#[inline(always)]
pub(crate) const fn key_of(number: u32, wire: WireType) -> u64 {
    ((number as u64) << 3) | wire as u64
}

/// Where [`Reader::repeated_varint`] puts the values of a repeated field.
pub(crate) trait VarintSink {
    /// Room for `n` more values.
    fn reserve_varints(&mut self, n: usize);
    /// One value, as the field's type reads a varint.
    fn push_varint(&mut self, v: u64);
    /// The values of a packed run.
    #[inline]
    fn push_packed(&mut self, payload: &[u8]) -> WireResult<()> {
        // Each byte below 0x80 ends one value.
        self.reserve_varints(payload.iter().filter(|&&b| b < 0x80).count());
        let mut r = Reader::new(payload);
        while !r.at_end() {
            self.push_varint(r.varint()?);
        }
        Ok(())
    }
}

/// Room for `n` more values: an exact allocation for the first run (the
/// usual case: one packed run per field), which skips `reserve`'s growth
/// path.
#[inline]
fn reserve_exact_first<T>(v: &mut Vec<T>, n: usize) {
    if v.capacity() == 0 {
        *v = Vec::with_capacity(n);
    } else {
        v.reserve(n);
    }
}

/// A scalar a varint holds, read as protobuf reads the field's type.
pub(crate) trait Varint {
    fn from_varint(v: u64) -> Self;
}

impl Varint for i64 {
    /// int64: the varint's 64 bits, two's complement.
    #[inline(always)]
    fn from_varint(v: u64) -> i64 {
        v as i64
    }
}

impl Varint for i32 {
    /// int32 and enums: the low 32 bits (an int32 is written as its
    /// sign-extended 64 bits).
    #[inline(always)]
    fn from_varint(v: u64) -> i32 {
        v as i32
    }
}

impl Varint for bool {
    #[inline(always)]
    fn from_varint(v: u64) -> bool {
        v != 0
    }
}

impl<T: Varint> VarintSink for Vec<T> {
    #[inline]
    fn reserve_varints(&mut self, n: usize) {
        reserve_exact_first(self, n);
    }
    #[inline]
    fn push_varint(&mut self, v: u64) {
        self.push(T::from_varint(v));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_reject_field_zero_and_wire_types_six_and_seven() {
        // Key 0x08: field 1, varint. 0x00: field 0. 0x0e / 0x0f: field 1,
        // wire types 6 and 7 (protobuf encoding guide, "Message Structure").
        assert_eq!(Reader::new(&[0x08]).key(), Ok((1, WireType::Varint)));
        assert_eq!(
            Reader::new(&[0x00]).key(),
            Err(WireError::InvalidFieldNumber)
        );
        assert_eq!(Reader::new(&[0x0e]).key(), Err(WireError::InvalidWireType));
        assert_eq!(Reader::new(&[0x0f]).key(), Err(WireError::InvalidWireType));
    }

    #[test]
    fn two_byte_keys_are_read_inline_as_varints() {
        // 0x80 0x01 = 128 = field 16, varint; 0xfa 0x7f = 16378 = field
        // 2047, length-delimited; 0x82 0x80 0x01 = 16386 = field 2048,
        // length-delimited (three bytes, the general path); 0x80 alone is
        // truncated.
        assert_eq!(Reader::new(&[0x80, 0x01]).key(), Ok((16, WireType::Varint)));
        let mut r = Reader::new(&[0xfa, 0x7f, 0x82, 0x80, 0x01]);
        assert_eq!(r.key(), Ok((2047, WireType::LengthDelimited)));
        assert_eq!(r.raw_key(), Ok(16386));
        assert!(r.at_end());
        assert_eq!(Reader::new(&[0x80]).raw_key(), Err(WireError::Truncated));
        assert_eq!(key_of(16, WireType::Varint), 128);
    }

    #[test]
    fn varints_keep_bit_63_and_drop_higher_bits_as_cpp_does() {
        // Nine 0xff bytes give bits 0..63; a 10th byte 0x7f adds bit 63
        // (its bit 0) and bits 64..69, which C++ drops.
        let mut b = vec![0xff; 9];
        b.push(0x7f);
        assert_eq!(Reader::new(&b).varint(), Ok(u64::MAX));
        let mut b = vec![0xff; 10];
        b.push(0x01);
        assert_eq!(Reader::new(&b).varint(), Err(WireError::VarintTooLong));
        assert_eq!(Reader::new(&[0x80]).varint(), Err(WireError::Truncated));
    }
}
