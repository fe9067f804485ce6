//! The validated data model: [`Shape`], [`Layout`] and their parts.

/// The builder methods of an equality-options type ([`ShapeEqual`],
/// [`LayoutEqual`]): one `fn name(self) -> Self` per flag, setting it.
macro_rules! equal_options {
    ($ty:ident { $($(#[$doc:meta])* $name:ident;)* }) => {
        impl $ty {
            $(
                $(#[$doc])*
                pub fn $name(mut self) -> Self {
                    self.$name = true;
                    self
                }
            )*
        }
    };
}

pub(crate) mod convert;
pub(crate) mod display;
pub(crate) mod inline;
pub(crate) mod layout;
pub(crate) mod primitive_type;
pub(crate) mod program_shape;
pub(crate) mod raw;
pub(crate) mod shape;
pub(crate) mod shape_index;
pub(crate) mod tile;
pub(crate) mod validate;
pub(crate) mod wire;

pub(crate) use display::{join, write_joined};
pub use layout::{Layout, LayoutEqual};
pub use primitive_type::PrimitiveType;
pub use program_shape::ProgramShape;
pub use shape::{ArrayShape, Shape, ShapeEqual};
pub use shape_index::ShapeIndex;
pub use tile::{SplitConfig, Tile};
