//! Transposes with a short side of at most [`NARROW`] positions (a few
//! planes interleaved or split apart: NCHW <-> NHWC with 3 channels, XLA's
//! `(2,1)` and `(4,1)` sub-tiles), copied position by position along the
//! long side.

use std::marker::PhantomData;

use super::cpu::{Isa, Kernel};
use super::transposer::Tr;

/// The most positions on the short side of a transpose copied by
/// [`Tr::narrow`].
pub(super) const NARROW: usize = 8;

impl<const E: usize> Tr<'_, E> {
    /// The whole transpose when one side has at most [`NARROW`]
    /// positions: for each position of the long side, the few elements
    /// of the short side, so that the long side is read (or written) in
    /// order and each of the few rows on the other side too. Groups of 4
    /// bytes (pairs of 2-byte elements, quadruples of bytes: XLA's
    /// `(2,1)` and `(4,1)` sub-tiles) and groups of three 4-byte
    /// elements (NCHW <-> NHWC f32 with 3 channels) are split into their
    /// rows or merged from them with SIMD, the rest element by element.
    /// `stream`: the destination may be written with non-temporal
    /// stores where whole lines can be. Kept out of the caller: inlined
    /// into the one function that holds every other loop of a
    /// transpose, its loops lost a fifth of their speed (3 planes
    /// interleaved at 16 MiB, 6.3-7.7 GiB/s against 8.5-9.6) when that
    /// function grew.
    ///
    /// One call copies the transpose at every position of its batch
    /// ([`Tr::to`]): the transposes of XLA's sub-tiles are small (a row
    /// of a `T(32,128)(4,1)` u8 tile, 512 bytes; of a `T(8,128)(2,1)`
    /// one, 256), and a call and a walk's set-up for each took 40% of
    /// the time of untiling the first (perf, 16 MiB). (With the choice
    /// of `K` inside the loop over the batch, 5-23% more instructions.)
    #[inline(never)]
    pub(super) fn narrow(&mut self, kernel: Kernel, stream: bool) {
        match self.i.n.min(self.j.n) {
            2 => self.narrow_k::<2>(kernel, stream),
            3 => self.narrow_k::<3>(kernel, false),
            4 => self.narrow_k::<4>(kernel, stream),
            _ => self.narrow_k::<0>(kernel, false),
        }
    }

    /// [`narrow`](Self::narrow) with `K` positions on the short side
    /// (`0`: any number): the steps of a [`Walk`] along the long side,
    /// each of which copies what it can of the positions left (the first
    /// four only for the shapes and instruction sets they are for), the
    /// last element by element; at every position of the batch.
    #[inline(always)]
    fn narrow_k<const K: usize>(&mut self, kernel: Kernel, stream: bool) {
        let [xs, ys] = self.batch.map(|a| a.n);
        for x in 0..xs {
            for y in 0..ys {
                self.to((x, y));
                let mut walk = Walk::<E, K>::new(self, stream);
                walk.split_lines(kernel);
                walk.split_pairs(kernel);
                walk.split_quads(kernel);
                walk.split_groups();
                walk.merge_rows(stream);
                walk.triples();
                walk.one_by_one();
            }
        }
    }
}

/// A narrow transpose of `E`-byte elements with `K` positions on its
/// short side (`0`: any number), walked along its long side: the
/// buffers, the strides along the long side (`ls`, `ld`) and the short
/// one (`ms`, `md`), and where the walk is: `done` positions of `long`
/// copied, the next at `so` in the source and `dof` in the destination.
///
/// Made only from a [`Tr`], whose buffers it borrows and whose every
/// byte `Tr::new` checked to lie in them, from its first position; its
/// steps advance it only over the positions they copy, so that every
/// offset they compute is of an element of the transpose.
struct Walk<'a, const E: usize, const K: usize> {
    ps: *const u8,
    pd: *mut u8,
    /// The transpose is the long side's rows (`i` the short side).
    short_i: bool,
    long: usize,
    /// Positions on the short side.
    k: usize,
    ls: isize,
    ld: isize,
    ms: isize,
    md: isize,
    /// The destination rows are streamed: asked for, and every one
    /// starts on a line.
    nt: bool,
    /// How far past a line every row starts (0, 16, 32 or 48 bytes), if
    /// the rows may be streamed and all start as far past one.
    shift: Option<usize>,
    so: isize,
    dof: isize,
    done: usize,
    buffers: PhantomData<&'a mut [u8]>,
}

