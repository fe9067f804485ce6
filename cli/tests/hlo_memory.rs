//! `report` and `scan` hold one line of module text at a time: on a module
//! larger than the address space the tool may use, and larger than the
//! default `--max-input`, both run to the end (Linux: `ulimit -v`).

#![cfg(target_os = "linux")]

use std::io::{Read, Write};
use std::process::{Command, Stdio};

/// The address space the tool may use: 24 MiB. The tool itself takes
/// about 10 MiB of it; reading the module whole would take more than the
/// module's size.
const ADDRESS_SPACE_KIB: u64 = 24 << 10;

/// The module written to the tool: 40 MB, above both limits.
const MODULE_BYTES: usize = 40_000_000;

/// Module text as XLA prints it, with TPU layouts, operands and metadata,
/// in computations of 1000 instructions, written to `out` as it is made.
fn write_module(out: &mut impl Write, size: usize) -> std::io::Result<usize> {
    const LINES: [&str; 4] = [
        "bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)} parameter(0), metadata={op_name=\"x\"}",
        "f32[1024,4096]{1,0:T(8,128)} multiply(%a, %b), metadata={op_name=\"jit(f)/mul\"}",
        "(f32[128]{0:T(256)}, s32[]{:T(256)S(1)}) tuple(%c, %d)",
        "s8[2048,512]{0,1:T(8,128)(4,1)S(1)} convert(%e)",
    ];
    let mut written = 0;
    let mut instructions = 0;
    out.write_all(b"HloModule big\n\n")?;
    let mut c = 0;
    while written < size {
        let mut block = format!("%c.{c} (p: f32[2]) -> f32[2] {{\n");
        for i in 0..1000 {
            let root = if i == 999 { "ROOT " } else { "" };
            block.push_str(&format!("  {root}%i.{c}.{i} = {}\n", LINES[i % 4]));
        }
        block.push_str("}\n\n");
        out.write_all(block.as_bytes())?;
        written += block.len();
        instructions += 1000;
        c += 1;
    }
    Ok(instructions)
}

/// Runs the tool under the address-space limit with the module on its
/// standard input: its exit status, the size of its output and the last
/// 64 KiB of it, and its errors.
fn run_limited(args: &[&str]) -> (Option<i32>, usize, String, String, usize) {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v {ADDRESS_SPACE_KIB} && exec \"$0\" \"$@\""
        ))
        .arg(env!("CARGO_BIN_EXE_xla-shape"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("sh runs");
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let n = write_module(&mut stdin, MODULE_BYTES);
        n.unwrap_or(0)
    });
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let (mut total, mut tail) = (0, Vec::new());
        let mut buf = vec![0; 1 << 16];
        loop {
            let n = stdout.read(&mut buf).unwrap();
            if n == 0 {
                break;
            }
            total += n;
            tail.extend_from_slice(&buf[..n]);
            if tail.len() > 1 << 17 {
                tail.drain(..tail.len() - (1 << 16));
            }
        }
        (total, String::from_utf8_lossy(&tail).into_owned())
    });
    let mut errors = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut errors)
        .unwrap();
    let status = child.wait().unwrap();
    let instructions = writer.join().unwrap();
    let (total, tail) = reader.join().unwrap();
    (status.code(), total, tail, errors, instructions)
}

#[test]
fn report_of_a_module_larger_than_memory_runs_line_by_line() {
    let (code, _, tail, errors, instructions) = run_limited(&["report", "--top", "3"]);
    assert_eq!(code, Some(0), "{errors}");
    // Every instruction is counted: the totals name them all.
    let all = tail
        .lines()
        .find(|l| l.starts_with("all results "))
        .expect("the total line");
    let buffers: usize = all.split_whitespace().nth(2).unwrap().parse().unwrap();
    assert_eq!(buffers, instructions);
    assert!(tail.contains("largest 3 "), "{tail}");
}

#[test]
fn scan_of_a_module_larger_than_memory_runs_line_by_line() {
    let (code, size, tail, errors, instructions) = run_limited(&["scan"]);
    assert_eq!(code, Some(0), "{errors}");
    // The last instruction's shape, on its line of the module: the header,
    // a blank line, then per computation its line, 1000 instructions, `}`
    // and a blank line.
    let computations = instructions / 1000;
    let line = 2 + (computations - 1) * 1003 + 1 + 1000;
    assert!(
        tail.contains(&format!("\n{line}:")),
        "line {line} in {}",
        &tail[tail.len().saturating_sub(300)..]
    );
    assert!(size > MODULE_BYTES / 2);
}
