//! A static memory report of a module: what each instruction's result
//! takes, by XLA's `ShapeUtil::ByteSizeOf` and with its tiles applied.
//!
//! This is a static view: every instruction's result counts as one buffer
//! of its own. XLA's buffer assignment shares buffers between instructions
//! and reuses them once they are dead (liveness), aliases tuple elements,
//! and fuses instructions away; none of that is modelled.
//!
//! The parts are separate, for callers that want only some of them: the
//! rows (each instruction's [`BufferSizes`], from
//! [`InstructionLine::sizes`](super::InstructionLine::sizes) of text read
//! line by line or [`HloModule::buffers`] of a view), the [`Totals`], and
//! the [`Largest`] buffers. [`BufferTally`] keeps the last two as the rows
//! stream past; [`MemoryReport`] is all three for a view.

use super::{HloInstruction, HloModule, Recent};
use crate::error::{Error, Result};
use crate::model::{PrimitiveType, Shape};
use crate::shape_util::byte_size_of;
use crate::tiling::TiledLayout;
use std::cmp::Ordering;
use std::collections::{BTreeMap, BinaryHeap};

/// The pointer size that `ByteSizeOf` is given for tuple index tables: 8,
/// as on every 64-bit XLA backend.
pub const POINTER_SIZE: i64 = 8;

/// What one buffer takes in memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BufferSizes {
    /// The memory space of its layout (`S(n)`; 0 when not set or not an
    /// array).
    pub memory_space: i64,
    /// The element type (`f32`), or the category (`tuple`, `token`).
    pub element_type: PrimitiveType,
    /// XLA's `ShapeUtil::ByteSizeOf` with [`POINTER_SIZE`]; `None` for a
    /// shape kept as written (rejected by XLA's validation).
    pub byte_size: Option<i64>,
    /// The bytes with every tile of the layout applied
    /// ([`TiledLayout::byte_size`]; `byte_size` for non-arrays).
    pub padded_byte_size: Option<i64>,
}

impl BufferSizes {
    /// The sizes of a shape kept as written: none.
    pub const REJECTED: BufferSizes = BufferSizes {
        memory_space: 0,
        element_type: PrimitiveType::Invalid,
        byte_size: None,
        padded_byte_size: None,
    };

    /// The sizes of a buffer of `shape`.
    pub fn of(shape: &Shape) -> Self {
        let memory_space = match shape {
            Shape::Array(a) => a.layout().map_or(0, |l| l.memory_space()),
            _ => 0,
        };
        let byte_size = byte_size_of(shape, POINTER_SIZE).ok();
        let padded_byte_size = match shape {
            Shape::Array(a) if a.has_layout() => TiledLayout::new(a).ok().map(|t| t.byte_size()),
            _ => byte_size,
        };
        BufferSizes {
            memory_space,
            element_type: shape.element_type(),
            byte_size,
            padded_byte_size,
        }
    }

    /// `padded_byte_size - byte_size`: what the tiles cost.
    pub fn padding(&self) -> Option<i64> {
        self.padded_byte_size?.checked_sub(self.byte_size?)
    }

    /// The key the largest buffers are ranked by: the padded size, and
    /// below every size for a buffer without one.
    fn rank(&self) -> i64 {
        self.padded_byte_size.unwrap_or(-1)
    }
}

/// One instruction's result buffer.
#[derive(Clone, Debug, PartialEq)]
pub struct BufferRow<'a> {
    /// The computation it belongs to.
    pub computation: &'a str,
    /// The instruction.
    pub instruction: &'a HloInstruction,
    /// What it takes.
    pub sizes: BufferSizes,
}

impl BufferRow<'_> {
    /// `padded_byte_size - byte_size`: what the tiles cost.
    pub fn padding(&self) -> Option<i64> {
        self.sizes.padding()
    }
}

/// Totals of a group of buffers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Total {
    /// How many buffers.
    pub buffers: usize,
    /// The sum of their `ByteSizeOf`.
    pub byte_size: i64,
    /// The sum of their padded sizes.
    pub padded_byte_size: i64,
}

impl Total {
    /// What the tiles cost in all.
    pub fn padding(&self) -> i64 {
        self.padded_byte_size - self.byte_size
    }

    fn add(&mut self, sizes: &BufferSizes) -> Result<()> {
        let overflow = || Error::overflow("the report's byte totals overflow i64");
        self.buffers += 1;
        self.byte_size = self
            .byte_size
            .checked_add(sizes.byte_size.unwrap_or(0))
            .ok_or_else(overflow)?;
        self.padded_byte_size = self
            .padded_byte_size
            .checked_add(sizes.padded_byte_size.unwrap_or(0))
            .ok_or_else(overflow)?;
        Ok(())
    }
}

/// The totals of a report, which a caller reading a module one
/// instruction at a time adds up without holding the instructions.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Totals {
    /// Totals by memory space, in increasing order.
    pub by_memory_space: BTreeMap<i64, Total>,
    /// Totals by element type (by category for non-arrays), in the order
    /// of their lower-case names.
    pub by_element_type: BTreeMap<&'static str, Total>,
    /// The totals of every buffer.
    pub total: Total,
}

