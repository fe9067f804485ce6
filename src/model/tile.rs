//! [`Tile`] and [`SplitConfig`]: the parts of a layout that describe tiling
//! and splitting.

use std::fmt;

use crate::error::{Error, Result};
use crate::model::inline::{InlineVec, TileBounds};

/// A layout's tiles: in place up to two (`T(8,128)(2,1)`).
pub(crate) type Tiles = InlineVec<Tile, 2>;

/// One tile of a tiled layout (XLA's `Tile`): bounds, most major first,
/// applied to the most minor physical dimensions of an array.
///
/// A bound is positive, 0 (which XLA's layout validation rejects, but a
/// `Layout` may hold, as XLA's may), or [`Tile::COMBINE_DIMENSION`] (`*` in
/// HLO text), which merges that dimension with the next more minor one
/// before tiling.
///
/// ```
/// use xla_shape::Tile;
/// let t = Tile::new([8, 128]).unwrap();
/// assert_eq!(t.to_string(), "(8,128)");
/// assert_eq!(Tile::new([2, Tile::COMBINE_DIMENSION, 128]).unwrap().to_string(), "(2,*,128)");
/// assert!(Tile::new([-2]).is_err());
/// ```
#[derive(Clone)]
pub struct Tile {
    /// Up to four bounds are kept in place: tiles rarely have more, and
    /// decoding a tiled layout then allocates nothing per tile.
    bounds: TileBounds,
}

impl Default for Tile {
    /// A tile without bounds.
    #[inline]
    fn default() -> Self {
        Tile::EMPTY
    }
}

impl Tile {
    /// XLA's `Tile::kCombineDimension` (`INT64_MIN`, `*` in HLO text).
    pub const COMBINE_DIMENSION: i64 = i64::MIN;

    /// A tile without bounds, as a constant (see [`InlineVec::empty`]).
    pub(crate) const EMPTY: Tile = Tile {
        bounds: TileBounds::empty(0),
    };

    /// A tile with these bounds.
    ///
    /// # Errors
    ///
    /// A negative bound other than [`COMBINE_DIMENSION`](Self::COMBINE_DIMENSION)
    /// (XLA aborts: `Tile dimension size needs to be minimum int64_t value if
    /// it's negative. Value is -2`).
    pub fn new(dimensions: impl AsRef<[i64]>) -> Result<Self> {
        let dimensions = dimensions.as_ref();
        check_tile_bounds(dimensions)?;
        Ok(Tile::from_bounds_unchecked(dimensions))
    }

    /// The bounds, most major first.
    pub fn dimensions(&self) -> &[i64] {
        &self.bounds
    }

    /// The bound at `i` (most major first).
    ///
    /// # Panics
    ///
    /// If `i` is not less than the number of bounds.
    pub fn dimension(&self, i: usize) -> i64 {
        self.dimensions()[i]
    }

    /// A tile holding `bounds` as they are; the decoder checks them later.
    pub(crate) fn from_bounds_unchecked(bounds: &[i64]) -> Self {
        Tile {
            bounds: TileBounds::from_slice(bounds),
        }
    }

    /// Appends a bound without checking it.
    #[inline]
    pub(crate) fn push_unchecked(&mut self, bound: i64) {
        self.bounds.push(bound);
    }
}

impl PartialEq for Tile {
    fn eq(&self, other: &Self) -> bool {
        self.dimensions() == other.dimensions()
    }
}

impl Eq for Tile {}

impl std::hash::Hash for Tile {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.dimensions().hash(state);
    }
}

impl fmt::Debug for Tile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tile")
            .field("dimensions", &self.dimensions())
            .finish()
    }
}

pub(crate) fn check_tile_bounds(dimensions: &[i64]) -> Result<()> {
    match dimensions
        .iter()
        .find(|&&d| d < 0 && d != Tile::COMBINE_DIMENSION)
    {
        Some(d) => Err(Error::invalid_argument(format!(
            "Tile dimension size needs to be minimum int64_t value if it's negative. Value is {d}"
        ))),
        None => Ok(()),
    }
}

/// How an array is split across memories (XLA's `SplitConfig`): the
/// physical dimension split (0 = most major) and the split points.
///
/// ```
/// use xla_shape::SplitConfig;
/// assert_eq!(SplitConfig::new(0, [512, 1024]).to_string(), "(0:512,1024)");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct SplitConfig {
    dimension: i64,
    split_indices: Vec<i64>,
}

impl SplitConfig {
    /// A split of physical `dimension` at `split_indices`. XLA checks
    /// neither; nor does this.
    pub fn new(dimension: i64, split_indices: impl Into<Vec<i64>>) -> Self {
        SplitConfig {
            dimension,
            split_indices: split_indices.into(),
        }
    }

    /// The split dimension, counted as a physical dimension (0 = most major).
    pub fn dimension(&self) -> i64 {
        self.dimension
    }

    /// The split points.
    pub fn split_indices(&self) -> &[i64] {
        &self.split_indices
    }
}
