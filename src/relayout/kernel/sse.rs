//! SSE2 (part of the x86_64 baseline): the crate's one square transpose
//! of a 16-byte-wide block ([`square`]: 16 x 16 one-byte, 8 x 8 two-byte,
//! 4 x 4 four-byte or 2 x 2 eight-byte elements), used by the staged copy
//! ([`transpose_square`]) and by the direct blocks ([`Square`], [`Line`]);
//! its rounds ([`transpose_lanes`]), which the AVX2 and AVX-512 blocks run
//! on every 128-bit lane of their registers; and the non-temporal stores
//! of streamed copies ([`stream_lines`]); and the narrow copies' split
//! and merged groups ([`split_pairs16`], [`split_groups`],
//! [`merge_rows`], and the order [`quad_order`] that the wider splits of
//! quadruples of bytes use) and of three 4-byte elements
//! ([`split_triples`], [`merge_triples`]).

use super::Block;
use std::arch::x86_64::{
    __m128, __m128i, _mm_loadu_ps, _mm_loadu_si128, _mm_packs_epi32, _mm_setr_epi8,
    _mm_setzero_si128, _mm_shuffle_ps, _mm_slli_epi32, _mm_srai_epi32, _mm_storeu_ps,
    _mm_storeu_si128, _mm_unpackhi_epi8, _mm_unpackhi_epi16, _mm_unpackhi_epi32,
    _mm_unpackhi_epi64, _mm_unpackhi_ps, _mm_unpacklo_epi8, _mm_unpacklo_epi16, _mm_unpacklo_epi32,
    _mm_unpacklo_epi64, _mm_unpacklo_ps,
};

/// The byte shuffle, within 16 bytes, that splits four quadruples into
/// their rows: bytes 0, 4, 8, 12 (the firsts), then 1, 5, 9, 13, then
/// 2, 6, 10, 14, then 3, 7, 11, 15 (row `r` in 32-bit piece `r`). The
/// AVX2 and AVX-512 splits of quadruples run it on every 128-bit lane.
#[inline(always)]
pub(super) fn quad_order() -> __m128i {
    // SAFETY: SSE2 is part of the x86_64 baseline; no memory is touched.
    unsafe { _mm_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15) }
}

/// Whether [`square`] handles `E`-byte elements.
pub(super) const fn has_square(e: usize) -> bool {
    matches!(e, 1 | 2 | 4 | 8)
}

/// Transposes the square of `16 / E` rows of 16 bytes at byte `x` of `a`
/// (rows `row` bytes apart) into the square at byte `y` of `t`.
///
/// # Panics
///
/// If a row of either square lies outside its slice, or `E` is not 1, 2,
/// 4 or 8.
#[inline(always)]
pub(super) fn transpose_square<const E: usize>(
    a: &[u8],
    x: usize,
    t: &mut [u8],
    y: usize,
    row: usize,
) {
    assert!(has_square(E));
    let span = (16 / E - 1) * row + 16;
    let (a, t) = (&a[x..x + span], &mut t[y..y + span]);
    // SAFETY: the `16 / E` rows of 16 bytes read (bytes `k*row ..
    // k*row + 16`) lie in `a`, which is `span` bytes long; likewise the
    // rows written lie in `t`, a distinct slice.
    unsafe { square::<E>(a.as_ptr(), row as isize, t.as_mut_ptr(), row as isize) }
}

/// Squares of `16 / E` elements of `E` bytes: one [`square`].
pub(super) struct Square<const E: usize>;

impl<const E: usize> Block for Square<E> {
    const SIZE: usize = 16 / E;

    /// # Safety
    ///
    /// The 16 bytes at `pa + r*sa` (`r < SIZE`) are readable, the 16
    /// bytes at `pt + c*st` (`c < SIZE`) writable and disjoint from them.
    #[inline(always)]
    unsafe fn copy(pa: *const u8, sa: isize, pt: *mut u8, st: isize) {
        // SAFETY: as the caller vouches.
        unsafe { square::<E>(pa, sa, pt, st) }
    }
}

/// Squares of `64 / E` elements, each row a 64-byte line, in 4 x 4
/// [`square`]s.
pub(super) struct Line<const E: usize>;

impl<const E: usize> Block for Line<E> {
    const SIZE: usize = 64 / E;

