//! Padding explained: what a shape's tiled layout costs, which dimensions'
//! rounding to a tile causes it, and the nearest dimension order or sizes
//! that pad less under the same tiles.
//!
//! The figures are the tiled-layout math of [`TiledLayout`]:
//!
//! - **padded**: the buffer's bytes with every tile applied, tail padding
//!   (`L(n)`) and the element size (`E(n)`) included
//!   ([`TiledLayout::byte_size`]);
//! - **unpadded**: the elements alone, each at its type's byte width
//!   (XLA's `ShapeUtil::ByteSizeOfPrimitiveType`), or at the layout's
//!   element size when `E(n)` packs them tighter (`s4` in 4 bits). An
//!   `E(n)` wider than the type counts as padding, as XLA:TPU's listings
//!   count it: `pred[64,512,2048]{2,1,0:T(8,128)E(32)}` is "Unpadded size:
//!   64.00M" and "(4.0x expansion)" (google/trax#525);
//! - **expansion**: padded / unpadded, as the listings' "(32.0x
//!   expansion)".
//!
//! The causes are [`TiledLayout::roundings`] (a dimension not a multiple
//! of its tile's bound), an element size wider than the type, and tail
//! padding. The suggestions keep the tiles and every other part of the
//! layout: the order of the dimensions in memory that pads least (the
//! nearest to the current one among equals: the fewest pairs of dimensions
//! swapped), and for each dimension a tile rounds, the nearest sizes that
//! are a multiple of its bound, below and above.
//!
//! A shape whose layout has no tiles pads nothing. XLA:TPU tiles every
//! array, but its choice of tiles depends on the element type, the rank
//! and the TPU; the crate does not guess it: [`PaddingOptions::with_tiles`]
//! gives the tiles to assume for such shapes (listings printed before
//! 2020 leave the tiles out: tensorflow/tensorflow#30803).

use std::fmt;

use crate::error::{Error, ErrorKind, Result};
use crate::memory::listing::{
    ListedAllocation, Listing, ListingFormat, print_size_like, printed_size_agrees,
};
use crate::model::{ArrayShape, Layout, PrimitiveType, Shape, ShapeIndex, Tile};
use crate::tiling::{self, RoundedPart, Rounding, TiledLayout};

/// Tiles to assume for arrays whose layout has none.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PaddingOptions {
    tiles: Vec<(Option<PrimitiveType>, Vec<Tile>)>,
}

impl PaddingOptions {
    /// No tiles assumed.
    pub fn new() -> Self {
        PaddingOptions::default()
    }

    /// Assume `tiles` for arrays of `element_type` (every type: `None`)
    /// whose layout has no tiles (an array without a layout gets the
    /// default one, most major dimension first). A tiling given for a type
    /// wins over one given for every type.
    pub fn with_tiles(mut self, element_type: Option<PrimitiveType>, tiles: Vec<Tile>) -> Self {
        self.tiles.retain(|(t, _)| *t != element_type);
        self.tiles.push((element_type, tiles));
        self
    }

    /// [`with_tiles`](Self::with_tiles) from text: tiles as HLO writes them
    /// (`(8,128)(2,1)`, a leading `T` allowed), for every type, or after a
    /// type and `=` (`bf16=(8,128)(2,1)`).
    ///
    /// ```
    /// use xla_shape::memory::PaddingOptions;
    ///
    /// let options = PaddingOptions::new()
    ///     .with_tiles_text("(8,128)")?
    ///     .with_tiles_text("bf16=T(8,128)(2,1)")?;
    /// assert!(PaddingOptions::new().with_tiles_text("f33=(8,128)").is_err());
    /// assert!(PaddingOptions::new().with_tiles_text("(8,x)").is_err());
    /// # Ok::<(), xla_shape::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// `InvalidArgument` for an unknown type or tiles that do not parse.
    pub fn with_tiles_text(self, text: &str) -> Result<Self> {
        let (element_type, tiles) = match text.split_once('=') {
            Some((t, tiles)) => {
                let t = t.trim();
                let element_type: PrimitiveType = t.parse().map_err(|_| {
                    Error::invalid_argument(format!("unknown element type `{t}` in `{text}`"))
                })?;
                (Some(element_type), tiles)
            }
            None => (None, text),
        };
        let tiles = tiles.trim();
        let tiles = tiles.strip_prefix('T').unwrap_or(tiles);
        let layout: Layout = format!("{{:T{tiles}}}").parse().map_err(|e: Error| {
            Error::invalid_argument(format!(
                "tiles `{tiles}` do not parse (write them as HLO does, `(8,128)(2,1)`): {}",
                e.message()
            ))
        })?;
        if layout.tiles().is_empty() || layout.element_size_in_bits() != 0 {
            return Err(Error::invalid_argument(format!(
                "`{tiles}` is not a list of tiles (write them as HLO does, `(8,128)(2,1)`)"
            )));
        }
        Ok(self.with_tiles(element_type, layout.tiles().to_vec()))
    }

