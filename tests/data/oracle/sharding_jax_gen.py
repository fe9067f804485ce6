"""Regenerates tests/data/oracle/sharding_jax.jsonl: what jax 0.10.2's
sharding classes answer for a sharding over a shape.

Run from the repository root with a Python that has jax/jaxlib 0.10.2:

    python tests/data/oracle/sharding_jax_gen.py

For every (sharding, shape, device count) of sharding_device.jsonl that is
an array shape, and more shapes over the same shardings (the empty shape,
dimensions of size 0 and 1), each record holds what
`GSPMDSharding(jax.devices()[:n], HloSharding.from_string(sharding))`
gives (jax's devices are 64 CPU devices,
`XLA_FLAGS=--xla_force_host_platform_device_count=64`, whose ids are their
positions):
- "shard_shape": `shard_shape(dims)` (jax's `_common_shard_shape`), or
  "shard_shape_error": the exception's class and message (jax refuses
  shapes the sharding does not split evenly);
- "indices": `devices_indices_map(dims)` as `{device id: [[start, stop,
  step], ...]}`, `null` for Python's `None`, or "indices_error";
- "num_ways": jax's `op_shardings.get_num_ways_dim_sharded` (partitions
  per dimension and replicas), or "num_ways_error".

Then records {"construct": NAME, "args": [...], "answer": ...} of jaxlib's
`HloSharding` constructors on random arguments, valid and not:
`iota_tile(dims, reshape_dims, transpose_perm, subgroup_types)` (types by
name), `subgroup_with_device_ordering(numpy array, subgroup_types)` (the
array as dims and devices) and `tuple_sharding(shape, shardings)` (as
text); the answer is {"printed", "proto"} (`repr`, `to_proto()` bytes),
{"error"} or {"abort"}.
"""

import json
import random
import sys

sys.path.insert(0, "tests/data/oracle")
from sharding_oracle import Oracle  # noqa: E402

EXTRA_OPS = r'''
def op_jax(s, dims, n):
    from jax._src.sharding_impls import GSPMDSharding
    h = H.from_string(s)
    out = {}
    try:
        ways, replicas = op_shardings.get_num_ways_dim_sharded(h.v3_to_v2_sharding())
        out["num_ways"] = [list(ways), replicas]
    except BaseException as e:
        out["num_ways_error"] = type(e).__name__ + ": " + str(e)
    try:
        sharding = GSPMDSharding(tuple(jax.devices()[:n]), h)
    except BaseException as e:
        out["sharding_error"] = type(e).__name__ + ": " + str(e)
        return out
    try:
        out["shard_shape"] = list(sharding.shard_shape(tuple(dims)))
    except BaseException as e:
        out["shard_shape_error"] = type(e).__name__ + ": " + str(e)
    try:
        m = sharding.devices_indices_map(tuple(dims))
        out["indices"] = {str(d.id): [[sl.start, sl.stop, sl.step] for sl in idx]
                          for d, idx in m.items()}
    except BaseException as e:
        out["indices_error"] = type(e).__name__ + ": " + str(e)
    return out

def op_construct(name, args):
    if name == "iota_tile":
        dims, reshape, perm, types = args
        h = H.iota_tile(dims, reshape, perm, [getattr(T, t) for t in types])
    elif name == "subgroup_with_device_ordering":
        dims, devices, types = args
        a = np.array(devices, dtype=np.int64).reshape(dims)
        h = H.subgroup_with_device_ordering(a, [getattr(T, t) for t in types])
    else:
        shape, elements = args
        h = H.tuple_sharding(xc.Shape(shape), [H.from_string(e) for e in elements])
    return {"printed": repr(h), "proto": h.to_proto().SerializeToString().hex()}
'''


def main():
    rng = random.Random(41)
    cases = []
    seen = set()
    for line in open("tests/data/oracle/sharding_device.jsonl"):
        r = json.loads(line)
        shape = r["shape"]
        if shape.startswith("(") or r["num_devices"] > 64:
            continue
        dims = [int(d) for d in shape[shape.index("[") + 1:-1].split(",") if d]
        key = (r["sharding"], tuple(dims), r["num_devices"])
        if key not in seen:
            seen.add(key)
            cases.append(key)
        # Another shape of the same rank: sizes 0, 1 and a multiple of 4.
        other = tuple(rng.choice([0, 1, 4, 8, 12]) for _ in dims)
        if (r["sharding"], other, r["num_devices"]) not in seen and rng.random() < 0.3:
            seen.add((r["sharding"], other, r["num_devices"]))
            cases.append((r["sharding"], other, r["num_devices"]))
    o = Oracle(extra_ops=EXTRA_OPS)
    with open("tests/data/oracle/sharding_jax.jsonl", "w") as out:
        for s, dims, n in cases:
            rec = {"sharding": s, "dims": list(dims), "num_devices": n,
                   "answer": o.ask("jax", s, list(dims), n)}
            out.write(json.dumps(rec, sort_keys=True) + "\n")
        for name, args in constructions(rng):
            rec = {"construct": name, "args": args, "answer": o.ask("construct", name, args)}
            out.write(json.dumps(rec, sort_keys=True) + "\n")


TYPES = ["MANUAL", "REPLICATED", "UNREDUCED", "MAXIMAL", "OTHER"]


def constructions(rng):
    out = []
    for _ in range(200):
        dims = [rng.choice([1, 2, 2, 3, 4]) for _ in range(rng.randint(0, 4))]
        n = 1
        for d in dims:
            n *= d
        x = rng.random()
        if x < 0.4:
            reshape, perm = [], []
        elif x < 0.85:
            # A factorization of n, permuted.
            reshape, m = [], n
            for f in (2, 3, 2, 2):
                if m % f == 0 and rng.random() < 0.7:
                    reshape.append(f)
                    m //= f
            if m > 1 or not reshape:
                reshape.append(m)
            perm = list(range(len(reshape)))
            rng.shuffle(perm)
        else:
            reshape = [rng.randint(1, 4) for _ in range(rng.randint(0, 3))]
            perm = list(range(rng.randint(0, 3)))
        k = rng.choice([0, 0, 0, 1, 1, 2, 5])
        types = [rng.choice(TYPES[:3] if rng.random() < 0.9 else TYPES) for _ in range(k)]
        out.append(("iota_tile", [dims, reshape, perm, types]))
    for _ in range(100):
        dims = [rng.choice([1, 2, 3]) for _ in range(rng.randint(1, 4))]
        n = 1
        for d in dims:
            n *= d
        devices = list(range(n))
        rng.shuffle(devices)
        k = rng.choice([0, 1, 1, 2, 3])
        types = [rng.choice(TYPES[:3]) for _ in range(min(k, len(dims)))]
        out.append(("subgroup_with_device_ordering", [dims, devices, types]))
    leaves = ["{replicated}", "{maximal device=1}", "{devices=[2,1]0,1}", "{manual}"]
    for shape, k in [("(f32[2], f32[3,4])", 2), ("(f32[2], f32[3,4])", 1), ("(f32[2], f32[3,4])", 0),
                     ("((f32[2], s8[]), f32[3])", 3), ("()", 0), ("()", 1), ("()", 2), ("f32[2]", 1),
                     ("(f32[2], (f32[3]))", 2)]:
        out.append(("tuple_sharding", [shape, [rng.choice(leaves) for _ in range(k)]]))
    out.append(("tuple_sharding", ["(f32[2], f32[3])", ["{replicated}", "{{replicated}}"]]))
    return out


if __name__ == "__main__":
    main()
