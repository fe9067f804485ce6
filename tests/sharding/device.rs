//! What each device holds, and whether a sharding fits a shape, against
//! jaxlib 0.10.2 (`tests/data/oracle/sharding_device.jsonl`, written by
//! `tests/data/oracle/sharding_device_gen.py`): XLA's `TileShape`, jax's
//! `devices_indices_map` where jax answers, XLA's `Validate` as compiling a
//! module reports it.

use serde_json::Value;
use xla_shape::Shape;
use xla_shape::sharding::HloSharding;

use crate::common::records;
use crate::oracle::each_record;

fn check_record(r: &Value) {
    let s: HloSharding = r["sharding"].as_str().unwrap().parse().unwrap();
    let shape: Shape = r["shape"].as_str().unwrap().parse().unwrap();
    let n = r["num_devices"].as_i64().unwrap();
    let what = format!("{} {s} {shape} over {n}", r["case"].as_str().unwrap());
    if let Some(tile) = r.get("tile").and_then(|t| t.get("tile")) {
        match s.tile_shape(&shape) {
            Ok(ours) => assert_eq!(ours.to_string(), tile.as_str().unwrap(), "{what}: tile"),
            // XLA writes past the shape's dimensions when the shape has
            // fewer than the sharding tiles; we refuse.
            Err(_) if shape.rank() < s.tiled_data_rank() => {}
            Err(e) => panic!("{what}: tile: {e}"),
        }
    }
    if let Some(indices) = r.get("indices").and_then(|i| i.get("indices")) {
        let dims = shape.dimensions().unwrap();
        let ours = s
            .devices_indices_map(dims, n)
            .unwrap_or_else(|e| panic!("{what}: indices: {e}"));
        let jax = indices.as_array().unwrap();
        assert_eq!(ours.len(), jax.len(), "{what}: one slice per device");
        for (slice, want) in ours.iter().zip(jax) {
            for (k, w) in want.as_array().unwrap().iter().enumerate() {
                let start = w[0].as_i64().unwrap_or(0);
                let stop = w[1].as_i64().unwrap_or(dims[k]);
                assert_eq!(
                    (slice.offsets[k], slice.limits[k]),
                    (start, stop),
                    "{what}: device {} dimension {k}",
                    slice.device
                );
            }
            // Each slice's part of the array is what XLA's `TileShape` for
            // that device gives, found one device at a time.
            if let (Some(array), Ok(tile)) = (
                shape.as_array(),
                s.tile_shape_for_device(&shape, slice.device),
            ) {
                assert_eq!(slice.part_of(array).unwrap(), tile, "{what}: part");
            }
        }
    }
    // Compiling reads the sharding from its OpSharding, so XLA validates
    // what `FromProto` makes of it (`{devices=[1]<=[1]}` is `{replicated}`).
    let s = HloSharding::from_proto_bytes(&s.to_proto_bytes()).unwrap();
    let v = &r["validate"];
    if v.get("valid").is_some() {
        s.validate(&shape, Some(n))
            .unwrap_or_else(|e| panic!("{what}: XLA accepts it: {e}"));
    } else if let Some(m) = v.get("message").and_then(Value::as_str) {
        let count = (v["mode"] == "count").then_some(n);
        let e = s.validate(&shape, count).expect_err(&what);
        assert_eq!(e.message(), m, "{what}");
    }
}

#[test]
fn devices_and_validation_agree_with_xla() {
    let records = records("oracle/sharding_device.jsonl");
    assert!(each_record(&records, check_record) > 800);
}

/// XLA's `PassesValidationAndMatchesTileInfo` (hlo_sharding_test.cc): the
/// offsets and limits it expects for `{devices=[2,2]0,3,2,1}` over
/// `u32[4,5]` (tiles of 2x3, the last column cut at 5), and the same of the
/// named form over a mesh with that device order.
#[test]
fn upstream_tile_offsets_and_limits() {
    let shape: Shape = "u32[4,5]".parse().unwrap();
    for text in [
        "{devices=[2,2]0,3,2,1}",
        "{mesh['x'=2,'y'=2], device_ids=(0,3,2,1), [{'x'}, {'y'}]}",
    ] {
        let s: HloSharding = text.parse().unwrap();
        let expect = [
            (0, [0, 0], [2, 3]),
            (3, [0, 3], [2, 5]),
            (2, [2, 0], [4, 3]),
            (1, [2, 3], [4, 5]),
        ];
        for (device, offset, limit) in expect {
            assert_eq!(
                s.tile_offset_for_device(&shape, device).unwrap(),
                offset,
                "{text}"
            );
            assert_eq!(
                s.tile_limit_for_device(&shape, device).unwrap(),
                limit,
                "{text}"
            );
        }
        assert_eq!(s.unique_device(), None);
    }
}

