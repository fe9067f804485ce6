//! Replays every input committed under `fuzz/corpus/<target>/` and
//! `fuzz/regressions/<target>/` of the tool's fuzz targets (`cli_json`,
//! `cli_draw`) through the property the target asserts, on stable Rust.
//! The properties live in `fuzz/cli_checks.rs`, shared with the targets.

#[path = "../../fuzz/cli_checks.rs"]
mod cli_checks;
#[path = "../../fuzz/replay.rs"]
mod replay;

use std::path::Path;

#[test]
fn every_cli_target_replays_its_corpus_and_regressions() {
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz");
    for (target, check) in cli_checks::TARGETS {
        let seeds = replay::replay(&fuzz, "corpus", target, *check);
        assert!(seeds > 0, "fuzz/corpus/{target} is empty");
        replay::replay(&fuzz, "regressions", target, *check);
    }
}
