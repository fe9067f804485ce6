//! The full tiled-layout model (XLA's tiled_layout document, made precise):
//! physical shapes, element offsets and sizes with every tile applied.
//!
//! XLA's own helpers only understand part of a tiled layout:
//! `IndexUtil` ignores tiles, `LayoutUtil::LinearIndex` and
//! `ShapeUtil::ArraySize` use only the first tile and do not handle `*`.
//! [`TiledLayout`] applies every tile, in order, as the tiled-layout
//! document (docs/tiled_layout.md in XLA) describes:
//!
//! - the dimensions are put in physical order, most major first;
//! - each tile applies to the most minor dimensions of the current shape:
//!   a `*` bound ([`Tile::COMBINE_DIMENSION`]) merges its dimension into the
//!   next more minor one, then every dimension `d` with bound `t` becomes
//!   `(ceil(d / t), t)`, and the `t` parts move to the minor end, in order;
//!   a tile with more bounds than the current rank sees leading dimensions
//!   of size 1;
//! - the element count is rounded up to a multiple of `L(n)`, and the
//!   bytes are `ceil(count * bits / 8)` with `E(n)` bits per element when
//!   it is set.
//!
//! ```
//! use xla_shape::tiling::{Slot, TiledLayout};
//! use xla_shape::{ArrayShape, Layout, PrimitiveType, Tile};
//!
//! // Figure 1 of XLA's tiled-layout document: F32[3,5]{1,0:T(2,2)}.
//! let shape = ArrayShape::new(PrimitiveType::F32, [3, 5])?
//!     .with_layout(Some(Layout::new([1, 0]).with_tiles(vec![Tile::new([2, 2])?])))?;
//! let tiled = TiledLayout::new(&shape)?;
//! assert_eq!(tiled.physical_shape(), [2, 3, 2, 2]);
//! assert_eq!(tiled.offset(&[2, 3])?, 17);
//! assert_eq!(tiled.slot(17)?, Slot::Element(vec![2, 3]));
//! assert_eq!(tiled.slot(9)?, Slot::Padding);
//! assert_eq!((tiled.byte_size(), tiled.unpadded_byte_size()), (96, 60));
//! # Ok::<(), xla_shape::Error>(())
//! ```
//!
//! Which bytes hold a box of the index space, and whether a dimension's
//! rows are contiguous: [`TiledLayout::byte_ranges`],
//! [`TiledLayout::is_row_addressable`].

mod ranges;

use std::fmt;

use crate::error::{Error, Result};
use crate::model::{ArrayShape, PrimitiveType, Tile};

/// What a slot of a tiled buffer holds: an element (its index) or padding.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Slot {
    /// The slot holds the element with this index.
    Element(Vec<i64>),
    /// The slot holds no element: tile padding or tail padding.
    Padding,
}

/// A rounding up that a tile's bound makes: the part of the shape it
/// splits is not a multiple of the bound, so the last tile along it is
/// partly padding. [`TiledLayout::roundings`] lists them in the order the
/// tiles apply; the tiled element count is the element count times every
/// `rounded / size`.
///
/// ```
/// use xla_shape::tiling::{RoundedPart, TiledLayout};
/// use xla_shape::Shape;
///
/// // jax-ml/jax#7502: the minor-most dimension, 4, is rounded up to 128.
/// let s: Shape = "s32[2048,1,128,128,4]{4,3,2,0,1:T(8,128)}".parse()?;
/// let tiled = TiledLayout::new(s.as_array().unwrap())?;
/// let r = &tiled.roundings()[0];
/// assert_eq!((r.part.clone(), r.size, r.bound, r.rounded), (RoundedPart::Dimension(4), 4, 128, 128));
/// assert_eq!(tiled.roundings().len(), 1);
/// # Ok::<(), xla_shape::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Rounding {
    /// The tile (its index in the layout's tiles).
    pub tile: usize,
    /// The bound's index in that tile.
    pub bound_index: usize,
    /// The bound.
    pub bound: i64,
    /// What it splits.
    pub part: RoundedPart,
    /// Its size.
    pub size: i64,
    /// Its size rounded up to a multiple of the bound (saturating).
    pub rounded: i64,
}

/// The part of a shape a tile's bound splits.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum RoundedPart {
    /// A logical dimension, whole.
    Dimension(usize),
    /// A leading dimension of size 1, which a tile with more bounds than
    /// the dimensions it applies to sees.
    Leading,
    /// Logical dimensions combined by `*` bounds, major first.
    Combined(Vec<usize>),
    /// A part an earlier tile made (the count of its tiles along a
    /// dimension, or a position within them, or parts combined).
    Tiled {
        /// The tile that made it.
        tile: usize,
        /// The logical dimension it comes from, when it comes from one.
        dimension: Option<usize>,
    },
}

/// How a node of the tiling graph was made.
#[derive(Clone, Copy, Debug)]
enum Def {
    /// A logical dimension (or, at `>= rank`, a leading dimension of size 1
    /// that a tile with more bounds than the rank sees).
    Logical(usize),
    /// `*` bounds: the nodes `children[first..first + len]`, major first,
    /// merged into one.
    Merge { first: usize, len: usize },
    /// The tile count of a split: `value(of) / by`.
    Quot { of: usize, by: i64 },
    /// The position within the tile: `value(of) % by`.
    Rem { of: usize, by: i64 },
}

