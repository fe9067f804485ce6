//! Copying array data between layouts.
//!
//! [`relayout`] copies the bytes of an array from one layout to another of
//! the same element type and dimensions: any `minor_to_major` permutation,
//! tiles (including `*`), `E(n)` sub-byte packing and tail padding, with
//! every element placed where [`TiledLayout::offset`] says and every
//! padding slot of the destination written as zero. [`relayout_strided`]
//! does the same from a strided view, such as a NumPy array's buffer.
//!
//! Sub-byte elements are packed little-end first, as XLA:CPU stores `u4`
//! with `E(4)`: element `k` takes bits `k*n .. (k+1)*n` of the buffer,
//! counting from the least significant bit of byte 0, so two 4-bit
//! elements share a byte low nibble first. When the two sides store an
//! element in different numbers of bits (`s4` with and without `E(4)`),
//! the low bits are copied and the extra high bits of the destination
//! are zero (the value in the low bits, as `ml_dtypes` stores `int4` in a
//! byte).
//!
//! ```
//! use xla_shape::relayout::relayout_to_vec;
//! use xla_shape::{ArrayShape, Layout, PrimitiveType};
//!
//! // A 2x3 u8 array, row-major, copied into column-major order.
//! let row_major = ArrayShape::new(PrimitiveType::U8, [2, 3])?;
//! let col_major = row_major.clone().with_layout(Some(Layout::new([0, 1])))?;
//! let out = relayout_to_vec(&row_major, &[1, 2, 3, 4, 5, 6], &col_major)?;
//! assert_eq!(out, [1, 4, 2, 5, 3, 6]);
//! # Ok::<(), xla_shape::Error>(())
//! ```
//!
//! The copy is planned once ([`Relayout::new`]) and runs as cache-blocked
//! strided copies: contiguous runs where both sides agree, blocked
//! transposes where they do not. On x86_64, transposes of 1-, 2-, 4- and
//! 8-byte elements go straight from source to destination in SSE2 blocks
//! (AVX for 4-byte elements and AVX2 for the others where the CPU has
//! them, AVX-512 for streamed blocks), transposes
//! with a side of at most 8 positions (NCHW with 3 channels, XLA's
//! `(2,1)` and `(4,1)` sub-tiles) position by position along the long
//! side (groups of three 4-byte elements, and pairs and quadruples of
//! elements of every size, with SIMD shuffles), runs (XLA's `T(8,128)`
//! tiles of a row-major array) 64 bytes at a time, untiled in source
//! order, and a destination of 8 MiB or more is written a
//! whole cache line at a time with non-temporal stores where its lines
//! can be, so that it is not left in the caches afterwards. Sub-byte
//! elements go through one byte per slot, a part of the destination at
//! a time.
//! Such a transpose of 1-byte elements, on a CPU with AVX-512, goes
//! through a buffer of up to 4 MiB, which the thread keeps for its next
//! copy.
//! With the `rayon` feature, `Relayout::run_parallel` cuts a large copy
//! into pieces for the threads of a rayon pool.
//!
//! [`Shards`] cuts a global array into every device's shard of an XLA
//! sharding, each in the device's layout, and assembles it back.

mod kernel;
mod packed;
mod padding;
mod plan;
mod shards;

use crate::error::{Error, ErrorKind, Result};
use crate::model::{ArrayShape, PrimitiveType};
use crate::tiling::{TiledLayout, byte_width};
use kernel::{BoxCopy, Buffers, box_span};
use padding::Padding;
use plan::{BoxAxes, Digit};
pub use shards::Shards;

/// A strided view of array data, as NumPy and DLPack describe one: the
/// element at index `i` starts at byte `byte_offset + sum(i[d] *
/// byte_strides[d])` of the buffer. Strides may be zero (broadcast) or
/// negative (reversed); every element is `ByteWidth(element_type)` bytes
/// (one byte per element for the sub-byte types, as NumPy stores them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StridedSource {
    element_type: PrimitiveType,
    dimensions: Vec<i64>,
    byte_strides: Vec<i64>,
    byte_offset: i64,
}

impl StridedSource {
    /// A view of `element_type` elements with these dimensions and byte
    /// strides, starting at byte 0.
    ///
    /// # Errors
    ///
    /// `InvalidArgument`: a non-array element type, a negative dimension,
    /// or a stride count that differs from the rank.
    pub fn new(
        element_type: PrimitiveType,
        dimensions: impl Into<Vec<i64>>,
        byte_strides: impl Into<Vec<i64>>,
    ) -> Result<Self> {
        let (dimensions, byte_strides) = (dimensions.into(), byte_strides.into());
        if !element_type.is_array_type() {
            return Err(Error::invalid_argument(format!(
                "a strided view needs an array element type, not {}",
                element_type.as_str_name()
            )));
        }
        if dimensions.len() != byte_strides.len() {
            return Err(Error::invalid_argument(format!(
                "{} byte strides given for {} dimensions",
                byte_strides.len(),
                dimensions.len()
            )));
        }
        if let Some(d) = dimensions.iter().position(|&d| d < 0) {
            return Err(Error::invalid_argument(format!(
                "dimension {d} of a strided view is negative: {}",
                dimensions[d]
            )));
        }
        Ok(StridedSource {
            element_type,
            dimensions,
            byte_strides,
            byte_offset: 0,
        })
    }

