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

// ---------------------------------------------------------------- DLPack

use xla_shape::interop::dlpack::{self, DLDataType, DlpackTensor};

/// jaxlib's exported `DLDataType` of every type jax holds, or its error.
#[test]
fn dlpack_export_types_match_jaxlib() {
    let mut n = 0;
    for r in records("oracle/interop_dlpack.jsonl") {
        let Some(name) = r["export"].as_str() else {
            continue;
        };
        let t = xla_type(name);
        match r["error"].as_str() {
            None => {
                let expected = DLDataType::new(
                    r["code"].as_u64().unwrap() as u8,
                    r["bits"].as_u64().unwrap() as u8,
                    r["lanes"].as_u64().unwrap() as u16,
                );
                assert_eq!(dlpack::to_dl_data_type(t).unwrap(), expected, "{name}");
                assert_eq!(dlpack::from_dl_data_type(expected).unwrap(), t, "{name}");
            }
            Some(e) => assert_eq!(
                dlpack::to_dl_data_type(t).unwrap_err().to_string(),
                xla_message(e),
                "{name}"
            ),
        }
        n += 1;
    }
    assert_eq!(n, 28);
}

/// Every `PrimitiveType` one way, every (code, bits, lanes) the other: the
/// maps are inverse where both sides have the type, and never land on a
/// neighbour.
#[test]
fn dlpack_walks_every_type_and_code() {
    let mut mapped = 0;
    for t in T::ALL {
        match dlpack::to_dl_data_type(t) {
            Ok(d) => {
                mapped += 1;
                assert_eq!(dlpack::from_dl_data_type(d).unwrap(), t);
                // PRED is stored in a byte; every other type at its width.
                let bits = if t == T::Pred {
                    8
                } else {
                    t.bit_width().unwrap()
                };
                assert_eq!(u32::from(d.bits), bits);
                assert!(dlpack::CODE_NAMES.get(d.code as usize).is_some());
            }
            Err(e) => assert_eq!(
                e.to_string(),
                format!("XLA type {} has no DLPack equivalent", t.as_str_name())
            ),
        }
    }
    assert_eq!(mapped, 24);
    for code in 0..=u8::MAX {
        for bits in 0..=u8::MAX {
            let d = DLDataType::new(code, bits, 1);
            match dlpack::from_dl_data_type(d) {
                Ok(t) => assert_eq!(dlpack::to_dl_data_type(t).unwrap(), d),
                Err(e) => {
                    let m = e.to_string();
                    assert!(m.contains("DLPack"), "{m}");
                    assert!(
                        m.contains(&bits.to_string()) || m.contains(&code.to_string()),
                        "{m}"
                    );
                }
            }
        }
        let d = DLDataType::new(code, 32, 4);
        assert_eq!(
            dlpack::from_dl_data_type(d).unwrap_err().to_string(),
            "DLPack types with lanes != 1 not implemented, got 4"
        );
    }
    // The float6 codes of dlpack.h v1.1 (15, 16) are unknown to XLA.
    assert_eq!(
        dlpack::from_dl_data_type(DLDataType::new(dlpack::KDL_FLOAT6_E2M3FN, 6, 1))
            .unwrap_err()
            .to_string(),
        "Unknown or invalid DLPack type code 15"
    );
}

