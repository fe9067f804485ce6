//! `xla-shape sharding` and `draw --sharding` against XLA's answers
//! (jaxlib 0.10.2, `tests/data/oracle/sharding_*.jsonl`): the text, bytes
//! and kind of a sharding as XLA gives them, each device's index ranges as
//! jax's `devices_indices_map` gives them, Shardy as XLA's export converts
//! it, XLA's messages for bad input.

#[path = "../../tests/common/mod.rs"]
mod common;
mod support;

use common::records;
use serde_json::Value;
use support::*;
use xla_shape::Shape;
use xla_shape::sharding::HloSharding;

/// The status code Python prints before XLA's message.
fn message(error: &str) -> &str {
    error.strip_prefix("INVALID_ARGUMENT: ").unwrap_or(error)
}

/// Every `step`-th record of `name` that `keep` accepts.
fn sample(name: &str, step: usize, keep: impl Fn(&Value) -> bool) -> Vec<Value> {
    records(name)
        .into_iter()
        .filter(|r| keep(r))
        .step_by(step)
        .collect()
}

#[test]
fn json_gives_xlas_text_bytes_and_kind() {
    let cases = sample("oracle/sharding_text.jsonl", 23, |r| {
        r["answer"].get("printed").is_some()
    });
    assert!(cases.len() >= 40, "{}", cases.len());
    for r in &cases {
        let input = r["input"].as_str().unwrap();
        let a = &r["answer"];
        let doc = json_doc(&["sharding", "--json", input], b"", 0);
        assert_eq!(doc["sharding"], a["printed"], "{input}");
        assert_eq!(doc["proto_hex"], a["proto"], "{input}");
        for (key, xla) in [
            ("replicated", "is_replicated"),
            ("maximal", "is_maximal"),
            ("manual", "is_manual"),
            ("tiled", "is_tiled"),
        ] {
            assert_eq!(doc[key], a[xla], "{input}: {key}");
        }
        // The oracle lists a tuple's elements; jaxlib aborts with
        // `Check failed: !IsTuple()` on the attributes of any tuple, the
        // empty one included.
        let tuple = !a["tuple"].is_null()
            || a["attrs"]["abort"]
                .as_str()
                .is_some_and(|m| m.contains("!IsTuple()"));
        assert_eq!(doc["tuple"], tuple, "{input}");
        // (jaxlib also aborts on the attributes of the named form, whose
        // device count the library gives: docs/differences.md.)
        match a["attrs"].get("num_devices") {
            Some(n) => assert_eq!(&doc["num_devices"], n, "{input}"),
            None if tuple => assert!(doc["num_devices"].is_null(), "{input}"),
            None => {}
        }
        assert!(doc.get("devices").is_none());
    }
}

#[test]
fn bad_text_exits_1_with_xlas_message() {
    let cases = sample("oracle/sharding_text.jsonl", 7, |r| {
        r["answer"].get("error").is_some()
    });
    assert!(cases.len() >= 20, "{}", cases.len());
    for r in &cases {
        let input = r["input"].as_str().unwrap();
        if input.trim().is_empty() {
            // The tool's own error, "no input".
            continue;
        }
        let xla = message(r["answer"]["error"].as_str().unwrap());
        let err = fails(&["sharding", input], b"", 1);
        // XLA's first line (for parse errors `Syntax error:` and its first
        // `was parsing L:C: error: ...`, whose column the crate counts
        // from 1: docs/differences.md).
        let first = xla
            .lines()
            .find(|l| !l.starts_with("Syntax error"))
            .unwrap_or(xla.lines().next().unwrap_or(""));
        let first = first.split_once(": error: ").map_or(first, |(_, m)| m);
        assert!(err.contains(first), "{input}: {err} lacks {first}");
        let doc = json_doc(&["sharding", "--json", input], b"", 1);
        assert!(doc["error"]["message"].as_str().unwrap().contains(first));
    }
}

