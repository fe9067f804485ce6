//! Hex dumps, as people paste them from logs.

use crate::error::{Error, ErrorKind, Result};

/// `bytes` as lowercase hex, two digits a byte, nothing between them.
///
/// ```
/// assert_eq!(xla_shape::formats::to_hex(&[0x10, 0x0b, 0xff]), "100bff");
/// ```
pub fn to_hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        s.push(DIGITS[usize::from(b >> 4)] as char);
        s.push(DIGITS[usize::from(b & 15)] as char);
    }
    s
}

/// Bytes from a hex dump: digits in either case, whitespace anywhere
/// (`10 0b 1a 01 02`, a dump wrapped over lines), an optional `0x` prefix,
/// and `\x` before each byte (`\x10\x0b`, as Python prints bytes) are all
/// accepted.
///
/// # Errors
///
/// [`Decode`](ErrorKind::Decode), saying where, for a character that is
/// not a hex digit and for an odd number of digits.
///
/// ```
/// use xla_shape::formats::from_hex;
/// assert_eq!(from_hex("100B 1a01\n02")?, [0x10, 0x0b, 0x1a, 0x01, 0x02]);
/// assert_eq!(from_hex("0x100b")?, [0x10, 0x0b]);
/// assert_eq!(from_hex(r"\x10\x0b")?, [0x10, 0x0b]);
/// assert_eq!(
///     from_hex("100g").unwrap_err().to_string(),
///     "invalid hex: 'g' at byte 3 is not a hex digit"
/// );
/// assert_eq!(
///     from_hex("100").unwrap_err().to_string(),
///     "invalid hex: odd number of hex digits (3)"
/// );
/// # Ok::<(), xla_shape::Error>(())
/// ```
pub fn from_hex(text: &str) -> Result<Vec<u8>> {
    let trimmed = text.trim_start();
    let offset = text.len() - trimmed.len();
    let (body, offset) = match trimmed
        .strip_prefix("0x")
        .or_else(|| trimmed.strip_prefix("0X"))
    {
        Some(rest) => (rest, offset + 2),
        None => (trimmed, offset),
    };
    let mut out = Vec::with_capacity(body.len() / 2);
    let mut high: Option<u8> = None;
    let mut digits = 0usize;
    let mut chars = body.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c.is_whitespace() {
            continue;
        }
        if c == '\\' && high.is_none() && matches!(chars.peek(), Some((_, 'x' | 'X'))) {
            chars.next();
            continue;
        }
        let Some(v) = c.to_digit(16) else {
            return Err(Error::new(
                ErrorKind::Decode,
                format!(
                    "invalid hex: {c:?} at byte {} is not a hex digit",
                    offset + i
                ),
            ));
        };
        digits += 1;
        let v = v as u8;
        match high.take() {
            Some(h) => out.push((h << 4) | v),
            None => high = Some(v),
        }
    }
    if high.is_some() {
        return Err(Error::new(
            ErrorKind::Decode,
            format!("invalid hex: odd number of hex digits ({digits})"),
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_every_byte() {
        let all: Vec<u8> = (0..=255).collect();
        let hex = to_hex(&all);
        assert_eq!(hex.len(), 512);
        assert_eq!(from_hex(&hex).unwrap(), all);
        assert_eq!(from_hex(&hex.to_uppercase()).unwrap(), all);
    }

    #[test]
    fn empty_input_is_no_bytes() {
        assert_eq!(from_hex("").unwrap(), Vec::<u8>::new());
        assert_eq!(from_hex("  \n").unwrap(), Vec::<u8>::new());
    }

    #[test]
    fn positions_count_bytes_of_the_input() {
        let err = from_hex("0x10 é").unwrap_err();
        assert_eq!(
            err.message(),
            "invalid hex: 'é' at byte 5 is not a hex digit"
        );
        assert_eq!(err.kind(), ErrorKind::Decode);
    }
}
