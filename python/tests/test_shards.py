"""byte_ranges, shard and assemble over NumPy arrays: against jax 0.10.2's
own shards (tests/data/oracle/shards.jsonl: ``jax.device_put`` with a
``NamedSharding`` on eight CPU devices, each device's index and bytes) and
against an element-by-element reference from ``TiledLayout.offset``."""

import itertools

import pytest

import xla_shape as xs
from conftest import records

np = pytest.importorskip("numpy")
ml_dtypes = pytest.importorskip("ml_dtypes")

JAX = records("oracle/shards.jsonl")
ELEMENT = {"float32": "F32", "bfloat16": "BF16", "int8": "S8", "int16": "S16", "uint8": "U8"}


def bounds(sl, n):
    """A Python slice of a dimension of size ``n`` as ``(start, stop)``."""
    return (sl.start or 0, n if sl.stop is None else sl.stop)


def global_array(dims, dtype):
    n = int(np.prod(dims))
    return (np.arange(n) % 251).astype(np.dtype(dtype)).reshape(dims)


@pytest.mark.parametrize("r", JAX, ids=[f'{r["dims"]}-{r["spec"]}' for r in JAX])
def test_shards_are_jax_shards(r):
    dims, dtype = r["dims"], r["dtype"]
    x = global_array(dims, dtype)
    sharding = xs.HloSharding.from_string(r["sharding"])
    g = xs.Shape.array_shape(ELEMENT[dtype], dims)
    tile = sharding.tile(g)
    out = xs.shard(x, g, sharding, tile, num_devices=r["num_devices"])
    assert [d for d, _ in out] == [s["device"] for s in r["shards"]]
    for (device, buf), s in zip(out, r["shards"]):
        assert buf.tobytes().hex() == s["hex"], f"device {device}"
        assert buf.shape == tuple(b - a for a, b in zip(s["start"], s["stop"]))
    # jax's devices_indices_map, as this package reads the sharding.
    slices = sharding.devices_indices_map(dims, r["num_devices"])
    assert sorted(slices) == [s["device"] for s in r["shards"]]
    for want in r["shards"]:
        got = [bounds(sl, d) for sl, d in zip(slices[want["device"]], dims)]
        assert got == list(zip(want["start"], want["stop"]))
    back = xs.assemble([b for _, b in out], g, sharding, tile, num_devices=r["num_devices"])
    assert np.array_equal(back, x)
    # On all cores too.
    par = xs.shard(x, g, sharding, tile, num_devices=r["num_devices"], parallel=True)
    assert all(np.array_equal(a, b) for (_, a), (_, b) in zip(out, par))


def reference(x, sharding, device_shape):
    """Each device's bytes element by element: the slice ``device_slices``
    gives it, placed at ``TiledLayout.offset`` (padding zero)."""
    t = xs.TiledLayout(device_shape)
    e = x.dtype.itemsize
    raw = x.view(np.uint8).reshape(-1)
    dims = x.shape
    out = []
    for _, slices in sorted(sharding.device_slices(list(dims)).items()):
        start, stop = zip(*(bounds(sl, n) for sl, n in zip(slices, dims)))
        buf = bytearray(t.byte_size())
        for j in itertools.product(*(range(n) for n in device_shape.dimensions())):
            g = [a + b for a, b in zip(j, start)]
            if any(a >= b for a, b in zip(g, stop)):
                continue
            k = int(np.ravel_multi_index(g, dims))
            o = t.offset(list(j)) * e
            buf[o : o + e] = raw[k * e : (k + 1) * e].tobytes()
        out.append(bytes(buf))
    return out


