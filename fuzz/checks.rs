//! The properties the fuzz targets assert, shared with the stable
//! `tests/fuzz_corpus.rs`, which replays every committed input through them.

use prost::Message;
use xla_shape::Shape;
use xla_shape::proto::ShapeProto;

/// ShapeProto bytes: whatever decodes re-encodes to bytes that decode to an
/// equal shape, and re-encoding that is a fixed point. Where prost (which
/// is stricter than Google's runtimes) decodes the bytes too, converting its
/// message gives the same answer.
pub fn proto_roundtrip(data: &[u8]) {
    let ours = Shape::from_proto_bytes(data);
    if let Ok(shape) = &ours {
        let bytes = shape.to_proto_bytes();
        let again = Shape::from_proto_bytes(&bytes).expect("re-encoded shape decodes");
        assert_eq!(&again, shape);
        assert_eq!(again.to_proto_bytes(), bytes);
        assert_eq!(ShapeProto::from(shape).encode_to_vec(), bytes);
    }
    if let Ok(p) = ShapeProto::decode(data) {
        let via_prost = Shape::try_from(&p);
        match (&ours, &via_prost) {
            (Ok(a), Ok(b)) => assert_eq!(a, b),
            (Err(a), Err(b)) => assert_eq!(a.message(), b.message()),
            _ => panic!("decoders disagree: ours {ours:?}, prost's {via_prost:?}"),
        }
    }
}
