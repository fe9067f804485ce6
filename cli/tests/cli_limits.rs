//! The tool under hostile input: every input line gets exactly one output
//! line, a closed output pipe ends the run quietly, and under an
//! address-space limit every command ends with exit 1 and a message, never
//! a signal.

mod support;

use std::io::{BufRead, BufReader, Write};
use std::process::Command;

use support::*;

/// A mixture of every kind of line: valid, invalid, not UTF-8, empty,
/// over the line limit, with `\r\n`; 7 kinds, repeated.
fn hostile_lines(count: usize) -> (Vec<u8>, usize) {
    let kinds: [&[u8]; 7] = [
        b"f32[2,3]{1,0}\n",
        b"f32[2\n",
        b"\xff\xfe\n",
        b"\n",
        b"(f32[2], s32[])\r\n",
        b"f32[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]\n",
        b"100b1a0202032a070a02010080010132020000\n",
    ];
    let mut input = Vec::new();
    for i in 0..count {
        input.extend_from_slice(kinds[i % kinds.len()]);
    }
    // The last line without its newline still counts.
    input.pop();
    (input, count)
}

#[test]
fn lines_mode_never_loses_nor_doubles_a_line() {
    let (input, count) = hostile_lines(7 * 50);
    for args in [
        &["convert", "--lines", "--to", "hex", "--max-line", "64"][..],
        &["convert", "--lines", "--to", "json", "--max-line", "64"][..],
        &["convert", "--lines", "--to", "pbtxt", "--max-line", "64"][..],
    ] {
        let out = run(args, &input);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert_eq!(
            String::from_utf8(out.stdout).unwrap().lines().count(),
            count
        );
        let mut with_json = args.to_vec();
        with_json.push("--json");
        let objects = json_lines(&with_json, &input, 1);
        let numbers: Vec<u64> = objects
            .iter()
            .map(|o| o["line"].as_u64().unwrap())
            .collect();
        let expected: Vec<u64> = (1..=count as u64).collect();
        assert_eq!(numbers, expected, "{args:?}");
        let too_long = objects
            .iter()
            .filter(|o| o["error"]["kind"] == "TooLarge")
            .count();
        assert_eq!(too_long, 50, "{args:?}");
    }
}

#[test]
fn index_answers_every_line() {
    // One answer per line, the invalid one included.
    let out = run(&["index", "f32[2]"], b"0\n\xff\n1\n");
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert_eq!(lines[0], "0");
    assert!(lines[1].starts_with("error: "), "{}", lines[1]);
    assert_eq!(lines[2], "1");
    let mut input = Vec::new();
    for i in 0..500 {
        match i % 5 {
            0 => input.extend_from_slice(b"1\n"),
            1 => input.extend_from_slice(b"7\n"),
            2 => input.extend_from_slice(b"\xc3\n"),
            3 => input.extend_from_slice(&[b'9'; 100]),
            _ => input.extend_from_slice(b"x\r\n"),
        }
        if i % 5 == 3 {
            input.push(b'\n');
        }
    }
    let objects = json_lines(
        &["index", "--json", "--max-line", "50", "f32[2]"],
        &input,
        1,
    );
    assert_eq!(objects.len(), 500);
    for (i, o) in objects.iter().enumerate() {
        assert_eq!(o["line"], i + 1);
        assert_eq!(o["offset"].is_number(), i % 5 == 0, "{o}");
    }
}

