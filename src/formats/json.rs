//! Canonical proto3 JSON, as Google's runtime writes and reads it
//! (`json_format.MessageToJson` / `json_format.Parse`).

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io;
use std::ops::Range;

use prost_reflect::{
    DynamicMessage, EnumDescriptor, FieldDescriptor, Kind, MapKey, MessageDescriptor,
    ReflectMessage, Value,
};
use serde::de::DeserializeSeed;
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

use crate::error::{Error, ErrorKind, Location, Result};
use crate::formats::elide::{Edit, LONG_TOKEN, Restored, apply, original_offset, unused_stem};
use crate::formats::lossless::{Field, LosslessMessage, MapValue};
use crate::formats::{
    SHALLOW_NESTING, bounded_message, dynamic_depth, float, transcode, with_stack_for,
};

/// How [`to_json_with`] writes a message.
///
/// The default is what logs and scripts want: compact
/// output (`json.dumps(..., separators=(",", ":"))`) with lowerCamelCase
/// names, as `MessageToJson` names fields.
///
/// ```
/// use xla_shape::formats::{self, JsonOptions};
/// use xla_shape::proto::ShapeProto;
///
/// let p = ShapeProto { element_type: 11, dimensions: vec![2, 3], ..Default::default() };
/// assert_eq!(formats::to_json(&p), r#"{"elementType":"F32","dimensions":["2","3"]}"#);
/// let names = JsonOptions::new().preserve_proto_field_names(true);
/// assert_eq!(
///     formats::to_json_with(&p, &names),
///     r#"{"element_type":"F32","dimensions":["2","3"]}"#
/// );
/// let pretty = JsonOptions::new().pretty(true);
/// assert_eq!(
///     formats::to_json_with(&p, &pretty),
///     "{\n  \"elementType\": \"F32\",\n  \"dimensions\": [\n    \"2\",\n    \"3\"\n  ]\n}"
/// );
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct JsonOptions {
    proto_field_names: bool,
    pretty: bool,
}

impl JsonOptions {
    /// Compact output with lowerCamelCase names.
    pub fn new() -> Self {
        Self::default()
    }

    /// Name fields as the schema does (`element_type`) rather than in
    /// lowerCamelCase (`elementType`): `preserving_proto_field_name=True`.
    pub fn preserve_proto_field_names(mut self, yes: bool) -> Self {
        self.proto_field_names = yes;
        self
    }

    /// Indent by two spaces, one value a line, as Python's
    /// `json.dumps(..., indent=2)` and `MessageToJson`'s default do; `false`
    /// gives the compact form without any spaces.
    pub fn pretty(mut self, yes: bool) -> Self {
        self.pretty = yes;
        self
    }

    /// Whether fields are named as in the schema.
    pub fn proto_field_names(&self) -> bool {
        self.proto_field_names
    }

    /// Whether the output is indented.
    pub fn is_pretty(&self) -> bool {
        self.pretty
    }
}

/// The canonical proto3 JSON of `message`, compact, with lowerCamelCase
/// names.
///
/// Fields are written in field-number order, fields holding their default
/// value are left out, 64-bit integers are strings, enums are written by
/// name (numbers the schema does not know as numbers), bytes in base64,
/// floats as Python writes them; strings are escaped to ASCII as
/// `json.dumps` does. Map entries are written in key order.
///
/// ```
/// use xla_shape::formats;
/// use xla_shape::proto::{LayoutProto, ShapeProto};
///
/// let p = ShapeProto {
///     element_type: 99, // a number the schema does not know
///     layout: Some(Box::new(LayoutProto { minor_to_major: vec![0], ..Default::default() })),
///     ..Default::default()
/// };
/// assert_eq!(formats::to_json(&p), r#"{"elementType":99,"layout":{"minorToMajor":["0"]}}"#);
/// ```
pub fn to_json<M: ReflectMessage>(message: &M) -> String {
    to_json_with(message, &JsonOptions::new())
}

/// The canonical proto3 JSON of `message`, written as `options` say.
pub fn to_json_with<M: ReflectMessage>(message: &M, options: &JsonOptions) -> String {
    lossless_to_json(&LosslessMessage::from_message(message), options)
}

