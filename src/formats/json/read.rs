//! Reading canonical proto3 JSON, as Google's runtime reads it
//! (`json_format.Parse`): a first pass for the nesting and duplicate keys
//! ([`scan_json`]), then prost-reflect's parser, on the input or on the
//! input with the edits of [`plan_edits`] applied, whose errors are given
//! for the input.

use std::borrow::Cow;
use std::collections::HashSet;

use prost_reflect::{DynamicMessage, MessageDescriptor, ReflectMessage};
use serde::de::DeserializeSeed;

use super::edits::{JsonPlan, clear_sentinel, plan_edits, string_end};
use crate::error::{Error, ErrorKind, Location, Result};
use crate::formats::elide::{LONG_TOKEN, Restored, apply, original_offset};
use crate::formats::{SHALLOW_NESTING, bounded_message, dynamic_depth, transcode, with_stack_for};

/// Parses canonical proto3 JSON into a message of type `M`, as
/// `json_format.Parse` does: fields may be named either way
/// (`elementType` or `element_type`), 64-bit integers may be numbers or
/// strings, enums names or numbers; unknown field names are an error.
///
/// # Errors
///
/// [`Format`](ErrorKind::Format) for text that is not JSON, does not fit
/// the schema, or nests messages deeper than 100 levels (counting the
/// outermost message, as `json_format.Parse` does).
///
/// ```
/// use xla_shape::formats;
/// use xla_shape::proto::ShapeProto;
///
/// let p: ShapeProto = formats::from_json(r#"{"element_type": "F32", "dimensions": [2, "3"]}"#)?;
/// assert_eq!(p.dimensions, [2, 3]);
/// let err = formats::from_json::<ShapeProto>(r#"{"elementType": "F33"}"#).unwrap_err();
/// assert_eq!(err.kind(), xla_shape::ErrorKind::Format);
/// # Ok::<(), xla_shape::Error>(())
/// ```
pub fn from_json<M: ReflectMessage + Default>(json: &str) -> Result<M> {
    let dynamic = from_json_dynamic(M::default().descriptor(), json)?;
    transcode(&dynamic)
}

/// [`from_json`] for a message type known only by its descriptor.
///
/// # Errors
///
/// As [`from_json`].
pub fn from_json_dynamic(descriptor: MessageDescriptor, json: &str) -> Result<DynamicMessage> {
    // json_format.Parse counts the outermost message as level 1 and allows
    // 100 levels. A message level takes at most two JSON levels (a list or
    // map, then an object), so deeper JSON cannot be a valid message; it is
    // rejected before parsing, which also bounds the parser's recursion.
    let scan = scan_json(json)?;
    if scan.nesting > MAX_JSON_DEPTH {
        return Err(too_deep());
    }
    with_stack_for(scan.nesting > 2 * SHALLOW_NESTING, move || {
        if scan.longest_string >= LONG_TOKEN {
            // A very long unknown name is replaced before prost-reflect
            // copies it (`elide`).
            let plan = plan_edits(&descriptor, json, LONG_TOKEN);
            if !plan.edits.is_empty() {
                return plan.parse(&descriptor, json);
            }
        }
        match read_json(&descriptor, json) {
            // prost-reflect reads `{}` as an `Any` without its `@type`, and
            // the keys before a late `@type` in an order of its own, where
            // json_format.Parse reads the empty `Any` (finding 11 of
            // docs/robustness.md) and the keys in the input's order. Only
            // on an error is the input walked again for either.
            Err(e) => {
                let plan = plan_edits(&descriptor, json, LONG_TOKEN);
                if plan.edits.is_empty() {
                    return Err(json_error(&e, json));
                }
                plan.parse(&descriptor, json)
            }
            Ok(message) => checked_depth(message),
        }
    })
}

/// prost-reflect's reading of `json`, without the crate's checks.
fn read_json(
    descriptor: &MessageDescriptor,
    json: &str,
) -> std::result::Result<DynamicMessage, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(json);
    de.disable_recursion_limit();
    descriptor
        .clone()
        .deserialize(&mut de)
        .and_then(|m| de.end().map(|()| m))
}

