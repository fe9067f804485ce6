//! `strides`: dense layouts to strides and back, DirectML's examples
//! ("Using strides to express padding and memory layout" and its helper
//! functions), and round trips.

use proptest::prelude::*;
use xla_shape::strides::{
    DmlLayout, ViewKind, byte_strides, classify_view, dml_buffer_tensor_size, dml_strides,
    dml_view, element_strides, layout_from_byte_strides, layout_from_strides,
};
use xla_shape::{ArrayShape, ErrorKind, Layout, PrimitiveType, Tile};

fn shape(t: PrimitiveType, dims: &[i64], layout: Layout) -> ArrayShape {
    ArrayShape::new(t, dims.to_vec())
        .unwrap()
        .with_layout(Some(layout))
        .unwrap()
}

#[test]
fn directml_two_and_three_dimensions() {
    // Row-major 2x3: height stride 3, width stride 1; column-major: 1, 2.
    let hw = shape(PrimitiveType::U8, &[2, 3], Layout::new([1, 0]));
    assert_eq!(element_strides(&hw).unwrap(), [3, 1]);
    let wh = shape(PrimitiveType::U8, &[2, 3], Layout::new([0, 1]));
    assert_eq!(element_strides(&wh).unwrap(), [1, 2]);
    assert_eq!(
        layout_from_strides(&[2, 3], &[1, 2]).unwrap(),
        Layout::new([0, 1])
    );
    // DHW 2x2x3: strides {6,3,1}; H (d=1,h=0,w=1) is at {1,0,1}.{6,3,1} = 7.
    let dhw = shape(PrimitiveType::U8, &[2, 2, 3], Layout::new([2, 1, 0]));
    let s = element_strides(&dhw).unwrap();
    assert_eq!(s, [6, 3, 1]);
    assert_eq!(s[0] + s[2], 7);
    for view in [
        (&[2i64, 3][..], &[3i64, 1][..]),
        (&[2, 3], &[1, 2]),
        (&[2, 2, 3], &[6, 3, 1]),
    ] {
        assert_eq!(classify_view(view.0, view.1).unwrap(), ViewKind::Packed);
    }
}