pub(crate) fn lossless_to_json(message: &LosslessMessage, options: &JsonOptions) -> String {
    let mut out = Vec::with_capacity(128);
    let view = JsonView {
        message,
        proto_field_names: options.proto_field_names,
    };
    let result = if options.pretty {
        let mut ser = serde_json::Serializer::with_formatter(
            &mut out,
            PythonFormatter {
                inner: Inner::Pretty(serde_json::ser::PrettyFormatter::with_indent(b"  ")),
            },
        );
        view.serialize(&mut ser)
    } else {
        let mut ser = serde_json::Serializer::with_formatter(
            &mut out,
            PythonFormatter {
                inner: Inner::Compact(serde_json::ser::CompactFormatter),
            },
        );
        view.serialize(&mut ser)
    };
    // The view only produces strings as map keys and never fails, and
    // writing to a Vec cannot fail.
    result.expect("serialising a message to a Vec<u8> cannot fail");
    // Every byte written is ASCII: strings are escaped as `json.dumps`
    // escapes them with `ensure_ascii=True`.
    String::from_utf8(out).expect("the JSON writer writes ASCII only")
}

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

/// The index of the quote that closes the string opening at `start` (or
/// the input's length, for a string left open).
fn string_end(bytes: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    while i < bytes.len() && bytes[i] != b'"' {
        i += if bytes[i] == b'\\' { 2 } else { 1 };
    }
    i.min(bytes.len())
}

/// What the reader changes in a JSON text before prost-reflect reads it.
struct JsonPlan<'a> {
    edits: Vec<Edit>,
    /// The first long name no schema type in its place knows, as the
    /// parser would quote it, and the placeholder that replaced it.
    elided: Option<(Cow<'a, str>, String)>,
    /// The type URL given to each empty `Any` (`{}`), cleared after parsing.
    sentinel: Option<String>,
    /// Each `Any` whose late `@type` is written first: from its `{` to the
    /// end of that `@type`, the keys prost-reflect reads only as JSON
    /// until it has read the `@type` ([`JsonPlan::syntax_first`]).
    buffered: Vec<Range<usize>>,
}

/// The type a JSON value is read as, as far as the reader's edits need it.
#[derive(Clone)]
enum JsonType {
    Message(MessageDescriptor),
    /// A `google.protobuf.Any` before its `@type` is known.
    Any,
    Enum(EnumDescriptor),
    /// A field: a list or map field, or one value of the field's type.
    Field(FieldDescriptor),
    /// The string of an `Any`'s leading `@type`.
    TypeUrl,
    /// Anything else, and whatever lies inside it.
    Other,
}

impl JsonType {
    fn of_message(m: MessageDescriptor) -> Self {
        match m.full_name() {
            "google.protobuf.Any" => JsonType::Any,
            // The other well-known types have JSON forms of their own.
            name if name.starts_with("google.protobuf.") => JsonType::Other,
            _ => JsonType::Message(m),
        }
    }

    /// One value of `field`'s type (an element, for a list field).
    fn of_value(field: &FieldDescriptor) -> Self {
        match field.kind() {
            Kind::Message(m) => Self::of_message(m),
            Kind::Enum(e) if e.full_name() != "google.protobuf.NullValue" => JsonType::Enum(e),
            _ => JsonType::Other,
        }
    }
}

enum JsonFrame {
    Object {
        /// `Message`, `Any`, `Field` (a map field) or `Other`.
        of: JsonType,
        /// The type of the value after the key just read.
        value: JsonType,
        expect_key: bool,
        keys: usize,
        start: usize,
        /// The last `,` between this object's members.
        comma: usize,
        /// The range of this `Any`'s late `@type` value (quotes included),
        /// written again at the object's start (`plan_edits`).
        hoisted: Option<Range<usize>>,
    },
    /// An array of values of this type.
    Array(JsonType),
}