/// Where a node's value goes.
#[derive(Clone, Copy, Debug)]
enum Use {
    /// A dimension of the physical shape.
    Final,
    /// A part of a merged node: `value = (value(into) / weight) % size`.
    Merged { into: usize, weight: i64 },
    /// Split by a tile bound: `value = value(quot) * by + value(rem)`.
    Split { quot: usize, rem: usize, by: i64 },
}

#[derive(Clone, Copy, Debug)]
struct Node {
    size: i64,
    def: Def,
    used: Use,
}

/// One mixed-radix digit of a logical dimension and its place in memory:
/// the digit `(index[dim] / weight) % extent` is stored with `stride`
/// (in elements). Layouts whose tiles cut every dimension into such digits
/// (all but a few exotic ones) are described by their digits alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Term {
    /// The logical dimension; `>= rank` for a leading size-1 dimension that
    /// only a long tile sees.
    pub(crate) dim: usize,
    pub(crate) weight: i64,
    pub(crate) extent: i64,
    pub(crate) stride: i64,
    /// The digit is the most significant one of its dimension: it takes
    /// every value `index / weight`, not a remainder.
    top: bool,
}

/// The physical arrangement of an array with a tiled layout: where every
/// element lives, which slots are padding, and how many bytes the buffer
/// takes. Built once per shape ([`TiledLayout::new`]); the per-element
/// methods allocate nothing for layouts whose tiles cut dimensions evenly
/// (every layout without `*` whose tiles nest, such as TPU's
/// `(8,128)(2,1)`), and use a small stack buffer for the others.
#[derive(Clone, Debug)]
pub struct TiledLayout {
    shape: ArrayShape,
    /// Logical dimensions, then the leading size-1 dimensions long tiles add.
    dims: Vec<i64>,
    element_bits: i64,
    plan: Plan,
    physical: Vec<i64>,
    tiled_count: i64,
    slot_count: i64,
    element_count: i64,
    terms: Option<Vec<Term>>,
    roundings: Vec<Rounding>,
}

/// Values of the graph's nodes while mapping one element; on the stack for
/// every realistic layout.
const STACK_NODES: usize = 64;

/// The tiling graph compiled for mapping elements, for layouts without a
/// digit form. A node of size 1 always holds 0 and gets no slot (slot 0
/// holds the constant 0); a quotient by 1, and a merge of one node larger
/// than 1 with nodes of size 1, hold their source's value and share its
/// slot. So tiles of bound 1, such as XLA's `(2,1)`, cost nothing per
/// element, however many there are.
#[derive(Clone, Debug)]
struct Plan {
    /// Slots, the constant 0 included.
    slots: usize,
    /// Index to slots, in the graph's creation order.
    forward: Vec<Step>,
    /// The parts of merges: slot and size, major first.
    parts: Vec<(usize, i64)>,
    /// The physical dimensions larger than 1: slot and stride.
    finals: Vec<(usize, i64)>,
    /// Offset to slots, in reverse creation order.
    backward: Vec<Back>,
    /// The logical dimensions larger than 1 and their slots.
    logical: Vec<(usize, usize)>,
}

#[derive(Clone, Copy, Debug)]
enum Step {
    Logical {
        slot: usize,
        dim: usize,
    },
    Merge {
        slot: usize,
        first: usize,
        len: usize,
    },
    Quot {
        slot: usize,
        of: usize,
        by: i64,
    },
    Rem {
        slot: usize,
        of: usize,
        by: i64,
    },
}

#[derive(Clone, Copy, Debug)]
enum Back {
    Final {
        slot: usize,
        stride: i64,
        size: i64,
    },
    Merged {
        slot: usize,
        into: usize,
        weight: i64,
        size: i64,
    },
    /// `value(quot) * by + value(rem)`, padding when not below `size`.
    Split {
        slot: usize,
        quot: usize,
        rem: usize,
        by: i64,
        size: i64,
    },
    /// A node of size 1 split by a larger bound: padding unless the
    /// remainder (here `slot`) is 0.
    Zero {
        slot: usize,
    },
}

