"""Regenerates tests/data/oracle/sharding_proto.jsonl: what jaxlib 0.10.2's
`HloSharding.from_proto` (XLA's `HloSharding::FromProto`, after Google's
C++ protobuf runtime has parsed the `OpSharding` bytes) makes of OpSharding
bytes, and the bytes its `to_proto()` writes back.

Run from the repository root with a Python that has jax/jaxlib 0.10.2 and
the `xla_data_pb2` module generated from jaxlib's own xla_data.proto (the
XLA oracle's venv has it under `gen/`):

    PYTHONPATH=~/.cache/xla-oracle-venv/gen python tests/data/oracle/sharding_proto_gen.py

Inputs: the messages of `hlo_sharding_test.cc` (ProtoRoundTrip,
IotaProtoRoundTrip, NamedShardingTupleProtoRoundTrip, NestedTuple), every
`proto` answer of sharding_text.jsonl, random messages over every field
(seeded), and byte-level edits of them (truncation, flipped bytes, fields
repeated, known fields with another wire type, unknown fields and groups).

One record per input: {"case", "hex", "malformed", "answer"}: `malformed`
when Google's protobuf runtime (upb, protobuf 7.36.2) refuses the bytes
(jaxlib's `OpSharding.ParseFromString` then keeps what it read so far, so
its answer is not about the bytes); answer as in sharding_text.jsonl
(printed, proto, flags) or {"error"} / {"abort"}.
"""

import json
import random
import sys

sys.path.insert(0, "tests/data/oracle")
from sharding_oracle import Oracle  # noqa: E402
from xla import xla_data_pb2 as pb  # noqa: E402

T = pb.OpSharding


def upstream():
    out = []
    m = T(type=T.TUPLE)
    e = m.tuple_shardings.add(type=T.OTHER, tile_assignment_devices=[0, 1], tile_assignment_dimensions=[1, 2])
    e.metadata.add(op_name="a")
    e.metadata.add(op_name="b")
    m.tuple_shardings.add(type=T.REPLICATED).metadata.add(op_name="c")
    m.tuple_shardings.add(type=T.MANUAL)
    out.append(("ProtoRoundTrip", m))
    m = T(type=T.TUPLE)
    e = m.tuple_shardings.add(type=T.OTHER, tile_assignment_dimensions=[6, 1], iota_reshape_dims=[3, 2],
                              iota_transpose_perm=[1, 0])
    e.metadata.add(op_name="a")
    e.metadata.add(op_name="b")
    m.tuple_shardings.add(type=T.REPLICATED).metadata.add(op_name="c")
    m.tuple_shardings.add(type=T.MANUAL)
    out.append(("IotaProtoRoundTrip", m))
    m = T(type=T.TUPLE)
    for pre in (1, 2):
        n = m.tuple_shardings.add().named_sharding
        n.mesh.axes.add(name="a", size=4)
        n.mesh.axes.add(name="b", size=4)
        d = n.dim_shardings.add(is_closed=True)
        d.axes.add(mesh_axis_index=0, sub_axis_info=pb.AxisRefProto.SubAxis(pre_size=pre, size=2))
        d = n.dim_shardings.add(is_closed=False)
        d.axes.add(mesh_axis_index=1)
    out.append(("NamedShardingTupleProtoRoundTrip", m))
    m = T(type=T.TUPLE)
    m.tuple_shardings.add(type=T.REPLICATED)
    m.tuple_shardings.add(type=T.MAXIMAL, tile_assignment_devices=[0])
    m.tuple_shardings.add(type=T.OTHER, tile_assignment_dimensions=[1, 2], tile_assignment_devices=[0, 1])
    out.append(("NestedTuple", m))
    return out


def rand_metadata(rng, md):
    if rng.random() < 0.5:
        md.op_name = rng.choice(["a", "jit(f)/dot", "x\ny"])
    if rng.random() < 0.3:
        md.source_file = "f.py"
        md.source_line = rng.randint(-3, 200)
    if rng.random() < 0.2:
        md.profile_type.extend(rng.sample([1, 2, 3], rng.randint(1, 3)))
    if rng.random() < 0.1:
        md.stack_frame_id = rng.randint(0, 9)


