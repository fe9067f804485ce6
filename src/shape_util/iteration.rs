//! Index iteration (XLA's `ShapeUtil::ForEachIndex*`): visiting the indices of an array in the
//! order of its layout, the most minor dimension fastest.

use std::iter::FusedIterator;
use std::sync::Mutex;

use super::{elements_in, is_zero_element_array};
use crate::error::{Error, Result};
use crate::layout_util::{ceil_of_ratio, require_layout};
use crate::model::{ArrayShape, Shape};

/// XLA's `ShapeUtil::IndexIterationSpace`: where [`for_each_index_in`]
/// starts, how far it goes and by how much it steps, per dimension.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IndexIterationSpace {
    /// The first index.
    pub index_base: Vec<i64>,
    /// How far past `index_base` each dimension goes (exclusive); 0 pins
    /// the dimension at its base.
    pub index_count: Vec<i64>,
    /// The step of each dimension.
    pub index_incr: Vec<i64>,
}

/// XLA's `ShapeUtil::ForEachState`: an index walking a box of index space
/// in layout order.
struct Walker {
    index: Vec<i64>,
    base: Vec<i64>,
    end: Vec<i64>,
    incr: Vec<i64>,
    minor_to_major: Vec<usize>,
}

impl Walker {
    fn new(shape: &ArrayShape, base: &[i64], count: &[i64], incr: &[i64]) -> Result<Walker> {
        let layout = require_layout(shape)?;
        let rank = shape.rank();
        if base.len() != rank || count.len() != rank || incr.len() != rank {
            return Err(Error::invalid_argument(format!(
                "ForEachIndex: base, count and incr must have {rank} entries for {shape}, got {}, {} and {}",
                base.len(),
                count.len(),
                incr.len()
            )));
        }
        Ok(Walker {
            index: base.to_vec(),
            base: base.to_vec(),
            end: base
                .iter()
                .zip(count)
                .map(|(&b, &c)| b.saturating_add(c))
                .collect(),
            incr: incr.to_vec(),
            minor_to_major: layout
                .minor_to_major()
                .iter()
                .map(|&d| d as usize)
                .collect(),
        })
    }

    /// XLA's `IncrementDim`: steps the index; false once it has wrapped
    /// past the most major dimension.
    #[inline]
    fn increment(&mut self) -> bool {
        for &d in &self.minor_to_major {
            self.index[d] = self.index[d].saturating_add(self.incr[d]);
            if self.index[d] < self.end[d] {
                return true;
            }
            self.index[d] = self.base[d];
        }
        false
    }
}

/// XLA's `ShapeUtil::ForEachIndex(shape, visitor)`: calls `visitor` with
/// every index of the array, in the order of its layout (the most minor
/// dimension fastest), until it returns `false`. A scalar has one index
/// (`[]`); an array with a zero-sized dimension has none.
///
/// ```
/// use xla_shape::{PrimitiveType as T, shape_util};
/// let s = shape_util::make_shape_with_dense_layout(T::F32, &[2, 2], &[0, 1]);
/// let mut seen = Vec::new();
/// shape_util::for_each_index(&s, |i| {
///     seen.push(i.to_vec());
///     true
/// })?;
/// assert_eq!(seen, [[0, 0], [1, 0], [0, 1], [1, 1]]);
/// # Ok::<(), xla_shape::Error>(())
/// ```
///
/// # Errors
///
/// The array has no layout (XLA `CHECK`-fails).
#[doc(alias = "ShapeUtil::ForEachIndex")]
#[doc(alias = "ShapeUtil::ForEachIndexNoStatus")]
pub fn for_each_index(shape: &ArrayShape, visitor: impl FnMut(&[i64]) -> bool) -> Result<()> {
    let (base, count, incr) = whole(shape);
    for_each_index_in(shape, &base, &count, &incr, visitor)
}

fn whole(shape: &ArrayShape) -> (Vec<i64>, Vec<i64>, Vec<i64>) {
    let rank = shape.rank();
    (vec![0; rank], shape.dimensions().to_vec(), vec![1; rank])
}

