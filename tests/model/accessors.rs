//! `rank()` and `dimensions()` of `Shape`: jaxlib's facts for arrays,
//! `None` where jaxlib aborts.

use crate::common::*;
use xla_shape::Shape;

/// jaxlib aborts the process on `rank()` / `dimensions()` of a non-array
/// (`tests/data/oracle/model_non_array.jsonl`); here both are `None`.
#[test]
fn rank_and_dimensions_of_a_non_array_are_none() {
    let lines = records("oracle/model_non_array.jsonl");
    assert!(!lines.is_empty());
    for r in &lines {
        assert_eq!(str_field(r, "status"), "abort");
        assert!(str_field(r, "message").starts_with("Check failed"));
        let shape: Shape = str_field(r, "shape").parse().unwrap();
        match str_field(r, "method") {
            "rank" => assert_eq!(shape.rank(), None, "{shape}"),
            "dimensions" => assert_eq!(shape.dimensions(), None, "{shape}"),
            m => panic!("unexpected method {m}"),
        }
    }
}

/// Every golden array's `rank()` and `dimensions()` are jaxlib's; every
/// golden tuple and token gives `None`.
#[test]
fn rank_and_dimensions_agree_with_jaxlib_facts() {
    let mut arrays = 0;
    let mut others = 0;
    for r in records("shapes.jsonl") {
        if r["status"] != "ok" {
            continue;
        }
        // A few printed forms XLA itself does not parse back (`{0:T()}`).
        let Ok(shape) = str_field(&r, "xla_str").parse::<Shape>() else {
            continue;
        };
        let f = &r["facts"];
        if f["is_tuple"] == true || f["is_token"] == true {
            assert_eq!((shape.rank(), shape.dimensions()), (None, None), "{shape}");
            others += 1;
        } else if shape.is_array() {
            let dims: Vec<i64> = serde_json::from_value(f["dimensions"].clone()).unwrap();
            assert_eq!(shape.rank(), f["rank"].as_u64().map(|n| n as usize));
            assert_eq!(shape.dimensions(), Some(&dims[..]), "{shape}");
            arrays += 1;
        }
    }
    assert!(
        arrays > 100 && others > 10,
        "{arrays} arrays, {others} others"
    );
}