impl<'a, const E: usize, const K: usize> Walk<'a, E, K> {
    /// The walk over `tr` from its first position; `stream`: the
    /// destination may be written with non-temporal stores.
    #[inline(always)]
    fn new(tr: &'a mut Tr<'_, E>, stream: bool) -> Self {
        let (i, j) = (tr.i, tr.j);
        let short_i = i.n <= j.n;
        let (long, k) = if short_i { (j.n, i.n) } else { (i.n, j.n) };
        // Strides along the long side and the short side.
        let (ls, ld, ms, md) = if short_i {
            (j.s, j.d, i.s, i.d)
        } else {
            (i.s, i.d, j.s, j.d)
        };
        let (ps, pd) = (tr.src.as_ptr(), tr.dst.as_mut_ptr());
        // The splits stream their rows when every row starts on a line.
        let first = (pd as usize).wrapping_add(tr.d as usize);
        Walk {
            ps,
            pd,
            short_i,
            long,
            k: if K == 0 { k } else { K },
            ls,
            ld,
            ms,
            md,
            nt: stream && first.is_multiple_of(64) && md % 64 == 0,
            shift: (stream && first.is_multiple_of(16) && md % 64 == 0).then_some(first % 64),
            so: tr.s,
            dof: tr.d,
            done: 0,
            buffers: PhantomData,
        }
    }

    /// The offsets of the `K` rows of the short side from `base`,
    /// `stride` bytes apart, the last repeated up to four (the kernels
    /// take four; they use the first `K`).
    #[inline(always)]
    fn rows(base: isize, stride: isize) -> [isize; 4] {
        [0, 1, 2, 3].map(|m: isize| base + m.min(K as isize - 1) * stride)
    }

    /// Moves past `n` positions of the long side.
    #[inline(always)]
    fn advance(&mut self, n: usize) {
        self.so += n as isize * self.ls;
        self.dof += n as isize * self.ld;
        self.done += n;
    }

    /// Groups of 2 or 4 elements split into their rows with AVX-512
    /// ([`split_lines`](super::avx512::split_lines)), `64 / E` groups
    /// at a time, where the rows are streamed and all start as far past a
    /// line (a multiple of 16 bytes): every whole line of the rows is
    /// written with one non-temporal store (the steps below write a line
    /// in two or four pieces, with ordinary stores where the rows do not
    /// start on a line). CPU time a pass at 16 MiB / 256 MiB,
    /// the buffers from `malloc` (rows 16 bytes past a line), best of
    /// three or four runs, before and after: f64 `T(8,128)(2,1)` untiling
    /// 1.48 / 28.0 ms -> 0.62 / 17.3, f32 `T(16,128)(2,1)` 2.11 / 31.5 ->
    /// 0.78 / 16.7, f32 `T(32,128)(4,1)` 1.85 / 34.3 -> 0.86 / 17.7,
    /// bf16 `T(8,128)(2,1)` 1.66 / 37.3 -> 1.03 / 27.3, bf16
    /// `T(32,128)(4,1)` 2.26 / 40.2 -> 1.20 / 18.0.
    #[inline(always)]
    fn split_lines(&mut self, kernel: Kernel) {
        let Some(shift) = self.shift else {
            return;
        };
        // Pairs of 1- and 2-byte elements in rows that start on a line:
        // see `split_pairs`.
        let pairs_on_lines = K == 2 && E <= 2 && shift == 0;
        if !((K == 2 || K == 4)
            && !pairs_on_lines
            && kernel.0 == Isa::Avx512
            && !self.short_i
            && self.ls == (K * E) as isize)
        {
            return;
        }
        let n = (self.long - self.done) / (64 / E);
        let (so, dof) = (self.so, self.dof);
        // SAFETY: the `64 / E * n` groups at `so` (`64 * K * n` bytes,
        // `ls == K * E`) and the `64 / E * n` elements at `dof + m * md`
        // of each of the `K` rows are elements `done .. done + 64 / E *
        // n` of the transpose, checked by `Tr::new` to lie in the buffers
        // (the rows, elements of distinct positions, do not overlap);
        // every row starts `shift` bytes past a 64-byte line (`Walk::new`
        // checked it for the first position, `done`, as this is the
        // walk's first step; `md` is a multiple of 64); `K` is 2 or 4 and
        // `E` 1, 2, 4 or 8; `Kernel(Avx512)` is only made where the CPU
        // has AVX-512 F and BW.
        unsafe {
            let p = Self::rows(dof, self.md).map(|o| self.pd.offset(o));
            let pa = self.ps.offset(so);
            match shift {
                0 => super::avx512::split_lines::<E, K, 0>(pa, p, n),
                16 => super::avx512::split_lines::<E, K, 16>(pa, p, n),
                32 => super::avx512::split_lines::<E, K, 32>(pa, p, n),
                _ => super::avx512::split_lines::<E, K, 48>(pa, p, n),
            }
        }
        self.advance(64 / E * n);
    }

