//! A static memory report of a module: what each instruction's result
//! takes, by XLA's `ShapeUtil::ByteSizeOf` and with its tiles applied.
//!
//! This is a static view: every instruction's result counts as one buffer
//! of its own. XLA's buffer assignment shares buffers between instructions
//! and reuses them once they are dead (liveness), aliases tuple elements,
//! and fuses instructions away; none of that is modelled.

use super::{HloInstruction, HloModule, Recent};
use crate::error::{Error, Result};
use crate::model::{PrimitiveType, Shape};
use crate::shape_util::byte_size_of;
use crate::tiling::TiledLayout;
use std::collections::BTreeMap;

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
    /// The report of `module`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Overflow`](crate::ErrorKind::Overflow) if a total does
    /// not fit in an `i64`.
    pub fn new(module: &'a HloModule) -> Result<Self> {
        let mut report = MemoryReport {
            module: &module.name,
            rows: Vec::new(),
            totals: Totals::default(),
        };
        let mut recent = Recent::new();
        for (computation, instruction) in module.instructions() {
            let sizes = match &instruction.shape {
                Ok(shape) => recent.get(shape, BufferSizes::of),
                Err(_) => BufferSizes::REJECTED,
            };
            report.totals.add(&sizes)?;
            report.rows.push(BufferRow {
                computation: &computation.name,
                instruction,
                sizes,
            });
        }
        Ok(report)
    }

    /// The `n` largest buffers by padded size, largest first (ties in the
    /// module's order).
    pub fn largest(&self, n: usize) -> Vec<&BufferRow<'a>> {
        let mut rows: Vec<_> = self.rows.iter().collect();
        rows.sort_by_key(|r| std::cmp::Reverse(r.sizes.padded_byte_size.unwrap_or(-1)));
        rows.truncate(n);
        rows
    }
}
