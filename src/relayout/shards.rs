//! [`Shards`]: each device's shard of a global host array written in the
//! device's layout in one pass over the source, and the global array
//! assembled back from the shards (XLA's `HloSharding::TileShape`,
//! `TileOffsetForDevice`, `TileLimitForDevice`; the tiled-layout document
//! `xla/g3doc/tiled_layout.md`).

use std::collections::HashMap;
use std::collections::hash_map::Entry;

use crate::error::{Error, ErrorKind, Result};
use crate::model::{ArrayShape, PrimitiveType, Shape};
use crate::sharding::{DeviceSlice, HloSharding};
use crate::tiling::{TiledLayout, byte_width};

use super::{Relayout, StridedSource, to_usize};

/// How one distinct shard is written.
#[derive(Clone, Debug)]
enum Cut {
    /// The shard is the whole tile: one copy from the global view.
    Whole(Box<Relayout>),
    /// The shard is cut at the end of the array: the view into a
    /// row-major buffer of the cut shape, that into a row-major staging
    /// buffer of the tile shape, and that into the device's layout.
    Part {
        to_rows: Box<Relayout>,
        from_staging: Box<Relayout>,
    },
    /// The shard holds no element: every byte padding.
    Empty,
}

/// A planned cut of a global array into every device's shard (and the
/// assembly back), for running on many arrays of the same shape.
///
/// Each device's shard of a global host array, cut out and written in the
/// device's layout (tiled or not) in one pass over the source, and the
/// reverse: the global array assembled from the device shards.
///
/// Which part each device holds is the sharding's: XLA's
/// `HloSharding::TileOffsetForDevice` and `TileLimitForDevice`
/// (`xla/hlo/ir/hlo_sharding.cc`, [`HloSharding::device_slices`]). Every
/// device's buffer has XLA's `HloSharding::TileShape`: each sharded
/// dimension `ceil(n / k)`, the buffer the SPMD partitioner gives every
/// device. When a dimension does not split evenly the last shards are cut
/// at the end of the array (jax's `devices_indices_map` slices) and the
/// rest of their buffer is padding, written as zero. The bytes of the
/// buffer are laid out as XLA's tiled-layout document
/// (`xla/g3doc/tiled_layout.md`) says, as [`Relayout`] writes them.
///
/// A shard that the sharding splits evenly is copied straight from the
/// global array by a [`Relayout::from_strided`] of the global's view moved
/// to the shard's first element, so each source byte is read once and
/// every fast path of the relayout kernels applies. A cut shard goes
/// through a row-major staging buffer of the full tile shape (its padding
/// zero) and then the device's layout. Devices that hold the same slice (a
/// replicated sharding, or the replicated last dimension of
/// `last_tile_dim_replicate`) get copies of the first one's bytes: the
/// source is still read once per distinct shard.
///
/// ```
/// use xla_shape::relayout::Shards;
/// use xla_shape::sharding::HloSharding;
/// use xla_shape::{ArrayShape, PrimitiveType, Shape};
///
/// // u8[4,6] split in two along columns, each half laid out column-major.
/// let global = ArrayShape::new(PrimitiveType::U8, [4, 6])?;
/// let sharding: HloSharding = "{devices=[1,2]<=[2]}".parse()?;
/// let device: Shape = "u8[4,3]{0,1}".parse()?;
/// let plan = Shards::new(&global, &sharding, device.as_array().unwrap(), 2)?;
/// let src: Vec<u8> = (0..24).collect();
/// let shards = plan.run_to_vecs(&src)?;
/// assert_eq!(shards[1], [3, 9, 15, 21, 4, 10, 16, 22, 5, 11, 17, 23]);
/// let shard_refs: Vec<&[u8]> = shards.iter().map(Vec::as_slice).collect();
/// assert_eq!(plan.assemble_to_vec(&shard_refs)?, src);
/// # Ok::<(), xla_shape::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Shards {
    element_type: PrimitiveType,
    dims: Vec<i64>,
    /// The global array as [`Shards::assemble`] writes it, and its byte
    /// strides.
    out_shape: ArrayShape,
    out_strides: Vec<i64>,
    out_size: usize,
    device_shape: ArrayShape,
    tile: Vec<i64>,
    device_size: usize,
    slices: Vec<DeviceSlice>,
    /// For each device, the index of the first device with the same slice.
    first: Vec<usize>,
    /// For each device that is its slice's first, how its shard is cut.
    cuts: Vec<Option<Cut>>,
}

fn shard_error(what: impl Into<String>) -> Error {
    Error::invalid_argument(what)
}

