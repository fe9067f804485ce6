//! The properties of the command-line tool's fuzz targets, shared with
//! the tool's stable test `cli/tests/robust_fuzz_corpus.rs`, which replays
//! every committed input through them. The commands run in-process
//! (through the `xla_shape_cli` library the binary is built on), on an
//! input written to a temporary file and named `@FILE` as a user would.

#![allow(dead_code)]

use std::io::Write as _;
use std::path::PathBuf;

use serde_json::Value;
use xla_shape_cli::Context;
use xla_shape_cli::commands::{
    convert, describe, draw, memory, report, scan, sharding, strides, validate,
};
use xla_shape_cli::input::{Format, Limits, ShardingFormat};
use xla_shape_cli::output::Failure;

/// A property over one fuzz input: panics when it does not hold.
pub type Check = fn(&[u8]);

/// The names of the targets, each with its check.
pub const TARGETS: &[(&str, Check)] = &[
    ("cli_json", cli_json),
    ("cli_draw", cli_draw),
    ("cli_sharding", cli_sharding),
];

/// Every format, as `--from` and `--to` name them.
const FORMATS: &[Format] = &[
    Format::Hlo,
    Format::HloNoLayout,
    Format::Layout,
    Format::Hex,
    Format::Pb,
    Format::Json,
    Format::JsonNames,
    Format::Pbtxt,
];

/// Message names for `--message`: a few of the schema's, and one that is
/// not in it.
const MESSAGES: &[&str] = &[
    "xla.ShapeProto",
    "xla.LayoutProto",
    "xla.HloModuleProto",
    "xla.OpMetadata",
    "xla.LiteralProto",
    "xla.NoSuchMessage",
];

/// A temporary file holding `data` for the length of a check.
struct InputFile(PathBuf);

impl InputFile {
    fn new(data: &[u8]) -> Self {
        let name = format!(
            "xla-shape-cli-fuzz-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        );
        let path = std::env::temp_dir().join(name.replace(['(', ')'], ""));
        let mut file = std::fs::File::create(&path).expect("a writable temporary directory");
        file.write_all(data).expect("the input written");
        InputFile(path)
    }

    /// The INPUT argument that names the file.
    fn arg(&self) -> String {
        format!("@{}", self.0.display())
    }
}

impl Drop for InputFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Reads the fuzz input's leading bytes as choices.
struct Choices<'a>(&'a [u8]);

impl Choices<'_> {
    fn byte(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&b, rest)) => {
                self.0 = rest;
                b
            }
            None => 0,
        }
    }

    fn pick<T: Copy>(&mut self, from: &[T]) -> T {
        from[usize::from(self.byte()) % from.len()]
    }

    fn maybe<T: Copy>(&mut self, from: &[T]) -> Option<T> {
        let b = self.byte();
        (b % 2 == 1).then(|| from[usize::from(b / 2) % from.len()])
    }
}

/// The number of lines `--lines` reads from `data`: a last line without
/// `\n` counts, and an input ending in `\n` has no empty line after it.
fn line_count(data: &[u8]) -> usize {
    let newlines = data.iter().filter(|&&b| b == b'\n').count();
    newlines + usize::from(!data.is_empty() && !data.ends_with(b"\n"))
}

/// Every line of `out` is one JSON object; returns them.
fn json_lines(out: &[u8]) -> Vec<Value> {
    let text = std::str::from_utf8(out).expect("--json writes UTF-8");
    text.lines()
        .map(|line| {
            let v: Value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("not a JSON line: {e}: {line:.200}"));
            assert!(v.is_object(), "{line:.200}");
            v
        })
        .collect()
}

/// What a command wrote: on success or a reported failure, what `out`
/// holds; for an input error, the `{"error": ...}` document the binary
/// writes in its place (`main.rs`).
fn document(result: Result<(), Failure>, out: Vec<u8>) -> Option<Vec<u8>> {
    match result {
        Ok(()) | Err(Failure::Reported) => Some(out),
        Err(Failure::Input(p)) => {
            assert!(out.is_empty(), "output before an input error");
            let doc = serde_json::json!({ "error": p.to_json() });
            Some(format!("{doc}\n").into_bytes())
        }
        Err(Failure::Usage(_)) | Err(Failure::Io(_)) => None,
    }
}

