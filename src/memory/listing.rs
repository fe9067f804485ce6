//! The out-of-memory listings XLA prints, read from a log.
//!
//! Two formats, both found by their keys on each line, whatever a logger
//! put before them (glog's time and file, Ray's worker name):
//!
//! - **XLA:TPU**, after "Ran out of memory in memory space hbm": a header
//!   `Largest program allocations in <memory space>:`, then numbered
//!   entries, each ended by a line of `=`:
//!
//!   ```text
//!     1. Size: 16.00G
//!        Operator: op_type="concatenate" op_name="jit(t)/..."
//!        Shape: s32[2048,1,128,128,4]{4,3,2,0,1:T(8,128)}
//!        Unpadded size: 512.00M
//!        Extra memory due to padding: 15.50G (32.0x expansion)
//!        XLA label: %fusion.1 = s32[2048,1,128,128,4]{...} fusion(...)
//!        Allocation type: HLO temp
//!        ==========================
//!   ```
//!
//!   (jax-ml/jax#7502). XLA:TPU's printer is not public; the format is
//!   taken from the listings users posted from 2019 to 2024
//!   (`tests/data/listings/`, each named after its thread). `Extra
//!   memory due to padding` is printed only when the padded size is larger.
//! - **XLA's buffer assignment** (`BufferAssignment::ToVerboseString`,
//!   `xla/service/buffer_assignment.cc`), which XLA:GPU prints when an
//!   allocation fails: `BufferAssignment OOM Debugging.`, its statistics,
//!   then `Peak buffers:` and for each `Buffer N:`, `Size:`, `Operator:`
//!   (when the instruction has an `op_name`), and `XLA Label:` with
//!   `Shape:` (the shape without its layout, `Shape::ToString`), or
//!   `Entry Parameter Subshape:` for an entry parameter.
//!
//! Sizes are printed by `tsl::strings::HumanReadableNumBytes`
//! (`tsl/platform/numbers.cc`): bytes below 1024 as `NB`, else divided by
//! 1024 while at least 1024 * 1024 remain (each division truncating), then
//! once more in floating point, `%.1f` for `K` and `%.2f` for the larger
//! units. XLA:GPU's listing ends each with `iB` (`3.40GiB`), XLA:TPU's does
//! not (`16.00G`). [`printed_size_agrees`] prints a byte count the same
//! way to compare it with a listing's figure.
//!
//! A listing pasted in part is read as far as it goes: an entry may start
//! at its `Shape:` line, and entries may come without their header.

use std::str::Lines;

/// Which of XLA's listings an entry comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ListingFormat {
    /// XLA:TPU's "Largest program allocations in" a memory space.
    Tpu,
    /// XLA's `BufferAssignment::ToVerboseString` ("BufferAssignment OOM
    /// Debugging", XLA:GPU's peak buffers).
    BufferAssignment,
}

impl ListingFormat {
    /// `"tpu"` or `"buffer_assignment"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ListingFormat::Tpu => "tpu",
            ListingFormat::BufferAssignment => "buffer_assignment",
        }
    }
}

/// One allocation of an out-of-memory listing, with its fields as printed
/// (borrowed from the log).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ListedAllocation<'a> {
    /// The listing it comes from.
    pub format: ListingFormat,
    /// The memory space its header names (`hbm`, `vmem`), for XLA:TPU's.
    pub memory_space: Option<&'a str>,
    /// Its number in the listing (`1.`, `Buffer 1:`).
    pub number: Option<u64>,
    /// The 1-based line of the log where it starts.
    pub line: usize,
    /// `Size:`: the allocation's bytes, as printed (`16.00G`, `3.40GiB`).
    pub size: Option<&'a str>,
    /// `Shape:` or `Entry Parameter Subshape:`, as printed.
    pub shape: Option<&'a str>,
    /// The shape is an entry parameter's (`Entry Parameter Subshape:`).
    pub entry_parameter: bool,
    /// `Unpadded size:`, as printed.
    pub unpadded: Option<&'a str>,
    /// The bytes of `Extra memory due to padding:`, as printed.
    pub extra: Option<&'a str>,
    /// The expansion of that line, without its `x` (`32.0`).
    pub expansion: Option<&'a str>,
    /// `Operator:`: the instruction's metadata.
    pub operator: Option<&'a str>,
    /// `XLA label:` (XLA:TPU: the instruction, often cut short with `...`)
    /// or `XLA Label:` (the buffer assignment's: the opcode).
    pub label: Option<&'a str>,
    /// `Allocation type:` (`HLO temp`, `scoped`).
    pub allocation_type: Option<&'a str>,
}