/// Row-major byte strides of `dims` with `e`-byte elements.
fn dense_strides(dims: &[i64], e: i64) -> Result<Vec<i64>> {
    let mut out = vec![0i64; dims.len()];
    let mut s = e;
    for (d, &n) in dims.iter().enumerate().rev() {
        out[d] = s;
        s = s
            .checked_mul(n.max(1))
            .ok_or_else(|| Error::overflow("the global array's byte size overflows int64_t"))?;
    }
    Ok(out)
}

/// The row-major shape (`ArrayShape::new` gives the default layout).
fn row_major(t: PrimitiveType, dims: &[i64]) -> Result<ArrayShape> {
    ArrayShape::new(t, dims.to_vec())
}

impl Shards {
    /// Plans cutting a global array of shape `global` (its layout untiled:
    /// row-major, or any `minor_to_major`; one byte per sub-byte element, as
    /// NumPy stores them) into the shard of every device of `sharding`, each
    /// in the layout of `device_shape`, whose dimensions must be the
    /// sharding's tile shape (XLA's `HloSharding::TileShape` of `global`).
    ///
    /// The devices are those of the sharding's tile assignment (a maximal
    /// sharding: its one device), in ascending order of id; a replicated
    /// sharding names none and copies the array to the devices
    /// `0..num_devices`. Every device id must be below `num_devices`.
    ///
    /// # Errors
    ///
    /// `InvalidArgument` when the global layout is tiled or packs elements
    /// in sub-bytes, the sharding has no per-device slices (tuple, manual,
    /// unreduced, unknown) or a device not below `num_devices`, or
    /// `device_shape` has another element type or dimensions than the
    /// tile; `Overflow` when a buffer would not fit in memory.
    pub fn new(
        global: &ArrayShape,
        sharding: &HloSharding,
        device_shape: &ArrayShape,
        num_devices: i64,
    ) -> Result<Self> {
        if global.layout().is_some_and(|l| !l.tiles().is_empty()) {
            return Err(shard_error(format!(
                "the global array {global} must have an untiled layout"
            )));
        }
        let strides = crate::strides::byte_strides(global)?;
        let view = StridedSource::new(
            global.element_type(),
            global.dimensions().to_vec(),
            strides.clone(),
        )?;
        Self::plan(view, global.clone(), sharding, device_shape, num_devices)
    }

    /// Like [`new`](Self::new), reading the global array through a strided
    /// view (a NumPy array's buffer); [`assemble`](Self::assemble) writes
    /// it row-major.
    ///
    /// # Errors
    ///
    /// As [`new`](Self::new) and [`Relayout::from_strided`].
    pub fn from_strided(
        global: &StridedSource,
        sharding: &HloSharding,
        device_shape: &ArrayShape,
        num_devices: i64,
    ) -> Result<Self> {
        let out = row_major(global.element_type(), global.dimensions())?;
        Self::plan(global.clone(), out, sharding, device_shape, num_devices)
    }

    fn plan(
        view: StridedSource,
        out_shape: ArrayShape,
        sharding: &HloSharding,
        device_shape: &ArrayShape,
        num_devices: i64,
    ) -> Result<Self> {
        let t = view.element_type();
        let dims = view.dimensions().to_vec();
        let e = byte_width(t);
        let global = ArrayShape::new(t, dims.clone())?;
        let tile_shape = sharding.tile_shape(&Shape::from(global.clone()))?;
        let tile = tile_shape
            .as_array()
            .map(|a| a.dimensions().to_vec())
            .unwrap_or_default();
        if device_shape.element_type() != t || device_shape.dimensions() != tile.as_slice() {
            return Err(shard_error(format!(
                "the device shape {device_shape} is not the shard of {global} under {sharding}: each device holds {}[{}]",
                t.lowercase_name(),
                crate::model::join(&tile, ",")
            )));
        }
        if num_devices < 0 {
            return Err(shard_error(format!(
                "the device count {num_devices} is negative"
            )));
        }
        let slices = sharding.device_slices_among(&dims, num_devices)?;
        if let Some(s) = slices
            .iter()
            .find(|s| s.device < 0 || s.device >= num_devices)
        {
            return Err(shard_error(format!(
                "device {} of {sharding} is not below the device count {num_devices}",
                s.device
            )));
        }
        let out_size = to_usize(
            dims.iter()
                .try_fold(e, |acc, &n| acc.checked_mul(n))
                .ok_or_else(|| Error::overflow("the global array's byte size overflows int64_t"))?,
            "the global array",
        )?;
        let device_size = to_usize(TiledLayout::new(device_shape)?.byte_size(), "a shard")?;
        let mut first = Vec::with_capacity(slices.len());
        let mut cuts = Vec::with_capacity(slices.len());
        // The first device of each slice, found in one pass.
        let mut seen: HashMap<(&[i64], &[i64]), usize> = HashMap::new();
        for (k, s) in slices.iter().enumerate() {
            let same = match seen.entry((&s.offsets, &s.limits)) {
                Entry::Occupied(e) => Some(*e.get()),
                Entry::Vacant(e) => {
                    e.insert(k);
                    None
                }
            };
            first.push(same.unwrap_or(k));
            cuts.push(match same {
                Some(_) => None,
                None => Some(Self::cut(&view, s, &tile, device_shape)?),
            });
        }
        Ok(Shards {
            element_type: t,
            dims,
            out_strides: crate::strides::byte_strides(&out_shape)?,
            out_shape,
            out_size,
            device_shape: device_shape.clone(),
            tile,
            device_size,
            slices,
            first,
            cuts,
        })
    }