def rand_named(rng, n):
    k = rng.randint(0, 3)
    sizes = [rng.choice([1, 2, 3, 4]) for _ in range(k)]
    for i, s in enumerate(sizes):
        n.mesh.axes.add(name="xyzw"[i], size=s)
    total = 1
    for s in sizes:
        total *= s
    if k and rng.random() < 0.2:
        ids = list(range(total))
        rng.shuffle(ids)
        n.mesh.device_ids.extend(ids)
    if not k and rng.random() < 0.3:
        n.mesh.device_ids.append(rng.randint(0, 7))
    for _ in range(rng.randint(0, 3)):
        d = n.dim_shardings.add(is_closed=rng.random() < 0.8)
        if k and rng.random() < 0.6:
            d.axes.add(mesh_axis_index=rng.randrange(k))
    if k and rng.random() < 0.3:
        getattr(n, rng.choice(["replicated_axes", "unreduced_axes", "manual_axes"])).add(
            mesh_axis_index=rng.randrange(k))


def rand_message(rng, depth=0):
    m = T()
    x = rng.random()
    if x < 0.1 and depth < 3:
        m.type = T.TUPLE
        for _ in range(rng.randint(0, 3)):
            m.tuple_shardings.append(rand_message(rng, depth + 1))
        return m
    if x < 0.18:
        rand_named(rng, m.named_sharding)
        return m
    m.type = rng.choice([0, 1, 3, 3, 3, 3, 4, 5, 6, 7])
    dims = [rng.choice([1, 2, 3, 4]) for _ in range(rng.randint(0, 4))]
    n = 1
    for d in dims:
        n *= d
    m.tile_assignment_dimensions.extend(dims)
    y = rng.random()
    if y < 0.45:
        r = [n] if rng.random() < 0.5 else [d for d in dims if d > 1] or [1]
        if rng.random() < 0.1:
            r = [n + 1]
        perm = list(range(len(r)))
        rng.shuffle(perm)
        m.iota_reshape_dims.extend(r)
        m.iota_transpose_perm.extend(perm if rng.random() < 0.9 else perm[:-1])
    elif y < 0.9:
        devs = list(range(n))
        rng.shuffle(devs)
        if rng.random() < 0.1:
            devs = devs[:-1]
        m.tile_assignment_devices.extend(devs)
    z = rng.random()
    if z < 0.3:
        m.replicate_on_last_tile_dim = True
    elif z < 0.55 and dims:
        m.last_tile_dims.extend(rng.choice([4, 0, 6, 1]) for _ in range(rng.randint(1, len(dims))))
    if rng.random() < 0.2:
        m.is_shard_group = True
        m.shard_group_id = rng.randint(-1, 4)
        m.shard_group_type = rng.choice([0, 1])
    for _ in range(rng.choice([0, 0, 0, 1, 2])):
        rand_metadata(rng, m.metadata.add())
    return m


def edit(rng, b):
    b = bytearray(b)
    c = rng.random()
    if c < 0.25 and b:
        del b[rng.randrange(len(b)):]
    elif c < 0.5 and b:
        b[rng.randrange(len(b))] = rng.randrange(256)
    elif c < 0.65:
        b += bytes(rng.choice([[0x08, 0x04], [0x1a, 0x01, 0x02], [0x30, 0x01], [0x22, 0x01, 0x05],
                               [0x4a, 0x01, 0x04], [0x52, 0x01, 0x00], [0x58, 0x01]]))
    elif c < 0.8:
        # A known field with another wire type, or an unknown field.
        b += bytes(rng.choice([[0x0a, 0x00], [0x18, 0x02], [0x20, 0x03], [0x2d, 0, 0, 0, 0], [0x7a, 0x01, 0x00],
                               [0xf8, 0x07, 0x01], [0x83, 0x01, 0x84, 0x01], [0x48, 0x04], [0x50, 0x01]]))
    else:
        b = b + b
    return bytes(b)


def main():
    rng = random.Random(35)
    cases = [(name, m.SerializeToString()) for name, m in upstream()]
    for line in open("tests/data/oracle/sharding_text.jsonl"):
        r = json.loads(line)
        p = r["answer"].get("proto")
        if p is not None:
            cases.append(("text_proto", bytes.fromhex(p)))
    randoms = []
    for _ in range(900):
        b = rand_message(rng).SerializeToString()
        randoms.append(b)
        cases.append(("random", b))
    for _ in range(700):
        cases.append(("edited", edit(rng, rng.choice(randoms))))
    o = Oracle()
    seen = set()
    with open("tests/data/oracle/sharding_proto.jsonl", "w") as out:
        for name, b in cases:
            if b in seen:
                continue
            seen.add(b)
            try:
                pb.OpSharding().ParseFromString(b)
                malformed = False
            except Exception:  # google.protobuf.message.DecodeError
                malformed = True
            answer = o.ask("from_proto", b.hex())
            out.write(json.dumps({"case": name, "hex": b.hex(), "malformed": malformed, "answer": answer},
                                 sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
