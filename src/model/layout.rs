//! [`Layout`]: how an array's elements are placed in memory.

use crate::error::{Error, Result};
use crate::model::inline::Dims;
use crate::model::primitive_type::PrimitiveType;
use crate::model::shape::Shape;
use crate::model::tile::{SplitConfig, Tile, Tiles};

/// An array layout (XLA's `Layout`): the minor-to-major dimension order and
/// the optional attributes printed in HLO text as
/// `{minor_to_major:T(tiles)L(n)#(t)*(t)E(n)S(n)SC(...)P(shape)M(n)}`.
///
/// A `Layout` on its own holds what XLA's `Layout` holds; whether it fits a
/// shape (right length, a permutation, no sparse-only attributes, valid
/// tiles) is checked when it is put on a [`Shape`], with XLA's messages.
///
/// ```
/// use xla_shape::{Layout, Tile};
/// let l = Layout::new([1, 0])
///     .with_tiles(vec![Tile::new([8, 128]).unwrap(), Tile::new([2, 1]).unwrap()])
///     .with_memory_space(1);
/// assert_eq!(l.to_string(), "{1,0:T(8,128)(2,1)S(1)}");
/// ```
#[derive(Clone)]
pub struct Layout {
    pub(crate) minor_to_major: Dims,
    pub(crate) tiles: Tiles,
    pub(crate) element_size_in_bits: i64,
    pub(crate) memory_space: i64,
    /// The attributes that are rarely set, `None` while they all have
    /// their default ([`Rare::default`]).
    pub(crate) rare: Option<Box<Rare>>,
}

/// The attributes of a [`Layout`] that are rarely set, kept apart so that
/// a `Layout` takes 168 bytes and a [`Shape`] 256: moving a `Shape` (as
/// returning one from a parser or a decoder does) then costs half the
/// instructions it cost at 304 bytes (glibc's `memcpy` copies up to 256
/// bytes without a loop; callgrind, BENCHMARKS.md).
///
/// `==` here is field by field, to tell a set of defaults apart from
/// attributes that are set; layouts compare with XLA's `Layout::operator==`
/// ([`Layout::equal_with`]), which reads these fields one by one.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Rare {
    pub(crate) tail_padding_alignment_in_elements: i64,
    pub(crate) index_primitive_type: PrimitiveType,
    pub(crate) pointer_primitive_type: PrimitiveType,
    pub(crate) split_configs: Vec<SplitConfig>,
    pub(crate) physical_shape: Option<Box<Shape>>,
    pub(crate) dynamic_shape_metadata_prefix_bytes: i64,
}

impl Rare {
    /// As in XLA's `Layout()`: alignment 1, nothing else.
    const DEFAULT: Rare = Rare {
        tail_padding_alignment_in_elements: 1,
        index_primitive_type: PrimitiveType::Invalid,
        pointer_primitive_type: PrimitiveType::Invalid,
        split_configs: Vec::new(),
        physical_shape: None,
        dynamic_shape_metadata_prefix_bytes: 0,
    };
}

impl Default for Rare {
    fn default() -> Self {
        Rare::DEFAULT
    }
}

/// The defaults a layout without [`Rare`] attributes reads.
static NO_RARE: Rare = Rare::DEFAULT;

impl Default for Layout {
    /// XLA's `Layout()`: empty minor_to_major, alignment 1, nothing else.
    #[inline]
    fn default() -> Self {
        Layout::EMPTY
    }
}

impl Layout {
    /// [`Layout::default`] as a constant, which the compiler writes in
    /// place with a few stores (see `InlineVec::empty`).
    pub(crate) const EMPTY: Layout = Layout {
        minor_to_major: Dims::empty(0),
        tiles: Tiles::Inline {
            len: 0,
            items: [Tile::EMPTY; 2],
        },
        element_size_in_bits: 0,
        memory_space: 0,
        rare: None,
    };
}

impl std::fmt::Debug for Layout {
    /// Every attribute, boxed or not, by name and in the order a derived
    /// `Debug` printed them before the rare ones were boxed.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let r = self.rare();
        f.debug_struct("Layout")
            .field("minor_to_major", &self.minor_to_major)
            .field("tiles", &self.tiles)
            .field(
                "tail_padding_alignment_in_elements",
                &r.tail_padding_alignment_in_elements,
            )
            .field("index_primitive_type", &r.index_primitive_type)
            .field("pointer_primitive_type", &r.pointer_primitive_type)
            .field("element_size_in_bits", &self.element_size_in_bits)
            .field("memory_space", &self.memory_space)
            .field("split_configs", &r.split_configs)
            .field("physical_shape", &r.physical_shape)
            .field(
                "dynamic_shape_metadata_prefix_bytes",
                &r.dynamic_shape_metadata_prefix_bytes,
            )
            .finish()
    }
}

