//! A static memory report of a module: what each instruction's result
//! takes, by XLA's `ShapeUtil::ByteSizeOf` and with its tiles applied.
//!
//! This is a static view: every instruction's result counts as one buffer
//! of its own. XLA's buffer assignment shares buffers between instructions
//! and reuses them once they are dead (liveness), aliases tuple elements,
//! and fuses instructions away; none of that is modelled.

use std::collections::BTreeMap;
use std::fmt::Write as _;

#[cfg(feature = "formats")]
use serde_json::json;

use super::{HloInstruction, HloModule, Recent};
use crate::error::{Error, Result};
use crate::model::{PrimitiveType, Shape};
use crate::shape_util::byte_size_of;
use crate::tiling::TiledLayout;

/// The pointer size that `ByteSizeOf` is given for tuple index tables: 8,
/// as on every 64-bit XLA backend.
pub const POINTER_SIZE: i64 = 8;

/// One instruction's result buffer.
#[derive(Clone, Debug, PartialEq)]
pub struct BufferRow<'a> {
    /// The computation it belongs to.
    pub computation: &'a str,
    /// The instruction.
    pub instruction: &'a HloInstruction,
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

impl BufferRow<'_> {
    /// `padded_byte_size - byte_size`: what the tiles cost.
    pub fn padding(&self) -> Option<i64> {
        self.padded_byte_size?.checked_sub(self.byte_size?)
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

    fn add(&mut self, row: &BufferRow<'_>) -> Result<()> {
        let overflow = || Error::overflow("the report's byte totals overflow i64");
        self.buffers += 1;
        self.byte_size = self
            .byte_size
            .checked_add(row.byte_size.unwrap_or(0))
            .ok_or_else(overflow)?;
        self.padded_byte_size = self
            .padded_byte_size
            .checked_add(row.padded_byte_size.unwrap_or(0))
            .ok_or_else(overflow)?;
        Ok(())
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
/// assert_eq!(report.total.byte_size, 60);
/// assert_eq!(report.total.padded_byte_size, 96);
/// # Ok::<(), xla_shape::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct MemoryReport<'a> {
    /// The module's name.
    pub module: &'a str,
    /// Every instruction's buffer, in the module's order.
    pub rows: Vec<BufferRow<'a>>,
    /// Totals by memory space, in increasing order.
    pub by_memory_space: BTreeMap<i64, Total>,
    /// Totals by element type (by category for non-arrays), in the order
    /// of their lower-case names.
    pub by_element_type: BTreeMap<&'static str, Total>,
    /// The totals of every buffer.
    pub total: Total,
}

fn sizes(shape: &Shape) -> (i64, PrimitiveType, Option<i64>, Option<i64>) {
    let memory_space = match shape {
        Shape::Array(a) => a.layout().map_or(0, |l| l.memory_space()),
        _ => 0,
    };
    let byte_size = byte_size_of(shape, POINTER_SIZE).ok();
    let padded = match shape {
        Shape::Array(a) if a.has_layout() => TiledLayout::new(a).ok().map(|t| t.byte_size()),
        _ => byte_size,
    };
    (memory_space, shape.element_type(), byte_size, padded)
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
            by_memory_space: BTreeMap::new(),
            by_element_type: BTreeMap::new(),
            total: Total::default(),
        };
        let mut recent = Recent::new();
        for (computation, instruction) in module.instructions() {
            let (memory_space, element_type, byte_size, padded_byte_size) = match &instruction.shape
            {
                Ok(shape) => recent.get(shape, sizes),
                Err(_) => (0, PrimitiveType::Invalid, None, None),
            };
            let row = BufferRow {
                computation: &computation.name,
                instruction,
                memory_space,
                element_type,
                byte_size,
                padded_byte_size,
            };
            report.total.add(&row)?;
            report
                .by_memory_space
                .entry(memory_space)
                .or_default()
                .add(&row)?;
            report
                .by_element_type
                .entry(element_type.lowercase_name())
                .or_default()
                .add(&row)?;
            report.rows.push(row);
        }
        Ok(report)
    }

    /// The `n` largest buffers by padded size, largest first (ties in the
    /// module's order).
    pub fn largest(&self, n: usize) -> Vec<&BufferRow<'a>> {
        let mut rows: Vec<_> = self.rows.iter().collect();
        rows.sort_by_key(|r| std::cmp::Reverse(r.padded_byte_size.unwrap_or(-1)));
        rows.truncate(n);
        rows
    }

    /// The report as one JSON document: `module`, `instructions` (every
    /// row), `by_memory_space`, `by_element_type`, `total` and `largest`
    /// (the `top` largest buffers), on one line. With the `formats` feature.
    #[cfg(feature = "formats")]
    pub fn to_json(&self, top: usize) -> String {
        let total = |t: &Total| {
            json!({
                "buffers": t.buffers,
                "byte_size": t.byte_size,
                "padded_byte_size": t.padded_byte_size,
                "padding": t.padding(),
            })
        };
        let row = |r: &BufferRow<'_>| {
            let i = r.instruction;
            let (shape, note) = match &i.shape {
                Ok(s) => (s.to_string(), None),
                Err(rejected) => (rejected.written.clone(), Some(rejected.error.message())),
            };
            json!({
                "computation": r.computation,
                "name": i.name,
                "opcode": i.opcode,
                "shape": shape,
                "memory_space": r.memory_space,
                "element_type": r.element_type.lowercase_name(),
                "byte_size": r.byte_size,
                "padded_byte_size": r.padded_byte_size,
                "padding": r.padding(),
                "invalid": note,
            })
        };
        json!({
            "module": self.module,
            "instructions": self.rows.iter().map(row).collect::<Vec<_>>(),
            "by_memory_space": self.by_memory_space.iter()
                .map(|(s, t)| { let mut v = total(t); v["memory_space"] = json!(s); v })
                .collect::<Vec<_>>(),
            "by_element_type": self.by_element_type.iter()
                .map(|(e, t)| { let mut v = total(t); v["element_type"] = json!(e); v })
                .collect::<Vec<_>>(),
            "total": total(&self.total),
            "largest": self.largest(top).into_iter().map(row).collect::<Vec<_>>(),
        })
        .to_string()
    }

    /// The report as a table for a terminal of `width` columns: every
    /// instruction under its computation, the totals, and the `top` largest
    /// buffers. Names and shapes too long for their column are cut with `…`.
    pub fn to_table(&self, top: usize, width: usize) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "module {}: {} instructions",
            self.module,
            self.rows.len()
        );
        // The opcode column fits the longest opcode (up to 24); then the
        // memory space (3), three sizes of 12, separators.
        let op_w = self
            .rows
            .iter()
            .map(|r| r.instruction.opcode.chars().count())
            .max()
            .unwrap_or(0)
            .clamp(6, 24);
        let fixed = op_w + 3 + 3 * 12 + 6;
        let free = width.saturating_sub(fixed).max(30);
        // Names and shapes get what they need, up to their share of the rest.
        let shapes: Vec<String> = self
            .rows
            .iter()
            .map(|r| shape_text(r.instruction))
            .collect();
        let longest = |it: &mut dyn Iterator<Item = usize>| it.max().unwrap_or(0);
        let name_need = longest(&mut self.rows.iter().map(|r| {
            (r.computation.chars().count() + r.instruction.name.chars().count() + 1).max(20)
        }));
        let name_w = name_need.min(free * 2 / 5).max(12);
        let shape_need = longest(&mut shapes.iter().map(|s| s.chars().count())).max(5);
        let shape_w = shape_need.min(free.saturating_sub(name_w)).max(12);
        let header = |out: &mut String, title: &str| {
            let _ = writeln!(
                out,
                "{:<name_w$} {:<op_w$} {:>3} {:<shape_w$} {:>12} {:>12} {:>12}",
                cut(title, name_w),
                "opcode",
                "S",
                "shape",
                "ByteSizeOf",
                "padded",
                "padding"
            );
        };
        let line = |out: &mut String, name: &str, r: &BufferRow<'_>, shape: &str| {
            let i = r.instruction;
            let size = |v: Option<i64>| v.map_or_else(|| "-".to_owned(), |v| v.to_string());
            let _ = writeln!(
                out,
                "{:<name_w$} {:<op_w$} {:>3} {:<shape_w$} {:>12} {:>12} {:>12}",
                cut(name, name_w),
                cut(&i.opcode, op_w),
                r.memory_space,
                cut(shape, shape_w),
                size(r.byte_size),
                size(r.padded_byte_size),
                size(r.padding()),
            );
        };
        let mut computation = None;
        for (r, shape) in self.rows.iter().zip(&shapes) {
            if computation != Some(r.computation) {
                computation = Some(r.computation);
                out.push('\n');
                header(&mut out, r.computation);
            }
            line(&mut out, &format!("  {}", r.instruction.name), r, shape);
        }
        let totals = |out: &mut String, title: &str, rows: Vec<(String, &Total)>| {
            let _ = writeln!(
                out,
                "\n{title:<16} {:>8} {:>14} {:>14} {:>14}",
                "buffers", "ByteSizeOf", "padded", "padding"
            );
            for (key, t) in rows {
                let _ = writeln!(
                    out,
                    "{key:<16} {:>8} {:>14} {:>14} {:>14}",
                    t.buffers,
                    t.byte_size,
                    t.padded_byte_size,
                    t.padding()
                );
            }
        };
        totals(
            &mut out,
            "memory space",
            self.by_memory_space
                .iter()
                .map(|(s, t)| (format!("S({s})"), t))
                .collect(),
        );
        totals(
            &mut out,
            "element type",
            self.by_element_type
                .iter()
                .map(|(e, t)| ((*e).to_owned(), t))
                .collect(),
        );
        totals(&mut out, "total", vec![("all".to_owned(), &self.total)]);
        let largest = self.largest(top);
        if !largest.is_empty() {
            out.push('\n');
            header(&mut out, &format!("largest {} (padded)", largest.len()));
            for r in largest {
                let name = format!("{}/{}", r.computation, r.instruction.name);
                line(&mut out, &name, r, &shape_text(r.instruction));
            }
        }
        out
    }
}

/// An instruction's shape as the table shows it.
fn shape_text(i: &HloInstruction) -> String {
    match &i.shape {
        Ok(s) => s.to_string(),
        Err(rejected) => format!("{} (invalid)", rejected.written),
    }
}

/// `s` cut to `width` characters, ending in `…` when cut.
fn cut(s: &str, width: usize) -> String {
    if s.chars().count() <= width {
        return s.to_owned();
    }
    let mut t: String = s.chars().take(width.saturating_sub(1)).collect();
    t.push('…');
    t
}
