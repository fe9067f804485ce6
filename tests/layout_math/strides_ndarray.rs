//! The `ndarray` feature: views over array buffers. Also run under Miri
//! (`cargo +nightly miri test --all-features --test layout_math
//! strides_ndarray::`): the view casts the byte buffer to typed elements.
#![cfg(feature = "ndarray")]

use xla_shape::strides::ndarray_view;
use xla_shape::{ArrayShape, ErrorKind, Layout, PrimitiveType, Tile};

fn shape(t: PrimitiveType, dims: &[i64], layout: Layout) -> ArrayShape {
    ArrayShape::new(t, dims.to_vec())
        .unwrap()
        .with_layout(Some(layout))
        .unwrap()
}

/// 8-byte aligned storage for byte buffers.
fn aligned(bytes: &[u8]) -> Vec<u64> {
    let mut v = vec![0u64; bytes.len().div_ceil(8) + 1];
    for (i, b) in bytes.iter().enumerate() {
        v[i / 8] |= u64::from(*b) << (8 * (i % 8));
    }
    v
}

fn as_bytes(v: &[u64], len: usize) -> &[u8] {
    // SAFETY: u64 has no padding; `len` bytes lie within `v`.
    unsafe { std::slice::from_raw_parts(v.as_ptr().cast::<u8>(), len) }
}

#[test]
fn views_follow_the_layout() {
    // f32[2,3]{0,1}: column-major 1..6 is [[1,2,3],[4,5,6]] logically.
    let s = shape(PrimitiveType::F32, &[2, 3], Layout::new([0, 1]));
    let bytes: Vec<u8> = [1f32, 4., 2., 5., 3., 6.]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let store = aligned(&bytes);
    let v = ndarray_view::<f32>(&s, as_bytes(&store, 24)).unwrap();
    assert_eq!(v.shape(), [2, 3]);
    assert_eq!(
        v.iter().copied().collect::<Vec<_>>(),
        [1., 2., 3., 4., 5., 6.]
    );
    // Padded rows: f32[2,2]{1,0:T(4,2)} holds 8 slots, rows 2 apart.
    let l = Layout::new([1, 0]).with_tiles(vec![Tile::new([4, 2]).unwrap()]);
    let s = shape(PrimitiveType::S32, &[2, 2], l);
    let bytes: Vec<u8> = (0..8i32).flat_map(|v| v.to_le_bytes()).collect();
    let store = aligned(&bytes);
    let v = ndarray_view::<i32>(&s, as_bytes(&store, 32)).unwrap();
    assert_eq!(v[[1, 1]], 3);
    // bf16 as raw u16.
    let s = ArrayShape::new(PrimitiveType::Bf16, [2]).unwrap();
    let store = aligned(&[0x80, 0x3f, 0x00, 0x40]);
    let v = ndarray_view::<u16>(&s, as_bytes(&store, 4)).unwrap();
    assert_eq!(v[[0]], 0x3f80);
}

#[test]
fn user_buffers_are_checked() {
    let s = ArrayShape::new(PrimitiveType::F32, [2]).unwrap();
    let store = aligned(&[0; 16]);
    let bytes = as_bytes(&store, 12);
    assert_eq!(
        ndarray_view::<f32>(&s, &bytes[..7]).unwrap_err().kind(),
        ErrorKind::BufferSize
    );
    assert_eq!(
        ndarray_view::<f32>(&s, &bytes[1..9]).unwrap_err().kind(),
        ErrorKind::BufferSize
    );
    assert_eq!(
        ndarray_view::<i32>(&s, &bytes[..8]).unwrap_err().kind(),
        ErrorKind::InvalidArgument
    );
    let l = Layout::new([1, 0]).with_tiles(vec![Tile::new([2, 2]).unwrap()]);
    let tiled = shape(PrimitiveType::U8, &[3, 5], l);
    let store = aligned(&[0; 24]);
    assert_eq!(
        ndarray_view::<u8>(&tiled, as_bytes(&store, 24))
            .unwrap_err()
            .kind(),
        ErrorKind::InvalidArgument
    );
}
