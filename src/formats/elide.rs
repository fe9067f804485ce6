//! Very long names in JSON and the text format, replaced before parsing.
//!
//! prost-reflect copies a name it does not know (a JSON key, a JSON enum
//! value, a text-format identifier) into a `String`, then into its error
//! message, and serde_json copies that message once more: a 300 MB name
//! costs four times its size. A name longer than
//! [`LONG_TOKEN`] bytes that the schema cannot know is therefore replaced
//! by a short placeholder the schema does not know either; the parser then
//! fails at the same place for the same reason, and the placeholder in its
//! message is replaced by the original name (cut, as every message is, at
//! [`MAX_ERROR_MESSAGE_BYTES`]). The edited copy of the input is the only
//! copy.

use std::fmt;

use crate::formats::MAX_ERROR_MESSAGE_BYTES;

/// Names and strings at least this long are looked at before parsing: the
/// message that quotes them is cut anyway.
pub(crate) const LONG_TOKEN: usize = MAX_ERROR_MESSAGE_BYTES;

/// A placeholder stem that occurs nowhere in `text`: `stem`, then
/// `_1`, `_2`, ... until one does not occur.
pub(crate) fn unused_stem(text: &str, stem: &str) -> String {
    let mut candidate = stem.to_owned();
    let mut n = 0u32;
    while text.contains(&candidate) {
        n += 1;
        candidate = format!("{stem}_{n}");
    }
    candidate
}

/// One replacement: `removed` bytes of the input at `at` became `inserted`.
pub(crate) struct Edit {
    pub(crate) at: usize,
    pub(crate) removed: usize,
    pub(crate) inserted: String,
}

/// The input with `edits` (sorted, not overlapping) applied: the one copy.
pub(crate) fn apply(text: &str, edits: &[Edit]) -> String {
    let grown: usize = edits.iter().map(|e| e.inserted.len()).sum();
    let mut out = String::with_capacity(text.len() + grown);
    let mut from = 0;
    for e in edits {
        out.push_str(&text[from..e.at]);
        out.push_str(&e.inserted);
        from = e.at + e.removed;
    }
    out.push_str(&text[from..]);
    out
}

/// The offset in the input of `offset` in the edited text; an offset
/// inside an inserted text is that edit's place in the input.
pub(crate) fn original_offset(edits: &[Edit], offset: usize) -> usize {
    // `offset` minus what the edits before it added, plus what they removed.
    let (mut added, mut removed) = (0usize, 0usize);
    for e in edits {
        let start = e.at + added - removed;
        if offset < start {
            break;
        }
        if offset < start + e.inserted.len() {
            return e.at;
        }
        added += e.inserted.len();
        removed += e.removed;
    }
    offset + removed - added
}

/// A parser's message with the first occurrence of `placeholder` written
/// as `original` (written lazily, so that a cut message never holds the
/// whole original).
pub(crate) struct Restored<'a, T: fmt::Display + ?Sized> {
    pub(crate) message: &'a str,
    pub(crate) placeholder: &'a str,
    pub(crate) original: &'a T,
}

impl<T: fmt::Display + ?Sized> fmt::Display for Restored<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.message.find(self.placeholder) {
            Some(i) if !self.placeholder.is_empty() => {
                f.write_str(&self.message[..i])?;
                self.original.fmt(f)?;
                f.write_str(&self.message[i + self.placeholder.len()..])
            }
            _ => f.write_str(self.message),
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The message names and inputs (under `key`) of an oracle file's
    /// records.
    pub(crate) fn oracle_inputs(jsonl: &str, key: &str) -> Vec<(String, String)> {
        jsonl
            .lines()
            .map(|l| {
                let r: serde_json::Value = serde_json::from_str(l).unwrap();
                (
                    r["message"].as_str().unwrap().to_owned(),
                    r[key].as_str().unwrap().to_owned(),
                )
            })
            .collect()
    }

    #[test]
    fn offsets_map_back_through_edits() {
        // "ab[XYZ]cd" -> "abQcd": one byte in place of five at 2; then an
        // insertion of "++" at 7.
        let text = "ab[XYZ]cd";
        let edits = [
            Edit {
                at: 2,
                removed: 5,
                inserted: "Q".into(),
            },
            Edit {
                at: 8,
                removed: 0,
                inserted: "++".into(),
            },
        ];
        let edited = apply(text, &edits);
        assert_eq!(edited, "abQc++d");
        let back: Vec<usize> = (0..=edited.len())
            .map(|o| original_offset(&edits, o))
            .collect();
        // a b Q c + + d end
        assert_eq!(back, [0, 1, 2, 7, 8, 8, 8, 9]);
    }

    #[test]
    fn placeholders_are_restored_once() {
        let r = Restored {
            message: "unknown 'P' (not 'P')",
            placeholder: "P",
            original: "long",
        };
        assert_eq!(r.to_string(), "unknown 'long' (not 'P')");
        assert_eq!(unused_stem("a x x_1 b", "x"), "x_2");
    }
}