    /// This view with its first element (index all zeros) at `offset`
    /// bytes into the buffer, as for a NumPy view with negative strides.
    pub fn with_byte_offset(mut self, offset: usize) -> Self {
        self.byte_offset = i64::try_from(offset).unwrap_or(i64::MAX);
        self
    }

    /// The element type.
    pub fn element_type(&self) -> PrimitiveType {
        self.element_type
    }

    /// The dimensions.
    pub fn dimensions(&self) -> &[i64] {
        &self.dimensions
    }

    /// The byte strides.
    pub fn byte_strides(&self) -> &[i64] {
        &self.byte_strides
    }

    /// The byte offset of the first element.
    pub fn byte_offset(&self) -> i64 {
        self.byte_offset
    }
}

/// Where the source elements are.
#[derive(Clone, Debug)]
enum Source {
    Layout(Box<TiledLayout>),
    Strided(StridedSource),
}

#[derive(Clone, Debug)]
enum Exec {
    /// No element to copy.
    Empty,
    /// Whole-byte elements of the same size on both sides.
    Bytes { e: usize, boxes: Vec<BoxCopy> },
    /// Boxes with strides in bits; for sub-byte elements of a layout,
    /// also the same copy of one byte per slot ([`packed`]), which runs
    /// instead where [`Relayout::slot_parts`] cuts it into parts.
    Bits {
        boxes: Vec<BoxAxes>,
        slots: Option<Box<Relayout>>,
    },
    /// No common digits: every element's offsets from the layouts.
    PerElement,
}

/// A part of a copy of sub-byte elements through one byte per slot
/// ([`Relayout::slot_parts`]): the range of destination slots it writes,
/// the pieces of the byte copy that write them, and the range of source
/// slots they read.
struct SlotPart {
    range: std::ops::Range<usize>,
    pieces: Vec<BoxCopy>,
    reads: std::ops::Range<usize>,
}

/// A thread's two buffers of one byte per slot for
/// [`Relayout::write_part`]: the source slots a part reads, its
/// destination slots.
#[derive(Default)]
struct SlotBuffers {
    wide: Vec<u8>,
    out: Vec<u8>,
}

/// A planned copy from one layout (or strided view) to another, for
/// running on many buffers.
///
/// ```
/// use xla_shape::relayout::Relayout;
/// use xla_shape::{ArrayShape, Layout, PrimitiveType, Tile};
///
/// // Untile f32[3,5]{1,0:T(2,2)} (figure 1 of XLA's tiled-layout document) into row-major.
/// let tiled = ArrayShape::new(PrimitiveType::F32, [3, 5])?
///     .with_layout(Some(Layout::new([1, 0]).with_tiles(vec![Tile::new([2, 2])?])))?;
/// let plain = ArrayShape::new(PrimitiveType::F32, [3, 5])?;
/// let plan = Relayout::new(&plain, &tiled)?;
/// assert_eq!((plan.src_byte_size(), plan.dst_byte_size()), (60, 96));
/// let src: Vec<u8> = (0..15u8).flat_map(|v| f32::from(v).to_le_bytes()).collect();
/// let mut dst = vec![0xff; 96];
/// plan.run(&src, &mut dst)?;
/// // Slot 17 holds element (2,3), the 14th in row-major order.
/// assert_eq!(dst[17 * 4..18 * 4], 13f32.to_le_bytes());
/// // Slot 9 is padding.
/// assert_eq!(dst[9 * 4..10 * 4], [0; 4]);
/// # Ok::<(), xla_shape::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Relayout {
    src: Source,
    dst: TiledLayout,
    src_bits: i64,
    dst_bits: i64,
    /// Exact source size (layouts) or the bytes a strided view reaches.
    src_size: usize,
    dst_size: usize,
    /// What is zeroed before the elements are written.
    padding: Padding,
    exec: Exec,
}

/// Destinations smaller than this are copied on the calling thread by
/// [`Relayout::run_parallel`].
#[cfg(feature = "rayon")]
const PARALLEL_MIN_BYTES: usize = 1 << 20;

/// The parts of `buf` at `ranges` (sorted, disjoint, inside `buf`), each
/// its own mutable borrow, for tasks that write them at the same time.
#[cfg(feature = "rayon")]
fn disjoint_parts(
    buf: &mut [u8],
    ranges: impl IntoIterator<Item = std::ops::Range<usize>>,
) -> Vec<&mut [u8]> {
    let mut parts = Vec::new();
    let (mut rest, mut base) = (buf, 0usize);
    for r in ranges {
        let (_, tail) = rest.split_at_mut(r.start - base);
        let (mine, tail) = tail.split_at_mut(r.end - r.start);
        parts.push(mine);
        (rest, base) = (tail, r.end);
    }
    parts
}

/// The tasks of a parallel copy of `boxes` (`e`-byte elements, their
/// bounds checked) on `threads` threads, each the range of the
/// destination it writes and its pieces: the boxes cut into pieces
/// ([`BoxCopy::split`]), which are gathered into tasks that write
/// disjoint ranges, in order; pieces whose ranges overlap go to the same
/// task, one after the other. A ragged array (a minor dimension that is
/// not a whole number of tiles) is two boxes, its whole tiles and its
/// partial tile, cut along the same rows of tiles: each piece of one box
/// interleaves with the piece of the other from the same rows, and the
/// two are one task.
#[cfg(feature = "rayon")]
fn tasks(
    boxes: &[BoxCopy],
    e: usize,
    threads: usize,
) -> Vec<(std::ops::Range<usize>, Vec<BoxCopy>)> {
    let parts = (4 * threads).div_ceil(boxes.len());
    let floor = threads.div_ceil(boxes.len());
    cut(boxes, e, parts, floor)
}

