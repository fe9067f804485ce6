//! XLA's HLO lexer (`xla/hlo/parser/hlo_lexer.cc`), as far as the shape
//! and layout grammar sees it: every token kind is recognised, because the
//! parser's messages name the kind it saw (`expected primitive type, saw
//! kDimLabels`), but only integers carry a value.
//!
//! The rules, in the order of `HloLexer::LexToken`: whitespace is space, tab, CR, LF;
//! `/* */` and `//` comments are skipped; a NUL byte, a lone `/`, `<` or
//! `.`, and any byte that starts no token are `kError`. A token that starts
//! with a digit, `-` or `?` is tried as a float, a conv dim-labels pattern,
//! a `DxD` pattern, a pad pattern, an integer (unsigned 64-bit values are
//! bit-cast to `i64`), `-inf`, `-nan`, in that order; a `?` that starts none
//! of them is the `?` token.

use crate::model::primitive_type::PrimitiveType;

/// XLA's `TokKind`; [`Tok::name`] is `TokKindToString`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tok {
    Eof,
    Error,
    Equal,
    Comma,
    Colon,
    Asterisk,
    QuestionMark,
    Octothorp,
    Plus,
    Tilde,
    Lsquare,
    Rsquare,
    Lbrace,
    Rbrace,
    Lparen,
    Rparen,
    Arrow,
    Leq,
    KwHloModule,
    KwEntry,
    KwRoot,
    KwFileNames,
    KwFunctionNames,
    KwFileLocations,
    KwStackFrames,
    KwTrue,
    KwFalse,
    KwMaximal,
    KwReplicated,
    KwManual,
    KwLastTileDimReplicate,
    KwShardAs,
    KwShardLike,
    KwUnknown,
    KwUnreduced,
    KwInf,
    NegInf,
    PrimitiveType,
    Name,
    AttributeName,
    DimLabels,
    DxD,
    Pad,
    Ident,
    String,
    Int,
    Decimal,
    Dots,
}

impl Tok {
    /// XLA's `TokKindToString`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Tok::Eof => "kEof",
            Tok::Error => "kError",
            Tok::Equal => "kEqual",
            Tok::Comma => "kComma",
            Tok::Colon => "kColon",
            Tok::Asterisk => "kAsterisk",
            Tok::QuestionMark => "kQuestionMark",
            Tok::Octothorp => "kOctothorp",
            Tok::Plus => "kPlus",
            Tok::Tilde => "kTilde",
            Tok::Lsquare => "kLsquare",
            Tok::Rsquare => "kRsquare",
            Tok::Lbrace => "kLbrace",
            Tok::Rbrace => "kRbrace",
            Tok::Lparen => "kLparen",
            Tok::Rparen => "kRparen",
            Tok::Arrow => "kArrow",
            Tok::Leq => "kLeq",
            Tok::KwHloModule => "kw_HloModule",
            Tok::KwEntry => "kw_ENTRY",
            Tok::KwRoot => "kw_ROOT",
            Tok::KwFileNames => "kw_FileNames",
            Tok::KwFunctionNames => "kw_FunctionNames",
            Tok::KwFileLocations => "kw_FileLocations",
            Tok::KwStackFrames => "kw_StackFrames",
            Tok::KwTrue => "kw_true",
            Tok::KwFalse => "kw_false",
            Tok::KwMaximal => "kw_maximal",
            Tok::KwReplicated => "kw_replicated",
            Tok::KwManual => "kw_manual",
            Tok::KwLastTileDimReplicate => "kw_last_tile_dim_replicate",
            Tok::KwShardAs => "kw_shard_as",
            Tok::KwShardLike => "kw_shard_like",
            Tok::KwUnknown => "kw_unknown",
            Tok::KwUnreduced => "kw_unreduced",
            Tok::KwInf => "kw_inf",
            Tok::NegInf => "kNegInf",
            Tok::PrimitiveType => "kPrimitiveType",
            Tok::Name => "kName",
            Tok::AttributeName => "kAttributeName",
            Tok::DimLabels => "kDimLabels",
            Tok::DxD => "kDxD",
            Tok::Pad => "kPad",
            Tok::Ident => "kIdent",
            Tok::String => "kString",
            Tok::Int => "kInt",
            Tok::Decimal => "kDecimal",
            Tok::Dots => "kDots",
        }
    }
}