#[test]
fn opsharding_bytes_in_every_format() {
    // Hex from XLA's `to_proto().SerializeToString()`.
    // Bytes Google's protobuf runtime reads (those it refuses the library
    // refuses too: tests/sharding/proto.rs).
    let cases = sample("oracle/sharding_proto.jsonl", 31, |r| {
        r["answer"].get("printed").is_some() && r["malformed"] == false
    });
    assert!(cases.len() >= 20, "{}", cases.len());
    for r in &cases {
        let hex = r["hex"].as_str().unwrap();
        let doc = json_doc(&["sharding", "--json", "--from", "hex", hex], b"", 0);
        assert_eq!(doc["sharding"], r["answer"]["printed"], "{hex}");
        assert_eq!(doc["proto_hex"], r["answer"]["proto"], "{hex}");
        // The same bytes as a file.
        let bytes = common::hex(hex);
        let pb = ok(&["sharding", "--json", "--from", "pb", "-"], &bytes);
        assert_eq!(serde_json::from_str::<Value>(&pb).unwrap(), doc, "{hex}");
    }
    // `{devices=[2,1]0,1}` as ToProto writes it: type OTHER (3),
    // tile_assignment_dimensions [2, 1], tile_assignment_devices [0, 1]
    // (xla_data.proto, OpSharding), in proto3 JSON and in text format.
    let expected = json_doc(&["sharding", "--json", "{devices=[2,1]0,1}"], b"", 0);
    let json = r#"{"type": "OTHER", "tileAssignmentDimensions": ["2", "1"], "tileAssignmentDevices": ["0", "1"]}"#;
    let pbtxt = "type: OTHER tile_assignment_dimensions: [2, 1] tile_assignment_devices: [0, 1]";
    for (from, input) in [("json", json), ("pbtxt", pbtxt)] {
        let doc = json_doc(&["sharding", "--json", "--from", from, input], b"", 0);
        assert_eq!(doc, expected, "{from}");
    }
    // Bytes FromProto refuses.
    let bad = sample("oracle/sharding_proto.jsonl", 5, |r| {
        r["answer"].get("error").is_some() && r["malformed"] == false
    });
    assert!(!bad.is_empty());
    for r in &bad {
        let hex = r["hex"].as_str().unwrap();
        let xla = r["answer"]["error"].as_str().unwrap();
        let err = fails(&["sharding", "--from", "hex", hex], b"", 1);
        let ours = err.trim_end().strip_prefix("xla-shape: ").unwrap();
        // A `RET_CHECK failure (file:line) condition [text]`: the
        // condition, or the text XLA gives after it (as
        // tests/sharding/proto.rs compares them).
        match xla.strip_prefix("INTERNAL: RET_CHECK failure (") {
            Some(rest) => {
                let tail = rest.split_once(") ").unwrap().1.trim_end();
                assert!(
                    tail.ends_with(ours) || ours.contains(tail),
                    "{hex}: {ours} / {xla}"
                );
            }
            None => assert!(
                err.contains(message(xla).lines().next().unwrap()),
                "{hex}: {err}"
            ),
        }
    }
}

#[test]
fn mhlo_sharding_values_are_read_unquoted() {
    let plain = json_doc(
        &[
            "sharding",
            "--json",
            "{devices=[2,1,2]<=[4] last_tile_dim_replicate}",
        ],
        b"",
        0,
    );
    for quoted in [
        r#""{devices=[2,1,2]<=[4] last_tile_dim_replicate}""#,
        r#"mhlo.sharding = "{devices=[2,1,2]<=[4] last_tile_dim_replicate}""#,
    ] {
        assert_eq!(json_doc(&["sharding", "--json", quoted], b"", 0), plain);
    }
}

/// jax's index of one dimension, `[start, stop, step]` with `null` for the
/// whole dimension, as `[start, stop]`.
fn jax_range(slice: &Value, size: i64) -> [i64; 2] {
    let start = slice[0].as_i64().unwrap_or(0);
    let stop = slice[1].as_i64().unwrap_or(size);
    [start, stop.min(size)]
}

