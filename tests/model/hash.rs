//! `Hash` of the model types agrees with their `Eq` (XLA's
//! `operator==`).

use xla_shape::Shape;

/// `Hash` agrees with `Eq`: XLA's `Layout::operator==` never compares
/// `dynamic_shape_metadata_prefix_bytes` (`M(n)`), so shapes that differ
/// only there are equal and must hash equally; shapes XLA tells apart
/// (another layout, element type, tuple arity) are unequal.
#[test]
fn equal_shapes_hash_equally() {
    let state = std::hash::RandomState::new();
    let h = |s: &str| {
        use std::hash::BuildHasher;
        state.hash_one(s.parse::<Shape>().unwrap())
    };
    let a: Shape = "(f32[2,3]{1,0:M(8)}, s8[])".parse().unwrap();
    let b: Shape = "(f32[2,3]{1,0}, s8[])".parse().unwrap();
    assert_eq!(a, b);
    assert_eq!(h("(f32[2,3]{1,0:M(8)}, s8[])"), h("(f32[2,3]{1,0}, s8[])"));
    for (x, y) in [
        ("f32[2,3]{1,0}", "f32[2,3]{0,1}"),
        ("f32[2,3]", "s32[2,3]"),
        ("(f32[])", "(f32[], f32[])"),
        ("f32[<=3]", "f32[3]"),
    ] {
        let (sx, sy) = (x.parse::<Shape>().unwrap(), y.parse::<Shape>().unwrap());
        assert_ne!(sx, sy, "{x} vs {y}");
        assert_ne!(h(x), h(y), "{x} vs {y}");
    }
}
