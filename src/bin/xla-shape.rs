//! `xla-shape`: inspect and convert XLA shapes from the command line.

use std::process::ExitCode;

use xla_shape::{ArrayShape, Layout, PrimitiveType, Shape, Tile};

/// The built-in example: a TPU-tiled bf16 array.
const EXAMPLE: &str = "bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}";

fn example() -> xla_shape::Result<Shape> {
    let layout =
        Layout::new([3, 2, 0, 1]).with_tiles(vec![Tile::new([8, 128])?, Tile::new([2, 1])?]);
    Ok(Shape::from(
        ArrayShape::new(PrimitiveType::Bf16, [8, 1, 1280, 16384])?.with_layout(Some(layout))?,
    ))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn describe(shape: &Shape) -> String {
    let mut out = format!("shape:        {shape}\n");
    if let Some(a) = shape.as_array() {
        out += &format!("element type: {}\n", a.element_type());
        out += &format!("dimensions:   {:?}\n", a.dimensions());
        if let Some(l) = a.layout() {
            out += &format!("layout:       {l}\n");
        }
    }
    out += &format!("proto hex:    {}\n", hex(&shape.to_proto_bytes()));
    out
}

fn main() -> ExitCode {
    match example() {
        Ok(shape) => {
            debug_assert_eq!(shape.to_string(), EXAMPLE);
            print!("{}", describe(&shape));
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
