//! Sub-byte elements (`E(1)`, `E(2)`, `E(4)`) copied through one byte per
//! slot: the source's slots spread into a byte each ([`unpack`]), those
//! bytes relaid by the byte kernels as `u8` in the same layouts (a tiled
//! layout places its slots the same whatever their size: XLA's
//! tiled-layout document, `xla/g3doc/tiled_layout.md`, tiles elements,
//! and `E(n)` only says how many bits each takes), and the result packed
//! into the destination's slots ([`pack`]), a part of the destination at
//! a time, so that the bytes stay in the caches. Untiling `s4[4096,
//! 8192]` from XLA's TPU layout `T(8,128)(2,1)E(4)` (16 MiB) took 148 ms
//! a pass element by element, bit by bit, and 7.3 ms so on one thread
//! with the slots spread and packed eight a 64-bit word (best of five
//! passes, two interleaved runs; a memory copy of the same 16 MiB 0.76
//! ms); `T(64,128)(8,1)E(4)` 150 against 26 ms. `s4`'s nibbles now go 16
//! bytes at a time with SSE2 (BENCHMARKS.md, "Sub-byte elements through
//! one byte per slot").

/// Slots of the destination each part of a copy goes through at a
/// time: its two buffers of one byte per slot stay in the caches. (Fewer
/// in the crate's tests, whose arrays then make many parts, most of
/// them starting and ending inside a byte.)
pub(super) const PART_SLOTS: usize = if cfg!(test) { 4096 } else { 256 << 10 };

/// Most slots one part may read or write (each a buffer of a byte per
/// slot).
pub(super) const SPAN_SLOTS: usize = 16 << 20;

/// Slots `first .. first + out.len()` of `src` (slot `k`: bits `k * bits
/// .. (k + 1) * bits`, least significant first) into the bytes of `out`,
/// high bits zero. `bits` is 1, 2, 4 or 8; `src` holds those slots.
pub(super) fn unpack(src: &[u8], bits: usize, first: usize, out: &mut [u8]) {
    match bits {
        1 => unpack_with::<1>(src, first, out),
        2 => unpack_with::<2>(src, first, out),
        4 => unpack_with::<4>(src, first, out),
        _ => out.copy_from_slice(&src[first..first + out.len()]),
    }
}

/// Slot `k` of `B`-bit slots.
fn slot<const B: usize>(buf: &[u8], k: usize) -> u8 {
    let mask = ((1u16 << B) - 1) as u8;
    (buf[k * B / 8] >> (k * B % 8)) & mask
}

/// The low `keep` bits of every `lane` bits of a word set.
const fn lanes(lane: u32, keep: u32) -> u64 {
    let mut m = 0u64;
    let mut at = 0;
    while at < 64 {
        m |= ((1u64 << keep) - 1) << at;
        at += lane;
    }
    m
}

/// Eight `B`-bit slots, one a byte of `x` (least significant first),
/// packed into the low `8 * B` bits: pairs of slots, then pairs of
/// pairs, then of quadruples, each moved down next to the one before.
fn pack8<const B: usize>(x: u64) -> u64 {
    let (b, s) = (B as u32, 8 - B as u32);
    let x = x & lanes(8, b);
    let x = (x | x >> s) & lanes(16, 2 * b);
    let x = (x | x >> (2 * s)) & lanes(32, 4 * b);
    (x | x >> (4 * s)) & lanes(64, 8 * b)
}

/// [`pack8`] undone: the `8 * B` low bits of `x` spread into eight
/// bytes of one `B`-bit slot each.
fn unpack8<const B: usize>(x: u64) -> u64 {
    let (b, s) = (B as u32, 8 - B as u32);
    let x = (x | x << (4 * s)) & lanes(32, 4 * b);
    let x = (x | x << (2 * s)) & lanes(16, 2 * b);
    (x | x << s) & lanes(8, b)
}

/// How many of the `n` slots from slot `first` of `bits`-bit slots lie
/// in the byte that holds slots before `first` (none where `first`
/// starts a byte).
pub(super) fn lead(bits: usize, first: usize, n: usize) -> usize {
    let per = 8 / bits;
    ((per - first % per) % per).min(n)
}

