//! The edits the JSON reader makes before prost-reflect reads the input
//! ([`plan_edits`]): a very long name no schema type in its place knows
//! replaced by a placeholder (`formats::elide`), a sentinel `@type` for
//! every empty `Any`, and an `Any`'s late `@type` written first, so that
//! prost-reflect reads as `json_format.Parse` reads.

use std::borrow::Cow;
use std::collections::HashMap;
use std::ops::{ControlFlow, Range};

use prost_reflect::{
    DynamicMessage, EnumDescriptor, FieldDescriptor, Kind, MessageDescriptor, ReflectMessage, Value,
};

use crate::formats::elide::{Edit, unused_stem};

use ControlFlow::{Break, Continue};

/// The index of the quote that closes the string opening at `start` (or
/// the input's length, for a string left open).
pub(super) fn string_end(bytes: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    while i < bytes.len() && bytes[i] != b'"' {
        i += if bytes[i] == b'\\' { 2 } else { 1 };
    }
    i.min(bytes.len())
}

/// What the reader changes in a JSON text before prost-reflect reads it.
pub(super) struct JsonPlan<'a> {
    pub(super) edits: Vec<Edit>,
    /// The first long name no schema type in its place knows, as the
    /// parser would quote it, and the placeholder that replaced it.
    pub(super) elided: Option<(Cow<'a, str>, String)>,
    /// The type URL given to each empty `Any` (`{}`), cleared after parsing.
    pub(super) sentinel: Option<String>,
    /// Each `Any` whose late `@type` is written first: from its `{` to the
    /// end of that `@type`, the keys prost-reflect reads only as JSON
    /// until it has read the `@type` ([`JsonPlan::syntax_first`]).
    pub(super) buffered: Vec<Range<usize>>,
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

/// Walks `json` with the schema of `descriptor` (after the reader's
/// first pass, `scan_json`, so the nesting is bounded) and plans the
/// reader's edits: the first key or enum value of `long_token` bytes or
/// more that the message or enum in its place does not know becomes a
/// placeholder (the walk stops there: the parser fails at it), and every
/// empty `Any` gets a sentinel `@type` naming a message of the pool (its
/// payload is then empty) for `JsonPlan::parse` to clear, also in an
/// `Any`'s payload. Malformed input ends the walk where the parser will
/// fail.
pub(super) fn plan_edits<'a>(
    descriptor: &MessageDescriptor,
    json: &'a str,
    long_token: usize,
) -> JsonPlan<'a> {
    let mut walk = EditWalk {
        descriptor,
        json,
        long_token,
        plan: JsonPlan {
            edits: Vec::new(),
            elided: None,
            sentinel: None,
            buffered: Vec::new(),
        },
        stack: Vec::new(),
        top_taken: false,
        late_urls: None,
    };
    for (i, byte, end) in json_structure(json) {
        let step = match byte {
            b'"' if walk.expects_key() => walk.key(i, end),
            b'"' => walk.string_value(i, end),
            b'{' => {
                walk.open_object(i);
                Continue(())
            }
            b'[' => {
                walk.open_array();
                Continue(())
            }
            b'}' | b']' => walk.close(i, byte),
            b',' => {
                walk.comma(i);
                Continue(())
            }
            _ => Continue(()),
        };
        if step.is_break() {
            break;
        }
    }
    walk.plan
}

/// Whether [`plan_edits`] goes on (`Continue`) or stops where the parser
/// will fail (`Break`).
type Step<T = ()> = ControlFlow<(), T>;

/// `Continue` with what was found, or `Break` where the parser fails.
fn found<T>(value: Option<T>) -> Step<T> {
    value.map_or(Break(()), Continue)
}

/// The state of [`plan_edits`]: the schema, the input, the plan so far,
/// and the objects and arrays open where the walk is.
struct EditWalk<'a, 'd> {
    descriptor: &'d MessageDescriptor,
    json: &'a str,
    long_token: usize,
    plan: JsonPlan<'a>,
    stack: Vec<JsonFrame>,
    /// Whether the outermost value has begun.
    top_taken: bool,
    /// The `@type` of each `Any` that does not start with it, found on
    /// first need.
    late_urls: Option<HashMap<usize, Range<usize>>>,
}

