//! `relayout::Shards`: every byte of every device's shard against an
//! element-by-element reference built from the sharding's per-device
//! slices (`HloSharding::device_slices`, jax's `devices_indices_map` for a
//! replicated sharding) and `TiledLayout::offset`; assembly back.

use xla_shape::relayout::{Shards, StridedSource, relayout_to_vec};
use xla_shape::sharding::HloSharding;
use xla_shape::tiling::TiledLayout;
use xla_shape::{ArrayShape, ErrorKind, Layout, PrimitiveType, Shape};

use crate::common::every_index;
use crate::relayout_tilings::TPU_SYNC_665;

/// Writes the low `bits` bits of `v` at slot `o` (XLA:CPU's packing: the
/// first element of a byte in its low bits).
fn write(buf: &mut [u8], o: i64, bits: i64, v: u64) {
    for k in 0..bits {
        let b = (o * bits + k) as usize;
        let bit = ((v >> k) & 1) as u8;
        buf[b / 8] = (buf[b / 8] & !(1 << (b % 8))) | (bit << (b % 8));
    }
}

/// A global array whose elements differ (within the element's bits).
fn pattern(count: i64, e: i64, bits: i64) -> Vec<u8> {
    (0..count * e)
        .map(|k| {
            let v = (k * 37 + k / 251) as u8;
            if bits < 8 { v & ((1 << bits) - 1) } else { v }
        })
        .collect()
}

/// Each device's bytes, element by element.
fn reference(
    global: &[u8],
    dims: &[i64],
    e: i64,
    sharding: &HloSharding,
    device: &ArrayShape,
    num_devices: i64,
) -> Vec<Vec<u8>> {
    let slices = if sharding.is_replicated() {
        sharding.devices_indices_map(dims, num_devices).unwrap()
    } else {
        sharding.device_slices(dims).unwrap()
    };
    let t = TiledLayout::new(device).unwrap();
    let bits = t.element_size_in_bits();
    slices
        .iter()
        .map(|s| {
            let mut buf = vec![0u8; t.byte_size() as usize];
            for j in every_index(device.dimensions()) {
                let g: Vec<i64> = j.iter().zip(&s.offsets).map(|(a, b)| a + b).collect();
                if g.iter().zip(&s.limits).any(|(a, l)| a >= l) {
                    continue; // padding of a cut shard: zero
                }
                let linear = g.iter().zip(dims).fold(0i64, |acc, (&i, &n)| acc * n + i);
                let mut v = 0u64;
                for k in 0..e {
                    v |= u64::from(global[(linear * e + k) as usize]) << (8 * k);
                }
                write(&mut buf, t.offset(&j).unwrap(), bits, v);
            }
            buf
        })
        .collect()
}

fn array(s: &str) -> ArrayShape {
    let s: Shape = s.parse().unwrap();
    s.as_array().unwrap().clone()
}