/// Where the whole bytes of slots `first .. first + n` of `B`-bit slots
/// begin (`head` slots after `first`, [`lead`]) and how many groups of
/// eight slots (`B` bytes) follow from there.
fn whole<const B: usize>(first: usize, n: usize) -> (usize, usize) {
    let head = lead(B, first, n);
    (head, (n - head) / 8)
}

/// [`unpack`] of `B`-bit slots: those before the first whole byte one by
/// one, then eight at a time from `B` bytes ([`unpack8`]), the rest one
/// by one.
fn unpack_with<const B: usize>(src: &[u8], first: usize, out: &mut [u8]) {
    let (head, groups) = whole::<B>(first, out.len());
    let start = (first + head) * B / 8;
    let (lead, body) = out.split_at_mut(head);
    let (body, rest) = body.split_at_mut(8 * groups);
    for (k, o) in lead.iter_mut().enumerate() {
        *o = slot::<B>(src, first + k);
    }
    let packed = &src[start..start + B * groups];
    let used = unpack_wide::<B>(packed, body);
    let (packed, body) = (&packed[used..], &mut body[8 * used / B..]);
    let (packed, _) = packed.as_chunks::<B>();
    let (spread, _) = body.as_chunks_mut::<8>();
    for (o, p) in spread.iter_mut().zip(packed) {
        let mut word = [0u8; 8];
        word[..B].copy_from_slice(p);
        *o = unpack8::<B>(u64::from_le_bytes(word)).to_le_bytes();
    }
    let tail = first + head + 8 * groups;
    for (k, o) in rest.iter_mut().enumerate() {
        *o = slot::<B>(src, tail + k);
    }
}

/// The low `bits` bits of each byte of `slots` into slots `first ..
/// first + slots.len()` of `dst`: those in the byte that holds slots
/// before `first` or-ed in (their bits there zero before), every byte
/// from there on written whole (the bits after the last slot zero, for
/// the slots after it to be or-ed in). `bits` is 1, 2, 4 or 8; `dst`
/// holds those slots.
pub(super) fn pack(slots: &[u8], bits: usize, first: usize, dst: &mut [u8]) {
    match bits {
        1 => pack_with::<1>(slots, first, dst),
        2 => pack_with::<2>(slots, first, dst),
        4 => pack_with::<4>(slots, first, dst),
        _ => dst[first..first + slots.len()].copy_from_slice(slots),
    }
}

/// [`pack`] of `B`-bit slots, as [`unpack_with`] reads them.
fn pack_with<const B: usize>(slots: &[u8], first: usize, dst: &mut [u8]) {
    let mask = ((1u16 << B) - 1) as u8;
    let put = |dst: &mut [u8], k: usize, v: u8| dst[k * B / 8] |= (v & mask) << (k * B % 8);
    let (head, groups) = whole::<B>(first, slots.len());
    let start = (first + head) * B / 8;
    let (lead, body) = slots.split_at(head);
    let (body, rest) = body.split_at(8 * groups);
    for (k, &v) in lead.iter().enumerate() {
        put(dst, first + k, v);
    }
    let packed = &mut dst[start..start + B * groups];
    let used = pack_wide::<B>(body, packed);
    let (body, packed) = (&body[8 * used / B..], &mut packed[used..]);
    let (spread, _) = body.as_chunks::<8>();
    let (packed, _) = packed.as_chunks_mut::<B>();
    for (p, o) in packed.iter_mut().zip(spread) {
        let word = pack8::<B>(u64::from_le_bytes(*o)).to_le_bytes();
        p.copy_from_slice(&word[..B]);
    }
    // The last slots, fewer than eight, whole bytes from a byte's start.
    let tail = (first + head + 8 * groups) * B / 8;
    let word = rest
        .iter()
        .enumerate()
        .fold(0u64, |w, (k, &v)| w | u64::from(v & mask) << (k * B));
    let n = (rest.len() * B).div_ceil(8);
    dst[tail..tail + n].copy_from_slice(&word.to_le_bytes()[..n]);
}

