//! What the commands write: errors as text or JSON objects, numbers,
//! lists, the names other systems give an element type, names from the
//! input made printable, JSON lines, and the failures that set the exit
//! status.

use std::borrow::Cow;
use std::io::{self, Write};

use serde_json::{Value, json};
use xla_shape::interop::{ElementType, System};
use xla_shape::{Diagnostic, ErrorKind, PrimitiveType};

/// One error, as the tool reports it: a kind (the library's
/// `ErrorKind::as_str`, or `Io`, `NoInput`, `TooLarge`, `Usage`), the
/// message (XLA's text where XLA has one, after the library error's
/// context where it has one) and, where known, the line and column of the
/// input it is about, both 1-based.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub kind: String,
    pub message: String,
    pub line: Option<usize>,
    pub column: Option<usize>,
    /// The library's diagnostics: each place in the text that went wrong.
    pub diagnostics: Vec<Diagnostic>,
}

impl Problem {
    /// A problem of `kind` with `message` and no position.
    pub fn new(kind: &str, message: impl Into<String>) -> Self {
        Problem {
            kind: kind.to_string(),
            message: message.into(),
            line: None,
            column: None,
            diagnostics: Vec::new(),
        }
    }

    /// The message on one line: a parse error's `was parsing L:C: error:
    /// ...` diagnostics after `Syntax error:` (without the source lines and
    /// carets of the full message); other line breaks become ` | `. Text
    /// from the input that it quotes is [`printable`].
    pub fn one_line(&self) -> String {
        if self.kind == ErrorKind::Parse.as_str() && !self.diagnostics.is_empty() {
            let mut s = String::from("Syntax error:");
            for d in &self.diagnostics {
                s.push(' ');
                s.push_str(&printable(&d.to_string()));
            }
            return s;
        }
        self.message
            .trim_end()
            .lines()
            .map(printable)
            .collect::<Vec<_>>()
            .join(" | ")
    }

    /// The message for a terminal: its lines as they are (a parse
    /// error's source line and caret), each [`printable`].
    pub fn for_terminal(&self) -> String {
        self.message
            .trim_end()
            .lines()
            .map(printable)
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The problem on input line `line` (its column, if any, is within
    /// that line).
    pub fn on_line(mut self, line: usize) -> Self {
        self.line = Some(line);
        for d in &mut self.diagnostics {
            let mut at = d.location();
            at.line = at.line.saturating_add(line - 1);
            *d = Diagnostic::new(at, d.message());
        }
        self
    }

    /// The error object of `--json`; `diagnostics` give each place's line
    /// and column (1-based, within the input line in line-by-line modes)
    /// and message.
    pub fn to_json(&self) -> Value {
        let diagnostics: Vec<Value> = self
            .diagnostics
            .iter()
            .map(|d| {
                json!({
                    "line": d.location().line,
                    "column": d.location().one_based_column(),
                    "message": d.message(),
                })
            })
            .collect();
        json!({
            "kind": self.kind,
            "message": self.message,
            "line": self.line,
            "column": self.column,
            "diagnostics": diagnostics,
        })
    }
}

impl From<&xla_shape::Error> for Problem {
    fn from(e: &xla_shape::Error) -> Self {
        let location = e.location();
        Problem {
            kind: e.kind().as_str().to_string(),
            // `Display`: the message after the error's context, if any.
            message: e.to_string(),
            line: location.map(|l| l.line),
            column: location.map(|l| l.one_based_column()),
            diagnostics: e.diagnostics().to_vec(),
        }
    }
}

impl From<xla_shape::Error> for Problem {
    fn from(e: xla_shape::Error) -> Self {
        Problem::from(&e)
    }
}

/// A failure and its exit status.
#[derive(Debug)]
pub enum Failure {
    /// Bad input: exit 1.
    Input(Problem),
    /// Bad usage: exit 2.
    Usage(String),
    /// Bad input, already reported on its own output line: exit 1.
    Reported,
    /// Reading standard input or writing standard output failed: exit 1,
    /// except for a closed output pipe, which ends the run quietly (exit 0).
    Io(io::Error),
}

impl From<xla_shape::Error> for Failure {
    fn from(e: xla_shape::Error) -> Self {
        Failure::Input(Problem::from(&e))
    }
}

impl From<Problem> for Failure {
    fn from(p: Problem) -> Self {
        Failure::Input(p)
    }
}

impl From<io::Error> for Failure {
    fn from(e: io::Error) -> Self {
        Failure::Io(e)
    }
}

/// How numbers are written: plain digits, or grouped in threes with `_`
/// (`--group-digits`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Numbers {
    pub grouped: bool,
}

impl Numbers {
    /// `n` in this style.
    pub fn format(self, n: i64) -> String {
        let digits = n.unsigned_abs().to_string();
        let sign = if n < 0 { "-" } else { "" };
        if !self.grouped {
            return format!("{sign}{digits}");
        }
        let mut out = String::from(sign);
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i).is_multiple_of(3) {
                out.push('_');
            }
            out.push(c);
        }
        out
    }
}