    /// # Safety
    ///
    /// The 64 bytes at `pa + r*sa` (`r < SIZE`) are readable, the 64
    /// bytes at `pt + c*st` (`c < SIZE`) writable and disjoint from
    /// them.
    #[inline]
    unsafe fn copy(pa: *const u8, sa: isize, pt: *mut u8, st: isize) {
        let n = (16 / E) as isize;
        for c0 in 0..4isize {
            for r0 in 0..4isize {
                // SAFETY: the square at rows `n*r0..`, bytes `16*c0..` of
                // what the caller vouches for.
                unsafe {
                    let a = pa.offset(n * r0 * sa + 16 * c0);
                    let t = pt.offset(n * c0 * st + 16 * r0);
                    square::<E>(a, sa, t, st);
                }
            }
        }
    }
}

/// Streams the `n` rows of 64 bytes at `pc` (64 bytes apart) to the
/// destination rows at `pt + k * st`, each written whole with
/// non-temporal stores.
///
/// # Safety
///
/// The `n * 64` bytes at `pc` are readable; the 64 bytes at `pt + k*st`
/// (`k < n`) writable, 16-byte aligned and disjoint from them.
#[inline(always)]
pub(super) unsafe fn stream_lines(pc: *const u8, n: usize, pt: *mut u8, st: isize) {
    for row in 0..n as isize {
        for q in 0..4isize {
            // SAFETY: as the caller vouches; SSE2 is part of the x86_64
            // baseline.
            unsafe {
                let v = _mm_loadu_si128(pc.offset(row * 64 + 16 * q).cast());
                stream(pt.offset(row * st + 16 * q), v);
            }
        }
    }
}

/// Stores `v` at `p` with a non-temporal store. Under Miri, which cannot
/// run the instruction, an ordinary store of the same bytes, so that the
/// streamed loops are checked all the same.
///
/// # Safety
///
/// The CPU has the instructions of the register; the register's bytes at
/// `p` (16, 32 or 64) are writable; `p` is aligned to their number.
#[inline(always)]
pub(super) unsafe fn stream<V: Lanes>(p: *mut u8, v: V) {
    debug_assert!(
        p.addr().is_multiple_of(size_of::<V>()),
        "a streamed store is aligned"
    );
    // SAFETY: as the caller vouches.
    unsafe { V::stream(p, v) }
}

/// Stores `v` at `p`: with a non-temporal store ([`stream`]) if `NT`,
/// else an ordinary unaligned one.
///
/// # Safety
///
/// The CPU has the instructions of the register; the register's bytes at
/// `p` are writable; with `NT`, `p` is aligned to their number.
#[inline(always)]
pub(super) unsafe fn put<const NT: bool, V: Lanes>(p: *mut u8, v: V) {
    // SAFETY: as the caller vouches.
    unsafe {
        if NT {
            stream(p, v);
        } else {
            V::store(p, v);
        }
    }
}

/// Splits the 8 pairs of 2-byte elements at `pa` into the first
/// elements of each (8 at `p0`) and the second (8 at `p1`), with
/// non-temporal stores if `NT`.
///
/// # Safety
///
/// The 32 bytes at `pa` are readable, the 16 bytes at `p0` and at `p1`
/// writable and disjoint from them; with `NT`, `p0` and `p1` are 16-byte
/// aligned.
#[inline(always)]
pub(super) unsafe fn split_pairs16<const NT: bool>(pa: *const u8, p0: *mut u8, p1: *mut u8) {
    // SAFETY: the bytes read and written are what the caller vouches for;
    // unaligned loads and stores need no alignment. Each 32-bit lane is
    // a pair: shifted so that one element is sign-extended into the lane,
    // it packs back into 16 bits unchanged.
    unsafe {
        let a = _mm_loadu_si128(pa.cast());
        let b = _mm_loadu_si128(pa.add(16).cast());
        let low = |v| _mm_srai_epi32::<16>(_mm_slli_epi32::<16>(v));
        let first = _mm_packs_epi32(low(a), low(b));
        let second = _mm_packs_epi32(_mm_srai_epi32::<16>(a), _mm_srai_epi32::<16>(b));
        put::<NT, _>(p0, first);
        put::<NT, _>(p1, second);
    }
}