/// Walks `json` with the schema of `descriptor` (after [`scan_json`], so
/// the nesting is bounded) and plans the reader's edits: the first key or
/// enum value of `long_token` bytes or more that the message or enum in
/// its place does not know becomes a placeholder (the walk stops there:
/// the parser fails at it), and every empty `Any` gets a sentinel `@type` naming a message of the pool (its
/// payload is then empty) for [`JsonPlan::parse`] to clear, also in an
/// `Any`'s payload. Malformed
/// input ends the walk where the parser will fail.
fn plan_edits<'a>(
    descriptor: &MessageDescriptor,
    json: &'a str,
    long_token: usize,
) -> JsonPlan<'a> {
    let bytes = json.as_bytes();
    let mut plan = JsonPlan {
        edits: Vec::new(),
        elided: None,
        sentinel: None,
        buffered: Vec::new(),
    };
    let mut stack: Vec<JsonFrame> = Vec::new();
    let mut top_taken = false;
    // The `@type` of each `Any` that does not start with it, found on
    // first need.
    let mut late_urls: Option<HashMap<usize, Range<usize>>> = None;
    for (i, byte, end) in json_structure(json) {
        match byte {
            b'"' => {
                let (start, i) = (i, end);
                // The string as the parser decodes it (escapes: one copy),
                // when it is needed; `None` where the parser fails.
                let raw = &json[start + 1..i];
                let decode = || json_string(json, start + 1..i);
                let long = raw.len() >= long_token;
                if let Some(JsonFrame::Object {
                    of,
                    value,
                    expect_key: expect_key @ true,
                    keys,
                    start: object,
                    comma,
                    hoisted,
                }) = stack.last_mut()
                {
                    let Some(text) = decode() else {
                        break;
                    };
                    *expect_key = false;
                    *keys += 1;
                    if text == "@type"
                        && let Some(url) = hoisted.take()
                    {
                        // The late `@type` written at the object's start:
                        // removed here, with the `,` before it.
                        plan.edits.push(Edit {
                            at: *comma,
                            removed: url.end - *comma,
                            inserted: String::new(),
                        });
                    }
                    if matches!(of, JsonType::Any) && !(*keys == 1 && text == "@type") {
                        // An `Any` whose first key is not `@type`: prost-reflect
                        // buffers the keys before its `@type` and reads them,
                        // and the rest, as fields of the message it names.
                        let urls = late_urls.get_or_insert_with(|| late_type_urls(json));
                        *of = match urls.get(object) {
                            Some(url) => {
                                let Some(url_text) = json_string(json, url.clone()) else {
                                    break;
                                };
                                match any_payload(descriptor, &url_text) {
                                    JsonType::Message(m) => {
                                        // prost-reflect buffers the keys before
                                        // a late `@type` in a hash map and reads
                                        // them in its order: of two bad keys,
                                        // either may be the one its error
                                        // quotes. With the `@type` written first
                                        // the keys are read in the input's order
                                        // and the first bad one is quoted, as
                                        // json_format.Parse quotes it.
                                        let quoted = url.start - 1..url.end + 1;
                                        plan.edits.push(Edit {
                                            at: *object + 1,
                                            removed: 0,
                                            inserted: format!(
                                                "\"@type\":{},",
                                                &json[quoted.clone()]
                                            ),
                                        });
                                        plan.buffered.push(*object..quoted.end);
                                        *hoisted = Some(quoted);
                                        JsonType::Message(m)
                                    }
                                    JsonType::Any if url.len() >= long_token => {
                                        // The `@type` names no message: the
                                        // parser fails at it, quoting the name.
                                        plan.elide_type_url(
                                            json,
                                            url.start,
                                            url.len(),
                                            url_text,
                                            descriptor,
                                        );
                                        break;
                                    }
                                    _ => JsonType::Other,
                                }
                            }
                            None => JsonType::Other,
                        };
                    }
                    *value = match of {
                        JsonType::Message(m) => {
                            match m
                                .get_field_by_json_name(&text)
                                .or_else(|| m.get_field_by_name(&text))
                            {
                                Some(f) => JsonType::Field(f),
                                // An `Any`'s own `@type` (after other keys) is not a
                                // field of its payload; it is never long.
                                None if long
                                    && text != "@type"
                                    && m.get_extension_by_json_name(&text).is_none() =>
                                {
                                    let known = |p: &str| {
                                        m.get_field_by_json_name(p).is_some()
                                            || m.get_field_by_name(p).is_some()
                                            || m.get_extension_by_json_name(p).is_some()
                                    };
                                    plan.elide(json, start + 1, raw.len(), "", text, known);
                                    break;
                                }
                                None => JsonType::Other,
                            }
                        }
                        JsonType::Any if *keys == 1 && text == "@type" => JsonType::TypeUrl,
                        JsonType::Field(map) => match map.kind() {
                            Kind::Message(entry) => {
                                JsonType::of_value(&entry.map_entry_value_field())
                            }
                            _ => JsonType::Other,
                        },
                        _ => JsonType::Other,
                    };
                } else {
                    let value = match value_type(&mut stack, descriptor, &mut top_taken) {
                        JsonType::Field(f) if !f.is_list() && !f.is_map() => JsonType::of_value(&f),
                        t => t,
                    };
                    match value {
                        JsonType::Enum(e) if long => {
                            let Some(text) = decode() else {
                                break;
                            };
                            if e.get_value_by_name(&text).is_none() {
                                let known = |p: &str| e.get_value_by_name(p).is_some();
                                plan.elide(json, start + 1, raw.len(), "", text, known);
                                break;
                            }
                        }
                        JsonType::TypeUrl => {
                            let Some(text) = decode() else {
                                break;
                            };
                            // prost-reflect reads the rest of the `Any` as the
                            // fields of the message its `@type` names.
                            let payload = match any_payload(descriptor, &text) {
                                JsonType::Message(m) => JsonType::Message(m),
                                JsonType::Any if long => {
                                    plan.elide_type_url(
                                        json,
                                        start + 1,
                                        raw.len(),
                                        text,
                                        descriptor,
                                    );
                                    break;
                                }
                                _ => JsonType::Other,
                            };
                            if let Some(JsonFrame::Object { of, .. }) = stack.last_mut() {
                                *of = payload;
                            }
                        }
                        _ => {}
                    }
                }
            }
            b'{' => {
                let of = match value_type(&mut stack, descriptor, &mut top_taken) {
                    JsonType::Field(f) if f.is_map() => JsonType::Field(f),
                    JsonType::Field(f) if !f.is_list() => JsonType::of_value(&f),
                    t @ (JsonType::Message(_) | JsonType::Any) => t,
                    _ => JsonType::Other,
                };
                stack.push(JsonFrame::Object {
                    of,
                    value: JsonType::Other,
                    expect_key: true,
                    keys: 0,
                    start: i,
                    comma: i,
                    hoisted: None,
                });
            }
            b'[' => {
                let element = match value_type(&mut stack, descriptor, &mut top_taken) {
                    JsonType::Field(f) if f.is_list() => JsonType::of_value(&f),
                    _ => JsonType::Other,
                };
                stack.push(JsonFrame::Array(element));
            }
            b'}' | b']' => {
                if let Some(JsonFrame::Object {
                    of: JsonType::Any,
                    keys: 0,
                    start,
                    ..
                }) = stack.pop()
                    && byte == b'}'
                    && bytes[start + 1..i]
                        .iter()
                        .all(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
                {
                    match plan.sentinel_for(descriptor, json) {
                        Some(url) => {
                            let inserted = format!("\"@type\":\"{url}\"");
                            plan.edits.push(Edit {
                                at: start + 1,
                                removed: 0,
                                inserted,
                            });
                        }
                        None => break,
                    }
                }
            }
            b',' => {
                if let Some(JsonFrame::Object {
                    expect_key,
                    value,
                    comma,
                    ..
                }) = stack.last_mut()
                {
                    *expect_key = true;
                    *value = JsonType::Other;
                    *comma = i;
                }
            }
            _ => {}
        }
    }
    plan
}

