//! Bad ShapeProto bytes never panic: they are rejected with an error, as
//! XLA (or C++ protobuf, where it rejects them first) rejects them.

use crate::common::*;
use proptest::prelude::*;
use prost::Message;
use xla_shape::proto::ShapeProto;
use xla_shape::{ErrorKind, MAX_NESTING_DEPTH, Shape};

/// `depth` tuples around `f32[]`: the f32 message sits `depth` levels
/// below the root.
fn nested(depth: usize) -> Vec<u8> {
    let mut s = ShapeProto {
        element_type: 11,
        ..Default::default()
    };
    for _ in 0..depth {
        s = ShapeProto {
            element_type: 13,
            tuple_shapes: vec![s],
            ..Default::default()
        };
    }
    s.encode_to_vec()
}

#[test]
fn nesting_follows_protobufs_recursion_limit() {
    // Google's runtime (upb, like C++ protobuf's default limit of 100)
    // parses 100 nested tuple levels below the root and rejects 101:
    // checked with protobuf 7.36.2 on xla_data_pb2.ShapeProto.
    assert_eq!(MAX_NESTING_DEPTH, 100);
    let ok = Shape::from_proto_bytes(&nested(100)).unwrap();
    assert!(ok.is_tuple());
    let err = Shape::from_proto_bytes(&nested(101)).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Decode, "{err}");
    // A message built in memory is held to the same limit.
    let mut deep = ShapeProto {
        element_type: 11,
        ..Default::default()
    };
    for _ in 0..101 {
        deep = ShapeProto {
            element_type: 13,
            tuple_shapes: vec![deep],
            ..Default::default()
        };
    }
    assert_eq!(
        Shape::try_from(&deep).unwrap_err().kind(),
        ErrorKind::Decode
    );
}

#[test]
fn very_deep_nesting_is_rejected_without_exhausting_the_stack() {
    // 5,000 nested tuple_shapes: each level is tag 0x22, a length, then
    // `element_type: TUPLE` (0x10 0x0d). Built from the inside out.
    let bytes = nested_tuple_bytes(5_000);
    assert_eq!(
        Shape::from_proto_bytes(&bytes).unwrap_err().kind(),
        ErrorKind::Decode
    );
}

#[test]
fn every_truncation_of_every_golden_proto_is_handled() {
    for r in records("shapes.jsonl") {
        let bytes = hex(str_field(&r, "proto_hex"));
        for end in 0..bytes.len() {
            // Either a shorter valid message or an error; never a panic.
            let _ = Shape::from_proto_bytes(&bytes[..end]);
        }
    }
}

#[test]
fn negative_and_overflowing_dimensions() {
    let s = |dims: Vec<i64>| ShapeProto {
        element_type: 11,
        dimensions: dims,
        ..Default::default()
    };
    let e = Shape::try_from(&s(vec![2, -1])).unwrap_err();
    assert_eq!(
        e.to_string(),
        "Shape Error: Negative dimension at index 1: -1. Shape(f32): f32[2,-1]"
    );
    // 2^32 * 2^32 overflows the element count (ValidateDimensions).
    let e = Shape::try_from(&s(vec![1 << 32, 1 << 32])).unwrap_err();
    assert_eq!(
        e.to_string(),
        "Shape Error: Dimensions overflow. Shape(f32): f32[4294967296,4294967296]"
    );
    // 2^62 elements fit, 2^64 bytes do not (ValidateShapeSize).
    let e = Shape::try_from(&s(vec![1 << 62])).unwrap_err();
    assert_eq!(
        e.to_string(),
        "Shape f32[4611686018427387904] size may overflow int64_t."
    );
    // A negative dimension is reported before an overflow (the order of `ShapeUtil::ValidateShape`'s checks).
    let e = Shape::try_from(&s(vec![1 << 62, 1 << 62, -3])).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("Shape Error: Negative dimension at index 2: -3.")
    );
}

#[test]
fn huge_arrays_decode_without_allocating_their_elements() {
    // s8[2^62]: 2^62 one-byte elements is a valid shape; decoding it only
    // reads its dimensions.
    let p = ShapeProto {
        element_type: 2,
        dimensions: vec![1 << 62],
        ..Default::default()
    };
    let s = Shape::from_proto_bytes(&p.encode_to_vec()).unwrap();
    assert_eq!(s.dimensions(), Some(&[1 << 62][..]));
    assert_eq!(s.to_string(), "s8[4611686018427387904]");
}