impl<'a> ListedAllocation<'a> {
    fn new(format: ListingFormat, memory_space: Option<&'a str>, line: usize) -> Self {
        ListedAllocation {
            format,
            memory_space,
            number: None,
            line,
            size: None,
            shape: None,
            entry_parameter: false,
            unpadded: None,
            extra: None,
            expansion: None,
            operator: None,
            label: None,
            allocation_type: None,
        }
    }

    /// The instruction's name in an XLA:TPU label (`%fusion.1 = ...` or
    /// `fusion.1 = ...`: `fusion.1`).
    pub fn instruction(&self) -> Option<&'a str> {
        let label = self.label?;
        let (name, _) = label.split_once(" = ")?;
        let name = name.trim().trim_start_matches('%');
        (!name.is_empty() && !name.contains(char::is_whitespace)).then_some(name)
    }
}

/// The allocations of the out-of-memory listings in a log, in order: an
/// iterator over [`ListedAllocation`]s that reads the log line by line and
/// holds one entry at a time.
///
/// ```
/// use xla_shape::memory::{Listing, ListingFormat};
///
/// // From tensorflow/tensorflow#30803 (XLA:TPU, 2019).
/// let log = "  Largest program allocations in hbm:\n\n  \
///     10. Size: 64.00M\n     \
///     Shape: f32[32,128,32,64]{3,0,2,1}\n     \
///     Unpadded size: 32.00M\n     \
///     Extra memory due to padding: 32.00M (2.0x expansion)\n     \
///     ==========================\n";
/// let entries: Vec<_> = Listing::new(log).collect();
/// assert_eq!(entries.len(), 1);
/// let e = &entries[0];
/// assert_eq!((e.format, e.memory_space, e.number), (ListingFormat::Tpu, Some("hbm"), Some(10)));
/// assert_eq!(e.shape, Some("f32[32,128,32,64]{3,0,2,1}"));
/// assert_eq!((e.size, e.unpadded, e.extra, e.expansion), (Some("64.00M"), Some("32.00M"), Some("32.00M"), Some("2.0")));
/// ```
#[derive(Clone, Debug)]
pub struct Listing<'a> {
    lines: Lines<'a>,
    line: usize,
    format: Option<ListingFormat>,
    memory_space: Option<&'a str>,
    current: Option<ListedAllocation<'a>>,
}

impl<'a> Listing<'a> {
    /// The listings in `log`.
    pub fn new(log: &'a str) -> Self {
        Listing {
            lines: log.lines(),
            line: 0,
            format: None,
            memory_space: None,
            current: None,
        }
    }

    /// A new entry at the current line, returning the one it ends.
    fn start(&mut self, format: ListingFormat) -> Option<ListedAllocation<'a>> {
        let format = self.format.unwrap_or(format);
        let memory_space = match format {
            ListingFormat::Tpu => self.memory_space,
            ListingFormat::BufferAssignment => None,
        };
        self.current
            .replace(ListedAllocation::new(format, memory_space, self.line))
    }
}

/// The keys of a listing's lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Key {
    TpuHeader,
    BufferAssignmentHeader,
    Size,
    Shape,
    EntryParameter,
    Unpadded,
    Extra,
    Operator,
    TpuLabel,
    BufferAssignmentLabel,
    AllocationType,
}

const KEYS: &[(&str, Key)] = &[
    ("Largest program allocations in ", Key::TpuHeader),
    ("Size: ", Key::Size),
    ("Shape: ", Key::Shape),
    ("Entry Parameter Subshape: ", Key::EntryParameter),
    ("Unpadded size: ", Key::Unpadded),
    ("Extra memory due to padding: ", Key::Extra),
    ("Operator: ", Key::Operator),
    ("XLA label: ", Key::TpuLabel),
    ("XLA Label: ", Key::BufferAssignmentLabel),
    ("Allocation type: ", Key::AllocationType),
];

const BUFFER_ASSIGNMENT_HEADER: &str = "BufferAssignment OOM Debugging";

/// What a line of a listing holds.
enum Read<'a> {
    /// A key and its value, and for `N. Size:` the number `N` (`Some(None)`
    /// for a number too long for `u64`).
    Field(Key, &'a str, Option<Option<u64>>),
    /// `Buffer N:`.
    Buffer(Option<u64>),
    /// A line of `=` that ends an entry.
    End,
}

