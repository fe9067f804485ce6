//! The byte layer of MLIR bytecode (`mlir/docs/BytecodeFormat.md`,
//! `mlir/lib/Bytecode/Reader/BytecodeReader.cpp`): prefix varints, zigzag
//! signed varints, null-terminated strings, sections, and the errors that
//! name the byte where reading stopped.

use crate::error::{Error, Result};

/// The error of bytecode that cannot be read at byte `offset` of the
/// input.
pub(crate) fn error_at(offset: usize, message: impl std::fmt::Display) -> Error {
    Error::decode(format!("MLIR bytecode: byte {offset}: {message}"))
}

/// A reader over part of the input, which knows where that part starts
/// (for the offsets of its errors).
#[derive(Clone, Copy)]
pub(crate) struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    /// The offset of `data[0]` in the input.
    base: usize,
}

impl<'a> Reader<'a> {
    /// A reader of `data`, which starts at byte `base` of the input.
    pub(crate) fn new(data: &'a [u8], base: usize) -> Self {
        Reader { data, pos: 0, base }
    }

    /// The offset in the input of the next byte.
    pub(crate) fn offset(&self) -> usize {
        self.base + self.pos
    }

    /// The bytes not read yet.
    pub(crate) fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    /// Whether everything was read.
    pub(crate) fn is_empty(&self) -> bool {
        self.pos >= self.data.len()
    }

    /// An error at the next byte.
    pub(crate) fn error(&self, message: impl std::fmt::Display) -> Error {
        error_at(self.offset(), message)
    }

    /// One byte (`parseByte`).
    pub(crate) fn byte(&mut self) -> Result<u8> {
        match self.data.get(self.pos) {
            Some(&b) => {
                self.pos += 1;
                Ok(b)
            }
            None => Err(self.error("attempting to parse a byte at the end of the bytecode")),
        }
    }

    /// `length` bytes (`parseBytes`).
    pub(crate) fn bytes(&mut self, length: u64) -> Result<&'a [u8]> {
        let remaining = self.remaining();
        match usize::try_from(length) {
            Ok(n) if n <= remaining => {
                let out = &self.data[self.pos..self.pos + n];
                self.pos += n;
                Ok(out)
            }
            _ => Err(self.error(format!(
                "attempting to parse {length} bytes when only {remaining} remain"
            ))),
        }
    }

    /// A reader of the next `length` bytes, which this one skips.
    pub(crate) fn sub(&mut self, length: u64) -> Result<Reader<'a>> {
        let base = self.offset();
        Ok(Reader::new(self.bytes(length)?, base))
    }

    /// A prefix varint (`parseVarInt`): the number of trailing zero bits of
    /// the first byte is the number of bytes that follow; a first byte of
    /// zero is followed by eight bytes.
    pub(crate) fn varint(&mut self) -> Result<u64> {
        let first = self.byte()?;
        if first & 1 == 1 {
            return Ok(u64::from(first >> 1));
        }
        if first == 0 {
            let bytes = self.bytes(8)?;
            let mut le = [0u8; 8];
            le.copy_from_slice(bytes);
            return Ok(u64::from_le_bytes(le));
        }
        let extra = first.trailing_zeros() as usize;
        let rest = self.bytes(extra as u64)?;
        let mut le = [0u8; 8];
        le[0] = first;
        le[1..=extra].copy_from_slice(rest);
        Ok(u64::from_le_bytes(le) >> (extra + 1))
    }

    /// A zigzag-encoded signed varint (`parseSignedVarInt`).
    pub(crate) fn signed_varint(&mut self) -> Result<i64> {
        let v = self.varint()?;
        Ok(((v >> 1) as i64) ^ -((v & 1) as i64))
    }

    /// A varint whose low bit is a flag (`parseVarIntWithFlag`).
    pub(crate) fn varint_with_flag(&mut self) -> Result<(u64, bool)> {
        let v = self.varint()?;
        Ok((v >> 1, v & 1 == 1))
    }

    /// A count of items that each take at least one byte: more than the
    /// bytes left is an error, so that nothing is sized by it first.
    pub(crate) fn count(&mut self, what: &str) -> Result<usize> {
        let at = self.offset();
        let n = self.varint()?;
        match usize::try_from(n) {
            Ok(n) if n <= self.remaining() => Ok(n),
            _ => Err(error_at(
                at,
                format!(
                    "{n} {what} do not fit in the {} bytes left",
                    self.remaining()
                ),
            )),
        }
    }

    /// A null-terminated string (`parseNullTerminatedString`), without its
    /// terminator.
    pub(crate) fn c_string(&mut self) -> Result<&'a [u8]> {
        let rest = &self.data[self.pos..];
        match rest.iter().position(|&b| b == 0) {
            Some(end) => {
                self.pos += end + 1;
                Ok(&rest[..end])
            }
            None => Err(self.error("malformed null-terminated string, no null character found")),
        }
    }

    /// A section (`parseSection`): its ID and a reader of its data, after
    /// the alignment padding (`0xCB` bytes up to a multiple of the
    /// alignment, counted from the start of the input).
    pub(crate) fn section(&mut self) -> Result<(u8, Reader<'a>)> {
        let id_and_align = self.byte()?;
        let length = self.varint()?;
        if id_and_align & 0x80 != 0 {
            let at = self.offset();
            let alignment = self.varint()?;
            if !alignment.is_power_of_two() {
                return Err(error_at(at, "expected alignment to be a power-of-two"));
            }
            while !(self.offset() as u64).is_multiple_of(alignment) {
                let at = self.offset();
                let padding = self.byte()?;
                if padding != 0xCB {
                    return Err(error_at(
                        at,
                        format!("expected alignment byte (0xCB), but got: '0x{padding:X}'"),
                    ));
                }
            }
        }
        Ok((id_and_align & 0x7F, self.sub(length)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_varints() {
        // BytecodeFormat.md: the trailing zeros of the first byte count the
        // bytes that follow; 0x00 is followed by eight.
        let cases: &[(&[u8], u64)] = &[
            (&[0x01], 0),
            (&[0xFF], 127),
            (&[0x02, 0x02], 128),
            (&[0xA2, 0x08], 552),
            (&[0x04, 0x00, 0x01], 1 << 13),
            (&[0x00, 1, 2, 3, 4, 5, 6, 7, 8], 0x0807_0605_0403_0201),
        ];
        for (bytes, want) in cases {
            let mut r = Reader::new(bytes, 0);
            assert_eq!(r.varint().unwrap(), *want, "{bytes:02x?}");
            assert!(r.is_empty());
        }
        // Zigzag: 2 is 1, 1 is -1.
        let mut r = Reader::new(&[0x05, 0x03], 0);
        assert_eq!(r.signed_varint().unwrap(), 1);
        assert_eq!(r.signed_varint().unwrap(), -1);
        let err = Reader::new(&[0x02], 7).varint().unwrap_err();
        assert!(err.message().starts_with("MLIR bytecode: byte 8:"), "{err}");
    }

    #[test]
    fn counts_cannot_outgrow_the_input() {
        let mut r = Reader::new(&[0x05, 0, 0], 0);
        assert_eq!(r.count("values").unwrap(), 2);
        let err = Reader::new(&[0x09, 0], 0).count("values").unwrap_err();
        assert!(err.message().contains("4 values do not fit"), "{err}");
    }
}