/// The first bytes of `src`, whole `B`-bit slots, spread into `out` with
/// SIMD where there is a loop for them (`s4`'s nibbles on x86_64); the
/// bytes of `src` used (none elsewhere).
fn unpack_wide<const B: usize>(src: &[u8], out: &mut [u8]) -> usize {
    #[cfg(target_arch = "x86_64")]
    if B == 4 {
        return unpack_nibbles(src, out);
    }
    let _ = (src, out);
    0
}

/// [`unpack_wide`] undone: the first slots of `slots` packed into `dst`
/// with SIMD where there is a loop for them; the bytes of `dst` written.
fn pack_wide<const B: usize>(slots: &[u8], dst: &mut [u8]) -> usize {
    #[cfg(target_arch = "x86_64")]
    if B == 4 {
        return pack_nibbles(slots, dst);
    }
    let _ = (slots, dst);
    0
}

/// The nibbles of the first 16-byte blocks of `src` into two bytes each
/// of `out` (low nibble first), with SSE2: 16 bytes into 32 at a time,
/// as many as both hold; the bytes of `src` used. (Eight slots a 64-bit
/// word, [`unpack8`], took about a third of the time of an `s4` untiling
/// from `T(8,128)(2,1)E(4)`, packing as much again.)
#[cfg(target_arch = "x86_64")]
fn unpack_nibbles(src: &[u8], out: &mut [u8]) -> usize {
    use std::arch::x86_64::{
        _mm_and_si128, _mm_loadu_si128, _mm_set1_epi8, _mm_srli_epi16, _mm_storeu_si128,
        _mm_unpackhi_epi8, _mm_unpacklo_epi8,
    };
    let n = (src.len() / 16).min(out.len() / 32);
    let (ps, po) = (src.as_ptr(), out.as_mut_ptr());
    for i in 0..n {
        // SAFETY: bytes `16i .. 16i + 16` of `src` and `32i .. 32i + 32`
        // of `out` lie in them (`i < n`), which do not overlap (one is
        // shared, the other borrowed mutably); the loads and stores are
        // unaligned; SSE2 is part of x86_64.
        unsafe {
            let x = _mm_loadu_si128(ps.add(16 * i).cast());
            let low = _mm_set1_epi8(0x0F);
            let (lo, hi) = (
                _mm_and_si128(x, low),
                _mm_and_si128(_mm_srli_epi16::<4>(x), low),
            );
            _mm_storeu_si128(po.add(32 * i).cast(), _mm_unpacklo_epi8(lo, hi));
            _mm_storeu_si128(po.add(32 * i + 16).cast(), _mm_unpackhi_epi8(lo, hi));
        }
    }
    16 * n
}

/// [`unpack_nibbles`] undone: the low nibbles of the first 32-byte blocks
/// of `slots`, two a byte of `dst` (the first low), 32 into 16 at a time
/// with SSE2, as many as both hold; the bytes of `dst` written.
#[cfg(target_arch = "x86_64")]
fn pack_nibbles(slots: &[u8], dst: &mut [u8]) -> usize {
    use std::arch::x86_64::{
        __m128i, _mm_and_si128, _mm_loadu_si128, _mm_or_si128, _mm_packus_epi16, _mm_set1_epi16,
        _mm_srli_epi16, _mm_storeu_si128,
    };
    let n = (slots.len() / 32).min(dst.len() / 16);
    let (ps, pd) = (slots.as_ptr(), dst.as_mut_ptr());
    for i in 0..n {
        // SAFETY: bytes `32i .. 32i + 32` of `slots` and `16i .. 16i +
        // 16` of `dst` lie in them (`i < n`), which do not overlap (one
        // is shared, the other borrowed mutably); the loads and stores
        // are unaligned; SSE2 is part of x86_64.
        unsafe {
            // Each 16-bit lane, two slots, into its low byte: the first
            // slot's low nibble in its low half, the second's in its high.
            let pair = |v: __m128i| {
                _mm_or_si128(
                    _mm_and_si128(v, _mm_set1_epi16(0x000F)),
                    _mm_and_si128(_mm_srli_epi16::<4>(v), _mm_set1_epi16(0x00F0)),
                )
            };
            let a = pair(_mm_loadu_si128(ps.add(32 * i).cast()));
            let b = pair(_mm_loadu_si128(ps.add(32 * i + 16).cast()));
            _mm_storeu_si128(pd.add(16 * i).cast(), _mm_packus_epi16(a, b));
        }
    }
    16 * n
}

