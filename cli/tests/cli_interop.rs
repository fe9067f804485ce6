//! `dtypes` and the element-type names of `describe`: the same answers as
//! the library's `interop` mappings (which tests/interop.rs checks against
//! jaxlib, dlpack.h, pjrt_c_api.h, the safetensors crate and TensorFlow).

mod support;

use support::*;
use xla_shape::PrimitiveType;
use xla_shape::interop::{dlpack, numpy, pjrt, safetensors, tensorflow};

#[test]
fn dtypes_json_has_every_type_with_the_library_names() {
    let doc = json_doc(&["dtypes", "--json"], b"", 0);
    let rows = doc["dtypes"].as_array().unwrap();
    assert_eq!(rows.len(), PrimitiveType::ALL.len() - 1);
    for (row, t) in rows.iter().zip(&PrimitiveType::ALL[1..]) {
        let t = *t;
        assert_eq!(row["type"], t.lowercase_name());
        let np = numpy::dtype_name(t).filter(|_| t.is_array_type());
        assert_eq!(row["numpy"].as_str(), np);
        match dlpack::to_dl_data_type(t) {
            Ok(d) => assert_eq!(
                (
                    row["dlpack"]["code"].as_u64(),
                    row["dlpack"]["bits"].as_u64()
                ),
                (Some(u64::from(d.code)), Some(u64::from(d.bits)))
            ),
            Err(_) => assert!(row["dlpack"].is_null()),
        }
        assert_eq!(
            row["pjrt"].as_i64(),
            pjrt::to_buffer_type(t).ok().map(i64::from)
        );
        assert_eq!(row["safetensors"].as_str(), safetensors::dtype_name(t));
        assert_eq!(
            row["tensorflow"].as_i64(),
            tensorflow::to_data_type(t).ok().map(i64::from)
        );
    }
}

#[test]
fn dtypes_text_has_a_row_per_type() {
    let out = ok(&["dtypes"], b"");
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("xla"), "{out}");
    assert_eq!(lines.len(), PrimitiveType::ALL.len());
    let bf16 = lines.iter().find(|l| l.starts_with("bf16 ")).unwrap();
    for part in [
        "bfloat16",
        "kDLBfloat bits=16",
        "PJRT_Buffer_Type_BF16 = 13",
        "BF16",
        "DT_BFLOAT16 = 14",
    ] {
        assert!(bf16.contains(part), "{bf16}");
    }
    // F6 types: only safetensors names them.
    let f6 = lines.iter().find(|l| l.starts_with("f6e2m3fn ")).unwrap();
    assert_eq!(
        f6.split_whitespace().collect::<Vec<_>>(),
        ["f6e2m3fn", "-", "-", "-", "F6_E2M3", "-"]
    );
}

#[test]
fn describe_names_the_element_type_in_other_systems() {
    let out = ok(&["describe", "f8e4m3fn[4]"], b"");
    assert!(out.contains("  known as:     NumPy float8_e4m3fn, DLPack kDLFloat8_e4m3fn bits=8 lanes=1, PJRT PJRT_Buffer_Type_F8E4M3FN = 17, safetensors F8_E4M3, TensorFlow DT_FLOAT8_E4M3FN = 25\n"), "{out}");
    let doc = json_doc(&["describe", "--json", "s4[2]"], b"", 0);
    let names = &doc["arrays"][0]["element_type_names"];
    assert_eq!(names["numpy"], "int4");
    assert!(names["dlpack"].is_null());
    assert_eq!(names["pjrt"], 21);
    assert!(names["safetensors"].is_null());
    assert_eq!(names["tensorflow"], 29);
}