/// The type of the payload an `Any`'s `@type` names, as prost-reflect
/// reads it (`JsonType::Message` or `JsonType::Other`), or `JsonType::Any`
/// when it names no message of the pool (the parser fails there, quoting
/// the name after the last `/`, or the whole URL if it has no `/`).
fn any_payload(descriptor: &MessageDescriptor, url: &str) -> JsonType {
    url.rsplit_once('/')
        .and_then(|(_, name)| descriptor.parent_pool().get_message_by_name(name))
        .map_or(JsonType::Any, |m| match JsonType::of_message(m) {
            JsonType::Message(m) => JsonType::Message(m),
            _ => JsonType::Other,
        })
}

/// The places of `json` the first passes look at, in order: each `{`,
/// `[`, `}`, `]`, `,` and string outside strings, as (index, byte, index
/// of the closing quote for a string, else the index again); the walk
/// ends at a string left open, where the parser fails.
fn json_structure(json: &str) -> impl Iterator<Item = (usize, u8, usize)> + '_ {
    let bytes = json.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < bytes.len() {
            let at = i;
            i += 1;
            match bytes[at] {
                b'"' => {
                    let end = string_end(bytes, at);
                    if end >= bytes.len() {
                        i = bytes.len();
                        return None;
                    }
                    i = end + 1;
                    return Some((at, b'"', end));
                }
                b @ (b'{' | b'[' | b'}' | b']' | b',') => return Some((at, b, at)),
                _ => {}
            }
        }
        None
    })
}

