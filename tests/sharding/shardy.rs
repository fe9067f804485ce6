//! Shardy to `HloSharding` against XLA's Shardy export in jaxlib 0.10.2
//! (`tests/data/oracle/sharding_shardy.jsonl`, written by
//! `tests/data/oracle/sharding_shardy_gen.py`), and back.

use serde_json::Value;
use xla_shape::sharding::shardy::{self, ShardySharding};

use crate::common::records;
use crate::oracle::each_record;

/// Shardy's verifier message in MLIR's diagnostic: what follows
/// `op arg 0 - ` on its first line.
fn verifier_message(m: &str) -> &str {
    let first = m.lines().next().unwrap_or(m);
    first.split_once(" - ").map_or(first, |(_, rest)| rest)
}

fn check_record(r: &Value) {
    let a = &r["answer"];
    let (mesh_text, sharding_text, rank, hlo) = if r["kind"] == "export" {
        let shape = r["shape"].as_str().unwrap();
        let rank = if shape.is_empty() {
            0
        } else {
            shape.split('x').count()
        };
        (
            r["mesh"].as_str().unwrap().to_owned(),
            r["sharding"].as_str().unwrap().to_owned(),
            rank,
            // XLA writes no sharding for a mesh of one device: replicated.
            a.get("hlo")
                .map(|h| h[0].as_str().unwrap_or("{replicated}").to_owned()),
        )
    } else {
        (
            a["mesh"].as_str().unwrap().to_owned(),
            a["sharding"].as_str().unwrap().to_owned(),
            r["shape"].as_array().unwrap().len(),
            Some(a["hlo"].as_str().unwrap().to_owned()),
        )
    };
    let what = format!("{mesh_text} {sharding_text}");
    let (_, mesh) = shardy::parse_mesh(&mesh_text).unwrap_or_else(|e| panic!("{what}: mesh: {e}"));
    let s: ShardySharding = sharding_text
        .parse()
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    // Printed back, the sharding reads the same.
    assert_eq!(
        s.to_string().parse::<ShardySharding>().unwrap(),
        s,
        "{what}: round trip"
    );
    let ours = s
        .verify(&mesh, Some(rank))
        .and_then(|()| s.to_hlo_sharding(&mesh));
    match hlo {
        Some(h) => {
            let ours = ours.unwrap_or_else(|e| panic!("{what}: XLA converts it, we fail: {e}"));
            assert_eq!(ours.to_string(), h, "{what}");
            // Back over the same mesh: a Shardy sharding XLA converts to
            // the same HloSharding, when whole axes can say it.
            if let Ok(back) = shardy::from_hlo_sharding(&ours, &mesh, "mesh") {
                assert_eq!(
                    back.to_hlo_sharding(&mesh).unwrap(),
                    ours,
                    "{what}: back {back}"
                );
            }
        }
        None => {
            let e = ours.expect_err(&format!("{what}: XLA refuses it"));
            let m = verifier_message(a["error"].as_str().unwrap());
            assert_eq!(e.message(), m, "{what}");
        }
    }
}

#[test]
fn shardy_export_agrees_with_xla() {
    let records = records("oracle/sharding_shardy.jsonl");
    assert!(each_record(&records, check_record) > 500);
}

/// jax's `NamedSharding(mesh, P('x', None))` over a 2x4 mesh, as lowered
/// (see sharding_shardy.jsonl): `from_hlo_sharding` finds the sharding
/// JAX wrote from the HloSharding XLA made of it.
#[test]
fn back_to_what_jax_wrote() {
    let (_, mesh) = shardy::parse_mesh(r#"<["x"=2, "y"=4]>"#).unwrap();
    for (sdy, hlo) in [
        (
            r#"#sdy.sharding<@mesh, [{"x"}, {}]>"#,
            "{devices=[2,1,4]<=[8] last_tile_dim_replicate}",
        ),
        (
            r#"#sdy.sharding<@mesh, [{}, {"y"}]>"#,
            "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}",
        ),
        (
            r#"#sdy.sharding<@mesh, [{"y", "x"}]>"#,
            "{devices=[8]<=[2,4]T(1,0)}",
        ),
    ] {
        let h = hlo.parse().unwrap();
        assert_eq!(
            shardy::from_hlo_sharding(&h, &mesh, "mesh")
                .unwrap()
                .to_string(),
            sdy
        );
    }
}