impl Totals {
    /// Counts one buffer.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Overflow`](crate::ErrorKind::Overflow) if a total does
    /// not fit in an `i64`.
    pub fn add(&mut self, sizes: &BufferSizes) -> Result<()> {
        self.total.add(sizes)?;
        self.by_memory_space
            .entry(sizes.memory_space)
            .or_default()
            .add(sizes)?;
        self.by_element_type
            .entry(sizes.element_type.lowercase_name())
            .or_default()
            .add(sizes)
    }
}

/// The `n` largest of a stream of items by an `i64` key, largest first,
/// ties in the order they came: a bounded heap that holds at most `n`
/// items and makes an item only when it is kept.
///
/// ```
/// use xla_shape::hlo::Largest;
///
/// let mut largest = Largest::new(2);
/// for (name, bytes) in [("a", 8), ("b", 96), ("c", 8), ("d", 60)] {
///     largest.push(bytes, || name);
/// }
/// assert_eq!(largest.into_sorted(), ["b", "d"]);
/// ```
#[derive(Clone, Debug)]
pub struct Largest<T> {
    n: usize,
    /// The next item's place in the stream.
    seen: u64,
    /// The kept items, the one that goes first on top.
    heap: BinaryHeap<Ranked<T>>,
}

/// An item with its key and place in the stream, ordered so that the
/// greatest is the one to drop first: the smallest key, and among equal
/// keys the latest.
#[derive(Clone, Debug)]
struct Ranked<T> {
    key: i64,
    seq: u64,
    item: T,
}

impl<T> Ranked<T> {
    fn rank(&self) -> (std::cmp::Reverse<i64>, u64) {
        (std::cmp::Reverse(self.key), self.seq)
    }
}

impl<T> PartialEq for Ranked<T> {
    fn eq(&self, other: &Self) -> bool {
        self.rank() == other.rank()
    }
}

impl<T> Eq for Ranked<T> {}

impl<T> PartialOrd for Ranked<T> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<T> Ord for Ranked<T> {
    fn cmp(&self, other: &Self) -> Ordering {
        self.rank().cmp(&other.rank())
    }
}

impl<T> Largest<T> {
    /// Keeps the `n` largest.
    pub fn new(n: usize) -> Self {
        Largest {
            n,
            seen: 0,
            heap: BinaryHeap::new(),
        }
    }

    /// Offers the next item, of `key`: `item` is called only if the item
    /// is kept (it is among the `n` largest so far).
    pub fn push(&mut self, key: i64, item: impl FnOnce() -> T) {
        let seq = self.seen;
        self.seen += 1;
        if self.heap.len() < self.n {
            self.heap.push(Ranked {
                key,
                seq,
                item: item(),
            });
        } else if let Some(mut last) = self.heap.peek_mut()
            && key > last.key
        {
            // An equal key came earlier: it stays.
            *last = Ranked {
                key,
                seq,
                item: item(),
            };
        }
    }

    /// How many items are kept.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// Whether no item is kept.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// The kept items, largest first (ties in the order they came).
    pub fn sorted(&self) -> Vec<&T> {
        let mut ranked: Vec<&Ranked<T>> = self.heap.iter().collect();
        ranked.sort_unstable();
        ranked.into_iter().map(|r| &r.item).collect()
    }

    /// The kept items, largest first (ties in the order they came).
    pub fn into_sorted(self) -> Vec<T> {
        self.heap
            .into_sorted_vec()
            .into_iter()
            .map(|r| r.item)
            .collect()
    }
}

/// The streaming accumulator of a module's buffers: fed one instruction's
/// [`BufferSizes`] at a time, it keeps the [`Totals`] and the `top`
/// largest buffers by padded size (ties in the module's order), as the
/// item the caller makes of each (a row it will print, an index). It
/// holds nothing else: the rows are the caller's, to write as they come
/// or to drop.
///
/// ```
/// use xla_shape::hlo::{BufferTally, TextLine, TextReader};
///
/// let text = "HloModule m\nENTRY %e {\n  %p = f32[3,5]{1,0:T(2,2)} parameter(0)\n  \
///             ROOT %n = s8[4]{0} negate(%p)\n}\n";
/// let (mut reader, mut tally, mut start) = (TextReader::new(), BufferTally::new(1), 0);
/// for line in text.lines() {
///     if let TextLine::Instruction(i) = reader.line(line, start)? {
///         tally.add(&i.sizes(), || i.name.to_owned())?;
///     }
///     start += line.len() + 1;
/// }
/// reader.finish(start)?;
/// // Figure 1 of XLA's tiled-layout document: 15 elements in 24 slots.
/// assert_eq!(tally.totals().total.padded_byte_size, 96 + 4);
/// assert_eq!(tally.largest().sorted(), [&"p".to_owned()]);
/// # Ok::<(), xla_shape::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct BufferTally<T> {
    totals: Totals,
    largest: Largest<T>,
}