/// The primitive-type keywords: every lowercase type name but `tuple` and
/// `buffer` (XLA's `IsPrimitiveTypeName`, which excludes
/// `primitive_type_invalid`).
pub(crate) fn primitive_type_keyword(s: &[u8]) -> Option<PrimitiveType> {
    use PrimitiveType as P;
    Some(match s {
        b"pred" => P::Pred,
        b"s1" => P::S1,
        b"s2" => P::S2,
        b"s4" => P::S4,
        b"s8" => P::S8,
        b"s16" => P::S16,
        b"s32" => P::S32,
        b"s64" => P::S64,
        b"u1" => P::U1,
        b"u2" => P::U2,
        b"u4" => P::U4,
        b"u8" => P::U8,
        b"u16" => P::U16,
        b"u32" => P::U32,
        b"u64" => P::U64,
        b"f16" => P::F16,
        b"f32" => P::F32,
        b"bf16" => P::Bf16,
        b"f64" => P::F64,
        b"f8e5m2" => P::F8e5m2,
        b"f8e4m3" => P::F8e4m3,
        b"f8e4m3fn" => P::F8e4m3fn,
        b"f8e4m3b11fnuz" => P::F8e4m3b11fnuz,
        b"f8e3m4" => P::F8e3m4,
        b"f8e5m2fnuz" => P::F8e5m2fnuz,
        b"f8e4m3fnuz" => P::F8e4m3fnuz,
        b"f4e2m1fn" => P::F4e2m1fn,
        b"f8e8m0fnu" => P::F8e8m0fnu,
        b"f6e3m2fn" => P::F6e3m2fn,
        b"f6e2m3fn" => P::F6e2m3fn,
        b"c64" => P::C64,
        b"c128" => P::C128,
        b"opaque" => P::OpaqueType,
        b"token" => P::Token,
        _ => return None,
    })
}

/// The tokens that are one byte whatever follows (`Eof` for the others).
static PUNCTUATION: [Tok; 256] = {
    const BYTES: &[u8; 13] = b"=,:*#+~[]{}()";
    const TOKENS: [Tok; 13] = [
        Tok::Equal,
        Tok::Comma,
        Tok::Colon,
        Tok::Asterisk,
        Tok::Octothorp,
        Tok::Plus,
        Tok::Tilde,
        Tok::Lsquare,
        Tok::Rsquare,
        Tok::Lbrace,
        Tok::Rbrace,
        Tok::Lparen,
        Tok::Rparen,
    ];
    let mut t = [Tok::Eof; 256];
    let mut i = 0;
    while i < BYTES.len() {
        t[BYTES[i] as usize] = TOKENS[i];
        i += 1;
    }
    t
};

/// `[a-zA-Z0-9_.-]`.
pub(crate) fn is_identifier_char(c: u8) -> bool {
    IDENTIFIER_CHAR[usize::from(c)]
}

static IDENTIFIER_CHAR: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        t[c] = b.is_ascii_alphanumeric() || b == b'-' || b == b'.' || b == b'_';
        c += 1;
    }
    t
};

/// The lexer over a whole text; `start..end` is the current token.
#[derive(Clone, Copy)]
pub(crate) struct Lexer<'a> {
    buf: &'a [u8],
    pos: usize,
    /// The current token's kind.
    pub(crate) kind: Tok,
    /// Byte offset of the current token's first byte.
    pub(crate) start: usize,
    /// Byte offset just past the current token.
    pub(crate) end: usize,
    /// End of the token before the current one.
    pub(crate) prev_end: usize,
    /// The value of an `Int` token.
    pub(crate) int: i64,
    /// The value of a `PrimitiveType` token.
    pub(crate) ty: PrimitiveType,
}

