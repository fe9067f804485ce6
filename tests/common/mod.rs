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

/// The compiled programs of `tests/data/hlo/`: `NAME.pb` is the
/// `HloModuleProto` XLA wrote, `NAME.txt` XLA's text of the same module.
pub const HLO_PROGRAMS: [&str; 10] = [
    "conv_nchw",
    "conv_nhwc_f16",
    "dynamic_slice",
    "int4",
    "matmul_bf16",
    "ranks_broadcast",
    "reduce_variadic",
    "scan_tuple",
    "transpose",
    "zero_size",
];

/// The repository's root: the library's manifest directory, the parent of
/// the `cli/` member's (whose tests include this module too).
pub fn repo_root() -> std::path::PathBuf {
    let manifest = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    if env!("CARGO_PKG_NAME") == "xla-shape" {
        manifest.to_path_buf()
    } else {
        manifest.join("..")
    }
}

pub fn data_path(name: &str) -> String {
    format!("{}/tests/data/{name}", repo_root().display())
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
    assert!(s.len().is_multiple_of(2), "odd hex length");
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

/// Records XLA holds without validating them (its parser and `FromProto`
/// skip `ValidateShape`). Ours are always valid, so these are rejected with
/// the validation message that XLA's `ValidateShapeWithOptionalLayout`
/// gives (listed in docs/differences.md).
pub const HELD_WITHOUT_VALIDATION: &[(&str, &str)] = &[
    // `#(f32)` on a dense array: rule 6 of ValidateLayoutForShape.
    (
        "layout_attrs/0299",
        "layout has a index_primitive_type, but is not a sparse array: f32[16,16]",
    ),
    // A negative static dimension: ValidateDimensions.
    (
        "proto/0345",
        "Shape Error: Negative dimension at index 0: -5. Shape(f32): f32[-5]",
    ),
    // An empty tile: rule 9.
    ("proto/0353", "layout has invalid tiles: f32[16]"),
    // `T()`, accepted by XLA's parser: rule 9.
    ("tiled/0265", "layout has invalid tiles: f32[2]"),
    ("tiled/0266", "layout has invalid tiles: f32[2]"),
    // `#(u16)`, `*(u32)`: rules 6 and 7 (the index type is checked first).
    (
        "layout_attrs/0296",
        "layout has a index_primitive_type, but is not a sparse array: f32[16,16]",
    ),
    (
        "layout_attrs/0297",
        "layout has a pointer_primitive_type, but is not a sparse array: f32[16,16]",
    ),
    (
        "layout_attrs/0307",
        "layout has a index_primitive_type, but is not a sparse array: f32[16,16]",
    ),
    // A bound of i64::MAX on f32: 4 bytes an element overflow
    // ValidateShapeSize.
    (
        "dynamic/0316",
        "Shape f32[<=9223372036854775807] size may overflow int64_t.",
    ),
    // E(-4): rule 10.
    (
        "proto/0355",
        "layout element_size_in_bits field is negative: -4",
    ),
    // The empty ShapeProto: element type PRIMITIVE_TYPE_INVALID.
    (
        "proto/0358",
        "Shape Error: Invalid element type. Shape(primitive_type_invalid): primitive_type_invalid[]",
    ),
];

/// The message our validation gives for a record XLA holds without
/// validating, if `id` is one.
pub fn held_without_validation(id: &str) -> Option<&'static str> {
    HELD_WITHOUT_VALIDATION
        .iter()
        .find(|(i, _)| *i == id)
        .map(|(_, m)| *m)
}

/// The compact form of a golden JSON text, as
/// `json.dumps(json.loads(s), separators=(",", ":"))` writes it: the golden
/// texts are `MessageToJson` output (ASCII strings, already escaped as
/// `json.dumps` escapes them; keys in field order), so this is the text with
/// the whitespace outside strings removed.
pub fn compact_json(pretty: &str) -> String {
    let mut out = String::with_capacity(pretty.len());
    let (mut in_string, mut escaped) = (false, false);
    for c in pretty.chars() {
        if in_string {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
        } else if c == '"' {
            in_string = true;
        } else if c.is_whitespace() {
            continue;
        }
        out.push(c);
    }
    out
}

/// Every index of an array with dimensions `dims`, in row-major order.
pub fn every_index(dims: &[i64]) -> Vec<Vec<i64>> {
    let mut out = vec![vec![]];
    for &d in dims {
        out = out
            .into_iter()
            .flat_map(|p| {
                (0..d).map(move |i| {
                    let mut q = p.clone();
                    q.push(i);
                    q
                })
            })
            .collect();
    }
    out
}

/// `tuple_shapes` nested `levels` deep around an f32, encoded by hand from
/// the inside out: each level is `10 0d` (element_type TUPLE) and
/// `22 <len>` (field 4) around the level inside it.
pub fn nested_tuple_bytes(levels: usize) -> Vec<u8> {
    let mut bytes = vec![0x10, 0x0b]; // element_type: F32
    for _ in 0..levels {
        let mut outer = vec![0x10, 0x0d, 0x22];
        let mut len = bytes.len();
        while len >= 0x80 {
            outer.push((len as u8 & 0x7f) | 0x80);
            len >>= 7;
        }
        outer.push(len as u8);
        outer.extend_from_slice(&bytes);
        bytes = outer;
    }
    bytes
}
