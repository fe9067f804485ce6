//! Replays every input committed under `fuzz/corpus/<target>/` (the seed
//! corpus) and `fuzz/regressions/<target>/` (every input a fuzzer ever
//! found) through the property its fuzz target asserts, on stable Rust, so
//! that CI keeps each past finding fixed. The properties live in
//! `fuzz/checks.rs`, shared with the fuzz targets.

use crate::common;

use crate::checks;
use crate::replay;

use std::path::{Path, PathBuf};

/// The `fuzz/` directory of the repository.
fn fuzz() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz")
}

fn inputs(kind: &str, target: &str) -> Vec<PathBuf> {
    replay::inputs(&fuzz(), kind, target)
}

fn replay(kind: &str, target: &str, check: checks::Check) -> usize {
    replay::replay(&fuzz(), kind, target, check)
}

#[test]
fn every_target_has_a_seed_corpus() {
    for (target, _) in checks::TARGETS {
        assert!(
            !inputs("corpus", target).is_empty(),
            "fuzz/corpus/{target} is empty"
        );
    }
}

#[test]
fn every_corpus_and_regression_directory_belongs_to_a_target() {
    let fuzz = fuzz();
    for kind in ["corpus", "regressions"] {
        let Ok(entries) = std::fs::read_dir(fuzz.join(kind)) else {
            continue;
        };
        for entry in entries {
            let name = entry.unwrap().file_name().into_string().unwrap();
            assert!(
                checks::TARGETS.iter().any(|(t, _)| *t == name)
                    || checks::CLI_TARGETS.contains(&name.as_str()),
                "fuzz/{kind}/{name} is not a fuzz target"
            );
        }
    }
}

macro_rules! replay_tests {
    ($($target:ident),* $(,)?) => {$(
        #[test]
        fn $target() {
            let seeds = replay("corpus", stringify!($target), checks::$target);
            let found = replay("regressions", stringify!($target), checks::$target);
            assert!(seeds + found > 0);
        }
    )*};
}

replay_tests!(
    proto_roundtrip,
    shape_string,
    layout_string,
    json_roundtrip,
    text_format_roundtrip,
    index_math,
    index_text,
    hlo_scan,
    relayout,
    strides,
    interop,
    hlo_module,
    hlo_proto,
    any_message,
    stablehlo_text,
    memory,
    stablehlo_bytecode,
    sharding,
    padding,
);

/// The binary modules of the golden data, which Google's runtime wrote,
/// decode losslessly and re-encode byte for byte, as each of the three
/// module messages (`hlo_proto` checks only that re-encoding is a fixed
/// point, as arbitrary bytes need not be in Google's canonical order).
#[test]
fn golden_modules_reencode_byte_for_byte() {
    use xla_shape::formats::LosslessMessage;
    use xla_shape::proto::DESCRIPTOR_POOL;
    let descriptor = |name| DESCRIPTOR_POOL.get_message_by_name(name).unwrap();
    let mut modules = 0;
    for name in common::HLO_PROGRAMS {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/hlo")
            .join(format!("{name}.pb"));
        let module = std::fs::read(&path).unwrap();
        // HloProto { hlo_module = 1 } and HloSnapshot { hlo = 1 } around it.
        let wrap = |inner: &[u8]| {
            let mut out = vec![0x0a];
            prost::encoding::encode_varint(inner.len() as u64, &mut out);
            out.extend_from_slice(inner);
            out
        };
        let proto = wrap(&module);
        let snapshot = wrap(&proto);
        for (message, bytes) in [
            ("xla.HloModuleProto", &module),
            ("xla.HloProto", &proto),
            ("xla.HloSnapshot", &snapshot),
        ] {
            let m = LosslessMessage::decode(descriptor(message), &bytes[..]).unwrap();
            assert!(m.encode_to_vec() == *bytes, "{name} as {message}");
        }
        modules += 1;
    }
    assert!(modules > 0);
}

/// fuzz_layout.jsonl: XLA's `ParseLayout` accepts `#(f32)` and prints it
/// as `#(invalid)`, which it then rejects; `checks::layout_string` exempts
/// such layouts from its printed-form round trip because we do the same.
#[test]
fn layouts_that_xla_prints_unparsably() {
    let records = common::records("oracle/fuzz_layout.jsonl");
    assert_eq!(records.len(), 3);
    for r in records {
        let text = common::str_field(&r["input"], "text");
        let ours = text.parse::<xla_shape::Layout>();
        if common::str_field(&r, "status") == "ok" {
            let printed = ours.unwrap().to_string();
            assert_eq!(printed, common::str_field(&r, "parse_layout_str"));
            assert!(printed.contains("(invalid)"));
        } else {
            let err = ours.unwrap_err();
            let was_parsing = |m: &str| -> Vec<String> {
                m.lines()
                    .filter(|l| l.starts_with("was parsing"))
                    .map(str::to_owned)
                    .collect()
            };
            assert_eq!(
                was_parsing(err.message()),
                was_parsing(common::str_field(&r, "xla_error"))
            );
        }
    }
}
