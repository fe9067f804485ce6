"""Regenerates the sharded HLO modules of tests/data/sharding/ (`sharded_*.pb`,
the `HloModuleProto` jax gives XLA, and `sharded_*.txt`, XLA's text of it)
and tests/data/oracle/sharding_modules.jsonl, each instruction's sharding.

Run from the repository root with a Python that has jax/jaxlib 0.10.2:

    python tests/data/oracle/sharding_modules_gen.py

Each program is jitted over 8 CPU devices
(`XLA_FLAGS=--xla_force_host_platform_device_count=8`) with
`NamedSharding`s on a 2x4 mesh, lowered, and converted to HLO by XLA
(`lowered.compiler_ir('hlo')`, which runs XLA's Shardy export: the module
before partitioning, its instructions carrying `sharding={...}`). The
records, one per instruction with a sharding in XLA's text: {"module",
"instruction", "text" (the attribute as XLA printed it), "printed" and
"proto" (jaxlib's `HloSharding.from_string(text)`: `repr` and
`to_proto().SerializeToString()` as hex)}.
"""

import json
import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
os.environ["JAX_PLATFORMS"] = "cpu"

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax.sharding import NamedSharding, PartitionSpec as P  # noqa: E402
from jax._src.lib import xla_client as xc  # noqa: E402


def programs(mesh):
    s = lambda *spec: NamedSharding(mesh, P(*spec))  # noqa: E731
    f32 = jnp.float32

    def constrained(a):
        b = jnp.sin(a)
        b = jax.lax.with_sharding_constraint(b, s("y", "x"))
        return b * 2

    def manual(a):
        return jax.shard_map(lambda x: x * 2, mesh=mesh, in_specs=P("x", "y"),
                             out_specs=P("x", "y"))(a)

    return {
        "sharded_matmul": (lambda a, b: a @ b,
                           [jax.ShapeDtypeStruct((16, 32), f32), jax.ShapeDtypeStruct((32, 64), f32)],
                           (s("x", None), s(None, "y")), s("x", "y")),
        "sharded_tuple": (lambda a: (a * 2, a.sum(0)),
                          [jax.ShapeDtypeStruct((8, 16), jnp.bfloat16)],
                          (s("x", "y"),), (s("x", None), s("y"))),
        "sharded_constraint": (constrained, [jax.ShapeDtypeStruct((8, 12), f32)],
                               (s(("x", "y"),),), s()),
        "sharded_manual": (manual, [jax.ShapeDtypeStruct((8, 16), f32)],
                           (s("x", "y"),), s("x", "y")),
    }


def attribute(line, name):
    """The value of `name={...}` in an instruction line of XLA's text."""
    at = line.find(", " + name + "={")
    if at < 0:
        return None
    start = at + len(name) + 3
    depth = 0
    for i in range(start, len(line)):
        depth += {"{": 1, "}": -1}.get(line[i], 0)
        if depth == 0:
            return line[start:i + 1]
    return None


def main():
    mesh = jax.make_mesh((2, 4), ("x", "y"), axis_types=(jax.sharding.AxisType.Auto,) * 2)
    records = []
    for name, (f, args, ins, outs) in programs(mesh).items():
        lowered = jax.jit(f, in_shardings=ins, out_shardings=outs).lower(*args)
        hlo = lowered.compiler_ir("hlo")
        text = hlo.as_hlo_text()
        with open(f"tests/data/sharding/{name}.pb", "wb") as out:
            out.write(hlo.as_serialized_hlo_module_proto())
        with open(f"tests/data/sharding/{name}.txt", "w") as out:
            out.write(text)
        for line in text.splitlines():
            sharding = attribute(line, "sharding")
            if sharding is None or " = " not in line:
                continue
            instruction = line.split(" = ", 1)[0].split()[-1].lstrip("%")
            h = xc.HloSharding.from_string(sharding)
            records.append({"module": name, "instruction": instruction, "text": sharding,
                            "printed": repr(h), "proto": h.to_proto().SerializeToString().hex()})
    with open("tests/data/oracle/sharding_modules.jsonl", "w") as out:
        for r in records:
            out.write(json.dumps(r, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