/// XLA's `ShapeUtil::ForEachIndex(shape, base, count, incr, visitor)`:
/// visits the indices `base + k * incr` below `base + count`, in layout
/// order. As upstream, a dimension with `count == 0` stays at its base,
/// a dimension with `incr == 0` (and `count > 0`) never advances (the walk
/// ends only when `visitor` returns `false`), and an array with a
/// zero-sized dimension has no index whatever the counts.
///
/// ```
/// use xla_shape::{PrimitiveType as T, shape_util};
/// // xla/shape_util_test.cc, the `ForEachIndexParallel` case with a base
/// let s = shape_util::make_shape(T::F32, &[10, 10]);
/// let mut seen = Vec::new();
/// shape_util::for_each_index_in(&s, &[2, 3], &[3, 1], &[2, 1], |i| {
///     seen.push(i.to_vec());
///     true
/// })?;
/// assert_eq!(seen, [[2, 3], [4, 3]]);
/// # Ok::<(), xla_shape::Error>(())
/// ```
///
/// # Errors
///
/// The array has no layout, or `base`, `count`, `incr` do not have one
/// entry per dimension (XLA `CHECK`-fails).
#[doc(alias = "ShapeUtil::ForEachIndex")]
#[doc(alias = "ShapeUtil::ForEachIndexNoStatus")]
pub fn for_each_index_in(
    shape: &ArrayShape,
    base: &[i64],
    count: &[i64],
    incr: &[i64],
    mut visitor: impl FnMut(&[i64]) -> bool,
) -> Result<()> {
    for_each_index_in_with_status::<Error>(shape, base, count, incr, |i| Ok(visitor(i)))
}

/// XLA's `ShapeUtil::ForEachIndexWithStatus(shape, visitor)`: as
/// [`for_each_index`], stopping at the first error the visitor returns.
///
/// # Errors
///
/// The visitor's first error, or as [`for_each_index`] (converted with
/// `E: From<Error>`).
///
/// ```
/// use xla_shape::{Error, PrimitiveType as T, shape_util};
/// // Row-major: the last dimension (the most minor) moves fastest.
/// let a = shape_util::make_shape(T::F32, &[2, 2]);
/// let mut seen = Vec::new();
/// shape_util::for_each_index_with_status(&a, |i| -> Result<bool, Error> {
///     seen.push(i.to_vec());
///     Ok(true)
/// })?;
/// assert_eq!(seen, [[0, 0], [0, 1], [1, 0], [1, 1]]);
/// # Ok::<(), Error>(())
/// ```
#[doc(alias = "ShapeUtil::ForEachIndexWithStatus")]
pub fn for_each_index_with_status<E: From<Error>>(
    shape: &ArrayShape,
    visitor: impl FnMut(&[i64]) -> std::result::Result<bool, E>,
) -> std::result::Result<(), E> {
    let (base, count, incr) = whole(shape);
    for_each_index_in_with_status(shape, &base, &count, &incr, visitor)
}

/// XLA's `ShapeUtil::ForEachIndexWithStatus(shape, base, count, incr,
/// visitor)`.
///
/// # Errors
///
/// The visitor's first error, or as [`for_each_index_in`].
#[doc(alias = "ShapeUtil::ForEachIndexWithStatus")]
pub fn for_each_index_in_with_status<E: From<Error>>(
    shape: &ArrayShape,
    base: &[i64],
    count: &[i64],
    incr: &[i64],
    mut visitor: impl FnMut(&[i64]) -> std::result::Result<bool, E>,
) -> std::result::Result<(), E> {
    let mut w = Walker::new(shape, base, count, incr)?;
    if shape.dimensions().contains(&0) {
        return Ok(());
    }
    loop {
        if !visitor(&w.index)? || !w.increment() {
            return Ok(());
        }
    }
}

/// XLA's `ShapeUtil::ForEachIndexWithStatus(shape, iteration_space,
/// visitor)`.
///
/// # Errors
///
/// As [`for_each_index_in_with_status`].
#[doc(alias = "ShapeUtil::ForEachIndexWithStatus")]
pub fn for_each_index_in_space_with_status<E: From<Error>>(
    shape: &ArrayShape,
    space: &IndexIterationSpace,
    visitor: impl FnMut(&[i64]) -> std::result::Result<bool, E>,
) -> std::result::Result<(), E> {
    for_each_index_in_with_status(
        shape,
        &space.index_base,
        &space.index_count,
        &space.index_incr,
        visitor,
    )
}

/// XLA's `ShapeUtil::GetForEachIndexParallelThreadCount`: how many threads
/// the parallel iteration uses at most (the available parallelism).
#[doc(alias = "ShapeUtil::GetForEachIndexParallelThreadCount")]
pub fn get_for_each_index_parallel_thread_count() -> i32 {
    std::thread::available_parallelism().map_or(1, |n| i32::try_from(n.get()).unwrap_or(i32::MAX))
}

