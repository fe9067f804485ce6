//! interop: the element-type and layout mappings to NumPy / ml_dtypes,
//! checked against jaxlib 0.10.2 (golden records and oracle answers).

mod common;

use common::{records, xla_message};
use xla_shape::PrimitiveType as T;
use xla_shape::interop::numpy;

fn xla_type(name: &str) -> T {
    T::from_str_name(name).unwrap_or_else(|| panic!("unknown XLA type {name}"))
}

/// Every golden shape's `facts.numpy_dtype` (jaxlib's `Shape.numpy_dtype()`,
/// `null` where it raised) is `numpy::dtype_name` of its element type.
#[test]
fn numpy_dtype_name_matches_every_golden_record() {
    let mut checked = 0;
    for r in records("shapes.jsonl") {
        let facts = &r["facts"];
        let Some(expected) = facts.get("numpy_dtype") else {
            continue;
        };
        let t = xla_type(facts["element_type"].as_str().unwrap());
        assert_eq!(
            numpy::dtype_name(t),
            expected.as_str(),
            "{}",
            common::id(&r)
        );
        checked += 1;
    }
    assert!(checked > 300, "{checked}");
}

/// jaxlib's `Shape(text).numpy_dtype()` for every element type HLO text
/// writes, and its error where it has no dtype.
#[test]
fn numpy_dtype_of_every_type_matches_jaxlib() {
    let mut seen = Vec::new();
    for r in records("oracle/interop_numpy.jsonl") {
        let Some(name) = r.get("shape").and(r["xla"].as_str()) else {
            continue;
        };
        let t = xla_type(name);
        seen.push(t);
        match r["numpy_dtype"].as_str() {
            Some(dtype) => assert_eq!(numpy::dtype_name(t), Some(dtype), "{name}"),
            None => {
                assert_eq!(numpy::dtype_name(t), None, "{name}");
                let err = numpy::to_dtype(t).unwrap_err();
                assert_eq!(
                    err.to_string(),
                    xla_message(r["error"].as_str().unwrap()),
                    "{name}"
                );
            }
        }
    }
    // Every type but INVALID and BUFFER, which no shape text writes.
    for t in T::ALL {
        assert!(
            seen.contains(&t) || matches!(t, T::Invalid | T::Buffer),
            "{t:?} not asked"
        );
    }
    assert_eq!(numpy::dtype(T::Invalid), None);
    assert_eq!(numpy::dtype(T::Buffer), None);
}

/// Every NumPy and ml_dtypes dtype: NumPy's attributes and jaxlib's
/// `DtypeToPrimitiveType` answer (or its error), and the table holds
/// exactly these dtypes.
#[test]
fn numpy_every_dtype_matches_numpy_and_jaxlib() {
    let mut names = Vec::new();
    for r in records("oracle/interop_numpy.jsonl") {
        let Some(name) = r["dtype"].as_str() else {
            continue;
        };
        names.push(name.to_string());
        let d = numpy::lookup(name).unwrap_or_else(|| panic!("{name} missing"));
        assert_eq!(d.str, r["str"].as_str().unwrap(), "{name}");
        assert_eq!(d.char.to_string(), r["char"].as_str().unwrap(), "{name}");
        assert_eq!(d.kind.to_string(), r["kind"].as_str().unwrap(), "{name}");
        assert_eq!(d.itemsize as u64, r["itemsize"].as_u64().unwrap(), "{name}");
        match r["xla"].as_str() {
            Some(x) => {
                let t = xla_type(x);
                assert_eq!(numpy::from_dtype_name(name).unwrap(), t, "{name}");
                // Exact round trip where both sides have the type.
                assert_eq!(numpy::dtype_name(t), Some(name), "{name}");
            }
            None => {
                let err = numpy::from_dtype_name(name).unwrap_err();
                assert_eq!(err.kind(), xla_shape::ErrorKind::InvalidArgument);
                assert_eq!(
                    err.to_string(),
                    xla_message(r["error"].as_str().unwrap()),
                    "{name}"
                );
            }
        }
    }
    let mut table: Vec<String> = numpy::DTYPES.iter().map(|d| d.name.to_string()).collect();
    table.sort();
    names.sort();
    assert_eq!(table, names);
}

/// Both directions over every `PrimitiveType`: a dtype maps back to the
/// same type; the others name the type in jaxlib's error.
#[test]
fn numpy_walks_every_primitive_type() {
    for t in T::ALL {
        match numpy::dtype(t) {
            Some(d) if t == T::Tuple => assert!(numpy::from_dtype(d).is_err()),
            Some(d) => {
                assert_eq!(numpy::from_dtype(d).unwrap(), t);
                assert_eq!(numpy::dtype_str(t), Some(d.str));
                assert_eq!(numpy::dtype_char(t), Some(d.char));
                // The type string finds the type where it is unambiguous.
                let shared = numpy::DTYPES
                    .iter()
                    .filter(|o| o.str == d.str && o.xla.is_some())
                    .count();
                match numpy::from_dtype_str(d.str) {
                    Ok(u) => assert!(shared == 1 && u == t, "{t:?}"),
                    Err(e) => {
                        assert!(shared > 1, "{t:?}");
                        assert!(e.to_string().contains(d.str), "{e}");
                    }
                }
            }
            None => {
                let e = numpy::to_dtype(t).unwrap_err();
                assert!(e.to_string().ends_with(t.as_str_name()), "{e}");
            }
        }
    }
    assert!(
        numpy::from_dtype_name("float33")
            .unwrap_err()
            .to_string()
            .contains("\"float33\"")
    );
    assert!(numpy::from_dtype_str("<x9").is_err());
}
