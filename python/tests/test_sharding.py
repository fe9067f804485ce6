"""``HloSharding`` against jaxlib 0.10.2's answers (``tests/data/oracle/
sharding_*.jsonl``, written by the generators beside them): XLA's text and
``OpSharding`` bytes, jaxlib's accessors under their names, jaxlib's
constructors, and jax's ``devices_indices_map`` and ``shard_shape``."""

import pickle
import re

import pytest

import xla_shape as xs
from conftest import REPO, records

TEXT = records("oracle/sharding_text.jsonl")
PROTO = records("oracle/sharding_proto.jsonl")
DEVICE = records("oracle/sharding_device.jsonl")
JAX = [r for r in records("oracle/sharding_jax.jsonl") if "dims" in r]
CONSTRUCT = [r for r in records("oracle/sharding_jax.jsonl") if "construct" in r]


def undefined_in_xla():
    """The inputs on which XLA's behaviour is undefined, as
    tests/sharding/text.rs lists them (with what is exempt and why), read
    from there so that there is one list."""
    text = (REPO / "tests" / "sharding" / "text.rs").read_text(encoding="utf-8")
    block = text.split("UNDEFINED_IN_XLA", 1)[1].split("];", 1)[0]
    pairs = re.findall(r'\(\s*"((?:[^"\\]|\\.)*)",\s*"(\w+)",?\s*\)', block)
    assert pairs
    return {(i.replace('\\"', '"'), w) for i, w in pairs}


UNDEFINED = undefined_in_xla()


def xla_message(answer):
    m = answer["error"]
    return m[len("INVALID_ARGUMENT: "):] if m.startswith("INVALID_ARGUMENT: ") else m


def diagnostic_lines(message):
    """A parse message without its source lines and carets (drawn this
    crate's way: docs/differences.md)."""
    if not message.startswith("Syntax error:"):
        return [message]
    return [l for l in message.splitlines() if l.startswith(("Syntax error:", "was parsing "))]


FLAGS = ["is_replicated", "is_maximal", "is_manual", "is_tiled", "is_unknown", "is_unreduced"]
ATTRS = [
    "num_devices",
    "num_dimensions",
    "tile_assignment_dimensions",
    "tile_assignment_devices",
    "replicate_on_last_tile_dim",
    "subgroup_types",
    "is_tile_assignment_iota",
]


def check_facts(s, a):
    assert repr(s) == str(s) == a["printed"]
    assert s.to_proto().hex() == a["proto"]
    assert s.to_serialized_proto().hex() == a["proto"]
    for flag in FLAGS:
        assert getattr(s, flag)() == a[flag], flag
    elements = a.get("tuple")
    if elements:
        assert len(s.tuple_elements()) == len(elements)
        for e, want in zip(s.tuple_elements(), elements):
            check_facts(e, want)


def test_record_counts():
    assert len(TEXT) > 1000 and len(PROTO) > 2000 and len(JAX) > 1000 and len(CONSTRUCT) >= 300


@pytest.mark.parametrize("r", TEXT, ids=lambda r: r["input"][:60])
def test_from_string_is_xlas(r):
    text, a = r["input"], r["answer"]
    if (text, "parse") in UNDEFINED:
        with pytest.raises(xs.XlaShapeError):
            xs.HloSharding.from_string(text)
        return
    if "printed" in a:
        s = xs.HloSharding.from_string(text)
        check_facts(s, a)
        attrs = a.get("attrs", {})
        if attrs and not ({"abort", "error"} & set(attrs)) and (text, "attrs") not in UNDEFINED:
            for name in ATTRS:
                assert getattr(s, name)() == attrs[name], name
        elif "abort" in attrs:
            # jaxlib aborts on these; here they answer or raise. A tuple
            # raises.
            if s.tuple_elements() or text.strip() == "{}":
                with pytest.raises(xs.InvalidArgumentError):
                    s.num_devices()
        if "printed" in a.get("v2", {}):
            assert str(s.v3_to_v2_sharding()) == a["v2"]["printed"]
        if "with_metadata" in a.get("with_metadata", {}):
            assert s.to_string(include_metadata=True) == a["with_metadata"]["with_metadata"]
    elif "error" in a:
        with pytest.raises(xs.XlaShapeError) as info:
            xs.HloSharding.from_string(text)
        assert diagnostic_lines(info.value.message) == diagnostic_lines(xla_message(a))
    else:
        with pytest.raises(xs.XlaShapeError):
            xs.HloSharding.from_string(text)