impl<'a> Lexer<'a> {
    /// A lexer whose first token starts at or after `offset`; call
    /// [`lex`](Self::lex) to read it.
    pub(crate) fn new(buf: &'a [u8], offset: usize) -> Self {
        Lexer {
            buf,
            pos: offset,
            kind: Tok::Eof,
            start: offset,
            end: offset,
            prev_end: offset,
            int: 0,
            ty: PrimitiveType::Invalid,
        }
    }

    /// Reads the next token.
    #[inline]
    pub(crate) fn lex(&mut self) -> Tok {
        self.prev_end = self.end;
        self.kind = self.lex_token();
        self.end = self.pos;
        self.kind
    }

    /// The kind of the token after the current one (XLA's `LookAhead`).
    pub(crate) fn look_ahead(&self) -> Tok {
        if matches!(self.kind, Tok::Eof | Tok::Error) {
            return self.kind;
        }
        let mut copy = *self;
        copy.lex()
    }

    /// The bytes of the current token.
    #[inline]
    pub(crate) fn token(&self) -> &'a [u8] {
        &self.buf[self.start..self.end]
    }

    /// The value of the current `String` token: its body, `absl::CUnescape`d
    /// (the lexer has checked that it unescapes).
    pub(crate) fn string_value(&self) -> Vec<u8> {
        let body = self
            .buf
            .get(self.start + 1..self.end.saturating_sub(1))
            .unwrap_or(&[]);
        c_unescape(body)
    }

    /// Whether the current token is the identifier `s`.
    #[inline]
    pub(crate) fn is_ident(&self, s: &[u8]) -> bool {
        self.kind == Tok::Ident && self.token() == s
    }

    #[inline]
    fn peek(&self) -> Option<u8> {
        self.buf.get(self.pos).copied()
    }

    #[inline]
    fn lex_token(&mut self) -> Tok {
        // Fast paths: whitespace, then punctuation, plain integers and
        // identifiers; anything else goes the long way, in XLA's order.
        let buf = self.buf;
        let mut pos = self.pos;
        while pos < buf.len() && matches!(buf[pos], b' ' | b'\t' | b'\n' | b'\r') {
            pos += 1;
        }
        self.pos = pos;
        self.start = pos;
        let Some(&c) = buf.get(pos) else {
            return Tok::Eof;
        };
        let simple = PUNCTUATION[usize::from(c)];
        if simple != Tok::Eof {
            self.pos = pos + 1;
            return simple;
        }
        if c.is_ascii_digit() {
            let mut end = pos;
            let mut value = 0u64;
            while end < buf.len() && buf[end].is_ascii_digit() {
                value = value
                    .wrapping_mul(10)
                    .wrapping_add(u64::from(buf[end] - b'0'));
                end += 1;
            }
            // Up to 19 digits cannot overflow a u64.
            if end - pos <= 19
                && !matches!(
                    buf.get(end),
                    Some(b'.' | b'e' | b'E' | b'x' | b'_' | b'b' | b'f' | b'?')
                )
            {
                self.int = value as i64;
                self.pos = end;
                return Tok::Int;
            }
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            self.pos = pos + 1;
            return self.lex_identifier();
        }
        self.lex_token_slow()
    }

    #[cold]
    #[inline(never)]
    fn lex_token_slow(&mut self) -> Tok {
        loop {
            self.start = self.pos;
            let Some(c) = self.peek() else {
                return Tok::Eof;
            };
            if c == 0 {
                // XLA does not move past a NUL byte.
                return Tok::Error;
            }
            self.pos += 1;
            return match c {
                b' ' | b'\t' | b'\n' | b'\r' => continue,
                b'0'..=b'9' | b'-' | b'?' => {
                    if c == b'-' && self.peek() == Some(b'>') {
                        self.pos += 1;
                        return Tok::Arrow;
                    }
                    let kind = self.lex_number_or_pattern();
                    if kind == Tok::Error && c == b'?' {
                        self.pos = self.start + 1;
                        return Tok::QuestionMark;
                    }
                    kind
                }
                b'=' => Tok::Equal,
                b'<' => {
                    if self.peek() == Some(b'=') {
                        self.pos += 1;
                        Tok::Leq
                    } else {
                        Tok::Error
                    }
                }
                b',' => Tok::Comma,
                b'%' => self.lex_percent(),
                b':' => Tok::Colon,
                b'*' => Tok::Asterisk,
                b'#' => Tok::Octothorp,
                b'+' => Tok::Plus,
                b'~' => Tok::Tilde,
                b'[' => Tok::Lsquare,
                b']' => Tok::Rsquare,
                b'{' => Tok::Lbrace,
                b'}' => Tok::Rbrace,
                b'(' => Tok::Lparen,
                b')' => Tok::Rparen,
                b'/' => match self.peek() {
                    Some(b'*') => {
                        let comment_start = self.pos;
                        self.pos += 1;
                        loop {
                            match self.peek() {
                                None => {
                                    self.pos = comment_start;
                                    return Tok::Error;
                                }
                                Some(0) => return Tok::Error,
                                Some(b'*') if self.buf.get(self.pos + 1) == Some(&b'/') => {
                                    self.pos += 2;
                                    break;
                                }
                                Some(_) => self.pos += 1,
                            }
                        }
                        continue;
                    }
                    Some(b'/') => {
                        loop {
                            match self.peek() {
                                None | Some(b'\n') | Some(b'\r') => break,
                                Some(0) => return Tok::Error,
                                Some(_) => self.pos += 1,
                            }
                        }
                        continue;
                    }
                    _ => Tok::Error,
                },
                b'.' => {
                    if self.peek() == Some(b'.') {
                        self.pos += 1;
                        if self.peek() == Some(b'.') {
                            self.pos += 1;
                            return Tok::Dots;
                        }
                    }
                    Tok::Error
                }
                b'"' | b'\'' => self.lex_string(c),
                c if c.is_ascii_alphabetic() || c == b'_' => self.lex_identifier(),
                _ => Tok::Error,
            };
        }
    }

    #[inline(never)]
    fn lex_identifier(&mut self) -> Tok {
        let buf = self.buf;
        let mut pos = self.pos;
        while pos < buf.len() && IDENTIFIER_CHAR[usize::from(buf[pos])] {
            pos += 1;
        }
        self.pos = pos;
        match self.peek() {
            Some(b':') => {
                self.pos += 1;
                return Tok::Name;
            }
            Some(b'=') => {
                self.pos += 1;
                return Tok::AttributeName;
            }
            _ => {}
        }
        let ident = &self.buf[self.start..self.pos];
        let first = ident[0];
        if first.is_ascii_lowercase() {
            if let Some(t) = primitive_type_keyword(ident) {
                self.ty = t;
                return Tok::PrimitiveType;
            }
        } else if ident.len() <= 3 {
            // `T`, `L`, `SC`, ...: no keyword is this short, and a
            // dim-labels pattern starts with a digit, `b`, `f` or `?`.
            return Tok::Ident;
        }
        let keyword = match ident {
            b"nan" => {
                if self.peek() == Some(b'(') {
                    match nan_payload_len(&self.buf[self.pos..]) {
                        Some(n) => self.pos += n,
                        None => return Tok::Error,
                    }
                }
                return Tok::Decimal;
            }
            b"true" => Tok::KwTrue,
            b"false" => Tok::KwFalse,
            b"inf" => Tok::KwInf,
            b"HloModule" => Tok::KwHloModule,
            b"ENTRY" => Tok::KwEntry,
            b"ROOT" => Tok::KwRoot,
            b"FileLocations" => Tok::KwFileLocations,
            b"FileNames" => Tok::KwFileNames,
            b"FunctionNames" => Tok::KwFunctionNames,
            b"StackFrames" => Tok::KwStackFrames,
            b"maximal" => Tok::KwMaximal,
            b"replicated" => Tok::KwReplicated,
            b"manual" => Tok::KwManual,
            b"last_tile_dim_replicate" => Tok::KwLastTileDimReplicate,
            b"shard_as" => Tok::KwShardAs,
            b"shard_like" => Tok::KwShardLike,
            b"unknown" => Tok::KwUnknown,
            b"unreduced" => Tok::KwUnreduced,
            _ => Tok::Ident,
        };
        if keyword != Tok::Ident {
            return keyword;
        }
        if matches!(first, b'b' | b'f')
            && let Some(n) = dim_labels_len(&self.buf[self.start..])
        {
            self.pos = self.start + n;
            return Tok::DimLabels;
        }
        Tok::Ident
    }

    fn lex_percent(&mut self) -> Tok {
        match self.peek() {
            Some(c) if c.is_ascii_alphabetic() || c == b'_' => {
                self.pos += 1;
                while self.peek().is_some_and(is_identifier_char) {
                    self.pos += 1;
                }
                Tok::Name
            }
            _ => Tok::Error,
        }
    }

    /// `"([^"\\]|\\.)*"` (or with single quotes), then `absl::CUnescape`.
    fn lex_string(&mut self, quote: u8) -> Tok {
        let mut i = self.pos;
        loop {
            match self.buf.get(i) {
                None => return Tok::Error,
                Some(&c) if c == quote => break,
                Some(b'\\') => match self.buf.get(i + 1) {
                    None | Some(b'\n') => return Tok::Error,
                    Some(_) => i += 2,
                },
                Some(_) => i += 1,
            }
        }
        if !c_unescape_ok(&self.buf[self.pos..i]) {
            return Tok::Error;
        }
        self.pos = i + 1;
        Tok::String
    }

    /// The token starts at `self.start` with a digit, `-` or `?`.
    fn lex_number_or_pattern(&mut self) -> Tok {
        let s = &self.buf[self.start..];
        // Fast path: a plain run of digits that no longer pattern can
        // extend is an integer.
        let sign = usize::from(s[0] == b'-');
        let digits = count(s, sign, |c| c.is_ascii_digit());
        if digits > 0
            && !matches!(
                s.get(sign + digits),
                Some(b'.' | b'e' | b'E' | b'x' | b'_' | b'b' | b'f' | b'?')
            )
        {
            return self.lex_int(sign, digits);
        }
        type Pattern = (fn(&[u8]) -> Option<usize>, Tok);
        let patterns: [Pattern; 4] = [
            (float_len, Tok::Decimal),
            (dim_labels_len, Tok::DimLabels),
            (dxd_len, Tok::DxD),
            (pad_len, Tok::Pad),
        ];
        for (len, kind) in patterns {
            if let Some(n) = len(s) {
                self.pos = self.start + n;
                return kind;
            }
        }
        if digits > 0 {
            let kind = self.lex_int(sign, digits);
            if kind == Tok::Int {
                return kind;
            }
        }
        if s.starts_with(b"-inf") {
            self.pos = self.start + 4;
            return Tok::NegInf;
        }
        if s.starts_with(b"-nan") {
            self.pos = self.start + 4;
            if self.peek() == Some(b'(') {
                match nan_payload_len(&self.buf[self.pos..]) {
                    Some(n) => self.pos += n,
                    None => return Tok::Error,
                }
            }
            return Tok::Decimal;
        }
        Tok::Error
    }

    /// XLA's `LexInt64Impl` over `digits` digits after an optional sign:
    /// negative values down to `i64::MIN`, non-negative ones up to
    /// `u64::MAX`, bit-cast.
    fn lex_int(&mut self, sign: usize, digits: usize) -> Tok {
        let s = &self.buf[self.start + sign..self.start + sign + digits];
        let mut magnitude: u64 = 0;
        for &c in s {
            match magnitude
                .checked_mul(10)
                .and_then(|v| v.checked_add(u64::from(c - b'0')))
            {
                Some(n) => magnitude = n,
                None => return Tok::Error,
            }
        }
        let value = if sign == 1 {
            // Down to `i64::MIN`, whose magnitude is 2^63.
            if magnitude > i64::MIN.unsigned_abs() {
                return Tok::Error;
            }
            (magnitude as i64).wrapping_neg()
        } else {
            magnitude as i64
        };
        self.int = value;
        self.pos = self.start + sign + digits;
        Tok::Int
    }
}