/// XLA's `ShapeUtil::ForEachIndexParallel(shape, visitor)`: the indices of
/// [`for_each_index`], split among threads, in no particular order. The
/// visitor also gets the number of the thread calling it (`0..`
/// [`get_for_each_index_parallel_thread_count`]).
///
/// As upstream, the visitor's `false` stops nothing once the work is split;
/// it only stops the walk where everything runs on the calling thread
/// (a single element, a zero `count` or `incr`).
///
/// ```
/// use std::sync::atomic::{AtomicI64, Ordering};
/// use xla_shape::{PrimitiveType as T, shape_util};
/// let s = shape_util::make_shape(T::F32, &[10, 10]);
/// let sum = AtomicI64::new(0);
/// shape_util::for_each_index_parallel(&s, |i, _thread| {
///     sum.fetch_add(i[0] * 10 + i[1], Ordering::Relaxed);
///     true
/// })?;
/// assert_eq!(sum.into_inner(), (0..100).sum::<i64>());
/// # Ok::<(), xla_shape::Error>(())
/// ```
///
/// # Errors
///
/// As [`for_each_index`].
///
/// ```
/// use std::sync::atomic::{AtomicI64, Ordering};
/// use xla_shape::{PrimitiveType as T, shape_util};
/// let a = shape_util::make_shape(T::F32, &[10, 10]);
/// let sum = AtomicI64::new(0);
/// shape_util::for_each_index_parallel(&a, |i, _thread| {
///     sum.fetch_add(i[0] * 10 + i[1], Ordering::Relaxed);
///     true // keep going
/// })?;
/// // Every linear position 0..100 once: 99 * 100 / 2.
/// assert_eq!(sum.into_inner(), 4950);
/// # Ok::<(), xla_shape::Error>(())
/// ```
#[doc(alias = "ShapeUtil::ForEachIndexParallel")]
pub fn for_each_index_parallel(
    shape: &ArrayShape,
    visitor: impl Fn(&[i64], i32) -> bool + Sync,
) -> Result<()> {
    let (base, count, incr) = whole(shape);
    for_each_index_parallel_in(shape, &base, &count, &incr, visitor)
}

/// XLA's `ShapeUtil::ForEachIndexParallel(shape, base, count, incr,
/// visitor)`.
///
/// # Errors
///
/// As [`for_each_index_in`].
#[doc(alias = "ShapeUtil::ForEachIndexParallel")]
pub fn for_each_index_parallel_in(
    shape: &ArrayShape,
    base: &[i64],
    count: &[i64],
    incr: &[i64],
    visitor: impl Fn(&[i64], i32) -> bool + Sync,
) -> Result<()> {
    for_each_index_parallel_in_with_status::<Error>(shape, base, count, incr, |i, t| {
        Ok(visitor(i, t))
    })
}

/// XLA's `ShapeUtil::ForEachIndexParallelWithStatus(shape, visitor)`.
///
/// # Errors
///
/// As [`for_each_index_parallel_in_with_status`].
#[doc(alias = "ShapeUtil::ForEachIndexParallelWithStatus")]
pub fn for_each_index_parallel_with_status<E: From<Error> + Send>(
    shape: &ArrayShape,
    visitor: impl Fn(&[i64], i32) -> std::result::Result<bool, E> + Sync,
) -> std::result::Result<(), E> {
    let (base, count, incr) = whole(shape);
    for_each_index_parallel_in_with_status(shape, &base, &count, &incr, visitor)
}

