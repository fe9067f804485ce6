//! Every `console` example of README.md, run against the built binary: a
//! line `$ [printf 'INPUT' |] xla-shape ARGS` runs the tool (with INPUT,
//! whose `\n` escapes become line breaks, on standard input), and the lines
//! up to the next `$` are what it prints (standard output, then standard
//! error). A line `$ xla-shape ARGS > FILE` says that FILE, committed in
//! the repository (the README's pictures), is exactly what the tool writes.

mod support;

use support::{commands, run as run_tool};

/// Splits a command line into words, honouring single quotes.
fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    let mut any = false;
    for c in line.chars() {
        match c {
            '\'' => {
                quoted = !quoted;
                any = true;
            }
            ' ' if !quoted => {
                if any {
                    out.push(std::mem::take(&mut word));
                    any = false;
                }
            }
            c => {
                word.push(c);
                any = true;
            }
        }
    }
    if any {
        out.push(word);
    }
    out
}

struct Example {
    command: String,
    expected: String,
}

fn examples() -> Vec<Example> {
    let readme = std::fs::read_to_string(repository("README.md")).unwrap();
    let mut out: Vec<Example> = Vec::new();
    let mut in_console = false;
    for line in readme.lines() {
        if line.starts_with("```console") {
            in_console = true;
        } else if line.starts_with("```") {
            in_console = false;
        } else if in_console {
            match line.strip_prefix("$ ") {
                Some(command) => out.push(Example {
                    command: command.to_string(),
                    expected: String::new(),
                }),
                None => {
                    let last = out.last_mut().expect("output follows a command");
                    last.expected.push_str(line);
                    last.expected.push('\n');
                }
            }
        }
    }
    out
}

fn repository(path: &str) -> String {
    format!("{}/../{path}", env!("CARGO_MANIFEST_DIR"))
}

fn run(example: &Example) -> String {
    if let Some((command, file)) = example.command.split_once(" > ") {
        let written = run(&Example {
            command: command.to_string(),
            expected: String::new(),
        });
        let committed =
            std::fs::read_to_string(repository(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert!(
            written == committed,
            "{file} is not what `{command}` writes now: run it again"
        );
        return String::new();
    }
    let (stdin, command) = match example.command.split_once(" | ") {
        Some((printf, rest)) => {
            let w = words(printf);
            assert_eq!(w[0], "printf", "{}", example.command);
            // printf's escapes: `\n` and `%%`.
            (
                w[1].replace("\\n", "\n").replace("%%", "%"),
                rest.to_string(),
            )
        }
        None => (String::new(), example.command.clone()),
    };
    let args = words(&command);
    assert_eq!(args[0], "xla-shape", "{}", example.command);
    let args: Vec<&str> = args[1..].iter().map(String::as_str).collect();
    let out = run_tool(&args, stdin.as_bytes());
    let mut text = String::from_utf8(out.stdout).unwrap();
    text.push_str(&String::from_utf8(out.stderr).unwrap());
    text
}

#[test]
fn every_readme_example_prints_what_the_readme_says() {
    let examples = examples();
    assert!(examples.len() >= 15, "only {} examples", examples.len());
    let lines: Vec<&str> = examples.iter().map(|e| e.command.as_str()).collect();
    // Every command but `completions` (whose output is a shell script),
    // and the main options.
    let mut shown = commands();
    shown.retain(|c| c != "completions");
    shown.extend(["--json", "--lines", "--lossless"].map(String::from));
    for sub in &shown {
        let sub = sub.as_str();
        assert!(
            lines.iter().any(|c| c.contains(sub)),
            "README shows no `{sub}`"
        );
    }
    for e in &examples {
        assert_eq!(run(e), e.expected, "README example: $ {}", e.command);
    }
}

#[test]
fn readme_says_how_to_put_the_tool_on_path() {
    // The README installs the package of `cli/`, whose binary is the
    // `xla-shape` of every example.
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let readme = std::fs::read_to_string(format!("{root}/README.md")).unwrap();
    assert!(
        readme
            .lines()
            .any(|l| l.trim() == "cargo install --path cli"),
        "README.md does not say `cargo install --path cli`"
    );
    let manifest = std::fs::read_to_string(format!("{root}/cli/Cargo.toml")).unwrap();
    let bin = manifest
        .split("[[bin]]")
        .nth(1)
        .expect("a [[bin]] in cli/Cargo.toml");
    assert!(
        bin.lines().any(|l| l.trim() == "name = \"xla-shape\""),
        "{bin}"
    );
}