/// Interleaves the units of `w` bytes of `a` and `b` (`w` 1, 2, 4 or 8;
/// 16 and more leaves them as they are): the first 16 bytes of the result
/// are `a0 b0 a1 b1 ...`, the next 16 continue from the middle of `a` and
/// `b`. (`w` is a constant wherever this is inlined.)
#[inline(always)]
fn zip(w: usize, a: __m128i, b: __m128i) -> (__m128i, __m128i) {
    // SAFETY: SSE2 is part of the x86_64 baseline; no memory is touched.
    unsafe {
        match w {
            1 => (_mm_unpacklo_epi8(a, b), _mm_unpackhi_epi8(a, b)),
            2 => (_mm_unpacklo_epi16(a, b), _mm_unpackhi_epi16(a, b)),
            4 => (_mm_unpacklo_epi32(a, b), _mm_unpackhi_epi32(a, b)),
            8 => (_mm_unpacklo_epi64(a, b), _mm_unpackhi_epi64(a, b)),
            _ => (a, b),
        }
    }
}

/// The inverse of [`zip`]: the 32 bytes `a`, `b` of alternating units of
/// `w` bytes split into the even units (the first 16 bytes) and the odd
/// ones. A zip is a perfect shuffle of the `32 / w` units, of order
/// `log2(32 / w)`: zipping `log2(16 / w)` more times undoes it.
#[inline(always)]
fn unzip(w: usize, mut a: __m128i, mut b: __m128i) -> (__m128i, __m128i) {
    let mut n = 16 / w;
    while n > 1 {
        (a, b) = zip(w, a, b);
        n /= 2;
    }
    (a, b)
}

/// Splits the groups of `K` elements of `E` bytes in the `16 * K` bytes
/// at `pa` into their rows: the `k`-th element of each group into the
/// 16 bytes at `p[k]` (`K` is 2 or 4: XLA's `(2,1)` and `(4,1)`
/// sub-tiles untiled), with non-temporal stores if `NT`. Quadruples are
/// split as pairs of pairs: each group's two halves first, then each
/// half.
///
/// # Safety
///
/// The `16 * K` bytes at `pa` are readable, the 16 bytes at each of
/// `p[..K]` writable and disjoint from them and from each other; with
/// `NT`, each `p[k]` is 16-byte aligned; `E` is 1, 2, 4 or 8.
#[inline(always)]
pub(super) unsafe fn split_groups<const E: usize, const K: usize, const NT: bool>(
    pa: *const u8,
    p: [*mut u8; 4],
) {
    // SAFETY: the bytes read and written are what the caller vouches for;
    // unaligned loads need no alignment. SSE2 is part of the x86_64
    // baseline.
    unsafe {
        let v = |q: usize| _mm_loadu_si128(pa.add(16 * q).cast());
        if K == 2 {
            let (r0, r1) = unzip(E, v(0), v(1));
            put::<NT, _>(p[0], r0);
            put::<NT, _>(p[1], r1);
        } else {
            let (a0, b0) = unzip(2 * E, v(0), v(1));
            let (a1, b1) = unzip(2 * E, v(2), v(3));
            let (r0, r1) = unzip(E, a0, a1);
            let (r2, r3) = unzip(E, b0, b1);
            put::<NT, _>(p[0], r0);
            put::<NT, _>(p[1], r1);
            put::<NT, _>(p[2], r2);
            put::<NT, _>(p[3], r3);
        }
    }
}

/// The inverse of [`split_groups`]: the 16 bytes at each of `p[..K]`
/// merged into groups of `K` elements of `E` bytes, the `k`-th element
/// of each group from `p[k]`: the `16 * K` bytes at `pt` (XLA's `(2,1)`
/// and `(4,1)` sub-tiles tiled), with non-temporal stores if `NT`.
///
/// # Safety
///
/// The 16 bytes at each of `p[..K]` are readable, the `16 * K` bytes at
/// `pt` writable and disjoint from them; with `NT`, `pt` is 16-byte
/// aligned; `K` is 2 or 4, `E` is 1, 2, 4 or 8.
#[inline(always)]
pub(super) unsafe fn merge_rows<const E: usize, const K: usize, const NT: bool>(
    p: [*const u8; 4],
    pt: *mut u8,
) {
    // SAFETY: the bytes read and written are what the caller vouches for;
    // unaligned loads need no alignment. SSE2 is part of the x86_64
    // baseline.
    unsafe {
        let row = |k: usize| _mm_loadu_si128(p[k].cast());
        let out = |q: usize, v: __m128i| put::<NT, _>(pt.add(16 * q), v);
        if K == 2 {
            let (a, b) = zip(E, row(0), row(1));
            out(0, a);
            out(1, b);
        } else {
            let (a0, a1) = zip(E, row(0), row(1));
            let (b0, b1) = zip(E, row(2), row(3));
            let (g0, g1) = zip(2 * E, a0, b0);
            let (g2, g3) = zip(2 * E, a1, b1);
            out(0, g0);
            out(1, g1);
            out(2, g2);
            out(3, g3);
        }
    }
}