impl Plan {
    fn new(nodes: &[Node], children: &[usize], finals: &[usize], strides: &[i64]) -> Plan {
        const ZERO: usize = 0;
        let unit = |n: usize| nodes[n].size == 1;
        let mut plan = Plan {
            slots: 1,
            forward: Vec::new(),
            parts: Vec::new(),
            finals: Vec::new(),
            backward: Vec::new(),
            logical: Vec::new(),
        };
        // The slot of every node; a node that shares its source's slot is
        // an alias.
        let mut slot = vec![ZERO; nodes.len()];
        let mut alias = vec![false; nodes.len()];
        for (n, node) in nodes.iter().enumerate() {
            if unit(n) {
                continue;
            }
            let shared = match node.def {
                Def::Quot { of, by: 1 } => Some(slot[of]),
                Def::Merge { first, len } => {
                    let mut big = children[first..first + len].iter().filter(|&&c| !unit(c));
                    match (big.next(), big.next()) {
                        (Some(&c), None) => Some(slot[c]),
                        _ => None,
                    }
                }
                _ => None,
            };
            if let Some(s) = shared {
                slot[n] = s;
                alias[n] = true;
                continue;
            }
            slot[n] = plan.slots;
            plan.slots += 1;
            let s = slot[n];
            plan.forward.push(match node.def {
                Def::Logical(dim) => {
                    plan.logical.push((dim, s));
                    Step::Logical { slot: s, dim }
                }
                Def::Merge { first, len } => {
                    let start = plan.parts.len();
                    plan.parts.extend(
                        children[first..first + len]
                            .iter()
                            .filter(|&&c| !unit(c))
                            .map(|&c| (slot[c], nodes[c].size)),
                    );
                    Step::Merge {
                        slot: s,
                        first: start,
                        len: plan.parts.len() - start,
                    }
                }
                Def::Quot { of, by } => Step::Quot {
                    slot: s,
                    of: slot[of],
                    by,
                },
                Def::Rem { of, by } => Step::Rem {
                    slot: s,
                    of: slot[of],
                    by,
                },
            });
        }
        let mut stride_of = vec![0i64; nodes.len()];
        for (&f, &st) in finals.iter().zip(strides) {
            stride_of[f] = st;
            if !unit(f) {
                plan.finals.push((slot[f], st));
            }
        }
        for n in (0..nodes.len()).rev() {
            let size = nodes[n].size;
            let step = match nodes[n].used {
                Use::Split { rem, by, .. } if unit(n) && by != 1 => Back::Zero { slot: slot[rem] },
                _ if unit(n) => continue,
                // Shared with the quotient or the merge, set from its use.
                Use::Split { by: 1, .. } => continue,
                Use::Merged { into, .. } if alias[into] => continue,
                Use::Final => Back::Final {
                    slot: slot[n],
                    stride: stride_of[n],
                    size,
                },
                Use::Merged { into, weight } => Back::Merged {
                    slot: slot[n],
                    into: slot[into],
                    weight,
                    size,
                },
                Use::Split { quot, rem, by } => Back::Split {
                    slot: slot[n],
                    quot: slot[quot],
                    rem: slot[rem],
                    by,
                    size,
                },
            };
            plan.backward.push(step);
        }
        plan
    }
}

fn overflow(shape: &ArrayShape, what: &str) -> Error {
    Error::overflow(format!("{what} of {shape} overflows int64_t"))
}

fn ceil_div(a: i64, b: i64) -> i64 {
    a / b + i64::from(a % b != 0)
}

impl TiledLayout {
    /// The tiled arrangement of `shape`, which must have a layout.
    ///
    /// Bounded dynamic dimensions count with their bound (the buffer is
    /// sized for it, as in XLA).
    ///
    /// # Errors
    ///
    /// - `InvalidArgument`: the shape has no layout, an unbounded dynamic
    ///   dimension, or a tile whose most minor bound is `*` (nothing to
    ///   merge it into);
    /// - `Overflow`: the tiled element count or byte size does not fit
    ///   `i64` (tiles can make a valid shape's buffer that large).
    pub fn new(shape: &ArrayShape) -> Result<Self> {
        let layout = shape.layout().ok_or_else(|| {
            Error::invalid_argument(format!("shape {shape} has no layout to tile"))
        })?;
        let rank = shape.rank();
        let mut dims = Vec::with_capacity(rank);
        for (d, &size) in shape.dimensions().iter().enumerate() {
            if size < 0 {
                return Err(Error::invalid_argument(format!(
                    "dimension {d} of {shape} is unbounded dynamic: it has no size to lay out"
                )));
            }
            dims.push(size);
        }
        let element_bits = match layout.element_size_in_bits() {
            0 => 8 * byte_width(shape.element_type()),
            n => n,
        };
        let element_count = dims
            .iter()
            .try_fold(1i64, |acc, &d| acc.checked_mul(d))
            .ok_or_else(|| overflow(shape, "the element count"))?;

        let mut b = Builder {
            shape,
            nodes: Vec::new(),
            children: Vec::new(),
            terms: Vec::new(),
            dims: dims.clone(),
            rank,
            tile: 0,
            made_by: Vec::new(),
            origin: Vec::new(),
            roundings: Vec::new(),
        };
        let mut current: Vec<usize> = layout
            .minor_to_major()
            .iter()
            .rev()
            .map(|&d| b.logical(d as usize))
            .collect();
        for (k, tile) in layout.tiles().iter().enumerate() {
            b.tile = k;
            current = b.apply_tile(current, tile)?;
        }
        let Builder {
            mut nodes,
            children,
            terms: node_terms,
            dims,
            roundings,
            ..
        } = b;
        for &n in &current {
            nodes[n].used = Use::Final;
        }

        let physical: Vec<i64> = current.iter().map(|&n| nodes[n].size).collect();
        let tiled_count = if physical.contains(&0) {
            0
        } else {
            physical
                .iter()
                .try_fold(1i64, |acc, &s| acc.checked_mul(s))
                .ok_or_else(|| overflow(shape, "the tiled element count"))?
        };
        let mut final_strides = vec![0i64; physical.len()];
        let mut stride = 1i64;
        for (f, &s) in physical.iter().enumerate().rev() {
            final_strides[f] = stride;
            stride = stride.saturating_mul(s);
        }
        let align = layout.tail_padding_alignment_in_elements().max(1);
        let slot_count = ceil_div(tiled_count, align)
            .checked_mul(align)
            .ok_or_else(|| overflow(shape, "the element count with tail padding"))?;
        bits_to_bytes(slot_count, element_bits).ok_or_else(|| overflow(shape, "the byte size"))?;

        // The digits of every dimension, if every node kept a digit form.
        let mut terms = Some(Vec::new());
        for (f, &n) in current.iter().enumerate() {
            match (&mut terms, &node_terms[n]) {
                (Some(out), Some(ts)) => {
                    let mut stride = final_strides[f];
                    let mut product = 1i64;
                    for t in ts.iter().rev() {
                        if t.extent != 1 {
                            out.push(Term { stride, ..*t });
                        }
                        stride = stride.saturating_mul(t.extent);
                        product = product.saturating_mul(t.extent);
                    }
                    if product != nodes[n].size {
                        terms = None;
                    }
                }
                _ => terms = None,
            }
        }
        if tiled_count == 0 {
            terms = Some(Vec::new());
        }
        let plan = Plan::new(&nodes, &children, &current, &final_strides);
        Ok(TiledLayout {
            shape: shape.clone(),
            dims,
            element_bits,
            plan,
            physical,
            tiled_count,
            slot_count,
            element_count,
            terms,
            roundings,
        })
    }