/// The number of a `Buffer N:` line (`Some(None)`: a number too long for
/// `u64`), or `None` when the line is not one.
fn buffer_line(line: &str) -> Option<Option<u64>> {
    let content = line.trim_end();
    let digits = content.strip_suffix(':')?;
    let start = digits
        .rfind(|c: char| !c.is_ascii_digit())
        .map_or(0, |i| i + 1);
    let (before, digits) = digits.split_at(start);
    let before = before.strip_suffix("Buffer ")?;
    if digits.is_empty() || !before.chars().last().is_none_or(char::is_whitespace) {
        return None;
    }
    Some(digits.parse().ok())
}

/// The key a line holds: the first key on it that starts the line or
/// follows white space (what a logger wrote before it is left aside).
fn read_line(line: &str) -> Option<Read<'_>> {
    if line.contains(BUFFER_ASSIGNMENT_HEADER) {
        return Some(Read::Field(Key::BufferAssignmentHeader, "", None));
    }
    // A line of `=` (after what a logger wrote).
    let content = line.trim_end();
    let before = content.trim_end_matches('=');
    if content.len() - before.len() >= 10 && before.chars().last().is_none_or(char::is_whitespace) {
        return Some(Read::End);
    }
    if let Some(number) = buffer_line(line) {
        return Some(Read::Buffer(number));
    }
    let mut best: Option<(usize, &str, Key)> = None;
    for &(text, key) in KEYS {
        let mut from = 0;
        // The first occurrence that starts the line or follows white space.
        while let Some(i) = line[from..].find(text).map(|i| i + from) {
            if line[..i].chars().last().is_none_or(char::is_whitespace) {
                if best.is_none_or(|(b, _, _)| i < b) {
                    best = Some((i, text, key));
                }
                break;
            }
            from = i + text.len();
        }
    }
    let (at, text, key) = best?;
    let value = line[at + text.len()..].trim();
    let number = if key == Key::Size {
        // `  3. Size: 6.00G`: the number before.
        let before = line[..at].trim_end().strip_suffix('.');
        before.and_then(|b| {
            let start = b.rfind(|c: char| !c.is_ascii_digit()).map_or(0, |i| i + 1);
            let digits = &b[start..];
            (!digits.is_empty()).then(|| digits.parse().ok())
        })
    } else {
        None
    };
    Some(Read::Field(key, value, number))
}

/// The first word of `value`.
fn first_word(value: &str) -> Option<&str> {
    value.split_whitespace().next()
}

impl<'a> Iterator for Listing<'a> {
    type Item = ListedAllocation<'a>;

    fn next(&mut self) -> Option<ListedAllocation<'a>> {
        loop {
            let Some(line) = self.lines.next() else {
                return self.current.take();
            };
            self.line += 1;
            let Some(read) = read_line(line) else {
                continue;
            };
            let done = match read {
                Read::End => self.current.take(),
                Read::Buffer(number) => {
                    let done = self.start(ListingFormat::BufferAssignment);
                    if let Some(c) = &mut self.current {
                        c.number = number;
                    }
                    done
                }
                Read::Field(Key::TpuHeader, value, _) => {
                    self.format = Some(ListingFormat::Tpu);
                    let space = value.trim_end_matches(':').trim();
                    self.memory_space = (!space.is_empty()).then_some(space);
                    self.current.take()
                }
                Read::Field(Key::BufferAssignmentHeader, _, _) => {
                    self.format = Some(ListingFormat::BufferAssignment);
                    self.memory_space = None;
                    self.current.take()
                }
                Read::Field(Key::Size, value, number) => {
                    let size = first_word(value);
                    match (&mut self.current, number) {
                        (Some(c), None) if c.size.is_none() && c.shape.is_none() => {
                            c.size = size;
                            None
                        }
                        _ => {
                            let done = self.start(ListingFormat::Tpu);
                            if let Some(c) = &mut self.current {
                                c.number = number.flatten();
                                c.size = size;
                            }
                            done
                        }
                    }
                }
                Read::Field(key @ (Key::Shape | Key::EntryParameter), value, _) => {
                    let done = match &self.current {
                        Some(c) if c.shape.is_none() => None,
                        _ => self.start(if key == Key::Shape {
                            ListingFormat::Tpu
                        } else {
                            ListingFormat::BufferAssignment
                        }),
                    };
                    if let Some(c) = &mut self.current {
                        c.shape = Some(value);
                        c.entry_parameter = key == Key::EntryParameter;
                    }
                    done
                }
                Read::Field(key, value, _) => {
                    if let Some(c) = &mut self.current {
                        match key {
                            Key::Unpadded => c.unpadded = first_word(value),
                            Key::Extra => {
                                c.extra = first_word(value);
                                c.expansion = value
                                    .split_once('(')
                                    .and_then(|(_, rest)| rest.split_once("x expansion"))
                                    .map(|(ratio, _)| ratio.trim());
                            }
                            Key::Operator => c.operator = Some(value),
                            Key::TpuLabel | Key::BufferAssignmentLabel => c.label = Some(value),
                            Key::AllocationType => c.allocation_type = Some(value),
                            _ => {}
                        }
                    }
                    None
                }
            };
            if done.is_some() {
                return done;
            }
        }
    }
}

