//! Reading the protobuf text format (`.pbtxt`) with prost-reflect's
//! parser, its nesting bounded first and very long unknown names
//! replaced before it reads (`formats::elide`), errors given for the
//! input.

use prost_reflect::{DynamicMessage, MessageDescriptor, ReflectMessage};

use crate::error::{Error, ErrorKind, Nesting, Result};
use crate::formats::elide::{Edit, LONG_TOKEN, apply, unused_stem};
use crate::formats::{SHALLOW_NESTING, bounded_message, transcode, with_stack_for};
use crate::limits::MAX_NESTING_DEPTH;

/// Parses the text format into a message of type `M`. Everything Google's
/// parser accepts is accepted: `name: value` or `name { ... }` /
/// `name < ... >`, optional `,` or `;` after a field, `#` comments, the
/// short list form `dimensions: [2, 3]`, enums by name or number, integers
/// in decimal, hex or octal, strings in either quote with C escapes and
/// adjacent strings concatenated.
///
/// # Errors
///
/// [`Format`](ErrorKind::Format) for text that does not parse or does not
/// fit the schema (unknown field names, a singular field given twice, a
/// value out of range), and for messages nested deeper than 100 levels
/// below the outermost one (the limit protobuf applies to binary input).
///
/// ```
/// use xla_shape::formats;
/// use xla_shape::proto::ShapeProto;
///
/// let p: ShapeProto = formats::from_text_format("element_type: F32 dimensions: [2, 3] # a comment")?;
/// assert_eq!(p.dimensions, [2, 3]);
/// let err = formats::from_text_format::<ShapeProto>("element_type: F33").unwrap_err();
/// assert_eq!(err.kind(), xla_shape::ErrorKind::Format);
/// # Ok::<(), xla_shape::Error>(())
/// ```
pub fn from_text_format<M: ReflectMessage + Default>(text: &str) -> Result<M> {
    let dynamic = from_text_format_dynamic(M::default().descriptor(), text)?;
    transcode(&dynamic)
}

/// [`from_text_format`] for a message type known only by its descriptor.
///
/// # Errors
///
/// As [`from_text_format`].
pub fn from_text_format_dynamic(
    descriptor: MessageDescriptor,
    text: &str,
) -> Result<DynamicMessage> {
    // The parser recurses once per nested message: bound the nesting
    // before parsing. Every message level opens one `{` or `<`.
    let nesting = text_nesting(text);
    if nesting > MAX_NESTING_DEPTH {
        return Err(too_deep());
    }
    with_stack_for(nesting > SHALLOW_NESTING, move || {
        read_text(&descriptor, text, LONG_TOKEN, LONG_STRING)
    })
}

/// prost-reflect's reading of `text`, with the names of `long_ident`
/// bytes or more that the schema cannot know and the strings of
/// `long_string` bytes or more replaced first (`elide`), so that
/// prost-reflect does not copy them.
fn read_text(
    descriptor: &MessageDescriptor,
    text: &str,
    long_ident: usize,
    long_string: usize,
) -> Result<DynamicMessage> {
    let fail = |message: &dyn std::fmt::Display| {
        Error::new(
            ErrorKind::Format,
            bounded_message("invalid text format message: ", message),
        )
    };
    if let Some(plan) = plan_text_edits(descriptor, text, long_ident, long_string) {
        let edited = apply(text, &plan.edits);
        match DynamicMessage::parse_text_format(descriptor.clone(), &edited) {
            Err(e) => return Err(fail(&plan.restored(&e.to_string(), text))),
            // The placeholders of strings were valid values: the input
            // itself is read (only then is it read twice).
            Ok(_) => drop(edited),
        }
    }
    DynamicMessage::parse_text_format(descriptor.clone(), text).map_err(|e| fail(&e))
}

/// Quoted strings at least this long are replaced by placeholders too. A
/// string is a valid value in many places, and then the input is read a
/// second time: the bound keeps that to inputs with strings of 64 KiB or
/// more.
const LONG_STRING: usize = 64 << 10;

/// The replacements of [`plan_text_edits`]: each placeholder is `stem`
/// and the index of its token in `tokens`.
struct TextPlan {
    edits: Vec<Edit>,
    stem: String,
    /// Each replaced token's place in the input (a string's contents,
    /// without the quotes) and what it is.
    tokens: Vec<(std::ops::Range<usize>, Token)>,
}