/// jaxlib's answer (accepted, or its error) for every stride pattern of the
/// oracle set; accepted ones describe the same memory order as our layout.
#[test]
fn dlpack_strides_match_jaxlib() {
    let mut n = 0;
    for r in records("oracle/interop_dlpack.jsonl") {
        let Some(dims) = r["import"].as_array() else {
            continue;
        };
        let dims: Vec<i64> = dims.iter().map(|v| v.as_i64().unwrap()).collect();
        let strides: Vec<i64> = r["strides"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_i64().unwrap())
            .collect();
        let got = dlpack::strides_to_layout(&dims, &strides);
        match r["error"].as_str() {
            None => {
                let layout = got.unwrap_or_else(|e| panic!("{dims:?} {strides:?}: {e}"));
                // The layout's compact strides agree with the given ones on
                // every dimension with more than one element.
                let shape = xla_shape::ArrayShape::new(T::F32, dims.clone())
                    .unwrap()
                    .with_layout(Some(layout))
                    .unwrap();
                let back = DlpackTensor::from_array_shape(&shape).unwrap();
                for (d, &n) in dims.iter().enumerate() {
                    if n > 1 {
                        assert_eq!(back.strides.as_ref().unwrap()[d], strides[d], "{dims:?}");
                    }
                }
            }
            Some(e) => {
                let m = got.unwrap_err().to_string();
                let xla = xla_message(e);
                assert!(m.starts_with(&xla), "{m}\n{xla}");
                assert!(m.len() > xla.len() + 10, "no reason given: {m}");
            }
        }
        n += 1;
    }
    assert_eq!(n, 35);
}

/// jaxlib accepts every view with no element (`import_empty`), whatever
/// its strides: its importer reads the strides only when no dimension is 0
/// (`DLPackManagedTensorToBuffer`: `absl::c_find(dimensions, 0) ==
/// dimensions.end()`, else `minor_to_major` is the reversed iota, row-major).
#[test]
fn dlpack_tensors_without_elements_are_row_major_whatever_their_strides() {
    let mut n = 0;
    for r in records("oracle/interop_dlpack.jsonl") {
        if r["import_empty"].is_null() {
            continue;
        }
        let ints = |v: &serde_json::Value| -> Vec<i64> {
            v.as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_i64().unwrap())
                .collect()
        };
        let (dims, strides) = (ints(&r["import_empty"]), ints(&r["strides"]));
        assert!(r["error"].is_null(), "{r}");
        let t = DlpackTensor::new(DLDataType::new(dlpack::KDL_FLOAT, 32, 1), dims.clone())
            .with_strides(strides);
        let shape = t.to_array_shape().unwrap();
        let row_major: Vec<i64> = (0..dims.len() as i64).rev().collect();
        assert_eq!(shape.layout().unwrap().minor_to_major(), row_major, "{r}");
        n += 1;
    }
    assert_eq!(n, 4);
}

/// XLA's upstream cases (`xla/python/dlpack_strides_test.cc`,
/// `DlpackStridesTestSuite`), with their expected minor-to-major.
#[test]
fn dlpack_strides_upstream_cases() {
    let cases: [(&[i64], &[i64], &[i64]); 9] = [
        (&[], &[], &[]),
        (&[2, 3, 4], &[12, 4, 1], &[2, 1, 0]),
        (&[2, 3, 4], &[1, 2, 6], &[0, 1, 2]),
        (&[2, 1, 3, 4], &[12, 12, 4, 1], &[3, 2, 1, 0]),
        (&[2, 1, 3, 4], &[12, 1, 4, 1], &[3, 2, 1, 0]),
        (&[1, 1], &[1, 100], &[1, 0]),
        (&[1, 1, 4], &[1, 100, 1], &[2, 1, 0]),
        (&[4, 1, 1], &[1, 100, 1], &[2, 1, 0]),
        (&[2, 1, 3, 4], &[1, 2, 2, 6], &[0, 2, 1, 3]),
    ];
    for (dims, strides, m2m) in cases {
        assert_eq!(
            dlpack::strides_to_layout(dims, strides)
                .unwrap()
                .minor_to_major(),
            m2m,
            "{dims:?} {strides:?}"
        );
    }
}

