"""Regenerates tests/data/oracle/sharding_device.jsonl: what jaxlib 0.10.2
says each device holds, and whether a sharding fits a shape.

Run from the repository root with a Python that has jax/jaxlib 0.10.2:

    python tests/data/oracle/sharding_device_gen.py

For (sharding, shape) pairs (the cases of XLA's `hlo_sharding_test.cc` that
name a shape, and random pairs over the valid shardings of
sharding_text.jsonl and shapes of the right rank, evenly and unevenly
divided, and of the wrong rank), each record holds:
- "tile": `HloSharding.tile(shape)` (XLA's `TileShape`), or its error;
- "indices": jax's `op_sharding_to_indices(sharding, dims, num_devices)`
  (what `devices_indices_map` returns), one `[start, stop, step]` triple per
  dimension per device, or "indices_error" (jax refuses uneven splits and
  manual subgroups);
- "validate": XLA's `HloSharding::Validate` as compiling a
  module with `num_partitions` reports it (see `op_validate` in
  sharding_oracle.py).
jax's devices run on the CPU with
`XLA_FLAGS=--xla_force_host_platform_device_count=64`.
"""

import json
import random
import sys

sys.path.insert(0, "tests/data/oracle")
from sharding_oracle import Oracle  # noqa: E402

UPSTREAM = [
    ("PassesValidationAndMatchesTileInfo", "{devices=[2,2]0,3,2,1}", "u32[4,5]", 4),
    ("PassesValidationAndMatchesTileInfo", "{devices=[2,2]0,3,2,1}", "f32[3,5]", 4),
    ("PassesValidationAndMatchesTileInfo", "{mesh['x'=2,'y'=2], device_ids=(0,3,2,1), [{'x'}, {'y'}]}",
     "u32[4,5]", 4),
    ("FailsWithDuplicateDeviceInTileAssignment", "{devices=[2,2]0,0,2,3}", "f32[4,6]", 4),
    ("FailsWhenDeviceUsedGreaterThanNumDevices", "{devices=[2,2]0,1,2,3}", "u32[4,6]", 2),
    ("FailsWhenDeviceUsedGreaterThanNumDevices", "{mesh['x'=2,'y'=2], [{'x'}, {'y'}]}", "f32[4,6]", 2),
    ("FailsWhenNotAllDevicesArePresentInTileAssignment", "{devices=[2,2]0,1,2,3}", "u32[4,6]", 5),
    ("FailsWhenNotAllDevicesArePresentInTileAssignment", "{mesh['x'=2,'y'=2], [{'x'}, {'y'}]}", "f32[4,6]", 5),
    ("Replicate", "{replicated}", "u32[4]", 2),
    ("DevicePlacement", "{maximal device=5}", "u32[4]", 6),
    ("DevicePlacement", "{maximal device=5}", "u32[4]", 5),
    ("EachTile", "{devices=[6,1]<=[6]}", "u32[12,20]", 6),
    ("EachTile", "{devices=[6,1]<=[6]}", "u32[11,20]", 6),
    ("EachTile", "{mesh['x'=6], [{'x'}, {}]}", "u32[11,20]", 6),
    ("EachTile", "{devices=[2,1,3]<=[6] last_tile_dim_replicate}", "u32[10,20]", 6),
    ("EachTile", "{mesh['x'=2,'y'=3], [{'x'}, {}], replicated={'y'}}", "u32[10,20]", 6),
    ("TileEquivalence", "{devices=[2,2]<=[4]}", "u32[2,3]", 4),
    ("TileEquivalence", "{mesh['a'=2,'b'=2], [{'a'}, {'b'}]}", "u32[2,3]", 4),
    ("TileEquivalence", "{mesh['a'=2,'b'=2], [{'b'}, {'a'}]}", "u32[2,3]", 4),
    ("TileEquivalence", "{devices=[2,2]<=[2,2]T(1,0)}", "u32[2,3]", 4),
    ("TileEquivalence", "{devices=[6]<=[6]}", "u32[13]", 6),
    ("TileEquivalence", "{mesh['a'=2,'b'=3], [{'a', 'b'}]}", "u32[13]", 6),
    ("TileEquivalence", "{mesh['a'=2,'b'=3], [{'b', 'a'}]}", "u32[13]", 6),
    ("TileEquivalence", "{devices=[6]<=[2,3]T(1,0)}", "u32[13]", 6),
    ("NestedTuple", "{{replicated}, {maximal device=0}, {devices=[1,2]0,1}}", "(f32[], f32[3], f32[4,6])", 2),
    ("NestedTuple", "{{replicated}, {maximal device=0}, {devices=[1,2]0,1}}", "f32[]", 5),
]


def data_rank(answer):
    a = answer.get("attrs") or {}
    dims = a.get("tile_assignment_dimensions")
    if dims is None:
        v = answer.get("v2") or {}
        return None
    sub = len(a.get("subgroup_types", [])) + (1 if a.get("replicate_on_last_tile_dim") else 0)
    return dims[:len(dims) - sub]


def main():
    rng = random.Random(35)
    cases = list(UPSTREAM)
    pool = []
    for line in open("tests/data/oracle/sharding_text.jsonl"):
        r = json.loads(line)
        a = r["answer"]
        if "printed" not in a or a.get("tuple") or "mesh[" in a["printed"]:
            continue
        attrs = a.get("attrs") or {}
        n = attrs.get("num_devices")
        if not isinstance(n, int) or n > 64 or not a.get("is_tiled"):
            continue
        pool.append((a["printed"], data_rank(a), n))
    for _ in range(900):
        s, split, n = rng.choice(pool)
        x = rng.random()
        if x < 0.45:
            dims = [k * rng.randint(1, 3) for k in split]
        elif x < 0.9:
            dims = [rng.randint(0, 9) for _ in split]
        else:
            dims = [rng.randint(1, 6) for _ in range(rng.randint(0, 3))]
        shape = "f32[%s]" % ",".join(map(str, dims))
        cases.append(("random", s, shape, n))
    o = Oracle()
    with open("tests/data/oracle/sharding_device.jsonl", "w") as out:
        for i, (name, s, shape, n) in enumerate(cases):
            rec = {"case": name, "sharding": s, "shape": shape, "num_devices": n}
            if not shape.startswith("("):
                rec["tile"] = o.ask("tile", s, shape)
                dims = [int(d) for d in shape[shape.index("[") + 1:-1].split(",") if d]
                rec["indices"] = o.ask("indices", s, dims, n)
            if True:
                rec["validate"] = o.ask("validate", s, shape, n)
            out.write(json.dumps(rec, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