/// What a replaced token of [`TextPlan`] is.
#[derive(Clone, Copy)]
enum Token {
    /// A name.
    Name,
    /// A string, with what its placeholder keeps of its decoded bytes.
    String(Edges),
}

/// Plans the replacement of every identifier of `long_ident` bytes or more
/// that the schema cannot know (no field, enum value or type of the pool
/// and no keyword of the format has that name), also each part of a
/// dotted name (`[a.b]`, `[domain/type.name]`), and of every quoted string
/// of `long_string` bytes or more that the lexer accepts (escapes
/// included) and whose UTF-8 [`Edges`] can be kept, by placeholders that
/// also occur nowhere: the text-format parser treats a name it does not
/// know and a string's contents the same whatever they are, except where
/// its message quotes them and where a string field checks that the
/// value (adjacent strings joined) is UTF-8, which the kept edges decide
/// as the whole string did. `None` if there is nothing to replace.
fn plan_text_edits(
    descriptor: &MessageDescriptor,
    text: &str,
    long_ident: usize,
    long_string: usize,
) -> Option<TextPlan> {
    let bytes = text.as_bytes();
    let is_ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b'#' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'"' | b'\'' => {
                let start = i;
                i += 1;
                while i < bytes.len() && bytes[i] != b && bytes[i] != b'\n' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                if i < bytes.len()
                    && bytes[i] == b
                    && i - (start + 1) >= long_string
                    && let Some(edges) = Edges::of(&bytes[start + 1..i])
                {
                    tokens.push((start + 1..i, Token::String(edges)));
                }
            }
            // An identifier: not the letters of a number (`0x1f`, `1e5`,
            // `2f`, `1.e5`).
            _ if (b.is_ascii_alphabetic() || b == b'_')
                && (i == 0 || !is_ident(bytes[i - 1]))
                && (i == 0 || bytes[i - 1] != b'.' || !number_before(&bytes[..i - 1])) =>
            {
                let start = i;
                while i < bytes.len() && is_ident(bytes[i]) {
                    i += 1;
                }
                if i - start >= long_ident {
                    tokens.push((start..i, Token::Name));
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    if tokens.is_empty() {
        return None;
    }
    let names = schema_names(descriptor);
    tokens.retain(|(range, token)| {
        let name = &text[range.clone()];
        matches!(token, Token::String(_))
            || !(names.contains(name) || KEYWORDS.iter().any(|k| k.eq_ignore_ascii_case(name)))
    });
    if tokens.is_empty() {
        return None;
    }
    let mut stem = String::from("xla_shape_elided");
    loop {
        stem = unused_stem(text, &stem);
        if !names.iter().any(|n| n.starts_with(&stem)) && !KEYWORDS.contains(&stem.as_str()) {
            break;
        }
        stem.push('_');
    }
    let edits = tokens
        .iter()
        .enumerate()
        .map(|(n, (range, token))| {
            let (at, removed, inserted) = match token {
                // The quotes too: the placeholder is always in `"`.
                Token::String(edges) => {
                    let (head, tail) = edges.escaped();
                    (
                        range.start - 1,
                        range.len() + 2,
                        format!("\"{head}{stem}{n}{tail}\""),
                    )
                }
                Token::Name => (range.start, range.len(), format!("{stem}{n}")),
            };
            Edit {
                at,
                removed,
                inserted,
            }
        })
        .collect();
    Some(TextPlan {
        edits,
        stem,
        tokens,
    })
}

/// Whether the alphanumeric run that ends `before` (the text before a
/// `.`) is a number: then a name after the `.` may be part of it
/// (`1.e5`), and is left alone.
fn number_before(before: &[u8]) -> bool {
    let run = before
        .iter()
        .rev()
        .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
        .count();
    before[before.len() - run..]
        .first()
        .is_some_and(u8::is_ascii_digit)
}

/// The bytes of a string literal's contents (between its quotes) as
/// prost-reflect's lexer decodes them (`string` in
/// `dynamic/text_format/parse/lex.rs`: C escapes `\a \b \f \n \r \t \v
/// \? \\ \' \"`, `\x` with one or two hex digits, `\` with one to three
/// octal digits up to 255, `\u` with four and `\U` with eight hex digits
/// naming a `char`, any other byte but NUL, newline and `\`), each given
/// to `emit`; `false` where the lexer rejects the contents.
fn string_bytes(body: &[u8], mut emit: impl FnMut(u8)) -> bool {
    let hex_digits = |from: usize, max: usize| {
        body[from.min(body.len())..]
            .iter()
            .take(max)
            .take_while(|b| b.is_ascii_hexdigit())
            .count()
    };
    let number = |digits: &[u8], radix: u32| {
        digits.iter().fold(0u32, |n, &d| {
            n * radix + (d as char).to_digit(radix).unwrap_or(0)
        })
    };
    let mut i = 0;
    while i < body.len() {
        let b = body[i];
        if b == 0 || b == b'\n' {
            return false;
        }
        if b != b'\\' {
            emit(b);
            i += 1;
            continue;
        }
        let Some(&e) = body.get(i + 1) else {
            return false;
        };
        i += 2;
        match e {
            b'a' => emit(0x07),
            b'b' => emit(0x08),
            b'f' => emit(0x0c),
            b'n' => emit(b'\n'),
            b'r' => emit(b'\r'),
            b't' => emit(b'\t'),
            b'v' => emit(0x0b),
            b'?' | b'\\' | b'\'' | b'"' => emit(e),
            b'x' | b'X' => {
                let n = hex_digits(i, 2);
                if n == 0 {
                    return false;
                }
                // At most 0xff.
                emit(number(&body[i..i + n], 16) as u8);
                i += n;
            }
            b'0'..=b'7' => {
                let n = 1 + body[i..]
                    .iter()
                    .take(2)
                    .take_while(|d| matches!(d, b'0'..=b'7'))
                    .count();
                let Ok(byte) = u8::try_from(number(&body[i - 1..i - 1 + n], 8)) else {
                    return false;
                };
                emit(byte);
                i += n - 1;
            }
            b'u' | b'U' => {
                let want = if e == b'u' { 4 } else { 8 };
                if hex_digits(i, want) != want {
                    return false;
                }
                let Some(c) = char::from_u32(number(&body[i..i + want], 16)) else {
                    return false;
                };
                c.encode_utf8(&mut [0; 4]).bytes().for_each(&mut emit);
                i += want;
            }
            _ => return false,
        }
    }
    true
}

/// What a string's placeholder keeps of its decoded bytes so that a
/// string field reads the placeholder, with the strings beside it (which
/// the parser joins), exactly when it reads the string: up to three
/// continuation bytes that start it (they may end a character begun by
/// the string before), the incomplete character that ends it (the next
/// string may end it), and whether what lies between, the middle, is not
/// UTF-8 (then neither is any value the string is part of, and the
/// placeholder holds a `0xff`, which is never UTF-8). A valid middle
/// begins and ends on whole characters, as the placeholder's ASCII
/// stem does, so the value around it is UTF-8 with the one as with the
/// other.
#[derive(Clone, Copy)]
struct Edges {
    /// The placeholder's bytes before its stem: the leading continuation
    /// bytes.
    head: ([u8; 3], usize),
    /// Its bytes after the stem: a `0xff` if the middle is not UTF-8,
    /// else the trailing incomplete character.
    tail: ([u8; 3], usize),
}

impl Edges {
    /// The edges of the string literal contents `body`; `None` if the
    /// lexer rejects it (the parser then fails on it as it is), or its
    /// middle is empty (its two edges would meet across the placeholder).
    fn of(body: &[u8]) -> Option<Edges> {
        let mut head = ([0; 3], 0);
        let mut utf8 = Utf8::default();
        let (mut started, mut middle, mut invalid) = (false, false, false);
        let read = string_bytes(body, |b| {
            if invalid {
                return;
            }
            if !started && head.1 < 3 && (0x80..0xc0).contains(&b) {
                head.0[head.1] = b;
                head.1 += 1;
                return;
            }
            started = true;
            invalid = !utf8.push(b);
            // A whole character of the middle.
            middle |= utf8.need == 0;
        });
        let tail = match (invalid, utf8.need) {
            (true, _) => ([0xff, 0, 0], 1),
            (false, 0) => ([0; 3], 0),
            (false, _) => (utf8.bytes, utf8.len),
        };
        (read && (invalid || middle)).then_some(Edges { head, tail })
    }

    /// The text of the placeholder's bytes before and after its stem, as
    /// `\x` escapes.
    fn escaped(&self) -> (String, String) {
        let hex = |(bytes, n): ([u8; 3], usize)| {
            bytes[..n]
                .iter()
                .map(|b| format!("\\x{b:02x}"))
                .collect::<String>()
        };
        (hex(self.head), hex(self.tail))
    }

    /// The same bytes as the parser's messages print them
    /// (`ascii::escape_default`).
    fn printed(&self) -> (String, String) {
        let show = |(bytes, n): ([u8; 3], usize)| {
            bytes[..n]
                .iter()
                .flat_map(|&b| std::ascii::escape_default(b))
                .map(char::from)
                .collect::<String>()
        };
        (show(self.head), show(self.tail))
    }
}

/// A UTF-8 check one byte at a time (the well-formed sequences of the
/// Unicode Standard's table 3-7, as `str::from_utf8` checks them),
/// holding the bytes of the character it is in.
#[derive(Default)]
struct Utf8 {
    /// Continuation bytes the character still needs.
    need: usize,
    /// The range the next continuation byte must lie in.
    next: (u8, u8),
    /// The character's first `len` bytes (while it is incomplete).
    bytes: [u8; 3],
    len: usize,
}

impl Utf8 {
    /// Takes `b`; `false` if the bytes so far are not UTF-8.
    fn push(&mut self, b: u8) -> bool {
        if self.need == 0 {
            self.len = 0;
        }
        if self.need > 0 {
            if !(self.next.0..=self.next.1).contains(&b) {
                return false;
            }
            self.need -= 1;
            self.next = (0x80, 0xbf);
        } else {
            (self.need, self.next) = match b {
                0x00..=0x7f => (0, (0x80, 0xbf)),
                0xc2..=0xdf => (1, (0x80, 0xbf)),
                0xe0 => (2, (0xa0, 0xbf)),
                0xed => (2, (0x80, 0x9f)),
                0xe1..=0xef => (2, (0x80, 0xbf)),
                0xf0 => (3, (0x90, 0xbf)),
                0xf4 => (3, (0x80, 0x8f)),
                0xf1..=0xf3 => (3, (0x80, 0xbf)),
                _ => return false,
            };
        }
        // The fourth byte of a character completes it: never a trail.
        if self.len < 3 {
            self.bytes[self.len] = b;
            self.len += 1;
        }
        true
    }
}

/// Every name an identifier of the text format can stand for in the pool
/// of `descriptor`: fields, enum values and the parts of type names (the
/// format's keywords are [`KEYWORDS`]).
fn schema_names(descriptor: &MessageDescriptor) -> std::collections::HashSet<String> {
    let pool = descriptor.parent_pool();
    let mut names = std::collections::HashSet::new();
    for m in pool.all_messages() {
        names.extend(m.fields().map(|f| f.name().to_owned()));
        names.extend(m.full_name().split('.').map(str::to_owned));
    }
    for e in pool.all_enums() {
        names.extend(e.values().map(|v| v.name().to_owned()));
        names.extend(e.full_name().split('.').map(str::to_owned));
    }
    for x in pool.all_extensions() {
        names.extend(x.full_name().split('.').map(str::to_owned));
    }
    names
}

/// The identifiers the text format gives a meaning of its own, compared
/// without case (prost-reflect reads `True`, `Infinity`, `NaN`).
const KEYWORDS: [&str; 7] = ["true", "false", "t", "f", "inf", "infinity", "nan"];

impl TextPlan {
    /// The parser's message for the edited input, with each placeholder
    /// it quotes written as the token it replaced (a string as the parser
    /// prints a string: `ascii::escape_default` of its decoded bytes).
    fn restored<'a>(&'a self, message: &'a str, text: &'a str) -> impl std::fmt::Display + 'a {
        struct Show<'a>(&'a TextPlan, &'a str, &'a str);
        impl std::fmt::Display for Show<'_> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                let Show(plan, mut message, text) = *self;
                // A dotted name can hold several placeholders.
                while let Some(at) = message.find(&plan.stem) {
                    let digits = message[at + plan.stem.len()..]
                        .bytes()
                        .take_while(u8::is_ascii_digit)
                        .count();
                    let end = at + plan.stem.len() + digits;
                    let token = message[at + plan.stem.len()..end]
                        .parse::<usize>()
                        .ok()
                        .and_then(|n| plan.tokens.get(n));
                    match token {
                        // The string's bytes in place of the placeholder's
                        // (its kept edges around the stem too), where the
                        // message prints them whole.
                        Some((range, Token::String(edges)))
                            if message[..at].ends_with(&edges.printed().0)
                                && message[end..].starts_with(&edges.printed().1) =>
                        {
                            let (head, tail) = edges.printed();
                            f.write_str(&message[..at - head.len()])?;
                            let mut result = Ok(());
                            string_bytes(text[range.clone()].as_bytes(), |b| {
                                if result.is_ok() {
                                    result = write!(f, "{}", std::ascii::escape_default(b));
                                }
                            });
                            result?;
                            message = &message[end + tail.len()..];
                            continue;
                        }
                        Some((range, Token::Name)) => {
                            f.write_str(&message[..at])?;
                            f.write_str(&text[range.clone()])?;
                        }
                        _ => f.write_str(&message[..end])?,
                    }
                    message = &message[end..];
                }
                f.write_str(message)
            }
        }
        Show(self, message, text)
    }
}

