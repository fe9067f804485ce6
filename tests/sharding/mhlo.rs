//! `mhlo.sharding` attributes (`HloSharding::from_mhlo_sharding`), as XLA's
//! conversion of StableHLO to HLO reads them (`ConvertSharding` in
//! `xla/hlo/translate/mhlo_to_hlo/attribute_exporter.cc`: the string as
//! `OpSharding` bytes first, then as sharding text).

use xla_shape::sharding::HloSharding;

use crate::common::data_path;

/// Every `mhlo.sharding = "..."` of the GSPMD programs jax 0.10.2 lowered
/// (`tests/data/stablehlo/programs/gspmd_*.mlir`) reads to a sharding whose
/// text is an instruction's `sharding=` in XLA's conversion of the same
/// program (`gspmd_*.hlo.txt`, `lowered.compiler_ir('hlo')`).
#[test]
fn attributes_read_as_xlas_conversion_prints_them() {
    let mut checked = 0;
    for name in [
        "gspmd_constraint",
        "gspmd_in_out",
        "gspmd_partial",
        "gspmd_replicated",
        "gspmd_shard_map",
        "gspmd_transpose_out",
        "gspmd_transpose_unsharded_out",
    ] {
        let read = |suffix: &str| {
            std::fs::read_to_string(data_path(&format!("stablehlo/programs/{name}{suffix}")))
                .unwrap()
        };
        let (mlir, hlo) = (read(".mlir"), read(".hlo.txt"));
        let mut rest = mlir.as_str();
        while let Some(at) = rest.find("mhlo.sharding = \"") {
            let attribute = &rest[at..];
            let end = attribute["mhlo.sharding = \"".len()..].find('"').unwrap();
            let attribute = &attribute[..end + "mhlo.sharding = \"\"".len()];
            let s = HloSharding::from_mhlo_sharding(attribute)
                .unwrap_or_else(|e| panic!("{name}: {attribute}: {e}"));
            assert!(
                hlo.contains(&s.to_string()),
                "{name}: {attribute} reads as {s}, which XLA's conversion does not print"
            );
            checked += 1;
            rest = &rest[at + attribute.len()..];
        }
    }
    assert!(checked >= 14, "{checked} attributes");
}

/// The three spellings name one value: the attribute, its MLIR string
/// literal and the value itself.
#[test]
fn the_attribute_its_literal_and_its_value_agree() {
    let text = "{devices=[2,1,2]<=[4] last_tile_dim_replicate}";
    let expected: HloSharding = text.parse().unwrap();
    for spelling in [
        format!("mhlo.sharding = \"{text}\""),
        format!("mhlo.sharding=\"{text}\""),
        format!("\"{text}\""),
        text.to_string(),
    ] {
        assert_eq!(
            HloSharding::from_mhlo_sharding(&spelling).unwrap(),
            expected,
            "{spelling}"
        );
    }
}

/// A value that parses as `OpSharding` bytes is read as those bytes, as
/// `ConvertSharding` tries them first. The bytes are those of
/// `from_proto_bytes`'s example (`type: OTHER` = 08 03,
/// `tile_assignment_dimensions: [2, 1]` = 1a 02 02 01,
/// `tile_assignment_devices: [0, 1]` = 22 02 00 01), written with MLIR's
/// `\XX` escapes (`\22` is `"`, which must be escaped in a literal).
#[test]
fn a_value_of_opsharding_bytes_is_read_as_bytes() {
    let s = HloSharding::from_mhlo_sharding(r#"mhlo.sharding = "\08\03\1A\02\02\01\22\02\00\01""#)
        .unwrap();
    assert_eq!(s.to_string(), "{devices=[2,1]0,1}");
    // The empty string is an empty OpSharding: REPLICATED (type 0).
    assert_eq!(
        HloSharding::from_mhlo_sharding(r#""""#).unwrap(),
        HloSharding::replicate()
    );
}

/// Neither bytes nor text: the text's syntax error; an unterminated
/// literal: an error, never a panic.
#[test]
fn what_is_neither_fails_with_the_texts_error() {
    let e = HloSharding::from_mhlo_sharding(r#"mhlo.sharding = "{devices=[2]}""#).unwrap_err();
    let plain = "{devices=[2]}".parse::<HloSharding>().unwrap_err();
    assert_eq!(e.to_string(), plain.to_string());
    for bad in [
        r#"""#,
        r#""{replicated}"#,
        r#""{replicated}\""#,
        "mhlo.sharding = \"",
    ] {
        assert!(HloSharding::from_mhlo_sharding(bad).is_err(), "{bad}");
    }
}
