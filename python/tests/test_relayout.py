"""relayout through the buffer protocol, against XLA's element order
(tests/data/index.jsonl, made by jaxlib 0.10.2) and NumPy."""

import threading

import pytest

import xla_shape as xs
from conftest import records

np = pytest.importorskip("numpy")

INDEX = [r for r in records("index.jsonl") if r["kind"] == "index"]
PACKING = [r for r in records("index.jsonl") if r["kind"] == "subbyte_packing"]


@pytest.mark.parametrize("r", INDEX, ids=[r["xla_str"] for r in INDEX])
def test_memory_order_is_xla(r):
    """Element k of the buffer in the record's layout is the element XLA
    puts there (``memory_order``: row-major numbers in memory order)."""
    dst = xs.Shape(r["shape"])
    src = xs.Shape.array_shape("S32", r["dims"])
    n = int(np.prod(r["dims"], dtype=np.int64))
    out = xs.relayout(np.arange(n, dtype=np.int32), src, dst)
    assert out.ravel().tolist() == r["memory_order"]
    assert out.nbytes == r["on_device_size_in_bytes"] == xs.shape_util.byte_size_of(dst)
    # And back.
    back = xs.relayout(out, dst, src)
    assert back.ravel().tolist() == list(range(n))


@pytest.mark.parametrize("r", PACKING, ids=[r["shape"] for r in PACKING])
def test_subbyte_packing_is_xla(r):
    dst = xs.Shape(r["shape"])
    src = xs.Shape.array_shape("U8", r["dims"])
    values = np.array(r["values_row_major"], dtype=np.uint8)
    assert src.dimensions() == tuple(r["dims"])
    src4 = xs.Shape.array_shape("U4", r["dims"])
    packed = xs.relayout(values, src4, dst)
    assert bytes(packed).hex() == r["raw_hex"]


def test_transpose_matches_numpy():
    a = np.random.default_rng(0).random((33, 70), dtype=np.float32)
    rm = xs.Shape("f32[33,70]{1,0}")
    cm = xs.Shape("f32[33,70]{0,1}")
    out = xs.relayout(a, rm, cm)
    assert out.shape == (70, 33)
    assert np.array_equal(out, np.ascontiguousarray(a.T))


def test_accepts_bytes_bytearray_memoryview_and_out():
    src = xs.Shape("u8[2,3]{1,0}")
    dst = xs.Shape("u8[2,3]{0,1}")
    data = bytes([1, 2, 3, 4, 5, 6])
    for obj in (data, bytearray(data), memoryview(data)):
        assert bytes(xs.relayout(obj, src, dst)) == bytes([1, 4, 2, 5, 3, 6])
    out = bytearray(6)
    assert xs.relayout(data, src, dst, out=out) is out
    assert bytes(out) == bytes([1, 4, 2, 5, 3, 6])


def test_tiled_destination_is_bytes_with_zero_padding():
    src = xs.Shape("f32[3,5]{1,0}")
    dst = xs.Shape("f32[3,5]{1,0:T(2,4)}")
    out = xs.relayout(np.ones((3, 5), dtype=np.float32), src, dst)
    assert out.dtype == np.uint8
    tiled = xs.TiledLayout(dst)
    assert out.nbytes == tiled.byte_size() == 4 * 4 * 8
    values = out.view(np.float32)
    assert int((values == 1).sum()) == 15
    assert int((values == 0).sum()) == 32 - 15
    for k in range(tiled.slot_count()):
        assert (tiled.slot(k) is None) == (values[k] == 0)


def test_wrong_sizes_raise():
    src = xs.Shape("f32[2,3]{1,0}")
    dst = xs.Shape("f32[2,3]{0,1}")
    with pytest.raises(xs.BufferSizeError):
        xs.relayout(b"\0" * 23, src, dst)
    with pytest.raises(xs.BufferSizeError):
        xs.relayout(b"\0" * 25, src, dst)
    with pytest.raises(xs.BufferSizeError):
        xs.relayout(b"\0" * 24, src, dst, out=bytearray(23))
    with pytest.raises(xs.InvalidArgumentError):
        xs.relayout(b"\0" * 24, src, xs.Shape("f32[3,2]"))
    with pytest.raises(xs.InvalidArgumentError):
        xs.relayout(b"", xs.Shape("(f32[2])"), dst)


def test_bad_buffers_raise():
    src = xs.Shape("u8[4]")
    with pytest.raises(TypeError):
        xs.relayout("text", src, src)
    with pytest.raises(TypeError):
        xs.relayout(12, src, src)
    with pytest.raises(BufferError):
        xs.relayout(b"abcd", src, src, out=b"abcd")  # read-only output
    with pytest.raises((BufferError, ValueError)):
        # A non-contiguous view has no simple buffer (NumPy: ValueError).
        xs.relayout(np.zeros(8, dtype=np.uint8)[::2], src, src)
    buf = bytearray(4)
    with pytest.raises(xs.InvalidArgumentError):
        xs.relayout(buf, src, src, out=buf)
    with pytest.raises(xs.InvalidArgumentError):
        xs.relayout(memoryview(buf)[:4], src, src, out=memoryview(buf))


def test_concurrent_relayouts_release_the_gil():
    """Several threads copy at once (the GIL is released during each copy);
    every result is right."""
    a = np.arange(256 * 512, dtype=np.float32).reshape(256, 512)
    rm, cm = xs.Shape("f32[256,512]{1,0}"), xs.Shape("f32[256,512]{0,1}")
    expected = np.ascontiguousarray(a.T)
    errors = []

    def work():
        try:
            for _ in range(20):
                assert np.array_equal(xs.relayout(a, rm, cm), expected)
                xs.Shape.parse("bf16[8,128]{1,0:T(8,128)(2,1)}")
        except Exception as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


def test_strides_round_trip_with_numpy():
    a = np.zeros((4, 6, 8), dtype=np.float32)
    for perm in [(0, 1, 2), (2, 1, 0), (1, 0, 2)]:
        view = a.transpose(perm)
        lay = xs.strides.layout_from_byte_strides(np.float32, list(view.shape), list(view.strides))
        s = xs.Shape.array_shape(np.float32, view.shape, lay.minor_to_major())
        assert xs.strides.byte_strides(s) == list(view.strides)
