//! jaxlib's `HloSharding` constructors (`iota_tile`,
//! `subgroup_with_device_ordering`, `tuple_sharding`) against jaxlib 0.10.2
//! (the `construct` records of `tests/data/oracle/sharding_jax.jsonl`,
//! written by `tests/data/oracle/sharding_jax_gen.py`): the sharding each
//! makes (XLA's text and `OpSharding` bytes), XLA's message, or an error
//! where XLA aborts.

use serde_json::Value;
use xla_shape::Shape;
use xla_shape::sharding::{HloSharding, OpShardingType, TileAssignment};

use crate::common::records;
use crate::oracle::{each_record, hex, xla_message};

fn ints(v: &Value) -> Vec<i64> {
    serde_json::from_value(v.clone()).unwrap()
}

fn types(v: &Value) -> Vec<OpShardingType> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|t| OpShardingType::from_str_name(t.as_str().unwrap()).unwrap())
        .collect()
}

fn check_record(r: &Value) {
    let args = &r["args"];
    let what = format!("{} {args}", r["construct"]);
    let ours = match r["construct"].as_str().unwrap() {
        "iota_tile" => HloSharding::iota_tile_with(
            &ints(&args[0]),
            &ints(&args[1]),
            &ints(&args[2]),
            &types(&args[3]),
        ),
        "subgroup_with_device_ordering" => {
            let ta = TileAssignment::from_devices(&ints(&args[0]), ints(&args[1])).unwrap();
            HloSharding::subgroup(ta, &types(&args[2]))
        }
        _ => {
            let shape: Shape = args[0].as_str().unwrap().parse().unwrap();
            let elements = args[1]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| e.as_str().unwrap().parse().unwrap())
                .collect();
            HloSharding::tuple_for(&shape, elements)
        }
    };
    let a = &r["answer"];
    if let Some(printed) = a.get("printed") {
        let s = ours.unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(s.to_string(), printed.as_str().unwrap(), "{what}");
        assert_eq!(
            hex(&s.to_proto_bytes()),
            a["proto"].as_str().unwrap(),
            "{what}"
        );
    } else if let Some(m) = xla_message(a) {
        let e = ours.expect_err(&what);
        assert_eq!(e.message(), m, "{what}");
    } else {
        let abort = a["abort"].as_str().unwrap();
        let e = ours.expect_err(&format!("{what}: XLA aborts: {abort}"));
        // `Check failed: ... (1 vs. 2) Flat list has 1, required 2`.
        if let Some(at) = abort.find("Flat list") {
            assert_eq!(e.message(), &abort[at..], "{what}");
        }
    }
}

#[test]
fn constructors_agree_with_jaxlib() {
    let records: Vec<Value> = records("oracle/sharding_jax.jsonl")
        .into_iter()
        .filter(|r| r.get("construct").is_some())
        .collect();
    assert!(each_record(&records, check_record) >= 300);
}