def test_from_mhlo_sharding_reads_the_attribute_its_literal_and_bytes():
    text = "{devices=[2,1,2]<=[4] last_tile_dim_replicate}"
    want = xs.HloSharding.from_string(text)
    for spelling in (f'mhlo.sharding = "{text}"', f'"{text}"', text):
        assert xs.HloSharding.from_mhlo_sharding(spelling) == want
    # OpSharding bytes in MLIR's escapes (XLA's ConvertSharding reads a
    # value as bytes first): type OTHER (08 03), tile_assignment_dimensions
    # [2, 1] (1a 02 02 01), tile_assignment_devices [0, 1] (22 02 00 01).
    s = xs.HloSharding.from_mhlo_sharding(r'"\08\03\1A\02\02\01\22\02\00\01"')
    assert str(s) == "{devices=[2,1]0,1}"
    with pytest.raises(xs.XlaShapeError):
        xs.HloSharding.from_mhlo_sharding('"{replicated}')


@pytest.mark.parametrize("r", PROTO[::7], ids=lambda r: r["hex"][:40])
def test_from_proto_is_xlas(r):
    data, a = bytes.fromhex(r["hex"]), r["answer"]
    if "printed" in a and not r["malformed"]:
        try:
            s = xs.HloSharding.from_proto(data)
        except xs.XlaShapeError:
            # Inputs on which XLA's behaviour is undefined
            # (tests/sharding/proto.rs lists them, with the reasons).
            assert r["hex"] in (REPO / "tests" / "sharding" / "proto.rs").read_text()
            return
        check_facts(s, a)
    elif r["malformed"] or "error" in a or "abort" in a:
        with pytest.raises(xs.XlaShapeError):
            xs.HloSharding.from_proto(data)


def test_from_proto_takes_message_objects():
    from google.protobuf import descriptor_pb2  # noqa: F401  (protobuf is installed)

    class Message:
        """A message object as protobuf's have it: `SerializeToString()`
        and `ParseFromString()`."""

        data = b""

        def SerializeToString(self):
            return self.data

        def ParseFromString(self, data):
            self.data = data

    s = xs.HloSharding.from_string("{devices=[2,1,2]<=[4] last_tile_dim_replicate}")
    message = s.to_proto(Message)
    assert isinstance(message, Message)
    assert message.data == s.to_serialized_proto()
    assert xs.HloSharding.from_proto(message) == s


@pytest.mark.parametrize("r", [r for r in DEVICE if "tile" in r][::3], ids=lambda r: r["sharding"][:50])
def test_tile_is_xlas_tile_shape(r):
    s = xs.HloSharding.from_string(r["sharding"])
    shape = xs.Shape(r["shape"])
    if "tile" in r["tile"]:
        try:
            tile = s.tile(shape)
        except xs.XlaShapeError:
            # XLA writes past a shape of lower rank than the sharding
            # tiles; this crate raises (tests/sharding/device.rs).
            assert shape.rank() < len(s.v3_to_v2_sharding().tile_assignment_dimensions())
            return
        assert str(tile) == r["tile"]["tile"]
        assert s.tile(r["shape"]) == tile
    v = r["validate"]
    count = r["num_devices"] if v.get("mode") == "count" else None
    canonical = xs.HloSharding.from_proto(s.to_proto())
    if v.get("valid"):
        canonical.validate(shape, r["num_devices"])
    elif "message" in v:
        with pytest.raises(xs.InvalidArgumentError) as info:
            canonical.validate(shape, count)
        assert info.value.message == v["message"]


def jax_slices(triples):
    return tuple(slice(*t) for t in triples)


@pytest.mark.parametrize("r", JAX, ids=lambda r: f'{r["sharding"][:40]} {r["dims"]}')
def test_jax_shard_shape_and_devices_indices_map(r):
    a = r["answer"]
    if "abort" in a:
        return
    s = xs.HloSharding.from_string(r["sharding"])
    dims, n = tuple(r["dims"]), r["num_devices"]
    if "shard_shape" in a:
        assert s.shard_shape(dims) == tuple(a["shard_shape"])
        assert s.shard_shape(list(dims)) == tuple(a["shard_shape"])
    else:
        with pytest.raises(ValueError) as info:
            s.shard_shape(dims)
        m = a["shard_shape_error"]
        if "implies that" in m:
            assert str(info.value).endswith(m[m.index("implies that"):])
    if "indices" in a:
        want = {int(d): jax_slices(t) for d, t in a["indices"].items()}
        assert s.devices_indices_map(dims, n) == want
    else:
        with pytest.raises(ValueError):
            s.devices_indices_map(dims, n)


