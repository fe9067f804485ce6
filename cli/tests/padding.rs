//! `xla-shape padding` on XLA's out-of-memory listings as users posted them
//! in public threads (`tests/data/listings/`, each file named after its
//! thread, see `tests/data/README.md`): every figure a listing prints comes
//! out the same; a shape string alone; the input rule (`@FILE`, `-`,
//! literal); bad input.

mod support;

use serde_json::Value;
use support::{fails, json_doc, ok, run};

fn data(file: &str) -> String {
    format!(
        "{}/../tests/data/listings/{file}",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// The listings, the `--tiles` to give (those XLA:TPU used, for the
/// listings printed without them), and how many entries each has.
const LISTINGS: &[(&str, &[&str], usize)] = &[
    ("jax-ml_jax_7502.txt", &[], 1),
    ("tensorflow_tensorflow_30803.txt", &["f32=(8,128)"], 2),
    ("pytorch_xla_6674.txt", &[], 2),
    ("pytorch_xla_7942.txt", &["(8,128)"], 2),
    ("DifferentiableUniverseInitiative_flowpm_27.txt", &[], 1),
    ("sokrypton_ColabFold_62.txt", &[], 1),
    ("google_trax_525.txt", &[], 2),
    ("pytorch_xla_1965.txt", &[], 2),
    ("salesforce_ctrl_38.txt", &[], 1),
    ("erfanzar_EasyDeL_166.txt", &[], 1),
    ("tensorflow_tensor2tensor_1382.txt", &[], 1),
    ("pytorch_xla_3041.txt", &[], 2),
    ("google_trax_1343.txt", &[], 2),
    ("jax-ml_jax_13428.txt", &[], 2),
    ("google-research_t5x_870.txt", &[], 3),
    ("alpa-projects_alpa_759.txt", &[], 1),
];

fn args<'a>(file: &'a str, tiles: &'a [&'a str]) -> Vec<&'a str> {
    let mut args = vec!["padding", "--json"];
    for t in tiles {
        args.extend(["--tiles", t]);
    }
    args.push(file);
    args
}

#[test]
fn every_figure_of_every_listing_comes_out_the_same() {
    let mut figures = 0;
    for &(file, tiles, count) in LISTINGS {
        let path = format!("@{}", data(file));
        let doc = json_doc(&args(&path, tiles), b"", 0);
        let shapes = doc["shapes"].as_array().unwrap();
        assert_eq!(shapes.len(), count, "{file}");
        for s in shapes {
            let listed = &s["listed"];
            assert!(listed["line"].as_u64().unwrap() >= 1, "{file}: {s}");
            if s["shape"].is_null() {
                // An allocation without a shape (register spill slots).
                assert!(s.get("padded").is_none(), "{file}: {s}");
                continue;
            }
            let check = &s["check"];
            assert_eq!(check["agrees"], true, "{file}: {s}");
            for key in ["size", "unpadded", "extra", "expansion"] {
                let f = &check[key];
                if f.is_null() {
                    assert!(listed[key].is_null(), "{file}: {key} printed");
                    continue;
                }
                assert_eq!(f["printed"], listed[key], "{file}: {key}");
                assert_eq!(f["agrees"], true, "{file}: {key}: {f}");
                figures += 1;
            }
            let (unpadded, padded) = (
                s["unpadded"].as_i64().unwrap(),
                s["padded"].as_i64().unwrap(),
            );
            let expansion = s["expansion"].as_f64().unwrap();
            assert!(padded >= unpadded, "{file}: {s}");
            assert!((expansion - padded as f64 / unpadded.max(1) as f64).abs() < 1e-9);
        }
    }
    // The 70 figures `tests/memory/padding.rs` counts by hand, less the
    // listings it reads twice (tensorflow/tensor2tensor#1382: Size and
    // Unpadded size; jax-ml/jax#13428: two Sizes).
    assert_eq!(figures, 70 - 2 - 2);
}

#[test]
fn a_listing_without_tiles_differs_until_they_are_given() {
    // tensorflow/tensorflow#30803 (2019) prints f32[..]{3,0,2,1} without
    // tiles: untiled it pads nothing and its figures differ.
    let path = format!("@{}", data("tensorflow_tensorflow_30803.txt"));
    let doc = json_doc(&["padding", "--json", &path], b"", 0);
    assert_eq!(doc["shapes"][0]["check"]["agrees"], false);
    assert_eq!(doc["shapes"][0]["tiles_assumed"], false);
    let text = ok(&["padding", &path], b"");
    assert!(
        text.contains("differs: the shape has no tiles; give those XLA used with --tiles"),
        "{text}"
    );
    let doc = json_doc(
        &["padding", "--json", "--tiles", "f32=(8,128)", &path],
        b"",
        0,
    );
    let s = &doc["shapes"][0];
    assert_eq!(s["check"]["agrees"], true);
    assert_eq!(s["tiles_assumed"], true);
    assert!(
        s["explained_shape"]
            .as_str()
            .unwrap()
            .contains(":T(8,128)}")
    );
}