/// The element strides of memory as XLA lays it out (`index.jsonl`:
/// `memory_order[p]` is the row-major number of the element at memory
/// position `p`), converted back: the layout orders every dimension with
/// more than one element as XLA did.
#[test]
fn dlpack_strides_of_golden_index_records_give_xla_layout() {
    let mut n = 0;
    for r in records("index.jsonl") {
        let dims: Vec<i64> = r["dims"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_i64().unwrap())
            .collect();
        let m2m: Vec<i64> = r["minor_to_major"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_i64().unwrap())
            .collect();
        // Packed sub-byte records (`kind: subbyte_packing`) have no order.
        let Some(order) = r["memory_order"].as_array() else {
            continue;
        };
        let order: Vec<i64> = order.iter().map(|v| v.as_i64().unwrap()).collect();
        if order.is_empty() {
            continue;
        }
        // Row-major number of the unit index of dimension d.
        let mut strides = vec![0i64; dims.len()];
        for d in 0..dims.len() {
            if dims[d] < 2 {
                // A size-1 dimension has no neighbour to measure: any
                // stride is valid; use the number of elements.
                strides[d] = order.len() as i64;
                continue;
            }
            let rm: i64 = dims[d + 1..].iter().product();
            strides[d] = order.iter().position(|&e| e == rm).unwrap() as i64;
        }
        let layout = dlpack::strides_to_layout(&dims, &strides)
            .unwrap_or_else(|e| panic!("{}: {e}", r["shape"]));
        let big = |v: &[i64]| {
            v.iter()
                .copied()
                .filter(|&d| dims[d as usize] > 1)
                .collect::<Vec<_>>()
        };
        assert_eq!(big(layout.minor_to_major()), big(&m2m), "{}", r["shape"]);
        n += 1;
    }
    assert!(n > 10, "{n}");
}

/// Every untiled golden layout (`layouts.jsonl`: dimensions 2, 3, 4, ...;
/// `shapes.jsonl`: the shape's own dimensions) as compact strides (the
/// stride of a dimension is the product of the sizes of the dimensions
/// before it in minor-to-major order) comes back as XLA's layout, up to
/// the place of dimensions with at most one element, which any stride fits.
#[test]
fn dlpack_strides_of_golden_layouts_give_them_back() {
    let ints = |v: &serde_json::Value| -> Option<Vec<i64>> {
        v.as_array()
            .map(|a| a.iter().map(|x| x.as_i64().unwrap()).collect())
    };
    let mut cases = Vec::new();
    for r in records("layouts.jsonl") {
        let f = &r["facts"];
        if let (Some(m2m), Some(tiles)) = (ints(&f["minor_to_major"]), f["tiling"].as_array())
            && tiles.is_empty()
            && f["element_size_in_bits"].as_i64() == Some(0)
        {
            cases.push((
                (0..m2m.len() as i64).map(|d| d + 2).collect::<Vec<_>>(),
                m2m,
            ));
        }
    }
    let from_layouts = cases.len();
    for r in records("shapes.jsonl") {
        let f = &r["facts"];
        let l = &f["layout"];
        if let (Some(dims), Some(m2m), Some(tiles)) = (
            ints(&f["dimensions"]),
            ints(&l["minor_to_major"]),
            l["tiling"].as_array(),
        ) && tiles.is_empty()
            && l["element_size_in_bits"].as_i64() == Some(0)
            && dims.iter().all(|&n| (0..1 << 20).contains(&n))
        {
            cases.push((dims, m2m));
        }
    }
    assert!(
        from_layouts >= 3 && cases.len() > 100,
        "{from_layouts} {}",
        cases.len()
    );
    for (dims, m2m) in cases {
        let mut strides = vec![0i64; dims.len()];
        let mut running = 1i64;
        for &d in &m2m {
            strides[d as usize] = running;
            running = running.saturating_mul(dims[d as usize]);
        }
        let layout = dlpack::strides_to_layout(&dims, &strides).unwrap();
        if dims.contains(&0) {
            continue; // no element: every layout holds the same (nothing)
        }
        let big = |v: &[i64]| {
            v.iter()
                .copied()
                .filter(|&d| dims[d as usize] > 1)
                .collect::<Vec<_>>()
        };
        assert_eq!(big(layout.minor_to_major()), big(&m2m), "{dims:?} {m2m:?}");
    }
}

