//! The one strides → layout algorithm: order the dimensions by stride, then
//! check that each stride is the compact one (the product of the sizes
//! before it in that order). [`layout_from_strides`](super::layout_from_strides)
//! and DLPack's [`strides_to_layout`](crate::interop::dlpack::strides_to_layout)
//! run it with their own [`Rules`] and word its answer their own way.

use std::fmt;

use crate::model::Layout;

/// How dimensions of at most one element, whose stride says nothing about
/// memory, are placed, and what an empty array gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Rules {
    /// XLA's `StridesToLayout` (`xla/python/dlpack_strides.cc`, as in
    /// jaxlib 0.10.2): when some dimension has at most one element and the
    /// others have the compact strides of row-major order, the layout is
    /// row-major; otherwise equal strides put the higher dimension minor.
    /// An empty array is no special case (jaxlib's importer skips the call
    /// for one).
    Xla,
    /// The packed rules: an empty array has the default (descending)
    /// layout; a dimension of one element sits where its stride puts it,
    /// minor to a larger dimension of equal stride; equal strides otherwise
    /// put the higher dimension minor.
    Packed,
}

/// Why strides have no layout; `Display` says it in one wording for every
/// caller.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NoLayout {
    /// The strides are not one per dimension.
    Lengths { strides: usize, dims: usize },
    /// A dimension has a negative size.
    NegativeSize { dim: usize, size: i64 },
    /// The strides are not those of a compact layout.
    NotCompact(NotCompact),
}

/// The first dimension of more than one element, in stride order, whose
/// stride is not the compact one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct NotCompact {
    /// The dimension.
    pub dim: usize,
    /// Its stride.
    pub stride: i64,
    /// The stride a compact layout gives it.
    pub needed: i64,
    /// The dimension of more than one element before it in stride order.
    pub previous: Option<usize>,
}

/// What is wrong with a stride that is not the compact one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Reason {
    /// Zero: the dimension's elements share one slot.
    Broadcast,
    /// Negative.
    Negative,
    /// Positive but less than compact: elements share slots.
    Overlap,
    /// More than compact: a gap between elements.
    Gap,
}

impl NotCompact {
    /// What is wrong with the stride.
    pub fn reason(&self) -> Reason {
        match self.stride {
            0 => Reason::Broadcast,
            s if s < 0 => Reason::Negative,
            s if s < self.needed => Reason::Overlap,
            _ => Reason::Gap,
        }
    }
}

impl fmt::Display for NoLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let c = match *self {
            NoLayout::Lengths { strides, dims } => {
                return write!(f, "{strides} strides given for {dims} dimensions");
            }
            NoLayout::NegativeSize { dim, size } => {
                return write!(f, "dimension {dim} has negative size {size}");
            }
            NoLayout::NotCompact(c) => c,
        };
        let (d, s, needed) = (c.dim, c.stride, c.needed);
        match (c.reason(), c.previous) {
            (Reason::Broadcast, _) => write!(f, "dimension {d} has stride 0: broadcasting"),
            (Reason::Negative, _) => write!(f, "dimension {d} has negative stride {s}"),
            (reason, previous) => {
                write!(
                    f,
                    "dimension {d} has stride {s} where a compact layout needs {needed}: "
                )?;
                match (reason, previous) {
                    (Reason::Gap, _) => write!(f, "a gap between elements"),
                    (_, Some(p)) => write!(f, "it overlaps dimension {p}"),
                    (_, None) => write!(f, "elements overlap"),
                }
            }
        }
    }
}

/// The layout whose compact element strides are `strides` for an array of
/// `dims`, by `rules`, or why there is none.
pub(crate) fn compact_layout(
    dims: &[i64],
    strides: &[i64],
    rules: Rules,
) -> Result<Layout, NoLayout> {
    if dims.len() != strides.len() {
        return Err(NoLayout::Lengths {
            strides: strides.len(),
            dims: dims.len(),
        });
    }
    if let Some(dim) = dims.iter().position(|&n| n < 0) {
        return Err(NoLayout::NegativeSize {
            dim,
            size: dims[dim],
        });
    }
    let rank = dims.len();
    let descending = || Layout::new((0..rank as i64).rev().collect::<Vec<_>>());
    let small = |d: usize| dims[d] <= 1;
    match rules {
        Rules::Packed if dims.contains(&0) => return Ok(descending()),
        Rules::Xla if (0..rank).any(small) => {
            // Row-major if the dimensions of more than one element are.
            let row_major: Vec<usize> = (0..rank).rev().filter(|&d| !small(d)).collect();
            if check(dims, strides, &row_major).is_ok() {
                return Ok(descending());
            }
        }
        _ => {}
    }
    let mut order: Vec<usize> = (0..rank).collect();
    match rules {
        Rules::Xla => order.sort_by_key(|&d| (strides[d], std::cmp::Reverse(d))),
        Rules::Packed => {
            order.sort_by_key(|&d| (strides[d], !small(d), std::cmp::Reverse(d)));
        }
    }
    check(dims, strides, &order).map_err(NoLayout::NotCompact)?;
    Ok(Layout::new(
        order.into_iter().map(|d| d as i64).collect::<Vec<_>>(),
    ))
}

/// Whether every dimension of more than one element has, in the
/// minor-to-major `order`, the product of the sizes before it as stride
/// (the sizes of every dimension in `order`, as XLA's loop multiplies
/// them).
fn check(dims: &[i64], strides: &[i64], order: &[usize]) -> Result<(), NotCompact> {
    let mut needed = 1i64;
    let mut previous = None;
    for &d in order {
        if dims[d] <= 1 {
            // A size of 1 leaves the product as it is; a size of 0 makes
            // it 0 (the packed rules have returned before).
            needed = needed.saturating_mul(dims[d]);
            continue;
        }
        if strides[d] != needed {
            return Err(NotCompact {
                dim: d,
                stride: strides[d],
                needed,
                previous,
            });
        }
        needed = needed.saturating_mul(dims[d]);
        previous = Some(d);
    }
    Ok(())
}
