//! The structured diagnostics of parse errors, rendered as XLA's
//! `was parsing` lines.

use crate::common::*;
use xla_shape::Shape;

/// Parse errors carry their `was parsing` lines as structured diagnostics:
/// rendered, they are XLA's lines (the oracle's answers in
/// `tests/data/oracle/diagnostics.jsonl`), in XLA's order.
#[test]
fn parse_diagnostics_render_as_xlas_lines() {
    let mut n = 0;
    for r in records("oracle/diagnostics.jsonl") {
        let text = str_field(&r, "line");
        let err = text.parse::<Shape>().unwrap_err();
        let xla: Vec<&str> = str_field(&r, "xla_error")
            .lines()
            .filter(|l| l.starts_with("was parsing "))
            .collect();
        let ours: Vec<String> = err.diagnostics().iter().map(|d| d.to_string()).collect();
        if xla.is_empty() {
            // `Syntax error:\nExtra content after shape`: one diagnostic,
            // at the extra token ("extra" on line 2, after two spaces).
            let d = &err.diagnostics()[0];
            assert!(str_field(&r, "xla_error").ends_with(d.message()), "{text}");
            assert_eq!((d.location().line, d.location().column), (2, 2));
        } else {
            assert_eq!(ours, xla, "{text}");
        }
        assert_eq!(
            err.location(),
            err.diagnostics().last().map(|d| d.location())
        );
        n += 1;
    }
    assert_eq!(n, 3);
}