impl<'a> EditWalk<'a, '_> {
    /// Whether the next string is a key of the object on top.
    fn expects_key(&self) -> bool {
        matches!(
            self.stack.last(),
            Some(JsonFrame::Object {
                expect_key: true,
                ..
            })
        )
    }

    /// A key of the object on top, from the quote at `start` to the one
    /// at `end`: its value's type, and for an `Any` the edits its keys
    /// need.
    fn key(&mut self, start: usize, end: usize) -> Step {
        let json = self.json;
        // The string as the parser decodes it (escapes: one copy); `None`
        // where the parser fails.
        let Some(text) = json_string(json, start + 1..end) else {
            return Break(());
        };
        let Some(JsonFrame::Object {
            of,
            value,
            expect_key,
            keys,
            start: object,
            comma,
            hoisted,
        }) = self.stack.last_mut()
        else {
            return Continue(());
        };
        *expect_key = false;
        *keys += 1;
        if text == "@type"
            && let Some(url) = hoisted.take()
        {
            // The late `@type` written at the object's start: removed
            // here, with the `,` before it.
            self.plan.edits.push(Edit {
                at: *comma,
                removed: url.end - *comma,
                inserted: String::new(),
            });
        }
        if matches!(of, JsonType::Any) && !(*keys == 1 && text == "@type") {
            // An `Any` whose first key is not `@type`: prost-reflect
            // buffers the keys before its `@type` and reads them, and the
            // rest, as fields of the message it names.
            let urls = self.late_urls.get_or_insert_with(|| late_type_urls(json));
            *of = match urls.get(object) {
                Some(url) => self.plan.late_type_url(
                    self.descriptor,
                    json,
                    (*object, url.clone()),
                    hoisted,
                    self.long_token,
                )?,
                None => JsonType::Other,
            };
        }
        let long = end - (start + 1) >= self.long_token;
        *value = match of {
            JsonType::Message(m) => {
                self.plan
                    .field_of_key(m, json, (start + 1, end - (start + 1)), text, long)?
            }
            JsonType::Any if *keys == 1 && text == "@type" => JsonType::TypeUrl,
            JsonType::Field(map) => match map.kind() {
                Kind::Message(entry) => JsonType::of_value(&entry.map_entry_value_field()),
                _ => JsonType::Other,
            },
            _ => JsonType::Other,
        };
        Continue(())
    }

    /// A string value, from the quote at `start` to the one at `end`: an
    /// enum's value (elided if long and unknown) or an `Any`'s leading
    /// `@type`, which names the type of the rest of the `Any`.
    fn string_value(&mut self, start: usize, end: usize) -> Step {
        let json = self.json;
        let decode = || json_string(json, start + 1..end);
        let (at, len) = (start + 1, end - (start + 1));
        let long = len >= self.long_token;
        let value = match value_type(&mut self.stack, self.descriptor, &mut self.top_taken) {
            JsonType::Field(f) if !f.is_list() && !f.is_map() => JsonType::of_value(&f),
            t => t,
        };
        match value {
            JsonType::Enum(e) if long => {
                let text = found(decode())?;
                if e.get_value_by_name(&text).is_none() {
                    let known = |p: &str| e.get_value_by_name(p).is_some();
                    self.plan.elide(json, at, len, "", text, known);
                    return Break(());
                }
            }
            JsonType::TypeUrl => {
                let text = found(decode())?;
                // prost-reflect reads the rest of the `Any` as the fields
                // of the message its `@type` names.
                let payload = match any_payload(self.descriptor, &text) {
                    JsonType::Message(m) => JsonType::Message(m),
                    JsonType::Any if long => {
                        self.plan
                            .elide_type_url(json, at, len, text, self.descriptor);
                        return Break(());
                    }
                    _ => JsonType::Other,
                };
                if let Some(JsonFrame::Object { of, .. }) = self.stack.last_mut() {
                    *of = payload;
                }
            }
            _ => {}
        }
        Continue(())
    }

    /// A `{` at `i`: an object of the type in its place.
    fn open_object(&mut self, i: usize) {
        let of = match value_type(&mut self.stack, self.descriptor, &mut self.top_taken) {
            JsonType::Field(f) if f.is_map() => JsonType::Field(f),
            JsonType::Field(f) if !f.is_list() => JsonType::of_value(&f),
            t @ (JsonType::Message(_) | JsonType::Any) => t,
            _ => JsonType::Other,
        };
        self.stack.push(JsonFrame::Object {
            of,
            value: JsonType::Other,
            expect_key: true,
            keys: 0,
            start: i,
            comma: i,
            hoisted: None,
        });
    }

    /// A `[`: an array of the list field in its place.
    fn open_array(&mut self) {
        let element = match value_type(&mut self.stack, self.descriptor, &mut self.top_taken) {
            JsonType::Field(f) if f.is_list() => JsonType::of_value(&f),
            _ => JsonType::Other,
        };
        self.stack.push(JsonFrame::Array(element));
    }

    /// A `}` or `]` (`byte`) at `i`: an empty `Any` (`{}`, white space
    /// allowed) gets the sentinel `@type`.
    fn close(&mut self, i: usize, byte: u8) -> Step {
        if let Some(JsonFrame::Object {
            of: JsonType::Any,
            keys: 0,
            start,
            ..
        }) = self.stack.pop()
            && byte == b'}'
            && self.json.as_bytes()[start + 1..i]
                .iter()
                .all(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
        {
            let url = found(self.plan.sentinel_for(self.descriptor, self.json))?;
            self.plan.edits.push(Edit {
                at: start + 1,
                removed: 0,
                inserted: format!("\"@type\":\"{url}\""),
            });
        }
        Continue(())
    }

    /// A `,` at `i`: in an object, a key comes next.
    fn comma(&mut self, i: usize) {
        if let Some(JsonFrame::Object {
            expect_key,
            value,
            comma,
            ..
        }) = self.stack.last_mut()
        {
            *expect_key = true;
            *value = JsonType::Other;
            *comma = i;
        }
    }
}