    /// The view of the global array's part `s`, of dimensions `s.shape()`.
    fn part_view(view: &StridedSource, s: &DeviceSlice) -> Result<StridedSource> {
        let mut offset = view.byte_offset();
        for (&o, &st) in s.offsets.iter().zip(view.byte_strides()) {
            offset = o
                .checked_mul(st)
                .and_then(|b| offset.checked_add(b))
                .ok_or_else(|| Error::overflow("a shard's byte offset overflows int64_t"))?;
        }
        let offset = usize::try_from(offset).map_err(|_| {
            shard_error(format!(
                "the shard at {:?} starts at byte {offset}, before the start of the buffer",
                s.offsets
            ))
        })?;
        Ok(
            StridedSource::new(view.element_type(), s.shape(), view.byte_strides().to_vec())?
                .with_byte_offset(offset),
        )
    }

    fn cut(
        view: &StridedSource,
        s: &DeviceSlice,
        tile: &[i64],
        device_shape: &ArrayShape,
    ) -> Result<Cut> {
        let part = s.shape();
        if part.contains(&0) {
            return Ok(Cut::Empty);
        }
        let part_view = Self::part_view(view, s)?;
        if part == tile {
            return Ok(Cut::Whole(Box::new(Relayout::from_strided(
                &part_view,
                device_shape,
            )?)));
        }
        let t = view.element_type();
        let to_rows = Relayout::from_strided(&part_view, &row_major(t, &part)?)?;
        let staging = StridedSource::new(t, tile.to_vec(), dense_strides(tile, byte_width(t))?)?;
        Ok(Cut::Part {
            to_rows: Box::new(to_rows),
            from_staging: Box::new(Relayout::from_strided(&staging, device_shape)?),
        })
    }

    /// Every device's slice of the global array, in the order of the
    /// shards [`run`](Self::run) writes.
    pub fn devices(&self) -> &[DeviceSlice] {
        &self.slices
    }

    /// For each device, the position in [`devices`](Self::devices) of the
    /// first device that holds the same slice (itself when none before it
    /// does): [`assemble`](Self::assemble) reads only those.
    pub fn replica_of(&self) -> &[usize] {
        &self.first
    }

    /// The shape of every device's buffer: the tile shape in the device's
    /// layout.
    pub fn device_shape(&self) -> &ArrayShape {
        &self.device_shape
    }

    /// The bytes of one device's buffer, padding included.
    pub fn device_byte_size(&self) -> usize {
        self.device_size
    }

    /// The bytes of the global array [`assemble`](Self::assemble) writes.
    pub fn global_byte_size(&self) -> usize {
        self.out_size
    }

    /// The bytes the global view reaches: what [`run`](Self::run) needs.
    fn src_size(&self) -> usize {
        self.cuts
            .iter()
            .flatten()
            .map(|c| match c {
                Cut::Whole(r) => r.src_byte_size(),
                Cut::Part { to_rows, .. } => to_rows.src_byte_size(),
                Cut::Empty => 0,
            })
            .max()
            .unwrap_or(0)
    }

    fn check_shards(&self, lens: impl Iterator<Item = usize>, which: &str) -> Result<()> {
        let mut count = 0usize;
        for (k, len) in lens.enumerate() {
            count += 1;
            if len != self.device_size {
                return Err(Error::new(
                    ErrorKind::BufferSize,
                    format!(
                        "{which} {k} (device {}) has {len} bytes but {} takes {} bytes",
                        self.slices.get(k).map_or(-1, |s| s.device),
                        self.device_shape,
                        self.device_size
                    ),
                ));
            }
        }
        if count != self.slices.len() {
            return Err(shard_error(format!(
                "{count} {which}s given for {} devices",
                self.slices.len()
            )));
        }
        Ok(())
    }