/// `boxes` (`e`-byte elements, their bounds checked) cut into at most
/// `parts` pieces each, at least `floor` for narrow transposes
/// ([`BoxCopy::split`]), gathered into tasks that write disjoint ranges
/// of the destination, in order, as [`tasks`] describes.
fn cut(
    boxes: &[BoxCopy],
    e: usize,
    parts: usize,
    floor: usize,
) -> Vec<(std::ops::Range<usize>, Vec<BoxCopy>)> {
    let mut pieces: Vec<(usize, usize, BoxCopy)> = Vec::new();
    for piece in boxes.iter().flat_map(|b| b.split(e, parts, floor)) {
        let [_, (lo, hi)] = piece.bounds(e);
        // Inside the destination: checked for the whole box.
        pieces.push((lo as usize, hi as usize, piece));
    }
    pieces.sort_by_key(|p| p.0);
    let mut tasks: Vec<(std::ops::Range<usize>, Vec<BoxCopy>)> = Vec::new();
    for (lo, hi, piece) in pieces {
        match tasks.last_mut() {
            Some((range, task)) if lo < range.end => {
                range.end = range.end.max(hi);
                task.push(piece);
            }
            _ => tasks.push((lo..hi, vec![piece])),
        }
    }
    tasks
}

fn buffer_error(which: &str, len: usize, shape: &dyn std::fmt::Display, need: usize) -> Error {
    Error::new(
        ErrorKind::BufferSize,
        format!("{which} buffer has {len} bytes but {shape} takes {need} bytes"),
    )
}

fn to_usize(v: i64, what: &str) -> Result<usize> {
    usize::try_from(v)
        .map_err(|_| Error::overflow(format!("{what} ({v} bytes) does not fit in memory")))
}

impl Relayout {
    /// Plans copying an array of shape `src` into the layout of `dst`.
    ///
    /// # Errors
    ///
    /// `InvalidArgument` when the element types or dimensions differ, or a
    /// shape cannot be tiled ([`TiledLayout::new`]); `Overflow` when a
    /// buffer would not fit in memory.
    pub fn new(src: &ArrayShape, dst: &ArrayShape) -> Result<Self> {
        if src.element_type() != dst.element_type() || src.dimensions() != dst.dimensions() {
            return Err(Error::invalid_argument(format!(
                "cannot relayout {src} into {dst}: element type and dimensions must be the same"
            )));
        }
        let src = TiledLayout::new(src)?;
        Self::plan(Source::Layout(Box::new(src)), TiledLayout::new(dst)?)
    }

    /// Plans copying the elements of a strided view into the layout of
    /// `dst`.
    ///
    /// # Errors
    ///
    /// As [`new`](Self::new), and `InvalidArgument` when the view reaches
    /// before the start of its buffer (negative strides with too small a
    /// [`byte_offset`](StridedSource::byte_offset)).
    pub fn from_strided(src: &StridedSource, dst: &ArrayShape) -> Result<Self> {
        if src.element_type != dst.element_type() || src.dimensions != dst.dimensions() {
            return Err(Error::invalid_argument(format!(
                "cannot copy a strided {}{:?} view into {dst}: element type and dimensions must be the same",
                src.element_type.lowercase_name(),
                src.dimensions
            )));
        }
        Self::plan(Source::Strided(src.clone()), TiledLayout::new(dst)?)
    }

