//! How the module commands (`report`, `scan`, `memory`, `signature`) take
//! their input: a plain path to an existing file is the file, as `@FILE`
//! is (XLA's own `.pb` and `.txt` of compiled programs, `tests/data/hlo/`,
//! jaxlib 0.10.2).

#[path = "../../tests/common/mod.rs"]
mod common;
mod support;

use common::data_path;
use support::ok;

#[test]
fn a_plain_path_is_the_file_for_module_commands() {
    for name in ["hlo/matmul_bf16.pb", "hlo/matmul_bf16.txt"] {
        let path = data_path(name);
        let at = format!("@{path}");
        for command in ["report", "scan", "memory", "signature"] {
            let by_at = ok(&[command, &at], b"");
            assert_eq!(ok(&[command, &path], b""), by_at, "{command} {name}");
            assert!(!by_at.is_empty());
        }
    }
}

#[test]
fn text_that_is_not_a_file_is_still_text() {
    // No file has this name: it is read as module text.
    let text = "HloModule m, entry_computation_layout={(f32[2]{0})->f32[2]{0}}";
    let out = ok(&["signature", text], b"");
    assert!(out.starts_with("(f32[2]{0})->f32[2]{0}"), "{out}");
}