def test_devices_indices_map_takes_shapes_and_defaults_to_the_devices():
    s = xs.HloSharding.from_string("{devices=[2,2]<=[4]}")
    by_dims = s.devices_indices_map((4, 6))
    assert by_dims == s.devices_indices_map("f32[4,6]") == s.devices_indices_map(xs.Shape("f32[4,6]"))
    assert sorted(by_dims) == [0, 1, 2, 3]
    with pytest.raises(xs.InvalidArgumentError):
        s.devices_indices_map((4, 6), 8)


def test_device_slices_cut_uneven_splits_as_xla():
    # ceil(7 / 4) = 2 rows a device: 0:2, 2:4, 4:6, 6:7 (clipped), as XLA's
    # TileOffsetForDevice / TileLimitForDevice give them.
    s = xs.HloSharding.from_string("{devices=[4,1,2]<=[8] last_tile_dim_replicate}")
    got = s.device_slices((7, 6))
    for device, (rows, cols) in got.items():
        assert (rows.start, rows.stop) == (
            s.tile_offset_for_device("f32[7,6]", device)[0],
            s.tile_limit_for_device("f32[7,6]", device)[0],
        )
        assert (cols.start, cols.stop) == (0, 6)
    assert (got[6][0].start, got[6][0].stop) == (6, 7)
    assert s.replica_groups() == [[0, 1], [2, 3], [4, 5], [6, 7]]


@pytest.mark.parametrize("r", CONSTRUCT, ids=lambda r: f'{r["construct"]} {r["args"]}'[:80])
def test_constructors_are_jaxlibs(r):
    import numpy as np

    name, args, a = r["construct"], r["args"], r["answer"]

    def make():
        if name == "iota_tile":
            return xs.HloSharding.iota_tile(*args)
        if name == "subgroup_with_device_ordering":
            dims, devices, types = args
            array = np.array(devices, dtype=np.int64).reshape(dims)
            return xs.HloSharding.subgroup_with_device_ordering(array, types)
        shape, elements = args
        return xs.HloSharding.tuple_sharding(
            xs.Shape(shape), [xs.HloSharding.from_string(e) for e in elements]
        )

    if "printed" in a:
        s = make()
        assert repr(s) == a["printed"]
        assert s.to_proto().hex() == a["proto"]
    else:
        with pytest.raises(xs.XlaShapeError) as info:
            make()
        if "error" in a:
            assert info.value.message == xla_message(a)


def test_subgroup_types_by_name_number_or_enum():
    class Type:
        """An enum member as jaxlib's `OpSharding.Type` has it."""

        def __init__(self, name):
            self.name = name

    # OpSharding.Type REPLICATED is 0 (xla_data.proto).
    for t in ["REPLICATED", 0, Type("REPLICATED")]:
        s = xs.HloSharding.iota_tile([2, 2], subgroup_types=[t])
        assert str(s) == "{devices=[2,2]<=[4] last_tile_dim_replicate}"
    with pytest.raises(xs.InvalidArgumentError):
        xs.HloSharding.iota_tile([2, 2], subgroup_types=["NOT_A_TYPE"])
    with pytest.raises(TypeError):
        xs.HloSharding.iota_tile([2, 2], subgroup_types=[1.5])


def test_equality_hash_and_pickle():
    explicit = xs.HloSharding.from_string("{devices=[2,2]0,1,2,3}")
    iota = xs.HloSharding.from_string("{devices=[2,2]<=[4]}")
    # XLA's operator== compares the devices, whatever their form.
    assert explicit == iota and hash(explicit) == hash(iota)
    assert explicit != xs.HloSharding.replicate()
    assert explicit != "{devices=[2,2]<=[4]}"
    assert len({explicit, iota, xs.HloSharding.manual()}) == 2
    for s in [iota, xs.HloSharding.unknown(), xs.HloSharding.unreduced(),
              xs.HloSharding.from_string("{{replicated}, {maximal device=1}}")]:
        assert pickle.loads(pickle.dumps(s)) == s


def test_bad_input_raises():
    with pytest.raises(xs.ParseError):
        xs.HloSharding.from_string("{devices=[2,2]<=[4]")
    with pytest.raises(xs.DecodeError):
        xs.HloSharding.from_proto(b"\x08")
    with pytest.raises(TypeError):
        xs.HloSharding.from_proto(3)
    with pytest.raises(TypeError):
        xs.HloSharding.from_string("{replicated}").shard_shape(3.5)