    /// Where the tiles round a part of the shape up, in the order they
    /// apply: each split whose size is not a multiple of its bound (tail
    /// padding, `L(n)`, and the element size, `E(n)`, are apart:
    /// [`slot_count`](Self::slot_count), [`element_size_in_bits`](Self::element_size_in_bits)).
    pub fn roundings(&self) -> &[Rounding] {
        &self.roundings
    }

    /// The shape this arrangement is for.
    pub fn shape(&self) -> &ArrayShape {
        &self.shape
    }

    /// The element type.
    pub fn element_type(&self) -> PrimitiveType {
        self.shape.element_type()
    }

    /// The logical dimensions (bounded dynamic ones at their bound).
    pub fn dimensions(&self) -> &[i64] {
        &self.dims[..self.shape.rank()]
    }

    /// The physical shape after every tile, most major first: the shape
    /// whose row-major order is the memory order. Its product is
    /// [`tiled_element_count`](Self::tiled_element_count).
    ///
    /// `F32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}` (the combined-dimension example of the tiled-layout document) is tiled as
    /// `[112,110]` with tile `(2,3)`: physical shape `[56,37,2,3]`.
    pub fn physical_shape(&self) -> &[i64] {
        &self.physical
    }

    /// Bits per element in memory: `E(n)` if set, else 8 times XLA's
    /// `ByteWidth` (so 8 for `s4` without `E(4)`).
    pub fn element_size_in_bits(&self) -> i64 {
        self.element_bits
    }

    /// The number of elements (the product of the dimensions).
    pub fn element_count(&self) -> i64 {
        self.element_count
    }

    /// The number of slots after tiling, before tail padding: the product
    /// of [`physical_shape`](Self::physical_shape).
    pub fn tiled_element_count(&self) -> i64 {
        self.tiled_count
    }

    /// The number of slots in the buffer: the tiled count rounded up to a
    /// multiple of `L(n)`. Offsets are less than this.
    pub fn slot_count(&self) -> i64 {
        self.slot_count
    }

    /// The buffer's size in bytes, padding included:
    /// `ceil(slot_count * bits / 8)`.
    pub fn byte_size(&self) -> i64 {
        bits_to_bytes(self.slot_count, self.element_bits).unwrap_or(i64::MAX)
    }

    /// The bytes the elements alone need, `ceil(element_count * bits / 8)`
    /// (XLA's `ShapeUtil::ByteSizeOfElements`).
    pub fn unpadded_byte_size(&self) -> i64 {
        // element_count <= slot_count, so this fits when byte_size does.
        bits_to_bytes(self.element_count, self.element_bits).unwrap_or(i64::MAX)
    }

    /// The padding overhead in bytes: `byte_size - unpadded_byte_size`.
    pub fn padding_byte_size(&self) -> i64 {
        self.byte_size() - self.unpadded_byte_size()
    }

    /// Whether some slot holds no element (tile or tail padding).
    pub fn has_padding(&self) -> bool {
        self.slot_count != self.element_count
    }

    /// The offset of the element at `index`, in elements from the start of
    /// the buffer (multiply by [`element_size_in_bits`](Self::element_size_in_bits)
    /// for a bit offset).
    ///
    /// # Errors
    ///
    /// `InvalidArgument` when `index` has the wrong length or is out of
    /// bounds.
    pub fn offset(&self, index: &[i64]) -> Result<i64> {
        self.check_index(index)?;
        Ok(self.offset_unchecked(index))
    }

