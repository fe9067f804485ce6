//! `tiling` (every tile applied) agrees with XLA's own helpers where those
//! are exact: with `index_util` when a layout has no tiles, and with
//! `LayoutUtil::LinearIndex` and `ShapeUtil::ArraySize`, which use the first
//! tile only, when there is exactly one tile and the rank is above 1 (for
//! rank 1, `LinearIndex` ignores tiles; xla/layout_util.cc).

use crate::common::every_index;
use proptest::prelude::*;
use xla_shape::tiling::{Slot, TiledLayout};
use xla_shape::{ArrayShape, Layout, PrimitiveType, Tile, index_util, layout_util, shape_util};

/// Dimensions (0 to 6 each), a permutation for minor_to_major, a type.
fn array() -> impl Strategy<Value = (Vec<i64>, Vec<i64>, PrimitiveType)> {
    (1usize..=4).prop_flat_map(|rank| {
        (
            proptest::collection::vec(0i64..=6, rank),
            Just((0..rank as i64).collect::<Vec<_>>()).prop_shuffle(),
            prop_oneof![
                Just(PrimitiveType::F32),
                Just(PrimitiveType::Bf16),
                Just(PrimitiveType::S8)
            ],
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn untiled_offsets_are_index_util_linear_indices((dims, mtm, t) in array()) {
        let a = ArrayShape::new(t, dims.clone()).unwrap().with_layout(Some(Layout::new(mtm))).unwrap();
        let tiled = TiledLayout::new(&a).unwrap();
        for index in every_index(&dims) {
            let linear = index_util::multidimensional_index_to_linear_index(&a, &index).unwrap();
            prop_assert_eq!(tiled.offset(&index).unwrap(), linear);
            prop_assert_eq!(tiled.slot(linear).unwrap(), Slot::Element(index.clone()));
            prop_assert_eq!(index_util::linear_index_to_multidimensional_index(&a, linear).unwrap(), index);
        }
        prop_assert_eq!(tiled.byte_size(), shape_util::byte_size_of_elements(&a).unwrap());
    }

    #[test]
    fn single_tile_offsets_are_layout_util_linear_indices(
        (dims, mtm, t) in array().prop_filter("rank above 1", |(d, _, _)| d.len() > 1),
        bounds in proptest::collection::vec(1i64..=4, 1..=5),
    ) {
        let layout = Layout::new(mtm).with_tiles(vec![Tile::new(&bounds).unwrap()]);
        let a = ArrayShape::new(t, dims.clone()).unwrap().with_layout(Some(layout)).unwrap();
        let tiled = TiledLayout::new(&a).unwrap();
        for index in every_index(&dims) {
            prop_assert_eq!(tiled.offset(&index).unwrap(), layout_util::linear_index(&a, &index).unwrap());
        }
        prop_assert_eq!(tiled.byte_size(), shape_util::array_size(&a).unwrap());
    }
}

#[test]
fn spec_figure_1_in_all_three() {
    // Figure 1 of XLA's tiled-layout document, and `LinearIndex`: F32[3,5]{1,0:T(2,2)}, element (2,3) at 17.
    let a: ArrayShape = match "f32[3,5]{1,0:T(2,2)}".parse().unwrap() {
        xla_shape::Shape::Array(a) => a,
        _ => unreachable!(),
    };
    assert_eq!(TiledLayout::new(&a).unwrap().offset(&[2, 3]).unwrap(), 17);
    assert_eq!(layout_util::linear_index(&a, &[2, 3]).unwrap(), 17);
    // ArraySize: 24 slots of 4 bytes.
    assert_eq!(shape_util::array_size(&a).unwrap(), 96);
    assert_eq!(TiledLayout::new(&a).unwrap().byte_size(), 96);
}