    /// The tiles to assume for arrays of `element_type`.
    fn tiles_for(&self, element_type: PrimitiveType) -> Option<&[Tile]> {
        let typed = self.tiles.iter().find(|(t, _)| *t == Some(element_type));
        let any = self.tiles.iter().find(|(t, _)| t.is_none());
        typed.or(any).map(|(_, tiles)| tiles.as_slice())
    }
}

/// What pads an array.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Cause {
    /// A tile's bound rounds a part of the shape up.
    Rounding {
        /// The array's index in a tuple (empty for an array).
        index: ShapeIndex,
        /// The tile.
        tile: Tile,
        /// What it rounds.
        rounding: Rounding,
    },
    /// Each element takes more bits than its type: `E(n)`.
    ElementSize {
        /// The array's index in a tuple.
        index: ShapeIndex,
        /// The array's element type.
        element_type: PrimitiveType,
        /// The bits each element takes.
        bits: i64,
        /// The bits of its type (its byte width).
        type_bits: i64,
    },
    /// The tiled elements are padded to a multiple of `L(n)`.
    TailPadding {
        /// The array's index in a tuple.
        index: ShapeIndex,
        /// `n`.
        alignment: i64,
        /// The elements after tiling.
        elements: i64,
        /// The slots after tail padding.
        slots: i64,
    },
}

impl Cause {
    /// How many times the bytes it multiplies them by.
    pub fn factor(&self) -> f64 {
        match self {
            Cause::Rounding { rounding, .. } => rounding.rounded as f64 / rounding.size as f64,
            Cause::ElementSize {
                bits, type_bits, ..
            } => *bits as f64 / *type_bits as f64,
            Cause::TailPadding {
                elements, slots, ..
            } => *slots as f64 / *elements as f64,
        }
    }

    /// The array's index in a tuple.
    pub fn index(&self) -> &ShapeIndex {
        match self {
            Cause::Rounding { index, .. }
            | Cause::ElementSize { index, .. }
            | Cause::TailPadding { index, .. } => index,
        }
    }
}

/// `{0,1}: ` before a tuple element's cause, nothing for an array's.
fn index_prefix(f: &mut fmt::Formatter<'_>, index: &ShapeIndex) -> fmt::Result {
    if index.is_empty() {
        return Ok(());
    }
    let parts: Vec<String> = index.iter().map(i64::to_string).collect();
    write!(f, "{{{}}}: ", parts.join(","))
}