    /// Pairs of 1- and 2-byte elements split into two rows (u8 and bf16
    /// in `(2,1)` sub-tiles): `32 / E` pairs at a time with AVX2 (for
    /// bf16 6-15% faster than SSE2's 8), then for 2-byte elements 8 at a
    /// time (1-byte ones: [`split_groups`](Self::split_groups)). Streamed
    /// when both destination rows start on a line: each row is then
    /// written in order, 32 or 16 bytes at a time, two lines open at
    /// once. (There, AVX-512 splits of 32 bf16 pairs into whole lines
    /// measured no faster than SSE2 at 16 MiB and slower at 256 MiB:
    /// 4.6-4.8 against 5.0-5.3 GiB/s; rows that start past a line go
    /// through [`split_lines`](Self::split_lines), unstreamed here.)
    #[inline(always)]
    fn split_pairs(&mut self, kernel: Kernel) {
        if !((E == 1 || E == 2) && K == 2 && !self.short_i && self.ls == (2 * E) as isize) {
            return;
        }
        let (ps, pd, md, nt) = (self.ps, self.pd, self.md, self.nt);
        if matches!(kernel.0, Isa::Avx2 | Isa::Avx512) {
            let per = 32 / E;
            let n = (self.long - self.done) / per;
            let (so, dof) = (self.so, self.dof);
            // SAFETY: the `per * n` pairs at `so` (`64 * n` bytes, `ls
            // == 2 * E`) and the `per * n` elements at `dof` and `dof +
            // md` of each row are elements `done .. done + per * n` of
            // the transpose, checked by `Tr::new` to lie in the buffers;
            // with `nt` (then `split_lines` copied nothing: `done` is 0),
            // both destination rows start on a 64-byte line;
            // `Kernel(Avx2)` and `Kernel(Avx512)` are only made where the
            // CPU has AVX2; `E` is 1 or 2.
            unsafe {
                let (p0, p1) = (pd.offset(dof), pd.offset(dof + md));
                if nt {
                    super::avx::split_pairs::<E, true>(ps.offset(so), p0, p1, n);
                } else {
                    super::avx::split_pairs::<E, false>(ps.offset(so), p0, p1, n);
                }
            }
            self.advance(per * n);
        }
        if E != 2 {
            return;
        }
        for _ in self.done / 8..self.long / 8 {
            let (so, dof) = (self.so, self.dof);
            // SAFETY: the 8 pairs at `so` (32 bytes, `ls == 4`) and
            // the 8 elements at `dof` and `dof + md` of each row are
            // elements `ii .. ii + 8` of the transpose, checked by
            // `Tr::new` to lie in the buffers; with `nt`, both
            // destination rows start `16k` bytes after a multiple of 64.
            unsafe {
                let (p0, p1) = (pd.offset(dof), pd.offset(dof + md));
                if nt {
                    super::sse::split_pairs16::<true>(ps.offset(so), p0, p1);
                } else {
                    super::sse::split_pairs16::<false>(ps.offset(so), p0, p1);
                }
            }
            self.advance(8);
        }
    }