/// The `_mm_shuffle_ps` selector taking lanes `a` and `b` of its first
/// operand and `c` and `d` of its second: Intel's `_MM_SHUFFLE(d, c, b,
/// a)`, which `std::arch` has only on nightly.
const fn pick(a: i32, b: i32, c: i32, d: i32) -> i32 {
    a | b << 2 | c << 4 | d << 6
}

/// Interleaves the 4 four-byte elements at each of `p[0]`, `p[1]` and
/// `p[2]` into 4 groups of three, the `k`-th element of each group from
/// `p[k]`: the 48 bytes at `pt` (three planes into pixels, as NCHW to
/// NHWC with 3 channels). The elements are moved as bit patterns.
///
/// # Safety
///
/// The 16 bytes at each of `p` are readable, the 48 bytes at `pt`
/// writable and disjoint from them.
#[inline(always)]
pub(super) unsafe fn merge_triples(p: [*const u8; 3], pt: *mut u8) {
    // SAFETY: the bytes read and written are what the caller vouches for;
    // unaligned loads and stores need no alignment. `shufps` moves lanes
    // without looking at them. SSE2 is part of the x86_64 baseline.
    unsafe {
        let [a, b, c] = p.map(|q| _mm_loadu_ps(q.cast()));
        let out = |q: usize, v: __m128| _mm_storeu_ps(pt.add(16 * q).cast(), v);
        // [a0 b0 a1 b1] and [a2 b2 a3 b3].
        let lo = _mm_unpacklo_ps(a, b);
        let hi = _mm_unpackhi_ps(a, b);
        // [a0 b0 c0 a1]: [c0 c0 a1 a1] supplies the second half.
        let t = _mm_shuffle_ps::<{ pick(0, 0, 2, 2) }>(c, lo);
        out(0, _mm_shuffle_ps::<{ pick(0, 1, 0, 2) }>(lo, t));
        // [b1 c1 a2 b2] from [b1 b1 c1 c1].
        let t = _mm_shuffle_ps::<{ pick(3, 3, 1, 1) }>(lo, c);
        out(1, _mm_shuffle_ps::<{ pick(0, 2, 0, 1) }>(t, hi));
        // [c2 a3 b3 c3] from [c2 c2 a3 a3] and [b3 b3 c3 c3].
        let t = _mm_shuffle_ps::<{ pick(2, 2, 2, 2) }>(c, hi);
        let u = _mm_shuffle_ps::<{ pick(3, 3, 3, 3) }>(hi, c);
        out(2, _mm_shuffle_ps::<{ pick(0, 2, 0, 2) }>(t, u));
    }
}

/// Splits the 4 groups of three four-byte elements at `pa` (48 bytes)
/// into their first, second and third elements, 4 of each at `p[0]`,
/// `p[1]` and `p[2]` (pixels into three planes, as NHWC to NCHW with 3
/// channels): the inverse of [`merge_triples`].
///
/// # Safety
///
/// The 48 bytes at `pa` are readable, the 16 bytes at each of `p`
/// writable and disjoint from them and from each other.
#[inline(always)]
pub(super) unsafe fn split_triples(pa: *const u8, p: [*mut u8; 3]) {
    // SAFETY: as in `merge_triples`.
    unsafe {
        let [x, y, z] = [0, 1, 2].map(|q| _mm_loadu_ps(pa.add(16 * q).cast()));
        // x = [a0 b0 c0 a1], y = [b1 c1 a2 b2], z = [c2 a3 b3 c3].
        let t = _mm_shuffle_ps::<{ pick(2, 2, 1, 1) }>(y, z); // [a2 a2 a3 a3]
        let a = _mm_shuffle_ps::<{ pick(0, 3, 0, 2) }>(x, t);
        let t = _mm_shuffle_ps::<{ pick(1, 1, 0, 0) }>(x, y); // [b0 b0 b1 b1]
        let u = _mm_shuffle_ps::<{ pick(3, 3, 2, 2) }>(y, z); // [b2 b2 b3 b3]
        let b = _mm_shuffle_ps::<{ pick(0, 2, 0, 2) }>(t, u);
        let t = _mm_shuffle_ps::<{ pick(2, 2, 1, 1) }>(x, y); // [c0 c0 c1 c1]
        let u = _mm_shuffle_ps::<{ pick(0, 3, 0, 3) }>(z, z); // [c2 c3 c2 c3]
        let c = _mm_shuffle_ps::<{ pick(0, 2, 0, 1) }>(t, u);
        for (q, v) in p.into_iter().zip([a, b, c]) {
            _mm_storeu_ps(q.cast(), v);
        }
    }
}