#[test]
fn devices_are_jaxs_index_ranges_and_xlas_shard_shapes() {
    // Tiled shardings whose every device jax indexes (jax refuses uneven
    // splits); devices are 0..n there, so jax's list is in device order.
    let cases = sample("oracle/sharding_device.jsonl", 9, |r| {
        r["indices"]["indices"]
            .as_array()
            .is_some_and(|l| !l.is_empty() && l[0][0][0].is_i64() || l.len() > 1)
            && !r["sharding"].as_str().unwrap().contains("maximal")
            && !r["sharding"].as_str().unwrap().contains("replicated}")
    });
    assert!(cases.len() >= 20, "{}", cases.len());
    for r in &cases {
        let s = r["sharding"].as_str().unwrap();
        let shape_text = r["shape"].as_str().unwrap();
        let shape: Shape = shape_text.parse().unwrap();
        let dims = shape.as_array().unwrap().dimensions().to_vec();
        let jax = r["indices"]["indices"].as_array().unwrap();
        let doc = json_doc(&["sharding", "--json", "--shape", shape_text, s], b"", 0);
        let devices = doc["devices"].as_array().unwrap();
        let sharding: HloSharding = s.parse().unwrap();
        let ids = sharding.tile_assignment_devices().unwrap();
        let mut sorted = ids.clone();
        sorted.sort_unstable();
        assert_eq!(
            devices
                .iter()
                .map(|d| d["device"].as_i64().unwrap())
                .collect::<Vec<_>>(),
            sorted,
            "{s}: ascending device ids"
        );
        for d in devices {
            let id = d["device"].as_i64().unwrap() as usize;
            let expected: Vec<[i64; 2]> = jax[id]
                .as_array()
                .unwrap()
                .iter()
                .zip(&dims)
                .map(|(slice, &size)| jax_range(slice, size))
                .collect();
            let index: Vec<[i64; 2]> = serde_json::from_value(d["index"].clone()).unwrap();
            assert_eq!(index, expected, "{s} on {shape_text}: device {id}");
            // The shard's shape: the array's element type, each dimension
            // the length of the device's range; even splits are XLA's
            // TileShape.
            let part: Shape = d["shape"].as_str().unwrap().parse().unwrap();
            let part = part.as_array().unwrap();
            assert_eq!(
                part.element_type(),
                shape.as_array().unwrap().element_type()
            );
            let lengths: Vec<i64> = expected.iter().map(|[a, b]| b - a).collect();
            assert_eq!(part.dimensions(), lengths, "{s}: device {id}");
            if let Some(tile) = r["tile"].get("tile") {
                assert_eq!(d["shape"], *tile, "{s}: TileShape");
            }
        }
    }
}

#[test]
fn replicated_shardings_list_the_meshs_devices() {
    let doc = json_doc(
        &[
            "sharding",
            "--json",
            "--shape",
            "f32[8]",
            "--mesh",
            r#"<["x"=4]>"#,
            "{replicated}",
        ],
        b"",
        0,
    );
    let devices = doc["devices"].as_array().unwrap();
    assert_eq!(devices.len(), 4);
    for (i, d) in devices.iter().enumerate() {
        assert_eq!(d["device"], i as i64);
        assert_eq!(d["index"], serde_json::json!([[0, 8]]));
        assert_eq!(d["shape"], "f32[8]{0}");
    }
}