    /// Groups of four 1-byte elements split into four rows (8-bit types
    /// in `(4,1)` sub-tiles) 16 at a time with AVX2, what
    /// [`split_lines`](Self::split_lines) left (with AVX-512, whole
    /// lines: at 256 MiB, 16.5-17.8 GiB/s against 7.5-8.6 with AVX2, best
    /// of three runs); streamed when the rows start on a line. (With
    /// AVX2, rows 16 bytes past a line, their whole lines streamed and
    /// the rest written with ordinary stores, ran slower than all with
    /// ordinary stores: 5.3-5.5 against 5.8-6.1.)
    #[inline(always)]
    fn split_quads(&mut self, kernel: Kernel) {
        if !(E == 1
            && K == 4
            && !self.short_i
            && self.ls == 4
            && matches!(kernel.0, Isa::Avx2 | Isa::Avx512))
        {
            return;
        }
        let (ps, pd, md, nt) = (self.ps, self.pd, self.md, self.nt);
        let n = (self.long - self.done) / 16;
        let (so, dof) = (self.so, self.dof);
        // SAFETY: the `16 * n` groups at `so` (`64 * n` bytes, `ls ==
        // 4`) and the `16 * n` elements at `dof + m * md` of each of
        // the four rows are elements `done .. done + 16 * n` of the
        // transpose, checked by `Tr::new` to lie in the buffers (the
        // rows, elements of distinct columns, do not overlap); with
        // `nt`, every row starts on a 64-byte line; `Kernel(Avx2)`
        // and `Kernel(Avx512)` are only made where the CPU has AVX2.
        unsafe {
            let p = Self::rows(dof, md).map(|o| pd.offset(o));
            if nt {
                super::avx::split_quads::<true>(ps.offset(so), p, n);
            } else {
                super::avx::split_quads::<false>(ps.offset(so), p, n);
            }
        }
        self.advance(16 * n);
    }

    /// Groups of `K` (2 or 4) elements of any of the sizes split into
    /// their rows (untiling XLA's `(2,1)` and `(4,1)` sub-tiles of
    /// elements whose groups are not 4 bytes: u8 pairs, f32 and f64 pairs
    /// and quadruples, bf16 quadruples), 16 bytes of each row at a time
    /// with SSE2 ([`split_groups`](super::sse::split_groups)); streamed
    /// when every row starts on a line. What the wider splits above
    /// copy, they leave fewer than 16 bytes of.
    #[inline(always)]
    fn split_groups(&mut self) {
        if !((K == 2 || K == 4) && !self.short_i && self.ls == (K * E) as isize) {
            return;
        }
        // With `nt`, every row starts on a line and `done * E` is a
        // multiple of 16 (every step before this one advances by 16
        // bytes of each row or a multiple of it).
        self.groups_and_rows::<true>(self.nt);
    }

    /// The other way: `K` (2 or 4) rows merged into groups, the groups
    /// one run in the destination (tiling into XLA's `(2,1)` or `(4,1)`
    /// sub-tiles), 16 bytes of each row at a time with SSE2
    /// ([`merge_rows`](super::sse::merge_rows)); streamed where `stream`
    /// and the run starts on 16 bytes (the runs of a tile's rows follow
    /// each other, so the lines they share are completed at once). Groups
    /// of 4 bytes (bf16 pairs, u8 quadruples) were merged apart with
    /// ordinary stores; streamed, three interleaved runs, ratios to a
    /// memory copy at 16 and 256 MiB: bf16 `T(16,128)(2,1)` tiling
    /// 0.64/0.70 -> 0.99/0.97, `T(8,128)(2,1)` 0.67/0.77 -> 0.99/0.92,
    /// u8 `T(32,128)(4,1)` 0.37/0.49 -> 0.52/0.56.
    #[inline(always)]
    fn merge_rows(&mut self, stream: bool) {
        if !((K == 2 || K == 4) && self.short_i && self.ld == (K * E) as isize) {
            return;
        }
        // With `nt`, `dof` stays 16-byte aligned: each step advances it
        // by `16 * K` bytes.
        let run = (self.pd as usize).wrapping_add(self.dof as usize);
        self.groups_and_rows::<false>(stream && run.is_multiple_of(16));
    }