/// The cause in words, as the CLI prints it:
///
/// ```
/// use xla_shape::Shape;
/// use xla_shape::memory::{self, PaddingOptions};
///
/// let s: Shape = "pred[64,512,2048]{2,1,0:T(8,128)E(32)}".parse()?;
/// let p = memory::explain_padding(&s, &PaddingOptions::new())?;
/// assert_eq!(
///     p.causes[0].to_string(),
///     "each element takes 32 bits where pred needs 8 (E(32)): 4.0x"
/// );
/// let s: Shape = "f32[3,5]{1,0:T(2,2)}".parse()?;
/// let p = memory::explain_padding(&s, &PaddingOptions::new())?;
/// assert_eq!(
///     p.causes[0].to_string(),
///     "dimension 0 of 3 rounded up to 4 by tile (2,2): 1.3x"
/// );
/// # Ok::<(), xla_shape::Error>(())
/// ```
impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        index_prefix(f, self.index())?;
        match self {
            Cause::Rounding { tile, rounding, .. } => {
                match &rounding.part {
                    RoundedPart::Dimension(d) => write!(f, "dimension {d} of {}", rounding.size)?,
                    RoundedPart::Leading => write!(f, "a leading dimension of {}", rounding.size)?,
                    RoundedPart::Combined(dims) => {
                        let dims: Vec<String> = dims.iter().map(usize::to_string).collect();
                        write!(
                            f,
                            "dimensions {} combined, {}",
                            dims.join("*"),
                            rounding.size
                        )?;
                    }
                    RoundedPart::Tiled { tile, dimension } => {
                        write!(f, "a part of {} made by tile {}", rounding.size, tile + 1)?;
                        if let Some(d) = dimension {
                            write!(f, " (from dimension {d})")?;
                        }
                    }
                }
                write!(
                    f,
                    " rounded up to {} by tile {tile}: {:.1}x",
                    rounding.rounded,
                    self.factor()
                )
            }
            Cause::ElementSize {
                element_type,
                bits,
                type_bits,
                ..
            } => write!(
                f,
                "each element takes {bits} bits where {element_type} needs {type_bits} (E({bits})): {:.1}x",
                self.factor()
            ),
            Cause::TailPadding {
                alignment,
                elements,
                slots,
                ..
            } => write!(
                f,
                "tail padding to a multiple of {alignment} elements (L({alignment})): {elements} elements in {slots} slots: {:.1}x",
                self.factor()
            ),
        }
    }
}

/// An array that pads less under the same tiles: the change, and its
/// bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Suggestion {
    /// What changes.
    pub change: Change,
    /// The array with the change.
    pub shape: Shape,
    /// Its bytes.
    pub padded: i64,
    /// Its unpadded bytes.
    pub unpadded: i64,
}

impl Suggestion {
    /// padded / unpadded.
    pub fn expansion(&self) -> f64 {
        expansion(self.padded, self.unpadded)
    }
}

/// What a [`Suggestion`] changes.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Change {
    /// Another order of the dimensions in memory: the nearest to the
    /// current one among those that pad least.
    Order {
        /// The layout's new `minor_to_major`.
        minor_to_major: Vec<i64>,
        /// The same array transposed so that that order is the default
        /// one (most major dimension first): the change to make in a
        /// program that cannot choose layouts.
        transposed: Box<Shape>,
    },
    /// Another size for one dimension: the nearest multiple of the bound
    /// that rounds it, below or above.
    Size {
        /// The dimension.
        dimension: usize,
        /// Its new size.
        size: i64,
    },
}

/// The change in words, as the CLI prints it: `minor_to_major {3,2,4,0,1}
/// (the array transposed: s32[1,2048,4,128,128]{4,3,2,1,0:T(8,128)})` or
/// `dimension 4 of size 128`.
impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Change::Order {
                minor_to_major,
                transposed,
            } => {
                let order: Vec<String> = minor_to_major.iter().map(i64::to_string).collect();
                write!(
                    f,
                    "minor_to_major {{{}}} (the array transposed: {transposed})",
                    order.join(",")
                )
            }
            Change::Size { dimension, size } => write!(f, "dimension {dimension} of size {size}"),
        }
    }
}

