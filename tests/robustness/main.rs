//! Resource bounds of every parser, and the replay of the fuzzing corpus
//! and every past fuzzing finding.

#[path = "../../fuzz/checks.rs"]
mod checks;
#[path = "../common/mod.rs"]
mod common;
#[path = "../../fuzz/replay.rs"]
mod replay;
#[path = "../common/vhlo_bytecode.rs"]
mod vhlo_bytecode;

mod fuzz_corpus;
mod module_bounds;
mod resource_bounds;
