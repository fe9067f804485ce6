//! Packing buffers into one block as XLA's heap simulator does
//! (`GlobalDecreasingSizeBestFitHeap` in
//! `xla/service/heap_simulator/heap_simulator.cc`): buffers are placed one
//! at a time, largest first (`kSpatial`) or longest-lived first
//! (`kTemporal`), each at the best-fitting free gap among the buffers
//! already placed that are live at the same time, offsets aligned; the
//! block's size is the end of the highest buffer. XLA's buffer assigner
//! runs both orders and keeps the smaller block (`ChooseBestHeapAlgorithm`).

/// A buffer to place: live from `start` to `end` (inclusive, in program
/// order) and `size` bytes.
#[derive(Clone, Copy, Debug)]
pub(super) struct Interval {
    pub(super) start: u32,
    pub(super) end: u32,
    pub(super) size: i64,
}

/// The size of the block `intervals` pack into, and each one's offset: the
/// smaller of XLA's two orders.
pub(super) fn pack(intervals: &[Interval], alignment: i64) -> (i64, Vec<i64>) {
    let spatial = pack_in(intervals, alignment, |a, b| {
        (-a.size, a.start as i64 - a.end as i64).cmp(&(-b.size, b.start as i64 - b.end as i64))
    });
    let temporal = pack_in(intervals, alignment, |a, b| {
        (a.start as i64 - a.end as i64, -a.size).cmp(&(b.start as i64 - b.end as i64, -b.size))
    });
    if temporal.0 < spatial.0 {
        temporal
    } else {
        spatial
    }
}

pub(super) fn align_up(x: i64, alignment: i64) -> i64 {
    if alignment <= 1 {
        return x;
    }
    // x >= 0: offsets and sizes.
    x.saturating_add(alignment - 1) / alignment * alignment
}

fn pack_in(
    intervals: &[Interval],
    alignment: i64,
    order: impl Fn(&Interval, &Interval) -> std::cmp::Ordering,
) -> (i64, Vec<i64>) {
    let mut sorted: Vec<u32> = (0..intervals.len() as u32)
        .filter(|&i| intervals[i as usize].size > 0)
        .collect();
    // Ties in the order keep the buffers' own order (XLA: by buffer id).
    sorted.sort_by(|&a, &b| order(&intervals[a as usize], &intervals[b as usize]).then(a.cmp(&b)));
    let mut offsets = vec![0i64; intervals.len()];
    let mut placed = Placed::new(intervals);
    let mut heap = 0i64;
    let mut busy: Vec<(i64, i64)> = Vec::new();
    for i in sorted {
        let it = intervals[i as usize];
        busy.clear();
        placed.overlapping(it.start, it.end, |j| {
            let o = offsets[j as usize];
            busy.push((o, o.saturating_add(intervals[j as usize].size)));
        });
        busy.sort_unstable();
        // The free gaps between the busy chunks: the smallest that fits,
        // else the end of the highest (XLA's best fit, lowest offset first
        // among equals).
        let mut best: Option<(i64, i64)> = None;
        let mut free_from = 0i64;
        for &(start, end) in &busy {
            let offset = align_up(free_from, alignment);
            if start > offset {
                let gap = start - offset;
                if gap >= it.size && best.is_none_or(|(size, _)| gap < size) {
                    best = Some((gap, offset));
                }
            }
            free_from = free_from.max(end);
        }
        let offset = match best {
            Some((_, offset)) => offset,
            None => align_up(free_from, alignment),
        };
        offsets[i as usize] = offset;
        heap = heap.max(offset.saturating_add(it.size));
        placed.insert(i);
    }
    (heap, offsets)
}

/// The buffers placed so far, found by the time they are live: buffers are
/// kept in buckets of program time, each in every bucket its interval
/// meets, so that a query looks only at the buckets its own interval meets.
/// A buffer that spans many buckets is kept in a list of long ones instead.
struct Placed<'a> {
    intervals: &'a [Interval],
    bucket_width: u32,
    buckets: Vec<Vec<u32>>,
    long: Vec<u32>,
    seen: Vec<u32>,
    stamp: u32,
}

