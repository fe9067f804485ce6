//! The strings sharding text shares with its neighbours: MLIR's string
//! escapes undone (Shardy's names, StableHLO's strings and `mhlo.sharding`
//! values are MLIR string literals), absl's `CEscape`, and XLA's
//! `OpMetadataToString`, which the tiled and the named forms both print,
//! and the braced axis lists of both named forms.

use std::fmt;

use crate::proto::{OpMetadata, Payload, payload::PayloadSource};

/// The bytes of an MLIR string literal's body (the text between its
/// quotes) with MLIR's escapes undone (`mlir::Lexer::lexString`: `\"`,
/// `\\`, `\n`, `\t` and two hexadecimal digits `\XX`; a `\` before
/// anything else is kept). Shardy's names, StableHLO's strings and
/// `mhlo.sharding` values are such literals.
pub(crate) fn unescape_mlir(raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        if raw[i] != b'\\' || i + 1 >= raw.len() {
            out.push(raw[i]);
            i += 1;
            continue;
        }
        let hex = raw
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .filter(|h| h.bytes().all(|c| c.is_ascii_hexdigit()))
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (raw[i + 1], hex) {
            (b'n', _) => out.push(b'\n'),
            (b't', _) => out.push(b'\t'),
            (c @ (b'"' | b'\\'), _) => out.push(c),
            (_, Some(b)) => {
                out.push(b);
                i += 3;
                continue;
            }
            _ => {
                out.push(b'\\');
                i += 1;
                continue;
            }
        }
        i += 2;
    }
    out
}

/// `absl::CEscape`: `\n \r \t \" \' \\` and every other byte outside
/// `0x20..0x7f` as a three-digit octal escape.
pub(crate) fn c_escape(f: &mut (impl fmt::Write + ?Sized), bytes: &[u8]) -> fmt::Result {
    for &b in bytes {
        match b {
            b'\n' => f.write_str("\\n")?,
            b'\r' => f.write_str("\\r")?,
            b'\t' => f.write_str("\\t")?,
            b'"' => f.write_str("\\\"")?,
            b'\'' => f.write_str("\\'")?,
            b'\\' => f.write_str("\\\\")?,
            0x20..=0x7e => f.write_char(char::from(b))?,
            _ => write!(f, "\\{b:03o}")?,
        }
    }
    Ok(())
}

/// XLA's `OpMetadataToString`, as jaxlib 0.10.2 prints it: the set fields,
/// space-separated.
#[allow(deprecated)] // `profile_type`, which XLA still prints.
pub(crate) fn write_metadata(f: &mut (impl fmt::Write + ?Sized), m: &OpMetadata) -> fmt::Result {
    let mut first = true;
    let mut sep = |f: &mut (dyn fmt::Write + '_)| -> fmt::Result {
        if !std::mem::take(&mut first) {
            f.write_char(' ')?;
        }
        Ok(())
    };
    let f: &mut dyn fmt::Write = &mut FmtAdapter(f);
    for (name, value) in [
        ("op_type", &m.op_type),
        ("op_name", &m.op_name),
        ("source_file", &m.source_file),
    ] {
        if !value.is_empty() {
            sep(f)?;
            write!(f, "{name}=\"")?;
            c_escape(f, value.as_bytes())?;
            f.write_char('"')?;
        }
    }
    for (name, value) in [
        ("source_line", m.source_line),
        ("source_end_line", m.source_end_line),
        ("source_column", m.source_column),
        ("source_end_column", m.source_end_column),
    ] {
        if value != 0 {
            sep(f)?;
            write!(f, "{name}={value}")?;
        }
    }
    if !m.profile_type.is_empty() {
        sep(f)?;
        f.write_str("profile_type={")?;
        for (i, t) in m.profile_type.iter().enumerate() {
            if i > 0 {
                f.write_char(',')?;
            }
            write!(f, "{t}")?;
        }
        f.write_char('}')?;
    }
    for (name, value) in [
        ("deduplicated_name", &m.deduplicated_name),
        ("scheduling_name", &m.scheduling_name),
    ] {
        if !value.is_empty() {
            sep(f)?;
            write!(f, "{name}=\"")?;
            c_escape(f, value.as_bytes())?;
            f.write_char('"')?;
        }
    }
    if m.stack_frame_id != 0 {
        sep(f)?;
        write!(f, "stack_frame_id={}", m.stack_frame_id)?;
    }
    if let Some(Payload {
        payload_source: Some(PayloadSource::Value(v)),
    }) = &m.metadata_payload
        && !v.is_empty()
    {
        sep(f)?;
        f.write_str("metadata_payload=\"")?;
        c_escape(f, v)?;
        f.write_char('"')?;
    }
    Ok(())
}

/// A `dyn fmt::Write` over any writer.
struct FmtAdapter<'a, W: fmt::Write + ?Sized>(&'a mut W);

impl<W: fmt::Write + ?Sized> fmt::Write for FmtAdapter<'_, W> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0.write_str(s)
    }
}

/// A list of axes in braces as both named forms print it (XLA's
/// `NamedSharding::ToString`, Shardy's `TensorShardingAttr` printer):
/// `{a, b}`, with `?` last for an open dimension (`{a, ?}`, `{?}`).
pub(crate) fn write_axis_list<W: fmt::Write + ?Sized, A>(
    f: &mut W,
    axes: &[A],
    open: bool,
    mut axis: impl FnMut(&mut W, &A) -> fmt::Result,
) -> fmt::Result {
    f.write_str("{")?;
    for (i, a) in axes.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        axis(f, a)?;
    }
    if open {
        f.write_str(if axes.is_empty() { "?" } else { ", ?" })?;
    }
    f.write_str("}")
}