fn check(global_dims: &[i64], t: PrimitiveType, sharding: &str, layout: &str, num_devices: i64) {
    let sharding: HloSharding = sharding.parse().unwrap();
    let global = ArrayShape::new(t, global_dims.to_vec()).unwrap();
    let tile = sharding.tile_shape(&Shape::from(global.clone())).unwrap();
    let tile = tile.as_array().unwrap();
    let device = array(&format!(
        "{}[{}]{layout}",
        t.lowercase_name(),
        tile.dimensions()
            .iter()
            .map(i64::to_string)
            .collect::<Vec<_>>()
            .join(",")
    ));
    let e = t.byte_width().unwrap();
    let bits = TiledLayout::new(&device).unwrap().element_size_in_bits();
    let count: i64 = global_dims.iter().product();
    let src = pattern(count, e, bits.min(8 * e));
    let want = reference(&src, global_dims, e, &sharding, &device, num_devices);
    let plan = Shards::new(&global, &sharding, &device, num_devices).unwrap();
    let got = plan.run_to_vecs(&src).unwrap();
    assert_eq!(got.len(), want.len(), "{sharding} into {device}");
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "shard {k} of {global} under {sharding} into {device}");
    }
    // Into buffers that held other bytes: padding is written.
    let mut bufs = vec![vec![0xa5u8; plan.device_byte_size()]; want.len()];
    let mut refs: Vec<&mut [u8]> = bufs.iter_mut().map(Vec::as_mut_slice).collect();
    plan.run(&src, &mut refs).unwrap();
    assert_eq!(bufs, want);
    // And back; the replicas are not read.
    let mut shards = want.clone();
    for (k, &f) in plan.replica_of().iter().enumerate() {
        if f != k {
            shards[k].fill(0xee);
        }
    }
    let refs: Vec<&[u8]> = shards.iter().map(Vec::as_slice).collect();
    assert_eq!(
        plan.assemble_to_vec(&refs).unwrap(),
        src,
        "assembling {sharding}"
    );

    // The same array read through a strided view: reversed rows of a
    // buffer with a gap before it.
    if global_dims.len() == 2 {
        let (r, c) = (global_dims[0], global_dims[1]);
        let gap = 3 * e;
        let mut buf = vec![0u8; gap as usize];
        for i in (0..r).rev() {
            buf.extend_from_slice(&src[(i * c * e) as usize..((i + 1) * c * e) as usize]);
        }
        let view = StridedSource::new(t, global_dims.to_vec(), vec![-c * e, e])
            .unwrap()
            .with_byte_offset((gap + (r - 1).max(0) * c * e) as usize);
        let plan = Shards::from_strided(&view, &sharding, &device, num_devices).unwrap();
        assert_eq!(plan.run_to_vecs(&buf).unwrap(), want, "strided {sharding}");
        assert_eq!(plan.assemble_to_vec(&refs).unwrap(), src);

        // A column-major global array, assembled column-major.
        let cm = global
            .clone()
            .with_layout(Some(Layout::new([0, 1])))
            .unwrap();
        let src_cm = relayout_to_vec(&global, &src, &cm).unwrap();
        let plan = Shards::new(&cm, &sharding, &device, num_devices).unwrap();
        assert_eq!(
            plan.run_to_vecs(&src_cm).unwrap(),
            want,
            "column-major {sharding}"
        );
        assert_eq!(plan.assemble_to_vec(&refs).unwrap(), src_cm);
    }
}

#[test]
fn tiled_two_dimensional_shardings() {
    use PrimitiveType::*;
    for [r, c] in TPU_SYNC_665 {
        for sharding in [
            "{devices=[2,2]<=[4]}",
            "{devices=[2,2]0,2,3,1}",
            "{devices=[1,4]<=[4]}",
            "{devices=[3,1]<=[3]}",
        ] {
            for (t, layout) in [
                (F32, "{1,0:T(8,128)}"),
                (Bf16, "{1,0:T(8,128)(2,1)}"),
                (F32, "{1,0}"),
                (S8, "{0,1}"),
            ] {
                let n = if sharding.contains("[3,1]") { 3 } else { 4 };
                check(&[r, c], t, sharding, layout, n);
            }
        }
    }
}

#[test]
fn one_dimensional_and_sub_byte() {
    use PrimitiveType::*;
    for n in [8, 10, 1, 3] {
        check(&[n], F32, "{devices=[4]<=[4]}", "{0}", 4);
        check(&[n], U4, "{devices=[4]<=[4]}", "{0:E(4)}", 4);
        check(&[n], U4, "{devices=[2]1,0}", "{0:T(128)(2,1)E(4)}", 2);
    }
    check(
        &[16, 256],
        S4,
        "{devices=[2,1]<=[2]}",
        "{1,0:T(8,128)(2,1)E(4)}",
        2,
    );
    check(&[17, 3], S4, "{devices=[2,2]<=[4]}", "{1,0:E(4)}", 4);
}