impl<'a> JsonPlan<'a> {
    /// The type an `Any` that begins at `object` is read as, given its
    /// late `@type` (the string's contents at `url`): the message it
    /// names, with the `@type` written at the object's start (and
    /// `hoisted`, for [`EditWalk::key`] to remove where it stands); or,
    /// for a long URL that names no message, the placeholder that
    /// replaces it (and the walk stops).
    fn late_type_url(
        &mut self,
        descriptor: &MessageDescriptor,
        json: &'a str,
        (object, url): (usize, Range<usize>),
        hoisted: &mut Option<Range<usize>>,
        long_token: usize,
    ) -> Step<JsonType> {
        let url_text = found(json_string(json, url.clone()))?;
        Continue(match any_payload(descriptor, &url_text) {
            JsonType::Message(m) => {
                // prost-reflect buffers the keys before a late `@type` in
                // a hash map and reads them in its order: of two bad keys,
                // either may be the one its error quotes. With the `@type`
                // written first the keys are read in the input's order and
                // the first bad one is quoted, as json_format.Parse quotes
                // it.
                let quoted = url.start - 1..url.end + 1;
                self.edits.push(Edit {
                    at: object + 1,
                    removed: 0,
                    inserted: format!("\"@type\":{},", &json[quoted.clone()]),
                });
                self.buffered.push(object..quoted.end);
                *hoisted = Some(quoted);
                JsonType::Message(m)
            }
            JsonType::Any if url.len() >= long_token => {
                // The `@type` names no message: the parser fails at it,
                // quoting the name.
                self.elide_type_url(json, url.start, url.len(), url_text, descriptor);
                return Break(());
            }
            _ => JsonType::Other,
        })
    }

    /// The type of the value of key `text` (`len` bytes at `at` in
    /// `json`) of message `m`: its field's, or, for a `long` key that
    /// names no field, the placeholder that replaces it (and the walk
    /// stops).
    fn field_of_key(
        &mut self,
        m: &MessageDescriptor,
        json: &str,
        (at, len): (usize, usize),
        text: Cow<'a, str>,
        long: bool,
    ) -> Step<JsonType> {
        let known = |p: &str| {
            m.get_field_by_json_name(p).is_some()
                || m.get_field_by_name(p).is_some()
                || m.get_extension_by_json_name(p).is_some()
        };
        match m
            .get_field_by_json_name(&text)
            .or_else(|| m.get_field_by_name(&text))
        {
            Some(f) => Continue(JsonType::Field(f)),
            // An `Any`'s own `@type` (after other keys) is not a field of
            // its payload; it is never long.
            None if long && text != "@type" && !known(&text) => {
                self.elide(json, at, len, "", text, known);
                Break(())
            }
            None => Continue(JsonType::Other),
        }
    }
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
}

/// Clears the sentinel type URL of every `Any` in `message` (the empty
/// `Any`s of the input), as json_format.Parse reads `{}`.
pub(super) fn clear_sentinel(message: &mut DynamicMessage, url: &str) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::elide::LONG_TOKEN;

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