    /// The offset of an in-bounds index (checked by the caller).
    pub(crate) fn offset_unchecked(&self, index: &[i64]) -> i64 {
        if let Some(terms) = &self.terms {
            let mut offset = 0i64;
            for t in terms {
                // Digits of the leading size-1 dimensions are 0.
                if let Some(&i) = index.get(t.dim) {
                    offset += ((i / t.weight) % t.extent) * t.stride;
                }
            }
            return offset;
        }
        self.with_scratch(|vals| self.forward(index, vals))
    }

    /// Runs `f` on zeroed slots for the plan's values.
    fn with_scratch<R>(&self, f: impl FnOnce(&mut [i64]) -> R) -> R {
        let slots = self.plan.slots;
        if slots <= STACK_NODES {
            let mut buf = [0i64; STACK_NODES];
            f(&mut buf[..slots])
        } else {
            f(&mut vec![0i64; slots])
        }
    }

    /// Every node's value for `index`, in creation order (a node is made
    /// after the nodes it is made from).
    fn forward(&self, index: &[i64], vals: &mut [i64]) -> i64 {
        let plan = &self.plan;
        for step in &plan.forward {
            match *step {
                Step::Logical { slot, dim } => vals[slot] = index.get(dim).copied().unwrap_or(0),
                Step::Merge { slot, first, len } => {
                    vals[slot] = plan.parts[first..first + len]
                        .iter()
                        .fold(0, |acc, &(c, size)| acc * size + vals[c]);
                }
                Step::Quot { slot, of, by } => vals[slot] = vals[of] / by,
                Step::Rem { slot, of, by } => vals[slot] = vals[of] % by,
            }
        }
        plan.finals.iter().map(|&(f, s)| vals[f] * s).sum()
    }

    /// What the slot at `offset` holds.
    ///
    /// # Errors
    ///
    /// `InvalidArgument` when `offset` is negative or not less than
    /// [`slot_count`](Self::slot_count).
    pub fn slot(&self, offset: i64) -> Result<Slot> {
        let mut index = vec![0i64; self.shape.rank()];
        Ok(if self.slot_into(offset, &mut index)? {
            Slot::Element(index)
        } else {
            Slot::Padding
        })
    }

    /// Like [`slot`](Self::slot) without allocating: writes the element's
    /// index into `index` and returns `true`, or returns `false` for a
    /// padding slot (`index` then holds no meaningful value).
    ///
    /// # Errors
    ///
    /// As [`slot`](Self::slot), and `InvalidArgument` when `index.len()` is
    /// not the rank.
    pub fn slot_into(&self, offset: i64, index: &mut [i64]) -> Result<bool> {
        self.check_rank(index, "index buffer")?;
        if offset < 0 || offset >= self.slot_count {
            return Err(Error::invalid_argument(format!(
                "offset {offset} is out of bounds: {} has {} slots",
                self.shape, self.slot_count
            )));
        }
        if offset >= self.tiled_count {
            return Ok(false);
        }
        if let Some(terms) = &self.terms {
            index.fill(0);
            for t in terms {
                let digit = (offset / t.stride) % t.extent;
                match index.get_mut(t.dim) {
                    Some(i) => *i = i.saturating_add(digit.saturating_mul(t.weight)),
                    None if digit != 0 => return Ok(false),
                    None => {}
                }
            }
            return Ok(index.iter().zip(&self.dims).all(|(&i, &d)| i < d));
        }
        Ok(self.with_scratch(|vals| self.backward(offset, vals, index)))
    }

    /// Every node's value from the physical position `offset`, in reverse
    /// creation order (a node's users are made after it); `false` when a
    /// split lands in a tile's padding.
    fn backward(&self, offset: i64, vals: &mut [i64], index: &mut [i64]) -> bool {
        let plan = &self.plan;
        for step in &plan.backward {
            match *step {
                Back::Final { slot, stride, size } => vals[slot] = (offset / stride) % size,
                Back::Merged {
                    slot,
                    into,
                    weight,
                    size,
                } => vals[slot] = (vals[into] / weight) % size,
                Back::Split {
                    slot,
                    quot,
                    rem,
                    by,
                    size,
                } => {
                    let v = vals[quot].saturating_mul(by).saturating_add(vals[rem]);
                    if v >= size {
                        return false;
                    }
                    vals[slot] = v;
                }
                Back::Zero { slot } => {
                    if vals[slot] != 0 {
                        return false;
                    }
                }
            }
        }
        index.fill(0);
        for &(d, slot) in &plan.logical {
            if let Some(i) = index.get_mut(d) {
                *i = vals[slot];
            }
        }
        true
    }

    /// `InvalidArgument` unless `index` (`what`: an index or a buffer for
    /// one) has one entry per dimension.
    fn check_rank(&self, index: &[i64], what: &str) -> Result<()> {
        let rank = self.shape.rank();
        if index.len() != rank {
            return Err(Error::invalid_argument(format!(
                "{what} has {} entries but {} has rank {rank}",
                index.len(),
                self.shape
            )));
        }
        Ok(())
    }