/// XLA's `ShapeUtil::ForEachIndexParallelWithStatus(shape, base, count,
/// incr, visitor)`: as [`for_each_index_parallel_in`]. As upstream, once
/// the work is split a visitor error does not stop the other indices from
/// being visited; the first error is returned.
///
/// # Errors
///
/// The first error a visitor returned, or as [`for_each_index_in`].
#[doc(alias = "ShapeUtil::ForEachIndexParallelWithStatus")]
pub fn for_each_index_parallel_in_with_status<E: From<Error> + Send>(
    shape: &ArrayShape,
    base: &[i64],
    count: &[i64],
    incr: &[i64],
    visitor: impl Fn(&[i64], i32) -> std::result::Result<bool, E> + Sync,
) -> std::result::Result<(), E> {
    // Checks the arguments.
    Walker::new(shape, base, count, incr)?;
    if is_zero_element_array(&Shape::Array(shape.clone())) {
        return Ok(());
    }
    let inline = || for_each_index_in_with_status(shape, base, count, incr, |i| visitor(i, 0));
    if count.contains(&0) || incr.contains(&0) || elements_in(shape).is_ok_and(|n| n == 1) {
        return inline();
    }
    let threads = get_for_each_index_parallel_thread_count().max(1) as i64;
    // Split the most major dimension that has more than one step of work.
    let layout = require_layout(shape)?;
    let split = layout.minor_to_major().iter().rev().find_map(|&d| {
        let d = d as usize;
        let work = ceil_of_ratio(count[d], incr[d])?;
        (work > 1).then_some((d, work))
    });
    let Some((dim, work)) = split else {
        return inline();
    };
    let parts = threads.min(work);
    if parts <= 1 {
        return inline();
    }
    let per_part = ceil_of_ratio(work, parts).unwrap_or(work);
    let first_error: Mutex<Option<E>> = Mutex::new(None);
    std::thread::scope(|scope| {
        for part in 0..parts {
            let start = part * per_part;
            if start >= work {
                break;
            }
            let (visitor, first_error) = (&visitor, &first_error);
            let mut part_base = base.to_vec();
            let mut part_count = count.to_vec();
            part_base[dim] = base[dim].saturating_add(start.saturating_mul(incr[dim]));
            part_count[dim] = count[dim]
                .saturating_sub(start.saturating_mul(incr[dim]))
                .min(per_part.saturating_mul(incr[dim]));
            scope.spawn(move || {
                let Ok(mut w) = Walker::new(shape, &part_base, &part_count, incr) else {
                    return;
                };
                loop {
                    if let Err(e) = visitor(&w.index, part as i32) {
                        let mut slot = first_error.lock().unwrap_or_else(|p| p.into_inner());
                        if slot.is_none() {
                            *slot = Some(e);
                        }
                    }
                    if !w.increment() {
                        return;
                    }
                }
            });
        }
    });
    match first_error.into_inner().unwrap_or_else(|p| p.into_inner()) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// The indices of an array of rank `N`, in layout order (the most minor
/// dimension fastest), as `[i64; N]` values: the iterator form of
/// [`for_each_index`]. Made by [`indices`].
///
/// The indices come in runs along the most minor dimension. Within a run a
/// step adds `step` (1 at the minor dimension, 0 elsewhere) to the whole
/// index. Neither the step nor the carry at the end of a run touches an
/// entry whose position is known only at run time, so the compiler can
/// keep the whole iterator in registers.
#[derive(Clone, Debug)]
pub struct Indices<const N: usize> {
    /// The next index, while `run > 0`; after the last index of a run,
    /// the index one past it along the minor dimension.
    current: [i64; N],
    /// 1 at the minor dimension, 0 elsewhere.
    step: [i64; N],
    /// What takes the index one past the end of a run to the start of the
    /// next one when only the next dimension moves: minus the run length
    /// at the minor dimension, 1 at the next one.
    wrap: [i64; N],
    /// The position of each dimension in `minor_to_major`.
    level: [usize; N],
    dims: [i64; N],
    /// How many indices are left in the current run.
    run: usize,
    /// How many indices come after the current run.
    after: usize,
    /// The length of a full run: the size of the minor dimension.
    run_len: usize,
}

/// Every index of an array of rank `N` in the order of its layout, the
/// most minor dimension fastest, as an iterator of `[i64; N]` (no
/// allocation per index). The rank is usually inferred from a pattern.
///
/// ```
/// use xla_shape::{PrimitiveType as T, shape_util};
/// let s = shape_util::make_shape_with_dense_layout(T::F32, &[2, 3], &[0, 1]);
/// let order: Vec<[i64; 2]> = shape_util::indices(&s)?.collect();
/// assert_eq!(order, [[0, 0], [1, 0], [0, 1], [1, 1], [0, 2], [1, 2]]);
/// for [i, j] in shape_util::indices(&s)? {
///     assert!(i < 2 && j < 3);
/// }
/// # Ok::<(), xla_shape::Error>(())
/// ```
///
/// # Errors
///
/// The array has no layout, its rank is not `N`, it has an unbounded
/// dimension, or more elements than `usize` counts.
#[inline]
pub fn indices<const N: usize>(shape: &ArrayShape) -> Result<Indices<N>> {
    let layout = require_layout(shape)?;
    if shape.rank() != N {
        return Err(Error::invalid_argument(format!(
            "indices::<{N}>: {shape} has rank {}",
            shape.rank()
        )));
    }
    let total = usize::try_from(elements_in(shape)?)
        .map_err(|_| Error::overflow(format!("{shape} has more elements than usize counts")))?;
    let mut dims = [0i64; N];
    dims.copy_from_slice(shape.dimensions());
    let mut level = [0usize; N];
    for (l, &d) in layout.minor_to_major().iter().enumerate() {
        if let Some(slot) = usize::try_from(d).ok().and_then(|d| level.get_mut(d)) {
            *slot = l;
        }
    }
    let step = std::array::from_fn(|k| i64::from(level[k] == 0));
    // A rank-0 array is one run of one index.
    let run_len = match layout.minor_to_major().first() {
        None => 1,
        // At most `total` when `total > 0`; unused when `total == 0`.
        Some(&minor) => shape
            .dimensions()
            .get(minor as usize)
            .and_then(|&n| usize::try_from(n).ok())
            .unwrap_or(0),
    };
    let run = run_len.min(total);
    let span = i64::try_from(run_len).unwrap_or(i64::MAX);
    let wrap = std::array::from_fn(|k| match level[k] {
        0 => -span,
        1 => 1,
        _ => 0,
    });
    Ok(Indices {
        current: [0; N],
        step,
        wrap,
        level,
        dims,
        run,
        after: total - run,
        run_len,
    })
}

/// Marks the path that calls it as rarely taken.
#[cold]
#[inline(always)]
fn cold() {}

impl<const N: usize> Indices<N> {
    /// Starts the next run; `false` when there is none.
    ///
    /// `current` is one past the end of a run. Adding `wrap` puts its minor
    /// entry back to 0 and steps the next dimension; only that dimension
    /// can then have run out, and only then (once every run of that
    /// dimension) does the carry go further. Every step is an operation on
    /// all entries at once: no entry is picked by a position known only at
    /// run time.
    #[inline]
    fn next_run(&mut self) -> bool {
        if self.after == 0 {
            return false;
        }
        let mut current = add(self.current, &self.wrap);
        if past_end(&current, &self.dims) {
            cold();
            for l in 2..N {
                let entries = current.iter_mut().zip(&self.dims).zip(&self.level);
                for ((c, &d), &level) in entries {
                    *c = if *c >= d {
                        0
                    } else {
                        c.wrapping_add(i64::from(level == l))
                    };
                }
                if !past_end(&current, &self.dims) {
                    break;
                }
            }
        }
        self.current = current;
        self.run = self.run_len.min(self.after);
        self.after -= self.run;
        true
    }
}

/// Whether an entry of `index` is at or past its dimension's size.
#[inline(always)]
fn past_end<const N: usize>(index: &[i64; N], dims: &[i64; N]) -> bool {
    index
        .iter()
        .zip(dims)
        .fold(false, |past, (i, d)| past | (i >= d))
}

/// `index + step`, element by element.
#[inline(always)]
fn add<const N: usize>(mut index: [i64; N], step: &[i64; N]) -> [i64; N] {
    // No overflow: no entry goes past its dimension's size.
    for (i, s) in index.iter_mut().zip(step) {
        *i = i.wrapping_add(*s);
    }
    index
}

impl<const N: usize> Iterator for Indices<N> {
    type Item = [i64; N];

    #[inline]
    fn next(&mut self) -> Option<[i64; N]> {
        if self.run == 0 {
            cold();
            if !self.next_run() {
                return None;
            }
        }
        self.run -= 1;
        let index = self.current;
        self.current = add(index, &self.step);
        Some(index)
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.run + self.after;
        (n, Some(n))
    }

    #[inline]
    fn count(self) -> usize {
        self.run + self.after
    }

    /// Internal iteration (`for_each`, `fold`, `sum`, ...): each run is a
    /// counted loop.
    #[inline]
    fn fold<B, F>(mut self, init: B, mut f: F) -> B
    where
        F: FnMut(B, [i64; N]) -> B,
    {
        let mut acc = init;
        loop {
            let mut index = self.current;
            for _ in 0..self.run {
                acc = f(acc, index);
                index = add(index, &self.step);
            }
            self.current = index;
            self.run = 0;
            if !self.next_run() {
                return acc;
            }
        }
    }
}

impl<const N: usize> ExactSizeIterator for Indices<N> {}

impl<const N: usize> FusedIterator for Indices<N> {}