/// Broadcast, overlapping, padded and negative strides are refused, each
/// with its reason after XLA's message.
#[test]
fn dlpack_refuses_non_layout_strides_with_a_reason() {
    let cases: [(&[i64], &[i64], &str); 5] = [
        (&[2, 3], &[0, 1], "dimension 0 has stride 0: broadcasting."),
        (
            &[2, 3],
            &[1, 1],
            "dimension 0 has stride 1 where a compact layout needs 3: it overlaps dimension 1.",
        ),
        (
            &[2, 3],
            &[5, 1],
            "dimension 0 has stride 5 where a compact layout needs 3: a gap between elements.",
        ),
        (&[2, 3], &[-3, 1], "dimension 0 has negative stride -3."),
        (&[2, 1], &[5, 1], "a gap between elements."),
    ];
    for (dims, strides, reason) in cases {
        let m = dlpack::strides_to_layout(dims, strides)
            .unwrap_err()
            .to_string();
        assert!(
            m.starts_with("Only DLPack tensors with trivial (compact) striding"),
            "{m}"
        );
        assert!(m.ends_with(reason), "{m}");
    }
    assert!(dlpack::strides_to_layout(&[2], &[1, 1]).is_err());
    assert!(dlpack::strides_to_layout(&[-2], &[1]).is_err());
    // No overflow on huge sizes.
    assert!(dlpack::strides_to_layout(&[i64::MAX, 3, 2], &[1, i64::MAX, 7]).is_err());
}

/// A tensor description round-trips through an XLA shape with layout.
#[test]
fn dlpack_tensor_round_trip() {
    for text in [
        "f32[2,3]{1,0}",
        "bf16[4,5,6]{0,2,1}",
        "pred[3]{0}",
        "c64[]",
        "f4e2m1fn[8]{0}",
    ] {
        let shape: xla_shape::Shape = text.parse().unwrap();
        let a = shape.as_array().unwrap();
        let t = DlpackTensor::from_array_shape(a).unwrap();
        assert_eq!(&t.to_array_shape().unwrap(), a, "{text}");
    }
    let tiled: xla_shape::Shape = "f32[8,128]{1,0:T(8,128)}".parse().unwrap();
    assert!(DlpackTensor::from_array_shape(tiled.as_array().unwrap()).is_err());
    let s4: xla_shape::Shape = "s4[8]{0}".parse().unwrap();
    assert_eq!(
        DlpackTensor::from_array_shape(s4.as_array().unwrap())
            .unwrap_err()
            .to_string(),
        "XLA type S4 has no DLPack equivalent"
    );
}

// ---------------------------------------------------------------- PJRT

use xla_shape::interop::pjrt::{self, MemoryLayout};

/// The header's numbers differ from XLA's: the mapping goes by name, never
/// by number, over every `PrimitiveType` and every `PJRT_Buffer_Type`.
#[test]
fn pjrt_buffer_types_walk_every_type_and_number() {
    // pjrt_c_api.h counts from 0 in declaration order; the declaration
    // order of the header, written out by hand from it:
    let header = [
        "INVALID",
        "PRED",
        "S8",
        "S16",
        "S32",
        "S64",
        "U8",
        "U16",
        "U32",
        "U64",
        "F16",
        "F32",
        "F64",
        "BF16",
        "C64",
        "C128",
        "F8E5M2",
        "F8E4M3FN",
        "F8E4M3B11FNUZ",
        "F8E5M2FNUZ",
        "F8E4M3FNUZ",
        "S4",
        "U4",
        "TOKEN",
        "S2",
        "U2",
        "F8E4M3",
        "F8E3M4",
        "F8E8M0FNU",
        "F4E2M1FN",
    ];
    for (n, name) in header.iter().enumerate() {
        let n = n as i32;
        assert_eq!(
            pjrt::buffer_type_name(n),
            Some(format!("PJRT_Buffer_Type_{name}"))
        );
        let xla_name = if *name == "INVALID" {
            "PRIMITIVE_TYPE_INVALID"
        } else {
            name
        };
        let t = xla_type(xla_name);
        assert_eq!(pjrt::to_buffer_type(t).unwrap(), n, "{name}");
        if t == T::Invalid {
            assert_eq!(
                pjrt::from_buffer_type(n).unwrap_err().to_string(),
                "Buffer type is not supported in C API layer."
            );
        } else {
            assert_eq!(pjrt::from_buffer_type(n).unwrap(), t, "{name}");
        }
    }
    // The numbers that users mix up.
    assert_eq!(pjrt::to_buffer_type(T::Bf16).unwrap(), 13);
    assert_eq!(T::Bf16 as i32, 16);
    assert_eq!(pjrt::to_buffer_type(T::C64).unwrap(), 14);
    assert_eq!(pjrt::to_buffer_type(T::Token).unwrap(), 23);
    assert_eq!(
        pjrt::from_buffer_type(pjrt::PJRT_BUFFER_TYPE_F8E5M2FNUZ).unwrap(),
        T::F8e5m2fnuz
    );
    for t in T::ALL {
        if !header
            .iter()
            .any(|h| *h == t.as_str_name() || (t == T::Invalid && *h == "INVALID"))
        {
            assert_eq!(
                pjrt::to_buffer_type(t).unwrap_err().to_string(),
                format!(
                    "Element type of the shape is not supported in C API layer: {}",
                    t.lowercase_name()
                )
            );
        }
    }
    for n in [-1, 30, 31, 1000, i32::MAX, i32::MIN] {
        assert_eq!(
            pjrt::from_buffer_type(n).unwrap_err().to_string(),
            format!("Unknown PJRT_Buffer_Type {n}")
        );
        assert_eq!(pjrt::buffer_type_name(n), None);
    }
}