/// The number of bytes from `from` on that satisfy `f`.
#[inline]
fn count(s: &[u8], from: usize, f: impl Fn(u8) -> bool) -> usize {
    s.get(from..)
        .map_or(0, |rest| rest.iter().take_while(|&&c| f(c)).count())
}

fn digits(s: &[u8], from: usize) -> usize {
    count(s, from, |c| c.is_ascii_digit())
}

/// `[-]?((\d+|\d+[.]\d*|\d*[.]\d+)([eE][+-]?\d+))|[-]?(\d+[.]\d*|\d*[.]\d+)`,
/// leftmost-first.
fn float_len(s: &[u8]) -> Option<usize> {
    let i = usize::from(s.first() == Some(&b'-'));
    let int_part = |i: usize| {
        let d = digits(s, i);
        (d > 0).then_some(i + d)
    };
    let int_dot = |i: usize| {
        let d = digits(s, i);
        (d > 0 && s.get(i + d) == Some(&b'.')).then(|| i + d + 1 + digits(s, i + d + 1))
    };
    let dot_digits = |i: usize| {
        let d = digits(s, i);
        let f = digits(s, i + d + 1);
        (s.get(i + d) == Some(&b'.') && f > 0).then_some(i + d + 1 + f)
    };
    let exponent = |i: usize| {
        if !matches!(s.get(i), Some(b'e' | b'E')) {
            return None;
        }
        let j = i + 1 + usize::from(matches!(s.get(i + 1), Some(b'+' | b'-')));
        let d = digits(s, j);
        (d > 0).then_some(j + d)
    };
    for mantissa in [int_part(i), int_dot(i), dot_digits(i)] {
        if let Some(e) = mantissa.and_then(exponent) {
            return Some(e);
        }
    }
    int_dot(i).or_else(|| dot_digits(i))
}

