//! The validated data model: [`Shape`], [`Layout`] and their parts.

pub(crate) mod convert;
pub(crate) mod layout;
pub(crate) mod primitive_type;
pub(crate) mod program_shape;
pub(crate) mod raw;
pub(crate) mod shape;
pub(crate) mod shape_index;
pub(crate) mod tile;
pub(crate) mod validate;
pub(crate) mod wire;

pub use layout::{Layout, LayoutEqual};
pub use primitive_type::PrimitiveType;
pub use program_shape::ProgramShape;
pub use shape::{ArrayShape, Shape, ShapeEqual};
pub use shape_index::ShapeIndex;
pub use tile::{SplitConfig, Tile};