/// Every golden layout (`shapes.jsonl`, tiled ones included) goes to the
/// tiled `PJRT_Buffer_MemoryLayout` and back to its minor-to-major and
/// tiles, and the shape to `build_shape` and back.
#[test]
fn pjrt_memory_layout_round_trips_every_golden_layout() {
    let mut n = 0;
    for r in records("shapes.jsonl") {
        let Ok(shape) =
            xla_shape::Shape::from_proto_bytes(&common::hex(common::str_field(&r, "proto_hex")))
        else {
            continue;
        };
        let Some(a) = shape.as_array() else { continue };
        let Some(layout) = a.layout() else { continue };
        let m = MemoryLayout::from_layout(layout);
        let MemoryLayout::Tiled {
            minor_to_major,
            tile_dims,
            tile_dim_sizes,
        } = &m
        else {
            panic!("tiled form expected");
        };
        assert_eq!(minor_to_major.as_slice(), layout.minor_to_major());
        assert_eq!(tile_dim_sizes.len(), layout.tiles().len());
        assert_eq!(tile_dims.len(), tile_dim_sizes.iter().sum::<usize>());
        let back = m.to_layout().unwrap();
        assert_eq!(back.minor_to_major(), layout.minor_to_major());
        assert_eq!(back.tiles(), layout.tiles());
        if let Ok(bt) = pjrt::to_buffer_type(a.element_type())
            && layout.element_size_in_bits() == 0
            && layout.memory_space() == 0
            && layout.tail_padding_alignment_in_elements() == 1
            && layout.split_configs().is_empty()
            && layout.physical_shape().is_none()
            && layout.dynamic_shape_metadata_prefix_bytes() == 0
            && a.is_static()
            && let Ok(s) = pjrt::build_shape(bt, a.dimensions(), Some(&m))
        {
            assert_eq!(&s, a, "{}", common::id(&r));
            n += 1;
        }
    }
    assert!(n > 100, "{n}");
}

