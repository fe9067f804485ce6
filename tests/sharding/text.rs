//! `HloSharding` text and bytes against jaxlib 0.10.2
//! (`tests/data/oracle/sharding_text.jsonl`, written by
//! `tests/data/oracle/sharding_text_gen.py`): every input XLA parses prints
//! and encodes as XLA does, with XLA's answers to the queries; every input
//! XLA rejects is rejected with XLA's message; every input XLA aborts on is
//! an error (with the status text inside XLA's CHECK when it has one).

use serde_json::Value;
use xla_shape::sharding::HloSharding;

use crate::common::records;
use crate::oracle::{abort_message, check_facts, diagnostic_lines, xla_message};

fn check_attrs(s: &HloSharding, a: &Value, what: &str) {
    if a.get("abort").is_some() || a.get("error").is_some() {
        return;
    }
    let ints = |v: &Value| -> Vec<i64> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_i64().unwrap())
            .collect()
    };
    assert_eq!(
        s.num_devices().unwrap(),
        a["num_devices"].as_i64().unwrap(),
        "{what}: num_devices"
    );
    assert_eq!(
        s.tile_assignment_dimensions().unwrap(),
        ints(&a["tile_assignment_dimensions"]),
        "{what}: dims"
    );
    assert_eq!(
        s.tile_assignment_devices().unwrap(),
        ints(&a["tile_assignment_devices"]),
        "{what}: devices"
    );
    assert_eq!(
        s.replicate_on_last_tile_dim(),
        a["replicate_on_last_tile_dim"].as_bool().unwrap(),
        "{what}"
    );
    assert_eq!(
        s.is_tile_assignment_iota(),
        a["is_tile_assignment_iota"].as_bool().unwrap(),
        "{what}: iota"
    );
    let types: Vec<&str> = s.subgroup_types().iter().map(|t| t.as_str_name()).collect();
    let want: Vec<&str> = a["subgroup_types"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert_eq!(types, want, "{what}: subgroup types");
}

#[test]
fn text_agrees_with_xla() {
    let records = records("oracle/sharding_text.jsonl");
    let n = crate::oracle::each_record(&records, check_record);
    assert!(n > 1000);
}

/// Inputs on which XLA's behaviour is undefined, with what we do instead
/// (docs/differences.md, "Sharding").
const UNDEFINED_IN_XLA: &[(&str, &str)] = &[
    // A transpose that is not a permutation: XLA's `Array::TransposeDimensions`
    // reads outside its array to list the devices; we refuse to list them.
    ("{devices=[2,2]<=[2,2]T(0,0)}", "attrs"),
    // A mesh whose device_ids iota does not hold its devices: jaxlib 0.10.2
    // builds it; later XLA refuses it with the message we give.
    (
        "{mesh['a'=2,'b'=3], device_ids=([3,3]T(1,0)), [{'a'}]}",
        "parse",
    ),
];

fn exempt(input: &str, what: &str) -> bool {
    UNDEFINED_IN_XLA
        .iter()
        .any(|&(i, w)| i == input && w == what)
}

fn check_record(r: &Value) {
    if exempt(r["input"].as_str().unwrap(), "parse") {
        return;
    }
    {
        let input = r["input"].as_str().unwrap();
        let what = format!("{} {input:?}", r["case"].as_str().unwrap());
        let a = &r["answer"];
        let ours = input.parse::<HloSharding>();
        if a.get("printed").is_some() {
            let s = ours.unwrap_or_else(|e| panic!("{what}: XLA parses it, we fail: {e}"));
            check_facts(&s, a, &what);
            if let Some(attrs) = a.get("attrs").filter(|_| !exempt(input, "attrs")) {
                check_attrs(&s, attrs, &what);
            }
            if let Some(v2) = a.get("v2").and_then(|v| v.get("printed")) {
                assert_eq!(
                    s.to_v2().unwrap().to_string(),
                    v2.as_str().unwrap(),
                    "{what}: v2"
                );
            }
            if let Some(m) = a.get("with_metadata").and_then(|v| v.get("with_metadata")) {
                assert_eq!(
                    s.to_string_with_metadata(),
                    m.as_str().unwrap(),
                    "{what}: with metadata"
                );
            }
            // XLA's printed form is not always a fixed point (a sharding
            // canonicalized once more when read back, a name it does not
            // quote): read back, ours does what XLA's does.
            let printed = s.to_string();
            let again = printed.parse::<HloSharding>();
            match a.get("reparse") {
                Some(re) if re.get("printed").is_some() => {
                    let again = again.unwrap_or_else(|e| panic!("{what}: reparse fails: {e}"));
                    assert_eq!(
                        again.to_string(),
                        re["printed"].as_str().unwrap(),
                        "{what}: reparse"
                    );
                }
                Some(_) => assert!(again.is_err(), "{what}: XLA does not read back {printed}"),
                None => assert_eq!(again.unwrap(), s, "{what}: round trip"),
            }
        } else if let Some(m) = xla_message(a) {
            let e = ours.expect_err(&format!("{what}: XLA rejects it"));
            assert_eq!(
                diagnostic_lines(e.message()),
                diagnostic_lines(m),
                "{what}: message"
            );
        } else {
            let e = ours.expect_err(&format!("{what}: XLA aborts on it"));
            if let Some(m) = abort_message(a) {
                assert!(
                    e.message().contains(&m),
                    "{what}: {} does not hold {m}",
                    e.message()
                );
            }
        }
    }
}

/// XLA reads a mesh axis name as an escaped string (absl's `CUnescape`)
/// and prints it as it is (`Mesh::ToString`), so a name with a backslash,
/// a quote or a tab does not print back to the text it came from, and
/// reading the print again unescapes once more. The printed forms are
/// jaxlib 0.10.2's (`HloSharding.from_string(text)`, printed, read again
/// and printed).
#[test]
fn mesh_axis_names_are_unescaped_when_read_and_printed_as_they_are() {
    for (text, printed, again) in [
        (
            r"{mesh['a\\\\b'=2], [{'a\\\\b'}]}",
            r"{mesh['a\\b'=2], [{'a\\b'}]}",
            r"{mesh['a\b'=2], [{'a\b'}]}",
        ),
        (
            r#"{mesh['a\"b'=2], [{'a\"b'}]}"#,
            r#"{mesh['a"b'=2], [{'a"b'}]}"#,
            r#"{mesh['a"b'=2], [{'a"b'}]}"#,
        ),
        (
            r"{mesh['a\\tb'=2], [{'a\\tb'}]}",
            r"{mesh['a\tb'=2], [{'a\tb'}]}",
            "{mesh['a\tb'=2], [{'a\tb'}]}",
        ),
    ] {
        let s: HloSharding = text.parse().unwrap();
        assert_eq!(s.to_string(), printed, "{text}");
        let s: HloSharding = printed.parse().unwrap();
        assert_eq!(s.to_string(), again, "{printed}");
    }
}