/// `n` bytes for a reader: `12_345_678 B (11.8 MiB)`.
pub fn bytes(n: i64) -> String {
    let grouped = Numbers { grouped: true }.format(n);
    match human(n) {
        Some(h) => format!("{grouped} B ({h})"),
        None => format!("{grouped} B"),
    }
}

/// `n` bytes in KiB, MiB, GiB or TiB with one decimal; `None` under 1 KiB.
pub fn human(n: i64) -> Option<String> {
    let units = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let mut value = n as f64;
    let mut unit = None;
    for u in units {
        if value.abs() < 1024.0 {
            break;
        }
        value /= 1024.0;
        unit = Some(u);
    }
    unit.map(|u| format!("{value:.1} {u}"))
}

/// `[a, b, c]`.
pub fn list(values: &[i64]) -> String {
    format!("{values:?}")
}

/// `a,b,c`.
pub fn comma_list(values: &[i64]) -> String {
    values
        .iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

/// Text for a terminal or a line format: control characters (escape
/// sequences, line breaks) written as Rust escapes (`\u{1b}`, `\n`), so
/// that names from the input cannot move the cursor or forge lines; the
/// rest as it is.
pub fn printable(text: &str) -> Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// `s` cut to `width` characters, ending in `…` when cut.
pub fn cut(s: &str, width: usize) -> Cow<'_, str> {
    if s.len() <= width || s.chars().count() <= width {
        return Cow::Borrowed(s);
    }
    let mut t: String = s.chars().take(width.saturating_sub(1)).collect();
    t.push('…');
    Cow::Owned(t)
}

/// `text` for XML text and attribute values.
pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Starts an SVG picture in `s`: the `<svg>` element of `width` by
/// `height` pixels (monospace text of 13 pixels), its `defs`, a white
/// background, the title (bold) and a caption under it (`draw`, with or
/// without `--sharding`).
pub fn svg_start(
    s: &mut String,
    (width, height): (i64, i64),
    defs: &str,
    title: &str,
    caption: &str,
) {
    use std::fmt::Write as _;
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="monospace" font-size="13">"#
    );
    s.push_str(defs);
    let _ = writeln!(
        s,
        r##"<rect width="{width}" height="{height}" fill="#ffffff"/>"##
    );
    let _ = writeln!(
        s,
        r#"<text x="10" y="22" font-size="15" font-weight="bold">{}</text>"#,
        escape(title)
    );
    let _ = writeln!(s, r#"<text x="10" y="42">{}</text>"#, escape(caption));
}

/// `NumPy bfloat16, DLPack kDLBfloat bits=16 lanes=1, ...`, or `None`
/// when no system names `t`.
pub fn known_as(t: PrimitiveType) -> Option<String> {
    let parts: Vec<String> = System::ALL
        .iter()
        .filter_map(|s| Some(format!("{} {}", s.name(), s.element_type(t)?)))
        .collect();
    (!parts.is_empty()).then(|| parts.join(", "))
}

/// An element type of another system as JSON: a name, a number, or
/// DLPack's `{code, bits, lanes}`.
fn element_type_json(e: ElementType) -> Value {
    match e {
        ElementType::Numpy(d) => json!(d.name),
        ElementType::Dlpack(d) => json!({"code": d.code, "bits": d.bits, "lanes": d.lanes}),
        ElementType::Pjrt(n) | ElementType::Tensorflow(n) => json!(n),
        ElementType::Safetensors(name) => json!(name),
        _ => json!(e.to_string()),
    }
}

/// The names of `t` as a JSON object, one key per system (`null` where a
/// system has none).
pub fn names_json(t: PrimitiveType) -> Value {
    let names: serde_json::Map<String, Value> = System::ALL
        .iter()
        .map(|s| {
            let name = s.element_type(t).map_or(Value::Null, element_type_json);
            (s.as_str().to_owned(), name)
        })
        .collect();
    Value::Object(names)
}

/// Writes one JSON value on its own line.
pub fn write_json(out: &mut impl Write, value: &Value) -> io::Result<()> {
    serde_json::to_writer(&mut *out, value)?;
    out.write_all(b"\n")
}

/// Writes the answer for one input line: `text`, or `error: MESSAGE`
/// (the message on one line); with `json`, the object `fields` plus
/// `"line"`, or `{"line": N, "error": {...}}`. Exactly one output line
/// either way. Returns whether the line failed.
pub fn write_record(
    out: &mut impl Write,
    json: bool,
    number: usize,
    answer: Result<(String, Value), Problem>,
) -> io::Result<bool> {
    match (answer, json) {
        (Ok((text, _)), false) => {
            writeln!(out, "{text}")?;
            Ok(false)
        }
        (Ok((_, mut fields)), true) => {
            if let Value::Object(map) = &mut fields {
                map.insert("line".to_string(), json!(number));
            }
            write_json(out, &fields)?;
            Ok(false)
        }
        (Err(p), false) => {
            writeln!(out, "error: {}", p.one_line())?;
            Ok(true)
        }
        (Err(p), true) => {
            let p = p.on_line(number);
            write_json(out, &json!({"line": number, "error": p.to_json()}))?;
            Ok(true)
        }
    }
}