/// Malformed tiled forms and the strides form.
#[test]
fn pjrt_memory_layout_errors() {
    let bad = MemoryLayout::Tiled {
        minor_to_major: vec![1, 0],
        tile_dims: vec![8, 128],
        tile_dim_sizes: vec![3],
    };
    assert!(
        bad.to_layout()
            .unwrap_err()
            .to_string()
            .contains("tile_dim_sizes [3]")
    );
    let extra = MemoryLayout::Tiled {
        minor_to_major: vec![1, 0],
        tile_dims: vec![8, 128, 2],
        tile_dim_sizes: vec![2],
    };
    assert!(
        extra
            .to_layout()
            .unwrap_err()
            .to_string()
            .contains("leave 1")
    );
    let huge = MemoryLayout::Tiled {
        minor_to_major: vec![0],
        tile_dims: vec![],
        tile_dim_sizes: vec![usize::MAX],
    };
    assert!(huge.to_layout().is_err());
    let strides = MemoryLayout::Strides {
        byte_strides: vec![4, 8],
    };
    assert_eq!(
        strides.to_layout().unwrap_err().to_string(),
        "PJRT_Buffer_MemoryLayout_Type_Strides is not supported to be converted to a xla::Shape"
    );
    assert!(pjrt::build_shape(pjrt::PJRT_BUFFER_TYPE_F32, &[2, 3], Some(&strides)).is_err());
    // The strides form of a column-major f32[2,3]: 4 and 8 bytes, and back.
    let s: xla_shape::Shape = "f32[2,3]{0,1}".parse().unwrap();
    let m = MemoryLayout::strides_of(s.as_array().unwrap()).unwrap();
    // Hand derivation: dimension 0 is minor (4 bytes), dimension 1 steps
    // over 2 elements of 4 bytes.
    assert_eq!(
        m,
        MemoryLayout::Strides {
            byte_strides: vec![4, 8]
        }
    );
    assert_eq!(
        pjrt::layout_from_byte_strides(T::F32, &[2, 3], &[4, 8])
            .unwrap()
            .minor_to_major(),
        [0, 1]
    );
}

// ---------------------------------------------------------------- safetensors

use xla_shape::interop::safetensors as st;

/// Every variant of the safetensors crate's `Dtype` (0.8.0, listed from
/// its `src/tensor.rs`) has exactly one XLA type, of the same width, and
/// comes back; every other XLA type is refused with its name.
#[test]
fn safetensors_walks_every_dtype_and_type() {
    use safetensors::Dtype as D;
    let all = [
        D::BOOL,
        D::F4,
        D::F6_E2M3,
        D::F6_E3M2,
        D::U8,
        D::I8,
        D::F8_E5M2,
        D::F8_E4M3,
        D::F8_E8M0,
        D::F8_E4M3FNUZ,
        D::F8_E5M2FNUZ,
        D::I16,
        D::U16,
        D::F16,
        D::BF16,
        D::I32,
        D::U32,
        D::F32,
        D::C64,
        D::F64,
        D::I64,
        D::U64,
    ];
    assert_eq!(all.len(), st::DTYPES.len());
    for d in all {
        let name = d.to_string();
        // The name is the crate's serde name too.
        let parsed: D = serde_json::from_str(&format!("\"{name}\"")).unwrap();
        assert_eq!(parsed, d);
        let t = st::from_dtype_name(&name).unwrap();
        assert_eq!(st::dtype_name(t), Some(name.as_str()));
        let bits = if t == T::Pred {
            8
        } else {
            t.bit_width().unwrap() as usize
        };
        assert_eq!(d.bitsize(), bits, "{name}");
    }
    for t in T::ALL {
        match st::dtype_name(t) {
            Some(n) => assert_eq!(st::from_dtype_name(n).unwrap(), t),
            None => assert_eq!(
                st::to_dtype_name(t).unwrap_err().to_string(),
                format!("XLA type {} has no safetensors dtype", t.as_str_name())
            ),
        }
    }
    // F8_E4M3 is the finite-only E4M3 (torch.float8_e4m3fn), never F8E4M3.
    assert_eq!(st::from_dtype_name("F8_E4M3").unwrap(), T::F8e4m3fn);
    assert!(st::to_dtype_name(T::F8e4m3).is_err());
    assert!(
        st::from_dtype_name("bf16")
            .unwrap_err()
            .to_string()
            .contains("\"bf16\"")
    );
}

// ---------------------------------------------------------------- TensorFlow

use xla_shape::interop::tensorflow::{self as tf, TensorShape};

