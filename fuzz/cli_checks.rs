//! The properties of the command-line tool's fuzz targets, shared with
//! the tool's stable test `cli/tests/robust_fuzz_corpus.rs`, which replays
//! every committed input through them. The commands run in-process
//! (through the `xla_shape_cli` library the binary is built on), on an
//! input written to a temporary file and named `@FILE` as a user would.

#![allow(dead_code)]

use std::io::Write as _;
use std::path::PathBuf;

use serde_json::Value;
use xla_shape_cli::convert::{self, Format};
use xla_shape_cli::input::Limits;
use xla_shape_cli::output::{Failure, Numbers};
use xla_shape_cli::sharding::{self, ShardingFormat};
use xla_shape_cli::{describe, draw, draw_sharding, memory, report, scan, strides, validate};

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
    let mut out = Vec::new();
    let options = |lines| convert::Options {
        from,
        to,
        lossless,
        message: message.map(str::to_owned),
        lines,
        json: true,
    };
    match command {
        0 | 1 => {
            let result = convert::run(Some(&arg), &options(true), &limits, &mut out);
            if let Some(doc) = document(result, out) {
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
            let result = convert::run(Some(&arg), &options(false), &limits, &mut out);
            one_document(document(result, out));
        }
        4 => {
            let result = describe::run(
                Some(&arg),
                false,
                from,
                Numbers { grouped: lossless },
                true,
                &limits,
                &mut out,
            );
            one_document(document(result, out));
        }
        5 => {
            let result = validate::run(Some(&arg), from, true, &limits, &mut out);
            one_document(document(result, out));
            let mut out = Vec::new();
            let result = strides::run(Some(&arg), from, true, &limits, &mut out);
            one_document(document(result, out));
        }
        6 => {
            let result = scan::run(Some(&arg), true, &limits, &mut out);
            if let Some(doc) = document(result, out) {
                for r in json_lines(&doc) {
                    assert!(r.get("error").is_some() || r.get("shape").is_some(), "{r}");
                }
            }
        }
        7 => {
            let result = report::run(Some(&arg), top, Some(80), true, &limits, &mut out);
            one_document(document(result, out));
        }
        _ => {
            let result = memory::run(Some(&arg), memory::Form::Json, top, &limits, &mut out);
            one_document(document(result, out));
            // Its picture, when it has one, is well-formed XML.
            let mut out = Vec::new();
            if memory::run(Some(&arg), memory::Form::Svg, top, &limits, &mut out).is_ok() {
                let svg = std::str::from_utf8(&out).expect("memory writes UTF-8");
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
    let options = draw::Options {
        slice: None,
        max_rows: size(c.byte()),
        max_cols: size(c.byte()),
        wrap: c.maybe(&[1, 2, 3, 5, 8, 33, 0]),
    };
    let slice_len = usize::from(c.byte() % 8);
    let (slice, rest) = c.0.split_at(slice_len.min(c.0.len()));
    let options = draw::Options {
        slice: (!slice.is_empty()).then(|| String::from_utf8_lossy(slice).into_owned()),
        ..options
    };
    let limits = Limits {
        max_input: 1 << 20,
        max_line: 1 << 16,
    };
    let file = InputFile::new(rest);
    let mut out = Vec::new();
    if draw::run(Some(&file.arg()), from, &options, &limits, &mut out).is_err() {
        return;
    }
    let svg = std::str::from_utf8(&out).expect("draw writes UTF-8");
    let doc = roxmltree::Document::parse(svg)
        .unwrap_or_else(|e| panic!("draw wrote malformed XML: {e}\n{svg:.400}"));
    assert_eq!(doc.root_element().tag_name().name(), "svg");
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
    let limits = Limits {
        max_input: 1 << 20,
        max_line: 1 << 16,
    };
    let file = InputFile::new(c.0);
    let arg = file.arg();
    let options = sharding::Options {
        from,
        shape,
        mesh,
        json: true,
    };
    let mut out = Vec::new();
    let result = sharding::run(Some(&arg), &options, &limits, &mut out);
    let Some(doc) = document(result, out) else {
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
    let mut out = Vec::new();
    let drawn = draw_sharding::run(Some(&shape_file.arg()), None, text, None, &limits, &mut out);
    if drawn.is_err() {
        return;
    }
    let svg = std::str::from_utf8(&out).expect("draw writes UTF-8");
    let doc = roxmltree::Document::parse(svg)
        .unwrap_or_else(|e| panic!("draw --sharding wrote malformed XML: {e}\n{svg:.400}"));
    assert_eq!(doc.root_element().tag_name().name(), "svg");
}