impl<'a> Placed<'a> {
    /// Buckets a buffer may span before it counts as long.
    const MAX_SPAN: u32 = 8;

    fn new(intervals: &'a [Interval]) -> Self {
        let horizon = intervals.iter().map(|i| i.end).max().unwrap_or(0) + 1;
        // About as many buckets as buffers, at most 2^16.
        let count = (intervals.len() as u32).clamp(1, 1 << 16);
        let bucket_width = horizon.div_ceil(count).max(1);
        Placed {
            intervals,
            bucket_width,
            buckets: vec![Vec::new(); horizon.div_ceil(bucket_width) as usize],
            long: Vec::new(),
            seen: vec![0; intervals.len()],
            stamp: 0,
        }
    }

    fn insert(&mut self, i: u32) {
        let it = self.intervals[i as usize];
        let (a, b) = (it.start / self.bucket_width, it.end / self.bucket_width);
        if b - a >= Self::MAX_SPAN {
            self.long.push(i);
        } else {
            for bucket in a..=b {
                self.buckets[bucket as usize].push(i);
            }
        }
    }

    /// Calls `f` once for every placed buffer live at some time in
    /// `start..=end`.
    fn overlapping(&mut self, start: u32, end: u32, mut f: impl FnMut(u32)) {
        self.stamp += 1;
        let meets = |j: u32| {
            let o = self.intervals[j as usize];
            o.start <= end && start <= o.end
        };
        for &j in &self.long {
            if meets(j) {
                f(j);
            }
        }
        let (a, b) = (start / self.bucket_width, end / self.bucket_width);
        for bucket in a..=b {
            for &j in &self.buckets[bucket as usize] {
                if self.seen[j as usize] != self.stamp && meets(j) {
                    self.seen[j as usize] = self.stamp;
                    f(j);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iv(start: u32, end: u32, size: i64) -> Interval {
        Interval { start, end, size }
    }

    #[test]
    fn buffers_live_at_once_are_stacked_and_others_reuse_the_space() {
        // Two buffers live together take both sizes; a third that starts
        // after the first ends takes its place.
        let (heap, offsets) = pack(&[iv(0, 2, 100), iv(1, 3, 50), iv(3, 4, 100)], 1);
        assert_eq!(heap, 150);
        assert_eq!(offsets[0], offsets[2]);
        assert_ne!(offsets[0], offsets[1]);
    }

    #[test]
    fn offsets_are_aligned_and_the_last_buffer_is_not_padded() {
        // The 8-byte buffer at 0, the 4-byte one at the next multiple of
        // 64, and the block ends with it: so XLA:CPU's temporaries of
        // while_loop end at 65600 + 8 = 65608.
        let (heap, offsets) = pack(&[iv(0, 1, 4), iv(0, 1, 8)], 64);
        assert_eq!(heap, 68);
        assert_eq!(offsets, [64, 0]);
    }

    #[test]
    fn the_best_fitting_gap_is_taken() {
        // A long buffer at 0 and one at 200 leave a gap of 100 at 100 while
        // they live; a 60-byte buffer fits there rather than on top.
        let (heap, offsets) = pack(
            &[iv(0, 10, 100), iv(0, 10, 50), iv(2, 3, 40), iv(5, 6, 60)],
            1,
        );
        // Largest first: A at 0, D at 100, B at 160; C fits in A..B's gap
        // left at 100 while D is not live.
        assert_eq!(heap, 210);
        assert_eq!(offsets, [0, 160, 100, 100]);
    }

    #[test]
    fn long_and_short_buffers_are_found_in_time() {
        let mut intervals: Vec<Interval> = (0..1000).map(|t| iv(t, t + 1, 10)).collect();
        intervals.push(iv(0, 1000, 1000));
        let (heap, _) = pack(&intervals, 1);
        assert_eq!(heap, 1020);
    }
}
