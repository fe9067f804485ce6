//! shape_util against the facts real XLA reported for every golden shape
//! (`tests/data/shapes.jsonl`): `ShapeUtil::ElementsIn` and
//! `ShapeUtil::ByteSizeOf(shape, 8)` as XLA:CPU's cost analysis reports
//! them.

use crate::common::*;
use xla_shape::{Shape, shape_util};

/// Records whose fact we cannot match, and why.
const UNMATCHED: &[(&str, &str)] = &[
    // f32[?,3]: XLA multiplies INT64_MIN into the element count
    // (xla_element_count = -9223372036854775808); elements_in returns an
    // error for an unbounded dimension instead (docs/differences.md ("ShapeUtil, ...")).
    ("dynamic/0314", "unbounded"),
];

fn decode(r: &serde_json::Value) -> Option<Shape> {
    let id = id(r);
    if r["status"] != "ok" || held_without_validation(id).is_some() {
        return None;
    }
    Some(
        Shape::from_proto_bytes(&hex(str_field(r, "proto_hex")))
            .unwrap_or_else(|e| panic!("{id}: {e}")),
    )
}

#[test]
fn elements_in_is_xla_element_count() {
    let mut checked = 0;
    for r in records("shapes.jsonl") {
        let Some(shape) = decode(&r) else { continue };
        let id = id(&r);
        let Some(expected) = r["facts"]["xla_element_count"].as_i64() else {
            continue;
        };
        // XLA reports a buffer's count as its array's (special/0156).
        let inner = shape.buffer_shape().unwrap_or(&shape);
        let a = inner
            .as_array()
            .unwrap_or_else(|| panic!("{id}: not an array"));
        let ours = shape_util::elements_in(a);
        if UNMATCHED.iter().any(|(u, _)| *u == id) {
            assert!(ours.is_err(), "{id}");
            continue;
        }
        assert_eq!(ours.unwrap(), expected, "{id}");
        checked += 1;
    }
    assert!(checked > 380, "only {checked} records checked");
}

#[test]
fn byte_size_of_is_xla_cpu_shape_size_for_static_shapes() {
    let mut checked = 0;
    for r in records("shapes.jsonl") {
        let Some(shape) = decode(&r) else { continue };
        let id = id(&r);
        let Some(expected) = r["facts"]["xla_cpu_shape_size_bytes"].as_i64() else {
            continue;
        };
        if !shape.is_static() {
            continue;
        }
        assert_eq!(
            shape_util::byte_size_of(&shape, 8).unwrap(),
            expected,
            "{id}: {shape}"
        );
        checked += 1;
    }
    assert!(checked > 400, "only {checked} records checked");
}

#[test]
fn bounded_dynamic_arrays_add_four_bytes_per_dimension() {
    // The cost analysis adds 4 * rank to ByteSizeOf for a dynamic array
    // (the golden records' `xla_cpu_shape_size_bytes`, as XLA:CPU's cost
    // analysis in jaxlib 0.10.2 reports it); checked for the bounded ones.
    let mut checked = 0;
    for r in records("shapes.jsonl") {
        let Some(Shape::Array(a)) = decode(&r) else {
            continue;
        };
        let Some(expected) = r["facts"]["xla_cpu_shape_size_bytes"].as_i64() else {
            continue;
        };
        if a.is_static()
            || a.dimensions()
                .contains(&xla_shape::ArrayShape::UNBOUNDED_SIZE)
        {
            continue;
        }
        let ours = shape_util::byte_size_of_elements(&a).unwrap() + 4 * a.rank() as i64;
        assert_eq!(ours, expected, "{}", id(&r));
        checked += 1;
    }
    assert!(checked > 0);
}

#[test]
fn every_golden_shape_passes_validate_shape_with_optional_layout() {
    for r in records("shapes.jsonl") {
        let Some(shape) = decode(&r) else { continue };
        shape_util::validate_shape_with_optional_layout(&shape).unwrap();
        // ValidateShape fails exactly when an array has no layout.
        assert_eq!(
            shape_util::validate_shape(&shape).is_ok(),
            xla_shape::layout_util::has_layout(&shape),
            "{}",
            id(&r)
        );
        // Printing without layouts is XLA's HumanString.
        if let Some(expected) = r["facts"]["xla_str_no_layout"].as_str() {
            assert_eq!(shape_util::human_string(&shape), expected, "{}", id(&r));
        }
        if let Some(n) = r["facts"]["leaf_count"].as_i64() {
            assert_eq!(shape_util::get_leaf_count(&shape), n, "{}", id(&r));
        }
    }
}