/// The `DataType` enum of TensorFlow 2.21 (`oracle/interop_tf_types.json`)
/// is exactly the module's, reference types included, and every value maps
/// as TF2XLA's `DataTypeToPrimitiveType` does.
#[test]
fn tensorflow_walks_every_data_type() {
    let data = std::fs::read_to_string(common::data_path("oracle/interop_tf_types.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&data).unwrap();
    let values = v["DataType"].as_array().unwrap();
    assert_eq!(values.len(), 67);
    // TF2XLA's switch (type_util.cc), by name:
    let expected: [(&str, T); 24] = [
        ("DT_BOOL", T::Pred),
        ("DT_INT4", T::S4),
        ("DT_INT8", T::S8),
        ("DT_QINT8", T::S8),
        ("DT_INT16", T::S16),
        ("DT_QINT16", T::S16),
        ("DT_INT32", T::S32),
        ("DT_QINT32", T::S32),
        ("DT_INT64", T::S64),
        ("DT_UINT4", T::U4),
        ("DT_UINT8", T::U8),
        ("DT_QUINT8", T::U8),
        ("DT_UINT16", T::U16),
        ("DT_QUINT16", T::U16),
        ("DT_UINT32", T::U32),
        ("DT_UINT64", T::U64),
        ("DT_FLOAT8_E5M2", T::F8e5m2),
        ("DT_FLOAT8_E4M3FN", T::F8e4m3fn),
        ("DT_BFLOAT16", T::Bf16),
        ("DT_HALF", T::F16),
        ("DT_FLOAT", T::F32),
        ("DT_DOUBLE", T::F64),
        ("DT_COMPLEX64", T::C64),
        ("DT_COMPLEX128", T::C128),
    ];
    for pair in values {
        let name = pair[0].as_str().unwrap();
        let n = pair[1].as_i64().unwrap() as i32;
        assert_eq!(tf::data_type_name(n).as_deref(), Some(name));
        assert_eq!(tf::data_type(name), Some(n));
        match expected.iter().find(|(e, _)| *e == name) {
            Some(&(_, t)) => {
                assert_eq!(tf::from_data_type(n).unwrap(), t, "{name}");
                if !name.starts_with("DT_Q") {
                    assert_eq!(tf::to_data_type(t).unwrap(), n, "{name}");
                }
            }
            None => {
                let lower = name.trim_start_matches("DT_").to_ascii_lowercase();
                assert_eq!(
                    tf::from_data_type(n).unwrap_err().to_string(),
                    format!("Unsupported type in DataTypeToPrimitiveType: '{lower}'")
                );
            }
        }
        // A reference type maps as its base type once unwrapped.
        if name.ends_with("_REF") {
            assert_eq!(tf::base_type(n), n - 100);
        }
    }
    for n in [-1, 34, 100, 134, 1000] {
        assert_eq!(tf::data_type_name(n), None);
        assert!(tf::from_data_type(n).is_err());
    }
    for t in T::ALL {
        match tf::to_data_type(t) {
            Ok(n) => assert_eq!(tf::from_data_type(n).unwrap(), t),
            Err(e) => assert_eq!(
                e.to_string(),
                format!("Unsupported type in PrimitiveTypeToDataType {}", t as i32)
            ),
        }
    }
}

/// `TensorShapeToXLAShape` and back; the unknown-size sentinel; bounds.
#[test]
fn tensorflow_shapes() {
    let float = tf::data_type("DT_FLOAT").unwrap();
    let s = tf::to_xla_shape(float, &TensorShape::new([2, 3, 4])).unwrap();
    assert_eq!(s.to_string(), "f32[2,3,4]{2,1,0}");
    let back = tf::from_xla_shape(&xla_shape::Shape::from(s)).unwrap();
    assert_eq!(back, TensorShape::new([2, 3, 4]));
    // Unknown rank or size: XLA's sentinel, a rank-1 shape of size 0.
    for shape in [TensorShape::unknown_rank(), TensorShape::new([2, -1])] {
        assert_eq!(
            tf::to_xla_shape(float, &shape).unwrap().to_string(),
            "f32[0]{0}"
        );
    }
    assert!(tf::to_xla_shape(float, &TensorShape::new([-2])).is_err());
    let b = tf::to_bounded_xla_shape(float, &TensorShape::new([-1, 3]), &[8, 3]).unwrap();
    assert_eq!(b.to_string(), "f32[<=8,3]{1,0}");
    assert_eq!(
        tf::to_bounded_xla_shape(float, &TensorShape::new([-1]), &[8, 3])
            .unwrap_err()
            .to_string(),
        "`tensor_shape` and `bound` have different ranks. tensor_shape=1vs bound=2"
    );
    assert!(tf::to_bounded_xla_shape(float, &TensorShape::new([4]), &[8]).is_err());
    let tuple: xla_shape::Shape = "(f32[2])".parse().unwrap();
    assert_eq!(
        tf::from_xla_shape(&tuple).unwrap_err().to_string(),
        "XLA shape (f32[2]) cannot be converted to a TensorShape"
    );
    let string = tf::data_type("DT_STRING").unwrap();
    assert!(tf::to_xla_shape(string, &TensorShape::new([2])).is_err());
}

// ---------------------------------------------------------------- typed views

/// `bytes` copied to a place in `store` aligned to 16 bytes.
#[cfg(all(feature = "half", feature = "num-complex"))]
fn aligned_copy<'a>(store: &'a mut Vec<u8>, bytes: &[u8]) -> &'a [u8] {
    store.clear();
    store.resize(bytes.len() + 16, 0);
    let off = store.as_ptr().align_offset(16);
    store[off..off + bytes.len()].copy_from_slice(bytes);
    &store[off..off + bytes.len()]
}

