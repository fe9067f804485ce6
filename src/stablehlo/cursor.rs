//! A position in MLIR text and the lexical rules of MLIR's lexer
//! (`mlir/lib/AsmParser/Lexer.cpp`) that the reader needs: whitespace and
//! `//` comments, bare identifiers, the suffix identifiers after `%`, `^`,
//! `@`, `#` and `!`, string literals with their escapes, and groups of
//! balanced brackets.
//!
//! The cursor knows the line of its position: it counts the line breaks it
//! passes (each byte once), so that any place it reaches has a [`Location`]
//! without a second pass over the text.

use crate::error::{Diagnostic, Error, ErrorKind, Location, Result};
use crate::sharding::unescape_mlir;

/// A position in MLIR text.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Cursor<'a> {
    text: &'a str,
    pos: usize,
    /// The 1-based line of `pos`.
    line: usize,
    /// The offset where the line of `pos` starts.
    line_start: usize,
}

/// An error of the reader at `location`: the message starts with MLIR's
/// `line:column:` (the column 1-based, as MLIR's diagnostics write it), and
/// the one diagnostic holds the location and the bare message.
pub(crate) fn error_at(location: Location, message: impl Into<String>) -> Error {
    let message = message.into();
    Error::new(
        ErrorKind::Parse,
        format!(
            "{}:{}: {message}",
            location.line,
            location.column.saturating_add(1)
        ),
    )
    .with_diagnostics(vec![Diagnostic::new(location, message)])
}

/// Whether `c` starts a bare identifier (`[a-zA-Z_]`).
pub(crate) fn is_id_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

/// Whether `c` continues a bare identifier (`[a-zA-Z0-9_$.]`).
pub(crate) fn is_id_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'.')
}