    fn check_index(&self, index: &[i64]) -> Result<()> {
        self.check_rank(index, "index")?;
        for (d, (&i, &size)) in index.iter().zip(&self.dims).enumerate() {
            if i < 0 || i >= size {
                return Err(Error::invalid_argument(format!(
                    "index {i} is out of bounds for dimension {d} of size {size} in {}",
                    self.shape
                )));
            }
        }
        Ok(())
    }

    /// The digit form of the layout, when it has one.
    pub(crate) fn terms(&self) -> Option<&[Term]> {
        self.terms.as_deref()
    }
}

impl fmt::Display for TiledLayout {
    /// `f32[3,5]{1,0:T(2,2)} -> physical [2,3,2,2]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} -> physical [", self.shape)?;
        for (i, s) in self.physical.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{s}")?;
        }
        f.write_str("]")
    }
}

/// XLA's `ByteWidth` of an array type (every `ArrayShape` has one).
pub(crate) fn byte_width(t: PrimitiveType) -> i64 {
    t.byte_width().unwrap_or(1)
}

/// `ceil(count * bits / 8)`, or `None` when it does not fit `i64`.
pub(crate) fn bits_to_bytes(count: i64, bits: i64) -> Option<i64> {
    let b = (i128::from(count) * i128::from(bits) + 7) / 8;
    i64::try_from(b).ok()
}

struct Builder<'a> {
    shape: &'a ArrayShape,
    nodes: Vec<Node>,
    children: Vec<usize>,
    /// The digit form of each node, `None` once a split cut across digits.
    terms: Vec<Option<Vec<Term>>>,
    dims: Vec<i64>,
    /// The shape's rank (`dims` grows past it with leading dimensions).
    rank: usize,
    /// The tile being applied.
    tile: usize,
    /// For each node, the tile that made it (`None`: a logical dimension).
    made_by: Vec<Option<usize>>,
    /// For each node, the logical dimension it comes from, when it comes
    /// from one alone.
    origin: Vec<Option<usize>>,
    roundings: Vec<Rounding>,
}

impl Builder<'_> {
    fn push(&mut self, size: i64, def: Def, terms: Option<Vec<Term>>) -> usize {
        let (made_by, origin) = match def {
            Def::Logical(d) => (None, (d < self.rank).then_some(d)),
            Def::Merge { first, len } => {
                let mut kids = self.children[first..first + len].iter();
                let first_origin = kids.next().and_then(|&c| self.origin[c]);
                let same = kids.all(|&c| self.origin[c] == first_origin);
                (Some(self.tile), first_origin.filter(|_| same))
            }
            Def::Quot { of, .. } | Def::Rem { of, .. } => (Some(self.tile), self.origin[of]),
        };
        self.made_by.push(made_by);
        self.origin.push(origin);
        self.nodes.push(Node {
            size,
            def,
            used: Use::Final,
        });
        self.terms.push(terms);
        self.nodes.len() - 1
    }

    /// What node `n` is, for a [`Rounding`].
    fn part(&self, n: usize) -> RoundedPart {
        let logical = |c: usize| match self.nodes[c].def {
            Def::Logical(d) => Some(d),
            _ => None,
        };
        match self.nodes[n].def {
            Def::Logical(d) if d < self.rank => RoundedPart::Dimension(d),
            Def::Logical(_) => RoundedPart::Leading,
            Def::Merge { first, len }
                if self.children[first..first + len]
                    .iter()
                    .all(|&c| logical(c).is_some()) =>
            {
                RoundedPart::Combined(
                    self.children[first..first + len]
                        .iter()
                        .filter_map(|&c| logical(c))
                        .filter(|&d| d < self.rank)
                        .collect(),
                )
            }
            _ => RoundedPart::Tiled {
                tile: self.made_by[n].unwrap_or(self.tile),
                dimension: self.origin[n],
            },
        }
    }

    fn logical(&mut self, d: usize) -> usize {
        let size = self.dims[d];
        let term = Term {
            dim: d,
            weight: 1,
            extent: size,
            stride: 0,
            top: true,
        };
        self.push(size, Def::Logical(d), Some(vec![term]))
    }

    fn apply_tile(&mut self, mut current: Vec<usize>, tile: &Tile) -> Result<Vec<usize>> {
        let bounds = tile.dimensions();
        let k = bounds.len();
        if bounds.last() == Some(&Tile::COMBINE_DIMENSION) {
            return Err(Error::invalid_argument(format!(
                "tile {tile} of {} ends in `*`: there is no more minor dimension to combine it with",
                self.shape
            )));
        }
        if k > current.len() {
            let extra = k - current.len();
            let mut padded = Vec::with_capacity(k);
            for _ in 0..extra {
                // A leading dimension of size 1, numbered after the real ones.
                let d = self.dims.len();
                self.dims.push(1);
                padded.push(self.logical(d));
            }
            padded.extend_from_slice(&current);
            current = padded;
        }
        let split_at = current.len() - k;
        let mut quots = Vec::with_capacity(k);
        let mut rems = Vec::with_capacity(k);
        let mut group_start = split_at;
        for (j, &bound) in bounds.iter().enumerate() {
            if bound == Tile::COMBINE_DIMENSION {
                continue;
            }
            let group = &current[group_start..=split_at + j];
            group_start = split_at + j + 1;
            let node = if group.len() == 1 {
                group[0]
            } else {
                self.merge(group.to_vec())?
            };
            let size = self.nodes[node].size;
            if size > 0 && size % bound != 0 {
                let rounded = ceil_div(size, bound).saturating_mul(bound);
                let part = self.part(node);
                self.roundings.push(Rounding {
                    tile: self.tile,
                    bound_index: j,
                    bound,
                    part,
                    size,
                    rounded,
                });
            }
            let (q, r) = self.split(node, bound);
            quots.push(q);
            rems.push(r);
        }
        current.truncate(split_at);
        current.extend(quots);
        current.extend(rems);
        Ok(current)
    }

    fn merge(&mut self, group: Vec<usize>) -> Result<usize> {
        let sizes: Vec<i64> = group.iter().map(|&n| self.nodes[n].size).collect();
        let size = if sizes.contains(&0) {
            0
        } else {
            sizes
                .iter()
                .try_fold(1i64, |a, &s| a.checked_mul(s))
                .ok_or_else(|| overflow(self.shape, "a combined dimension"))?
        };
        let terms = group
            .iter()
            .map(|&n| self.terms[n].clone())
            .collect::<Option<Vec<_>>>()
            .map(|ts| ts.concat());
        let first = self.children.len();
        self.children.extend_from_slice(&group);
        let m = self.push(
            size,
            Def::Merge {
                first,
                len: group.len(),
            },
            terms,
        );
        let mut weight = 1i64;
        for (&n, &s) in group.iter().zip(&sizes).rev() {
            self.nodes[n].used = Use::Merged { into: m, weight };
            weight = weight.saturating_mul(s);
        }
        Ok(m)
    }

    fn split(&mut self, node: usize, by: i64) -> (usize, usize) {
        let size = self.nodes[node].size;
        let (qt, rt) = match &self.terms[node] {
            Some(ts) => split_terms(ts, by),
            None => (None, None),
        };
        let q = self.push(ceil_div(size, by), Def::Quot { of: node, by }, qt);
        let r = self.push(by, Def::Rem { of: node, by }, rt);
        self.nodes[node].used = Use::Split {
            quot: q,
            rem: r,
            by,
        };
        (q, r)
    }
}