#[test]
fn a_closed_pipe_ends_the_run_quietly() {
    let mut input = Vec::new();
    for _ in 0..200_000 {
        input.extend_from_slice(b"f32[2,3]\n");
    }
    for args in [
        &["convert", "--lines", "--to", "json"][..],
        &["convert", "--lines", "--json", "--to", "hex"][..],
    ] {
        let mut child = spawn(args);
        let mut stdin = child.stdin.take().unwrap();
        let data = input.clone();
        let writer = std::thread::spawn(move || {
            let _ = stdin.write_all(&data);
        });
        // Read one line, then go away, as `| head -1` does.
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .unwrap();
        assert!(!first.is_empty());
        let out = child.wait_with_output().unwrap();
        writer.join().unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert!(
            out.stderr.is_empty(),
            "{:?}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// Runs the binary under an address-space limit of `kib` KiB, with `file`
/// on standard input.
#[cfg(target_os = "linux")]
fn run_limited(kib: u64, args: &[&str], file: &std::path::Path) -> std::process::Output {
    let script = format!("ulimit -v {kib} && exec \"$0\" \"$@\"");
    Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_xla-shape"))
        .args(args)
        .stdin(std::fs::File::open(file).unwrap())
        .output()
        .expect("sh runs")
}

#[cfg(target_os = "linux")]
#[test]
fn under_an_address_space_limit_every_command_ends_with_a_message() {
    // One 100 MB token (hex digits, so that detection says hex and a whole
    // read would decode 50 MB) under a 256 MiB address space.
    let dir = std::env::temp_dir().join(format!("xla-shape-limits-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let token = dir.join("token.txt");
    std::fs::write(&token, vec![b'a'; 100_000_000]).unwrap();
    let limit = 256 * 1024;
    // The limit itself leaves room for a small run.
    let small = run_limited(limit, &["describe", "f32[2]"], &token);
    assert_eq!(small.status.code(), Some(0));
    for args in [
        &["convert", "--to", "hex"][..],
        &["convert", "--lines", "--to", "hex"][..],
        &["convert", "--lines", "--json", "--to", "json"][..],
        &["describe", "-"][..],
        &["validate"][..],
        &["scan"][..],
        &["strides"][..],
        &["draw"][..],
        &["index", "f32[2]"][..],
        &["index", "--offset", "f32[2]"][..],
    ] {
        let out = run_limited(limit, args, &token);
        assert_eq!(
            out.status.code(),
            Some(1),
            "{args:?} ended with {:?}: {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        let said = [out.stdout, out.stderr].concat();
        let said = String::from_utf8_lossy(&said);
        assert!(
            said.contains("--max-input") || said.contains("--max-line"),
            "{args:?}: {said}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[cfg(target_os = "linux")]
#[test]
fn a_long_unknown_name_is_one_error_line_under_an_address_space_limit() {
    // A 100 MB JSON key, and a 100 MB text-format field name, each on a
    // line before a valid one, under a 320 MiB address space. The JSON
    // and text-format parsers copied such a name three to five times
    // (the run aborted, exit 134, at about 400 MB); the readers now
    // replace it before parsing, so the line is held with one copy of it.
    let dir = std::env::temp_dir().join(format!("xla-shape-names-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let name = "x".repeat(100_000_000);
    for (from, record, valid, error) in [
        (
            "json",
            format!("{{\"{name}\": 1}}"),
            "{\"elementType\": \"F32\"}",
            "unrecognized field name 'xxx",
        ),
        (
            "pbtxt",
            format!("{name}: 1"),
            "element_type: F32",
            "field 'xxx",
        ),
    ] {
        let file = dir.join(from);
        std::fs::write(&file, format!("{record}\n{valid}\n")).unwrap();
        drop(record);
        let args = [
            "convert",
            "--lines",
            "--json",
            "--from",
            from,
            "--to",
            "hex",
            "--max-line",
            "200000000",
        ];
        let out = run_limited(320 * 1024, &args, &file);
        assert_eq!(
            out.status.code(),
            Some(1),
            "{from}: {:?}: {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        let stdout = String::from_utf8(out.stdout).unwrap();
        let lines: Vec<&str> = stdout.lines().collect();
        assert_eq!(lines.len(), 2, "{from}");
        assert!(lines[0].contains(error), "{from}: {:.200}", lines[0]);
        assert!(lines[0].len() < 20_000, "{from}: the message is cut");
        assert_eq!(lines[1], r#"{"line":2,"output":"100b"}"#, "{from}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[cfg(target_os = "linux")]
#[test]
fn memory_the_system_refuses_ends_the_run_with_exit_1() {
    let dir = std::env::temp_dir().join(format!("xla-shape-refused-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // A ShapeProto tuple (element_type 13) of a million empty elements
    // (`tuple_shapes`, field 4): 2 MB that are a million `Shape`s, more
    // than 256 MiB. Rust's answer to the refused allocation was an abort
    // (SIGABRT, exit 134).
    let tuple = dir.join("tuple.pb");
    let mut bytes = vec![0x08, 0x0d];
    bytes.extend(std::iter::repeat_n([0x22, 0x00], 1_000_000).flatten());
    std::fs::write(&tuple, bytes).unwrap();
    // A sparse file of 100 GiB under a larger --max-input: its length was
    // reserved at once, and refused at once.
    let sparse = dir.join("sparse");
    std::fs::File::create(&sparse)
        .unwrap()
        .set_len(100 << 30)
        .unwrap();
    let sparse_arg = format!("@{}", sparse.display());
    for (args, file) in [
        (&["convert", "--to", "json"][..], &tuple),
        (
            &["scan", "--max-input", "200000000000", &sparse_arg][..],
            &tuple,
        ),
    ] {
        let out = run_limited(256 * 1024, args, file);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(1),
            "{args:?}: {:?}: {stderr}",
            out.status
        );
        assert!(stderr.contains("out of memory"), "{args:?}: {stderr}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[cfg(target_os = "linux")]
#[test]
fn binary_modules_are_scanned_and_reported_in_memory_bounded_by_their_size() {
    // An HloModuleProto of one computation (field 3) of 200,000 empty
    // instructions (field 2 of HloComputationProto, `12 00`): 400 KB. Read
    // whole, each instruction was a view of hundreds of bytes (128 MB in
    // all; 2 MB aborted under 512 MiB); streamed, the commands run under
    // 64 MiB of address space.
    let dir = std::env::temp_dir().join(format!("xla-shape-streamed-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let n = 200_000;
    let empty: Vec<u8> = std::iter::repeat_n([0x12, 0x00], n).flatten().collect();
    let bytes = proto_field(3, &empty);
    let file = dir.join("empty.pb");
    std::fs::write(&file, &bytes).unwrap();
    let arg = format!("@{}", file.display());
    for (args, code, lines) in [
        // Every instruction's shape is missing: one error line each.
        (&["scan", &arg][..], 1, n),
        (&["report", "--json", &arg][..], 0, 1),
    ] {
        let out = run_limited(64 * 1024, args, &file);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{args:?}: {stderr}");
        let stdout = String::from_utf8(out.stdout).unwrap();
        assert_eq!(stdout.lines().count(), lines, "{args:?}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
