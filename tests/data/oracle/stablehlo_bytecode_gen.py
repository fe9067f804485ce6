"""Regenerates tests/data/stablehlo/bytecode/: StableHLO portable artifacts
(MLIR bytecode of the VHLO dialect) and `jax.export` serializations, as
jax/jaxlib 0.10.2 write them, with what XLA's conversion makes of them: the
golden data of the crate's bytecode reader.

Run with a Python that has jax/jaxlib 0.10.2 installed and the `flatbuffers`
package on its path (jax.export's serialization needs it; it can live in a
directory of its own, `pip install --target DIR flatbuffers`, put on
PYTHONPATH), from the repository root, with eight forced CPU devices for the
sharded programs:

    XLA_FLAGS=--xla_force_host_platform_device_count=8 PYTHONPATH=DIR \\
        python tests/data/oracle/stablehlo_bytecode_gen.py

It writes:

- `programs/NAME.mlirbc`: the portable artifact of every program of
  `../programs/NAME.debug.mlir` (written by `stablehlo_gen.py`), serialized
  as `jax.export` serializes modules (`serialize_portable_artifact` with
  the target version of `WEEK_4` compatibility, with Shardy);
- `programs.jsonl`, one record per program: {"name", "target_version",
  "entry_computation_layout", "input_output_alias", "buffer_donor"} of
  XLA's conversion (`mlir_module_to_xla_computation`) of the artifact
  deserialized (`deserialize_portable_artifact`);
- `exports/NAME.bin` and `exports/NAME.mlirbc`: `jax.export`'s
  `Exported.serialize()` and `.mlir_module_serialized` of more programs
  (element types, donation, tuples, shardings in both partitioners'
  forms, memory kinds, symbolic shapes), with `exports.jsonl`: {"name",
  "fun_name", "in_avals", "out_avals", "in_shardings", "out_shardings" (str
  of each NamedSharding, or null), "in_shardings_hlo", "out_shardings_hlo",
  "nr_devices", "platforms", "ordered_effects", "unordered_effects",
  "disabled_safety_checks", "calling_convention_version",
  "module_kept_var_idx", "uses_global_constants", "mlir"
  (`exp.mlir_module()`), "entry_computation_layout",
  "input_output_alias", "buffer_donor" (the conversion of that module)}.
"""

import json
import os
import warnings

warnings.filterwarnings("ignore")

import jax  # noqa: E402

jax.config.update("jax_enable_x64", True)
jax.config.update("jax_hlo_source_file_canonicalization_regex", r"^.*/(?=tests/data/oracle/)")

import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402
from jax._src.interpreters import mlir as jax_mlir  # noqa: E402
from jax._src.lib import _jax  # noqa: E402
from jax._src.lib.mlir.dialects import hlo  # noqa: E402
from jax.sharding import NamedSharding  # noqa: E402
from jax.sharding import PartitionSpec as P  # noqa: E402

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "stablehlo")
ROOT = os.path.join(DATA, "bytecode")


def header_field(header, field):
    """The value of `field={...}` in an HLO module's header line."""
    start = header.find(field + "={")
    if start < 0:
        return None
    i = start + len(field) + 1
    depth = 0
    for j in range(i, len(header)):
        if header[j] == "{":
            depth += 1
        elif header[j] == "}":
            depth -= 1
            if depth == 0:
                return header[i + 1 : j]
    return None


def convert(text):
    """XLA's conversion of module text: the header's layout, aliasing and
    donors, or the error."""
    try:
        c = _jax.mlir.mlir_module_to_xla_computation(text, use_tuple_args=False)
        header = c.as_hlo_text().splitlines()[0]
        return {
            "entry_computation_layout": header_field(header, "entry_computation_layout"),
            "input_output_alias": header_field(header, "input_output_alias"),
            "buffer_donor": header_field(header, "buffer_donor"),
        }
    except Exception as e:  # noqa: BLE001
        return {"error": str(e).splitlines()[0]}


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def target_version():
    return hlo.get_version_from_compatibility_requirement(
        hlo.StablehloCompatibilityRequirement.WEEK_4)


def run_programs():
    out_dir = os.path.join(ROOT, "programs")
    os.makedirs(out_dir, exist_ok=True)
    version = target_version()
    names = [json.loads(line)["name"] for line in open(os.path.join(DATA, "programs.jsonl"))]
    with open(os.path.join(ROOT, "programs.jsonl"), "w") as out:
        for name in names:
            text = open(os.path.join(DATA, "programs", name + ".debug.mlir")).read()
            artifact = _jax.mlir.serialize_portable_artifact(text, version, True)
            write(os.path.join(out_dir, name + ".mlirbc"), artifact)
            record = {"name": name, "target_version": version}
            with jax_mlir.make_ir_context():
                text = str(_jax.mlir.deserialize_portable_artifact(artifact))
            record.update(convert(text))
            out.write(json.dumps(record) + "\n")


MESH = None


def mesh():
    global MESH
    if MESH is None:
        auto = jax.sharding.AxisType.Auto
        MESH = jax.make_mesh((4, 2), ("x", "y"), axis_types=(auto, auto))
    return MESH


def named(*spec, memory_kind=None):
    return NamedSharding(mesh(), P(*spec), memory_kind=memory_kind)