/// What a shape's layout costs, and why.
///
/// ```
/// use xla_shape::Shape;
/// use xla_shape::memory::{self, Cause, Change, PaddingOptions};
/// use xla_shape::tiling::RoundedPart;
///
/// // jax-ml/jax#7502: "Unpadded size: 512.00M", "(32.0x expansion)".
/// let s: Shape = "s32[2048,1,128,128,4]{4,3,2,0,1:T(8,128)}".parse()?;
/// let p = memory::explain_padding(&s, &PaddingOptions::new())?;
/// assert_eq!((p.unpadded, p.padded), (512 << 20, 16 << 30));
/// assert_eq!(p.expansion(), 32.0);
/// // Dimension 4, of 4, is rounded up to 128.
/// let Cause::Rounding { rounding, .. } = &p.causes[0] else { panic!() };
/// assert_eq!((&rounding.part, rounding.size, rounding.rounded), (&RoundedPart::Dimension(4), 4, 128));
/// // The two dimensions of 128 innermost pad nothing.
/// let Change::Order { minor_to_major, transposed } = &p.suggestions[0].change else { panic!() };
/// assert_eq!((minor_to_major.as_slice(), p.suggestions[0].padded), (&[3, 2, 4, 0, 1][..], 512 << 20));
/// assert_eq!(transposed.to_string(), "s32[1,2048,4,128,128]{4,3,2,1,0:T(8,128)}");
/// // In words, as the CLI prints them.
/// assert_eq!(p.causes[0].to_string(), "dimension 4 of 4 rounded up to 128 by tile (8,128): 32.0x");
/// assert_eq!(
///     p.suggestions[0].change.to_string(),
///     "minor_to_major {3,2,4,0,1} (the array transposed: s32[1,2048,4,128,128]{4,3,2,1,0:T(8,128)})"
/// );
/// # Ok::<(), xla_shape::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Padding {
    /// The shape explained: the one given, with the assumed tiles when
    /// [`tiles_assumed`](Self::tiles_assumed).
    pub shape: Shape,
    /// Tiles came from [`PaddingOptions`], for arrays that had none.
    pub tiles_assumed: bool,
    /// The elements' bytes.
    pub unpadded: i64,
    /// The buffer's bytes (a tuple's: its arrays', without its index
    /// table).
    pub padded: i64,
    /// What pads it, in the order the layout applies (a tuple: array by
    /// array).
    pub causes: Vec<Cause>,
    /// Changes that pad less, the order first (arrays only).
    pub suggestions: Vec<Suggestion>,
}

impl Padding {
    /// padded / unpadded (1 when there are no elements).
    pub fn expansion(&self) -> f64 {
        expansion(self.padded, self.unpadded)
    }

    /// Whether some array has a tile.
    pub fn is_tiled(&self) -> bool {
        let mut tiled = false;
        crate::shape_util::for_each_leaf_shape(&self.shape, |s, _| {
            tiled |= s.layout().is_some_and(|l| !l.tiles().is_empty());
        });
        tiled
    }
}

fn expansion(padded: i64, unpadded: i64) -> f64 {
    if unpadded == 0 {
        1.0
    } else {
        padded as f64 / unpadded as f64
    }
}

/// The most dimensions whose orders are tried.
const MAX_ORDER_RANK: usize = 16;
/// The most orders tried for one array.
const MAX_ORDERS: usize = 4096;

/// The bits of each element without padding: the type's byte width, or
/// `E(n)` when it is narrower.
fn unpadded_bits(a: &ArrayShape) -> i64 {
    let type_bits = 8 * a.element_type().byte_width().unwrap_or(1);
    match a.layout().map_or(0, |l| l.element_size_in_bits()) {
        0 => type_bits,
        e => e.min(type_bits),
    }
}

/// `a`'s tiled arrangement and its unpadded bytes.
fn measure(a: &ArrayShape) -> Result<(TiledLayout, i64)> {
    let tiled = TiledLayout::new(a)?;
    let unpadded = tiling::bits_to_bytes(tiled.element_count(), unpadded_bits(a))
        .ok_or_else(|| Error::overflow(format!("the byte size of {a} overflows int64_t")))?;
    Ok((tiled, unpadded))
}

/// `a` with the tiles `options` assume, when its layout has none.
fn assume_tiles(a: &ArrayShape, options: &PaddingOptions) -> Result<Option<ArrayShape>> {
    if a.layout().is_some_and(|l| !l.tiles().is_empty()) {
        return Ok(None);
    }
    let Some(tiles) = options.tiles_for(a.element_type()) else {
        return Ok(None);
    };
    let layout = match a.layout() {
        Some(l) => l.clone(),
        None => Layout::new((0..a.rank() as i64).rev().collect::<Vec<_>>()),
    };
    let layout = layout.with_tiles(tiles.to_vec());
    a.clone().with_layout(Some(layout)).map(Some)
}