    fn plan(src: Source, dst: TiledLayout) -> Result<Self> {
        let dims = dst.dimensions().to_vec();
        let rank = dims.len();
        let dst_bits = dst.element_size_in_bits();
        let dst_size = to_usize(dst.byte_size(), "the destination")?;
        let (src_bits, src_size, a_digits, a_base) = match &src {
            Source::Layout(t) => (
                t.element_size_in_bits(),
                to_usize(t.byte_size(), "the source")?,
                t.terms()
                    .and_then(|ts| plan::layout_digits(ts, rank, t.element_size_in_bits())),
                0i64,
            ),
            Source::Strided(v) => {
                let e = byte_width(v.element_type);
                let (lo, hi) = strided_bounds(v, e);
                if dims.contains(&0) {
                    (8 * e, 0, None, 0)
                } else if lo < 0 {
                    return Err(Error::invalid_argument(format!(
                        "the strided view reaches byte {lo}, before the start of its buffer; give a byte offset of at least {}",
                        i128::from(v.byte_offset).saturating_sub(lo)
                    )));
                } else {
                    let digits: Option<Vec<Digit>> = v
                        .dimensions
                        .iter()
                        .zip(&v.byte_strides)
                        .enumerate()
                        .filter(|(_, (size, _))| **size > 1)
                        .map(|(dim, (&extent, &s))| {
                            Some(Digit {
                                dim,
                                weight: 1,
                                extent,
                                stride: s.checked_mul(8)?,
                            })
                        })
                        .collect();
                    let size = usize::try_from(hi).map_err(|_| {
                        Error::overflow("the strided view reaches past the end of memory")
                    })?;
                    (
                        8 * e,
                        size,
                        digits,
                        v.byte_offset.checked_mul(8).unwrap_or(i64::MAX),
                    )
                }
            }
        };
        let padded = dst.has_padding() || dst_bits % 8 != 0;
        let b_digits = dst
            .terms()
            .and_then(|ts| plan::layout_digits(ts, rank, dst_bits));
        let element_count: i64 = dims.iter().product();
        let exec = if element_count == 0 {
            Exec::Empty
        } else {
            let boxes = |unit: i64| match (&a_digits, &b_digits) {
                (Some(a), Some(b)) => plan::boxes(&dims, a, a_base, b, unit),
                _ => None,
            };
            if src_bits == dst_bits && src_bits % 8 == 0 {
                let e = to_usize(src_bits / 8, "an element")?;
                match boxes(8) {
                    Some(bx) => Exec::Bytes {
                        e,
                        boxes: bx
                            .into_iter()
                            .map(|b| b.into_copy(e))
                            .collect::<Option<_>>()
                            .ok_or_else(|| {
                                Error::overflow(
                                    "an axis of the copy spans more bytes than memory holds",
                                )
                            })?,
                    },
                    None => Exec::PerElement,
                }
            } else {
                match boxes(1) {
                    Some(boxes) => Exec::Bits {
                        boxes,
                        slots: slot_plan(&src, &dst, src_bits, dst_bits),
                    },
                    None => Exec::PerElement,
                }
            }
        };
        if let Exec::Bytes { e, boxes } = &exec {
            // The offsets the loops will use, checked once here.
            for b in boxes {
                let [(slo, shi), (dlo, dhi)] = b.bounds(*e);
                if slo < 0 || shi > src_size as i128 || dlo < 0 || dhi > dst_size as i128 {
                    return Err(Error::invalid_argument(format!(
                        "internal error: a planned copy block reaches outside the buffers ({slo}..{shi} of {src_size}, {dlo}..{dhi} of {dst_size})"
                    )));
                }
            }
        }
        // Padding of whole-byte elements: only the bytes between the
        // boxes' runs, which lie in the destination (checked above);
        // sub-byte elements share bytes: all of it.
        let padding = match &exec {
            _ if !padded => Padding::None,
            Exec::Bytes { e, boxes } if dst_bits % 8 == 0 => Padding::of(boxes, *e, dst_size),
            _ => Padding::All,
        };
        Ok(Relayout {
            src,
            dst,
            src_bits,
            dst_bits,
            src_size,
            dst_size,
            padding,
            exec,
        })
    }

    /// The source buffer's size in bytes: exact for a layout, the minimum
    /// for a strided view (one past the last byte it reaches).
    pub fn src_byte_size(&self) -> usize {
        self.src_size
    }

    /// The destination buffer's size in bytes (padding included).
    pub fn dst_byte_size(&self) -> usize {
        self.dst_size
    }

    /// Copies `src` into `dst`; every padding slot of `dst` is written as
    /// zero.
    ///
    /// # Errors
    ///
    /// `BufferSize` when `src` does not have [`src_byte_size`](Self::src_byte_size)
    /// bytes (at least that many for a strided view) or `dst` does not have
    /// [`dst_byte_size`](Self::dst_byte_size).
    pub fn run(&self, src: &[u8], dst: &mut [u8]) -> Result<()> {
        self.check_src(src)?;
        self.check_dst(dst)?;
        self.run_checked(src, dst);
        Ok(())
    }

    /// Like [`run`](Self::run), on the threads of the current rayon pool
    /// (all cores unless called inside
    /// [`ThreadPool::install`](rayon::ThreadPool::install) of a smaller
    /// pool): the copy is cut into pieces that write disjoint ranges of
    /// `dst`. A large copy is bound by memory bandwidth on one core and
    /// runs faster on several; a small one (under 1 MiB) runs on the
    /// calling thread.
    ///
    /// ```
    /// use xla_shape::relayout::Relayout;
    /// use xla_shape::{ArrayShape, Layout, PrimitiveType};
    ///
    /// let a = ArrayShape::new(PrimitiveType::U16, [512, 1024])?;
    /// let b = a.clone().with_layout(Some(Layout::new([0, 1])))?;
    /// let src: Vec<u8> = (0..a.dimensions().iter().product::<i64>() * 2)
    ///     .map(|k| k as u8)
    ///     .collect();
    /// let plan = Relayout::new(&a, &b)?;
    /// let (mut one, mut many) = (vec![0; src.len()], vec![0; src.len()]);
    /// plan.run(&src, &mut one)?;
    /// let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// pool.install(|| plan.run_parallel(&src, &mut many))?;
    /// assert_eq!(one, many);
    /// # Ok::<(), xla_shape::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`run`](Self::run).
    #[cfg(feature = "rayon")]
    pub fn run_parallel(&self, src: &[u8], dst: &mut [u8]) -> Result<()> {
        use rayon::prelude::*;
        self.check_src(src)?;
        self.check_dst(dst)?;
        let threads = rayon::current_num_threads();
        let Exec::Bytes { e, boxes } = &self.exec else {
            if threads < 2 || self.dst_size < PARALLEL_MIN_BYTES || !self.via_slots(src, dst, true)
            {
                self.run_checked(src, dst);
            }
            return Ok(());
        };
        if threads < 2 || self.dst_size < PARALLEL_MIN_BYTES {
            self.run_checked(src, dst);
            return Ok(());
        }
        let e = *e;
        let tasks = tasks(boxes, e, threads);
        if tasks.len() < 2 {
            self.run_checked(src, dst);
            return Ok(());
        }
        self.padding.zero_parallel(dst);
        let stream = !cfg!(miri) && self.dst_size >= kernel::STREAM_MIN_BYTES;
        let parts = disjoint_parts(dst, tasks.iter().map(|t| t.0.clone()));
        tasks
            .into_par_iter()
            .zip(parts)
            .for_each(|((range, pieces), dst)| {
                for mut piece in pieces {
                    piece.dst -= range.start as isize;
                    piece.copy(e, Buffers::new(src, &mut *dst, stream));
                }
            });
        Ok(())
    }