/// Whether `c` continues a suffix identifier (`%name`, `@name`, ...):
/// `[a-zA-Z0-9$._-]`.
fn is_suffix_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'.' | b'-')
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `text`.
    pub(crate) fn new(text: &'a str) -> Self {
        Cursor {
            text,
            pos: 0,
            line: 1,
            line_start: 0,
        }
    }

    /// The whole text.
    pub(crate) fn text(&self) -> &'a str {
        self.text
    }

    fn bytes(&self) -> &'a [u8] {
        self.text.as_bytes()
    }

    /// The byte offset of the position.
    pub(crate) fn pos(&self) -> usize {
        self.pos
    }

    /// The byte at the position.
    pub(crate) fn peek(&self) -> Option<u8> {
        self.bytes().get(self.pos).copied()
    }

    /// The byte `n` bytes after the position.
    pub(crate) fn peek_at(&self, n: usize) -> Option<u8> {
        self.bytes().get(self.pos.saturating_add(n)).copied()
    }

    /// The text from the position on.
    pub(crate) fn rest(&self) -> &'a str {
        &self.text[self.pos..]
    }

    /// Whether the position is at the end of the text.
    pub(crate) fn at_end(&self) -> bool {
        self.pos >= self.text.len()
    }

    /// Where the position is.
    pub(crate) fn location(&self) -> Location {
        Location {
            line: self.line,
            column: self.pos - self.line_start,
            offset: self.pos,
        }
    }

    /// An error at the position.
    pub(crate) fn error(&self, message: impl Into<String>) -> Error {
        error_at(self.location(), message)
    }

    /// Moves the position to `to` (at or after it, on a character
    /// boundary), counting the line breaks passed.
    pub(crate) fn advance_to(&mut self, to: usize) {
        debug_assert!(to >= self.pos && to <= self.text.len());
        let passed = &self.bytes()[self.pos..to];
        if let Some(last) = memchr::memrchr(b'\n', passed) {
            self.line += memchr::memchr_iter(b'\n', passed).count();
            self.line_start = self.pos + last + 1;
        }
        self.pos = to;
    }

    /// Moves past `n` bytes that hold no line break.
    pub(crate) fn bump(&mut self, n: usize) {
        self.pos = (self.pos + n).min(self.text.len());
    }

    /// Skips whitespace and `//` comments; returns whether a line break was
    /// passed.
    pub(crate) fn skip_trivia(&mut self) -> bool {
        let bytes = self.bytes();
        let start_line = self.line;
        loop {
            match bytes.get(self.pos) {
                Some(b' ' | b'\t' | b'\r') => self.pos += 1,
                Some(b'\n') => {
                    self.pos += 1;
                    self.line += 1;
                    self.line_start = self.pos;
                }
                Some(b'/') if bytes.get(self.pos + 1) == Some(&b'/') => {
                    self.pos = memchr::memchr(b'\n', &bytes[self.pos..])
                        .map_or(bytes.len(), |i| self.pos + i);
                }
                _ => return self.line != start_line,
            }
        }
    }

    /// Skips spaces and tabs only (not line breaks or comments).
    pub(crate) fn skip_spaces(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\r')) {
            self.pos += 1;
        }
    }

    /// Consumes `c` if it is at the position.
    pub(crate) fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    /// Consumes `s` if the text at the position starts with it (`s` holds
    /// no line break).
    pub(crate) fn eat_str(&mut self, s: &str) -> bool {
        if self.rest().starts_with(s) {
            self.pos += s.len();
            true
        } else {
            false
        }
    }

    /// Consumes the keyword `kw` if it is at the position and not followed
    /// by an identifier character.
    pub(crate) fn eat_keyword(&mut self, kw: &str) -> bool {
        let rest = self.rest().as_bytes();
        if rest.starts_with(kw.as_bytes()) && !rest.get(kw.len()).is_some_and(|&c| is_id_char(c)) {
            self.pos += kw.len();
            true
        } else {
            false
        }
    }

    /// Consumes `c`, or fails with `expected '<c>'`.
    pub(crate) fn expect(&mut self, c: u8) -> Result<()> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(self.error(format!("expected '{}'", c as char)))
        }
    }

    /// After an element of a list closed by `close`: skips white space,
    /// then consumes `close` (true: the list ends) or `,` (false: another
    /// element follows).
    ///
    /// # Errors
    ///
    /// `expected ',' or '<close>' in <what>` for anything else.
    pub(crate) fn list_next(&mut self, close: u8, what: &str) -> Result<bool> {
        self.skip_trivia();
        if self.eat(close) {
            return Ok(true);
        }
        if self.eat(b',') {
            return Ok(false);
        }
        Err(self.error(format!("expected ',' or '{}' in {what}", close as char)))
    }

    /// The bare identifier at the position (`[a-zA-Z_][a-zA-Z0-9_$.]*`),
    /// consumed.
    pub(crate) fn bare_id(&mut self) -> Option<&'a str> {
        let bytes = self.bytes();
        if !bytes.get(self.pos).is_some_and(|&c| is_id_start(c)) {
            return None;
        }
        let start = self.pos;
        let len = bytes[start..]
            .iter()
            .take_while(|&&c| is_id_char(c))
            .count();
        self.pos += len;
        Some(&self.text[start..self.pos])
    }

    /// The bare identifier at the position, not consumed.
    pub(crate) fn peek_bare_id(&self) -> Option<&'a str> {
        let mut c = *self;
        c.bare_id()
    }

    /// After a sigil (`%`, `^`, `#`, `!`, `@`) has been consumed: the
    /// suffix identifier (digits, or `[a-zA-Z$._-][a-zA-Z0-9$._-]*`),
    /// consumed. For `@`, a string literal is also a name (its raw text is
    /// returned, quotes included).
    pub(crate) fn suffix_id(&mut self) -> Option<&'a str> {
        let bytes = self.bytes();
        let start = self.pos;
        let first = *bytes.get(start)?;
        let len = if first.is_ascii_digit() {
            bytes[start..]
                .iter()
                .take_while(|c| c.is_ascii_digit())
                .count()
        } else if first.is_ascii_alphabetic() || matches!(first, b'$' | b'.' | b'_' | b'-') {
            bytes[start..]
                .iter()
                .take_while(|&&c| is_suffix_char(c))
                .count()
        } else {
            return None;
        };
        self.pos += len;
        Some(&self.text[start..self.pos])
    }

    /// A string literal at the position (`"..."`), consumed; returns its
    /// text between the quotes, escapes as written. MLIR's rules: a string
    /// holds no line break; `\` is followed by `"`, `\`, `n`, `t` or two
    /// hexadecimal digits.
    pub(crate) fn string(&mut self) -> Result<&'a str> {
        let start_loc = self.location();
        if !self.eat(b'"') {
            return Err(self.error("expected string literal"));
        }
        let bytes = self.bytes();
        let start = self.pos;
        let mut i = start;
        loop {
            let Some(k) = memchr::memchr3(b'"', b'\\', b'\n', &bytes[i..]) else {
                return Err(error_at(start_loc, "expected '\"' in string literal"));
            };
            i += k;
            match bytes[i] {
                b'"' => {
                    self.pos = i + 1;
                    return Ok(&self.text[start..i]);
                }
                b'\n' => return Err(error_at(start_loc, "expected '\"' in string literal")),
                _ => {
                    let next = bytes.get(i + 1).copied();
                    match next {
                        Some(b'"' | b'\\' | b'n' | b't') => i += 2,
                        Some(h)
                            if h.is_ascii_hexdigit()
                                && bytes.get(i + 2).is_some_and(u8::is_ascii_hexdigit) =>
                        {
                            i += 3
                        }
                        _ => {
                            self.pos = i;
                            return Err(self.error("unknown escape in string literal"));
                        }
                    }
                }
            }
        }
    }

    /// A decimal integer at the position (digits only), consumed.
    pub(crate) fn decimal(&mut self) -> Option<&'a str> {
        let bytes = self.bytes();
        let start = self.pos;
        let len = bytes[start..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
        if len == 0 {
            return None;
        }
        self.pos += len;
        Some(&self.text[start..self.pos])
    }

    /// Skips one token of any kind that is not a bracket: a string, an
    /// identifier, a number, a sigil with its name, or one punctuation
    /// character (`->` as one token).
    pub(crate) fn skip_token(&mut self) -> Result<()> {
        match self.peek() {
            None => {}
            Some(b'"') => {
                self.string()?;
            }
            Some(b'-') if self.peek_at(1) == Some(b'>') => self.pos += 2,
            Some(c) if is_id_start(c) => {
                self.bare_id();
            }
            Some(c) if c.is_ascii_digit() => {
                let bytes = self.bytes();
                let len = bytes[self.pos..]
                    .iter()
                    .take_while(|&&c| c.is_ascii_alphanumeric() || c == b'.' || c == b'_')
                    .count();
                // An exponent's sign: `1.0e+00`.
                self.pos += len;
                if matches!(bytes.get(self.pos - 1), Some(b'e' | b'E'))
                    && matches!(self.peek(), Some(b'+' | b'-'))
                {
                    self.pos += 1;
                    self.decimal();
                }
            }
            Some(b'%' | b'^' | b'#' | b'!' | b'@') => {
                self.pos += 1;
                if self.peek() == Some(b'"') {
                    self.string()?;
                } else {
                    self.suffix_id();
                }
            }
            Some(c) if c.is_ascii() => self.pos += 1,
            Some(_) => {
                // A character outside ASCII is a token of its own: step
                // over it whole, so that the position stays on a
                // character boundary.
                let len = self.rest().chars().next().map_or(1, char::len_utf8);
                self.pos += len;
            }
        }
        Ok(())
    }

    /// At an opening bracket (`(`, `[`, `{`, `<`): moves past its matching
    /// closing bracket, over strings, comments and nested groups (`->` is
    /// not a bracket). Returns the text of the group, brackets included.
    ///
    /// # Errors
    ///
    /// A bracket closed by another kind, a group left open, a bad string.
    pub(crate) fn skip_group(&mut self) -> Result<&'a str> {
        let start = self.pos;
        let mut stack = Brackets::new();
        loop {
            self.skip_trivia();
            let Some(c) = self.peek() else {
                let (open, at) = stack.last().unwrap_or((b'(', self.location()));
                return Err(error_at(at, format!("'{}' is never closed", open as char)));
            };
            match c {
                b'(' | b'[' | b'{' | b'<' => {
                    stack.push(c, self.location());
                    self.pos += 1;
                }
                b')' | b']' | b'}' | b'>' => {
                    match stack.pop() {
                        Some((open, _)) if closing(open) == c => {}
                        Some((open, _)) => {
                            return Err(self.error(format!(
                                "expected '{}', found '{}'",
                                closing(open) as char,
                                c as char
                            )));
                        }
                        None => return Err(self.error(format!("unexpected '{}'", c as char))),
                    }
                    self.pos += 1;
                    if stack.is_empty() {
                        return Ok(&self.text[start..self.pos]);
                    }
                }
                _ => self.skip_token()?,
            }
            if stack.is_empty() {
                // Not at a bracket to begin with.
                return Ok(&self.text[start..self.pos]);
            }
        }
    }
}