/// `[0-9bf?]{2,}_[0-9io?]{2,}->[0-9bf?]{2,}`.
fn dim_labels_len(s: &[u8]) -> Option<usize> {
    let out = |c: u8| c.is_ascii_digit() || matches!(c, b'b' | b'f' | b'?');
    let kernel = |c: u8| c.is_ascii_digit() || matches!(c, b'i' | b'o' | b'?');
    let a = count(s, 0, out);
    if a < 2 || s.get(a) != Some(&b'_') {
        return None;
    }
    let b = count(s, a + 1, kernel);
    let i = a + 1 + b;
    if b < 2 || s.get(i..i + 2) != Some(b"->") {
        return None;
    }
    let c = count(s, i + 2, out);
    (c >= 2).then_some(i + 2 + c)
}

/// `[0-9]+(x[0-9]+)+`.
fn dxd_len(s: &[u8]) -> Option<usize> {
    let mut i = digits(s, 0);
    if i == 0 {
        return None;
    }
    let mut groups = 0;
    while s.get(i) == Some(&b'x') && digits(s, i + 1) > 0 {
        i += 1 + digits(s, i + 1);
        groups += 1;
    }
    (groups > 0).then_some(i)
}

/// `[-]?[0-9]+_[-]?[0-9]+(_[0-9]+)?(x[-]?[0-9]+_[-]?[0-9]+(_[0-9]+)?)*`.
fn pad_len(s: &[u8]) -> Option<usize> {
    let signed = |i: usize| {
        let j = i + usize::from(s.get(i) == Some(&b'-'));
        let d = digits(s, j);
        (d > 0).then_some(j + d)
    };
    let dim = |i: usize| {
        let j = signed(i)?;
        if s.get(j) != Some(&b'_') {
            return None;
        }
        let mut k = signed(j + 1)?;
        if s.get(k) == Some(&b'_') && digits(s, k + 1) > 0 {
            k += 1 + digits(s, k + 1);
        }
        Some(k)
    };
    let mut i = dim(0)?;
    while s.get(i) == Some(&b'x') {
        match dim(i + 1) {
            Some(j) => i = j,
            None => break,
        }
    }
    Some(i)
}