    /// `BufferSize` unless `dst` has [`dst_byte_size`](Self::dst_byte_size) bytes.
    fn check_dst(&self, dst: &[u8]) -> Result<()> {
        if dst.len() != self.dst_size {
            return Err(buffer_error(
                "destination",
                dst.len(),
                self.dst.shape(),
                self.dst_size,
            ));
        }
        Ok(())
    }

    /// `BufferSize` unless `src` has the bytes [`run`](Self::run) needs.
    fn check_src(&self, src: &[u8]) -> Result<()> {
        match &self.src {
            Source::Layout(t) if src.len() != self.src_size => {
                return Err(buffer_error("source", src.len(), t.shape(), self.src_size));
            }
            Source::Strided(v) if src.len() < self.src_size => {
                return Err(Error::new(
                    ErrorKind::BufferSize,
                    format!(
                        "source buffer has {} bytes but the strided view (dimensions {:?}, byte strides {:?}, offset {}) reaches {} bytes",
                        src.len(),
                        v.dimensions,
                        v.byte_strides,
                        v.byte_offset,
                        self.src_size
                    ),
                ));
            }
            _ => {}
        }
        Ok(())
    }

    /// [`run`](Self::run) with both buffers checked.
    fn run_checked(&self, src: &[u8], dst: &mut [u8]) {
        if self.via_slots(src, dst, false) {
            return;
        }
        self.padding.zero(dst);
        self.copy_elements(src, dst);
    }

    /// Writes every element of `src` to its place in `dst` (not the
    /// padding); both buffers checked.
    fn copy_elements(&self, src: &[u8], dst: &mut [u8]) {
        match &self.exec {
            Exec::Empty => {}
            Exec::Bytes { e, boxes } => {
                let stream = !cfg!(miri) && self.dst_size >= kernel::STREAM_MIN_BYTES;
                for b in boxes {
                    b.copy(*e, Buffers::new(src, &mut *dst, stream));
                }
            }
            Exec::Bits { boxes, .. } => {
                let (sb, db) = (self.src_bits as usize, self.dst_bits as usize);
                for b in boxes {
                    kernel::for_each_position(&b.axes, b.src, b.dst, |s, d| {
                        copy_bits(src, s as usize, sb, dst, d as usize, db);
                    });
                }
            }
            Exec::PerElement => self.per_element(src, dst),
        }
    }

    /// Copies sub-byte elements through one byte per slot, a part of
    /// the destination at a time ([`packed`]), on the calling thread or,
    /// with `parallel`, on the rayon pool: `false` (nothing written)
    /// where [`slot_parts`](Self::slot_parts) finds no parts.
    fn via_slots(&self, src: &[u8], dst: &mut [u8], parallel: bool) -> bool {
        let Some((parts, padded)) = self.slot_parts() else {
            return false;
        };
        let db = self.dst_bits as usize;
        // The bytes each part writes: those that start in it (a byte that
        // starts in the part before holds its first slots too, which it
        // hands back to be or-ed in after).
        let owned = |p: &SlotPart| (p.range.start * db).div_ceil(8)..(p.range.end * db).div_ceil(8);
        let ranges: Vec<std::ops::Range<usize>> = parts.iter().map(owned).collect();
        #[cfg(feature = "rayon")]
        if parallel {
            use rayon::prelude::*;
            if padded {
                self.padding.zero_parallel(dst);
            }
            let heads: Vec<Option<(usize, u8)>> = parts
                .into_par_iter()
                .zip(disjoint_parts(dst, ranges))
                .map_init(SlotBuffers::default, |buffers, (part, bytes)| {
                    self.write_part(&part, src, bytes, padded, buffers)
                })
                .collect();
            for (at, bits) in heads.into_iter().flatten() {
                dst[at] |= bits;
            }
            return true;
        }
        let _ = parallel;
        if padded {
            self.padding.zero(dst);
        }
        let mut buffers = SlotBuffers::default();
        for (part, bytes) in parts.iter().zip(ranges) {
            if let Some((at, bits)) =
                self.write_part(part, src, &mut dst[bytes], padded, &mut buffers)
            {
                dst[at] |= bits;
            }
        }
        true
    }