impl Layout {
    /// Back to [`Layout::default`], keeping the storage of its vectors.
    #[inline(always)]
    pub(crate) fn reset(&mut self) {
        self.minor_to_major.clear_copies();
        if !self.tiles.is_empty() {
            self.tiles.truncate(0);
        }
        self.element_size_in_bits = 0;
        self.memory_space = 0;
        self.rare = None;
    }

    /// The rarely set attributes (their defaults when none is set).
    #[inline]
    pub(crate) fn rare(&self) -> &Rare {
        self.rare.as_deref().unwrap_or(&NO_RARE)
    }

    /// The rarely set attributes, to set one.
    #[inline]
    pub(crate) fn rare_mut(&mut self) -> &mut Rare {
        self.rare.get_or_insert_with(Box::default)
    }

    /// XLA's default (descending, row-major) layout `{rank-1, ..., 1, 0}`:
    /// the one implementation behind `LayoutUtil::MakeDescendingLayout`
    /// and the layouts the HLO parser fills in.
    pub(crate) fn descending(rank: usize) -> Layout {
        Layout {
            minor_to_major: (0..rank as i64).rev().collect(),
            ..Layout::default()
        }
    }

    /// XLA's memory space 0 (`kDefaultMemorySpace`).
    pub const DEFAULT_MEMORY_SPACE: i64 = 0;
    /// XLA's `kGenericFastMemorySpace`.
    pub const GENERIC_FAST_MEMORY_SPACE: i64 = 1;
    /// XLA's `kHostMemorySpace`.
    pub const HOST_MEMORY_SPACE: i64 = 5;

    /// A layout with this minor-to-major order and no other attribute.
    pub fn new(minor_to_major: impl Into<Vec<i64>>) -> Self {
        Layout {
            minor_to_major: Dims::from(minor_to_major.into()),
            ..Layout::default()
        }
    }

    /// With these tiles (replacing any).
    pub fn with_tiles(mut self, tiles: Vec<Tile>) -> Self {
        self.tiles = Tiles::from(tiles);
        self
    }

    /// With `L(n)`: the element count after tiling is padded to a multiple
    /// of `n`.
    ///
    /// # Errors
    ///
    /// `n < 1` (XLA aborts: `Check failed: value >= 1`).
    pub fn with_tail_padding_alignment_in_elements(mut self, n: i64) -> Result<Self> {
        if n < 1 {
            return Err(Error::invalid_argument(format!(
                "tail_padding_alignment_in_elements must be >= 1, got {n} (XLA: Check failed: value >= 1)"
            )));
        }
        self.rare_mut().tail_padding_alignment_in_elements = n;
        Ok(self)
    }

    /// With `#(t)`, the index type of a sparse array (`Invalid` = none).
    pub fn with_index_primitive_type(mut self, t: PrimitiveType) -> Self {
        self.rare_mut().index_primitive_type = t;
        self
    }

    /// With `*(t)`, the pointer type of a sparse array (`Invalid` = none).
    pub fn with_pointer_primitive_type(mut self, t: PrimitiveType) -> Self {
        self.rare_mut().pointer_primitive_type = t;
        self
    }

    /// With `E(n)`: bits per element in memory (0 = natural size).
    pub fn with_element_size_in_bits(mut self, bits: i64) -> Self {
        self.element_size_in_bits = bits;
        self
    }

    /// With `S(n)`: the memory space.
    pub fn with_memory_space(mut self, memory_space: i64) -> Self {
        self.memory_space = memory_space;
        self
    }

    /// With these split configs (replacing any).
    pub fn with_split_configs(mut self, split_configs: Vec<SplitConfig>) -> Self {
        self.rare_mut().split_configs = split_configs;
        self
    }

    /// With `P(shape)`, the physical shape of a sparse array.
    pub fn with_physical_shape(mut self, shape: Option<Shape>) -> Self {
        self.rare_mut().physical_shape = shape.map(Box::new);
        self
    }

    /// With `M(n)`: bytes of dynamic-shape metadata before the data.
    pub fn with_dynamic_shape_metadata_prefix_bytes(mut self, bytes: i64) -> Self {
        self.rare_mut().dynamic_shape_metadata_prefix_bytes = bytes;
        self
    }