#[cfg(test)]
mod tests {
    use super::{pack, pack8, unpack, unpack8};

    /// The eight-slot words of every width, which other targets than
    /// x86_64 use for `s4` too: each byte of [`unpack8`]'s word is the
    /// slot read bit by bit, and [`pack8`] puts them back.
    #[test]
    fn words_of_eight_slots_spread_and_pack_back() {
        fn check<const B: usize>() {
            for seed in 0..200u64 {
                let packed =
                    seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) & ((1u128 << (8 * B)) - 1) as u64;
                let bytes = packed.to_le_bytes();
                let spread = unpack8::<B>(packed).to_le_bytes();
                for (k, &v) in spread.iter().enumerate() {
                    assert_eq!(
                        v,
                        slot(&bytes, B, k),
                        "{B} bits, word {packed:#x}, slot {k}"
                    );
                }
                assert_eq!(pack8::<B>(u64::from_le_bytes(spread)), packed, "{B} bits");
            }
        }
        check::<1>();
        check::<2>();
        check::<4>();
    }

    /// Slot `k` of `bits` bits, read one bit at a time (bit `i` of a
    /// buffer is bit `i % 8` of byte `i / 8`).
    fn slot(buf: &[u8], bits: usize, k: usize) -> u8 {
        (0..bits).fold(0, |v, b| {
            let i = k * bits + b;
            v | (((buf[i / 8] >> (i % 8)) & 1) << b)
        })
    }

    /// Every run of slots, from every first slot within two bytes, of
    /// every size: read one bit at a time, and packed back into a zeroed
    /// buffer (stray high bits in the bytes ignored), the same slots and
    /// no other bit set.
    #[test]
    fn unpack_and_pack_agree_with_bit_by_bit_reads() {
        let src: Vec<u8> = (0..37u32).map(|i| (i * 97 + 13) as u8).collect();
        for bits in [1, 2, 4, 8] {
            let all = src.len() * 8 / bits;
            for first in 0..16 / bits + 1 {
                for n in (0..=all - first).filter(|n| *n < 40 || n % 7 == 0 || *n == all - first) {
                    let mut out = vec![0xAA; n];
                    unpack(&src, bits, first, &mut out);
                    for (k, &v) in out.iter().enumerate() {
                        assert_eq!(
                            v,
                            slot(&src, bits, first + k),
                            "unpack {bits} bits from {first}, slot {k}"
                        );
                    }
                    let noisy: Vec<u8> = if bits == 8 {
                        out.clone()
                    } else {
                        out.iter().map(|&v| v | (0xFF << bits)).collect()
                    };
                    // Zero up to the byte that holds `first`, ones from
                    // the next: the bytes the slots reach written whole,
                    // the rest kept.
                    let mut back = vec![0xFF; src.len()];
                    back[..=first * bits / 8].fill(0);
                    pack(&noisy, bits, first, &mut back);
                    let reach = ((first + n) * bits).div_ceil(8).max(first * bits / 8 + 1);
                    for k in 0..all {
                        let want = if (first..first + n).contains(&k) {
                            slot(&src, bits, k)
                        } else if k * bits / 8 >= reach {
                            slot(&[0xFF], bits, 0)
                        } else {
                            0
                        };
                        assert_eq!(
                            slot(&back, bits, k),
                            want,
                            "pack {bits} bits from {first}, {n} slots: slot {k}"
                        );
                    }
                }
            }
        }
    }
}