    /// The parts of a copy of sub-byte elements through one byte per slot
    /// ([`packed`]): its byte copy's boxes cut into tasks of about
    /// [`PART_SLOTS`](packed::PART_SLOTS) slots of the destination, each
    /// with the range of source slots it reads, and whether the
    /// destination has padding (else the parts write all of it). `None`
    /// where the copy has no such plan, or its parts would read the
    /// source more than twice over or one part would read or write more
    /// than [`SPAN_SLOTS`](packed::SPAN_SLOTS) slots (the buffers stay
    /// small).
    fn slot_parts(&self) -> Option<(Vec<SlotPart>, bool)> {
        let Exec::Bits {
            slots: Some(plan), ..
        } = &self.exec
        else {
            return None;
        };
        let Exec::Bytes { boxes, .. } = &plan.exec else {
            // No element: only padding.
            return Some((Vec::new(), true));
        };
        let parts = plan.dst_size.div_ceil(packed::PART_SLOTS);
        let parts: Vec<SlotPart> = cut(boxes, 1, parts, 1)
            .into_iter()
            .map(|(range, pieces)| {
                let (lo, hi) = pieces.iter().fold((usize::MAX, 0), |(lo, hi), p| {
                    // Inside the source: checked for the whole box.
                    let [(a, b), _] = p.bounds(1);
                    (lo.min(a as usize), hi.max(b as usize))
                });
                let reads = lo..hi;
                SlotPart {
                    range,
                    pieces,
                    reads,
                }
            })
            .collect();
        let read: usize = parts.iter().map(|p| p.reads.len()).sum();
        let widest = parts
            .iter()
            .map(|p| p.reads.len().max(p.range.len()))
            .max()
            .unwrap_or(0);
        let padded = !matches!(plan.padding, Padding::None);
        (read <= 2 * plan.src_size.max(packed::PART_SLOTS) && widest <= packed::SPAN_SLOTS)
            .then_some((parts, padded))
    }

    /// Copies `part` ([`slot_parts`](Self::slot_parts)) from `src` into
    /// `bytes`, the bytes of the destination that start in it (zeroed by
    /// the caller where the destination is `padded`); returns the byte
    /// before them (its index in the destination) with the part's first
    /// slots in their bits, where the part starts inside a byte.
    fn write_part(
        &self,
        part: &SlotPart,
        src: &[u8],
        bytes: &mut [u8],
        padded: bool,
        buffers: &mut SlotBuffers,
    ) -> Option<(usize, u8)> {
        let (sb, db) = (self.src_bits as usize, self.dst_bits as usize);
        let SlotBuffers { wide, out } = buffers;
        // Every byte of `wide` is written; so is every byte of `out`
        // unless the destination has padding, whose slots must be zero.
        wide.resize(part.reads.len(), 0);
        packed::unpack(src, sb, part.reads.start, wide);
        if padded {
            out.clear();
        }
        out.resize(part.range.len(), 0);
        for piece in &part.pieces {
            let mut piece = piece.clone();
            piece.src -= part.reads.start as isize;
            piece.dst -= part.range.start as isize;
            piece.copy(1, Buffers::new(wide, out, false));
        }
        // The slots in the byte that starts before the part, packed on
        // their own into that byte's bits.
        let first = part.range.start;
        let head = packed::lead(db, first, out.len());
        if head < out.len() {
            packed::pack(&out[head..], db, 0, bytes);
        }
        (head > 0).then(|| {
            let mut byte = [0u8];
            packed::pack(&out[..head], db, first % (8 / db), &mut byte);
            (first * db / 8, byte[0])
        })
    }

    /// Every element, its offsets computed from the layouts one by one.
    fn per_element(&self, src: &[u8], dst: &mut [u8]) {
        let dims = self.dst.dimensions();
        let mut index = vec![0i64; dims.len()];
        let (sb, db) = (self.src_bits, self.dst_bits);
        let bytes = sb == db && sb % 8 == 0;
        loop {
            let s = match &self.src {
                Source::Layout(t) => t.offset_unchecked(&index) * sb,
                Source::Strided(v) => {
                    8 * (v.byte_offset
                        + index
                            .iter()
                            .zip(&v.byte_strides)
                            .map(|(&i, &st)| i * st)
                            .sum::<i64>())
                }
            };
            let d = self.dst.offset_unchecked(&index) * db;
            if bytes {
                let (s, d, e) = ((s / 8) as usize, (d / 8) as usize, (sb / 8) as usize);
                dst[d..d + e].copy_from_slice(&src[s..s + e]);
            } else {
                copy_bits(src, s as usize, sb as usize, dst, d as usize, db as usize);
            }
            if crate::index_util::next_row_major(&mut index, dims).is_none() {
                return;
            }
        }
    }
}