/// The contents of the JSON string at `range` (between its quotes) as the
/// parser decodes it, borrowed when it has no escapes; `None` where the
/// parser fails.
fn json_string(json: &str, range: Range<usize>) -> Option<Cow<'_, str>> {
    let raw = &json[range.clone()];
    if raw.contains('\\') {
        serde_json::from_str::<String>(&json[range.start - 1..=range.end])
            .ok()
            .map(Cow::Owned)
    } else if raw.bytes().any(|b| b < 0x20) {
        None
    } else {
        Some(Cow::Borrowed(raw))
    }
}

/// For each object of `json` with an `@type` key that is not its first
/// key: the object's `{` and the contents of the `@type`'s string value.
/// One pass, whatever the objects' nesting.
fn late_type_urls(json: &str) -> HashMap<usize, Range<usize>> {
    struct Frame {
        start: usize,
        keys: usize,
        expect_key: bool,
        /// The value after the key just read is a late `@type`'s.
        url_next: bool,
    }
    let mut urls = HashMap::new();
    // `None` for an array.
    let mut stack: Vec<Option<Frame>> = Vec::new();
    for (i, byte, end) in json_structure(json) {
        match byte {
            b'"' => {
                let (start, i) = (i, end);
                if let Some(Some(frame)) = stack.last_mut() {
                    if frame.expect_key {
                        frame.expect_key = false;
                        frame.keys += 1;
                        // `@type` written with escapes is at most 30 bytes.
                        frame.url_next = frame.keys > 1
                            && i - start <= 31
                            && json_string(json, start + 1..i).is_some_and(|k| k == "@type");
                    } else if std::mem::take(&mut frame.url_next) {
                        urls.insert(frame.start, start + 1..i);
                    }
                }
            }
            b'{' => {
                if let Some(Some(frame)) = stack.last_mut() {
                    frame.url_next = false;
                }
                stack.push(Some(Frame {
                    start: i,
                    keys: 0,
                    expect_key: true,
                    url_next: false,
                }));
            }
            b'[' => {
                if let Some(Some(frame)) = stack.last_mut() {
                    frame.url_next = false;
                }
                stack.push(None);
            }
            b'}' | b']' => {
                stack.pop();
            }
            b',' => {
                if let Some(Some(frame)) = stack.last_mut() {
                    frame.expect_key = true;
                    frame.url_next = false;
                }
            }
            _ => {}
        }
    }
    urls
}

/// The type of the value that starts now: the outermost message, the value
/// after an object's key, or an array's element.
fn value_type(
    stack: &mut [JsonFrame],
    descriptor: &MessageDescriptor,
    top_taken: &mut bool,
) -> JsonType {
    match stack.last_mut() {
        None if !*top_taken => {
            *top_taken = true;
            JsonType::of_message(descriptor.clone())
        }
        None => JsonType::Other,
        Some(JsonFrame::Object { value, .. }) => std::mem::replace(value, JsonType::Other),
        Some(JsonFrame::Array(element)) => element.clone(),
    }
}

impl<'a> JsonPlan<'a> {
    /// Replaces the `len` bytes at `at` (a string's contents) by a
    /// placeholder that `known` does not know and the input does not hold.
    fn elide(
        &mut self,
        json: &str,
        at: usize,
        len: usize,
        prefix: &str,
        original: Cow<'a, str>,
        known: impl Fn(&str) -> bool,
    ) {
        let mut stem = String::from("xla-shape:elided");
        loop {
            stem = unused_stem(json, &stem);
            if !known(&stem) {
                break;
            }
            stem.push('_');
        }
        self.edits.push(Edit {
            at,
            removed: len,
            inserted: format!("{prefix}{stem}"),
        });
        self.elided = Some((original, stem));
    }