/// `tsl::strings::HumanReadableNumBytes` (`tsl/platform/numbers.cc`), which
/// XLA prints its listings' sizes with: `512B`, `1.5KiB`, `11.77MiB`
/// (without the `iB` when `binary_suffix` is false, as XLA:TPU prints
/// them: `1.5K`, `11.77M`).
///
/// ```
/// use xla_shape::memory::human_readable_num_bytes;
///
/// assert_eq!(human_readable_num_bytes(12345678, true), "11.77MiB");
/// assert_eq!(human_readable_num_bytes(1536, false), "1.5K");
/// // Each division by 1024 but the last truncates: 1,262,254,080 bytes
/// // (1.1756 GiB) print as 1.17G.
/// assert_eq!(human_readable_num_bytes(1_262_254_080, false), "1.17G");
/// ```
#[doc(alias = "HumanReadableNumBytes")]
pub fn human_readable_num_bytes(num_bytes: i64, binary_suffix: bool) -> String {
    if num_bytes == i64::MIN {
        // The negation is not representable: tsl's special case.
        return "-8E".to_owned();
    }
    let sign = if num_bytes < 0 { "-" } else { "" };
    let mut n = num_bytes.unsigned_abs();
    if n < 1024 {
        return format!("{sign}{n}B");
    }
    const UNITS: &[u8] = b"KMGTPE";
    let mut unit = 0;
    while n >= 1024 * 1024 && unit + 1 < UNITS.len() {
        n /= 1024;
        unit += 1;
    }
    let suffix = if binary_suffix { "iB" } else { "" };
    let u = char::from(UNITS[unit]);
    let value = n as f64 / 1024.0;
    if unit == 0 {
        format!("{sign}{value:.1}{u}{suffix}")
    } else {
        format!("{sign}{value:.2}{u}{suffix}")
    }
}

/// `bytes` printed as the listing printed `printed` (with or without
/// `iB`).
pub fn print_size_like(printed: &str, bytes: i64) -> String {
    human_readable_num_bytes(bytes, printed.ends_with("iB"))
}

/// Whether `bytes` prints as `printed` does in an XLA listing: the same
/// figure within the listing's rounding.
///
/// ```
/// use xla_shape::memory::printed_size_agrees;
///
/// assert!(printed_size_agrees("16.00G", 16 << 30));
/// assert!(printed_size_agrees("6.00MiB", 6 << 20));
/// assert!(!printed_size_agrees("16.00G", 15 << 30));
/// ```
pub fn printed_size_agrees(printed: &str, bytes: i64) -> bool {
    print_size_like(printed, bytes) == printed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_print_as_tsl_prints_them() {
        // tsl's own examples (numbers.h): 12345678 -> "11.77MiB".
        assert_eq!(human_readable_num_bytes(12345678, true), "11.77MiB");
        for (n, s) in [
            (0, "0B"),
            (4, "4B"),
            (1023, "1023B"),
            (1024, "1.0KiB"),
            (-1536, "-1.5KiB"),
            (1024 * 1024 - 1, "1024.0KiB"),
            (1024 * 1024, "1.00MiB"),
            (i64::MAX, "8.00EiB"),
            (i64::MIN, "-8E"),
        ] {
            assert_eq!(human_readable_num_bytes(n, true), s, "{n}");
        }
    }

    #[test]
    fn keys_follow_what_a_logger_wrote() {
        let glog = "2020-05-04 09:05:40.719785: E    1578 tensorflow/compiler/xla/xla_client/xla_util.cc:76]   3. Size: 6.00G";
        let Some(Read::Field(Key::Size, "6.00G", Some(Some(3)))) = read_line(glog) else {
            panic!("{glog}");
        };
        assert!(matches!(
            read_line("\t\tBuffer 12:"),
            Some(Read::Buffer(Some(12)))
        ));
        assert!(read_line("xBuffer 12:").is_none());
        // The first key wins: an operator that mentions a shape.
        let Some(Read::Field(Key::Operator, v, None)) =
            read_line("   Operator: op_name=\"a Shape: b\"")
        else {
            panic!()
        };
        assert_eq!(v, "op_name=\"a Shape: b\"");
        // A key inside a word is not a key.
        assert!(read_line("NoSize: 1").is_none());
    }
}