def arr(shape, dtype=jnp.float32, sharding=None):
    return jax.ShapeDtypeStruct(shape, dtype, sharding=sharding)


DTYPES = [jnp.bool_, jnp.int4, jnp.uint4, jnp.int8, jnp.uint8, jnp.int16, jnp.uint16,
          jnp.int32, jnp.uint32, jnp.int64, jnp.uint64, jnp.bfloat16, jnp.float16,
          jnp.float32, jnp.float64, jnp.complex64, jnp.complex128,
          jnp.float8_e4m3fn, jnp.float8_e5m2, jnp.float8_e4m3b11fnuz, jnp.float8_e4m3fnuz,
          jnp.float8_e5m2fnuz, jnp.float8_e3m4, jnp.float8_e4m3, jnp.float8_e8m0fnu,
          jnp.float4_e2m1fn]

# (name, function, arguments or None, symbolic shapes or None, jit keywords)
EXPORTS = [
    ("all_dtypes", lambda *xs: tuple(x.T for x in xs), [arr((2, 3), d) for d in DTYPES], None, {}),
    ("donate", lambda x, y: (x + y, x.T), [arr((3, 3)), arr((3, 3))], None, {"donate_argnums": (0, 1)}),
    ("nested_pytree", lambda a, b: {"s": (a.sum(), [a, b.T]), "n": None},
     [arr((2, 3)), arr((4, 2), jnp.int32)], None, {}),
    ("scalar", lambda x: x * 2, [arr((), jnp.float64)], None, {}),
    ("no_args", lambda: jnp.arange(6).reshape(2, 3).T, [], None, {}),
    ("sharded_shardy", lambda x, y: (x @ y, x.T), [arr((8, 4), sharding=named("x", "y")),
                                                   arr((4, 6), sharding=named("y"))], None, {}),
    ("sharded_out", lambda x: x * 2, [arr((8, 4), sharding=named("x"))], None,
     {"out_shardings": named(None, "y")}),
    ("memory_kind", lambda x: x + 1, [arr((8, 4), sharding=named("x", memory_kind="pinned_host"))],
     None, {"out_shardings": named("x", memory_kind="device")}),
    ("symbolic_matmul", lambda x, y: (x @ y).T, None, ("b, k", "k, 5"), {}),
    ("symbolic_broadcast", lambda x: jnp.broadcast_to(x, (3,) + x.shape), None, ("2, n",), {}),
    ("while_loop", lambda x: lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1].T), (0, x))[1],
     [arr((3, 3))], None, {}),
    ("cond", lambda p, x: lax.cond(p, lambda a: a.T, lambda a: -a.T, x), [arr((), jnp.bool_), arr((2, 3))],
     None, {}),
    ("linalg", lambda x: tuple(jnp.linalg.qr(x)), [arr((4, 3))], None, {}),
]

GSPMD_EXPORTS = [
    ("sharded_gspmd", lambda x: x * 2, [arr((8, 4), sharding=named("x", "y"))], None, {}),
]


def export_one(name, f, args, poly, jit_kwargs, out):
    out_dir = os.path.join(ROOT, "exports")
    if poly is not None:
        scope = jax.export.SymbolicScope()
        args = [jax.ShapeDtypeStruct(jax.export.symbolic_shape(s, scope=scope), jnp.float32)
                for s in poly]
    exp = jax.export.export(jax.jit(f, **jit_kwargs))(*args)
    write(os.path.join(out_dir, name + ".bin"), exp.serialize())
    write(os.path.join(out_dir, name + ".mlirbc"), exp.mlir_module_serialized)
    text = exp.mlir_module()

    def strs(xs):
        return [None if x is None else str(x) for x in xs]

    record = {
        "name": name,
        "fun_name": exp.fun_name,
        "in_avals": [str(a) for a in exp.in_avals],
        "out_avals": [str(a) for a in exp.out_avals],
        "in_shardings": strs(exp._in_named_shardings),
        "out_shardings": strs(exp._out_named_shardings),
        "in_shardings_hlo": strs(exp.in_shardings_hlo),
        "out_shardings_hlo": strs(exp.out_shardings_hlo),
        "nr_devices": exp.nr_devices,
        "platforms": list(exp.platforms),
        "ordered_effects": [str(e) for e in exp.ordered_effects],
        "unordered_effects": [str(e) for e in exp.unordered_effects],
        "disabled_safety_checks": [str(c) for c in exp.disabled_safety_checks],
        "calling_convention_version": exp.calling_convention_version,
        "module_kept_var_idx": list(exp.module_kept_var_idx),
        "uses_global_constants": exp.uses_global_constants,
        "mlir": text,
    }
    record.update(convert(text))
    out.write(json.dumps(record) + "\n")


def run_exports():
    os.makedirs(os.path.join(ROOT, "exports"), exist_ok=True)
    with open(os.path.join(ROOT, "exports.jsonl"), "w") as out:
        for e in EXPORTS:
            export_one(*e, out)
        jax.config.update("jax_use_shardy_partitioner", False)
        try:
            for e in GSPMD_EXPORTS:
                export_one(*e, out)
        finally:
            jax.config.update("jax_use_shardy_partitioner", True)


if __name__ == "__main__":
    os.makedirs(ROOT, exist_ok=True)
    run_programs()
    run_exports()
