//! Tiling and untiling row-major arrays in XLA's TPU tilings, every byte
//! checked against the element-by-element offsets of
//! [`TiledLayout::offset`] (XLA's `Layout` tiling math, checked against
//! jaxlib in `tiling_agreement.rs`).
//!
//! The shapes are the nine of google/tpu-sync#665 (a weight sync that
//! detiles bf16 `T(8,128)(2,1)` buffers), and shapes past the widest
//! steps of the copy loops (three AVX-512 blocks and one more element on
//! each side, rows of three tiles and one more); the tilings are those
//! the issue lists, for elements of 1, 2, 4 and 8 bytes (XLA accepts each
//! tiling for each width: `ShapeUtil::ValidateShape` checks only that tile
//! bounds are positive or `*`), and the sub-byte packings XLA uses:
//! `s4`/`u4` in `T(8,128)(8,1)E(4)` and `T(64,128)(8,1)E(4)` (as XLA's TPU
//! programs print them, e.g. `s4[8,32768,1,256]{3,1,0,2:T(8,128)(8,1)E(4)}`),
//! `T(2,128)E(4)` (XLA's HLO parser tests), and `s2`/`u2` in
//! `T(8,128)(16,1)E(2)` (the same 32 bits per second-level tile row as
//! `(8,1)E(4)` and bf16's `(2,1)`).
//!
//! Each copy runs at a 64-byte aligned address and at unaligned ones, on
//! both sides; the tiled source's padding holds garbage (untiling must not
//! read it) and the tiled destination starts as garbage (tiling must write
//! its padding as zero).

use xla_shape::relayout::Relayout;
use xla_shape::tiling::TiledLayout;
use xla_shape::{ArrayShape, Layout, PrimitiveType, Tile};

/// google/tpu-sync#665's shapes.
pub(crate) const TPU_SYNC_665: [[i64; 2]; 9] = [
    [16, 256],
    [8, 128],
    [24, 384],
    [17, 257],
    [10, 130],
    [1, 128],
    [8, 1],
    [6, 3],
    [2, 1],
];

/// The tilings of issue 32 (XLA's TPU tilings of 1- to 4-byte elements).
pub(crate) const TILINGS: [&[[i64; 2]]; 6] = [
    &[[8, 128]],
    &[[8, 128], [2, 1]],
    &[[16, 128], [2, 1]],
    &[[32, 128], [4, 1]],
    &[[4, 128]],
    &[[2, 128], [2, 1]],
];

/// One element type per width: 1, 2, 4 and 8 bytes.
const WIDTHS: [PrimitiveType; 4] = [
    PrimitiveType::U8,
    PrimitiveType::Bf16,
    PrimitiveType::F32,
    PrimitiveType::F64,
];

fn row_major(t: PrimitiveType, dims: [i64; 2]) -> ArrayShape {
    ArrayShape::new(t, dims.to_vec()).unwrap()
}

fn tiled(t: PrimitiveType, dims: [i64; 2], tiling: &[[i64; 2]], bits: i64) -> ArrayShape {
    let tiles = tiling.iter().map(|t| Tile::new(t).unwrap()).collect();
    let mut layout = Layout::new([1, 0]).with_tiles(tiles);
    if bits % 8 != 0 {
        layout = layout.with_element_size_in_bits(bits);
    }
    ArrayShape::new(t, dims.to_vec())
        .unwrap()
        .with_layout(Some(layout))
        .unwrap()
}

/// Writes the low `bits` bits of `v` at slot `slot` (element `k` takes bits
/// `k*bits ..` counting from the least significant bit of byte 0, as
/// XLA:CPU packs sub-byte elements; `tests/layout_math/relayout.rs`
/// checks that packing against XLA's bytes).
fn put(buf: &mut [u8], slot: i64, bits: i64, v: &[u8]) {
    if bits % 8 == 0 {
        let e = (bits / 8) as usize;
        let at = slot as usize * e;
        buf[at..at + e].copy_from_slice(v);
        return;
    }
    let at = (slot * bits) as usize;
    let mask = ((1u16 << bits) - 1) as u8;
    let (byte, shift) = (at / 8, at % 8);
    buf[byte] = (buf[byte] & !(mask << shift)) | ((v[0] & mask) << shift);
}

/// A buffer of `len` bytes starting `skew` bytes past a 64-byte boundary.
struct Placed {
    storage: Vec<u8>,
    at: usize,
    len: usize,
}

impl Placed {
    fn new(bytes: &[u8], skew: usize) -> Placed {
        let mut storage = vec![0u8; bytes.len() + 128];
        let at = (64 - storage.as_ptr() as usize % 64) % 64 + skew;
        storage[at..at + bytes.len()].copy_from_slice(bytes);
        Placed {
            storage,
            at,
            len: bytes.len(),
        }
    }

    fn get(&self) -> &[u8] {
        &self.storage[self.at..self.at + self.len]
    }

    fn get_mut(&mut self) -> &mut [u8] {
        &mut self.storage[self.at..self.at + self.len]
    }
}

/// Source and destination offsets from a 64-byte boundary: both aligned,
/// both unaligned, and one of each (16 bytes past a line, where a large
/// `Vec` starts).
pub(crate) const SKEWS: [(usize, usize); 4] = [(0, 0), (1, 3), (16, 0), (0, 16)];