    /// Writes every device's shard of the global array `src` into `dst`
    /// (one buffer per device, in the order of [`devices`](Self::devices),
    /// each [`device_byte_size`](Self::device_byte_size) bytes); padding is
    /// written as zero.
    ///
    /// # Errors
    ///
    /// `BufferSize` when `src` is shorter than the global array (its view)
    /// or a shard buffer has another size; `InvalidArgument` when `dst`
    /// does not have one buffer per device.
    pub fn run(&self, src: &[u8], dst: &mut [&mut [u8]]) -> Result<()> {
        self.check_shards(dst.iter().map(|d| d.len()), "shard buffer")?;
        self.check_src(src)?;
        for (cut, d) in self.cuts.iter().zip(dst.iter_mut()) {
            if let Some(cut) = cut {
                self.write(cut, src, d)?;
            }
        }
        self.copy_replicas(dst);
        Ok(())
    }

    /// Like [`run`](Self::run), the distinct shards written on the threads
    /// of the current rayon pool, one device per task.
    ///
    /// # Errors
    ///
    /// As [`run`](Self::run).
    #[cfg(feature = "rayon")]
    pub fn run_parallel(&self, src: &[u8], dst: &mut [&mut [u8]]) -> Result<()> {
        use rayon::prelude::*;
        self.check_shards(dst.iter().map(|d| d.len()), "shard buffer")?;
        self.check_src(src)?;
        self.cuts
            .par_iter()
            .zip(dst.par_iter_mut())
            .try_for_each(|(cut, d)| match cut {
                Some(cut) => self.write(cut, src, d),
                None => Ok(()),
            })?;
        self.copy_replicas(dst);
        Ok(())
    }

    /// Like [`run`](Self::run), into new buffers.
    ///
    /// # Errors
    ///
    /// As [`run`](Self::run).
    pub fn run_to_vecs(&self, src: &[u8]) -> Result<Vec<Vec<u8>>> {
        self.check_src(src)?;
        let mut out = Vec::with_capacity(self.slices.len());
        for _ in &self.slices {
            out.push(zeroed(self.device_size)?);
        }
        let mut refs: Vec<&mut [u8]> = out.iter_mut().map(Vec::as_mut_slice).collect();
        self.run(src, &mut refs)?;
        Ok(out)
    }

    /// `f32[4,6]`: the global array's type and dimensions, for messages.
    fn global_name(&self) -> String {
        format!(
            "{}[{}]",
            self.element_type.lowercase_name(),
            crate::model::join(&self.dims, ",")
        )
    }

    fn check_src(&self, src: &[u8]) -> Result<()> {
        let need = self.src_size();
        if src.len() < need {
            return Err(Error::new(
                ErrorKind::BufferSize,
                format!(
                    "source buffer has {} bytes but the global array {} reaches {need} bytes",
                    src.len(),
                    self.global_name()
                ),
            ));
        }
        Ok(())
    }

    /// One distinct shard, `src` and `dst` checked.
    fn write(&self, cut: &Cut, src: &[u8], dst: &mut [u8]) -> Result<()> {
        match cut {
            Cut::Whole(r) => r.run(src, dst),
            Cut::Part {
                to_rows,
                from_staging,
            } => {
                let mut rows = zeroed(to_rows.dst_byte_size())?;
                to_rows.run(src, &mut rows)?;
                let e = byte_width(self.element_type);
                // The cut shard's dimensions: those of the rows it was copied into.
                let part = to_rows.dst.dimensions();
                let mut staging = zeroed(from_staging.src_byte_size())?;
                copy_box(
                    &rows,
                    0,
                    &dense_strides(part, e)?,
                    &mut staging,
                    0,
                    &dense_strides(&self.tile, e)?,
                    part,
                    e as usize,
                );
                from_staging.run(&staging, dst)
            }
            Cut::Empty => {
                dst.fill(0);
                Ok(())
            }
        }
    }

    /// Every replica's buffer from its first device's.
    fn copy_replicas(&self, dst: &mut [&mut [u8]]) {
        for k in 0..dst.len() {
            let f = self.first[k];
            if f != k {
                let (head, tail) = dst.split_at_mut(k);
                tail[0].copy_from_slice(head[f]);
            }
        }
    }

