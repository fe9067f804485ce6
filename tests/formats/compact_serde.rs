//! `#[serde(with = "xla_shape::serde::compact")]`: `Shape` and `Layout` as
//! XLA's printed form, read back with XLA's parser and its messages.

use crate::common::*;
use xla_shape::Shape;

/// `#[serde(with = "xla_shape::serde::compact")]` on `Shape` and `Layout`.
#[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
struct Compact<T: xla_shape::serde::compact::Compact> {
    #[serde(with = "xla_shape::serde::compact")]
    #[serde(bound = "")]
    value: T,
}

/// Every golden shape whose printed form XLA's parser reads back writes
/// XLA's printed form (`xla_str`, layout included) and reads back equal; its
/// layout writes the layout part of that form.
#[test]
fn compact_serde_writes_xlas_printed_form() {
    let mut checked = 0;
    for r in records("shapes.jsonl") {
        if r["status"] != "ok" || r["reparse_identical"] != true {
            continue;
        }
        let printed = str_field(&r, "xla_str");
        let Ok(shape) = printed.parse::<Shape>() else {
            continue;
        };
        let json = serde_json::to_string(&Compact {
            value: shape.clone(),
        })
        .unwrap();
        assert_eq!(json, serde_json::json!({ "value": printed }).to_string());
        let back: Compact<Shape> = serde_json::from_str(&json).unwrap();
        assert_eq!(back.value, shape, "{printed}");
        if let Some(layout) = shape.layout() {
            let text = serde_json::to_value(Compact {
                value: layout.clone(),
            })
            .unwrap();
            let text = text["value"].as_str().unwrap();
            // XLA prints no `{}` after a scalar.
            assert!(
                printed.ends_with(text) || (text == "{}" && !printed.contains('{')),
                "{printed} / {text}"
            );
            let back: Compact<xla_shape::Layout> =
                serde_json::from_value(serde_json::json!({ "value": text })).unwrap();
            assert_eq!(&back.value, layout);
        }
        checked += 1;
    }
    assert!(checked > 400, "{checked}");
}

/// An invalid string fails with XLA's message (golden `invalid.jsonl`):
/// every `was parsing L:C: error: ...` line of XLA's status text (the
/// source line under it differs where docs/differences.md says so).
#[test]
fn compact_serde_rejects_with_xlas_message() {
    let mut checked = 0;
    for r in records("invalid.jsonl") {
        if r["status"] != "error" || r["input"]["kind"] != "text" {
            continue;
        }
        let text = r["input"]["text"].as_str().unwrap();
        let err = serde_json::from_value::<Compact<Shape>>(serde_json::json!({ "value": text }))
            .unwrap_err()
            .to_string();
        let xla_error = str_field(&r, "xla_error");
        let mut lines: Vec<&str> = xla_error
            .lines()
            .filter(|l| l.starts_with("was parsing "))
            .collect();
        let whole = xla_message(xla_error);
        if lines.is_empty() {
            // A message without a source position: all of it.
            lines.push(&whole);
        }
        for line in lines {
            assert!(err.contains(line), "{text}: {err:?} lacks {line:?}");
        }
        checked += 1;
    }
    assert!(checked > 10, "{checked}");
}
