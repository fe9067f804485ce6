//! The encoders that write into a caller's buffer: `encode_to` appends,
//! `to_proto_bytes` hands out exactly the encoded length.

use xla_shape::Shape;

/// `encode_to` appends: what was in the buffer stays.
#[test]
fn encode_to_appends_to_the_callers_buffer() {
    let s: Shape = "(f32[2]{0}, s8[])".parse().unwrap();
    let mut buf = vec![0xaa];
    s.encode_to(&mut buf);
    assert_eq!(buf[0], 0xaa);
    assert_eq!(buf[1..], s.to_proto_bytes());
}

/// `to_proto_bytes` hands out exactly the encoded length, as prost's
/// `encode_to_vec` does, though the writer reserves an upper bound first:
/// for small shapes, for a tuple whose bytes outgrow the per-thread scratch
/// (64 KiB), and again after it, on the same thread and on a fresh one.
#[test]
fn to_proto_bytes_holds_exactly_its_length() {
    let small: Shape = "bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}"
        .parse()
        .unwrap();
    let large = Shape::Tuple(vec![small.clone(); 3000]);
    let check = |s: &Shape| {
        let bytes = s.to_proto_bytes();
        let mut direct = Vec::new();
        s.encode_to(&mut direct);
        assert_eq!(bytes, direct);
        assert_eq!(bytes.capacity(), bytes.len());
        bytes.len()
    };
    assert!(check(&large) > 64 << 10);
    for s in [&small, &large, &small] {
        check(s);
    }
    let layout = small.layout().unwrap();
    let bytes = layout.to_proto_bytes();
    assert_eq!(bytes.capacity(), bytes.len());
    std::thread::spawn(move || check(&small)).join().unwrap();
}