/// `\(0x[0-9a-fA-F]+\)` with a value in `1..=2^52-1` (XLA's NaN payload).
fn nan_payload_len(s: &[u8]) -> Option<usize> {
    if !s.starts_with(b"(0x") {
        return None;
    }
    let h = count(s, 3, |c| c.is_ascii_hexdigit());
    if h == 0 || s.get(3 + h) != Some(&b')') || h > 16 {
        return None;
    }
    let hex = std::str::from_utf8(&s[3..3 + h]).ok()?;
    let v = u64::from_str_radix(hex, 16).ok()?;
    (v > 0 && v < (1u64 << 52)).then_some(3 + h + 1)
}

/// `absl::CUnescape` of a body that [`c_unescape_ok`] accepts.
fn c_unescape(s: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        if s[i] != b'\\' {
            out.push(s[i]);
            i += 1;
            continue;
        }
        i += 1;
        let Some(&c) = s.get(i) else {
            break;
        };
        match c {
            b'a' => out.push(7),
            b'b' => out.push(8),
            b'f' => out.push(12),
            b'n' => out.push(b'\n'),
            b'r' => out.push(b'\r'),
            b't' => out.push(b'\t'),
            b'v' => out.push(11),
            b'0'..=b'7' => {
                let n = count(s, i, |c| matches!(c, b'0'..=b'7')).min(3);
                let v = s[i..i + n]
                    .iter()
                    .fold(0u32, |v, &c| v * 8 + u32::from(c - b'0'));
                out.push(v as u8);
                i += n;
                continue;
            }
            b'x' | b'X' => {
                let n = count(s, i + 1, |c| c.is_ascii_hexdigit());
                let v = s[i + 1..i + 1 + n].iter().fold(0u32, |v, &c| {
                    v.wrapping_mul(16)
                        .wrapping_add(char::from(c).to_digit(16).unwrap_or(0))
                });
                out.push(v as u8);
                i += 1 + n;
                continue;
            }
            b'u' | b'U' => {
                let n = if c == b'u' { 4 } else { 8 };
                let v = s
                    .get(i + 1..i + 1 + n)
                    .and_then(|h| std::str::from_utf8(h).ok())
                    .and_then(|h| u32::from_str_radix(h, 16).ok())
                    .and_then(char::from_u32)
                    .unwrap_or(char::REPLACEMENT_CHARACTER);
                let mut b = [0u8; 4];
                out.extend_from_slice(v.encode_utf8(&mut b).as_bytes());
                i += 1 + n;
                continue;
            }
            other => out.push(other),
        }
        i += 1;
    }
    out
}