#[test]
fn replicated_maximal_and_partially_replicated() {
    use PrimitiveType::*;
    for (r, c) in [(16, 256), (17, 257), (6, 3)] {
        check(&[r, c], F32, "{replicated}", "{1,0:T(8,128)}", 3);
        check(
            &[r, c],
            Bf16,
            "{maximal device=1}",
            "{1,0:T(8,128)(2,1)}",
            2,
        );
        check(
            &[r, c],
            Bf16,
            "{devices=[2,1,2]0,2,1,3 last_tile_dim_replicate}",
            "{1,0:T(8,128)(2,1)}",
            4,
        );
        check(
            &[r, c],
            F32,
            "{devices=[1,2,4]<=[8] last_tile_dim_replicate}",
            "{0,1}",
            8,
        );
    }
    // Three dimensions, one of them replicated over the last tile
    // dimension and the device order transposed.
    check(
        &[5, 6, 7],
        S8,
        "{devices=[2,1,3,2]<=[3,2,2]T(2,1,0) last_tile_dim_replicate}",
        "{2,0,1}",
        12,
    );
}

#[test]
fn errors() {
    let global = ArrayShape::new(PrimitiveType::F32, [4, 6]).unwrap();
    let s: HloSharding = "{devices=[1,2]<=[2]}".parse().unwrap();
    let wrong = array("f32[4,6]{1,0}");
    let e = Shards::new(&global, &s, &wrong, 2).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert!(e.message().contains("each device holds f32[4,3]"), "{e}");
    let device = array("f32[4,3]{1,0}");
    let e = Shards::new(&global, &s, &device, 1).unwrap_err();
    assert!(e.message().contains("not below the device count 1"), "{e}");
    for bad in ["{manual}", "{unknown}", "{{replicated}, {replicated}}"] {
        let s: HloSharding = bad.parse().unwrap();
        assert!(Shards::new(&global, &s, &wrong, 2).is_err(), "{bad}");
    }
    let e = Shards::new(&global, &s, &device, -1).unwrap_err();
    assert!(
        e.message().contains("the device count -1 is negative"),
        "{e}"
    );
    let r: HloSharding = "{replicated}".parse().unwrap();
    assert!(Shards::new(&global, &r, &global, i64::MAX).is_err());
    let plan = Shards::new(&global, &s, &device, 2).unwrap();
    let e = plan.run_to_vecs(&[0u8; 95]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::BufferSize);
    let mut one = vec![0u8; 48];
    let e = plan.run(&[0u8; 96], &mut [one.as_mut_slice()]).unwrap_err();
    assert!(
        e.message().contains("1 shard buffers given for 2 devices"),
        "{e}"
    );
    let e = plan.assemble_to_vec(&[&[0u8; 48], &[0u8; 47]]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::BufferSize);
    let e = plan
        .assemble(&[&[0u8; 48], &[0u8; 48]], &mut [0u8; 95])
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::BufferSize);
    let tiled = array("f32[4,6]{1,0:T(2,2)}");
    assert!(Shards::new(&tiled, &s, &device, 2).is_err());
}

#[cfg(feature = "rayon")]
#[test]
fn parallel_shards_are_the_same() {
    let global = ArrayShape::new(PrimitiveType::Bf16, [40, 300]).unwrap();
    let s: HloSharding = "{devices=[2,2,2]<=[8] last_tile_dim_replicate}"
        .parse()
        .unwrap();
    let device = array("bf16[20,150]{1,0:T(8,128)(2,1)}");
    let plan = Shards::new(&global, &s, &device, 8).unwrap();
    let src = pattern(40 * 300, 2, 16);
    let one = plan.run_to_vecs(&src).unwrap();
    let mut many = vec![vec![0u8; plan.device_byte_size()]; 8];
    let mut refs: Vec<&mut [u8]> = many.iter_mut().map(Vec::as_mut_slice).collect();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    pool.install(|| plan.run_parallel(&src, &mut refs)).unwrap();
    assert_eq!(one, many);
}