@pytest.mark.parametrize(
    "dims,sharding,layout",
    [
        ((17, 257), "{devices=[2,2]<=[4]}", "{1,0:T(8,128)(2,1)}"),
        ((10, 130), "{devices=[3,1]<=[3]}", "{1,0:T(8,128)(2,1)}"),
        ((24, 384), "{devices=[2,1,2]0,2,1,3 last_tile_dim_replicate}", "{0,1}"),
    ],
)
def test_uneven_shards_are_padded_with_zeros(dims, sharding, layout):
    x = global_array(dims, "bfloat16")
    s = xs.HloSharding.from_string(sharding)
    g = xs.Shape.array_shape("BF16", list(dims))
    tile = s.tile(g)
    device = xs.Shape(f"bf16[{','.join(map(str, tile.dimensions()))}]{layout}")
    got = xs.shard(x, g, s, device)
    assert [b.tobytes() for _, b in got] == reference(x, s, device)
    back = xs.assemble([b for _, b in got], g, s, device)
    assert np.array_equal(back, x)
    # Into a buffer of our own, from bytes objects.
    out = np.zeros(dims, dtype=ml_dtypes.bfloat16)
    res = xs.assemble([b.tobytes() for _, b in got], g, s, device, out=out)
    assert res is out and np.array_equal(out, x)


