//! Replays every input committed under `fuzz/corpus/<target>/` and
//! `fuzz/regressions/<target>/` of the tool's fuzz targets (`cli_json`,
//! `cli_draw`) through the property the target asserts, on stable Rust.
//! The properties live in `fuzz/cli_checks.rs`, shared with the targets.

#[path = "../../fuzz/cli_checks.rs"]
mod cli_checks;

use std::path::{Path, PathBuf};

/// The files of `fuzz/<kind>/<target>/`, sorted; none when the directory
/// does not exist.
fn inputs(kind: &str, target: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz")
        .join(kind)
        .join(target);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .map(|e| e.expect("a readable directory entry").path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

#[test]
fn every_cli_target_replays_its_corpus_and_regressions() {
    for (target, check) in cli_checks::TARGETS {
        let seeds = inputs("corpus", target);
        assert!(!seeds.is_empty(), "fuzz/corpus/{target} is empty");
        let mut failures = Vec::new();
        for path in seeds.iter().chain(&inputs("regressions", target)) {
            let data = std::fs::read(path).expect("a readable corpus file");
            if let Err(panic) = std::panic::catch_unwind(|| check(&data)) {
                let message = panic
                    .downcast_ref::<String>()
                    .map(String::as_str)
                    .or_else(|| panic.downcast_ref::<&str>().copied())
                    .unwrap_or("(no message)");
                failures.push(format!("{}: {message}", path.display()));
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }
}