#[test]
fn unknown_enum_numbers_stay_in_the_raw_proto_and_fail_conversion() {
    // element_type 99 (varint 0x63), dimensions [2].
    let bytes = [0x10, 0x63, 0x1a, 0x01, 0x02];
    let raw = ShapeProto::decode(&bytes[..]).unwrap();
    assert_eq!(raw.element_type, 99);
    assert_eq!(raw.encode_to_vec(), bytes);
    let e = Shape::from_proto_bytes(&bytes).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidShape);
    // XLA's FromProto turns the unknown number into PRIMITIVE_TYPE_INVALID;
    // validation then reports it (ShapeUtilTest's `FromProto` cases with an invalid element type).
    assert_eq!(
        e.to_string(),
        "Shape Error: Invalid element type. Shape(primitive_type_invalid): primitive_type_invalid[]"
    );
    // A negative number (the same upstream case: -1) alike.
    let p = ShapeProto {
        element_type: -1,
        ..Default::default()
    };
    assert_eq!(
        Shape::try_from(&p).unwrap_err().kind(),
        ErrorKind::InvalidShape
    );
}

#[test]
fn buffer_needs_exactly_one_element() {
    let p = ShapeProto {
        element_type: 34,
        ..Default::default()
    };
    let e = Shape::try_from(&p).unwrap_err();
    assert_eq!(
        e.to_string(),
        "Buffer shape must have exactly one tuple shape."
    );
    assert_eq!(e.kind(), ErrorKind::MalformedProto);
}

#[test]
fn u84_u85_from_proto_then_validation() {
    use xla_shape::proto::LayoutProto;
    // U84: tuple{ s8[137438953472] layout{mtm 0, physical_shape tuple{ {} }} }:
    // FromProto accepts it, validation rejects the physical shape.
    let physical = ShapeProto {
        element_type: 13,
        tuple_shapes: vec![ShapeProto::default()],
        ..Default::default()
    };
    let element = ShapeProto {
        element_type: 2,
        dimensions: vec![137_438_953_472],
        is_dynamic_dimension: vec![false],
        layout: Some(Box::new(LayoutProto {
            minor_to_major: vec![0],
            physical_shape: Some(Box::new(physical)),
            ..Default::default()
        })),
        ..Default::default()
    };
    let p = ShapeProto {
        element_type: 13,
        tuple_shapes: vec![element],
        ..Default::default()
    };
    let e = Shape::try_from(&p).unwrap_err();
    assert_eq!(
        e.to_string(),
        "layout has a physical_shape, but is not a sparse array: s8[137438953472]"
    );
    // U85: s8 dims with a huge entry and a non-permutation layout whose
    // physical shape has element type -562: the dimensions overflow.
    let p = ShapeProto {
        element_type: 2,
        dimensions: vec![0, 8, 0, 0, 4, 1, 1, 6, 281_474_976_710_657, 1],
        layout: Some(Box::new(LayoutProto {
            minor_to_major: vec![1, 3, 0, 5, 4, 6, 8, 7, 6, 9],
            physical_shape: Some(Box::new(ShapeProto {
                element_type: -562,
                ..Default::default()
            })),
            ..Default::default()
        })),
        ..Default::default()
    };
    // The zero dimensions keep the product at 0; the duplicate 6 in
    // minor_to_major is the first layout rule that fails.
    let e = Shape::try_from(&p).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("layout minor_to_major field has duplicate values"),
        "{e}"
    );
}

fn golden_protos() -> &'static [Vec<u8>] {
    static ALL: std::sync::OnceLock<Vec<Vec<u8>>> = std::sync::OnceLock::new();
    ALL.get_or_init(|| {
        records("shapes.jsonl")
            .iter()
            .map(|r| hex(str_field(r, "proto_hex")))
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
        let _ = Shape::from_proto_bytes(&bytes);
        let _ = xla_shape::Layout::from_proto_bytes(&bytes);
        let _ = xla_shape::ProgramShape::from_proto_bytes(&bytes);
    }

    #[test]
    fn mutated_golden_protos_never_panic(
        pick in 0usize..447,
        flips in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..4),
    ) {
        let all = golden_protos();
        let mut bytes = all[pick % all.len()].clone();
        if bytes.is_empty() {
            return Ok(());
        }
        for (at, v) in flips {
            let n = bytes.len();
            bytes[at % n] = v;
        }
        if let Ok(s) = Shape::from_proto_bytes(&bytes) {
            // Whatever decodes re-encodes to bytes that decode to it again.
            prop_assert_eq!(Shape::from_proto_bytes(&s.to_proto_bytes()).unwrap(), s);
        }
    }
}