/// serde_json's error for `json` as the crate's.
fn json_error(e: &serde_json::Error, json: &str) -> Error {
    let error = Error::new(
        ErrorKind::Format,
        bounded_message("invalid JSON message: ", e),
    );
    if e.line() == 0 {
        return error;
    }
    // serde_json counts lines from 1 and columns from 1, in bytes.
    error.at(location_of(json, e.line(), e.column().saturating_sub(1)))
}

fn checked_depth(message: DynamicMessage) -> Result<DynamicMessage> {
    if dynamic_depth(&message) > MAX_JSON_MESSAGE_DEPTH {
        return Err(too_deep());
    }
    Ok(message)
}

/// `json_format.Parse`'s default `max_recursion_depth`: the crate's one
/// limit, but counted from the outermost message as `json_format` counts
/// it, so a JSON message holds one level less than its binary form.
const MAX_JSON_MESSAGE_DEPTH: usize = crate::limits::MAX_NESTING_DEPTH;

/// The deepest JSON nesting a message within that limit can have: a message
/// level takes at most two JSON levels (a list or map, then an object).
const MAX_JSON_DEPTH: usize = 1 + 2 * (MAX_JSON_MESSAGE_DEPTH - 1);

fn too_deep() -> Error {
    Error::new(
        ErrorKind::Format,
        format!(
            "invalid JSON message: Message too deep. Max recursion depth is {MAX_JSON_MESSAGE_DEPTH}"
        ),
    )
}

/// A first pass over `json`, before the parser sees it: the deepest
/// nesting of `{`/`[` (outside strings), and an error for an object with
/// the same key twice, which `json_format.Parse` rejects ("Failed to load
/// JSON: duplicate key") and serde-based parsers take the last of.
/// Malformed JSON is left to the parser. Levels beyond [`MAX_JSON_DEPTH`]
/// are counted but not held (their keys are not checked: the input is
/// rejected as too deep), so that memory stays proportional to the
/// objects' keys, not to the nesting. The longest string (key or value) is
/// noted for the reader's long-name check.
fn scan_json(json: &str) -> Result<JsonScan> {
    enum Frame<'a> {
        Object {
            keys: HashSet<Cow<'a, str>>,
            expect_key: bool,
        },
        Array,
    }
    let bytes = json.as_bytes();
    let mut stack: Vec<Frame> = Vec::new();
    // Levels open beyond those held in `stack`.
    let mut beyond = 0usize;
    let mut max = 0;
    let mut longest_string = 0;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                let start = i;
                i = string_end(bytes, i);
                let end = (i + 1).min(bytes.len());
                longest_string = longest_string.max(end - start);
                if beyond == 0
                    && let Some(Frame::Object { keys, expect_key }) = stack.last_mut()
                    && *expect_key
                {
                    *expect_key = false;
                    // Keys without escapes are borrowed from the input.
                    let raw = &json[start..end];
                    let key = match raw.strip_prefix('"').and_then(|r| r.strip_suffix('"')) {
                        Some(inner) if !inner.contains('\\') => Some(Cow::Borrowed(inner)),
                        _ => serde_json::from_str::<String>(raw).ok().map(Cow::Owned),
                    };
                    if let Some(key) = key
                        && let Err(key) = insert_new(keys, key)
                    {
                        let line_start = json[..start].rfind('\n').map_or(0, |n| n + 1);
                        return Err(Error::new(
                            ErrorKind::Format,
                            bounded_message(
                                "invalid JSON message: duplicate key ",
                                &format_args!("{key:?}"),
                            ),
                        )
                        .at(Location {
                            line: json[..start].matches('\n').count() + 1,
                            column: start - line_start,
                            offset: start,
                        }));
                    }
                }
            }
            b'{' | b'[' if stack.len() >= MAX_JSON_DEPTH => beyond += 1,
            b'{' => stack.push(Frame::Object {
                keys: HashSet::new(),
                expect_key: true,
            }),
            b'[' => stack.push(Frame::Array),
            b'}' | b']' if beyond > 0 => beyond -= 1,
            b'}' | b']' => {
                stack.pop();
            }
            b',' => {
                if beyond == 0
                    && let Some(Frame::Object { expect_key, .. }) = stack.last_mut()
                {
                    *expect_key = true;
                }
            }
            _ => {}
        }
        max = max.max(stack.len() + beyond);
        i += 1;
    }
    Ok(JsonScan {
        nesting: max,
        longest_string,
    })
}

