//! HLO shape and layout strings: XLA's printer and parser on the golden
//! records, the upstream parser and lexer cases, the scan of HLO modules,
//! the diagnostics of parse errors, `FromStr` of `ArrayShape` and
//! `ProgramShape`, and property tests.

#[path = "../common/mod.rs"]
mod common;

mod diagnostics;
mod from_str;
mod golden;
mod props;
mod scan;
mod upstream_cases;