    /// Writes the global array into `dst` (in the layout of the global
    /// shape given to [`new`](Self::new), row-major for
    /// [`from_strided`](Self::from_strided); [`global_byte_size`](Self::global_byte_size)
    /// bytes) from the device buffers `shards`, in the order of
    /// [`devices`](Self::devices). Of devices that hold the same slice,
    /// only the first is read; the padding of cut shards is not read.
    ///
    /// A shard that is one contiguous range of the global array (a
    /// sharding of the layout's most major dimension alone, or a
    /// replicated one) is relaid straight into that range. Any other is
    /// untiled into a staging buffer, whose box is then copied into place:
    /// a band of rows at a time (a buffer that stays in the caches) when
    /// the device layout's most major dimension is the global array's and
    /// its rows of tiles are buffers of their own shape, else the whole
    /// tile.
    ///
    /// # Errors
    ///
    /// `BufferSize` when a buffer has another size than its shape takes;
    /// `InvalidArgument` when `shards` does not have one buffer per device.
    pub fn assemble(&self, shards: &[&[u8]], dst: &mut [u8]) -> Result<()> {
        self.assemble_with(shards, dst, false)
    }

    /// Like [`assemble`](Self::assemble), on the threads of the current
    /// rayon pool, one shard after the other and each shard's copy cut so
    /// that the threads write disjoint parts of `dst`: a shard that is one
    /// range of the global array by [`Relayout::run_parallel`], a staged
    /// one in bands of rows of the global array's most major dimension,
    /// one task per band (untiled into the task's own staging buffer when
    /// the layouts allow, else untiled whole by
    /// [`Relayout::run_parallel`] first). The bytes written are those of
    /// [`assemble`](Self::assemble). Shards and boxes under 1 MiB are
    /// copied on the calling thread.
    ///
    /// ```
    /// use xla_shape::relayout::Shards;
    /// use xla_shape::sharding::HloSharding;
    /// use xla_shape::{ArrayShape, PrimitiveType, Shape};
    ///
    /// let global = ArrayShape::new(PrimitiveType::Bf16, [512, 1024])?;
    /// let sharding: HloSharding = "{devices=[2,2]<=[4]}".parse()?;
    /// let device: Shape = "bf16[256,512]{1,0:T(8,128)(2,1)}".parse()?;
    /// let plan = Shards::new(&global, &sharding, device.as_array().unwrap(), 4)?;
    /// let src: Vec<u8> = (0..plan.global_byte_size()).map(|k| k as u8).collect();
    /// let shards = plan.run_to_vecs(&src)?;
    /// let refs: Vec<&[u8]> = shards.iter().map(Vec::as_slice).collect();
    /// let mut back = vec![0; src.len()];
    /// let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// pool.install(|| plan.assemble_parallel(&refs, &mut back))?;
    /// assert_eq!(back, src);
    /// # Ok::<(), xla_shape::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`assemble`](Self::assemble).
    #[cfg(feature = "rayon")]
    pub fn assemble_parallel(&self, shards: &[&[u8]], dst: &mut [u8]) -> Result<()> {
        self.assemble_with(shards, dst, true)
    }

    /// [`assemble`](Self::assemble), each step on the rayon pool when
    /// `parallel` (only with the `rayon` feature).
    fn assemble_with(&self, shards: &[&[u8]], dst: &mut [u8], parallel: bool) -> Result<()> {
        self.check_shards(shards.iter().map(|s| s.len()), "shard")?;
        if dst.len() != self.out_size {
            return Err(Error::new(
                ErrorKind::BufferSize,
                format!(
                    "destination buffer has {} bytes but the global array {} takes {} bytes",
                    dst.len(),
                    self.global_name(),
                    self.out_size
                ),
            ));
        }
        #[cfg(not(feature = "rayon"))]
        let _ = parallel;
        let relay = |plan: &Relayout, src: &[u8], dst: &mut [u8]| {
            #[cfg(feature = "rayon")]
            if parallel {
                return plan.run_parallel(src, dst);
            }
            plan.run(src, dst)
        };
        let e = byte_width(self.element_type);
        let rows = row_major(self.element_type, &self.tile)?;
        let untile = Relayout::new(&self.device_shape, &rows)?;
        let tile_strides = dense_strides(&self.tile, e)?;
        let out_layout = TiledLayout::new(&self.out_shape)?;
        // The tile in the global array's own layout, for shards that are
        // one contiguous range of it.
        let in_place = ArrayShape::new(self.element_type, self.tile.clone())?
            .with_layout(self.out_shape.layout().cloned())?;
        let mut direct: Option<Relayout> = None;
        let mut staging = Vec::new();
        // Planned at the first shard that needs staging.
        let mut bands: Option<Option<Bands>> = None;
        for (k, s) in self.slices.iter().enumerate() {
            if self.first[k] != k || s.shape().contains(&0) {
                continue;
            }
            if s.shape() == self.tile
                && let [range] = out_layout
                    .slot_ranges(&s.offsets, &s.limits, 1)
                    .unwrap_or_default()
                    .as_slice()
            {
                let plan = match &mut direct {
                    Some(p) => p,
                    None => direct.insert(Relayout::new(&self.device_shape, &in_place)?),
                };
                let (lo, hi) = (
                    to_usize(range.start * e, "a shard")?,
                    to_usize(range.end * e, "a shard")?,
                );
                relay(plan, shards[k], &mut dst[lo..hi])?;
                continue;
            }
            if bands.is_none() {
                bands = Some(Bands::new(self));
            }
            if let Some(Some(b)) = &bands {
                #[cfg(feature = "rayon")]
                if parallel {
                    b.place_parallel(self, shards[k], s, dst)?;
                    continue;
                }
                b.place(self, shards[k], s, b.rows(s, dst))?;
                continue;
            }
            if staging.is_empty() {
                staging = zeroed(untile.dst_byte_size())?;
            }
            relay(&untile, shards[k], &mut staging)?;
            let placed = Placed {
                src: &staging,
                src_strides: &tile_strides,
                offsets: &s.offsets,
                dims: s.shape(),
            };
            #[cfg(feature = "rayon")]
            if parallel {
                self.place_parallel(&placed, dst);
                continue;
            }
            self.place(&placed, dst, 0);
        }
        Ok(())
    }