/// What `shape`'s layout costs, which roundings cause it, and what pads
/// less.
///
/// # Errors
///
/// A dimension that is unbounded dynamic (it has no size), a tile that
/// ends in `*`, assumed tiles that do not fit an array, or sizes that
/// overflow `i64`.
pub fn explain_padding(shape: &Shape, options: &PaddingOptions) -> Result<Padding> {
    let mut shape = shape.clone();
    let mut tiles_assumed = false;
    let mut failure: Option<Error> = None;
    crate::shape_util::for_each_mutable_leaf_shape(&mut shape, |leaf, _| {
        if failure.is_some() {
            return;
        }
        let Shape::Array(a) = leaf else { return };
        match assume_tiles(a, options) {
            Ok(Some(tiled)) => {
                *a = tiled;
                tiles_assumed = true;
            }
            Ok(None) => {}
            Err(e) => failure = Some(e),
        }
    });
    if let Some(e) = failure {
        return Err(e);
    }
    let mut padding = Padding {
        shape,
        tiles_assumed,
        unpadded: 0,
        padded: 0,
        causes: Vec::new(),
        suggestions: Vec::new(),
    };
    let mut failure: Option<Error> = None;
    let mut arrays = 0usize;
    crate::shape_util::for_each_leaf_shape(&padding.shape, |leaf, index| {
        if failure.is_some() {
            return;
        }
        let array = match leaf {
            Shape::Array(a) => a,
            Shape::Buffer(b) => match b.as_ref() {
                Shape::Array(a) => a,
                _ => return,
            },
            _ => return,
        };
        arrays += 1;
        match explain_array(array, index) {
            Ok((unpadded, padded, causes)) => {
                let sum = padding
                    .unpadded
                    .checked_add(unpadded)
                    .zip(padding.padded.checked_add(padded));
                match sum {
                    Some((u, p)) => (padding.unpadded, padding.padded) = (u, p),
                    None => failure = Some(Error::overflow("the tuple's byte size overflows i64")),
                }
                padding.causes.extend(causes);
            }
            Err(e) => failure = Some(e),
        }
    });
    if let Some(e) = failure {
        return Err(e);
    }
    if let Shape::Array(a) = &padding.shape
        && arrays == 1
        && padding.padded > padding.unpadded
    {
        padding.suggestions = suggest(a, padding.padded, &padding.causes);
    }
    Ok(padding)
}

/// The bytes of one array and what pads it.
fn explain_array(a: &ArrayShape, index: &ShapeIndex) -> Result<(i64, i64, Vec<Cause>)> {
    let with_layout;
    let a = if a.layout().is_some() {
        a
    } else {
        // An array without a layout: the default one (no tiles).
        let layout = Layout::new((0..a.rank() as i64).rev().collect::<Vec<_>>());
        with_layout = a.clone().with_layout(Some(layout))?;
        &with_layout
    };
    let (tiled, unpadded) = measure(a)?;
    let mut causes = Vec::new();
    let tiles = a.layout().map(Layout::tiles).unwrap_or(&[]);
    for r in tiled.roundings() {
        if let Some(tile) = tiles.get(r.tile) {
            causes.push(Cause::Rounding {
                index: index.clone(),
                tile: tile.clone(),
                rounding: r.clone(),
            });
        }
    }
    if tiled.slot_count() > tiled.tiled_element_count() && tiled.tiled_element_count() > 0 {
        causes.push(Cause::TailPadding {
            index: index.clone(),
            alignment: a
                .layout()
                .map_or(1, Layout::tail_padding_alignment_in_elements),
            elements: tiled.tiled_element_count(),
            slots: tiled.slot_count(),
        });
    }
    let type_bits = 8 * a.element_type().byte_width().unwrap_or(1);
    if tiled.element_size_in_bits() > type_bits && tiled.element_count() > 0 {
        causes.push(Cause::ElementSize {
            index: index.clone(),
            element_type: a.element_type(),
            bits: tiled.element_size_in_bits(),
            type_bits,
        });
    }
    Ok((unpadded, tiled.byte_size(), causes))
}

/// The number of pairs of dimensions in another order in `b` than in `a`.
fn swaps(a: &[i64], b: &[i64]) -> usize {
    let position = |d: i64| a.iter().position(|&x| x == d).unwrap_or(0);
    let p: Vec<usize> = b.iter().map(|&d| position(d)).collect();
    let mut n = 0;
    for i in 0..p.len() {
        for j in i + 1..p.len() {
            n += usize::from(p[i] > p[j]);
        }
    }
    n
}