    /// Replaces the `len` bytes at `at`, an `Any`'s `@type` that names no
    /// message of the pool, by a placeholder that names none either, and
    /// keeps the part the parser's message quotes (after the last `/`).
    fn elide_type_url(
        &mut self,
        json: &str,
        at: usize,
        len: usize,
        url: Cow<'a, str>,
        descriptor: &MessageDescriptor,
    ) {
        let (prefix, quoted) = match url {
            Cow::Borrowed(url) => match url.rsplit_once('/') {
                Some((_, name)) => ("/", Cow::Borrowed(name)),
                None => ("", Cow::Borrowed(url)),
            },
            Cow::Owned(mut url) => match url.rfind('/') {
                Some(slash) => ("/", Cow::Owned(url.split_off(slash + 1))),
                None => ("", Cow::Owned(url)),
            },
        };
        let pool = descriptor.parent_pool();
        self.elide(json, at, len, prefix, quoted, |p| {
            pool.get_message_by_name(p).is_some()
        });
    }

    /// The type URL that marks the empty `Any`s, chosen on first use: a
    /// prefix the input does not hold, then a message of the pool that is
    /// read as an object (`None` if the pool has none).
    fn sentinel_for(&mut self, descriptor: &MessageDescriptor, json: &str) -> Option<String> {
        if self.sentinel.is_none() {
            let pool = descriptor.parent_pool();
            let message = std::iter::once(descriptor.clone())
                .chain(pool.all_messages())
                .find(|m| matches!(JsonType::of_message(m.clone()), JsonType::Message(_)))?;
            let prefix = unused_stem(json, "xla-shape.invalid/empty-any");
            self.sentinel = Some(format!("{prefix}/{}", message.full_name()));
        }
        self.sentinel.clone()
    }

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

/// Clears the sentinel type URL of every `Any` in `message` (the empty
/// `Any`s of the input), as json_format.Parse reads `{}`.
fn clear_sentinel(message: &mut DynamicMessage, url: &str) {
    if message.descriptor().full_name() == "google.protobuf.Any" {
        clear_sentinel_in_any(message, url);
        return;
    }
    for (_, value) in message.fields_mut() {
        clear_sentinel_in(value, url);
    }
}

/// Clears `any`'s type URL if it is the sentinel; otherwise clears the
/// sentinels in its payload (written as bytes by prost-reflect, which
/// writes them again the same way).
fn clear_sentinel_in_any(any: &mut DynamicMessage, url: &str) {
    let type_url = match any.get_field_by_name("type_url").as_deref() {
        Some(Value::String(s)) if s == url => {
            any.clear_field_by_name("type_url");
            return;
        }
        Some(Value::String(s)) => s.clone(),
        _ => return,
    };
    let Some(Value::Bytes(value)) = any.get_field_by_name("value").as_deref().cloned() else {
        return;
    };
    if !value.windows(url.len()).any(|w| w == url.as_bytes()) {
        return;
    }
    let payload_type = type_url
        .rsplit_once('/')
        .and_then(|(_, name)| any.descriptor().parent_pool().get_message_by_name(name));
    if let Some(payload_type) = payload_type
        && let Ok(mut payload) = DynamicMessage::decode(payload_type, &value[..])
    {
        clear_sentinel(&mut payload, url);
        any.set_field_by_name(
            "value",
            Value::Bytes(prost::Message::encode_to_vec(&payload).into()),
        );
    }
}

fn clear_sentinel_in(value: &mut Value, url: &str) {
    match value {
        Value::Message(m) => clear_sentinel(m, url),
        Value::List(values) => values.iter_mut().for_each(|v| clear_sentinel_in(v, url)),
        Value::Map(entries) => entries.values_mut().for_each(|v| clear_sentinel_in(v, url)),
        _ => {}
    }
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

/// A message seen as `MessageToJson` sees it: a [`Serialize`] value that
/// any serde serializer can write.
pub(crate) struct JsonView<'a> {
    pub(crate) message: &'a LosslessMessage,
    pub(crate) proto_field_names: bool,
}

impl Serialize for JsonView<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        if self
            .message
            .descriptor()
            .full_name()
            .starts_with("google.protobuf.")
        {
            // Well-known types have their own JSON forms, which
            // prost-reflect knows (the XLA schema uses none). Where it
            // refuses a value (a timestamp out of range), the message is
            // written field by field instead.
            let options =
                prost_reflect::SerializeOptions::new().use_proto_field_name(self.proto_field_names);
            let dynamic = self.message.to_dynamic();
            let mut probe = serde_json::Serializer::new(std::io::sink());
            if dynamic.serialize_with_options(&mut probe, &options).is_ok() {
                return dynamic.serialize_with_options(serializer, &options);
            }
        }
        let mut map = serializer.serialize_map(None)?;
        for (desc, field) in self.message.fields() {
            let name = if self.proto_field_names {
                desc.name()
            } else {
                desc.json_name()
            };
            let kind = desc.kind();
            match field {
                Field::Scalar(v) => map.serialize_entry(
                    name,
                    &JsonScalar {
                        value: v,
                        kind: &kind,
                    },
                )?,
                Field::Message(m) => map.serialize_entry(name, &self.nested(m))?,
                Field::List(vs) => {
                    // One field's elements as `Value`s while it is written.
                    let values: Vec<Value> = vs.iter().collect();
                    map.serialize_entry(
                        name,
                        &JsonSeq(
                            values
                                .iter()
                                .map(|v| JsonScalar {
                                    value: v,
                                    kind: &kind,
                                })
                                .collect(),
                        ),
                    )?
                }
                Field::Messages(ms) => map
                    .serialize_entry(name, &JsonSeq(ms.iter().map(|m| self.nested(m)).collect()))?,
                Field::Map(entries) => map.serialize_entry(
                    name,
                    &JsonMap {
                        entries,
                        value_kind: match &kind {
                            Kind::Message(entry) => entry.map_entry_value_field().kind(),
                            other => other.clone(),
                        },
                        proto_field_names: self.proto_field_names,
                    },
                )?,
            }
        }
        map.end()
    }
}