/// A SIMD register of 128-bit lanes (`__m128i`, `__m256i`, `__m512i`):
/// what the rounds of [`transpose_lanes`] need of it, so that one piece
/// of code transposes the squares of every instruction set.
pub(super) trait Lanes: Copy {
    /// All zeros.
    ///
    /// # Safety
    ///
    /// The CPU has the instructions of the register.
    unsafe fn zero() -> Self;

    /// The low and the high halves of each lane of `a` and `b`
    /// interleaved `E` bytes at a time (`punpckl*`, `punpckh*`).
    ///
    /// # Safety
    ///
    /// The CPU has the instructions of the register; `E` is 1, 2, 4 or 8.
    unsafe fn unpack<const E: usize>(a: Self, b: Self) -> (Self, Self);

    /// The register's bytes at `p` (unaligned).
    ///
    /// # Safety
    ///
    /// The CPU has the instructions of the register; the bytes at `p` are
    /// readable.
    unsafe fn load(p: *const u8) -> Self;

    /// Stores `v` at `p` with a non-temporal store ([`stream`]).
    ///
    /// # Safety
    ///
    /// As [`stream`].
    unsafe fn stream(p: *mut u8, v: Self);

    /// Stores `v` at `p` (unaligned).
    ///
    /// # Safety
    ///
    /// The CPU has the instructions of the register; the bytes at `p` are
    /// writable.
    unsafe fn store(p: *mut u8, v: Self);
}

/// `impl Lanes` for a register type, from its intrinsics: `zero`; the
/// low and high unpacks of 1-, 2-, 4- and 8-byte pieces; the unaligned
/// load; the non-temporal store, and the ordinary one that stands for it
/// under Miri. The same code for every width but for their names.
macro_rules! impl_lanes {
    ($v:ty, $zero:ident, [$lo8:ident, $hi8:ident], [$lo16:ident, $hi16:ident],
     [$lo32:ident, $hi32:ident], [$lo64:ident, $hi64:ident],
     $load:ident, $stream:ident, $store:ident $(,)?) => {
        impl Lanes for $v {
            #[inline(always)]
            unsafe fn zero() -> Self {
                // SAFETY: the caller vouches for the register's
                // instructions, as `Lanes::zero` asks.
                unsafe { $zero() }
            }

            #[inline(always)]
            unsafe fn unpack<const E: usize>(a: Self, b: Self) -> (Self, Self) {
                // SAFETY: the caller vouches for the register's
                // instructions, as `Lanes::unpack` asks; no memory is
                // touched.
                unsafe {
                    match E {
                        1 => ($lo8(a, b), $hi8(a, b)),
                        2 => ($lo16(a, b), $hi16(a, b)),
                        4 => ($lo32(a, b), $hi32(a, b)),
                        _ => ($lo64(a, b), $hi64(a, b)),
                    }
                }
            }

            #[inline(always)]
            unsafe fn load(p: *const u8) -> Self {
                // SAFETY: as the caller vouches, as `Lanes::load` asks; an
                // unaligned load needs no alignment.
                unsafe { std::arch::x86_64::$load(p.cast()) }
            }

            #[inline(always)]
            unsafe fn stream(p: *mut u8, v: Self) {
                // SAFETY: as the caller vouches, as `stream` asks.
                unsafe {
                    #[cfg(not(miri))]
                    std::arch::x86_64::$stream(p.cast(), v);
                    #[cfg(miri)]
                    std::arch::x86_64::$store(p.cast(), v);
                }
            }

            #[inline(always)]
            unsafe fn store(p: *mut u8, v: Self) {
                // SAFETY: as the caller vouches, as `Lanes::store` asks; an
                // unaligned store needs no alignment.
                unsafe { std::arch::x86_64::$store(p.cast(), v) }
            }
        }
    };
}
pub(super) use impl_lanes;