def brute_byte_ranges(shape, start, limit):
    t = xs.TiledLayout(shape)
    bits = t.element_size_in_bits()
    held = set()
    for i in itertools.product(*(range(a, b) for a, b in zip(start, limit))):
        o = t.offset(list(i))
        held.update(range(o * bits // 8, (o * bits + bits + 7) // 8))
    runs = []
    for b in sorted(held):
        if runs and runs[-1][1] == b:
            runs[-1][1] = b + 1
        else:
            runs.append([b, b + 1])
    return [tuple(r) for r in runs]


@pytest.mark.parametrize(
    "text",
    ["bf16[17,257]{1,0:T(8,128)(2,1)}", "f32[10,130]{1,0:T(8,128)}", "s4[6,9]{0,1:T(2,4)E(4)}"],
)
def test_byte_ranges_match_offsets(text):
    shape = xs.Shape(text)
    t = xs.TiledLayout(shape)
    dims = shape.dimensions()
    for start, limit in [((0, 0), dims), ((1, 2), (5, 7)), ((3, 0), (4, dims[1])), ((0, 0), (0, 0))]:
        want = brute_byte_ranges(shape, start, limit)
        assert xs.byte_ranges(shape, start, limit) == want
        assert t.byte_ranges(start, limit) == want
    # Rows of the most major dimension of the layout.
    major = shape.layout().minor_to_major()[-1]
    limit = list(dims)
    limit[major] = 1
    assert t.row_byte_ranges(0, 1) == brute_byte_ranges(shape, (0, 0), limit)
    assert len(t.slot_ranges((0, 0), dims)) >= 1


def test_row_addressable_and_sizes():
    t = xs.TiledLayout(xs.Shape("f32[16,100]{1,0:T(8,128)}"))
    assert t.is_row_addressable(0) and not t.is_row_addressable(1)
    # 16 rows of 128 slots, of which 100 hold elements.
    assert (t.byte_size(), t.unpadded_byte_size()) == (16 * 128 * 4, 16 * 100 * 4)
    assert t.row_byte_ranges(3, 5) == [(3 * 512, 3 * 512 + 400), (4 * 512, 4 * 512 + 400)]


def test_bad_input_raises():
    shape = xs.Shape("f32[4,5]{1,0:T(2,2)}")
    with pytest.raises(xs.InvalidArgumentError, match="not within 0..4"):
        xs.byte_ranges(shape, [0, 0], [5, 5])
    with pytest.raises(xs.InvalidArgumentError, match="more than 3 byte ranges"):
        xs.byte_ranges(shape, [0, 0], [4, 1], max_ranges=3)
    with pytest.raises(xs.InvalidArgumentError):
        xs.byte_ranges(shape, [0], [1])
    with pytest.raises(TypeError):
        xs.byte_ranges(shape, "ab", [1, 1])
    with pytest.raises((OverflowError, TypeError)):
        xs.byte_ranges(shape, [0, 0], [1, 1], max_ranges=-1)
    with pytest.raises(xs.InvalidArgumentError):
        xs.TiledLayout(shape).is_row_addressable(7)

    g = xs.Shape.array_shape("F32", [4, 6])
    s = xs.HloSharding.from_string("{devices=[1,2]<=[2]}")
    device = xs.Shape("f32[4,3]")
    x = np.zeros((4, 6), dtype=np.float32)
    with pytest.raises(xs.BufferSizeError):
        xs.shard(x[:3], g, s, device)
    with pytest.raises(xs.InvalidArgumentError, match="each device holds f32"):
        xs.shard(x, g, s, g)
    with pytest.raises(xs.InvalidArgumentError, match="dtype"):
        xs.shard(x.astype(np.int32), g, s, device)
    with pytest.raises(xs.InvalidArgumentError, match="give num_devices"):
        xs.shard(x, g, xs.HloSharding.from_string("{replicated}"), g)
    with pytest.raises(xs.InvalidArgumentError, match="not contiguous"):
        xs.shard(np.zeros((4, 12), dtype=np.float32)[:, ::2], g, s, device)
    shards = [b for _, b in xs.shard(x, g, s, device)]
    with pytest.raises(xs.InvalidArgumentError, match="1 shards given for 2 devices"):
        xs.assemble(shards[:1], g, s, device)
    with pytest.raises(xs.BufferSizeError):
        xs.assemble([shards[0], shards[1][:-1]], g, s, device)
    with pytest.raises(xs.InvalidArgumentError, match="overlap"):
        xs.assemble(shards, g, s, device, out=shards[0].view(np.float32).reshape(2, 6))
    with pytest.raises(TypeError):
        xs.assemble(7, g, s, device)
    rep = xs.HloSharding.from_string("{replicated}")
    for n in (-1, 10**12):
        with pytest.raises(xs.XlaShapeError):
            xs.shard(x, g, rep, g, num_devices=n)
    with pytest.raises(OverflowError):
        xs.shard(x, g, rep, g, num_devices=10**30)
    with pytest.raises(xs.InvalidArgumentError, match="not below the device count 1"):
        xs.shard(x, g, s, device, num_devices=1)


class LyingList(list):
    def __len__(self):
        return 10**15


def test_sequences_that_lie_about_their_length():
    g = xs.Shape.array_shape("F32", [4, 6])
    s = xs.HloSharding.from_string("{devices=[1,2]<=[2]}")
    device = xs.Shape("f32[4,3]")
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    shards = [b for _, b in xs.shard(x, g, s, device)]
    assert np.array_equal(xs.assemble(LyingList(shards), g, s, device), x)
    assert xs.byte_ranges(g, LyingList([0, 0]), LyingList([1, 6])) == [(0, 24)]


def plan_of(dims, sharding, layout, dtype="bfloat16", element="BF16"):
    s = xs.HloSharding.from_string(sharding)
    g = xs.Shape.array_shape(element, list(dims))
    tile = s.tile(g)
    device = xs.Shape(f"{element.lower()}[{','.join(map(str, tile.dimensions()))}]{layout}")
    return global_array(dims, dtype), g, s, device


@pytest.mark.parametrize("parallel", [False, True])
@pytest.mark.parametrize(
    "dims,sharding,layout",
    [
        ((17, 257), "{devices=[2,2]<=[4]}", "{1,0:T(8,128)(2,1)}"),
        ((24, 384), "{devices=[2,1,2]0,2,1,3 last_tile_dim_replicate}", "{1,0}"),
        ((16, 256), "{devices=[4,1]<=[4]}", "{0,1}"),
    ],
)
def test_shard_into_out_is_the_fresh_shards(dims, sharding, layout, parallel):
    x, g, s, device = plan_of(dims, sharding, layout)
    fresh = xs.shard(x, g, s, device, parallel=parallel)
    size = xs.TiledLayout(device).byte_size()
    # Buffers that held other bytes, of every kind the docstring accepts:
    # uint8 arrays, arrays of the element type, bytearrays, memoryviews.
    kinds = [
        lambda: np.full(size, 0xA5, dtype=np.uint8),
        lambda: np.full(size // 2, 3, dtype=ml_dtypes.bfloat16),
        lambda: bytearray(b"\x5a" * size),
        lambda: memoryview(bytearray(b"\x5a" * size)),
    ]
    outs = [kinds[k % len(kinds)]() for k in range(len(fresh))]
    got = xs.shard(x, g, s, device, parallel=parallel, out=outs)
    assert [d for d, _ in got] == [d for d, _ in fresh]
    for (_, buf), o, (_, want) in zip(got, outs, fresh):
        assert buf is o
        raw = o.tobytes() if isinstance(o, np.ndarray) else bytes(o)
        assert raw == want.tobytes()
    # A Fortran-ordered out is one contiguous block too.
    if layout == "{1,0}":
        tile = device.dimensions()
        outs = [np.asfortranarray(np.zeros(tile, dtype=ml_dtypes.bfloat16).T) for _ in fresh]
        xs.shard(x, g, s, device, out=outs)
        assert all(np.asarray(o).tobytes("A") == w.tobytes() for o, (_, w) in zip(outs, fresh))


def test_shard_out_errors():
    x, g, s, device = plan_of((16, 256), "{devices=[2,2]<=[4]}", "{1,0:T(8,128)(2,1)}")
    size = xs.TiledLayout(device).byte_size()

    def outs(n=4):
        return [np.full(size, 0xA5, dtype=np.uint8) for _ in range(n)]

    for n in (3, 5):
        with pytest.raises(xs.InvalidArgumentError, match=f"{n} shard buffers given for 4 devices"):
            xs.shard(x, g, s, device, out=outs(n))
    wrong = outs()
    wrong[2] = np.zeros(size - 2, dtype=np.uint8)
    with pytest.raises(xs.BufferSizeError, match=rf"\(device 2\) has {size - 2} bytes but .* takes {size} bytes"):
        xs.shard(x, g, s, device, out=wrong)
    ro = outs()
    ro[1].flags.writeable = False
    with pytest.raises(BufferError, match="read-only"):
        xs.shard(x, g, s, device, out=ro)
    with pytest.raises(BufferError, match="read-only"):
        xs.shard(x, g, s, device, out=outs(3) + [bytes(size)])
    strided = outs(3) + [np.zeros(2 * size, dtype=np.uint8)[::2]]
    with pytest.raises(xs.InvalidArgumentError, match="not contiguous"):
        xs.shard(x, g, s, device, out=strided)
    with pytest.raises(xs.InvalidArgumentError, match="dtype"):
        xs.shard(x, g, s, device, out=outs(3) + [np.zeros(size // 4, dtype=np.float32)])
    # Two outputs sharing memory: the same object twice, or two views of
    # one buffer that overlap by a byte. Nothing is written.
    same = outs()
    same[3] = same[0]
    big = np.full(2 * size, 0xA5, dtype=np.uint8)
    halves = outs(2) + [big[: size], big[size - 1 : 2 * size - 1]]
    for bad, pair in [(same, r"out\[0\] and out\[3\]"), (halves, r"out\[2\] and out\[3\]")]:
        with pytest.raises(xs.InvalidArgumentError, match=pair + " overlap"):
            xs.shard(x, g, s, device, out=bad)
        assert all((np.asarray(o) == 0xA5).all() for o in bad)
    # Adjacent views that do not overlap are fine.
    whole = np.zeros(4 * size, dtype=np.uint8)
    got = xs.shard(x, g, s, device, out=[whole[k * size : (k + 1) * size] for k in range(4)])
    assert whole.tobytes() == b"".join(b.tobytes() for _, b in xs.shard(x, g, s, device))
    assert [b.base is whole for _, b in got] == [True] * 4
    # An output over the input array.
    raw = np.zeros(x.nbytes + size, dtype=np.uint8)
    xin = raw[: x.nbytes].view(ml_dtypes.bfloat16).reshape(x.shape)
    xin[...] = x
    with pytest.raises(xs.InvalidArgumentError, match=r"out\[1\] and the array overlap"):
        xs.shard(xin, g, s, device, out=[outs(1)[0], raw[x.nbytes - 1 : x.nbytes - 1 + size]] + outs(2))
    assert np.array_equal(xin, x)
    with pytest.raises(TypeError):
        xs.shard(x, g, s, device, out=7)


@pytest.mark.parametrize(
    "dims,sharding,layout,n",
    [
        ((1100, 1300), "{devices=[2,2]<=[4]}", "{1,0:T(8,128)(2,1)}", None),
        ((1101, 1301), "{devices=[2,2]0,2,3,1}", "{1,0:T(8,128)(2,1)}", None),
        ((2300, 700), "{devices=[3,1]<=[3]}", "{1,0}", None),
        ((1200, 1000), "{replicated}", "{1,0:T(8,128)(2,1)}", 3),
        ((1200, 1000), "{devices=[1,2,2]<=[4] last_tile_dim_replicate}", "{0,1}", None),
    ],
)
def test_parallel_assemble_is_assemble(dims, sharding, layout, n):
    # Large enough (boxes over 1 MiB) for the copies to be cut for threads.
    x, g, s, device = plan_of(dims, sharding, layout)
    shards = [b for _, b in xs.shard(x, g, s, device, num_devices=n, parallel=True)]
    one = xs.assemble(shards, g, s, device, num_devices=n)
    many = xs.assemble(shards, g, s, device, num_devices=n, parallel=True)
    assert many.tobytes() == one.tobytes() and np.array_equal(one, x)
    out = np.full_like(x, 7)
    res = xs.assemble(shards, g, s, device, n, out, True)
    assert res is out and np.array_equal(out, x)


@pytest.mark.parametrize(
    "dims,sharding,layout,dtype,element",
    [
        ((1024, 256), "{devices=[16,4]<=[64]}", "{1,0:T(8,128)}", "float32", "F32"),
        ((1024, 256), "{devices=[2,2,16]<=[64] last_tile_dim_replicate}", "{1,0:T(8,128)}", "float32", "F32"),
        ((1024, 512), "{devices=[64,1]<=[64]}", "{1,0:T(8,128)(2,1)}", "bfloat16", "BF16"),
        ((1000, 514), "{devices=[8,8]<=[64]}", "{1,0:T(8,128)(2,1)}", "bfloat16", "BF16"),
        ((1024, 1030), "{devices=[4,64]<=[256]}", "{0,1}", "int8", "S8"),
    ],
)
def test_many_small_shards_in_parallel(dims, sharding, layout, dtype, element):
    # Shards of 2 to 256 KiB: whole shards (or bands of rows) per thread,
    # the bytes those of the serial calls.
    x, g, s, device = plan_of(dims, sharding, layout, dtype, element)
    n = 256 if "256" in sharding else 64
    one = xs.shard(x, g, s, device, num_devices=n)
    many = xs.shard(x, g, s, device, num_devices=n, parallel=True)
    assert len(one) == n
    assert [(d, b.tobytes()) for d, b in many] == [(d, b.tobytes()) for d, b in one]
    shards = [b for _, b in one]
    serial = xs.assemble(shards, g, s, device, num_devices=n)
    assert np.array_equal(serial, x)
    out = np.full_like(x, 7)
    res = xs.assemble(shards, g, s, device, num_devices=n, out=out, parallel=True)
    assert res is out and out.tobytes() == serial.tobytes()


def test_shard_from_threads():
    # Without the GIL, several Python threads shard at once.
    from concurrent.futures import ThreadPoolExecutor

    x, g, s, device = plan_of((512, 1024), "{devices=[2,4]<=[8]}", "{1,0:T(8,128)(2,1)}")
    want = [b.tobytes() for _, b in xs.shard(x, g, s, device)]
    size = xs.TiledLayout(device).byte_size()

    def job(k):
        outs = [np.empty(size, dtype=np.uint8) for _ in want] if k % 2 else None
        got = xs.shard(x, g, s, device, parallel=k % 3 == 0, out=outs)
        back = xs.assemble([b for _, b in got], g, s, device, parallel=k % 4 == 0)
        return [b.tobytes() for _, b in got] == want and np.array_equal(back, x)

    with ThreadPoolExecutor(max_workers=4) as pool:
        assert all(pool.map(job, range(16)))
