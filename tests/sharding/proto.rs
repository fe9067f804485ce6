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

/// XLA's parser takes an iota tile assignment whose reshape dimensions hold
/// another number of devices than the tiles, prints it (canonicalized) and
/// writes its bytes, but `FromProto` refuses those bytes. Asked of jaxlib
/// 0.10.2 (`xla_client.HloSharding.from_string(text)`, its `repr`,
/// `to_proto().SerializeToString().hex()`, then `HloSharding.from_proto` of
/// those bytes): each text, XLA's print, XLA's bytes; every `from_proto`
/// failed with `RET_CHECK failure (xla/hlo/ir/hlo_sharding.cc:1054)
/// product_of_dimensions == product_of_iota_dimensions`. The second text
/// is a finding of the `sharding` fuzz target
/// (fuzz/regressions/sharding/).
#[test]
fn iota_of_another_device_count_prints_but_its_bytes_do_not_read() {
    for (text, printed, bytes) in [
        (
            "{devices=[2,4,2]<=[32]}",
            "{devices=[2,4,2]<=[32]}",
            "08031a030204024a0120520100",
        ),
        (
            "{devices=[2,4,2]<=[1,8,4]T(2,1,0) last_tile_dims={replicated, replicated} shard_as 5}",
            "{devices=[2,8]<=[8,4]T(1,0) last_tile_dim_replicate shard_as 5}",
            "08031a02020830014a0208045202010058016005",
        ),
    ] {
        prints_but_does_not_read(
            text,
            printed,
            bytes,
            "product_of_dimensions == product_of_iota_dimensions",
        );
    }
}

/// Tiles of no device with devices listed: XLA's parser takes them and
/// prints them without the devices, `ToProto` writes a tile assignment
/// without devices, and `FromProto` refuses it. Asked of jaxlib 0.10.2 as
/// above: `from_proto` failed with `RET_CHECK failure
/// (xla/hlo/ir/hlo_sharding.cc:1016)
/// !proto.tile_assignment_devices().empty()`. The text is a finding of the
/// `sharding` fuzz target (fuzz/regressions/sharding/).
#[test]
fn tiles_of_no_device_print_but_their_bytes_do_not_read() {
    prints_but_does_not_read(
        "{devices=[0]0,4,1,6,2,5,7,3}",
        "{devices=[0]}",
        "08031a0100",
        "!proto.tile_assignment_devices().empty()",
    );
    // jaxlib 0.10.2 on `{devices=[0,4,1,1]<=[4] last_tile_dims={replicated}}`
    // (a finding of the same target): `from_proto` failed with
    // `RET_CHECK failure (xla/hlo/ir/hlo_sharding.cc:1032)
    // absl::c_all_of(proto.tile_assignment_dimensions(), [](int64_t d) {
    // return d > 0; })`.
    prints_but_does_not_read(
        "{devices=[0,4,1,1]<=[4] last_tile_dims={replicated}}",
        "{devices=[0,4,1]<=[4]}",
        "08031a030004014a0104520100",
        "absl::c_all_of(proto.tile_assignment_dimensions(), [](int64_t d) { return d > 0; })",
    );
}

/// `text` reads and prints as `printed`, writes `bytes`, and those bytes
/// are refused with the RET_CHECK `ret_check`.
fn prints_but_does_not_read(text: &str, printed: &str, bytes: &str, ret_check: &str) {
    let s: HloSharding = text.parse().unwrap();
    assert_eq!(s.to_string(), printed);
    assert_eq!(xla_shape::formats::to_hex(&s.to_proto_bytes()), bytes);
    let e = HloSharding::from_proto_bytes(&unhex(bytes)).unwrap_err();
    assert!(e.message().ends_with(&format!("({ret_check})")), "{e}");
}