    /// Copies the staged box `p` to its place in the global array, of which
    /// `dst` is the part from byte `dst_start` on (the box lies inside it).
    fn place(&self, p: &Placed<'_>, dst: &mut [u8], dst_start: usize) {
        let base = p
            .offsets
            .iter()
            .zip(&self.out_strides)
            .map(|(&o, &st)| o * st)
            .sum::<i64>() as usize;
        copy_box(
            p.src,
            0,
            p.src_strides,
            dst,
            base - dst_start,
            &self.out_strides,
            &p.dims,
            byte_width(self.element_type) as usize,
        );
    }

    /// [`place`](Self::place) in bands of rows of the global array's most
    /// major dimension, one task each: every band is its own contiguous
    /// part of `dst`.
    #[cfg(feature = "rayon")]
    fn place_parallel(&self, p: &Placed<'_>, dst: &mut [u8]) {
        use rayon::prelude::*;
        // The layout's most major dimension: each of its indices is one
        // contiguous run of `stride` bytes of the (untiled, dense) global
        // array.
        let major = self
            .out_shape
            .layout()
            .and_then(|l| l.minor_to_major().last())
            .map_or(0, |&d| d as usize);
        let e = byte_width(self.element_type);
        let box_bytes = p.dims.iter().product::<i64>() * e;
        let threads = rayon::current_num_threads();
        let (Some(&stride), Some(&n)) = (self.out_strides.get(major), self.dims.get(major)) else {
            return self.place(p, dst, 0);
        };
        let rows = p.dims[major];
        if threads < 2
            || box_bytes < super::PARALLEL_MIN_BYTES as i64
            || rows < 2
            || stride.checked_mul(n) != Some(self.out_size as i64)
        {
            return self.place(p, dst, 0);
        }
        let (stride, first) = (stride as usize, p.offsets[major]);
        let band = (rows as usize).div_ceil(4 * threads);
        let start = first as usize * stride;
        dst[start..start + rows as usize * stride]
            .par_chunks_mut(band * stride)
            .enumerate()
            .for_each(|(j, part)| {
                let r0 = (j * band) as i64;
                let mut offsets = p.offsets.to_vec();
                offsets[major] = first + r0;
                let mut dims = p.dims.clone();
                dims[major] = (part.len() / stride) as i64;
                let src = &p.src[(r0 * p.src_strides[major]) as usize..];
                let piece = Placed {
                    src,
                    src_strides: p.src_strides,
                    offsets: &offsets,
                    dims,
                };
                self.place(&piece, part, start + j * band * stride);
            });
    }

    /// Like [`assemble`](Self::assemble), into a new buffer.
    ///
    /// # Errors
    ///
    /// As [`assemble`](Self::assemble).
    pub fn assemble_to_vec(&self, shards: &[&[u8]]) -> Result<Vec<u8>> {
        self.check_shards(shards.iter().map(|s| s.len()), "shard")?;
        let mut out = zeroed(self.out_size)?;
        self.assemble(shards, &mut out)?;
        Ok(out)
    }
}