    /// The loop of [`split_groups`](Self::split_groups) (`SPLIT`) and
    /// [`merge_rows`](Self::merge_rows): from the position `done` to the
    /// last whole step, `16 / E` positions of the long side at a time,
    /// the groups of `K` one run of `16 * K` bytes (in the source for a
    /// split, in the destination for a merge) and the `K` rows on the
    /// other side 16 bytes each; the destination written with
    /// non-temporal stores if `nt` (each streamed store then aligned, as
    /// the caller established).
    #[inline(always)]
    fn groups_and_rows<const SPLIT: bool>(&mut self, nt: bool) {
        let (ps, pd, ms, md) = (self.ps, self.pd, self.ms, self.md);
        let per = 16 / E;
        for _ in 0..(self.long - self.done) / per {
            let (so, dof) = (self.so, self.dof);
            // SAFETY: the `per` groups of `K` (`16 * K` bytes, the long
            // side's stride `K * E`) at `so` for a split, at `dof` for a
            // merge, and the `per` elements of each of the `K` rows on
            // the other side (`m * md` or `m * ms` bytes on, `m < K`; the
            // long side's stride `E`), are elements `done .. done + per` of the transpose, checked by
            // `Tr::new` to lie in the buffers (the rows, elements of
            // distinct positions, do not overlap); with `nt`, the
            // destination's stores aligned as the caller vouches.
            unsafe {
                if SPLIT {
                    let (pa, p) = (ps.offset(so), Self::rows(dof, md).map(|o| pd.offset(o)));
                    if nt {
                        super::sse::split_groups::<E, K, true>(pa, p);
                    } else {
                        super::sse::split_groups::<E, K, false>(pa, p);
                    }
                } else {
                    let (p, pt) = (Self::rows(so, ms).map(|o| ps.offset(o)), pd.offset(dof));
                    if nt {
                        super::sse::merge_rows::<E, K, true>(p, pt);
                    } else {
                        super::sse::merge_rows::<E, K, false>(p, pt);
                    }
                }
            }
            self.advance(per);
        }
    }

    /// Three planes of 4-byte elements into groups of three, or groups
    /// into planes (NCHW <-> NHWC with 3 channels, f32): 4 groups at a
    /// time with SSE2 shuffles. (Best of three paired runs, both ways:
    /// 14.3-16.8 GiB/s at 16 MiB against 8.8-10.7 element by element,
    /// 10.3-11.6 at 256 MiB against 7.3-7.7.)
    #[inline(always)]
    fn triples(&mut self) {
        let (ps, pd, ls, ld, ms, md) = (self.ps, self.pd, self.ls, self.ld, self.ms, self.md);
        let merge = ls == 4 && ld == 12 && md == 4;
        if !(E == 4 && K == 3 && (merge || (ls == 12 && ms == 4 && ld == 4))) {
            return;
        }
        for _ in 0..self.long / 4 {
            let (so, dof) = (self.so, self.dof);
            // SAFETY: the 4 elements of each of the 3 rows at `so +
            // m * ms` (`ls == 4`) and the 4 groups of three at `dof`
            // (`ld == 12`, `md == 4`), or the other way round, are
            // elements `jj .. jj + 4` of the transpose, checked by
            // `Tr::new` to lie in the buffers (the source and the
            // destination do not overlap; the three rows, elements of
            // distinct positions, do not either).
            unsafe {
                if merge {
                    let p = [0, 1, 2].map(|m| ps.offset(so + m * ms));
                    super::sse::merge_triples(p, pd.offset(dof));
                } else {
                    let p = [0, 1, 2].map(|m| pd.offset(dof + m * md));
                    super::sse::split_triples(ps.offset(so), p);
                }
            }
            self.advance(4);
        }
    }

    /// The positions left, element by element.
    #[inline(always)]
    fn one_by_one(&mut self) {
        let (ps, pd, ms, md) = (self.ps, self.pd, self.ms, self.md);
        for _ in self.done..self.long {
            let (so, dof) = (self.so, self.dof);
            for m in 0..self.k as isize {
                // SAFETY: `so + m*ms`, `dof + m*md` are the offsets of an
                // element `(ii, jj)` with `ii < i.n`, `jj < j.n`, all of
                // whose bytes `Tr::new` checked to lie in `src` and `dst`;
                // the two do not overlap (one is shared, the other
                // borrowed mutably).
                unsafe {
                    let v = ps.offset(so + m * ms).cast::<[u8; E]>().read_unaligned();
                    pd.offset(dof + m * md).cast::<[u8; E]>().write_unaligned(v);
                }
            }
            self.advance(1);
        }
    }
}
