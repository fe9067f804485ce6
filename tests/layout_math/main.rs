//! Memory layout arithmetic: tiled element offsets, strides (and the
//! `ndarray` views), and relayout copies between layouts.

#[path = "../common/mod.rs"]
mod common;

mod relayout;
mod relayout_kernels;
mod relayout_miri;
mod relayout_tilings;
mod shards;
mod strides;
mod strides_ndarray;
mod tiling;
mod tiling_agreement;
mod tiling_ranges;