impl<T> BufferTally<T> {
    /// A tally that keeps the `top` largest buffers.
    pub fn new(top: usize) -> Self {
        BufferTally {
            totals: Totals::default(),
            largest: Largest::new(top),
        }
    }

    /// Counts the next buffer; `item` is called only if the buffer is
    /// among the largest so far. A buffer without sizes (a shape kept as
    /// written) ranks below every other.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Overflow`](crate::ErrorKind::Overflow) if a total does
    /// not fit in an `i64`.
    pub fn add(&mut self, sizes: &BufferSizes, item: impl FnOnce() -> T) -> Result<()> {
        self.totals.add(sizes)?;
        self.largest
            .push(sizes.padded_byte_size.unwrap_or(-1), item);
        Ok(())
    }

    /// The totals so far.
    pub fn totals(&self) -> &Totals {
        &self.totals
    }

    /// The largest buffers so far.
    pub fn largest(&self) -> &Largest<T> {
        &self.largest
    }

    /// The totals and the largest buffers, largest first.
    pub fn finish(self) -> (Totals, Vec<T>) {
        (self.totals, self.largest.into_sorted())
    }
}

impl HloModule {
    /// Every instruction's result buffer with its sizes, in the module's
    /// order (sized once for each run of a few distinct shapes).
    pub fn buffers(&self) -> impl Iterator<Item = BufferRow<'_>> {
        let mut recent = Recent::new();
        self.instructions()
            .map(move |(computation, instruction)| BufferRow {
                computation: &computation.name,
                instruction,
                sizes: match &instruction.shape {
                    Ok(shape) => recent.get(shape, BufferSizes::of),
                    Err(_) => BufferSizes::REJECTED,
                },
            })
    }
}

/// The memory report of a module (`xla-shape report`).
///
/// ```
/// use xla_shape::hlo::{HloModule, MemoryReport};
///
/// let text = "HloModule m\n\nENTRY %main (p: f32[3,5]) -> f32[3,5] {\n  \
///             ROOT %p = f32[3,5]{1,0:T(2,2)} parameter(0)\n}\n";
/// let module = HloModule::from_text(text)?;
/// let report = MemoryReport::new(&module)?;
/// // Figure 1 of XLA's tiled-layout document: 15 elements in 24 slots.
/// assert_eq!(report.totals.total.byte_size, 60);
/// assert_eq!(report.totals.total.padded_byte_size, 96);
/// # Ok::<(), xla_shape::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct MemoryReport<'a> {
    /// The module's name.
    pub module: &'a str,
    /// Every instruction's buffer, in the module's order.
    pub rows: Vec<BufferRow<'a>>,
    /// The totals.
    pub totals: Totals,
}

impl<'a> MemoryReport<'a> {
    /// The report of `module`: its [`buffers`](HloModule::buffers) and
    /// their totals.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Overflow`](crate::ErrorKind::Overflow) if a total does
    /// not fit in an `i64`.
    pub fn new(module: &'a HloModule) -> Result<Self> {
        let mut totals = Totals::default();
        let rows = module
            .buffers()
            .map(|row| totals.add(&row.sizes).map(|()| row))
            .collect::<Result<Vec<_>>>()?;
        Ok(MemoryReport {
            module: &module.name,
            rows,
            totals,
        })
    }

    /// The `n` largest buffers by padded size, largest first (ties in the
    /// module's order), as [`BufferTally`] ranks them.
    pub fn largest(&self, n: usize) -> Vec<&BufferRow<'a>> {
        let mut largest = Largest::new(n);
        for row in &self.rows {
            largest.push(row.sizes.rank(), || row);
        }
        largest.into_sorted()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The heap keeps what a stable sort of everything by decreasing key
    /// keeps, in the same order: ties in the order they came; with few
    /// distinct keys, many ties.
    #[test]
    fn largest_is_the_head_of_a_stable_sort() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for round in 0..200 {
            let len = (next() % 40) as usize;
            let distinct = 1 + next() % 6;
            let keys: Vec<i64> = (0..len).map(|_| (next() % distinct) as i64 - 1).collect();
            for n in [0, 1, 3, len, len + 2] {
                let mut largest = Largest::new(n);
                let mut made = 0;
                for (i, &k) in keys.iter().enumerate() {
                    largest.push(k, || {
                        made += 1;
                        i
                    });
                }
                let mut expected: Vec<usize> = (0..len).collect();
                expected.sort_by_key(|&i| std::cmp::Reverse(keys[i]));
                expected.truncate(n);
                assert_eq!(largest.len(), expected.len());
                let sorted: Vec<usize> = largest.sorted().into_iter().copied().collect();
                assert_eq!(sorted, expected, "round {round}, n {n}, {keys:?}");
                assert_eq!(largest.into_sorted(), expected);
                // Items are made only when kept (at most once per push).
                assert!(made <= len);
                if n == 0 {
                    assert_eq!(made, 0);
                }
            }
        }
    }
}