/// Runs `plan` from `src` into a destination of garbage at every skew of
/// `skews` (and on two threads with the `rayon` feature) and checks that
/// it writes exactly `expected`.
fn check_run(plan: &Relayout, src: &[u8], expected: &[u8], skews: &[(usize, usize)], what: &str) {
    for &(s, d) in skews {
        let src = Placed::new(src, s);
        let mut dst = Placed::new(&vec![0xee; expected.len()], d);
        plan.run(src.get(), dst.get_mut()).unwrap();
        if let Some(k) = (0..expected.len()).find(|&k| dst.get()[k] != expected[k]) {
            panic!(
                "{what}, skews ({s}, {d}): byte {k} of {} is {:#04x}, the element-by-element path wrote {:#04x}",
                expected.len(),
                dst.get()[k],
                expected[k]
            );
        }
        #[cfg(feature = "rayon")]
        if expected.len() >= 1 << 20 {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(2)
                .build()
                .unwrap();
            dst.get_mut().fill(0xee);
            pool.install(|| plan.run_parallel(src.get(), dst.get_mut()))
                .unwrap();
            assert!(dst.get() == expected, "{what}, skews ({s}, {d}), 2 threads");
        }
    }
}

/// Tiles a row-major `t[dims]` into `tiling` (sub-byte types packed
/// `E(bits)`) and untiles it back, every byte against the bytes that
/// placing each element at [`TiledLayout::offset`] gives.
pub(crate) fn check_tiling(
    t: PrimitiveType,
    bits: i64,
    dims: [i64; 2],
    tiling: &[[i64; 2]],
    skews: &[(usize, usize)],
) {
    let plain = row_major(t, dims);
    let tiled_shape = tiled(t, dims, tiling, bits);
    let layout = TiledLayout::new(&tiled_shape).unwrap();
    let e = t.byte_width().unwrap() as usize;
    let count = (dims[0] * dims[1]) as usize;
    // Distinct-looking values; sub-byte ones hold only their low bits in
    // the host's byte per element.
    let keep = if bits < 8 { (1u8 << bits) - 1 } else { 0xff };
    let host: Vec<u8> = (0..count * e)
        .map(|k| ((k * 151 + k / 251 + 7) as u8) & keep)
        .collect();
    let size = layout.byte_size() as usize;
    let mut expected = vec![0u8; size];
    // The same elements over garbage padding: what untiling reads.
    let mut dirty = vec![0xa5u8; size];
    let mut index = [0i64; 2];
    for r in 0..dims[0] {
        for c in 0..dims[1] {
            index[0] = r;
            index[1] = c;
            let slot = layout.offset(&index).unwrap();
            let k = (r * dims[1] + c) as usize * e;
            put(&mut expected, slot, bits, &host[k..k + e]);
            put(&mut dirty, slot, bits, &host[k..k + e]);
        }
    }
    let what = |dir: &str| format!("{dir} {tiled_shape}");
    let tile = Relayout::new(&plain, &tiled_shape).unwrap();
    check_run(&tile, &host, &expected, skews, &what("tile"));
    let untile = Relayout::new(&tiled_shape, &plain).unwrap();
    check_run(&untile, &dirty, &host, skews, &what("untile"));
}

/// Past the wide steps: three 64-wide AVX-512 blocks (of 1-byte
/// elements; 16 of 4-byte ones) and one more element down, three tiles
/// of 128 columns and one more across; and a few rows of many tiles.
const PAST_THE_STEPS: [[i64; 2]; 3] = [[3 * 64 + 1, 3 * 128 + 1], [97, 1025], [33, 8 * 128]];

#[test]
fn tpu_sync_665_shapes_in_every_tiling_and_width() {
    for t in WIDTHS {
        for tiling in TILINGS {
            for dims in TPU_SYNC_665 {
                check_tiling(t, 8 * t.byte_width().unwrap(), dims, tiling, &SKEWS);
            }
        }
    }
}

#[test]
fn tilings_past_the_wide_steps() {
    for t in WIDTHS {
        for tiling in TILINGS {
            for dims in PAST_THE_STEPS {
                check_tiling(t, 8 * t.byte_width().unwrap(), dims, tiling, &SKEWS);
            }
        }
    }
}

/// The sub-byte tilings, `E(4)` and `E(2)`, of signed and unsigned types.
pub(crate) const SUB_BYTE: [(PrimitiveType, i64, &[[i64; 2]]); 8] = [
    (PrimitiveType::S4, 4, &[[8, 128], [8, 1]]),
    (PrimitiveType::U4, 4, &[[8, 128], [8, 1]]),
    (PrimitiveType::S4, 4, &[[64, 128], [8, 1]]),
    (PrimitiveType::U4, 4, &[[2, 128]]),
    (PrimitiveType::S2, 2, &[[8, 128], [16, 1]]),
    (PrimitiveType::U2, 2, &[[8, 128], [16, 1]]),
    (PrimitiveType::U2, 2, &[[8, 128]]),
    (PrimitiveType::S4, 4, &[[8, 128], [2, 1]]),
];

#[test]
fn sub_byte_packings_in_xla_tilings() {
    for (t, bits, tiling) in SUB_BYTE {
        for dims in TPU_SYNC_665.iter().chain(&PAST_THE_STEPS) {
            check_tiling(t, bits, *dims, tiling, &SKEWS[..2]);
        }
    }
}

/// Destinations of 8 MiB and more are written with non-temporal stores:
/// one large copy per width in the tiling XLA's TPU layouts give it, both
/// ways, aligned and not.
#[test]
#[cfg_attr(miri, ignore = "8 MiB copies")]
fn streamed_tilings_of_each_width() {
    for (t, dims, tiling) in [
        (PrimitiveType::U8, [2 * 1024 + 33, 4096 + 1], TILINGS[3]),
        (PrimitiveType::Bf16, [1024 + 9, 4096 + 1], TILINGS[1]),
        (PrimitiveType::F32, [512 + 7, 4096 + 1], TILINGS[0]),
        (PrimitiveType::F64, [256 + 7, 4096 + 1], TILINGS[0]),
    ] {
        check_tiling(t, 8 * t.byte_width().unwrap(), dims, tiling, &SKEWS[..2]);
    }
}