    /// Logical dimension numbers, most minor first.
    pub fn minor_to_major(&self) -> &[i64] {
        &self.minor_to_major
    }

    /// The tiles, in the order they are applied.
    #[doc(alias = "xla_client.Layout.tiling")]
    pub fn tiles(&self) -> &[Tile] {
        &self.tiles
    }

    /// `L(n)`; 1 when not set.
    pub fn tail_padding_alignment_in_elements(&self) -> i64 {
        self.rare().tail_padding_alignment_in_elements
    }

    /// `#(t)`; `Invalid` when not set.
    pub fn index_primitive_type(&self) -> PrimitiveType {
        self.rare().index_primitive_type
    }

    /// `*(t)`; `Invalid` when not set.
    pub fn pointer_primitive_type(&self) -> PrimitiveType {
        self.rare().pointer_primitive_type
    }

    /// `E(n)`; 0 (natural size) when not set.
    pub fn element_size_in_bits(&self) -> i64 {
        self.element_size_in_bits
    }

    /// `S(n)`; 0 when not set.
    pub fn memory_space(&self) -> i64 {
        self.memory_space
    }

    /// The split configs.
    pub fn split_configs(&self) -> &[SplitConfig] {
        &self.rare().split_configs
    }

    /// `P(shape)`, if any.
    pub fn physical_shape(&self) -> Option<&Shape> {
        self.rare().physical_shape.as_deref()
    }

    /// `M(n)`; 0 when not set.
    pub fn dynamic_shape_metadata_prefix_bytes(&self) -> i64 {
        self.rare().dynamic_shape_metadata_prefix_bytes
    }

    /// Mutable access to the minor-to-major order (validity is checked
    /// again when the layout is put on a shape).
    pub fn minor_to_major_mut(&mut self) -> &mut Vec<i64> {
        self.minor_to_major.as_mut_vec()
    }

    /// Mutable access to the tiles.
    pub fn tiles_mut(&mut self) -> &mut Vec<Tile> {
        self.tiles.as_mut_vec()
    }

    /// Mutable access to the split configs.
    pub fn split_configs_mut(&mut self) -> &mut Vec<SplitConfig> {
        &mut self.rare_mut().split_configs
    }

    /// XLA's `Layout::DeleteDimension`: removes logical dimension `d` from
    /// minor_to_major and renumbers the dimensions above it. Other
    /// attributes are kept.
    ///
    /// # Panics
    ///
    /// If `d` is not in minor_to_major's index range (XLA CHECK-fails).
    pub fn delete_dimension(&mut self, d: i64) {
        assert!(
            d >= 0 && (d as usize) < self.minor_to_major.len(),
            "delete_dimension: {d} is out of range for {self}"
        );
        self.minor_to_major.retain(|&x| x != d);
        for x in &mut self.minor_to_major {
            if *x > d {
                *x -= 1;
            }
        }
    }

    /// Equality under `options` (XLA's `Layout::Equal`).
    pub fn equal_with(&self, other: &Layout, options: &LayoutEqual) -> bool {
        let (a, b) = (self.rare(), other.rare());
        self.minor_to_major == other.minor_to_major
            && (options.ignore_tiles || self.tiles == other.tiles)
            && (options.ignore_tail_padding_alignment_in_elements
                || a.tail_padding_alignment_in_elements == b.tail_padding_alignment_in_elements)
            && (options.ignore_index_primitive_type
                || a.index_primitive_type == b.index_primitive_type)
            && (options.ignore_pointer_primitive_type
                || a.pointer_primitive_type == b.pointer_primitive_type)
            && (options.ignore_element_size
                || self.element_size_in_bits == other.element_size_in_bits)
            && (options.ignore_memory_space || self.memory_space == other.memory_space)
            && (options.ignore_split_configs || a.split_configs == b.split_configs)
            && (options.ignore_physical_shape || a.physical_shape == b.physical_shape)
    }
}

impl PartialEq for Layout {
    /// XLA's `Layout::operator==`: every attribute except `M(n)`
    /// (`dynamic_shape_metadata_prefix_bytes`), which XLA never compares.
    fn eq(&self, other: &Self) -> bool {
        self.equal_with(other, &LayoutEqual::default())
    }
}

impl Eq for Layout {}

