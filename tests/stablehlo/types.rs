//! Types and shapes both ways: XLA's import of HLO shapes as MLIR types
//! (`types.jsonl`, `hlo_to_stablehlo`), read back to the same shape.

use xla_shape::Shape;
use xla_shape::stablehlo::Type;

use crate::common;

#[test]
fn shapes_print_as_xla_imports_them() {
    let records = common::records("stablehlo/types.jsonl");
    assert!(records.len() > 30);
    for r in records {
        let shape: Shape = r["shape"].as_str().unwrap().parse().unwrap();
        let want = r["type"].as_str().unwrap();
        let ty = Type::from_shape(&shape).unwrap();
        assert_eq!(ty.to_string(), want, "{shape}");
        // And back: the type reads as the shape (default layout), but for
        // XLA's 1-bit integers, which MLIR writes as `i1`/`ui1`, read as
        // `pred`.
        let parsed: Type = want.parse().unwrap();
        assert_eq!(parsed, ty);
        let back = parsed.to_shape().unwrap();
        match shape.element_type() {
            xla_shape::PrimitiveType::S1 | xla_shape::PrimitiveType::U1 => {
                assert_eq!(back.element_type(), xla_shape::PrimitiveType::Pred)
            }
            _ => assert!(
                back.equal_with(&shape, &xla_shape::ShapeEqual::default().ignore_layout()),
                "{shape} {back}"
            ),
        }
    }
}