/// `assemble_parallel` against `assemble`, and `run_parallel` against
/// `run`, on pools of each of `threads` threads, from shards `run` wrote,
/// into buffers that held other bytes: arrays large enough (1 MiB and
/// more) that the work is cut across the threads.
#[cfg(feature = "rayon")]
fn check_parallel_with(
    global: &ArrayShape,
    sharding: &str,
    layout: &str,
    num_devices: i64,
    threads: &[usize],
) {
    let s: HloSharding = sharding.parse().unwrap();
    let t = global.element_type();
    let tile = s.tile_shape(&Shape::from(global.clone())).unwrap();
    let dims = tile.as_array().unwrap().dimensions().to_vec();
    let device = array(&format!(
        "{}[{}]{layout}",
        t.lowercase_name(),
        dims.iter()
            .map(i64::to_string)
            .collect::<Vec<_>>()
            .join(",")
    ));
    let plan = Shards::new(global, &s, &device, num_devices).unwrap();
    let e = t.byte_width().unwrap();
    let bits = TiledLayout::new(&device).unwrap().element_size_in_bits();
    let src = pattern(plan.global_byte_size() as i64 / e, e, bits.min(8 * e));
    let shards = plan.run_to_vecs(&src).unwrap();
    let refs: Vec<&[u8]> = shards.iter().map(Vec::as_slice).collect();
    let mut one = vec![0xa5u8; plan.global_byte_size()];
    plan.assemble(&refs, &mut one).unwrap();
    assert!(
        one == src,
        "assemble of {global} under {sharding} into {device}"
    );
    for &n in threads {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .unwrap();
        let mut many = vec![0x5au8; plan.global_byte_size()];
        pool.install(|| plan.assemble_parallel(&refs, &mut many))
            .unwrap();
        assert!(
            one == many,
            "parallel assemble ({n} threads) of {global} under {sharding} into {device}"
        );
        let mut bufs = vec![vec![0xa5u8; plan.device_byte_size()]; shards.len()];
        let mut outs: Vec<&mut [u8]> = bufs.iter_mut().map(Vec::as_mut_slice).collect();
        pool.install(|| plan.run_parallel(&src, &mut outs)).unwrap();
        assert!(
            bufs == shards,
            "parallel shards ({n} threads) of {global} under {sharding} into {device}"
        );
    }
}

/// [`check_parallel_with`] on a 3-thread pool (uneven bands).
#[cfg(feature = "rayon")]
fn check_parallel_assemble(global: &ArrayShape, sharding: &str, layout: &str, num_devices: i64) {
    check_parallel_with(global, sharding, layout, num_devices, &[3]);
}

#[cfg(feature = "rayon")]
#[test]
#[cfg_attr(miri, ignore = "arrays of several MiB")]
fn parallel_assemble_is_assemble() {
    use PrimitiveType::*;
    let rm = |t, dims: &[i64]| ArrayShape::new(t, dims.to_vec()).unwrap();
    // Even tiles (boxes of 1.4 MiB), uneven ones cut at the end of the
    // array, rows only (each shard one range of the global array).
    for (dims, sharding) in [
        ([1100, 1300], "{devices=[2,2]<=[4]}"),
        ([1101, 1301], "{devices=[2,2]0,2,3,1}"),
        ([2300, 700], "{devices=[3,1]<=[3]}"),
        ([1100, 2600], "{devices=[1,2]<=[2]}"),
    ] {
        for (t, layout) in [
            (F32, "{1,0:T(8,128)}"),
            (Bf16, "{1,0:T(8,128)(2,1)}"),
            (F32, "{1,0}"),
            (S8, "{0,1}"),
        ] {
            check_parallel_assemble(&rm(t, &dims), sharding, layout, 4);
        }
    }
    // Replicated, and partially replicated (two devices per slice).
    let g = rm(Bf16, &[1200, 1000]);
    check_parallel_assemble(&g, "{replicated}", "{1,0:T(8,128)(2,1)}", 3);
    check_parallel_assemble(
        &g,
        "{devices=[1,2,2]<=[4] last_tile_dim_replicate}",
        "{1,0:T(8,128)(2,1)}",
        4,
    );
    // A column-major global array (its most major dimension is 1), and
    // three dimensions with the device order transposed.
    let cm = rm(F32, &[1300, 1100])
        .with_layout(Some(Layout::new([0, 1])))
        .unwrap();
    check_parallel_assemble(&cm, "{devices=[2,2]<=[4]}", "{1,0:T(8,128)}", 4);
    check_parallel_assemble(&cm, "{devices=[1,2]<=[2]}", "{0,1}", 2);
    check_parallel_assemble(&cm, "{devices=[2,2]<=[4]}", "{0,1:T(8,128)}", 4);
    // A tile of lower rank than the array: bands of the untiled major
    // dimension.
    check_parallel_assemble(
        &rm(F32, &[6, 300, 700]),
        "{devices=[2,1,2]<=[4]}",
        "{2,1,0:T(8,128)}",
        4,
    );
    check_parallel_assemble(
        &rm(S8, &[5, 1200, 1100]),
        "{devices=[2,1,3,2]<=[3,2,2]T(2,1,0) last_tile_dim_replicate}",
        "{2,0,1}",
        12,
    );
    // Small arrays: the calling thread.
    check_parallel_assemble(
        &rm(F32, &[17, 257]),
        "{devices=[2,2]<=[4]}",
        "{1,0:T(8,128)}",
        4,
    );
}