impl std::hash::Hash for Layout {
    /// Hashes what XLA's `AbslHashValue` hashes (not the physical shape,
    /// not `M(n)`), so equal layouts hash equally.
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        let r = self.rare();
        self.minor_to_major.hash(state);
        self.tiles.hash(state);
        self.element_size_in_bits.hash(state);
        r.index_primitive_type.hash(state);
        r.pointer_primitive_type.hash(state);
        self.memory_space.hash(state);
        r.split_configs.hash(state);
        r.tail_padding_alignment_in_elements.hash(state);
    }
}

/// The options of XLA's `Layout::Equal`: which attributes to skip.
/// `minor_to_major` is always compared.
///
/// ```
/// use xla_shape::{Layout, LayoutEqual, Tile};
/// let a = Layout::new([0, 1, 2]).with_tiles(vec![Tile::new([42, 44]).unwrap()]);
/// let b = Layout::new([0, 1, 2]);
/// assert_ne!(a, b);
/// assert!(a.equal_with(&b, &LayoutEqual::default().ignore_tiles()));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LayoutEqual {
    ignore_tiles: bool,
    ignore_tail_padding_alignment_in_elements: bool,
    ignore_index_primitive_type: bool,
    ignore_pointer_primitive_type: bool,
    ignore_element_size: bool,
    ignore_memory_space: bool,
    ignore_split_configs: bool,
    ignore_physical_shape: bool,
}

equal_options! { LayoutEqual {
    /// XLA's `IgnoreTiles`.
    ignore_tiles;
    /// XLA's `IgnoreTailPaddingAlignmentInElements`.
    ignore_tail_padding_alignment_in_elements;
    /// XLA's `IgnoreIndexPrimitiveType`.
    ignore_index_primitive_type;
    /// XLA's `IgnorePointerPrimitiveType`.
    ignore_pointer_primitive_type;
    /// XLA's `IgnoreElementSize`.
    ignore_element_size;
    /// XLA's `IgnoreMemorySpace`.
    ignore_memory_space;
    /// XLA's `IgnoreSplitConfigs`.
    ignore_split_configs;
    /// XLA's `IgnorePhysicalShape`.
    ignore_physical_shape;
} }

impl LayoutEqual {
    /// XLA's `MinorToMajorOnly`: ignores tiles, index and pointer types,
    /// memory space, physical shape, element size and tail padding, but
    /// (as upstream) **not** split configs.
    pub fn minor_to_major_only(self) -> Self {
        self.ignore_tiles()
            .ignore_index_primitive_type()
            .ignore_pointer_primitive_type()
            .ignore_memory_space()
            .ignore_physical_shape()
            .ignore_element_size()
            .ignore_tail_padding_alignment_in_elements()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::BuildHasher;

    /// A layout whose rare attributes were set back to their defaults
    /// (boxed) and one that never had any (not boxed) are the same
    /// layout: equal, same hash, same `Debug`, `Display` and proto bytes.
    #[test]
    fn boxed_default_attributes_are_no_attributes() {
        let plain = Layout::new([1, 0]);
        let boxed = Layout::new([1, 0])
            .with_dynamic_shape_metadata_prefix_bytes(0)
            .with_tail_padding_alignment_in_elements(1)
            .unwrap()
            .with_split_configs(vec![]);
        assert!(plain.rare.is_none() && boxed.rare.is_some());
        assert_eq!(plain, boxed);
        let s = std::collections::hash_map::RandomState::new();
        assert_eq!(s.hash_one(&plain), s.hash_one(&boxed));
        assert_eq!(format!("{plain:?}"), format!("{boxed:?}"));
        assert_eq!(plain.to_string(), boxed.to_string());
        let array = |l: &Layout| {
            crate::model::ArrayShape::new(PrimitiveType::F32, [2, 3])
                .unwrap()
                .with_layout(Some(l.clone()))
                .unwrap()
        };
        assert_eq!(
            Shape::Array(array(&plain)).to_proto_bytes(),
            Shape::Array(array(&boxed)).to_proto_bytes()
        );
        // Each rare attribute, set, reads back and is compared.
        let set = Layout::new([1, 0]).with_dynamic_shape_metadata_prefix_bytes(8);
        assert_eq!(set.dynamic_shape_metadata_prefix_bytes(), 8);
        assert_eq!(set.tail_padding_alignment_in_elements(), 1);
        assert!(set.equal_with(&plain, &LayoutEqual::default()));
        let aligned = plain
            .clone()
            .with_tail_padding_alignment_in_elements(4)
            .unwrap();
        assert_ne!(aligned, plain);
        assert_eq!(aligned.to_string(), "{1,0:L(4)}");
    }
}
