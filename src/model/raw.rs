//! [`RawShape`] and [`RawLayout`]: what a `ShapeProto` / `LayoutProto`
//! carries, before XLA's `FromProto` checks and validation.

use crate::model::inline::{Dims, DynamicFlags};
use crate::model::tile::{SplitConfig, Tile, Tiles};
use crate::proto::{LayoutProto, ProgramShapeProto, ShapeProto};

/// What a `ShapeProto` carries, held in the model's own containers before
/// XLA's `FromProto` checks and validation run over it. The wire decoder
/// fills it directly; a `ShapeProto` is moved into it.
#[derive(Debug, Default)]
pub(crate) struct RawShape {
    pub(crate) element_type: i32,
    pub(crate) dimensions: Dims,
    pub(crate) dynamic: DynamicFlags,
    pub(crate) tuple_shapes: Vec<RawShape>,
    pub(crate) layout: Option<RawLayout>,
}

/// What a `LayoutProto` carries (the fields XLA reads), unchecked.
#[derive(Debug, Default)]
pub(crate) struct RawLayout {
    pub(crate) minor_to_major: Dims,
    pub(crate) tiles: Tiles,
    pub(crate) tail_padding_alignment_in_elements: i64,
    pub(crate) index_primitive_type: i32,
    pub(crate) pointer_primitive_type: i32,
    pub(crate) element_size_in_bits: i64,
    pub(crate) memory_space: i64,
    pub(crate) split_configs: Vec<SplitConfig>,
    pub(crate) physical_shape: Option<Box<RawShape>>,
    pub(crate) dynamic_shape_metadata_prefix_bytes: i64,
}

impl From<ShapeProto> for RawShape {
    fn from(p: ShapeProto) -> RawShape {
        RawShape {
            element_type: p.element_type,
            dimensions: p.dimensions.into(),
            dynamic: p.is_dynamic_dimension.into(),
            tuple_shapes: p.tuple_shapes.into_iter().map(RawShape::from).collect(),
            layout: p.layout.map(|l| RawLayout::from(*l)),
        }
    }
}

impl From<LayoutProto> for RawLayout {
    fn from(p: LayoutProto) -> RawLayout {
        RawLayout {
            minor_to_major: p.minor_to_major.into(),
            tiles: p
                .tiles
                .into_iter()
                .map(|t| Tile::from_bounds_unchecked(&t.dimensions))
                .collect(),
            tail_padding_alignment_in_elements: p.tail_padding_alignment_in_elements,
            index_primitive_type: p.index_primitive_type,
            pointer_primitive_type: p.pointer_primitive_type,
            element_size_in_bits: p.element_size_in_bits,
            memory_space: p.memory_space,
            split_configs: p
                .split_configs
                .into_iter()
                .map(|s| SplitConfig::new(s.dimension, s.split_indices))
                .collect(),
            physical_shape: p.physical_shape.map(|s| Box::new(RawShape::from(*s))),
            dynamic_shape_metadata_prefix_bytes: p.dynamic_shape_metadata_prefix_bytes,
        }
    }
}

/// What a `ProgramShapeProto` carries, unchecked.
#[derive(Debug, Default)]
pub(crate) struct RawProgramShape {
    pub(crate) parameters: Vec<RawShape>,
    pub(crate) result: Option<RawShape>,
    pub(crate) parameter_names: Vec<String>,
}

impl From<ProgramShapeProto> for RawProgramShape {
    fn from(p: ProgramShapeProto) -> RawProgramShape {
        RawProgramShape {
            parameters: p.parameters.into_iter().map(RawShape::from).collect(),
            result: p.result.map(RawShape::from),
            parameter_names: p.parameter_names,
        }
    }
}