/// `--json` output of the commands that read shapes, modules and
/// messages: always valid JSON, one document for a whole input, one object
/// per input line (numbered as the line) for `convert --lines`, one object
/// per shape found for `scan`; `memory --svg` is well-formed XML.
pub fn cli_json(data: &[u8]) {
    let mut c = Choices(data);
    let command = c.byte() % 9;
    let from = c.maybe(FORMATS);
    let to = c.pick(FORMATS);
    let message = c.maybe(MESSAGES);
    let lossless = c.byte() % 4 == 0;
    let limits = Limits {
        max_input: 1 << 20,
        // Short lines sometimes, so that lines over the limit are met.
        max_line: if c.byte() % 4 == 0 { 16 } else { 1 << 16 },
    };
    let top = usize::from(c.byte() % 4);
    let input = c.0;
    let file = InputFile::new(input);
    let arg = file.arg();
    let mut cx = Context {
        json: true,
        limits,
        out: Vec::new(),
    };
    let options = |lines| convert::Args {
        from,
        to,
        lossless,
        message: message.map(str::to_owned),
        lines,
        input: Some(arg.clone()),
    };
    match command {
        0 | 1 => {
            let result = convert::run(&options(true), &mut cx);
            if let Some(doc) = document(result, cx.out) {
                let records = json_lines(&doc);
                if records.len() == 1 && records[0].get("line").is_none() {
                    // An error before the first line (the whole run's).
                    assert!(records[0].get("error").is_some());
                    return;
                }
                assert_eq!(records.len(), line_count(input), "one object per line");
                for (n, r) in records.iter().enumerate() {
                    assert_eq!(r["line"], n + 1, "{r}");
                    assert!(r.get("output").is_some() != r.get("error").is_some());
                }
            }
        }
        2 | 3 => {
            let result = convert::run(&options(false), &mut cx);
            one_document(document(result, cx.out));
        }
        4 => {
            let args = describe::Args {
                input: Some(arg),
                from,
                group_digits: lossless,
            };
            let result = describe::run(&args, &mut cx);
            one_document(document(result, cx.out));
        }
        5 => {
            let result = validate::run(
                &validate::Args {
                    input: Some(arg.clone()),
                    from,
                },
                &mut cx,
            );
            one_document(document(result, std::mem::take(&mut cx.out)));
            let result = strides::run(
                &strides::Args {
                    input: Some(arg),
                    from,
                },
                &mut cx,
            );
            one_document(document(result, cx.out));
        }
        6 => {
            let result = scan::run(&scan::Args { input: Some(arg) }, &mut cx);
            if let Some(doc) = document(result, cx.out) {
                for r in json_lines(&doc) {
                    assert!(r.get("error").is_some() || r.get("shape").is_some(), "{r}");
                }
            }
        }
        7 => {
            let args = report::Args {
                input: Some(arg),
                top,
                width: Some(80),
            };
            let result = report::run(&args, &mut cx);
            one_document(document(result, cx.out));
        }
        _ => {
            let args = |svg| memory::Args {
                input: Some(arg.clone()),
                svg,
                top,
            };
            let result = memory::run(&args(false), &mut cx);
            one_document(document(result, std::mem::take(&mut cx.out)));
            // Its picture, when it has one, is well-formed XML.
            cx.json = false;
            if memory::run(&args(true), &mut cx).is_ok() {
                let svg = std::str::from_utf8(&cx.out).expect("memory writes UTF-8");
                let doc = roxmltree::Document::parse(svg)
                    .unwrap_or_else(|e| panic!("memory wrote malformed XML: {e}\n{svg:.400}"));
                assert_eq!(doc.root_element().tag_name().name(), "svg");
            }
        }
    }
}

/// The output is one JSON document on one line.
fn one_document(doc: Option<Vec<u8>>) {
    if let Some(doc) = doc {
        let records = json_lines(&doc);
        assert_eq!(records.len(), 1, "one document");
    }
}