/// How a shard is untiled a band of rows at a time into a staging buffer
/// that stays in the caches, and its rows placed in the global array.
///
/// The rows are those of the device layout's most major dimension, when
/// it is the global array's too. XLA's tiled-layout document
/// (`xla/g3doc/tiled_layout.md`) lays a tiled buffer out tile by tile in
/// the order of the tiled shape's dimensions, the most major first, so
/// with the first tile `t` rows tall along that dimension (1 when the tile
/// does not reach it) the rows `r..r + h` of the buffer, `r` a multiple of
/// `t`, are one contiguous range laid out as a buffer of the band's own
/// shape (`h` rows, the same layout). The plan checks that the bands
/// found so abut and fit the device buffer; where they do not, or the
/// dimensions differ, [`Shards::assemble`] stages whole shards.
#[derive(Debug)]
struct Bands {
    /// The dimension the bands cut.
    major: usize,
    /// Rows per band (the last band of the tile may have fewer).
    height: i64,
    /// Bytes of one index of `major` in the global array.
    stride: usize,
    /// For each band of the device buffer: its byte offset, and which
    /// plan of `plans` untiles it.
    starts: Vec<(usize, usize)>,
    /// The untiling of a whole band and of a shorter last one, each with
    /// its staging buffer's byte strides.
    plans: Vec<(Relayout, Vec<i64>)>,
}

/// The rows a band's staging buffer holds at most, in bytes.
const BAND_BYTES: i64 = 256 << 10;

impl Bands {
    /// The bands of `sh`'s device buffers, or `None` when the device
    /// layout does not cut into them.
    fn new(sh: &Shards) -> Option<Bands> {
        let device_layout = sh.device_shape.layout()?;
        let out_layout = sh.out_shape.layout()?;
        let major = *device_layout.minor_to_major().last()?;
        if out_layout.minor_to_major().last() != Some(&major) {
            return None;
        }
        let major = usize::try_from(major).ok()?;
        let rank = sh.tile.len();
        // The first tile's extent along `major`, the first physical
        // dimension: a tile covers the most minor ones.
        let t = match device_layout.tiles().first() {
            None => 1,
            Some(tile) if tile.dimensions().len() == rank => tile.dimensions()[0],
            Some(tile) if tile.dimensions().len() < rank => 1,
            Some(_) => return None,
        };
        let rows = sh.tile[major];
        let stride = sh.out_strides[major];
        if t <= 0
            || rows <= 0
            || stride <= 0
            || stride.checked_mul(sh.dims[major])? != sh.out_size as i64
        {
            return None;
        }
        // One row of the staging buffer: the tile's other dimensions.
        let row_bytes = sh
            .tile
            .iter()
            .enumerate()
            .filter(|&(d, _)| d != major)
            .try_fold(byte_width(sh.element_type), |acc, (_, &n)| {
                acc.checked_mul(n)
            })?;
        let height = ((BAND_BYTES / row_bytes.max(1)).max(1) + t - 1) / t * t;
        let device = TiledLayout::new(&sh.device_shape).ok()?;
        let bits = device.element_size_in_bits();
        let mut plans: Vec<(i64, Relayout, Vec<i64>)> = Vec::new();
        let mut starts = Vec::new();
        let mut expect = 0usize;
        let mut index = vec![0i64; rank];
        for r in (0..rows).step_by(usize::try_from(height).ok()?) {
            let h = height.min(rows - r);
            let which = match plans.iter().position(|p| p.0 == h) {
                Some(w) => w,
                None => {
                    let mut dims = sh.tile.clone();
                    dims[major] = h;
                    let band = ArrayShape::new(sh.element_type, dims.clone())
                        .and_then(|a| a.with_layout(Some(device_layout.clone())))
                        .ok()?;
                    let staged = ArrayShape::new(sh.element_type, dims)
                        .and_then(|a| a.with_layout(Some(out_layout.clone())))
                        .ok()?;
                    let strides = crate::strides::byte_strides(&staged).ok()?;
                    plans.push((h, Relayout::new(&band, &staged).ok()?, strides));
                    plans.len() - 1
                }
            };
            index[major] = r;
            let bit = device.offset(&index).ok()?.checked_mul(bits)?;
            let start = usize::try_from(bit / 8).ok()?;
            let end = start.checked_add(plans[which].1.src_byte_size())?;
            if bit % 8 != 0 || start != expect || end > sh.device_size {
                return None;
            }
            expect = end;
            starts.push((start, which));
        }
        Some(Bands {
            major,
            height,
            stride: stride as usize,
            starts,
            plans: plans.into_iter().map(|(_, r, s)| (r, s)).collect(),
        })
    }

