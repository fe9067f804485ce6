//! Resource bounds of every parser, and the replay of the fuzzing corpus
//! and every past fuzzing finding.

#[path = "../../fuzz/checks.rs"]
mod checks;
#[path = "../common/mod.rs"]
mod common;
#[path = "../../fuzz/replay.rs"]
mod replay;

mod fuzz_corpus;
mod module_bounds;
mod resource_bounds;
