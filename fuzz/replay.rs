//! Replays the inputs committed under `fuzz/corpus/<target>/` (the seed
//! corpus) and `fuzz/regressions/<target>/` (every input a fuzzer ever
//! found) through a target's property, on stable Rust. Shared by the
//! library's replay test (`tests/robustness/fuzz_corpus.rs`) and the
//! command-line tool's (`cli/tests/robust_fuzz_corpus.rs`).

use std::path::{Path, PathBuf};

/// The files of `<fuzz>/<kind>/<target>/`, sorted; none when the directory
/// does not exist.
pub fn inputs(fuzz: &Path, kind: &str, target: &str) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(fuzz.join(kind).join(target)) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .map(|e| e.expect("a readable directory entry").path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

/// Runs `check` over every input of `<fuzz>/<kind>/<target>/`, reporting
/// each failing file by name; the number of inputs.
pub fn replay(fuzz: &Path, kind: &str, target: &str, check: fn(&[u8])) -> usize {
    let files = inputs(fuzz, kind, target);
    let mut failures = Vec::new();
    for path in &files {
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
    assert!(
        failures.is_empty(),
        "{} of {} inputs fail:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
    files.len()
}