    /// Band `j` of the distinct shard `s` (its buffer `shard`) placed in
    /// `dst`, the rows of the global array that band covers; `staging` is
    /// reused from band to band.
    fn place_band(
        &self,
        sh: &Shards,
        shard: &[u8],
        s: &DeviceSlice,
        j: usize,
        staging: &mut Vec<u8>,
        dst: &mut [u8],
    ) -> Result<()> {
        let (start, which) = self.starts[j];
        let (plan, strides) = &self.plans[which];
        staging.resize(plan.dst_byte_size(), 0);
        plan.run(&shard[start..start + plan.src_byte_size()], staging)?;
        let first = s.offsets[self.major] + j as i64 * self.height;
        let mut offsets = s.offsets.clone();
        offsets[self.major] = first;
        let mut dims = s.shape();
        dims[self.major] = (dst.len() / self.stride) as i64;
        let placed = Placed {
            src: staging,
            src_strides: strides,
            offsets: &offsets,
            dims,
        };
        sh.place(&placed, dst, first as usize * self.stride);
        Ok(())
    }

    /// The rows of the global array that shard `s` covers.
    fn rows<'a>(&self, s: &DeviceSlice, dst: &'a mut [u8]) -> &'a mut [u8] {
        let first = s.offsets[self.major] as usize * self.stride;
        let n = s.shape()[self.major] as usize * self.stride;
        &mut dst[first..first + n]
    }

    /// Every band of `shard` placed, one after the other, into `rows`
    /// (what [`rows`](Self::rows) gives).
    fn place(&self, sh: &Shards, shard: &[u8], s: &DeviceSlice, rows: &mut [u8]) -> Result<()> {
        let mut staging = Vec::new();
        for (j, rows) in rows
            .chunks_mut(self.height as usize * self.stride)
            .enumerate()
        {
            self.place_band(sh, shard, s, j, &mut staging, rows)?;
        }
        Ok(())
    }

    /// Every band of `shard` placed, one task each.
    #[cfg(feature = "rayon")]
    fn place_parallel(
        &self,
        sh: &Shards,
        shard: &[u8],
        s: &DeviceSlice,
        dst: &mut [u8],
    ) -> Result<()> {
        use rayon::prelude::*;
        let rows = self.rows(s, dst);
        let box_bytes = s.shape().iter().product::<i64>() * byte_width(sh.element_type);
        if box_bytes < super::PARALLEL_MIN_BYTES as i64 || rayon::current_num_threads() < 2 {
            return self.place(sh, shard, s, rows);
        }
        rows.par_chunks_mut(self.height as usize * self.stride)
            .enumerate()
            .try_for_each_init(Vec::new, |staging, (j, rows)| {
                self.place_band(sh, shard, s, j, staging, rows)
            })
    }
}

/// A shard's box staged row-major (`src`, with `src_strides`), to be
/// copied to `offsets` of the global array.
struct Placed<'a> {
    src: &'a [u8],
    src_strides: &'a [i64],
    offsets: &'a [i64],
    dims: Vec<i64>,
}

/// `n` zero bytes, or an error when memory cannot hold them (a tile's
/// padding can make a shard far larger than its elements).
fn zeroed(n: usize) -> Result<Vec<u8>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n)
        .map_err(|_| Error::overflow(format!("a buffer of {n} bytes does not fit in memory")))?;
    v.resize(n, 0);
    Ok(v)
}

/// Copies the box `dims` of `e`-byte elements between two arrays with
/// non-negative byte strides, whole runs at a time where the last
/// dimension is dense on both sides. Both boxes are inside their buffers
/// (the callers' shapes make them so).
#[allow(clippy::too_many_arguments)]
fn copy_box(
    src: &[u8],
    src_base: usize,
    src_strides: &[i64],
    dst: &mut [u8],
    dst_base: usize,
    dst_strides: &[i64],
    dims: &[i64],
    e: usize,
) {
    if dims.contains(&0) {
        return;
    }
    let Some((&last, outer)) = dims.split_last() else {
        dst[dst_base..dst_base + e].copy_from_slice(&src[src_base..src_base + e]);
        return;
    };
    let (ss, ds) = (src_strides[outer.len()], dst_strides[outer.len()]);
    let dense = ss == e as i64 && ds == e as i64;
    let mut index = vec![0i64; outer.len()];
    loop {
        let at = |base: usize, strides: &[i64]| {
            base + index
                .iter()
                .zip(strides)
                .map(|(&i, &st)| (i * st) as usize)
                .sum::<usize>()
        };
        let (s0, d0) = (at(src_base, src_strides), at(dst_base, dst_strides));
        if dense {
            let n = last as usize * e;
            dst[d0..d0 + n].copy_from_slice(&src[s0..s0 + n]);
        } else {
            for j in 0..last as usize {
                let (s, d) = (s0 + j * ss as usize, d0 + j * ds as usize);
                dst[d..d + e].copy_from_slice(&src[s..s + e]);
            }
        }
        if crate::index_util::next_row_major(&mut index, outer).is_none() {
            return;
        }
    }
}