#[test]
fn directml_broadcast_and_padding() {
    // Broadcasting: logically 2x3, the second row identical to the first,
    // stored as A B C with a height stride of 0: 3 elements for 6.
    assert_eq!(
        classify_view(&[2, 3], &[0, 1]).unwrap(),
        ViewKind::Broadcast { dims: vec![0] }
    );
    // NCHW with a C-stride of 0: every channel the same.
    assert_eq!(
        classify_view(&[1, 3, 2, 2], &[4, 0, 2, 1]).unwrap(),
        ViewKind::Broadcast { dims: vec![1] }
    );
    // DMLCalcBufferTensorSize: (0*... last element 2) + 1 = 3 bytes -> 4.
    assert_eq!(
        dml_buffer_tensor_size(PrimitiveType::U8, &[2, 3], Some(&[0, 1])).unwrap(),
        4
    );
    // Padding: A B C x x D E F x x, a height stride of 5 instead of 3.
    assert_eq!(classify_view(&[2, 3], &[5, 1]).unwrap(), ViewKind::Padded);
    // Last element at 1*5 + 2 = 7: 8 bytes (the doc's buffer holds 10;
    // DirectML's size is the minimum).
    assert_eq!(
        dml_buffer_tensor_size(PrimitiveType::U8, &[2, 3], Some(&[5, 1])).unwrap(),
        8
    );
    let e = layout_from_strides(&[2, 3], &[5, 1]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert!(e.to_string().contains("dimension 0 has stride 5"), "{e}");
    // Overlapping elements without a zero stride.
    assert_eq!(
        classify_view(&[2, 3], &[1, 1]).unwrap(),
        ViewKind::Overlapping { dims: vec![0, 1] }
    );
    // Interleaved strides that do not collide: offsets {0,2,4} + {0,3}.
    assert_eq!(classify_view(&[3, 2], &[2, 3]).unwrap(), ViewKind::Padded);
    let e = layout_from_strides(&[2, 3], &[1, 1]).unwrap_err();
    assert!(e.to_string().contains("overlap"), "{e}");
}

#[test]
fn directml_nchw_and_nhwc_views() {
    // A 2-D tensor of height 3 and width 5 as {1,1,3,5}: packed NCHW
    // strides {15,15,5,1}, packed NHWC {15,1,5,1}.
    assert_eq!(
        dml_strides(DmlLayout::Nchw, &[1, 1, 3, 5], &[]).unwrap(),
        [15, 15, 5, 1]
    );
    assert_eq!(
        dml_strides(DmlLayout::Nhwc, &[1, 1, 3, 5], &[]).unwrap(),
        [15, 1, 5, 1]
    );
    let hw = ArrayShape::new(PrimitiveType::F32, [3, 5]).unwrap();
    let v = dml_view(&hw).unwrap();
    assert_eq!(v.sizes, [1, 1, 3, 5]);
    assert_eq!(v.strides, [15, 15, 5, 1]);
    // DMLCalcBufferTensorSize without strides: 15 * 4 = 60 bytes; with the
    // NHWC strides the last element is at 2*5 + 4 = 14: also 60.
    assert_eq!(
        dml_buffer_tensor_size(PrimitiveType::F32, &[1, 1, 3, 5], None).unwrap(),
        60
    );
    assert_eq!(
        dml_buffer_tensor_size(PrimitiveType::F32, &[1, 1, 3, 5], Some(&[15, 1, 5, 1])).unwrap(),
        60
    );
    // An XLA NHWC array (logical N,C,H,W; layout {1,3,2,0}) as DirectML
    // sees it: N-stride H*W*C = 2*3*4 = 24, C 1, H W*C = 12, W C = 4.
    let nhwc = shape(PrimitiveType::F16, &[2, 4, 2, 3], Layout::new([1, 3, 2, 0]));
    let v = dml_view(&nhwc).unwrap();
    assert_eq!(v.strides, [24, 1, 12, 4]);
    assert_eq!(
        dml_strides(DmlLayout::Nhwc, &[2, 4, 2, 3], &[]).unwrap(),
        [24, 1, 12, 4]
    );
    // 5-D: NDHWC for sizes {1,2,3,4,5}: N = 2*3*4*5, C 1, D 4*5*2, H 5*2, W 2.
    assert_eq!(
        dml_strides(DmlLayout::Nhwc, &[1, 2, 3, 4, 5], &[]).unwrap(),
        [120, 1, 40, 10, 2]
    );
    // CalculateStrides with broadcast C: stride 0, counted as size 1.
    assert_eq!(
        dml_strides(DmlLayout::Nchw, &[2, 3, 4, 5], &[false, true, false, false]).unwrap(),
        [20, 0, 5, 1]
    );
    assert!(dml_strides(DmlLayout::Nchw, &[3, 5], &[]).is_err());
    let r6 = ArrayShape::new(PrimitiveType::F32, [1, 1, 1, 1, 1, 1]).unwrap();
    assert!(dml_view(&r6).is_err());
}

#[test]
fn strides_of_tiled_and_packed_layouts() {
    // Tiles that keep rows evenly spaced: f32[2,128]{1,0:T(8,128)} is
    // row-major with padding rows (8*128 slots).
    let l = Layout::new([1, 0]).with_tiles(vec![Tile::new([8, 128]).unwrap()]);
    let padded = shape(PrimitiveType::F32, &[2, 128], l);
    assert_eq!(element_strides(&padded).unwrap(), [128, 1]);
    assert_eq!(byte_strides(&padded).unwrap(), [512, 4]);
    // Figure 1's (2,2) tiles split the 5 columns into 2-element pieces
    // 4 elements apart: no strides.
    let l = Layout::new([1, 0]).with_tiles(vec![Tile::new([2, 2]).unwrap()]);
    let e = element_strides(&shape(PrimitiveType::F32, &[3, 5], l)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert!(
        e.to_string()
            .starts_with("f32[3,5]{1,0:T(2,2)} has no strides"),
        "{e}"
    );
    // E(4): element strides, no byte strides.
    let l = Layout::new([1, 0]).with_element_size_in_bits(4);
    let s4 = shape(PrimitiveType::S4, &[2, 3], l);
    assert_eq!(element_strides(&s4).unwrap(), [3, 1]);
    let e = byte_strides(&s4).unwrap_err();
    assert!(e.to_string().contains("4 bits"), "{e}");
    // XLA's ByteStrides rule for size-1 dimensions: f32[3,1,2]{0,1,2}.
    let s = shape(PrimitiveType::F32, &[3, 1, 2], Layout::new([0, 1, 2]));
    assert_eq!(byte_strides(&s).unwrap(), [4, 12, 12]);
}

#[test]
fn numpy_byte_strides() {
    // np.zeros((2,3,4), np.float32).transpose(2,0,1).strides = (4, 48, 16)
    // for shape (4,2,3): dimension 0 is the most minor.
    let l = layout_from_byte_strides(PrimitiveType::F32, &[4, 2, 3], &[4, 48, 16]).unwrap();
    assert_eq!(l.minor_to_major(), [0, 2, 1]);
    let e = layout_from_byte_strides(PrimitiveType::F32, &[2, 3], &[12, 2]).unwrap_err();
    assert!(e.to_string().contains("not a multiple"), "{e}");
    // Size-1 dimensions accept any stride; size-0 arrays any strides.
    assert_eq!(
        layout_from_strides(&[2, 1, 3], &[3, 999, 1])
            .unwrap()
            .minor_to_major()
            .len(),
        3
    );
    assert_eq!(
        layout_from_strides(&[2, 0, 3], &[0, 3, 1]).unwrap(),
        Layout::new([2, 1, 0])
    );
    assert!(layout_from_strides(&[2, 3], &[-3, 1]).is_err());
    assert!(layout_from_strides(&[2, 3], &[1]).is_err());
}

proptest! {
    /// strides -> layout -> strides is the identity for packed
    /// permutations (dimensions of size 1 included).
    #[test]
    fn strides_layout_strides(
        (dims, mtm) in (0usize..=5).prop_flat_map(|rank| (
            prop::collection::vec(1i64..=4, rank),
            Just((0..rank as i64).collect::<Vec<_>>()).prop_shuffle(),
        ))
    ) {
        let s = shape(PrimitiveType::F32, &dims, Layout::new(mtm));
        let strides = element_strides(&s).unwrap();
        let back = layout_from_strides(&dims, &strides).unwrap();
        let again = element_strides(&shape(PrimitiveType::F32, &dims, back)).unwrap();
        prop_assert_eq!(&again, &strides);
        prop_assert_eq!(classify_view(&dims, &strides).unwrap(), ViewKind::Packed);
    }
}
