//! Running the built `xla-shape` binary, for the tests of `cli/tests/`.

#![allow(dead_code)]

use std::io::Write;
use std::process::{Child, Command, Output, Stdio};

use serde_json::Value;

/// Starts the binary with `args`, every stream piped.
pub fn spawn(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_xla-shape"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs")
}

/// The commands `xla-shape --help` lists (without `help`).
pub fn commands() -> Vec<String> {
    let help = ok(&["--help"], b"");
    help.lines()
        .skip_while(|l| *l != "Commands:")
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(str::to_string)
        .collect()
}

/// Runs the binary with `args`, `stdin` on its standard input.
pub fn run(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = spawn(args);
    let mut pipe = child.stdin.take().expect("stdin");
    let stdin = stdin.to_vec();
    // A writer thread: the binary may stop reading before the end.
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(&stdin);
    });
    let out = child.wait_with_output().expect("the binary finishes");
    writer.join().expect("the writer ends");
    out
}

/// The standard output of a run that succeeds.
pub fn ok(args: &[&str], stdin: &[u8]) -> String {
    let out = run(args, stdin);
    assert!(
        out.status.success(),
        "{args:?} failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// The standard error of a run that exits with `code`.
pub fn fails(args: &[&str], stdin: &[u8], code: i32) -> String {
    let out = run(args, stdin);
    assert_eq!(
        out.status.code(),
        Some(code),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    String::from_utf8(out.stderr).expect("UTF-8 errors")
}

/// The one JSON document of a `--json` run that exits with `code`; nothing
/// on standard error.
pub fn json_doc(args: &[&str], stdin: &[u8], code: i32) -> Value {
    let out = run(args, stdin);
    assert_eq!(out.status.code(), Some(code), "{args:?}");
    assert!(out.stderr.is_empty(), "{args:?}: {:?}", out.stderr);
    let text = String::from_utf8(out.stdout).expect("UTF-8 output");
    assert_eq!(text.lines().count(), 1, "{args:?}: one line: {text}");
    serde_json::from_str(&text).expect("one JSON document")
}

/// The JSON objects, one per line, of a `--json` line-by-line run that
/// exits with `code`.
pub fn json_lines(args: &[&str], stdin: &[u8], code: i32) -> Vec<Value> {
    let out = run(args, stdin);
    assert_eq!(out.status.code(), Some(code), "{args:?}");
    assert!(out.stderr.is_empty(), "{args:?}: {:?}", out.stderr);
    String::from_utf8(out.stdout)
        .expect("UTF-8 output")
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON object per line"))
        .collect()
}

/// A protobuf field of wire type 2 (length-delimited): key, length, bytes.
pub fn proto_field(number: u8, bytes: &[u8]) -> Vec<u8> {
    let mut out = vec![number << 3 | 2];
    let mut n = bytes.len();
    while n >= 0x80 {
        out.push((n as u8 & 0x7f) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
    out.extend_from_slice(bytes);
    out
}