/// The copy of one byte per slot behind a copy of sub-byte elements
/// between two layouts ([`packed`]): the same shapes as `u8` without
/// `E(n)`, which lay out their slots in the same places. `None` for a
/// strided source, for other element sizes than 1, 2, 4 and 8 bits, or
/// where that copy's buffers do not hold exactly one byte per slot.
fn slot_plan(
    src: &Source,
    dst: &TiledLayout,
    src_bits: i64,
    dst_bits: i64,
) -> Option<Box<Relayout>> {
    let Source::Layout(src) = src else {
        return None;
    };
    if ![src_bits, dst_bits]
        .iter()
        .all(|b| [1, 2, 4, 8].contains(b))
    {
        return None;
    }
    let as_bytes = |t: &TiledLayout| {
        let shape = t.shape();
        let layout = shape.layout()?.clone().with_element_size_in_bits(0);
        let bytes = ArrayShape::new(PrimitiveType::U8, shape.dimensions())
            .ok()?
            .with_layout(Some(layout))
            .ok()?;
        let tiled = TiledLayout::new(&bytes).ok()?;
        (tiled.slot_count() == t.slot_count()).then_some(tiled)
    };
    let (a, b) = (as_bytes(src)?, as_bytes(dst)?);
    let plan = Relayout::plan(Source::Layout(Box::new(a)), b).ok()?;
    matches!(plan.exec, Exec::Bytes { .. } | Exec::Empty).then(|| Box::new(plan))
}

/// The lowest byte a strided view reaches and one past the highest.
fn strided_bounds(v: &StridedSource, e: i64) -> (i128, i128) {
    let (lo, hi) = box_span(
        i128::from(v.byte_offset),
        v.dimensions
            .iter()
            .zip(&v.byte_strides)
            .map(|(&n, &s)| (n as usize, s as isize)),
    );
    (lo, hi.saturating_add(i128::from(e)))
}

/// Copies the low `min(src_bits, dst_bits)` bits of the element at bit
/// `s` of `src` to the element at bit `d` of `dst` and clears the rest of
/// the destination element. Bit `k` of a buffer is bit `k % 8` (from the
/// least significant) of byte `k / 8`.
fn copy_bits(src: &[u8], s: usize, src_bits: usize, dst: &mut [u8], d: usize, dst_bits: usize) {
    let n = src_bits.min(dst_bits);
    let mut k = 0;
    while k < dst_bits {
        let (sp, dp) = (s + k, d + k);
        let room = 8 - dp % 8;
        let (chunk, value) = if k < n {
            let chunk = room.min(8 - sp % 8).min(n - k);
            let v = (u16::from(src[sp / 8]) >> (sp % 8)) & ((1u16 << chunk) - 1);
            (chunk, v)
        } else {
            (room.min(dst_bits - k), 0)
        };
        let mask = (((1u16 << chunk) - 1) << (dp % 8)) as u8;
        let byte = &mut dst[dp / 8];
        *byte = (*byte & !mask) | ((value << (dp % 8)) as u8 & mask);
        k += chunk;
    }
}

/// Copies an array of shape `src_shape` (bytes `src`) into the layout of
/// `dst_shape` (bytes `dst`), writing every padding slot of `dst` as zero.
/// See [`Relayout`] to plan once and copy many times.
///
/// # Errors
///
/// As [`Relayout::new`] and [`Relayout::run`]: `InvalidArgument` when the
/// element types or dimensions differ, `BufferSize` when a buffer's length
/// is not the tiled byte size of its shape.
pub fn relayout(
    src_shape: &ArrayShape,
    src: &[u8],
    dst_shape: &ArrayShape,
    dst: &mut [u8],
) -> Result<()> {
    Relayout::new(src_shape, dst_shape)?.run(src, dst)
}

/// Like [`relayout`], into a new buffer of the right size.
///
/// # Errors
///
/// As [`relayout`].
pub fn relayout_to_vec(
    src_shape: &ArrayShape,
    src: &[u8],
    dst_shape: &ArrayShape,
) -> Result<Vec<u8>> {
    let plan = Relayout::new(src_shape, dst_shape)?;
    // The source first: a destination is only allocated for a copy that
    // can run.
    plan.check_src(src)?;
    let mut dst = vec![0u8; plan.dst_byte_size()];
    plan.run_checked(src, &mut dst);
    Ok(dst)
}

/// Copies the elements of a strided view of `src` into the layout of
/// `dst_shape`.
///
/// ```
/// use xla_shape::relayout::{StridedSource, relayout_strided};
/// use xla_shape::{ArrayShape, PrimitiveType};
///
/// // NumPy's a[:, ::-1] of a 2x3 u8 array [[1,2,3],[4,5,6]]: strides
/// // (3, -1), first element at byte 2.
/// let view = StridedSource::new(PrimitiveType::U8, [2, 3], [3, -1])?.with_byte_offset(2);
/// let dst_shape = ArrayShape::new(PrimitiveType::U8, [2, 3])?;
/// let mut dst = [0u8; 6];
/// relayout_strided(&view, &[1, 2, 3, 4, 5, 6], &dst_shape, &mut dst)?;
/// assert_eq!(dst, [3, 2, 1, 6, 5, 4]);
/// # Ok::<(), xla_shape::Error>(())
/// ```
///
/// # Errors
///
/// As [`Relayout::from_strided`] and [`Relayout::run`].
pub fn relayout_strided(
    src: &StridedSource,
    bytes: &[u8],
    dst_shape: &ArrayShape,
    dst: &mut [u8],
) -> Result<()> {
    Relayout::from_strided(src, dst_shape)?.run(bytes, dst)
}

#[cfg(all(test, feature = "rayon"))]
mod tests {
    use super::{Exec, Relayout, kernel::Buffers, tasks};
    use crate::Shape;

