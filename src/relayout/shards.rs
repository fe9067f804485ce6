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
                self.write(cut, src, d, false)?;
            }
        }
        self.copy_replicas(dst);
        Ok(())
    }

    /// Like [`run`](Self::run), the distinct shards written on the threads
    /// of the current rayon pool, one device per task (each device's
    /// buffer is its own: the tasks write disjoint memory). Many small
    /// shards spread over the threads whole; a large one's copy is cut
    /// further ([`Relayout::run_parallel`]), so that a few shards, or a
    /// single one, still use every thread. The replicas are then copied
    /// from their first device's buffer, one task each. The bytes written
    /// are those of [`run`](Self::run).
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
                Some(cut) => self.write(cut, src, d, true),
                None => Ok(()),
            })?;
        self.copy_replicas_parallel(dst);
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

    /// One distinct shard, `src` and `dst` checked; with `parallel`, its
    /// copies cut across the rayon pool ([`Relayout::run_parallel`]).
    fn write(&self, cut: &Cut, src: &[u8], dst: &mut [u8], parallel: bool) -> Result<()> {
        match cut {
            Cut::Whole(r) => relay(r, src, dst, parallel),
            Cut::Part {
                to_rows,
                from_staging,
            } => {
                let mut rows = zeroed(to_rows.dst_byte_size())?;
                relay(to_rows, src, &mut rows, parallel)?;
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
                relay(from_staging, &staging, dst, parallel)
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

    /// [`copy_replicas`](Self::copy_replicas) on the rayon pool: the
    /// replicas one task each, a large one in pieces of 1 MiB.
    #[cfg(feature = "rayon")]
    fn copy_replicas_parallel(&self, dst: &mut [&mut [u8]]) {
        use rayon::prelude::*;
        let mut firsts: Vec<Option<&[u8]>> = vec![None; dst.len()];
        let mut replicas = Vec::new();
        for (k, d) in dst.iter_mut().enumerate() {
            if self.first[k] == k {
                firsts[k] = Some(&**d);
            } else {
                replicas.push((self.first[k], &mut **d));
            }
        }
        replicas.into_par_iter().for_each(|(f, d)| {
            if let Some(src) = firsts[f] {
                d.par_chunks_mut(super::PARALLEL_MIN_BYTES)
                    .zip(src.par_chunks(super::PARALLEL_MIN_BYTES))
                    .for_each(|(d, s)| d.copy_from_slice(s));
            }
        });
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
    /// rayon pool. The bytes written are those of
    /// [`assemble`](Self::assemble).
    ///
    /// The global array is cut into parts that the threads write at the
    /// same time, each part a contiguous range of `dst` of its own (safe
    /// `split_at_mut` pieces, no shared pointer): the rows of the global
    /// array's most major dimension that a group of distinct shards
    /// covers. A tiled sharding cuts every dimension at the same places
    /// for every device, so two shards cover the same rows or disjoint
    /// ones, and the shards of one group (those side by side along the
    /// other dimensions) write only their rows. The boxes of the shards
    /// are disjoint but not contiguous in `dst`, and the rows are the cut
    /// that keeps every task's writes in one range for every tiled,
    /// uneven and replicated sharding, of any layout of the global array
    /// (the layout's most major dimension is the one cut). A group whose
    /// shards are untiled band by band (the device layout's most major
    /// dimension is the global array's) is cut further, one part per band
    /// of rows. The parts are the tasks: many small shards (64 devices of
    /// a few hundred KiB) spread over the threads whole, each task with
    /// its own staging buffer, and within a part the copies of a large
    /// shard are cut again (by [`Relayout::run_parallel`] for a shard that
    /// is one range of the global array, else in bands of rows). A
    /// sharding of the other dimensions alone makes one group: its tasks
    /// are its bands (made short enough for four per thread), and when
    /// the shards are staged whole, the copies of each shard in turn. A
    /// global array under 1 MiB is written on the calling thread.
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

    /// [`assemble`](Self::assemble), on the rayon pool when `parallel`
    /// (only with the `rayon` feature): the units of the [`Assembly`] one
    /// task each, or one after the other with each unit's copies cut.
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
        #[cfg(feature = "rayon")]
        let tasks = if parallel {
            4 * rayon::current_num_threads()
        } else {
            1
        };
        #[cfg(not(feature = "rayon"))]
        let tasks = 1;
        let plan = Assembly::new(self, tasks)?;
        #[cfg(feature = "rayon")]
        if parallel
            && plan.units.len() > 1
            && self.out_size >= super::PARALLEL_MIN_BYTES
            && rayon::current_num_threads() > 1
        {
            use rayon::prelude::*;
            // The units are sorted and disjoint (`Assembly::units`): each
            // task gets its own part of `dst`.
            let parts = super::disjoint_parts(dst, plan.units.iter().map(|u| u.start..u.end));
            return plan
                .units
                .par_iter()
                .zip(parts)
                .try_for_each_init(Vec::new, |staging, (u, part)| {
                    plan.write(self, u, shards, part, staging, true)
                });
        }
        let mut staging = Vec::new();
        for u in &plan.units {
            plan.write(
                self,
                u,
                shards,
                &mut dst[u.start..u.end],
                &mut staging,
                parallel,
            )?;
        }
        Ok(())
    }

    /// The global array's most major dimension and its byte stride, when
    /// each of its indices is one contiguous run of the (untiled) global
    /// array's bytes: the array is dense along it.
    fn major_rows(&self) -> Option<(usize, usize)> {
        let major = *self.out_shape.layout()?.minor_to_major().last()?;
        let major = usize::try_from(major).ok()?;
        let (&stride, &n) = (self.out_strides.get(major)?, self.dims.get(major)?);
        if stride <= 0 || stride.checked_mul(n) != Some(i64::try_from(self.out_size).ok()?) {
            return None;
        }
        Some((major, usize::try_from(stride).ok()?))
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
    /// part of `dst` (the part of the global array from byte `dst_start`
    /// on).
    #[cfg(feature = "rayon")]
    fn place_parallel(&self, p: &Placed<'_>, dst: &mut [u8], dst_start: usize) {
        use rayon::prelude::*;
        let e = byte_width(self.element_type);
        let box_bytes = p.dims.iter().product::<i64>() * e;
        let threads = rayon::current_num_threads();
        let Some((major, stride)) = self.major_rows() else {
            return self.place(p, dst, dst_start);
        };
        let rows = p.dims[major];
        if threads < 2 || box_bytes < super::PARALLEL_MIN_BYTES as i64 || rows < 2 {
            return self.place(p, dst, dst_start);
        }
        let first = p.offsets[major];
        let band = (rows as usize).div_ceil(4 * threads);
        let start = first as usize * stride;
        dst[start - dst_start..start - dst_start + rows as usize * stride]
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

/// How [`Shards::assemble`] writes one distinct shard.
#[derive(Debug)]
enum Place {
    /// The shard is this byte range of the global array: relaid straight
    /// into it.
    Direct(std::ops::Range<usize>),
    /// The shard is untiled into a staging buffer and its box copied into
    /// place ([`Staging`]).
    Staged,
}

/// How the staged shards of an assembly are untiled.
#[derive(Debug)]
enum Staging {
    /// No shard is staged.
    None,
    /// A band of rows at a time ([`Bands`]).
    Bands(Bands),
    /// The whole tile into a row-major buffer of the tile's shape, whose
    /// byte strides are given.
    Whole(Box<Relayout>, Vec<i64>),
}

/// A contiguous part of the global array, `start..end` bytes, written by
/// one task: the distinct shards of group `group` whose boxes lie in it,
/// whole, or only band `band` of each ([`Bands`]).
#[derive(Debug)]
struct Unit {
    start: usize,
    end: usize,
    group: usize,
    band: Option<usize>,
}

/// One call of [`Shards::assemble`] planned: how each distinct shard is
/// written, and the global array cut into [`Unit`]s that can be written
/// at the same time.
///
/// The cut is by the rows of the global array's most major dimension
/// (its layout's last `minor_to_major`), along which the untiled, dense
/// array is one run of bytes per index: the distinct shards are grouped
/// by the rows they cover. A tile assignment cuts every dimension at the
/// same places for every device (XLA's `HloSharding::TileOffsetForDevice`
/// and `TileLimitForDevice`: `i * ceil(n / k)`, capped at `n`), so two
/// groups' rows are the same or disjoint, and the distinct shards'
/// boxes are disjoint (replicas are left out): each group's rows are a
/// part of the global array that only its shards write. The plan checks
/// the groups are disjoint, and cuts the array into one unit when they
/// are not or there is no such dimension (rank 0). A group whose shards
/// are all placed band by band is cut further into one unit per band.
#[derive(Debug)]
struct Assembly {
    /// For each device: how its shard is written (`None` for a replica
    /// or an empty shard, which write nothing).
    place: Vec<Option<Place>>,
    /// The tile from the device's layout into the global array's, for
    /// [`Place::Direct`] shards.
    direct: Option<Relayout>,
    staging: Staging,
    /// The distinct shards of each group, in device order.
    groups: Vec<Vec<usize>>,
    /// Sorted by `start`, disjoint.
    units: Vec<Unit>,
}

impl Assembly {
    /// The plan for `sh`, cut for about `tasks` tasks (1: one after the
    /// other).
    fn new(sh: &Shards, tasks: usize) -> Result<Assembly> {
        let t = sh.element_type;
        let e = byte_width(t);
        let out_layout = TiledLayout::new(&sh.out_shape)?;
        let mut place = Vec::with_capacity(sh.slices.len());
        for (k, s) in sh.slices.iter().enumerate() {
            if sh.first[k] != k || s.shape().contains(&0) {
                place.push(None);
                continue;
            }
            // A shard of the tile's shape that is one range of slots of
            // the global array.
            let range = match out_layout
                .slot_ranges(&s.offsets, &s.limits, 1)
                .unwrap_or_default()
                .as_slice()
            {
                [range] if s.shape() == sh.tile => Some(range.clone()),
                _ => None,
            };
            place.push(Some(match range {
                Some(r) => Place::Direct(
                    to_usize(r.start * e, "a shard")?..to_usize(r.end * e, "a shard")?,
                ),
                None => Place::Staged,
            }));
        }
        let direct = if place.iter().any(|p| matches!(p, Some(Place::Direct(_)))) {
            // The tile in the global array's own layout.
            let in_place =
                ArrayShape::new(t, sh.tile.clone())?.with_layout(sh.out_shape.layout().cloned())?;
            Some(Relayout::new(&sh.device_shape, &in_place)?)
        } else {
            None
        };
        let staging = if !place.iter().any(|p| matches!(p, Some(Place::Staged))) {
            Staging::None
        } else if let Some(b) = Bands::new(sh, Self::band_rows(sh, tasks)) {
            Staging::Bands(b)
        } else {
            let rows = row_major(t, &sh.tile)?;
            Staging::Whole(
                Box::new(Relayout::new(&sh.device_shape, &rows)?),
                dense_strides(&sh.tile, e)?,
            )
        };
        let mut plan = Assembly {
            place,
            direct,
            staging,
            groups: Vec::new(),
            units: Vec::new(),
        };
        plan.cut(sh);
        Ok(plan)
    }

    /// The most rows of a band: no limit but the staging buffer's for one
    /// task, else few enough that the groups' bands make about `tasks`
    /// units (a sharding of the minor dimensions alone has one group,
    /// whose bands are all the tasks there are).
    fn band_rows(sh: &Shards, tasks: usize) -> i64 {
        let Some((major, _)) = sh.major_rows() else {
            return i64::MAX;
        };
        if tasks < 2 {
            return i64::MAX;
        }
        let groups: std::collections::BTreeSet<(i64, i64)> = sh
            .slices
            .iter()
            .map(|s| (s.offsets[major], s.limits[major]))
            .collect();
        let per_group = tasks.div_ceil(groups.len().max(1));
        (sh.tile[major] / i64::try_from(per_group).unwrap_or(i64::MAX)).max(1)
    }

    /// The whole global array, `out_size` bytes, as one unit of all the
    /// distinct shards.
    fn one_unit(&mut self, out_size: usize) {
        self.groups = vec![
            (0..self.place.len())
                .filter(|&k| self.place[k].is_some())
                .collect(),
        ];
        self.units = vec![Unit {
            start: 0,
            end: out_size,
            group: 0,
            band: None,
        }];
    }

    /// Groups the distinct shards and cuts the global array into units.
    fn cut(&mut self, sh: &Shards) {
        let Some((major, stride)) = sh.major_rows() else {
            return self.one_unit(sh.out_size);
        };
        // The distinct shards by the rows they cover, in order of rows.
        let mut by_rows: std::collections::BTreeMap<(i64, i64), Vec<usize>> =
            std::collections::BTreeMap::new();
        for k in (0..self.place.len()).filter(|&k| self.place[k].is_some()) {
            let s = &sh.slices[k];
            by_rows
                .entry((s.offsets[major], s.limits[major]))
                .or_default()
                .push(k);
        }
        let rows: Vec<&(i64, i64)> = by_rows.keys().collect();
        if rows.windows(2).any(|w| w[0].1 > w[1].0) {
            return self.one_unit(sh.out_size);
        }
        for ((lo, hi), ks) in by_rows {
            let group = self.groups.len();
            let (start, end) = (lo as usize * stride, hi as usize * stride);
            let banded = ks
                .iter()
                .all(|&k| matches!(self.place[k], Some(Place::Staged)));
            match &self.staging {
                Staging::Bands(b) if banded => {
                    let step = b.height as usize * stride;
                    for (j, first) in (start..end).step_by(step).enumerate() {
                        self.units.push(Unit {
                            start: first,
                            end: (first + step).min(end),
                            group,
                            band: Some(j),
                        });
                    }
                }
                _ => self.units.push(Unit {
                    start,
                    end,
                    group,
                    band: None,
                }),
            }
            self.groups.push(ks);
        }
        debug_assert!(
            self.units.windows(2).all(|w| w[0].end <= w[1].start)
                && self.units.last().is_none_or(|u| u.end <= sh.out_size),
            "the units of an assembly overlap: {:?}",
            self.units
        );
    }

    /// Writes unit `u` into `dst`, its part of the global array, from
    /// `shards`; `staging` is the task's, reused from unit to unit. With
    /// `parallel`, each shard's copy is cut across the rayon pool.
    fn write(
        &self,
        sh: &Shards,
        u: &Unit,
        shards: &[&[u8]],
        dst: &mut [u8],
        staging: &mut Vec<u8>,
        parallel: bool,
    ) -> Result<()> {
        for &k in &self.groups[u.group] {
            let s = &sh.slices[k];
            match (&self.place[k], &self.staging) {
                (Some(Place::Direct(r)), _) => {
                    if let Some(plan) = &self.direct {
                        let part = &mut dst[r.start - u.start..r.end - u.start];
                        relay(plan, shards[k], part, parallel)?;
                    }
                }
                (Some(Place::Staged), Staging::Bands(b)) => {
                    if let Some(j) = u.band {
                        b.place_band(sh, shards[k], s, j, staging, dst)?;
                        continue;
                    }
                    let rows = b.rows(s, dst, u.start);
                    #[cfg(feature = "rayon")]
                    if parallel {
                        b.place_parallel(sh, shards[k], s, rows)?;
                        continue;
                    }
                    b.place(sh, shards[k], s, rows)?;
                }
                (Some(Place::Staged), Staging::Whole(untile, strides)) => {
                    if staging.len() != untile.dst_byte_size() {
                        *staging = zeroed(untile.dst_byte_size())?;
                    }
                    relay(untile, shards[k], staging, parallel)?;
                    let placed = Placed {
                        src: staging,
                        src_strides: strides,
                        offsets: &s.offsets,
                        dims: s.shape(),
                    };
                    #[cfg(feature = "rayon")]
                    if parallel {
                        sh.place_parallel(&placed, dst, u.start);
                        continue;
                    }
                    sh.place(&placed, dst, u.start);
                }
                // A staged shard always has a staging plan; replicas and
                // empty shards write nothing.
                (Some(Place::Staged), Staging::None) | (None, _) => {}
            }
        }
        Ok(())
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
    /// The bands of `sh`'s device buffers, of at most `max_rows` rows
    /// (rounded down to whole tiles, at least one), or `None` when the
    /// device layout does not cut into them.
    fn new(sh: &Shards, max_rows: i64) -> Option<Bands> {
        // The global array's rows, dense along them; the device layout's
        // most major dimension must be the same.
        let (major, stride) = sh.major_rows()?;
        let device_layout = sh.device_shape.layout()?;
        let out_layout = sh.out_shape.layout()?;
        if device_layout.minor_to_major().last().copied() != i64::try_from(major).ok() {
            return None;
        }
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
        if t <= 0 || rows <= 0 {
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
        let height = (((BAND_BYTES / row_bytes.max(1)).max(1) + t - 1) / t * t)
            .min((max_rows / t).max(1) * t);
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
            stride,
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

    /// The rows of the global array that shard `s` covers, of `dst`, the
    /// part of the global array from byte `dst_start` on.
    fn rows<'a>(&self, s: &DeviceSlice, dst: &'a mut [u8], dst_start: usize) -> &'a mut [u8] {
        let first = s.offsets[self.major] as usize * self.stride - dst_start;
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

    /// Every band of `shard` placed into `rows` (what
    /// [`rows`](Self::rows) gives), one task each.
    #[cfg(feature = "rayon")]
    fn place_parallel(
        &self,
        sh: &Shards,
        shard: &[u8],
        s: &DeviceSlice,
        rows: &mut [u8],
    ) -> Result<()> {
        use rayon::prelude::*;
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

/// `plan` run from `src` into `dst`, on the rayon pool when `parallel`
/// ([`Relayout::run_parallel`], only with the `rayon` feature).
fn relay(plan: &Relayout, src: &[u8], dst: &mut [u8], parallel: bool) -> Result<()> {
    #[cfg(feature = "rayon")]
    if parallel {
        return plan.run_parallel(src, dst);
    }
    #[cfg(not(feature = "rayon"))]
    let _ = parallel;
    plan.run(src, dst)
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
