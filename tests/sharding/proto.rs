//! `OpSharding` bytes against jaxlib 0.10.2's `HloSharding.from_proto`
//! (`tests/data/oracle/sharding_proto.jsonl`, written by
//! `tests/data/oracle/sharding_proto_gen.py`): what `FromProto` accepts
//! prints and re-encodes as XLA does; its `RET_CHECK`s are errors with
//! XLA's text; bytes Google's runtime refuses are decode errors.

use serde_json::Value;
use xla_shape::ErrorKind;
use xla_shape::sharding::HloSharding;

use crate::common::{hex as unhex, records};
use crate::oracle::{abort_message, check_facts, each_record};

/// `RET_CHECK failure (file:line) condition text`: what follows the
/// location.
fn ret_check_tail(m: &str) -> Option<&str> {
    let rest = m.strip_prefix("INTERNAL: RET_CHECK failure (")?;
    Some(rest.split_once(") ")?.1.trim_end())
}

/// Bytes on which XLA's behaviour is undefined (docs/differences.md,
/// "Sharding"); we reject them.
const UNDEFINED_IN_XLA: &[&str] = &[
    // A mesh whose device_ids iota does not hold its devices.
    "722012180a050a016110020a050a016210031a080a020303120201001a040a001001",
    // An iota transpose with a dimension number out of range: XLA reads
    // past its array.
    "08031a04040204044a0404020404520439030201",
];

/// Bytes we read differently from Google's runtime, on purpose: a known
/// `OpMetadata` field with another wire type is an unknown field there and
/// a decode error here (docs/differences.md, "Sharding": metadata is read
/// by prost).
const METADATA_WIRE_TYPES: &[&str] = &["08032201003a081a04662e707960413a00"];

fn check_record(r: &Value) {
    if UNDEFINED_IN_XLA.contains(&r["hex"].as_str().unwrap()) {
        let e = HloSharding::from_proto_bytes(&unhex(r["hex"].as_str().unwrap()));
        assert!(e.is_err(), "{}: we reject it", r["hex"]);
        return;
    }
    if METADATA_WIRE_TYPES.contains(&r["hex"].as_str().unwrap()) {
        let e = HloSharding::from_proto_bytes(&unhex(r["hex"].as_str().unwrap()));
        assert_eq!(e.unwrap_err().kind(), ErrorKind::Decode);
        return;
    }
    let bytes = unhex(r["hex"].as_str().unwrap());
    let what = format!(
        "{} {}",
        r["case"].as_str().unwrap(),
        r["hex"].as_str().unwrap()
    );
    let ours = HloSharding::from_proto_bytes(&bytes);
    if r["malformed"].as_bool().unwrap() {
        let e = ours.expect_err(&format!("{what}: the bytes are malformed"));
        assert_eq!(e.kind(), ErrorKind::Decode, "{what}: {e}");
        return;
    }
    let a = &r["answer"];
    if a.get("printed").is_some() {
        let s = ours.unwrap_or_else(|e| panic!("{what}: XLA reads it, we fail: {e}"));
        check_facts(&s, a, &what);
        // What we write reads back to what writes the same bytes (XLA drops
        // a shard group of id -1 when it writes, so not always to an equal
        // sharding).
        let bytes = s.to_proto_bytes();
        let again = HloSharding::from_proto_bytes(&bytes).unwrap();
        assert_eq!(again.to_proto_bytes(), bytes, "{what}: fixed point");
    } else if let Some(m) = a.get("error").and_then(Value::as_str) {
        let e = ours.expect_err(&format!("{what}: XLA rejects it"));
        let tail = ret_check_tail(m).unwrap_or(m);
        assert!(
            tail.ends_with(e.message()) || e.message().contains(tail),
            "{what}: ours {:?}, XLA's {tail:?}",
            e.message()
        );
    } else {
        let e = ours.expect_err(&format!("{what}: XLA aborts on it"));
        if let Some(m) = abort_message(a) {
            assert!(
                e.message().contains(&m),
                "{what}: {} does not hold {m}",
                e.message()
            );
        }
    }
}

#[test]
fn bytes_agree_with_xla() {
    let records = records("oracle/sharding_proto.jsonl");
    assert!(each_record(&records, check_record) > 2000);
}