/// `a` with `layout`, measured: (the array, padded, unpadded).
fn try_layout(a: &ArrayShape, layout: Layout) -> Option<(ArrayShape, i64, i64)> {
    let b = a.clone().with_layout(Some(layout)).ok()?;
    let (tiled, unpadded) = measure(&b).ok()?;
    Some((b, tiled.byte_size(), unpadded))
}

/// The changes to `a` that pad less than `padded`.
fn suggest(a: &ArrayShape, padded: i64, causes: &[Cause]) -> Vec<Suggestion> {
    let mut out = Vec::new();
    let Some(layout) = a.layout() else {
        return out;
    };
    if let Some(order) = suggest_order(a, layout, padded) {
        out.push(order);
    }
    // Sizes: each dimension a tile rounds, to the multiples of its bound
    // below and above.
    let mut tried: Vec<(usize, i64)> = Vec::new();
    for cause in causes {
        let Cause::Rounding { rounding, .. } = cause else {
            continue;
        };
        let RoundedPart::Dimension(d) = rounding.part else {
            continue;
        };
        if rounding.size <= 1 {
            // A dimension of 1 is the order's to fix.
            continue;
        }
        let below = rounding.size / rounding.bound * rounding.bound;
        for size in [below, rounding.rounded] {
            if size <= 0 || tried.contains(&(d, size)) {
                continue;
            }
            tried.push((d, size));
            let mut dims = a.dimensions().to_vec();
            dims[d] = size;
            let Ok(b) = ArrayShape::from_parts(
                a.element_type(),
                dims,
                a.dynamic_dimensions().to_vec(),
                Some(layout.clone()),
            ) else {
                continue;
            };
            let Ok((tiled, unpadded)) = measure(&b) else {
                continue;
            };
            out.push(Suggestion {
                change: Change::Size { dimension: d, size },
                shape: Shape::Array(b),
                padded: tiled.byte_size(),
                unpadded,
            });
        }
    }
    out
}

/// The order of `a`'s dimensions in memory that pads least under the same
/// tiles, the nearest to the current one among equals, if it pads less
/// than `padded`. The orders tried move any of the dimensions innermost
/// (as many as the first tile has bounds), the others keeping their order.
fn suggest_order(a: &ArrayShape, layout: &Layout, padded: i64) -> Option<Suggestion> {
    let rank = a.rank();
    let current = layout.minor_to_major();
    let bounds = layout.tiles().first()?.dimensions().len();
    if !(2..=MAX_ORDER_RANK).contains(&rank) || current.len() != rank {
        return None;
    }
    let m = bounds.min(rank);
    let mut best: Option<(i64, usize, Vec<i64>)> = None;
    let mut chosen: Vec<i64> = Vec::with_capacity(m);
    let mut tried = 0usize;
    // Ordered choices of `m` dimensions for the innermost places.
    fn choose(
        m: usize,
        current: &[i64],
        chosen: &mut Vec<i64>,
        tried: &mut usize,
        visit: &mut dyn FnMut(&[i64]),
    ) {
        if *tried >= MAX_ORDERS {
            return;
        }
        if chosen.len() == m {
            *tried += 1;
            visit(chosen);
            return;
        }
        for &d in current {
            if !chosen.contains(&d) {
                chosen.push(d);
                choose(m, current, chosen, tried, visit);
                chosen.pop();
            }
        }
    }
    let mut visit = |inner: &[i64]| {
        let mut order: Vec<i64> = inner.to_vec();
        order.extend(current.iter().filter(|d| !inner.contains(d)));
        let mut candidate = layout.clone();
        *candidate.minor_to_major_mut() = order.clone();
        let Some((_, bytes, _)) = try_layout(a, candidate) else {
            return;
        };
        let distance = swaps(current, &order);
        if best
            .as_ref()
            .is_none_or(|(b, dist, _)| (bytes, distance) < (*b, *dist))
        {
            best = Some((bytes, distance, order));
        }
    };
    choose(m, current, &mut chosen, &mut tried, &mut visit);
    let (bytes, _, order) = best?;
    if bytes >= padded {
        return None;
    }
    let mut candidate = layout.clone();
    *candidate.minor_to_major_mut() = order.clone();
    let (shape, padded, unpadded) = try_layout(a, candidate)?;
    // The same array with its dimensions in that order, most major first.
    let major_first: Vec<usize> = order.iter().rev().map(|&d| d as usize).collect();
    let dims: Vec<i64> = major_first.iter().map(|&d| a.dimensions()[d]).collect();
    let dynamic: Vec<bool> = major_first
        .iter()
        .map(|&d| a.dynamic_dimensions()[d])
        .collect();
    let mut descending = layout.clone();
    *descending.minor_to_major_mut() = (0..rank as i64).rev().collect();
    let transposed =
        ArrayShape::from_parts(a.element_type(), dims, dynamic, Some(descending)).ok()?;
    Some(Suggestion {
        change: Change::Order {
            minor_to_major: order,
            transposed: Box::new(Shape::Array(transposed)),
        },
        shape: Shape::Array(shape),
        padded,
        unpadded,
    })
}