/// bf16 and f16 data as `half` types, complex data as `num_complex` types,
/// in any strided layout; other element types are refused.
#[cfg(all(feature = "half", feature = "num-complex"))]
#[test]
fn typed_views_of_half_and_complex_data() {
    use num_complex::Complex;
    use xla_shape::strides::ndarray_view;
    let mut store = Vec::new();

    // Column-major bf16[2,3]: element (r, c) is at memory position r + 2c.
    let shape: xla_shape::Shape = "bf16[2,3]{0,1}".parse().unwrap();
    let bytes: Vec<u8> = (0..6)
        .flat_map(|i| half::bf16::from_f32(i as f32).to_le_bytes())
        .collect();
    let buf = aligned_copy(&mut store, &bytes);
    let v = ndarray_view::<half::bf16>(shape.as_array().unwrap(), buf).unwrap();
    assert_eq!(v[[1, 2]].to_f32(), 5.0);
    assert_eq!(v[[0, 1]].to_f32(), 2.0);
    assert!(ndarray_view::<half::f16>(shape.as_array().unwrap(), buf).is_err());

    let f16: xla_shape::Shape = "f16[2]{0}".parse().unwrap();
    let bytes: Vec<u8> = [1.5f32, -2.0]
        .iter()
        .flat_map(|&x| half::f16::from_f32(x).to_le_bytes())
        .collect();
    let v = ndarray_view::<half::f16>(f16.as_array().unwrap(), aligned_copy(&mut store, &bytes))
        .unwrap();
    assert_eq!(v[[1]].to_f32(), -2.0);

    // c64: (real, imaginary) pairs of little-endian f32.
    let c64: xla_shape::Shape = "c64[2]{0}".parse().unwrap();
    let bytes: Vec<u8> = [1.0f32, 2.0, 3.0, -4.0]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    let buf = aligned_copy(&mut store, &bytes);
    let v = ndarray_view::<Complex<f32>>(c64.as_array().unwrap(), buf).unwrap();
    assert_eq!(v[[1]], Complex::new(3.0, -4.0));
    assert!(ndarray_view::<Complex<f64>>(c64.as_array().unwrap(), buf).is_err());

    let c128: xla_shape::Shape = "c128[1]{0}".parse().unwrap();
    let bytes: Vec<u8> = [0.5f64, -1.0]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    let v =
        ndarray_view::<Complex<f64>>(c128.as_array().unwrap(), aligned_copy(&mut store, &bytes))
            .unwrap();
    assert_eq!(v[[0]], Complex::new(0.5, -1.0));
}