fn too_deep() -> Error {
    Error::too_deep(
        ErrorKind::Format,
        "invalid text format message: ",
        Nesting::Messages,
    )
}

/// The deepest nesting of `{`/`<` in `text`, outside strings and comments.
fn text_nesting(text: &str) -> usize {
    let (mut depth, mut max) = (0usize, 0usize);
    let mut quote: Option<u8> = None;
    let mut escaped = false;
    let mut comment = false;
    for b in text.bytes() {
        if comment {
            comment = b != b'\n';
            continue;
        }
        if let Some(q) = quote {
            match b {
                // A string never spans lines.
                b'\n' => {
                    quote = None;
                    escaped = false;
                }
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                _ if b == q => quote = None,
                _ => {}
            }
            continue;
        }
        match b {
            b'#' => comment = true,
            b'"' | b'\'' => quote = Some(b),
            b'{' | b'<' => {
                depth += 1;
                max = max.max(depth);
            }
            b'}' | b'>' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::to_text_format;

    #[test]
    fn nesting_ignores_strings_and_comments() {
        assert_eq!(text_nesting("a { b: \"{{\" # {{{\n c < > }"), 2);
        assert_eq!(text_nesting("a: '<' b {}"), 1);
    }

    #[test]
    fn elided_names_give_the_same_errors() {
        // Every input given to text_format.Parse in the oracle file, and
        // unknown names, enum values and strings at several places.
        let mut cases = crate::formats::elide::tests::oracle_inputs(
            include_str!("../../../tests/data/oracle/formats_text_parse.jsonl"),
            "text",
        );
        for text in [
            "nope: 1",
            "element_type: F32 dimensions: 2\n nope { }",
            "element_type: NOPE",
            "element_type: \"F32\"",
            "dimensions: \"12\"",
            "dimensions: 'a\\'b'",
            "dimensions: \"caf\u{e9}\"",
            "dimensions: nope",
            "dimensions: -nope",
            "dimensions: [1, nope]",
            "layout { minor_to_major: 0 nope: 1 }",
            "[nope.ext]: 1",
            "layout < tiles { dimensions: x } >",
            "element_type: F32 element_type: nope",
            "dimensions: 0x1fq",
            "is_dynamic_dimension: tru",
            "# nope: 1\n element_type: F32",
            "nope",
            // Later parts of dotted names, and what looks like one.
            "[a.nope]: 1",
            "[a . b.c]: 1",
            "[type.googleapis.com/xla.Nope] { }",
            "[type.googleapis.com/nope.x] { }",
            "[a.b/xla.ShapeProto] { }",
            "dimensions: 1.e5",
            "dimensions: 1.nope",
            "dimensions: 1 .nope",
            "dimensions: 0x1f.nope",
            // Strings with escapes, valid or not.
            "dimensions: \"a\\tb\"",
            "element_type: \"\\x41\\101\\u00e9\\U0001F600\\a\\?\"",
            "dimensions: \"\\xff\"",
            "dimensions: \"\\400\"",
            "dimensions: \"\\u12\"",
            "dimensions: \"\\uD800\"",
            "dimensions: \"\\q\"",
            "dimensions: \"\\x\"",
            "dimensions: 'it\\'s'",
            "dimensions: \"a\" 'b\\\"'",
            "dimensions: \"a\\\nb\"",
        ] {
            cases.push(("xla.ShapeProto".into(), text.into()));
        }
        for text in [
            "pass_name: \"\\xc3\\xa9\"",
            "pass_name: \"\\xff\" nope: 1",
            "pass_name: \"\\u00e9\\t\" nope: 1",
            "pass_name: \"a\" \"b\\n\" pass_name: \"c\"",
            "custom_metrics { [type.googleapis.com/xla.PassMetrics] { pass_name: \"\\\"\" nope: 1 } }",
            // Byte escapes whose UTF-8 is whole only with the strings
            // beside them (the parser joins adjacent strings), or never.
            r#"pass_name: "a\xc3" "\xa9b" nope: 1"#,
            r#"pass_name: "a\xc3" "b""#,
            r#"pass_name: "a\xe2\x82" "\xacb" nope: 1"#,
            r#"pass_name: "a\xe2" "\x82\xacb" nope: 1"#,
            r#"pass_name: "a\xf0" "\x9f\x98\x80b" nope: 1"#,
            r#"pass_name: "a\xf0\x9f" "\x98" "\x80b" nope: 1"#,
            r#"pass_name: "a\xf0" "\x9f\x98\x80" nope: 1"#,
            r#"pass_name: "a\xe2\x82" "\xac\xacb""#,
            r#"pass_name: "a\xe0" "\x80\x80b""#,
            r#"pass_name: "a\xed" "\xa0\x80b""#,
            r#"pass_name: "\x80\x80\x80\x80b""#,
            r#"pass_name: "ab\xff" "c""#,
            r#"pass_name: "\300\257b""#,
            r#"pass_name: "a\xc3\xa9b\xf4\x90\x80\x80""#,
            r#"pass_name: "a\xc3\xa9\xf4\x8f\xbf\xbf" nope: 1"#,
            r#"pass_name: 'a\303' '\251b' pass_name: "c""#,
        ] {
            cases.push(("xla.PassMetrics".into(), text.into()));
        }
        for text in [
            r#"dimensions: "\x80ab\xe2\x82""#,
            r#"dimensions: "ab\xff\xfe""#,
            r#"element_type: "\xc3\xa9x""#,
            r#"dimensions: "a\xc3" "\xa9b""#,
        ] {
            cases.push(("xla.ShapeProto".into(), text.into()));
        }
        // A bytes field takes any bytes: the input is read as it is.
        for text in [
            r#"u8s: "\xff\x80ab" nope: 1"#,
            r#"u8s: "a\xc3" "\xa9b" shape { dimensions: 2 }"#,
            r#"u8s: "\x80ab\xe2""#,
        ] {
            cases.push(("xla.LiteralProto".into(), text.into()));
        }
        let differ = with_stack_for(true, || {
            let mut differ = Vec::new();
            for (message, text) in &cases {
                if text_nesting(text) > MAX_NESTING_DEPTH {
                    continue;
                }
                let descriptor = crate::proto::DESCRIPTOR_POOL
                    .get_message_by_name(message)
                    .unwrap();
                let show = |r: Result<DynamicMessage>| {
                    r.map(|m| to_text_format(&m)).map_err(|e| e.to_string())
                };
                let plain = show(from_text_format_dynamic(descriptor.clone(), text));
                // Every name the schema does not know and every string,
                // however short, replaced first.
                let elided = show(read_text(&descriptor, text, 1, 1));
                if plain != elided {
                    differ.push(format!(
                        "{text:?}:\n  plain   {plain:?}\n  elided  {elided:?}"
                    ));
                }
            }
            Ok(differ)
        })
        .unwrap();
        assert!(differ.is_empty(), "{}", differ.join("\n"));
    }
}
