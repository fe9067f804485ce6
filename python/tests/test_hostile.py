"""Input from Python never crashes the interpreter: wrong types, huge and
negative integers, invalid UTF-8, deep nesting, random bytes."""

import concurrent.futures
import inspect
import os
import pickle
import random
import subprocess
import sys

import pytest

import xla_shape as xs


def test_wrong_types_raise_type_error():
    for bad in (None, 3, 2.5, object(), [1, 2]):
        with pytest.raises(TypeError):
            xs.Shape.parse(bad)
        with pytest.raises(TypeError):
            xs.Shape.from_proto_bytes(bad if bad is not None else 1.0)
    with pytest.raises(TypeError):
        xs.Shape.array_shape("F32", "23")
    with pytest.raises(TypeError):
        xs.Shape.tuple_shape([xs.Shape("f32[2]"), "f32[2]"])
    with pytest.raises(TypeError):
        xs.shape_util.byte_size_of("f32[2]")
    with pytest.raises((TypeError, xs.XlaShapeError)):
        xs.Shape.array_shape(object(), [2])
    with pytest.raises(TypeError):
        xs.Shape.array_shape(True, [2])
    assert (xs.Shape("f32[2]") == "f32[2]") is False


def test_huge_and_negative_integers():
    with pytest.raises(OverflowError):
        xs.Shape.array_shape("F32", [2**63])
    with pytest.raises(OverflowError):
        xs.Shape.array_shape("F32", [-(2**64)])
    with pytest.raises(xs.InvalidArgumentError):
        xs.Shape.array_shape("F32", [-3])
    with pytest.raises(xs.XlaShapeError):
        xs.Shape.array_shape("F32", [2**62, 2**62])
    with pytest.raises(xs.ParseError):
        xs.Shape.parse("f32[99999999999999999999999]")
    with pytest.raises(xs.InvalidArgumentError):
        xs.Shape.array_shape(10**6, [2])
    with pytest.raises(OverflowError):
        xs.layout_util.make_descending_layout(-1)
    with pytest.raises(xs.InvalidArgumentError):
        xs.layout_util.make_descending_layout(2**40)
    s = xs.Shape("f32[2,3]")
    for bad in (-1, 2, 2**62):
        with pytest.raises(xs.InvalidArgumentError):
            s.is_dynamic_dimension(bad)
        with pytest.raises(xs.XlaShapeError):
            xs.shape_util.delete_dimension(bad, s)
        xs.layout_util.move_dim_to_major(s.layout(), bad)  # no crash
    with pytest.raises(xs.XlaShapeError):
        xs.shape_util.permute_dimensions([0, 0], s)
    with pytest.raises(xs.InvalidLayoutError):
        xs.layout_util.validate_layout_for_shape(xs.layout_util.make_layout([0, 0]), s)
    with pytest.raises(xs.XlaShapeError):
        xs.layout_util.major(s.layout(), 7)
    for index in ([5, 5], [1], [2**62, 2**62], []):
        try:  # XLA only DCHECKs these; either an answer or an error
            xs.index_util.multidimensional_index_to_linear_index(s, index)
        except xs.XlaShapeError:
            pass
    with pytest.raises(xs.XlaShapeError):
        xs.TiledLayout(s).offset([-1, 0])


def test_invalid_utf8_and_odd_text():
    with pytest.raises(xs.DecodeError):
        # A layout proto whose split config is a truncated message.
        xs.Layout.from_proto_bytes(b"\x92\x01\xff\xff")
    with pytest.raises(UnicodeEncodeError):
        xs.Shape.parse("f32[2]\udcff")
    for text in ("", "\0", "f32[" * 10000, "(" * 100000, "\u00e9[2]", "f32[2]{" + "1," * 100000 + "}"):
        with pytest.raises(xs.XlaShapeError):
            xs.Shape.parse(text)
    with pytest.raises(xs.FormatError):
        xs.Shape.from_json('{"elementType": "\\ud800"}')
    with pytest.raises(xs.FormatError):
        xs.Shape.from_text_format("element_type: F32 dimensions: \xff")
    with pytest.raises(xs.DecodeError):
        xs.LosslessMessage.decode(b"\x0a\x80")