/// What [`scan_json`] found.
#[derive(Clone, Copy, Debug)]
struct JsonScan {
    /// The deepest nesting of `{` and `[`.
    nesting: usize,
    /// The longest string, in bytes of the input with its quotes.
    longest_string: usize,
}

/// Inserts `key`, or gives it back when `keys` holds it already.
fn insert_new<'a>(
    keys: &mut HashSet<Cow<'a, str>>,
    key: Cow<'a, str>,
) -> std::result::Result<(), Cow<'a, str>> {
    if keys.contains(&key) {
        return Err(key);
    }
    keys.insert(key);
    Ok(())
}

impl JsonPlan<'_> {
    /// Parses the edited input; errors are given as for the input itself
    /// (the placeholder written as the name it replaced, positions in the
    /// input), and the sentinel `Any`s are cleared.
    fn parse(self, descriptor: &MessageDescriptor, json: &str) -> Result<DynamicMessage> {
        let edited = apply(json, &self.edits);
        match read_json(descriptor, &edited) {
            Ok(mut message) => {
                drop(edited);
                if let Some(url) = &self.sentinel {
                    clear_sentinel(&mut message, url);
                }
                checked_depth(message)
            }
            Err(e) => {
                let error = self.error(&e, json, &edited);
                drop(edited);
                Err(self.syntax_first(error, json))
            }
        }
    }

    /// `error`, or the input's first syntax error if it comes first:
    /// prost-reflect reads the keys before a late `@type` only as JSON
    /// until it has read the `@type`, so a syntax error among them (or
    /// anywhere before that `@type`) comes before an error in their
    /// values, which the edited input, with the `@type` first, reads as
    /// they come. json_format.Parse too loads the whole text before it
    /// reads a field. Only the planned reading with a late `@type`
    /// written first can differ; the input is read once more, for its
    /// syntax alone, on that error path only.
    fn syntax_first(&self, error: Error, json: &str) -> Error {
        let Some(at) = error.location().map(|l| l.offset) else {
            return error;
        };
        if self.buffered.is_empty() {
            return error;
        }
        // Where prost-reflect would reach the error: an error in buffered
        // keys, once it has read the `@type` of the outermost `Any` that
        // holds them.
        let at = self
            .buffered
            .iter()
            .filter(|r| r.contains(&at))
            .map(|r| r.end)
            .max()
            .unwrap_or(at);
        let mut de = serde_json::Deserializer::from_str(json);
        de.disable_recursion_limit();
        match <serde::de::IgnoredAny as serde::Deserialize>::deserialize(&mut de)
            .and_then(|_| de.end())
        {
            Err(syntax)
                if syntax.line() > 0
                    && location_of(json, syntax.line(), syntax.column().saturating_sub(1))
                        .offset
                        < at =>
            {
                json_error(&syntax, json)
            }
            _ => error,
        }
    }

    fn error(&self, e: &serde_json::Error, json: &str, edited: &str) -> Error {
        let (line, column) = (e.line(), e.column());
        let full = e.to_string();
        let suffix = format!(" at line {line} column {column}");
        let message = if line == 0 {
            &full[..]
        } else {
            full.strip_suffix(&suffix).unwrap_or(&full)
        };
        let (placeholder, original) = match &self.elided {
            Some((original, placeholder)) => (placeholder.as_str(), original.as_ref()),
            None => ("", ""),
        };
        let restored = Restored {
            message,
            placeholder,
            original,
        };
        if line == 0 {
            return Error::new(
                ErrorKind::Format,
                bounded_message("invalid JSON message: ", &restored),
            );
        }
        // Edits never span lines: the line is the same, the column moves.
        let column = if column == 0 {
            0
        } else {
            let line_start = location_of(edited, line, 0).offset;
            let offset = location_of(edited, line, column - 1).offset;
            original_offset(&self.edits, offset) - original_offset(&self.edits, line_start) + 1
        };
        Error::new(
            ErrorKind::Format,
            bounded_message(
                "invalid JSON message: ",
                &format_args!("{restored} at line {line} column {column}"),
            ),
        )
        .at(location_of(json, line, column.saturating_sub(1)))
    }
}

