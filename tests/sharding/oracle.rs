//! Reading the oracle's answers (`tests/data/oracle/sharding_oracle.py`).

use serde_json::Value;
use xla_shape::sharding::HloSharding;

/// XLA's message without the status code Python prints before it.
pub fn xla_message(answer: &Value) -> Option<&str> {
    let m = answer.get("error")?.as_str()?;
    Some(m.strip_prefix("INVALID_ARGUMENT: ").unwrap_or(m))
}

/// The status message inside a `Check failed: ... is OK (INVALID_ARGUMENT: MSG) `
/// abort, if it has one.
pub fn abort_message(answer: &Value) -> Option<String> {
    let m = answer.get("abort")?.as_str()?;
    let start = m.find("(INVALID_ARGUMENT: ")? + "(INVALID_ARGUMENT: ".len();
    let end = m.rfind(')')?;
    Some(m[start..end].to_owned())
}

/// A parse message without its source lines and carets, which this crate
/// shows its own way (docs/differences.md, "The text of messages"): the
/// `Syntax error:` line and XLA's `was parsing L:C: error: ...` lines.
pub fn diagnostic_lines(message: &str) -> Vec<&str> {
    if !message.starts_with("Syntax error:") {
        return vec![message];
    }
    message
        .lines()
        .filter(|l| l.starts_with("Syntax error:") || l.starts_with("was parsing "))
        .collect()
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Runs `check` on every record, collecting the failures of all of them
/// (each panic's message) before failing; the number of records.
pub fn each_record(records: &[Value], check: impl Fn(&Value) + std::panic::RefUnwindSafe) -> usize {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let mut failures = Vec::new();
    for r in records {
        if let Err(p) = std::panic::catch_unwind(|| check(r)) {
            let m = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            failures.push(m);
        }
    }
    std::panic::set_hook(hook);
    assert!(
        failures.is_empty(),
        "{} of {} records fail:\n{}",
        failures.len(),
        records.len(),
        failures
            .iter()
            .take(40)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n---\n")
    );
    records.len()
}

/// Checks what jaxlib answers of a sharding it reads: its text, its
/// bytes, its kind, and each element of a tuple the same way.
pub fn check_facts(s: &HloSharding, a: &Value, what: &str) {
    assert_eq!(
        s.to_string(),
        a["printed"].as_str().unwrap(),
        "{what}: printed"
    );
    assert_eq!(
        hex(&s.to_proto_bytes()),
        a["proto"].as_str().unwrap(),
        "{what}: proto"
    );
    for (name, ours) in [
        ("is_replicated", s.is_replicated()),
        ("is_maximal", s.is_maximal()),
        ("is_manual", s.is_manual()),
        ("is_tiled", s.is_tiled()),
        ("is_unknown", s.is_unknown()),
        ("is_unreduced", s.is_unreduced()),
    ] {
        assert_eq!(ours, a[name].as_bool().unwrap(), "{what}: {name}");
    }
    match a["tuple"].as_array() {
        Some(elements) => {
            assert_eq!(s.tuple_elements().len(), elements.len(), "{what}: tuple");
            for (i, (e, ea)) in s.tuple_elements().iter().zip(elements).enumerate() {
                check_facts(e, ea, &format!("{what} element {i}"));
            }
        }
        None => assert!(
            !s.is_tuple() || s.tuple_elements().is_empty(),
            "{what}: not a tuple"
        ),
    }
}