#[test]
fn a_shape_string_is_explained() {
    // jax-ml/jax#7502's shape. By hand: 2048*128*128*4 s32 elements of 4
    // bytes are 512 MiB; the tile (8,128) rounds the minor dimension, 4,
    // up to 128: 32 times as much, 16 GiB.
    let shape = "s32[2048,1,128,128,4]{4,3,2,0,1:T(8,128)}";
    let doc = json_doc(&["padding", "--json", shape], b"", 0);
    let s = &doc["shapes"][0];
    assert_eq!(s["shape"], shape);
    assert_eq!(s["unpadded"], 512i64 << 20);
    assert_eq!(s["padded"], 16i64 << 30);
    assert_eq!(s["expansion"], 32.0);
    assert!(s.get("listed").is_none() && s.get("check").is_none());
    let cause = &s["causes"][0];
    assert_eq!(cause["kind"], "rounding");
    assert_eq!(cause["part"], "dimension");
    assert_eq!(cause["dimensions"], serde_json::json!([4]));
    assert_eq!(
        (&cause["size"], &cause["rounded"]),
        (&4.into(), &128.into())
    );
    assert_eq!(cause["tile"], "(8,128)");
    let best = &s["suggestions"][0];
    assert_eq!(best["change"], "order");
    assert_eq!(best["minor_to_major"], serde_json::json!([3, 2, 4, 0, 1]));
    assert_eq!(
        best["transposed"],
        "s32[1,2048,4,128,128]{4,3,2,1,0:T(8,128)}"
    );
    // With the two dimensions of 128 innermost nothing pads.
    assert_eq!(best["padded"], 512i64 << 20);
    // The same through standard input, `-` and a file.
    let stdin = json_doc(&["padding", "--json"], shape.as_bytes(), 0);
    assert_eq!(stdin, doc);
    let dash = json_doc(&["padding", "--json", "-"], shape.as_bytes(), 0);
    assert_eq!(dash, doc);
    let text = ok(&["padding", shape], b"");
    assert!(text.starts_with(&format!("{shape}\n")), "{text}");
    for line in [
        "  unpadded         536_870_912 B (512.0 MiB)",
        "  padded         17_179_869_184 B (16.0 GiB)",
        "    dimension 4 of 4 rounded up to 128 by tile (8,128): 32.0x",
        "    minor_to_major {3,2,4,0,1} (the array transposed: s32[1,2048,4,128,128]{4,3,2,1,0:T(8,128)}): 536_870_912 B (512.0 MiB), 1.0x",
    ] {
        assert!(text.lines().any(|l| l == line), "{line:?} in\n{text}");
    }
}

#[test]
fn a_listing_reads_from_a_file_and_standard_input_alike() {
    let log = std::fs::read(data("google-research_t5x_870.txt")).unwrap();
    let path = format!("@{}", data("google-research_t5x_870.txt"));
    let from_file = json_doc(&["padding", "--json", &path], b"", 0);
    let from_stdin = json_doc(&["padding", "--json", "-"], &log, 0);
    assert_eq!(from_file, from_stdin);
    let text = ok(&["padding", &path], b"");
    assert_eq!(text.matches(": the same").count(), 3, "{text}");
}

#[test]
fn a_shape_that_cannot_be_explained_is_reported_in_its_place() {
    // A listing whose second shape the log cut short: the first is
    // explained, the second is an error, exit 1.
    let log = "Largest program allocations in hbm:\n\
               1. Size: 96B\n   Shape: f32[3,5]{1,0:T(2,2)}\n   ==========\n\
               2. Size: 1.00G\n   Shape: f32[3,5]{1,0:T(2,2...\n   ==========\n";
    let doc = json_doc(&["padding", "--json", "-"], log.as_bytes(), 1);
    let shapes = doc["shapes"].as_array().unwrap();
    assert_eq!(shapes.len(), 2);
    // f32[3,5] under (2,2): 4x6 slots of 4 bytes.
    assert_eq!(
        (&shapes[0]["padded"], &shapes[0]["unpadded"]),
        (&96.into(), &60.into())
    );
    let error = &shapes[1]["error"];
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("cut the shape short"),
        "{error}"
    );
    let out = run(&["padding", "-"], log.as_bytes());
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("  error: "), "{text}");
}

#[test]
fn bad_input_is_an_error() {
    let e = fails(&["padding", "hello"], b"", 1);
    assert!(e.starts_with("xla-shape: "), "{e}");
    let e = fails(&["padding", "-"], b"one line\nand another\n", 1);
    assert!(e.contains("neither a shape nor a log"), "{e}");
    let doc: Value = json_doc(&["padding", "--json", "f32[2,"], b"", 1);
    assert_eq!(doc["error"]["kind"], "Parse");
    let e = fails(&["padding", "-"], b"", 1);
    assert!(e.contains("no input"), "{e}");
    let e = fails(&["padding", "--tiles", "(8,x)", "f32[2]"], b"", 2);
    assert!(e.contains("--tiles (8,x)"), "{e}");
    let e = fails(&["padding", "-"], b"\xff\xfe", 1);
    assert!(e.contains("UTF-8"), "{e}");
}