// SSE2, part of the x86_64 baseline: what `Lanes` asks always holds.
impl_lanes!(
    __m128i,
    _mm_setzero_si128,
    [_mm_unpacklo_epi8, _mm_unpackhi_epi8],
    [_mm_unpacklo_epi16, _mm_unpackhi_epi16],
    [_mm_unpacklo_epi32, _mm_unpackhi_epi32],
    [_mm_unpacklo_epi64, _mm_unpackhi_epi64],
    _mm_loadu_si128,
    _mm_stream_si128,
    _mm_storeu_si128,
);

/// Rows `k < n` of a square, `sa` bytes apart from `pa`, each loaded
/// whole (unaligned) into register `k`, the others zero: what the rounds
/// of [`transpose_lanes`] take.
///
/// # Safety
///
/// The CPU has the instructions of the register; the register's bytes at
/// `pa + k*sa` (`k < n`) are readable.
#[inline(always)]
pub(super) unsafe fn load_rows<V: Lanes>(pa: *const u8, sa: isize, n: usize) -> [V; 16] {
    // SAFETY: the rows read are what the caller vouches for.
    unsafe {
        let mut r = [V::zero(); 16];
        for (k, v) in r.iter_mut().enumerate().take(n) {
            *v = V::load(pa.offset(k as isize * sa));
        }
        r
    }
}

/// The rounds of the square transpose on the first `n = 16 / E`
/// registers, in each 128-bit lane: each of `log2(n)` rounds interleaves
/// row `k` with row `k + n/2` (`E` bytes at a time) into rows `2k` and
/// `2k + 1`; after them register `c` holds, in each lane, column `c` of
/// that lane's square. Written out in full, so that the registers stay
/// registers (a loop over an array of 512-bit registers was left rolled,
/// the array copied through memory every round).
///
/// # Safety
///
/// As [`Lanes::unpack`]. Inlined into a function that has the
/// register's instructions, as the intrinsics need.
#[inline(always)]
pub(super) unsafe fn transpose_lanes<V: Lanes, const E: usize>(mut r: [V; 16]) -> [V; 16] {
    let n = 16 / E;
    /// One round, its pairs of rows written out.
    macro_rules! round {
        ($($k:literal)*) => {{
            let mut t = r;
            $(
                if $k < n / 2 {
                    // SAFETY: as the caller vouches.
                    (t[2 * $k], t[2 * $k + 1]) = unsafe { V::unpack::<E>(r[$k], r[$k + n / 2]) };
                }
            )*
            r = t;
        }};
    }
    // `log2(n)` rounds.
    if n >= 2 {
        round!(0 1 2 3 4 5 6 7);
    }
    if n >= 4 {
        round!(0 1 2 3 4 5 6 7);
    }
    if n >= 8 {
        round!(0 1 2 3 4 5 6 7);
    }
    if n >= 16 {
        round!(0 1 2 3 4 5 6 7);
    }
    r
}

/// The square transpose: `pt[c*st + r*E ..][..E] = pa[r*sa + c*E ..][..E]`
/// for `r`, `c` < `n = 16 / E`, by the rounds of [`transpose_lanes`].
///
/// # Safety
///
/// `E` is 1, 2, 4 or 8; the 16 bytes at `pa + r*sa` (`r < n`) are
/// readable, the 16 bytes at `pt + c*st` (`c < n`) writable and disjoint
/// from them.
#[inline(always)]
unsafe fn square<const E: usize>(pa: *const u8, sa: isize, pt: *mut u8, st: isize) {
    let n = 16 / E;
    // SAFETY: the rows read and written are what the caller vouches for;
    // unaligned loads and stores need no alignment. SSE2 is part of the
    // x86_64 baseline.
    unsafe {
        let r = transpose_lanes::<__m128i, E>(load_rows(pa, sa, n));
        for (k, v) in r.into_iter().enumerate().take(n) {
            _mm_storeu_si128(pt.offset(k as isize * st).cast(), v);
        }
    }
}
