//! Helpers shared by the integration tests: loading the golden records of
//! `tests/data/` (produced by jaxlib 0.10.2 and protobuf 7.36.2).
//!
//! `shapes.jsonl`: valid shapes. `input` is `{kind: text|proto|builder|tuple}`;
//! `xla_str` is XLA's `HumanStringWithLayout`; `proto_hex` XLA's own
//! encoding; `json`, `json_preserving_names`, `text_format` Google's
//! renderings of `proto_hex`; `facts` XLA's accessors and sizes.
//! `invalid.jsonl`: inputs XLA refuses (`xla_error`) or aborts on
//! (`xla_crash`).

#![allow(dead_code)]

use serde_json::Value;

pub fn data_path(name: &str) -> String {
    format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"))
}

pub fn records(name: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(data_path(name)).expect("golden file");
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("golden line is JSON"))
        .collect()
}

pub fn hex(s: &str) -> Vec<u8> {
    let s: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    assert!(s.len() % 2 == 0, "odd hex length");
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex digit"))
        .collect()
}

pub fn to_hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

pub fn id(r: &Value) -> &str {
    r["id"].as_str().unwrap_or("?")
}

pub fn str_field<'a>(r: &'a Value, k: &str) -> &'a str {
    r[k].as_str()
        .unwrap_or_else(|| panic!("{}: no string field {k}", id(r)))
}

/// XLA's status text without the status code (`INTERNAL: `) and, for
/// `RET_CHECK` failures, without `RET_CHECK failure (file:line) `, leaving
/// `<condition> <streamed text>`.
pub fn xla_message(xla_error: &str) -> String {
    let body = xla_error
        .split_once(": ")
        .map(|(_, b)| b)
        .unwrap_or(xla_error);
    match body.strip_prefix("RET_CHECK failure (") {
        Some(rest) => rest
            .split_once(") ")
            .map(|(_, a)| a)
            .unwrap_or("")
            .to_string(),
        None => body.to_string(),
    }
}