/// A figure a listing printed, beside ours printed the same way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Figure {
    /// As the listing printed it.
    pub printed: String,
    /// Ours, printed as the listing prints it.
    pub ours: String,
    /// The same within the listing's rounding.
    pub agrees: bool,
}

/// The figures of a listed allocation beside those of its shape.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ListingCheck {
    /// `Size:` against the padded bytes.
    pub size: Option<Figure>,
    /// `Unpadded size:` against the unpadded bytes.
    pub unpadded: Option<Figure>,
    /// `Extra memory due to padding:` against padded - unpadded.
    pub extra: Option<Figure>,
    /// The expansion against padded / unpadded (to 0.05, its `%.1f`).
    pub expansion: Option<Figure>,
}

impl ListingCheck {
    /// Whether every printed figure agrees (`None`: the listing printed
    /// none).
    pub fn agrees(&self) -> Option<bool> {
        let figures = [&self.size, &self.unpadded, &self.extra, &self.expansion];
        let mut any = false;
        for f in figures.into_iter().flatten() {
            if !f.agrees {
                return Some(false);
            }
            any = true;
        }
        any.then_some(true)
    }

    fn new(listed: &ListedAllocation<'_>, padding: &Padding) -> ListingCheck {
        let size = |printed: Option<&str>, bytes: i64| {
            printed.map(|p| Figure {
                printed: p.to_owned(),
                ours: print_size_like(p, bytes),
                agrees: printed_size_agrees(p, bytes),
            })
        };
        let ratio = padding.expansion();
        ListingCheck {
            size: size(listed.size, padding.padded),
            unpadded: size(listed.unpadded, padding.unpadded),
            extra: size(
                listed.extra,
                padding.padded.saturating_sub(padding.unpadded),
            ),
            expansion: listed.expansion.map(|p| Figure {
                printed: p.to_owned(),
                ours: format!("{ratio:.1}"),
                agrees: p
                    .parse::<f64>()
                    .is_ok_and(|x| (x - ratio).abs() <= 0.05 + 1e-9),
            }),
        }
    }
}

/// One shape explained: the input's, or one of a listing's.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct PaddingEntry<'a> {
    /// The shape as written (`None`: a listed allocation without one, such
    /// as XLA:TPU's "register allocator spill slots").
    pub shape: Option<&'a str>,
    /// The listing's entry it comes from.
    pub listed: Option<ListedAllocation<'a>>,
    /// The explanation, or why there is none (a shape that does not parse
    /// or that the listing cut short); `None` without a shape. (Boxed: a
    /// log of many short entries holds many errors.)
    pub explanation: Option<Result<Box<Padding>>>,
}

impl PaddingEntry<'_> {
    /// The listing's figures beside ours.
    pub fn check(&self) -> Option<ListingCheck> {
        let listed = self.listed.as_ref()?;
        let padding = self.explanation.as_ref()?.as_ref().ok()?;
        Some(ListingCheck::new(listed, padding))
    }
}