#[test]
fn shardy_shardings_convert_as_xlas_export() {
    let cases = sample("oracle/sharding_shardy.jsonl", 5, |r| r["kind"] == "export");
    assert!(cases.len() >= 20, "{}", cases.len());
    for r in &cases {
        let mesh = r["mesh"].as_str().unwrap();
        let s = r["sharding"].as_str().unwrap();
        let hlo = &r["answer"]["hlo"];
        let out = run(&["sharding", "--json", "--mesh", mesh, s], b"");
        if r["answer"].get("error").is_some() {
            assert_eq!(out.status.code(), Some(1), "{mesh} {s}: Shardy refuses it");
        } else if let Some(hlo) = hlo[0].as_str() {
            // (`null`: XLA writes no sharding for a mesh of one device.)
            assert!(
                out.status.success(),
                "{mesh} {s}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(doc["sharding"], hlo, "{mesh} {s}");
        }
    }
    // jax's own modules: the mesh line, then the sharding, in one input.
    for r in sample("oracle/sharding_shardy.jsonl", 3, |r| r["kind"] == "jax") {
        let a = &r["answer"];
        // XLA writes no sharding for a mesh of one device
        // (docs/differences.md); the library reads `{replicated}`.
        if a["hlo"].is_null() {
            continue;
        }
        let input = format!(
            "{}\n{}",
            a["mesh"].as_str().unwrap(),
            a["sharding"].as_str().unwrap()
        );
        let doc = json_doc(
            &["sharding", "--json", "--from", "shardy", "-"],
            input.as_bytes(),
            0,
        );
        assert_eq!(doc["sharding"], a["hlo"], "{input}");
    }
    // Shardy's verifier on a bad axis; no mesh at all.
    let err = fails(
        &[
            "sharding",
            "--mesh",
            r#"<["x"=2]>"#,
            r#"#sdy.sharding<@mesh, [{"z"}]>"#,
        ],
        b"",
        1,
    );
    assert!(err.contains("unknown axis name: \"z\""), "{err}");
    let err = fails(&["sharding", r#"#sdy.sharding<@mesh, [{"x"}]>"#], b"", 1);
    assert!(err.contains("--mesh"), "{err}");
}

#[test]
fn shapes_the_sharding_does_not_fit_exit_1_with_xlas_validation() {
    let cases = sample("oracle/sharding_device.jsonl", 1, |r| {
        r["validate"]["mode"] == "no_count"
    });
    assert!(!cases.is_empty());
    for r in &cases {
        let s = r["sharding"].as_str().unwrap();
        let shape = r["shape"].as_str().unwrap();
        let xla = r["validate"]["message"].as_str().unwrap();
        let err = fails(&["sharding", "--shape", shape, s], b"", 1);
        assert!(
            err.contains(xla.lines().next().unwrap()),
            "{s} {shape}: {err}"
        );
    }
    let err = fails(
        &[
            "sharding",
            "--shape",
            "(f32[2], f32[3])",
            "{{replicated}, {replicated}}",
        ],
        b"",
        1,
    );
    assert!(err.contains("tuple"), "{err}");
}

/// The blocks of a `draw --sharding` picture: rows, columns, devices.
fn blocks(svg: &str) -> Vec<(String, String, String)> {
    let doc = roxmltree::Document::parse(svg).expect("the SVG is well-formed XML");
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    doc.descendants()
        .filter(|n| n.attribute("class") == Some("block"))
        .map(|n| {
            let a = |k| n.attribute(k).unwrap().to_string();
            (a("data-rows"), a("data-cols"), a("data-devices"))
        })
        .collect()
}

#[test]
fn draw_sharding_reads_every_form_sharding_reads() {
    // The same sharding as XLA's text, an mhlo.sharding attribute, its
    // OpSharding bytes as hex (as `sharding --json` gives them) and a
    // Shardy sharding after its mesh line draw the same picture.
    let text = "{devices=[2,2]<=[4]}";
    let proto_hex = json_doc(&["sharding", "--json", text], b"", 0)["proto_hex"]
        .as_str()
        .unwrap()
        .to_string();
    let picture = |sharding: &str| ok(&["draw", "--sharding", sharding, "f32[8,6]"], b"");
    let expected = picture(text);
    for form in [
        format!("mhlo.sharding = \"{text}\""),
        proto_hex,
        "sdy.mesh @mesh = <[\"x\"=2, \"y\"=2]>\n#sdy.sharding<@mesh, [{\"x\"}, {\"y\"}]>"
            .to_string(),
    ] {
        assert_eq!(picture(&form), expected, "{form}");
    }
}

#[test]
fn draw_sharding_gives_each_block_its_devices() {
    let svg = ok(
        &[
            "draw",
            "--sharding",
            "{devices=[3,2,2]<=[2,6]T(1,0) last_tile_dim_replicate}",
            "f32[10,6]",
        ],
        b"",
    );
    // [2,6]T(1,0): the devices 0..12 as a 2x6 array, transposed to 6x2
    // (row i is i, i+6) and read as 3x2 tiles of 2 replicas each; rows
    // split in 4 (ceil(10/3)), columns in 3.
    let expected = [
        ("0:4", "0:3", "0,6"),
        ("0:4", "3:6", "1,7"),
        ("4:8", "0:3", "2,8"),
        ("4:8", "3:6", "3,9"),
        ("8:10", "0:3", "4,10"),
        ("8:10", "3:6", "5,11"),
    ]
    .map(|(r, c, d)| (r.to_string(), c.to_string(), d.to_string()));
    let mut got = blocks(&svg);
    got.sort();
    assert_eq!(got, expected);
    // Every block of a sharding drawn is a device's slice from the
    // library (checked against jax above).
    for (sharding, shape, slice) in [
        ("{devices=[4]<=[4]}", "f32[5]", None),
        ("{devices=[2,2,2]<=[8]}", "f32[4,5,7]", Some("1,:,:")),
        (
            "{devices=[2,1,4]<=[2,4]T(1,0) last_tile_dim_replicate}",
            "bf16[9,3]",
            None,
        ),
    ] {
        let mut args = vec!["draw", "--sharding", sharding, shape];
        if let Some(slice) = slice {
            args.extend(["--slice", slice]);
        }
        let got = blocks(&ok(&args, b""));
        let s: HloSharding = sharding.parse().unwrap();
        let dims = shape
            .parse::<Shape>()
            .unwrap()
            .as_array()
            .unwrap()
            .dimensions()
            .to_vec();
        for d in s.device_slices(&dims).unwrap() {
            if d.shape().contains(&0) {
                continue;
            }
            let n = dims.len();
            let at = |k: usize| format!("{}:{}", d.offsets[k], d.limits[k]);
            let in_slice = match slice {
                Some(_) => d.offsets[0] <= 1 && 1 < d.limits[0],
                None => true,
            };
            let rows = if n == 1 { "0:1".into() } else { at(n - 2) };
            let holder = got
                .iter()
                .find(|b| b.2.split(',').any(|x| x == d.device.to_string()));
            match holder {
                Some(b) => {
                    assert!(in_slice, "{sharding}: device {} drawn", d.device);
                    assert_eq!(
                        (&b.0, &b.1),
                        (&rows, &at(n - 1)),
                        "{sharding}: {}",
                        d.device
                    );
                }
                None => assert!(!in_slice, "{sharding}: device {} not drawn", d.device),
            }
        }
    }
    // Replicated and maximal shardings are one block.
    let got = blocks(&ok(
        &["draw", "--sharding", "{maximal device=3}", "f32[4,4]"],
        b"",
    ));
    assert_eq!(got.len(), 1);
    // A sharding that does not fit: XLA's validation, exit 1.
    let err = fails(
        &["draw", "--sharding", "{devices=[2,2]<=[4]}", "f32[8]"],
        b"",
        1,
    );
    assert!(
        err.contains("Number of tile assignment dimensions"),
        "{err}"
    );
    let err = fails(
        &["draw", "--sharding", "{devices=[2,2]<=[4]", "f32[8,8]"],
        b"",
        1,
    );
    assert!(err.contains("Syntax error"), "{err}");
}

/// `scan` and `report` of the sharded modules (`tests/data/sharding/sharded_*`,
/// jax's programs over 8 devices): each instruction's sharding as jaxlib
/// reads XLA's attribute (`tests/data/oracle/sharding_modules.jsonl`).
#[test]
fn scan_and_report_show_each_instructions_sharding() {
    let golden = records("oracle/sharding_modules.jsonl");
    for name in [
        "sharded_constraint",
        "sharded_manual",
        "sharded_matmul",
        "sharded_tuple",
    ] {
        let want: std::collections::BTreeMap<&str, &str> = golden
            .iter()
            .filter(|r| r["module"] == name)
            .map(|r| {
                (
                    r["instruction"].as_str().unwrap(),
                    r["printed"].as_str().unwrap(),
                )
            })
            .collect();
        for file in [format!("{name}.txt"), format!("{name}.pb")] {
            let arg = format!("@{}", common::data_path(&format!("sharding/{file}")));
            let mut got = std::collections::BTreeMap::new();
            for r in json_lines(&["scan", "--json", &arg], b"", 0) {
                if let Some(s) = r.get("sharding") {
                    // "result of NAME in COMPUTATION"
                    let owner = r["owner"].as_str().unwrap();
                    let instruction = owner.split(' ').nth(2).unwrap().to_string();
                    got.insert(instruction, s.as_str().unwrap().to_string());
                }
            }
            let got: std::collections::BTreeMap<&str, &str> =
                got.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
            assert_eq!(got, want, "scan {file}");
            let text = ok(&["scan", &arg], b"");
            assert_eq!(
                text.lines().filter(|l| l.contains("\tsharding={")).count(),
                want.len(),
                "{file}"
            );
            let doc = json_doc(&["report", "--json", &arg], b"", 0);
            let mut got = std::collections::BTreeMap::new();
            for row in doc["instructions"].as_array().unwrap() {
                assert!(row["sharding_error"].is_null());
                if let Some(s) = row["sharding"].as_str() {
                    got.insert(row["name"].as_str().unwrap().to_string(), s.to_string());
                }
            }
            let got: std::collections::BTreeMap<&str, &str> =
                got.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
            assert_eq!(got, want, "report {file}");
            let table = ok(&["report", &arg], b"");
            for s in want.values() {
                assert!(table.contains(&format!("      sharding={s}\n")), "{table}");
            }
        }
    }
    // A sharding XLA's parser rejects: its message, and scan exits with 1.
    let module = "HloModule m\n\nENTRY main {\n  ROOT p = f32[4]{0} parameter(0), sharding={devices=[2]0,1,2\n}\n";
    let out = run(&["scan", "-"], module.as_bytes());
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("\tsharding error: "), "{text}");
    let doc = json_doc(&["report", "--json", "-"], module.as_bytes(), 0);
    assert!(
        doc["instructions"][0]["sharding_error"].is_string(),
        "{doc}"
    );
}

/// The `sharding={...}` of XLA's conversion (`programs/NAME.hlo.txt`,
/// `lowered.compiler_ir('hlo')`, jaxlib 0.10.2): the entry's parameters in
/// order, then the root's.
fn converted_shardings(name: &str) -> (Vec<String>, Option<String>) {
    let text = std::fs::read_to_string(common::data_path(&format!(
        "stablehlo/programs/{name}.hlo.txt"
    )))
    .unwrap();
    let module = xla_shape::hlo::HloModule::from_text(&text).unwrap();
    let entry = module.entry().unwrap();
    let mut params: Vec<_> = entry
        .instructions
        .iter()
        .filter(|i| i.opcode == "parameter")
        .collect();
    params.sort_by_key(|i| i.parameter_number);
    let shown = |i: &xla_shape::hlo::HloInstruction| {
        i.sharding.as_ref().map(|s| s.as_ref().unwrap().to_string())
    };
    (
        params.iter().map(|i| shown(i).unwrap()).collect(),
        shown(entry.root().unwrap()),
    )
}

#[test]
fn a_stablehlo_module_gives_each_values_sharding_as_xla_converts_it() {
    for (name, file) in [
        ("sdy_in_out", "stablehlo/programs/sdy_in_out.mlir"),
        (
            "gspmd_in_out",
            "stablehlo/bytecode/programs/gspmd_in_out.mlirbc",
        ),
        (
            "sdy_transpose_out",
            "stablehlo/programs/sdy_transpose_out.debug.mlir",
        ),
    ] {
        let path = format!("@{}", common::data_path(file));
        let doc = json_doc(&["sharding", "--json", &path], b"", 0);
        let (params, root) = converted_shardings(name);
        let ours: Vec<&str> = doc["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["sharding"].as_str().unwrap())
            .collect();
        assert_eq!(ours, params, "{name}");
        let results: Vec<HloSharding> = doc["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["sharding"].as_str().unwrap().parse().unwrap())
            .collect();
        let ours = if results.len() == 1 {
            results[0].to_string()
        } else {
            HloSharding::tuple(results).to_string()
        };
        assert_eq!(Some(ours), root, "{name}");
    }
    let path = format!(
        "@{}",
        common::data_path("stablehlo/programs/sdy_in_out.mlir")
    );
    let text = ok(&["sharding", &path], b"");
    assert_eq!(
        text,
        "parameter 0 (arg0) f32[8,4]{1,0}: {devices=[4,2]<=[8]}\n\
         result 0 (result[0]) f32[8,4]{1,0}: {devices=[1,2,4]<=[4,2]T(1,0) last_tile_dim_replicate}\n\
         result 1 (result[1]) f32[]: {replicated}\n"
    );
    // A value without a sharding.
    let plain = format!(
        "@{}",
        common::data_path("stablehlo/programs/transpose.mlir")
    );
    let doc = json_doc(&["sharding", "--json", &plain], b"", 0);
    assert_eq!(doc["parameters"][0]["sharding"], Value::Null);
    // --shape is for one sharding.
    fails(&["sharding", "--shape", "f32[8,4]", &path], b"", 1);
}

#[test]
fn a_stablehlo_sharding_that_does_not_read_fails_after_the_listing() {
    let module = "module @m {\n  func.func public @main(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@nowhere, [{\"x\"}]>}) -> tensor<8xf32> {\n    return %arg0 : tensor<8xf32>\n  }\n}\n";
    let out = run(&["sharding", module], b"");
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("parameter 0 (arg0) f32[8]{0}: error:"),
        "{stdout}"
    );
    assert!(stdout.contains("@nowhere"), "{stdout}");
}