/// `draw`: whatever it draws is a well-formed XML document whose root is
/// an `svg` element.
pub fn cli_draw(data: &[u8]) {
    let mut c = Choices(data);
    let from = c.maybe(FORMATS);
    let size = |b: u8| i64::from(b % 40);
    let max_rows = size(c.byte());
    let max_cols = size(c.byte());
    let wrap = c.maybe(&[1, 2, 3, 5, 8, 33, 0]);
    let slice_len = usize::from(c.byte() % 8);
    let (slice, rest) = c.0.split_at(slice_len.min(c.0.len()));
    let file = InputFile::new(rest);
    let args = draw::Args {
        input: Some(file.arg()),
        from,
        slice: (!slice.is_empty()).then(|| String::from_utf8_lossy(slice).into_owned()),
        max_rows,
        max_cols,
        wrap,
        sharding: None,
    };
    let mut cx = context(false);
    if draw::run(&args, &mut cx).is_err() {
        return;
    }
    let svg = std::str::from_utf8(&cx.out).expect("draw writes UTF-8");
    let doc = roxmltree::Document::parse(svg)
        .unwrap_or_else(|e| panic!("draw wrote malformed XML: {e}\n{svg:.400}"));
    assert_eq!(doc.root_element().tag_name().name(), "svg");
}

/// The context of an in-process run: `--json` or not, small limits, the
/// output in memory.
fn context(json: bool) -> Context<Vec<u8>> {
    Context {
        json,
        limits: Limits {
            max_input: 1 << 20,
            max_line: 1 << 16,
        },
        out: Vec::new(),
    }
}

/// Every form `sharding --from` names.
const SHARDING_FORMATS: &[ShardingFormat] = &[
    ShardingFormat::Text,
    ShardingFormat::Hex,
    ShardingFormat::Pb,
    ShardingFormat::Json,
    ShardingFormat::Pbtxt,
    ShardingFormat::Shardy,
];

/// Shapes and meshes the `cli_sharding` inputs choose from.
const SHARDING_SHAPES: &[&str] = &[
    "f32[8,6]",
    "f32[10,6]",
    "bf16[7]",
    "s8[4,5,7]",
    "f32[]",
    "f32[0,3]",
    "(f32[2], f32[3])",
];
const MESHES: &[&str] = &[
    r#"<["x"=2, "y"=4]>"#,
    r#"sdy.mesh @mesh = <["x"=2, "y"=2], device_ids=[3,2,1,0]>"#,
    r#"<["a"=1]>"#,
    "<[",
];

/// `sharding --json` writes one JSON document, with one entry per device
/// in ascending order when it lists them; `draw --sharding` of whatever
/// `sharding` reads is a well-formed SVG document.
pub fn cli_sharding(data: &[u8]) {
    let mut c = Choices(data);
    let from = c.maybe(SHARDING_FORMATS);
    let shape = c.maybe(SHARDING_SHAPES);
    let mesh = c.maybe(MESHES);
    let draw_it = c.byte() % 2 == 0;
    let file = InputFile::new(c.0);
    let args = sharding::Args {
        input: Some(file.arg()),
        from,
        shape: shape.map(str::to_owned),
        mesh: mesh.map(str::to_owned),
    };
    let mut cx = context(true);
    let result = sharding::run(&args, &mut cx);
    let Some(doc) = document(result, cx.out) else {
        return;
    };
    let records = json_lines(&doc);
    assert_eq!(records.len(), 1, "one document");
    let r = &records[0];
    if r.get("error").is_some() {
        return;
    }
    if let Some(devices) = r.get("devices").and_then(Value::as_array) {
        let ids: Vec<i64> = devices
            .iter()
            .map(|d| d["device"].as_i64().unwrap())
            .collect();
        assert!(ids.windows(2).all(|w| w[0] < w[1]), "ascending: {ids:?}");
    }
    // Draw the sharding as read (its text), on the chosen shape.
    let (Some(text), Some(shape), true) = (r["sharding"].as_str(), shape, draw_it) else {
        return;
    };
    let shape_file = InputFile::new(shape.as_bytes());
    let args = draw::Args {
        input: Some(shape_file.arg()),
        from: None,
        slice: None,
        max_rows: 16,
        max_cols: 16,
        wrap: None,
        sharding: Some(text.to_owned()),
    };
    let mut cx = context(false);
    if draw::run(&args, &mut cx).is_err() {
        return;
    }
    let out = cx.out;
    let svg = std::str::from_utf8(&out).expect("draw writes UTF-8");
    let doc = roxmltree::Document::parse(svg)
        .unwrap_or_else(|e| panic!("draw --sharding wrote malformed XML: {e}\n{svg:.400}"));
    assert_eq!(doc.root_element().tag_name().name(), "svg");
}