impl<'a> JsonView<'a> {
    fn nested<'b>(&self, message: &'b LosslessMessage) -> JsonView<'b> {
        JsonView {
            message,
            proto_field_names: self.proto_field_names,
        }
    }
}

struct JsonSeq<T>(Vec<T>);

impl<T: Serialize> Serialize for JsonSeq<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
        for v in &self.0 {
            seq.serialize_element(v)?;
        }
        seq.end()
    }
}

struct JsonMap<'a> {
    entries: &'a BTreeMap<MapKey, MapValue>,
    value_kind: Kind,
    proto_field_names: bool,
}

impl Serialize for JsonMap<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.entries.len()))?;
        for (key, value) in self.entries {
            // Keys are strings; `str(key)` for numbers, `true`/`false`.
            let key = match key {
                MapKey::Bool(b) => b.to_string(),
                MapKey::I32(n) => n.to_string(),
                MapKey::I64(n) => n.to_string(),
                MapKey::U32(n) => n.to_string(),
                MapKey::U64(n) => n.to_string(),
                MapKey::String(s) => s.clone(),
            };
            match value {
                MapValue::Scalar(v) => map.serialize_entry(
                    &key,
                    &JsonScalar {
                        value: v,
                        kind: &self.value_kind,
                    },
                )?,
                MapValue::Message(m) => map.serialize_entry(
                    &key,
                    &JsonView {
                        message: m,
                        proto_field_names: self.proto_field_names,
                    },
                )?,
            }
        }
        map.end()
    }
}

struct JsonScalar<'a> {
    value: &'a Value,
    kind: &'a Kind,
}

fn non_finite(v: f64) -> Option<&'static str> {
    if v.is_nan() {
        Some("NaN")
    } else if v == f64::INFINITY {
        Some("Infinity")
    } else if v == f64::NEG_INFINITY {
        Some("-Infinity")
    } else {
        None
    }
}

impl Serialize for JsonScalar<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        match self.value {
            Value::Bool(v) => serializer.serialize_bool(*v),
            Value::I32(v) => serializer.serialize_i32(*v),
            Value::U32(v) => serializer.serialize_u32(*v),
            Value::I64(v) => serializer.collect_str(v),
            Value::U64(v) => serializer.collect_str(v),
            Value::F32(v) => match non_finite(f64::from(*v)) {
                Some(s) => serializer.serialize_str(s),
                // `ToShortestFloat`, then written as the double it is.
                None => serializer.serialize_f64(float::shortest_float(*v)),
            },
            Value::F64(v) => match non_finite(*v) {
                Some(s) => serializer.serialize_str(s),
                None => serializer.serialize_f64(*v),
            },
            Value::String(s) => serializer.serialize_str(s),
            Value::Bytes(b) => serializer.serialize_str(&base64(b)),
            Value::EnumNumber(n) => {
                let name = match self.kind {
                    Kind::Enum(e) => e.get_value(*n).map(|v| v.name().to_owned()),
                    _ => None,
                };
                match name {
                    Some(name) => serializer.serialize_str(&name),
                    None => serializer.serialize_i32(*n),
                }
            }
            // Messages, lists and maps are written by the views above.
            Value::Message(_) | Value::List(_) | Value::Map(_) => serializer.serialize_unit(),
        }
    }
}