def test_deep_nesting_is_refused():
    s = xs.Shape("f32[2]")
    depth = 0
    while True:
        try:
            s2 = xs.Shape.tuple_shape([s])
        except xs.InvalidArgumentError:
            break
        s, depth = s2, depth + 1
    # As deep as the decoder reads back (its message nesting limit).
    assert depth >= xs.MAX_NESTING_DEPTH - 2
    assert pickle.loads(pickle.dumps(s)) == s
    with pytest.raises(xs.XlaShapeError):
        xs.Shape.parse("(" * 1000 + "f32[2]" + ")" * 1000)


def test_random_bytes_never_crash():
    rng = random.Random(1)
    seeds = [bytes.fromhex(h) for h in ("100b1a020203", "100d", "101e1a0102320100", "0a020100800101")]
    for _ in range(3000):
        data = bytearray(rng.choice(seeds))
        for _ in range(rng.randrange(1, 4)):
            op = rng.randrange(3)
            if op == 0 and data:
                data[rng.randrange(len(data))] = rng.randrange(256)
            elif op == 1:
                data.insert(rng.randrange(len(data) + 1), rng.randrange(256))
            elif data:
                del data[rng.randrange(len(data))]
        for f in (xs.Shape.from_proto_bytes, xs.Layout.from_proto_bytes, xs.ProgramShape.from_proto_bytes, xs.LosslessMessage.decode):
            try:
                f(bytes(data))
            except xs.XlaShapeError:
                pass


def utility_functions():
    """Every function of the utility submodules, as (name, function)."""
    return [
        (f"{mod}.{name}", getattr(getattr(xs, mod), name))
        for mod in ("shape_util", "layout_util", "index_util", "strides")
        for name in getattr(xs, mod).__all__
    ]


def arity(f):
    """The number of parameters of a native function, from its signature."""
    return len([p for p in inspect.signature(f).parameters.values() if p.kind is not p.KEYWORD_ONLY])


JUNK = [
    None, -1, 0, 3, 2**31, 2**63, -(2**63), 2**70, "f32", "\udcff", b"\xff", 2.5, [], [-1], [0, 0],
    [2**62, 2**62], [2**63], [True], xs.Shape("f32[2,3]"), xs.Shape("(f32[2], ())"), xs.Shape("token[]"),
    xs.Shape("f32[]"), xs.Shape("s4[8]{0:T(2)E(4)}"), xs.Shape("f32[<=4,?]"), xs.Layout([1, 0]),
    xs.Layout([5, 5]), xs.PrimitiveType.F32, xs.ProgramShape([xs.Shape("f32[2]")], xs.Shape("()")),
    lambda i: i % 2, lambda i: 1 / 0,
]


@pytest.mark.parametrize("name,f", utility_functions())
def test_utility_functions_raise_on_junk_arguments(name, f):
    # Only Python exceptions: a Rust panic would surface as PanicException,
    # a BaseException that `except Exception` does not catch.
    rng = random.Random(name)
    n = arity(f)
    for _ in range(300):
        try:
            f(*(rng.choice(JUNK) for _ in range(n)))
        except Exception:
            pass


def test_tuple_makers_keep_the_nesting_limit():
    su = xs.shape_util
    makers = [
        lambda s: su.make_tuple_shape([s]),
        lambda s: su.make_validated_tuple_shape_with_ptrs([s]),
        lambda s: su.append_shape_to_tuple(s, su.make_nil()),
        lambda s: su.update_tuple_shape(s, 0, xs.Shape("(f32[])")),
        lambda s: su.make_maybe_tuple_shape([s, su.make_nil()]),
    ]
    for make in makers:
        s, depth = xs.Shape("f32[2]"), 0
        while depth <= xs.MAX_NESTING_DEPTH:
            try:
                s = make(s)
            except xs.InvalidArgumentError:
                break
            depth += 1
        assert xs.MAX_NESTING_DEPTH - 2 <= depth <= xs.MAX_NESTING_DEPTH
        assert xs.Shape.from_proto_bytes(s.to_serialized_proto()) == s


def test_utility_functions_from_many_threads():
    su, lu = xs.shape_util, xs.layout_util
    s = xs.Shape("(f32[8,128]{1,0:T(8,128)}, s8[<=4,3])")
    expected = (lu.clear_tiles(s), su.make_shape_with_static_dimensions(s), su.flatten_tuple_shape(s))
    it = su.indices(xs.Shape("f32[50,40]"))

    def work(_):
        for _ in range(200):
            got = (lu.clear_tiles(s), su.make_shape_with_static_dimensions(s), su.flatten_tuple_shape(s))
            assert got == expected
            try:
                next(it)  # one iterator shared by every thread
            except (StopIteration, RuntimeError):
                pass
        return True

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        assert all(pool.map(work, range(8)))