/// Uneven splits, which jax refuses: `{devices=[3]<=[3]}` over `f32[10]`
/// gives tiles of ceil(10 / 3) = 4, so devices 0, 1, 2 hold 0..4, 4..8 and
/// 8..10 (the last cut at the end); over `f32[2]`, device 2 holds nothing
/// (2..2), as XLA's `TileOffsetForDevice` / `TileLimitForDevice` clip.
#[test]
fn uneven_splits_are_cut_at_the_end() {
    let s: HloSharding = "{devices=[3]<=[3]}".parse().unwrap();
    let slices = s.device_slices(&[10]).unwrap();
    let got: Vec<(i64, i64)> = slices.iter().map(|d| (d.offsets[0], d.limits[0])).collect();
    assert_eq!(got, [(0, 4), (4, 8), (8, 10)]);
    let slices = s.device_slices(&[2]).unwrap();
    let got: Vec<(i64, i64)> = slices.iter().map(|d| (d.offsets[0], d.limits[0])).collect();
    assert_eq!(got, [(0, 1), (1, 2), (2, 2)]);
    // Every device's buffer is the rounded-up tile: 4 f32 = 16 bytes.
    assert_eq!(s.shard_byte_size(&"f32[10]".parse().unwrap()).unwrap(), 16);
}

/// jax's sharding classes (`tests/data/oracle/sharding_jax.jsonl`, written
/// by `tests/data/oracle/sharding_jax_gen.py`): `get_num_ways_dim_sharded`
/// and `GSPMDSharding.shard_shape`, with jax's `IndivisibleError` message
/// after the sharding's own repr (`Sharding GSPMDSharding(...)` in jax).
fn check_jax_record(r: &Value) {
    let a = &r["answer"];
    if a.get("abort").is_some() {
        return;
    }
    let s: HloSharding = r["sharding"].as_str().unwrap().parse().unwrap();
    let dims: Vec<i64> = serde_json::from_value(r["dims"].clone()).unwrap();
    let what = format!("{s} over {dims:?}");
    let ways = s.num_ways_dim_sharded();
    match a.get("num_ways") {
        Some(w) => {
            let (partitions, replicas) = ways.unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(
                (serde_json::json!(partitions), serde_json::json!(replicas)),
                (w[0].clone(), w[1].clone()),
                "{what}: num_ways"
            );
        }
        None => assert!(
            ways.is_err(),
            "{what}: jax refuses: {}",
            a["num_ways_error"]
        ),
    }
    let shard = s.shard_shape(&dims);
    match (a.get("shard_shape"), a["shard_shape_error"].as_str()) {
        (Some(want), _) => {
            let ours = shard.unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(serde_json::json!(ours), *want, "{what}: shard_shape");
        }
        (None, Some(m)) => {
            let e = shard.expect_err(&format!("{what}: jax refuses: {m}"));
            if let Some(at) = m.find("implies that") {
                assert!(
                    e.message().ends_with(&m[at..]),
                    "{what}: ours {:?}, jax's {m:?}",
                    e.message()
                );
            }
        }
        (None, None) => panic!("{what}: no answer"),
    }
    // Where jax's split is even but its indices fail (a device listed
    // twice leaves a hole; a device count that is not the sharding's), so
    // does `devices_indices_map`.
    if let Some(m) = a["indices_error"].as_str()
        && a.get("shard_shape").is_some()
        && ["TypeError", "IndexError", "AssertionError"]
            .iter()
            .any(|k| m.starts_with(k))
    {
        let n = r["num_devices"].as_i64().unwrap();
        assert!(
            s.devices_indices_map(&dims, n).is_err(),
            "{what}: jax fails: {m}"
        );
    }
}

#[test]
fn shard_shapes_and_splits_agree_with_jax() {
    let records: Vec<Value> = records("oracle/sharding_jax.jsonl")
        .into_iter()
        .filter(|r| r.get("dims").is_some())
        .collect();
    assert!(each_record(&records, check_jax_record) > 1000);
}