    /// Sub-byte copies through one byte per slot ([`packed`](super::packed))
    /// against the same plan's bit-by-bit copy of every element: tilings
    /// and untilings with `(2,1)`, `(4,1)` and `(8,1)` sub-tiles (XLA's
    /// TPU layouts of `s4` and `s2`), ragged (parts of the destination
    /// that start and end inside a byte), 1-, 2- and 4-bit slots, the same
    /// type with and without `E(4)`, and a transpose (its parts are bands
    /// of destination rows, each reading a band of source columns); on
    /// one thread and on three.
    #[test]
    fn sub_byte_copies_through_bytes_match_bit_by_bit() {
        let cases = [
            (
                "s4[600,1000]{1,0:E(4)}",
                "s4[600,1000]{1,0:T(8,128)(2,1)E(4)}",
            ),
            (
                "s4[600,1000]{1,0:T(8,128)(2,1)E(4)}",
                "s4[600,1000]{1,0:E(4)}",
            ),
            (
                "s4[131,333]{1,0:E(4)}",
                "s4[131,333]{1,0:T(64,128)(8,1)E(4)}",
            ),
            (
                "u4[131,333]{1,0:T(64,128)(8,1)E(4)}",
                "u4[131,333]{1,0:E(4)}",
            ),
            (
                "s2[97,1001]{1,0:E(2)}",
                "s2[97,1001]{1,0:T(8,128)(4,1)E(2)}",
            ),
            (
                "u2[97,1001]{1,0:T(8,128)(4,1)E(2)}",
                "u2[97,1001]{1,0:E(2)}",
            ),
            (
                "u1[77,1003]{1,0:E(1)}",
                "u1[77,1003]{1,0:T(8,128)(8,1)E(1)}",
            ),
            ("s4[301,999]{1,0}", "s4[301,999]{1,0:T(8,128)(2,1)E(4)}"),
            ("s4[301,999]{1,0:T(8,128)(2,1)E(4)}", "s4[301,999]{1,0}"),
            ("u4[33]{0:E(4)}", "u4[33]{0:T(1024)(128)(2,1)E(4)}"),
            ("s4[700,900]{1,0:E(4)}", "s4[700,900]{0,1:E(4)}"),
        ];
        for (a, b) in cases {
            let (a, b): (Shape, Shape) = (a.parse().unwrap(), b.parse().unwrap());
            let plan = Relayout::new(a.as_array().unwrap(), b.as_array().unwrap()).unwrap();
            let src: Vec<u8> = (0..plan.src_byte_size())
                .map(|k| (k * 151 % 253) as u8)
                .collect();
            let mut through = vec![0xA5; plan.dst_byte_size()];
            assert!(plan.via_slots(&src, &mut through, false), "{a} -> {b}");
            let mut bits = vec![0x5A; plan.dst_byte_size()];
            plan.padding.zero(&mut bits);
            plan.copy_elements(&src, &mut bits);
            assert!(through == bits, "{a} -> {b}: the copies differ");
            let mut run = vec![0xC3; plan.dst_byte_size()];
            plan.run(&src, &mut run).unwrap();
            assert!(run == bits, "{a} -> {b}: run differs");
            let mut parallel = vec![0x3C; plan.dst_byte_size()];
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(3)
                .build()
                .unwrap();
            assert!(pool.install(|| plan.via_slots(&src, &mut parallel, true)));
            assert!(parallel == bits, "{a} -> {b}: the parallel copy differs");
        }
    }

    /// Untiling u8 `[37, 300]` from `T(8,128)`: four whole rows of tiles
    /// (2400 bytes of the destination each) and one of five rows, each of
    /// two whole tiles and a partial one (44 of its 128 columns): four
    /// boxes, each cut in two for two threads. The whole rows of tiles'
    /// two boxes are cut after two rows of tiles, their pieces overlapping
    /// in pairs: two tasks of 4800 bytes. The last row of tiles' boxes
    /// are cut after three of its rows, at byte 9600 + 3 * 300 = 10500;
    /// its first pieces end at 10500 (the partial tile's last run: 9600 +
    /// 256 + 2 * 300 + 44) and its last at 11100. The tasks' pieces copy
    /// what the plan does.
    #[test]
    fn pieces_of_the_same_rows_of_tiles_go_to_one_task() {
        let shape = |s: &str| s.parse::<Shape>().unwrap().as_array().unwrap().clone();
        let plan = Relayout::new(
            &shape("u8[37,300]{1,0:T(8,128)}"),
            &shape("u8[37,300]{1,0}"),
        )
        .unwrap();
        let Exec::Bytes { e, boxes } = &plan.exec else {
            panic!("a copy of whole bytes");
        };
        assert_eq!(boxes.len(), 4);
        let tasks = tasks(boxes, *e, 2);
        let ranges: Vec<_> = tasks.iter().map(|t| t.0.clone()).collect();
        assert_eq!(ranges, [0..4800, 4800..9600, 9600..10500, 10500..11100]);
        assert!(tasks.iter().all(|t| t.1.len() == 2));
        let src: Vec<u8> = (0..plan.src_byte_size()).map(|k| (k % 251) as u8).collect();
        let mut want = vec![0; plan.dst_byte_size()];
        plan.run(&src, &mut want).unwrap();
        let mut got = vec![0; plan.dst_byte_size()];
        for piece in tasks.iter().flat_map(|t| &t.1) {
            piece.copy(*e, Buffers::new(&src, &mut got, false));
        }
        assert_eq!(got, want);
    }
}