/// Standard base64 with padding, as Python's `base64.b64encode`.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i)) as usize & 63] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

enum Inner {
    Compact(serde_json::ser::CompactFormatter),
    Pretty(serde_json::ser::PrettyFormatter<'static>),
}

/// Python's `json.dumps` layout: the compact or indented form of
/// serde_json, with `ensure_ascii` escaping and `repr` floats.
struct PythonFormatter {
    inner: Inner,
}

macro_rules! delegate {
    ($($name:ident($($arg:ident: $ty:ty),*);)*) => {
        $(
            fn $name<W: ?Sized + io::Write>(&mut self, writer: &mut W $(, $arg: $ty)*) -> io::Result<()> {
                match &mut self.inner {
                    Inner::Compact(f) => serde_json::ser::Formatter::$name(f, writer $(, $arg)*),
                    Inner::Pretty(f) => serde_json::ser::Formatter::$name(f, writer $(, $arg)*),
                }
            }
        )*
    };
}

impl serde_json::ser::Formatter for PythonFormatter {
    delegate! {
        begin_array();
        end_array();
        begin_array_value(first: bool);
        end_array_value();
        begin_object();
        end_object();
        begin_object_key(first: bool);
        end_object_key();
        begin_object_value();
        end_object_value();
    }

    fn write_f64<W: ?Sized + io::Write>(&mut self, writer: &mut W, value: f64) -> io::Result<()> {
        let mut s = String::new();
        float::write_python_repr(&mut s, value);
        writer.write_all(s.as_bytes())
    }

    fn write_f32<W: ?Sized + io::Write>(&mut self, writer: &mut W, value: f32) -> io::Result<()> {
        self.write_f64(writer, float::shortest_float(value))
    }

    fn write_string_fragment<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        // serde_json has escaped `"`, `\` and control characters; Python
        // also escapes DEL and everything outside ASCII, as UTF-16 units.
        let mut start = 0;
        for (i, c) in fragment.char_indices() {
            if c.is_ascii() && c != '\x7f' {
                continue;
            }
            writer.write_all(&fragment.as_bytes()[start..i])?;
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                write!(writer, "\\u{unit:04x}")?;
            }
            start = i + c.len_utf8();
        }
        writer.write_all(&fragment.as_bytes()[start..])
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

/// The proto3 JSON of a [`LosslessMessage`].
impl LosslessMessage {
    /// The canonical proto3 JSON of the known fields, as Google's
    /// `MessageToJson` writes it (it leaves unknown fields out).
    pub fn to_json(&self, options: &JsonOptions) -> String {
        lossless_to_json(self, options)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_python() {
        // base64.b64encode of these inputs (RFC 4648 test vectors).
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foob"), "Zm9vYg==");
        assert_eq!(base64(b"fooba"), "Zm9vYmE=");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
    }

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
            include_str!("../../tests/data/oracle/formats_json_parse.jsonl"),
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

    #[test]
    fn an_empty_any_is_read_as_json_format_reads_it() {
        // tests/data/oracle/formats_json_any.jsonl has json_format.Parse's
        // bytes for these; here the reader's planned edits.
        let descriptor = crate::proto::DESCRIPTOR_POOL
            .get_message_by_name("xla.PassMetrics")
            .unwrap();
        let plan = plan_edits(&descriptor, "{\"customMetrics\": { }}", LONG_TOKEN);
        assert_eq!(plan.edits.len(), 1);
        // `{"customMetrics": ` is 18 bytes: the `@type` goes after the
        // `{` at 18, before the space.
        assert_eq!(plan.edits[0].at, 19);
        assert_eq!(plan.edits[0].removed, 0);
        let url = plan.sentinel.as_deref().unwrap();
        assert!(url.starts_with("xla-shape.invalid/empty-any/"), "{url}");
    }
}