/// The shapes of `input` explained one by one: `input` is a shape string,
/// or a log that holds XLA's out-of-memory listings ([`Listing`]).
///
/// The iterator yields an entry per listed allocation, in order, holding
/// one at a time. When there is none, it yields one error: the shape's
/// parse error for one line of input, else that no listing was found.
///
/// Tiles from `options` apply to the arrays of a shape string and of
/// XLA:TPU's listings that have none; XLA:GPU's shapes are never tiled.
pub fn padding_entries<'a>(input: &'a str, options: &PaddingOptions) -> PaddingEntries<'a> {
    PaddingEntries {
        input,
        options: options.clone(),
        listing: None,
        yielded: false,
        done: false,
    }
}

/// The iterator of [`padding_entries`].
#[derive(Clone, Debug)]
pub struct PaddingEntries<'a> {
    input: &'a str,
    options: PaddingOptions,
    listing: Option<Listing<'a>>,
    yielded: bool,
    done: bool,
}

/// Without a shape's tiles (an XLA:GPU listing's shapes).
fn untiled() -> &'static PaddingOptions {
    static NONE: PaddingOptions = PaddingOptions { tiles: Vec::new() };
    &NONE
}

/// The explanation of a listed shape.
fn explain_listed(text: &str, options: &PaddingOptions) -> Result<Padding> {
    let shape: Shape = match text.parse() {
        Ok(s) => s,
        Err(e) if text.ends_with("...") => {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                format!("the listing cut the shape short (`...`): {}", e.message()),
            ));
        }
        Err(e) => return Err(e),
    };
    explain_padding(&shape, options)
}

impl<'a> Iterator for PaddingEntries<'a> {
    type Item = Result<PaddingEntry<'a>>;

    fn next(&mut self) -> Option<Result<PaddingEntry<'a>>> {
        if self.done {
            return None;
        }
        if self.listing.is_none() {
            let text = self.input.trim();
            if !text.contains('\n')
                && let Ok(shape) = text.parse::<Shape>()
            {
                self.done = true;
                return Some(Ok(PaddingEntry {
                    shape: Some(text),
                    listed: None,
                    explanation: Some(explain_padding(&shape, &self.options).map(Box::new)),
                }));
            }
            self.listing = Some(Listing::new(self.input));
        }
        let listing = self.listing.as_mut()?;
        match listing.next() {
            Some(listed) => {
                self.yielded = true;
                let options = match listed.format {
                    ListingFormat::Tpu => &self.options,
                    ListingFormat::BufferAssignment => untiled(),
                };
                let explanation = listed
                    .shape
                    .map(|s| explain_listed(s, options).map(Box::new));
                Some(Ok(PaddingEntry {
                    shape: listed.shape,
                    listed: Some(listed),
                    explanation,
                }))
            }
            None => {
                self.done = true;
                if self.yielded {
                    return None;
                }
                let text = self.input.trim();
                if !text.contains('\n') && !text.is_empty() {
                    // One line that is neither a shape nor a listing: the
                    // shape's error.
                    if let Err(e) = text.parse::<Shape>() {
                        return Some(Err(e));
                    }
                }
                Some(Err(Error::invalid_argument(
                    "the input is neither a shape nor a log with XLA's out-of-memory listing \
                     (\"Largest program allocations in ...\", \"N. Size:\", \"Shape:\"; or \
                     \"BufferAssignment OOM Debugging\", \"Buffer N:\")",
                )))
            }
        }
    }
}

/// Every entry of [`padding_entries`], collected.
///
/// ```
/// use xla_shape::memory::{self, PaddingOptions};
///
/// // From jax-ml/jax#13428 (XLA:GPU): an entry parameter's buffer.
/// let log = "Peak buffers:\n\tBuffer 2:\n\t\tSize: 384.0KiB\n\
///            \t\tEntry Parameter Subshape: f32[256,128,3]\n\t\t==========================\n";
/// let entries = memory::padding(log, &PaddingOptions::new())?;
/// let p = entries[0].explanation.as_ref().unwrap().as_ref().unwrap();
/// assert_eq!((p.unpadded, p.padded), (393216, 393216));
/// assert_eq!(entries[0].check().unwrap().agrees(), Some(true));
/// # Ok::<(), xla_shape::Error>(())
/// ```
///
/// # Errors
///
/// As [`padding_entries`]' one error.
pub fn padding<'a>(input: &'a str, options: &PaddingOptions) -> Result<Vec<PaddingEntry<'a>>> {
    padding_entries(input, options).collect()
}