/// The digits of `value / by` and `value % by` for a node whose value has
/// the digits `terms` (major first), or `None` when the bound cuts across
/// a digit.
#[allow(clippy::type_complexity)]
fn split_terms(terms: &[Term], by: i64) -> (Option<Vec<Term>>, Option<Vec<Term>>) {
    let mut quot: Vec<Term> = terms.to_vec();
    let mut rem: Vec<Term> = Vec::new();
    let mut left = by;
    while left > 1 {
        let Some(last) = quot.pop() else {
            // The whole value is below `by`: the remainder's most major
            // digit takes the extra (padding) values, if it can.
            match rem.first_mut() {
                Some(t) if t.top => match t.extent.checked_mul(left) {
                    Some(e) => t.extent = e,
                    None => return (None, None),
                },
                _ => return (None, None),
            }
            break;
        };
        if last.extent == 0 {
            return (None, None);
        }
        if left % last.extent == 0 {
            left /= last.extent;
            rem.insert(0, last);
        } else if last.extent % left == 0 || (last.top && quot.is_empty()) {
            let Some(weight) = last.weight.checked_mul(left) else {
                return (None, None);
            };
            quot.push(Term {
                weight,
                extent: ceil_div(last.extent, left),
                ..last
            });
            rem.insert(
                0,
                Term {
                    extent: left,
                    top: false,
                    ..last
                },
            );
            left = 1;
        } else {
            return (None, None);
        }
    }
    // Digits wholly moved to the remainder are no longer the top ones of
    // their dimension only if a quotient digit of the same dimension stays.
    for t in &mut rem {
        if quot.iter().any(|q| q.dim == t.dim) {
            t.top = false;
        }
    }
    (Some(quot), Some(rem))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Layout;

    fn tiled(dims: &[i64], mtm: &[i64], tiles: &[&[i64]]) -> TiledLayout {
        let layout = Layout::new(mtm.to_vec())
            .with_tiles(tiles.iter().map(|t| Tile::new(t).unwrap()).collect());
        let shape = ArrayShape::new(PrimitiveType::F32, dims.to_vec())
            .unwrap()
            .with_layout(Some(layout))
            .unwrap();
        TiledLayout::new(&shape).unwrap()
    }

    /// The digit form and the graph agree on every element and slot.
    fn digits_agree_with_graph(t: &TiledLayout) {
        assert!(t.terms.is_some(), "{t} has a digit form");
        let rank = t.dimensions().len();
        let mut index = vec![0i64; rank];
        let mut back = vec![0i64; rank];
        for o in 0..t.tiled_count {
            let by_digits = t.slot_into(o, &mut index).unwrap();
            let by_graph = t.with_scratch(|v| t.backward(o, v, &mut back));
            assert_eq!(by_digits, by_graph, "{t}: slot {o}");
            if by_digits {
                assert_eq!(index, back, "{t}: slot {o}");
                let graph_offset = t.with_scratch(|v| t.forward(&index, v));
                assert_eq!(t.offset(&index).unwrap(), graph_offset);
                assert_eq!(graph_offset, o);
            }
        }
    }

    #[test]
    fn digit_form_matches_graph() {
        digits_agree_with_graph(&tiled(&[3, 5], &[1, 0], &[&[2, 2]]));
        digits_agree_with_graph(&tiled(&[4, 8], &[1, 0], &[&[2, 4], &[2, 1]]));
        digits_agree_with_graph(&tiled(&[5, 7], &[0, 1], &[&[2, 4]]));
        digits_agree_with_graph(&tiled(&[3], &[0], &[&[8, 128]]));
        digits_agree_with_graph(&tiled(&[9, 20], &[1, 0], &[&[8, 16], &[2, 4]]));
        digits_agree_with_graph(&tiled(&[2, 3, 8], &[2, 1, 0], &[&[2, i64::MIN, 8]]));
        digits_agree_with_graph(&tiled(&[3, 2, 5], &[0, 2, 1], &[&[4], &[2, 2]]));
    }

    /// The tiled element count is the element count times every rounding's
    /// `rounded / size`.
    fn roundings_account_for_the_tiles(t: &TiledLayout) {
        let mut num = i128::from(t.element_count());
        let mut den = 1i128;
        for r in t.roundings() {
            assert!(
                r.size > 0 && r.size % r.bound != 0 && r.rounded % r.bound == 0,
                "{r:?}"
            );
            num *= i128::from(r.rounded);
            den *= i128::from(r.size);
        }
        assert_eq!(i128::from(t.tiled_element_count()) * den, num, "{t}");
    }

    /// Each rounding's part, size and rounded size.
    fn parts_rounded(t: &TiledLayout) -> Vec<(RoundedPart, i64, i64)> {
        t.roundings()
            .iter()
            .map(|r| (r.part.clone(), r.size, r.rounded))
            .collect()
    }

    #[test]
    fn roundings_name_what_they_round() {
        // f32[3,5]{1,0:T(2,2)}: 3 -> 4 and 5 -> 6.
        let t = tiled(&[3, 5], &[1, 0], &[&[2, 2]]);
        roundings_account_for_the_tiles(&t);
        let parts = parts_rounded(&t);
        assert_eq!(
            parts,
            [
                (RoundedPart::Dimension(0), 3, 4),
                (RoundedPart::Dimension(1), 5, 6)
            ]
        );
        // A tile longer than the rank sees a leading dimension of 1.
        let t = tiled(&[3], &[0], &[&[8, 128]]);
        roundings_account_for_the_tiles(&t);
        let parts: Vec<_> = t.roundings().iter().map(|r| r.part.clone()).collect();
        assert_eq!(parts, [RoundedPart::Leading, RoundedPart::Dimension(0)]);
        // `*` combines dimensions 0 to 2 (112, split evenly by 2) and 3 and
        // 4 (11 x 10 = 110, rounded up to 111 by 3).
        let t = tiled(
            &[2, 7, 8, 11, 10],
            &[4, 3, 2, 1, 0],
            &[&[i64::MIN, i64::MIN, 2, i64::MIN, 3]],
        );
        roundings_account_for_the_tiles(&t);
        let parts = parts_rounded(&t);
        assert_eq!(parts, [(RoundedPart::Combined(vec![3, 4]), 110, 111)]);
        // The second tile rounds a part the first made: 8 -> 9 by 3.
        let t = tiled(&[16], &[0], &[&[8], &[3]]);
        roundings_account_for_the_tiles(&t);
        assert_eq!(
            t.roundings()[0].part,
            RoundedPart::Tiled {
                tile: 0,
                dimension: Some(0)
            }
        );
        for t in [
            tiled(&[4, 8], &[1, 0], &[&[2, 4], &[2, 1]]),
            tiled(&[9, 20], &[1, 0], &[&[8, 16], &[2, 4]]),
            tiled(&[3, 2, 5], &[0, 2, 1], &[&[4], &[2, 2]]),
            tiled(&[2, 3, 8], &[2, 1, 0], &[&[2, i64::MIN, 8]]),
        ] {
            roundings_account_for_the_tiles(&t);
        }
    }

    #[test]
    fn cross_digit_splits_use_the_graph() {
        // The tiled-layout document's combined dimensions: (11,10) merged, then split by 3.
        let t = tiled(
            &[2, 7, 8, 11, 10],
            &[4, 3, 2, 1, 0],
            &[&[i64::MIN, i64::MIN, 2, i64::MIN, 3]],
        );
        assert!(t.terms.is_none());
        // A remainder of 8 split by 3.
        let t = tiled(&[16], &[0], &[&[8], &[3]]);
        assert!(t.terms.is_none());
    }
}