def test_check_failures_raise_without_printing():
    # Where XLA CHECK-fails on the caller's numbers, the exception is the
    # whole report: nothing reaches stderr (no Rust panic message, no
    # backtrace), whatever RUST_BACKTRACE says.
    code = """
import xla_shape as xs
s = xs.Shape("f32[2,3]")
calls = [
    lambda: xs.shape_util.get_dimension(s, -3),
    lambda: xs.shape_util.permute_dimensions([0, 0], s),
    lambda: xs.shape_util.delete_dimensions([1, 1], s),
    lambda: xs.layout_util.major(s.layout(), 7),
    lambda: xs.shape_util.get_tuple_element_shape(xs.Shape("(f32[])"), 1),
]
for call in calls:
    try:
        call()
    except xs.InvalidArgumentError:
        pass
    else:
        raise SystemExit("no exception")
"""
    env = dict(os.environ, RUST_BACKTRACE="1")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert run.returncode == 0, run.stderr
    assert run.stderr == ""


def run_isolated(code):
    """Runs `code` in a fresh interpreter (an abort there does not end the
    test run); its exit status and output."""
    env = dict(os.environ)
    run = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )
    return run.returncode, run.stdout + run.stderr


def test_a_sequence_lying_about_its_length_is_read_for_what_it_holds():
    # A list subclass whose __len__ says 10**10 aborted the interpreter
    # (every sequence of ints was reserved at its __len__ first); 2**62
    # raised PanicException.
    code = """
import xla_shape as xs
for claimed in (10**10, 2**62):
    class Lying(list):
        def __len__(self):
            return claimed
    assert xs.Shape.array_shape("F32", Lying([2, 3])).dimensions() == (2, 3)
    assert xs.Shape.array_shape("F32", [2, 3], Lying([0, 1])).layout().minor_to_major() == (0, 1)
    assert xs.Layout(Lying([1, 0]), Lying([Lying([8, 128])])).minor_to_major() == (1, 0)
    t = xs.Shape.tuple_shape(Lying([xs.Shape("f32[2]")]))
    assert len(t.tuple_shapes()) == 1
    p = xs.ProgramShape(Lying([xs.Shape("f32[2]")]), xs.Shape("f32[]"), Lying(["x"]))
    assert len(p.parameter_shapes()) == 1
    assert xs.shape_util.elements_in(xs.Shape("f32[2,3]")) == 6
    assert xs.shape_util.make_shape("F32", Lying([4])) == xs.Shape("f32[4]")
    assert xs.index_util.bump_indices(xs.Shape("f32[2,3]"), Lying([0, 0])) == (True, [0, 1])
    s = xs.HloSharding.iota_tile(Lying([2, 2]), Lying([4]), Lying([0]), Lying([]))
    assert str(s) == "{devices=[2,2]<=[4]}"
    assert s.shard_shape(Lying([4, 6])) == (2, 3)
    assert xs.HloSharding.subgroup_with_device_ordering([[0, 1]], Lying([])).num_devices() == 2
    p = xs.explain_padding("f32[8,128]{1,0:T(8,128)}", tiles=Lying(["(8,128)"]))
    assert p.padded == p.unpadded
    assert len(xs.padding("f32[2]{0}", tiles=Lying([]))) == 1
print("held")
"""
    status, out = run_isolated(code)
    assert (status, out.strip()) == (0, "held"), out


def test_tuples_too_large_for_memory_raise_memory_error():
    # The same tuple twice, nested: 2**k leaves after k levels. Under a
    # 1 GiB address space the clone that ran out of memory aborted the
    # interpreter (exit 134) at about 2**20 leaves.
    code = """
import resource
import xla_shape as xs
resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
t = xs.Shape("f32[2]")
try:
    for level in range(40):
        t = xs.Shape.tuple_shape([t, t])
except MemoryError:
    print("MemoryError at", level)
else:
    print("no error")
"""
    status, out = run_isolated(code)
    assert status == 0, out
    assert out.startswith("MemoryError at "), out