/// The brackets open at a place, each with where it was opened: the first
/// few in place, so that most operations allocate nothing for them.
pub(crate) struct Brackets {
    inline: [(u8, Location); 8],
    len: usize,
    more: Vec<(u8, Location)>,
}

impl Brackets {
    pub(crate) fn new() -> Self {
        let nowhere = Location {
            line: 0,
            column: 0,
            offset: 0,
        };
        Brackets {
            inline: [(0, nowhere); 8],
            len: 0,
            more: Vec::new(),
        }
    }

    pub(crate) fn push(&mut self, bracket: u8, at: Location) {
        if self.len < self.inline.len() {
            self.inline[self.len] = (bracket, at);
        } else {
            self.more.push((bracket, at));
        }
        self.len += 1;
    }

    pub(crate) fn pop(&mut self) -> Option<(u8, Location)> {
        self.len = self.len.checked_sub(1)?;
        if self.len < self.inline.len() {
            Some(self.inline[self.len])
        } else {
            self.more.pop()
        }
    }

    pub(crate) fn last(&self) -> Option<(u8, Location)> {
        let i = self.len.checked_sub(1)?;
        if i < self.inline.len() {
            Some(self.inline[i])
        } else {
            self.more.last().copied()
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// The closing bracket of `open`.
pub(crate) fn closing(open: u8) -> u8 {
    match open {
        b'(' => b')',
        b'[' => b']',
        b'{' => b'}',
        _ => b'>',
    }
}

/// MLIR's string escapes undone (`\"`, `\\`, `\n`, `\t`, `\XX`): the
/// decoded bytes as text, with bytes that are not UTF-8 replaced.
pub(crate) fn unescape(raw: &str) -> String {
    if !raw.contains('\\') {
        return raw.to_owned();
    }
    String::from_utf8_lossy(&unescape_mlir(raw.as_bytes())).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_and_escapes() {
        let mut c = Cursor::new(r#""a\"b\0A\\" x"#);
        assert_eq!(c.string().unwrap(), r#"a\"b\0A\\"#);
        assert_eq!(unescape(r#"a\"b\0A\\"#), "a\"b\n\\");
        let mut c = Cursor::new("\"abc\nd\"");
        assert!(c.string().is_err());
        let mut c = Cursor::new(r#""a\q""#);
        assert!(c.string().unwrap_err().message().contains("unknown escape"));
    }

    #[test]
    fn groups_skip_strings_arrows_and_comments() {
        let text = "<(d0) -> (d0), \">\" // )\n [x]> rest";
        let mut c = Cursor::new(text);
        assert_eq!(c.skip_group().unwrap(), &text[..text.len() - 5]);
        assert_eq!(c.location().line, 2);
        let err = Cursor::new("(]").skip_group().unwrap_err();
        assert_eq!(err.message(), "1:2: expected ')', found ']'");
        let err = Cursor::new("x\n  {(").skip_group();
        // Not at a bracket: one token.
        assert_eq!(err.unwrap(), "x");
        let err = Cursor::new("{(\n").skip_group().unwrap_err();
        assert_eq!(err.message(), "1:2: '(' is never closed");
    }

    #[test]
    fn lines_are_counted_once() {
        let mut c = Cursor::new("a\nb\n\nc");
        c.advance_to(5);
        assert_eq!(
            c.location(),
            Location {
                line: 4,
                column: 0,
                offset: 5
            }
        );
    }
}