/// Many small shards (64 devices, boxes of 16 KiB to 512 KiB): whole
/// shards, or whole bands of rows of the global array, are given to the
/// threads of 2- and 4-thread pools; the bytes are those of the serial
/// `assemble` and `run`.
#[cfg(feature = "rayon")]
#[test]
#[cfg_attr(miri, ignore = "arrays of 1 MiB and more")]
fn many_small_shards_in_parallel() {
    use PrimitiveType::*;
    let rm = |t, dims: &[i64]| ArrayShape::new(t, dims.to_vec()).unwrap();
    let both = &[2, 4];
    let f32s = rm(F32, &[1024, 256]);
    for sharding in [
        "{devices=[16,4]<=[64]}",
        "{devices=[16,4]<=[4,16]T(1,0)}",
        "{devices=[64,1]<=[64]}",
        "{devices=[1,64]<=[64]}",
        "{devices=[2,2,16]<=[64] last_tile_dim_replicate}",
        "{devices=[4,1,16]<=[16,4]T(1,0) last_tile_dim_replicate}",
        "{replicated}",
    ] {
        // Tiled (bands of rows), untiled (bands of single rows), and
        // column-major (no bands: whole shards staged).
        for layout in ["{1,0:T(8,128)}", "{1,0}", "{0,1}"] {
            check_parallel_with(&f32s, sharding, layout, 64, both);
        }
    }
    // Uneven: the last shards of each dimension cut at the end of the
    // array (1000 = 15 * 63 + 55; 250 = 3 * 63 + 61), of 1 to 8 bytes.
    for (t, layout) in [
        (F32, "{1,0:T(8,128)}"),
        (Bf16, "{1,0:T(8,128)(2,1)}"),
        (S8, "{1,0:T(32,128)(4,1)}"),
        (F64, "{1,0}"),
        (S16, "{0,1:T(8,128)(2,1)}"),
    ] {
        let dims = [1000, 250 * 4 / t.byte_width().unwrap() + 2];
        check_parallel_with(&rm(t, &dims), "{devices=[16,4]<=[64]}", layout, 64, both);
    }
    // Empty shards: 17 rows over 16 devices are 2 rows each for the first
    // 8 devices, 1 for the ninth, none for the rest.
    check_parallel_with(
        &rm(F32, &[17, 16384]),
        "{devices=[16,4]<=[64]}",
        "{1,0:T(8,128)}",
        64,
        both,
    );
    // Sub-byte elements packed in the device buffers.
    check_parallel_with(
        &rm(S4, &[1024, 1024]),
        "{devices=[16,4]<=[64]}",
        "{1,0:T(8,128)(2,1)E(4)}",
        64,
        both,
    );
    // A column-major global array (its rows are columns) and three
    // dimensions, partially replicated with the device order transposed.
    let cm = rm(F32, &[256, 1024])
        .with_layout(Some(Layout::new([0, 1])))
        .unwrap();
    check_parallel_with(&cm, "{devices=[4,16]<=[64]}", "{1,0:T(8,128)}", 64, both);
    check_parallel_with(&cm, "{devices=[4,16]<=[64]}", "{0,1:T(8,128)}", 64, both);
    check_parallel_with(
        &rm(S8, &[16, 256, 300]),
        "{devices=[8,2,2,2]<=[2,4,8]T(2,1,0) last_tile_dim_replicate}",
        "{2,1,0:T(8,128)(4,1)}",
        64,
        both,
    );
}