/// The location of `column` on 1-based `line` of `text`.
fn location_of(text: &str, line: usize, column: usize) -> Location {
    let line_start: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    Location {
        line,
        column,
        offset: (line_start + column).min(text.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nesting_ignores_brackets_in_strings() {
        let nesting = |json| scan_json(json).map(|s| s.nesting);
        assert_eq!(nesting(r#"{"a": "[[[{", "b": [{}]}"#), Ok(3));
        assert_eq!(nesting(r#""\"[""#), Ok(0));
    }

    #[test]
    fn duplicate_keys_are_found_at_any_level() {
        // `"\u0061"` is `"a"`, as json.loads reads it.
        let err = scan_json("{\"b\": 1,\n \"x\": {\"a\": 1, \"\\u0061\": 2}}").unwrap_err();
        assert_eq!(err.message(), "invalid JSON message: duplicate key \"a\"");
        assert_eq!(
            err.location(),
            // The first line, `{"b": 1,` and its newline, is 9 bytes.
            Some(Location {
                line: 2,
                column: 15,
                offset: 9 + 15
            })
        );
        assert_eq!(
            scan_json(r#"[{"a": 1}, {"a": 2}]"#).map(|s| s.nesting),
            Ok(2)
        );
    }

    /// The reader's answer eliding nothing, and its answer with every name the
    /// schema does not know (however short) replaced by a placeholder.
    fn both_ways(
        message: &str,
        json: &str,
    ) -> (
        std::result::Result<String, String>,
        std::result::Result<String, String>,
    ) {
        let descriptor = crate::proto::DESCRIPTOR_POOL
            .get_message_by_name(message)
            .unwrap();
        // A message as its text format (map entries in key order, NaN
        // equal to itself), an error with its location.
        let show = |r: Result<DynamicMessage>| {
            r.map(|m| crate::formats::to_text_format(&m))
                .map_err(|e| format!("{e} at {:?}", e.location()))
        };
        // The reader with every other edit (empty `Any`s, late `@type`s
        // written first), eliding nothing.
        let plain = plan_edits(&descriptor, json, usize::MAX).parse(&descriptor, json);
        let planned = plan_edits(&descriptor, json, 1).parse(&descriptor, json);
        (show(plain), show(planned))
    }

    #[test]
    fn elided_names_give_the_same_errors() {
        // Every input given to json_format.Parse in the oracle file, and
        // unknown names and enum values at several places and levels.
        let mut cases = crate::formats::elide::tests::oracle_inputs(
            include_str!("../../../tests/data/oracle/formats_json_parse.jsonl"),
            "json",
        );
        for json in [
            "{\"nope\": 1}",
            "{\"elementType\": \"F32\",\n  \"dimensions\": [2],  \"nope\" : [1, 2]}",
            "{\"elementType\": \"F3\\u0032x\"}",
            "{\"n\\u006fpe\": 1}",
            "{\"elementType\": \"F33\", \"nope\": 1}",
            "{\"tupleShapes\": [{\"elementType\": \"F32\"}, {\"layout\": {\"tiles\": [{\"x\": 1}]}}]}",
            "{\"layout\": {\"minorToMajor\": [0], \"memorySpace\": \"1\", \"q\": 2}}",
            "{\"elementType\": \"F32\", \"elementType\": \"nope\"}",
            "{\"dimensions\": [1, \"x\"], \"nope\": 1}",
            "{\"elementType\": [\"F32\"]}",
            "{\"nope\": 1",
            "{\"nope",
        ] {
            cases.push(("xla.ShapeProto".into(), json.into()));
        }
        for json in [
            "{\"customMetrics\": {}, \"passName\": \"x\", \"nope\": 1}",
            "{\"customMetrics\": {\"@type\": \"type.googleapis.com/xla.PassMetrics\", \"passName\": \"p\", \"nope\": 2}}",
            "{\"customMetrics\": {\"passName\": \"p\"}}",
            "{\"customMetrics\": {}, \"customMetrics\": {}}",
            // `Any`s whose `@type` is not first, or names no message.
            "{\"customMetrics\": {\"nope\": 1, \"@type\": \"type.googleapis.com/xla.PassMetrics\"}}",
            "{\"customMetrics\": {\"passName\": \"p\", \"nope\": 1, \"@type\": \"type.googleapis.com/xla.PassMetrics\"}}",
            "{\"customMetrics\": {\"passName\": \"p\", \"\\u0040type\": \"type.googleapis.com/xla.PassMetrics\", \"nope\": 2}}",
            "{\"customMetrics\": {\"passName\": \"p\", \"@type\": \"type.googleapis.com/xla.Nope\"}}",
            "{\"customMetrics\": {\"passName\": \"p\", \"@type\": \"nope\"}}",
            "{\"customMetrics\": {\"passName\": [1], \"@type\": 2}}",
            "{\"customMetrics\": {\"@type\": \"type.googleapis.com/xla.Nope\"}}",
            "{\"customMetrics\": {\"@type\": \"nope\", \"x\": 1}}",
            "{\"customMetrics\": {\"@type\": \"a/b/nope\"}}",
            "{\"customMetrics\": {\"@type\": \"type.googleapis.com\\/xla.N\\u006fpe\"}}",
            "{\"customMetrics\": {\"passName\": \"p\", \"customMetrics\": {\"nope\": 1, \"@type\": \"type.googleapis.com/xla.PassMetrics\"}, \"@type\": \"type.googleapis.com/xla.PassMetrics\"}}",
            "{\"customMetrics\": {\"value\": 1, \"@type\": \"type.googleapis.com/google.protobuf.Int32Value\"}}",
        ] {
            cases.push(("xla.PassMetrics".into(), json.into()));
        }
        assert!(cases.len() > 80);
        // The oracle's inputs nest 100 levels: the messages are compared
        // and dropped on a large stack.
        let differ = with_stack_for(true, || {
            let mut differ = Vec::new();
            for (message, json) in &cases {
                // The readers see only what the first pass lets through.
                if !matches!(scan_json(json), Ok(s) if s.nesting <= MAX_JSON_DEPTH) {
                    continue;
                }
                let (plain, planned) = both_ways(message, json);
                if plain != planned {
                    differ.push(format!(
                        "{json}:\n  plain   {plain:?}\n  elided  {planned:?}"
                    ));
                }
            }
            Ok(differ)
        })
        .unwrap();
        assert!(differ.is_empty(), "{}", differ.join("\n"));
    }

    #[test]
    fn a_syntax_error_before_a_late_type_comes_first() {
        // prost-reflect reads the keys before a late `@type` only as JSON
        // (and json_format.Parse loads the whole text first): a syntax
        // error among them is the error, not a bad key before it, also
        // when the reader writes the `@type` first (found by the
        // any_message fuzz target: the key was long, and elided). After
        // the `@type`, the bad key comes first, as prost-reflect reads
        // the buffered keys once it has the `@type`.
        let descriptor = crate::proto::DESCRIPTOR_POOL
            .get_message_by_name("xla.PassMetrics")
            .unwrap();
        let url = "\"@type\": \"type.googleapis.com/xla.PassMetrics\"";
        let long = "x".repeat(LONG_TOKEN);
        for (json, syntax) in [
            (
                format!("{{\"customMetrics\": {{\"nope\": 1x, {url}}}}}"),
                true,
            ),
            (
                format!("{{\"customMetrics\": {{\"{long}\": 1x, {url}}}}}"),
                true,
            ),
            (
                format!("{{\"customMetrics\": {{\"nope\": 1, \"passName\": \"p\" {url}}}}}"),
                true,
            ),
            (
                format!("{{\"customMetrics\": {{\"nope\": 1, {url}, \"passName\": \"p\" x}}}}"),
                false,
            ),
            (
                format!("{{\"customMetrics\": {{\"nope\": 1, {url}}}}}}}"),
                false,
            ),
            (
                format!("{{\"customMetrics\": {{\"{long}\": 1, {url}}}}}}}"),
                false,
            ),
        ] {
            let ours = from_json_dynamic(descriptor.clone(), &json).unwrap_err();
            let theirs = json_error(&read_json(&descriptor, &json).unwrap_err(), &json);
            if syntax {
                assert_eq!(ours.to_string(), theirs.to_string(), "{json:.80}");
                assert_eq!(ours.location(), theirs.location());
            } else {
                assert!(
                    ours.to_string()
                        .starts_with("invalid JSON message: unrecognized field name"),
                    "{json:.80}: {ours}"
                );
            }
        }
    }
}