/// Whether `absl::CUnescape` accepts the body of a string literal.
fn c_unescape_ok(s: &[u8]) -> bool {
    let mut i = 0;
    while i < s.len() {
        if s[i] != b'\\' {
            i += 1;
            continue;
        }
        i += 1;
        let Some(&c) = s.get(i) else {
            return false;
        };
        match c {
            b'a' | b'b' | b'f' | b'n' | b'r' | b't' | b'v' | b'\\' | b'?' | b'\'' | b'"' => i += 1,
            b'0'..=b'7' => {
                let n = count(s, i, |c| matches!(c, b'0'..=b'7')).min(3);
                let v = s[i..i + n]
                    .iter()
                    .fold(0u32, |v, &c| v * 8 + u32::from(c - b'0'));
                if v > 0xff {
                    return false;
                }
                i += n;
            }
            b'x' | b'X' => {
                let n = count(s, i + 1, |c| c.is_ascii_hexdigit());
                if n == 0 {
                    return false;
                }
                let significant = s[i + 1..i + 1 + n]
                    .iter()
                    .skip_while(|&&c| c == b'0')
                    .count();
                let value = std::str::from_utf8(&s[i + 1..i + 1 + n])
                    .ok()
                    .and_then(|h| u32::from_str_radix(h, 16).ok());
                if significant > 2 || value.is_none_or(|v| v > 0xff) {
                    return false;
                }
                i += 1 + n;
            }
            b'u' | b'U' => {
                let n = if c == b'u' { 4 } else { 8 };
                let hex = s.get(i + 1..i + 1 + n);
                let value = hex
                    .filter(|h| h.iter().all(u8::is_ascii_hexdigit))
                    .and_then(|h| std::str::from_utf8(h).ok())
                    .and_then(|h| u32::from_str_radix(h, 16).ok());
                match value {
                    Some(v) if char::from_u32(v).is_some() => i += 1 + n,
                    _ => return false,
                }
            }
            _ => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<(Tok, std::ops::Range<usize>)> {
        let mut lx = Lexer::new(text.as_bytes(), 0);
        let mut out = Vec::new();
        loop {
            let k = lx.lex();
            out.push((k, lx.start..lx.end));
            if matches!(k, Tok::Eof | Tok::Error) {
                return out;
            }
        }
    }

    #[test]
    fn every_primitive_type_keyword_is_its_lowercase_name() {
        for t in PrimitiveType::ALL {
            let expected = match t {
                PrimitiveType::Invalid | PrimitiveType::Tuple | PrimitiveType::Buffer => None,
                t => Some(t),
            };
            assert_eq!(
                primitive_type_keyword(t.lowercase_name().as_bytes()),
                expected
            );
        }
    }

    #[test]
    fn patterns_are_tried_in_xlas_order() {
        let first = |s: &str| kinds(s)[0].0;
        assert_eq!(first("2x3"), Tok::DxD);
        assert_eq!(first("1_2"), Tok::Pad);
        assert_eq!(first("1e3"), Tok::Decimal);
        assert_eq!(first("2.0"), Tok::Decimal);
        assert_eq!(first("1."), Tok::Decimal);
        assert_eq!(first("-.5e-3"), Tok::Decimal);
        assert_eq!(first("1e"), Tok::Int);
        assert_eq!(first("1x"), Tok::Int);
        assert_eq!(first("1x2x"), Tok::DxD);
        assert_eq!(first("-1_-2"), Tok::Pad);
        assert_eq!(first("01_01->01"), Tok::DimLabels);
        assert_eq!(first("bf_io->bf"), Tok::DimLabels);
        assert_eq!(first("b0_"), Tok::Ident);
        assert_eq!(first("?x"), Tok::QuestionMark);
        assert_eq!(first("-inf"), Tok::NegInf);
        assert_eq!(first("-nan"), Tok::Decimal);
        assert_eq!(first("nan(0x1)"), Tok::Decimal);
        assert_eq!(first("nan("), Tok::Error);
        assert_eq!(first("-x"), Tok::Error);
        assert_eq!(first("->"), Tok::Arrow);
        assert_eq!(first("<="), Tok::Leq);
        assert_eq!(first("<"), Tok::Error);
        assert_eq!(first("..."), Tok::Dots);
        assert_eq!(first(".."), Tok::Error);
        assert_eq!(first("%1"), Tok::Error);
        assert_eq!(first("%a.1"), Tok::Name);
        assert_eq!(first("x:"), Tok::Name);
        assert_eq!(first("x="), Tok::AttributeName);
        assert_eq!(first("\"a\\qb\""), Tok::Error);
        assert_eq!(first("\"a\\nb\""), Tok::String);
        assert_eq!(first("'a'"), Tok::String);
        assert_eq!(first("/* x"), Tok::Error);
        assert_eq!(first("// x"), Tok::Eof);
        assert_eq!(first("é"), Tok::Error);
        assert_eq!(first("F32"), Tok::Ident);
        assert_eq!(first("opaque_type"), Tok::Ident);
    }

    #[test]
    fn comments_and_whitespace_separate_tokens() {
        let toks = kinds("f32 /* x */[\t1,// c\r\n2]");
        let k: Vec<Tok> = toks.iter().map(|t| t.0).collect();
        assert_eq!(
            k,
            [
                Tok::PrimitiveType,
                Tok::Lsquare,
                Tok::Int,
                Tok::Comma,
                Tok::Int,
                Tok::Rsquare,
                Tok::Eof
            ]
        );
    }
}
