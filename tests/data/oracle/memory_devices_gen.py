"""Regenerates tests/data/memory_devices/: jax programs with shardings on
eight CPU devices (jax refuses arguments and results split unevenly, so
every split here is even), each before partitioning (StableHLO text and bytecode,
and XLA's HLO conversion with its `sharding={...}` attributes) beside what
XLA counts per device after partitioning. The golden data of the per-device
figures of `xla_shape::memory`.

Run with a Python that has jax/jaxlib 0.10.2 installed, from the repository
root, with eight forced CPU devices:

    XLA_FLAGS=--xla_force_host_platform_device_count=8 \\
        python tests/data/oracle/memory_devices_gen.py

It writes, for each program NAME:

- `NAME.mlir`: `jax.jit(f, ...).lower(*args).as_text()` (Shardy's
  `sdy.sharding`, or GSPMD's `mhlo.sharding` for names that start with
  `gspmd_`);
- `NAME.mlirbc`: `jax.export`'s `mlir_module_serialized` of the same
  function (MLIR bytecode), for the programs `jax.export` takes;
- `NAME.hlo.txt`: `lowered.compiler_ir('hlo').as_hlo_text()`, XLA's
  conversion before partitioning;
- `devices.jsonl`, one record per program: {"name", "num_devices",
  "argument_size_in_bytes", "output_size_in_bytes", "alias_size_in_bytes"
  (`compiled.memory_analysis()`, which counts one device's buffers),
  "partitioned_entry_computation_layout" (the header of
  `compiled.as_text()`, the per-device shapes)}.
"""

import json
import os
import re
import warnings

warnings.filterwarnings("ignore")

import jax  # noqa: E402

# Locations name this file relative to the repository, not where it was run.
jax.config.update("jax_hlo_source_file_canonicalization_regex", r"^.*/(?=tests/data/oracle/)")

import jax.numpy as jnp  # noqa: E402
from jax.sharding import NamedSharding  # noqa: E402
from jax.sharding import PartitionSpec as P  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "memory_devices")

assert jax.device_count() == 8, "run with XLA_FLAGS=--xla_force_host_platform_device_count=8"

auto = jax.sharding.AxisType.Auto
MESH = jax.make_mesh((4, 2), ("x", "y"), axis_types=(auto, auto))


def named(*spec):
    return NamedSharding(MESH, P(*spec))


def arr(shape, dtype=jnp.float32, sharding=None):
    return jax.ShapeDtypeStruct(shape, dtype, sharding=sharding)


PROGRAMS = []


def program(name, f, args, **kw):
    PROGRAMS.append((name, f, args, kw))


for tag in ("sdy", "gspmd"):
    program(f"{tag}_in_out", lambda x: x * 2, [arr((64, 32), sharding=named("x", "y"))], out_shardings=named("x", "y"))
    program(f"{tag}_replicated", lambda x: x + 1, [arr((64, 32), sharding=named())], out_shardings=named())
    program(f"{tag}_partial", lambda x: x + 1, [arr((64, 32), sharding=named("x"))], out_shardings=named(None, "y"))
    program(f"{tag}_two_in_two_out", lambda a, b: (a @ b, a.sum()),
            [arr((32, 16), sharding=named("x")), arr((16, 8), sharding=named(None, "y"))],
            out_shardings=(named("x", "y"), named()))
    program(f"{tag}_combined_axes", lambda x: x * 2, [arr((16, 12, 5), sharding=named(("x", "y")))],
            out_shardings=named(("x", "y")))
    program(f"{tag}_transpose", lambda x: x.T, [arr((24, 8), sharding=named("x", "y"))], out_shardings=named("y", "x"))
    program(f"{tag}_bf16_int8", lambda x, i: (x * 2, i + 1),
            [arr((32, 7), jnp.bfloat16, sharding=named("x")), arr((9, 16), jnp.int8, sharding=named(None, "y"))],
            out_shardings=(named("x"), named(None, "y")))
    program(f"{tag}_int4", lambda x: x, [arr((16, 5), jnp.int4, sharding=named("y", None))], out_shardings=named("y"))
    program(f"{tag}_donated", lambda x, y: (x + y, y * 2),
            [arr((64, 16), sharding=named("x")), arr((64, 16), sharding=named("x", "y"))],
            out_shardings=(named("x"), named("x", "y")), donate_argnums=(0,))


def header_field(text, name):
    header = text.split("\n", 1)[0]
    m = re.search(name + r"=\{(.*?)\}(?:, [a-z_]+=|$)", header)
    return m.group(1) if m else None


def entry_layout(text):
    header = text.split("\n", 1)[0]
    start = header.index("entry_computation_layout={") + len("entry_computation_layout={")
    depth = 1
    for i in range(start, len(header)):
        depth += {"{": 1, "}": -1}.get(header[i], 0)
        if depth == 0:
            return header[start:i]
    return None


def write(path, data):
    with open(path, "wb" if isinstance(data, bytes) else "w") as f:
        f.write(data)


def main():
    os.makedirs(ROOT, exist_ok=True)
    records = []
    for name, f, args, kw in PROGRAMS:
        jax.config.update("jax_use_shardy_partitioner", not name.startswith("gspmd_"))
        jitted = jax.jit(f, **kw)
        try:
            lowered = jitted.lower(*args)
        except Exception as e:  # noqa: BLE001
            print(f"skipped {name}: {type(e).__name__}: {str(e).splitlines()[0][:200]}")
            continue
        write(os.path.join(ROOT, name + ".mlir"), lowered.as_text())
        write(os.path.join(ROOT, name + ".hlo.txt"), lowered.compiler_ir("hlo").as_hlo_text())
        try:
            exported = jax.export.export(jitted)(*args)
            write(os.path.join(ROOT, name + ".mlirbc"), exported.mlir_module_serialized)
        except Exception:  # noqa: BLE001
            pass
        compiled = lowered.compile()
        m = compiled.memory_analysis()
        records.append({
            "name": name,
            "num_devices": len(compiled.input_shardings[0][0].device_set),
            "argument_size_in_bytes": m.argument_size_in_bytes,
            "output_size_in_bytes": m.output_size_in_bytes,
            "alias_size_in_bytes": m.alias_size_in_bytes,
            "partitioned_entry_computation_layout": entry_layout(compiled.as_text()),
        })
    with open(os.path.join(ROOT, "devices.jsonl"), "w") as out:
        for r in records:
            out.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    main()
