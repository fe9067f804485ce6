"""Regenerates tests/data/stablehlo/: what jax and XLA (jaxlib 0.10.2, CPU)
write and convert for StableHLO programs, the golden data of the crate's
StableHLO reader.

Run with a Python that has jax/jaxlib 0.10.2 installed (and `flatbuffers`,
which `jax.export`'s serialization needs), from the repository root, with
eight forced CPU devices for the sharded programs:

    XLA_FLAGS=--xla_force_host_platform_device_count=8 \\
        python tests/data/oracle/stablehlo_gen.py

It writes:

- `programs/NAME.mlir`: `jax.jit(f, ...).lower(*args).as_text()` of many
  jax programs (every element type, donation, tokens, shardings in both
  partitioners' forms, memory kinds, layouts, symbolic shapes through
  `jax.export`, loops, conditionals, custom calls);
  `programs/NAME.debug.mlir`: the same with `debug_info=True`;
  `programs/NAME.hlo.txt`: XLA's conversion of it,
  `lowered.compiler_ir('hlo').as_hlo_text()`.
- `programs.jsonl`, one record per program: {"name", "entry_computation_layout"
  (the conversion's, as its HLO header prints it), "input_output_alias",
  "buffer_donor" (the header's, or null), "parameters", "result" (the
  conversion's `program_shape()`), "compiled_entry_computation_layout"
  (the header of `lowered.compile().as_text()`, XLA:CPU, or null with
  "compile_error")}.
- `modules.jsonl`: hand-written modules (the types of `types` below, entry
  layout attributes, aliasing, tuples, bodies whose layouts reach the
  result) through the same conversion (`mlir_module_to_xla_computation`):
  {"name", "text", "entry_computation_layout" | "error", "header"}.
- `types.jsonl`: XLA's import of HLO shapes as MLIR types
  (`hlo_to_stablehlo` of a module whose entry takes the shape): {"shape",
  "type" | "error"}.
- `export/NAME.bin` and `export/NAME.mlirbc`: `jax.export`'s
  `Exported.serialize()` and `.mlir_module_serialized` (a VHLO portable
  artifact) of a few programs, with `export.jsonl`: {"name", "in_avals",
  "out_avals", "in_shardings_hlo", "out_shardings_hlo", "nr_devices",
  "platforms", "mlir" (`exp.mlir_module()`), "entry_computation_layout"
  (the conversion of that module)}.
"""

import json
import os
import re
import sys
import warnings

warnings.filterwarnings("ignore")

import jax  # noqa: E402

jax.config.update("jax_enable_x64", True)
# Locations name this file relative to the repository, not where it was run.
jax.config.update("jax_hlo_source_file_canonicalization_regex", r"^.*/(?=tests/data/oracle/)")

import jax.numpy as jnp  # noqa: E402
import ml_dtypes  # noqa: E402
import numpy as np  # noqa: E402
from jax import lax  # noqa: E402
from jax._src.interpreters import mlir as jax_mlir  # noqa: E402
from jax._src.lib import _jax  # noqa: E402
from jax._src.lib import xla_client as xc  # noqa: E402
from jax._src.lib.mlir import ir  # noqa: E402
from jax.experimental import io_callback  # noqa: E402
from jax.experimental.layout import Format, Layout  # noqa: E402
from jax.sharding import NamedSharding  # noqa: E402
from jax.sharding import PartitionSpec as P  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "stablehlo")
PROGRAMS = os.path.join(ROOT, "programs")
EXPORT = os.path.join(ROOT, "export")


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


def write(path, data):
    mode = "w" if isinstance(data, str) else "wb"
    with open(path, mode) as f:
        f.write(data)


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
    """An abstract argument: lowering needs no data."""
    return jax.ShapeDtypeStruct(shape, dtype, sharding=sharding)


PROGRAM_LIST = []


def program(name, f, args, shardy=True, **jit_kwargs):
    PROGRAM_LIST.append((name, f, args, shardy, jit_kwargs))


# Every element type jax has, each through a transpose (whose result layout
# the conversion permutes) and a reshape.
DTYPES = [
    ("bool", jnp.bool_),
    ("int2", getattr(ml_dtypes, "int2", None)),
    ("uint2", getattr(ml_dtypes, "uint2", None)),
    ("int4", jnp.int4),
    ("uint4", jnp.uint4),
    ("int8", jnp.int8),
    ("uint8", jnp.uint8),
    ("int16", jnp.int16),
    ("uint16", jnp.uint16),
    ("int32", jnp.int32),
    ("uint32", jnp.uint32),
    ("int64", jnp.int64),
    ("uint64", jnp.uint64),
    ("bfloat16", jnp.bfloat16),
    ("float16", jnp.float16),
    ("float32", jnp.float32),
    ("float64", jnp.float64),
    ("complex64", jnp.complex64),
    ("complex128", jnp.complex128),
    ("float8_e4m3fn", jnp.float8_e4m3fn),
    ("float8_e5m2", jnp.float8_e5m2),
    ("float8_e4m3b11fnuz", jnp.float8_e4m3b11fnuz),
    ("float8_e4m3fnuz", jnp.float8_e4m3fnuz),
    ("float8_e5m2fnuz", jnp.float8_e5m2fnuz),
    ("float8_e3m4", getattr(jnp, "float8_e3m4", None)),
    ("float8_e4m3", getattr(jnp, "float8_e4m3", None)),
    ("float8_e8m0fnu", getattr(jnp, "float8_e8m0fnu", None)),
    ("float4_e2m1fn", getattr(jnp, "float4_e2m1fn", None)),
    ("float6_e2m3fn", getattr(ml_dtypes, "float6_e2m3fn", None)),
    ("float6_e3m2fn", getattr(ml_dtypes, "float6_e3m2fn", None)),
]
for dname, dt in DTYPES:
    if dt is not None:
        program(f"dtype_{dname}", lambda x: (x.T, x.reshape(-1)), [arr((2, 3), dt)])

# Layouts from the body.
program("transpose", lambda x: x.T, [arr((2, 3))])
program("transpose_3d", lambda x: jnp.transpose(x, (2, 0, 1)), [arr((2, 3, 4))])
program("transpose_3d_b", lambda x: jnp.transpose(x, (1, 2, 0)), [arr((2, 3, 4))])
program("transpose_twice", lambda x: jnp.transpose(jnp.transpose(x, (1, 2, 0)), (1, 0, 2)), [arr((2, 3, 4))])
program("transpose_plus_one", lambda x: x.T + 1, [arr((2, 3))])
program("one_plus_transpose", lambda x: 1 + x.T, [arr((2, 3))])
program("transpose_times_transpose", lambda x, y: x.T * y.T, [arr((2, 3)), arr((2, 3))])
program("iota_plus_transpose", lambda x: lax.broadcasted_iota(jnp.float32, (3, 2), 0) + x.T, [arr((2, 3))])
program("transpose_unary", lambda x: jnp.tanh(-x.T), [arr((2, 3))])
program("transpose_convert", lambda x: x.T.astype(jnp.int32), [arr((2, 3))])
program("transpose_compare", lambda x: x.T > 0, [arr((2, 3))])
program("transpose_compare_swapped", lambda x: 0 < x.T, [arr((2, 3))])
program("transpose_select", lambda p, x: lax.select(p.T, x.T, x.T * 2), [arr((2, 3), jnp.bool_), arr((2, 3))])
program("transpose_clamp", lambda x: lax.clamp(np.float32(0), x.T, np.float32(1)), [arr((2, 3))])
program("transpose_clamp_arrays", lambda a, x: lax.clamp(a, x.T, a), [arr((3, 2)), arr((2, 3))])
program("transpose_where", lambda x: jnp.where(x.T > 0, x.T, 0.0), [arr((2, 3))])
program("transpose_reshape", lambda x: x.T.reshape(6), [arr((2, 3))])
program("transpose_slice", lambda x: x.T[1:], [arr((2, 3))])
program("transpose_reverse", lambda x: x.T[::-1], [arr((2, 3))])
program("transpose_pad", lambda x: jnp.pad(x.T, 1), [arr((2, 3))])
program("transpose_concat", lambda x: jnp.concatenate([x.T, x.T]), [arr((2, 3))])
program("transpose_dus", lambda x: lax.dynamic_update_slice(x.T, jnp.ones((1, 1), jnp.float32), (0, 0)), [arr((2, 3))])
program("transpose_broadcast", lambda x: x.T[None], [arr((2, 3))])
program("transpose_sort", lambda x: jnp.sort(x.T), [arr((2, 3))])
program("transpose_sort_lax", lambda x: lax.sort(x.T, dimension=0), [arr((2, 3))])
program("transpose_reduce", lambda x: x.T.sum(0), [arr((2, 3))])
program("transpose_tuple_results", lambda x: (x.T, x, x.T + 1), [arr((2, 3))])
program("transpose_of_constant", lambda x: jnp.ones((2, 3, 4)).transpose(1, 2, 0) + x[0, 0], [arr((2, 3))])
program("transpose_scatter", lambda x: x.T.at[0].set(1.0), [arr((2, 3))])
program("transpose_gather", lambda x, i: x.T[i], [arr((2, 3)), arr((2,), jnp.int32)])
program("transpose_cond", lambda x: lax.cond(x[0, 0] > 0, lambda a: a.T, lambda a: a.T * 2, x), [arr((2, 3))])
program("transpose_cond_const", lambda x: lax.cond(True, lambda a: a.T, lambda a: a.T * 2, x), [arr((2, 3))])
program("transpose_switch", lambda i, x: lax.switch(i, [lambda a: a.T, lambda a: -a.T, lambda a: a.T + 1], x), [arr((), jnp.int32), arr((2, 3))])
program("transpose_fori", lambda x: lax.fori_loop(0, 3, lambda i, a: a * 2, x.T), [arr((2, 3))])
program("transpose_while", lambda x: lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] + 1), (0, x.T))[1], [arr((2, 3))])
program("transpose_scan", lambda x: lax.scan(lambda c, r: (c + r, c), jnp.zeros((2,), jnp.float32), x.T)[1].T, [arr((2, 3))])
program("transpose_in_jit", lambda x: jax.jit(lambda a: a.T)(x), [arr((2, 3))])
program("transpose_in_jit_twice", lambda x: jax.jit(lambda a: jax.jit(lambda b: b.T)(a) * 2)(x), [arr((2, 3))])
program("transpose_opt_barrier", lambda x: lax.optimization_barrier((x.T, x)), [arr((2, 3))])
program("einsum", lambda a, b: jnp.einsum("ij,jk->ki", a, b), [arr((2, 3)), arr((3, 4))])
program("einsum_batch", lambda a, b: jnp.einsum("bij,bjk->kbi", a, b), [arr((5, 2, 3)), arr((5, 3, 4))])
program("vmap_transpose", jax.vmap(lambda x: x.T, in_axes=1), [arr((2, 3, 4))])
program("grad_matmul", jax.grad(lambda a, b: (a @ b).sum(), argnums=(0, 1)), [arr((2, 3)), arr((3, 4))])
program("linalg_qr", jnp.linalg.qr, [arr((4, 3))])
program("linalg_cholesky", jnp.linalg.cholesky, [arr((3, 3))])
program("linalg_eigh", jnp.linalg.eigh, [arr((3, 3))])
program("linalg_svd", lambda x: jnp.linalg.svd(x, full_matrices=False), [arr((4, 3))])
program("linalg_solve", jnp.linalg.solve, [arr((3, 3)), arr((3, 2))])
program("linalg_inv_transpose", lambda x: jnp.linalg.inv(x).T, [arr((3, 3))])
program("fft", jnp.fft.fft, [arr((8,), jnp.complex64)])
program("rfft2", jnp.fft.rfft2, [arr((4, 8))])
program("conv", lambda x, k: lax.conv(x, k, (1, 1), "SAME"), [arr((1, 2, 8, 8)), arr((3, 2, 3, 3))])
program("reduce_window", lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (2, 2), (2, 2), "VALID"), [arr((4, 6))])
program("top_k", lambda x: lax.top_k(x, 2), [arr((3, 5))])
program("erf_inv", lax.erf_inv, [arr((3,))])
program("random", lambda k: jax.random.normal(jax.random.wrap_key_data(k), (3, 2)), [arr((2,), jnp.uint32)])
program("rng_bit_generator", lambda k: lax.rng_bit_generator(k, (3, 2)), [arr((2,), jnp.uint64)])
program("argsort_multi_operand", lambda x, y: lax.sort((x, y), num_keys=1), [arr((5,)), arr((5,), jnp.int32)])
program("cumsum", lambda x: jnp.cumsum(x, axis=1), [arr((2, 3))])
program("scalar_only", lambda x: x * 2, [arr((), jnp.float32)])
program("no_arguments", lambda: jnp.arange(4), [])
program("no_results", lambda x: None, [arr((2,))])
program("pytree", lambda d: {"a": d["x"] + 1, "b": (d["y"].T, d["x"])}, [{"x": arr((2,)), "y": arr((2, 3))}])
program("many_arguments", lambda *xs: sum(xs), [arr((2,)) for _ in range(20)])
program("zero_size", lambda x: x.T, [arr((0, 3))])
program("static_argnums", lambda x, n: x * n, [arr((2,)), 3], static_argnums=(1,))
program("custom_jvp", jax.nn.relu, [arr((3,))])
program("pure_callback", lambda x: jax.pure_callback(lambda a: a, jax.ShapeDtypeStruct(x.shape, x.dtype), x), [arr((3,))])

# Donation.
program("donate_one", lambda x, y: x + y, [arr((2, 3)), arr((2, 3))], donate_argnums=(0,))
program("donate_two", lambda x, y: (x + y, x - y), [arr((2, 3)), arr((2, 3))], donate_argnums=(0, 1))
program("donate_second_output", lambda x, y: (x.sum(), x + y), [arr((2, 3)), arr((2, 3))], donate_argnums=(1,))
program("donate_unmatched", lambda x: x.sum(), [arr((2, 3))], donate_argnums=(0,))
program("donate_transposed", lambda x: x.T, [arr((3, 3))], donate_argnums=(0,))
program("donate_sharded", lambda x, y: (x * 2, y + 1), [arr((8, 4), sharding=named("x")), arr((8, 4), sharding=named("x", "y"))], donate_argnums=(0, 1))
program("donate_with_out_shardings", lambda x: x * 2, [arr((8, 4), sharding=named("x"))], donate_argnums=(0,), out_shardings=named("x"))
program("donate_argnames", lambda x, y: x + y, [arr((2,)), arr((2,))], donate_argnames=("y",))

# Tokens.
program("ordered_io_callback", lambda x: (io_callback(lambda a: None, None, x, ordered=True), x + 1)[1], [arr((2, 3))])
program("two_ordered_callbacks", lambda x: (io_callback(lambda a: None, None, x, ordered=True), io_callback(lambda a: a, jax.ShapeDtypeStruct((2, 3), jnp.float32), x, ordered=True))[1], [arr((2, 3))])
program("unordered_io_callback", lambda x: io_callback(lambda a: a, jax.ShapeDtypeStruct((2, 3), jnp.float32), x), [arr((2, 3))])
program("debug_print", lambda x: (jax.debug.print("{}", x, ordered=True), x * 2)[1], [arr((2,))])

# Shardings, with Shardy (`sdy.sharding`) and with GSPMD (`mhlo.sharding`).
for shardy in (True, False):
    tag = "sdy" if shardy else "gspmd"
    program(f"{tag}_in_out", lambda x: (x * 2, x.sum()), [arr((8, 4), sharding=named("x", "y"))], shardy=shardy, out_shardings=(named(None, "y"), named()))
    program(f"{tag}_constraint", lambda x: jax.lax.with_sharding_constraint(x * 2, named("y")), [arr((8, 4), sharding=named("x"))], shardy=shardy)
    program(f"{tag}_transpose_out", lambda x: x.T, [arr((8, 4), sharding=named("x", "y"))], shardy=shardy, out_shardings=named("y", "x"))
    program(f"{tag}_replicated", lambda x: x + 1, [arr((8, 4), sharding=named())], shardy=shardy)
    program(f"{tag}_partial", lambda x: x + 1, [arr((8, 4), sharding=named(("x", "y")))], shardy=shardy)
    program(f"{tag}_shard_map", jax.shard_map(lambda a: a * 2, mesh=mesh(), in_specs=P("x"), out_specs=P("x")), [arr((8, 4), sharding=named("x"))], shardy=shardy)
    program(f"{tag}_transpose_unsharded_out", lambda x: x.T, [arr((8, 4), sharding=named("x", "y"))], shardy=shardy)

# Memory kinds.
program("memory_out_pinned_host", lambda x: x + 1, [arr((8, 4), sharding=named("x"))], out_shardings=named("x", memory_kind="pinned_host"))
program("memory_out_unpinned_host", lambda x: x + 1, [arr((8, 4), sharding=named("x"))], out_shardings=named("x", memory_kind="unpinned_host"))
program("memory_in_pinned_host", lambda x: x * 2, [arr((8, 4), sharding=named("x", memory_kind="pinned_host"))], out_shardings=named("x", memory_kind="device"))
program("memory_transpose_to_host", lambda x: x.T, [arr((8, 4), sharding=named("x"))], out_shardings=named(None, "x", memory_kind="pinned_host"))

# Layouts.
_s = jax.sharding.SingleDeviceSharding(jax.devices()[0])
program("layout_custom", lambda x: x * 2, [arr((2, 3))], in_shardings=Format(Layout(major_to_minor=(1, 0)), _s), out_shardings=Format(Layout(major_to_minor=(0, 1)), _s))
program("layout_custom_input", lambda x: x.T, [arr((2, 3))], in_shardings=Format(Layout(major_to_minor=(0, 1)), _s))
program("layout_auto", lambda x: x * 2, [arr((2, 3))], in_shardings=Format(Layout.AUTO), out_shardings=Format(Layout.AUTO))
program("layout_sharded", lambda x: x + 1, [arr((8, 4), sharding=named("x"))], in_shardings=Format(Layout(major_to_minor=(0, 1)), named("x")), out_shardings=Format(Layout(major_to_minor=(0, 1)), named("x")))


def hlo_header(hlo_text):
    return next(line for line in hlo_text.splitlines() if line.startswith("HloModule"))


def run_programs():
    os.makedirs(PROGRAMS, exist_ok=True)
    records = []
    for name, f, args, shardy, kw in PROGRAM_LIST:
        jax.config.update("jax_use_shardy_partitioner", shardy)
        record = {"name": name}
        try:
            lowered = jax.jit(f, **kw).lower(*args)
        except Exception as e:  # noqa: BLE001
            print(f"skipped {name}: {type(e).__name__}: {str(e).splitlines()[0][:200]}", file=sys.stderr)
            continue
        write(os.path.join(PROGRAMS, name + ".mlir"), lowered.as_text())
        write(os.path.join(PROGRAMS, name + ".debug.mlir"), lowered.as_text(debug_info=True))
        computation = lowered.compiler_ir("hlo")
        hlo_text = computation.as_hlo_text()
        write(os.path.join(PROGRAMS, name + ".hlo.txt"), hlo_text)
        header = hlo_header(hlo_text)
        record["entry_computation_layout"] = header_field(header, "entry_computation_layout")
        record["input_output_alias"] = header_field(header, "input_output_alias")
        record["buffer_donor"] = header_field(header, "buffer_donor")
        ps = computation.program_shape()
        record["parameters"] = [str(s) for s in ps.parameter_shapes()]
        record["result"] = str(ps.result_shape())
        try:
            compiled = lowered.compile()
            record["compiled_entry_computation_layout"] = header_field(
                hlo_header(compiled.as_text()), "entry_computation_layout")
        except Exception as e:  # noqa: BLE001
            record["compiled_entry_computation_layout"] = None
            record["compile_error"] = str(e).splitlines()[0][:300]
        records.append(record)
    jax.config.update("jax_use_shardy_partitioner", True)
    with open(os.path.join(ROOT, "programs.jsonl"), "w") as out:
        for r in records:
            out.write(json.dumps(r) + "\n")


def convert(text):
    """XLA's conversion of module text: the HLO header, or the error."""
    try:
        c = _jax.mlir.mlir_module_to_xla_computation(text, use_tuple_args=False)
        header = hlo_header(c.as_hlo_text())
        return {"entry_computation_layout": header_field(header, "entry_computation_layout"),
                "header": header}
    except Exception as e:  # noqa: BLE001
        return {"error": str(e)}


def one_type_module(t):
    return f"func.func public @main(%arg0: {t}) -> {t} {{\n  return %arg0 : {t}\n}}\n"


ELEMENT_TYPES = [
    "i1", "i2", "i3", "i4", "i8", "i16", "i32", "i64", "i128",
    "si2", "si4", "si8", "si16", "si32", "si64",
    "ui1", "ui2", "ui4", "ui8", "ui16", "ui32", "ui64",
    "bf16", "f16", "tf32", "f32", "f64", "f80", "f128",
    "f8E5M2", "f8E4M3", "f8E4M3FN", "f8E4M3B11FNUZ", "f8E5M2FNUZ", "f8E4M3FNUZ",
    "f8E3M4", "f8E8M0FNU", "f6E2M3FN", "f6E3M2FN", "f4E2M1FN",
    "complex<f32>", "complex<f64>", "complex<bf16>", "complex<f16>", "complex<i32>",
    "index",
]

TYPES = (
    [f"tensor<2x3x{e}>" for e in ELEMENT_TYPES]
    + [f"tensor<{e}>" for e in ["i1", "f32", "complex<f64>", "ui4"]]
    + [
        "tensor<0x3xf32>",
        "tensor<?x3xf32>",
        "tensor<?x?xf32>",
        "tensor<?x3xf32, #stablehlo.bounds<4, ?>>",
        "tensor<?x?xf32, #stablehlo.bounds<?, 7>>",
        "tensor<2x?xi8, #stablehlo.bounds<?, 5>>",
        "tensor<2x3xf32, #stablehlo.bounds<?, ?>>",
        "tensor<2x3xf32, #stablehlo.bounds<4, ?>>",
        "tensor<?x3xf32, #mhlo.type_extensions<bounds = [4, ?]>>",
        "tensor<*xf32>",
        "tensor<1x2x3x4x5x6x7x8xf32>",
        "tensor<9223372036854775807xi8>",
        "tensor<4611686018427387904x4xf32>",
        "!stablehlo.token",
        "tuple<>",
        "tuple<tensor<2xf32>, !stablehlo.token>",
        "tuple<tensor<2xf32>, tuple<tensor<i32>, tuple<>>>",
        "tensor<2x!quant.uniform<i8:f32, 1.000000e+00:3>>",
        "tensor<2x!quant.uniform<u8:f32, 5.000000e-01:-2>>",
        "tensor<2x!quant.uniform<i8<-127:127>:f32:0, {1.000000e+00:3,2.000000e+00:4}>>",
        "i32",
        "f32",
        "vector<2x3xf32>",
    ]
)

HAND_MODULES = [
    ("parameter_layouts",
     'module @m attributes {mhlo.xla_entry_computation_parameter_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<[0, 1, 2]> : tensor<3xindex>]} {\n'
     '  func.func public @main(%arg0: tensor<2x3xf32>, %arg1: tensor<2x3x4xf32>) -> tensor<2x3xf32> {\n'
     '    return %arg0 : tensor<2x3xf32>\n  }\n}\n'),
    ("parameter_layouts_tuple",
     'module @m attributes {mhlo.xla_entry_computation_parameter_layouts = [[dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>]]} {\n'
     '  func.func public @main(%arg0: tuple<tensor<2x3xf32>, tensor<f32>>) -> tuple<tensor<2x3xf32>, tensor<f32>> {\n'
     '    return %arg0 : tuple<tensor<2x3xf32>, tensor<f32>>\n  }\n}\n'),
    ("parameter_tiles",
     'module @m attributes {mhlo.xla_entry_computation_parameter_layouts = [dense<[1, 0]> : tensor<2xindex>], mhlo.xla_entry_computation_parameter_tiles = [[dense<[8, 128]> : tensor<2xindex>, dense<[2, 1]> : tensor<2xindex>]]} {\n'
     '  func.func public @main(%arg0: tensor<16x256xbf16>) -> tensor<16x256xbf16> {\n'
     '    return %arg0 : tensor<16x256xbf16>\n  }\n}\n'),
    ("result_layout",
     'module @m attributes {mhlo.xla_entry_computation_result_layout = [dense<[0, 1]> : tensor<2xindex>]} {\n'
     '  func.func public @main(%arg0: tensor<2x3xf32>) -> tensor<2x3xf32> {\n'
     '    return %arg0 : tensor<2x3xf32>\n  }\n}\n'),
    ("result_layout_tuple",
     'module @m attributes {mhlo.xla_entry_computation_result_layout = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>]} {\n'
     '  func.func public @main(%arg0: tensor<2x3xf32>, %arg1: tensor<4xf32>) -> (tensor<2x3xf32>, tensor<4xf32>) {\n'
     '    return %arg0, %arg1 : tensor<2x3xf32>, tensor<4xf32>\n  }\n}\n'),
    ("aliasing_single",
     'func.func public @main(%arg0: tensor<2xf32> {tf.aliasing_output = 0 : i32}) -> tensor<2xf32> {\n'
     '  return %arg0 : tensor<2xf32>\n}\n'),
    ("aliasing_single_bad",
     'func.func public @main(%arg0: tensor<2xf32> {tf.aliasing_output = 1 : i32}) -> tensor<2xf32> {\n'
     '  return %arg0 : tensor<2xf32>\n}\n'),
    ("aliasing_several",
     'func.func public @main(%arg0: tensor<2xf32> {tf.aliasing_output = 1 : i32}, %arg1: tensor<2xf32> {tf.aliasing_output = 0 : i32}, %arg2: tensor<2xf32> {jax.buffer_donor = true}, %arg3: tensor<2xf32> {jax.buffer_donor = true}) -> (tensor<2xf32>, tensor<2xf32>) {\n'
     '  return %arg0, %arg1 : tensor<2xf32>, tensor<2xf32>\n}\n'),
    ("tuple_result",
     'func.func public @main(%arg0: tensor<2xf32>, %arg1: !stablehlo.token) -> tuple<tensor<2xf32>, !stablehlo.token> {\n'
     '  %0 = stablehlo.tuple %arg0, %arg1 : tuple<tensor<2xf32>, !stablehlo.token>\n'
     '  return %0 : tuple<tensor<2xf32>, !stablehlo.token>\n}\n'),
    ("one_result_in_parentheses",
     'func.func public @main(%arg0: tensor<2xf32>) -> (tensor<2xf32> {jax.result_info = "r"}) {\n'
     '  return %arg0 : tensor<2xf32>\n}\n'),
    ("layout_mode_and_memory_kind",
     'func.func public @main(%arg0: tensor<2x3xf32> {mhlo.layout_mode = "{0,1}", mhlo.memory_kind = "pinned_host"}, %arg1: tensor<2xf32> {mhlo.layout_mode = "auto"}) -> (tensor<2x3xf32> {mhlo.layout_mode = "default", mhlo.memory_kind = "unpinned_host"}) {\n'
     '  return %arg0 : tensor<2x3xf32>\n}\n'),
    ("unknown_attributes",
     'module @m attributes {foo.bar = #foo.baz<[1, 2]>, my.flag, "quoted.name" = "x"} {\n'
     '  func.func public @main(%arg0: tensor<2xf32> {foo.arg = {a = [1, 2], b = "}"}}) -> (tensor<2xf32> {foo.res = array<i64: 1, 2>}) attributes {foo.fn = 3 : i64} {\n'
     '    %0 = stablehlo.add %arg0, %arg0 {foo.op = #foo.bar<x>} : tensor<2xf32>\n'
     '    return %0 : tensor<2xf32>\n  }\n}\n'),
    ("unknown_attributes_builtin",
     'module @m attributes {foo.bar = [1, 2], my.flag, "quoted.name" = "x", foo.dict = {a = {b = "}"}}} {\n'
     '  func.func public @main(%arg0: tensor<2xf32> {foo.arg = {a = [1, 2], b = "}"}}) -> (tensor<2xf32> {foo.res = array<i64: 1, 2>}) attributes {foo.fn = 3 : i64} {\n'
     '    %0 = stablehlo.add %arg0, %arg0 {foo.op = dense<1> : tensor<2xi32>} : tensor<2xf32>\n'
     '    return %0 : tensor<2xf32>\n  }\n}\n'),
    ("custom_call_result_layouts",
     'func.func public @main(%arg0: tensor<2x3xf32>) -> (tensor<3x2xf32>, tensor<2x3x4xf32>) {\n'
     '  %0:2 = stablehlo.custom_call @foo(%arg0) {operand_layouts = [dense<[1, 0]> : tensor<2xindex>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<[1, 2, 0]> : tensor<3xindex>]} : (tensor<2x3xf32>) -> (tensor<3x2xf32>, tensor<2x3x4xf32>)\n'
     '  return %0#0, %0#1 : tensor<3x2xf32>, tensor<2x3x4xf32>\n}\n'),
    ("custom_call_generic",
     'func.func public @main(%arg0: tensor<2x3xf32>) -> tensor<3x2xf32> {\n'
     '  %0 = "stablehlo.custom_call"(%arg0) <{call_target_name = "foo", operand_layouts = [dense<[0, 1]> : tensor<2xindex>], result_layouts = [dense<[0, 1]> : tensor<2xindex>]}> : (tensor<2x3xf32>) -> tensor<3x2xf32>\n'
     '  return %0 : tensor<3x2xf32>\n}\n'),
    ("transpose_generic",
     'func.func public @main(%arg0: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {\n'
     '  %0 = "stablehlo.transpose"(%arg0) <{permutation = array<i64: 2, 0, 1>}> : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>\n'
     '  return %0 : tensor<4x2x3xf32>\n}\n'),
    ("transpose_identity",
     'func.func public @main(%arg0: tensor<2x3xf32>) -> tensor<2x3xf32> {\n'
     '  %0 = stablehlo.transpose %arg0, dims = [0, 1] : (tensor<2x3xf32>) -> tensor<2x3xf32>\n'
     '  return %0 : tensor<2x3xf32>\n}\n'),
    ("broadcast_permuting",
     'func.func public @main(%arg0: tensor<2x3xf32>) -> tensor<3x2xf32> {\n'
     '  %0 = stablehlo.broadcast_in_dim %arg0, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>\n'
     '  return %0 : tensor<3x2xf32>\n}\n'),
    ("reshape_identity",
     'func.func public @main(%arg0: tensor<2x3xf32>) -> tensor<3x2xf32> {\n'
     '  %0 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>\n'
     '  %1 = stablehlo.reshape %0 : (tensor<3x2xf32>) -> tensor<3x2xf32>\n'
     '  return %1 : tensor<3x2xf32>\n}\n'),
    ("case_captured_transpose",
     'func.func public @main(%arg0: tensor<i32>, %arg1: tensor<2x3xf32>) -> tensor<3x2xf32> {\n'
     '  %0 = stablehlo.transpose %arg1, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>\n'
     '  %1 = "stablehlo.case"(%arg0) ({\n'
     '    stablehlo.return %0 : tensor<3x2xf32>\n'
     '  }, {\n'
     '    %2 = stablehlo.negate %0 : tensor<3x2xf32>\n'
     '    stablehlo.return %2 : tensor<3x2xf32>\n'
     '  }) : (tensor<i32>) -> tensor<3x2xf32>\n'
     '  return %1 : tensor<3x2xf32>\n}\n'),
    ("while_transposed_init",
     'func.func public @main(%arg0: tensor<2x3xf32>) -> tensor<3x2xf32> {\n'
     '  %c = stablehlo.constant dense<0> : tensor<i32>\n'
     '  %0 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>\n'
     '  %1:2 = stablehlo.while(%iterArg = %c, %iterArg_0 = %0) : tensor<i32>, tensor<3x2xf32>\n'
     '   cond {\n'
     '    %c_1 = stablehlo.constant dense<3> : tensor<i32>\n'
     '    %2 = stablehlo.compare  LT, %iterArg, %c_1,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>\n'
     '    stablehlo.return %2 : tensor<i1>\n'
     '  } do {\n'
     '    %c_1 = stablehlo.constant dense<1> : tensor<i32>\n'
     '    %2 = stablehlo.add %iterArg, %c_1 : tensor<i32>\n'
     '    %3 = stablehlo.negate %iterArg_0 : tensor<3x2xf32>\n'
     '    stablehlo.return %2, %3 : tensor<i32>, tensor<3x2xf32>\n'
     '  }\n'
     '  return %1#1 : tensor<3x2xf32>\n}\n'),
    ("select_pred_transposed",
     'func.func public @main(%arg0: tensor<2x3xi1>, %arg1: tensor<3x2xf32>) -> tensor<3x2xf32> {\n'
     '  %0 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<2x3xi1>) -> tensor<3x2xi1>\n'
     '  %1 = stablehlo.select %0, %arg1, %arg1 : tensor<3x2xi1>, tensor<3x2xf32>\n'
     '  return %1 : tensor<3x2xf32>\n}\n'),
    ("select_on_true_transposed",
     'func.func public @main(%arg0: tensor<3x2xi1>, %arg1: tensor<2x3xf32>) -> tensor<3x2xf32> {\n'
     '  %0 = stablehlo.transpose %arg1, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>\n'
     '  %1 = stablehlo.negate %0 : tensor<3x2xf32>\n'
     '  %2 = stablehlo.select %arg0, %0, %1 : tensor<3x2xi1>, tensor<3x2xf32>\n'
     '  return %2 : tensor<3x2xf32>\n}\n'),
    ("get_tuple_element",
     'func.func public @main(%arg0: tensor<2x3xf32>) -> tensor<3x2xf32> {\n'
     '  %0 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>\n'
     '  %1 = stablehlo.tuple %arg0, %0 : tuple<tensor<2x3xf32>, tensor<3x2xf32>>\n'
     '  %2 = stablehlo.get_tuple_element %1[1] : (tuple<tensor<2x3xf32>, tensor<3x2xf32>>) -> tensor<3x2xf32>\n'
     '  return %2 : tensor<3x2xf32>\n}\n'),
    ("call_chain",
     'func.func public @main(%arg0: tensor<2x3xf32>) -> tensor<3x2xf32> {\n'
     '  %0 = func.call @f(%arg0) : (tensor<2x3xf32>) -> tensor<3x2xf32>\n'
     '  return %0 : tensor<3x2xf32>\n}\n'
     'func.func private @f(%arg0: tensor<2x3xf32>) -> tensor<3x2xf32> {\n'
     '  %0 = call @g(%arg0) : (tensor<2x3xf32>) -> tensor<3x2xf32>\n'
     '  return %0 : tensor<3x2xf32>\n}\n'
     'func.func private @g(%arg0: tensor<2x3xf32>) -> tensor<3x2xf32> {\n'
     '  %0 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>\n'
     '  return %0 : tensor<3x2xf32>\n}\n'),
    ("no_main",
     'func.func public @f(%arg0: tensor<2xf32>) -> tensor<2xf32> {\n'
     '  return %arg0 : tensor<2xf32>\n}\n'),
    ("not_mlir", "HloModule m\n"),
    ("type_alias",
     '!t = tensor<2x3xf32>\n'
     'func.func public @main(%arg0: !t) -> !t {\n'
     '  return %arg0 : !t\n}\n'),
    ("bounded_dynamic",
     'func.func public @main(%arg0: tensor<?x3xf32, #stablehlo.bounds<4, ?>>) -> tensor<i32> {\n'
     '  %0 = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x3xf32, #stablehlo.bounds<4, ?>>) -> tensor<i32>\n'
     '  return %0 : tensor<i32>\n}\n'),
]

SHAPES = [
    "f32[2,3]", "pred[4]", "s8[2]", "u4[3]", "s2[2]", "u2[2]", "s1[2]", "u1[2]", "bf16[]", "f16[1]", "f64[0]",
    "c64[2]", "c128[2]", "f8e4m3fn[2]", "f8e5m2[2]", "f8e4m3b11fnuz[2]", "f8e4m3fnuz[2]", "f8e5m2fnuz[2]",
    "f8e3m4[2]", "f8e4m3[2]", "f8e8m0fnu[2]", "f4e2m1fn[2]", "f6e2m3fn[2]", "f6e3m2fn[2]",
    "s16[2]", "s32[2]", "s64[2]", "u8[2]", "u16[2]", "u32[2]", "u64[2]",
    "f32[<=4,3]", "f32[?,3]", "f32[<=4,?]", "f32[2,<=5]",
    "token[]",
]


def run_modules():
    with open(os.path.join(ROOT, "modules.jsonl"), "w") as out:
        for t in TYPES:
            record = {"name": "type " + t, "text": one_type_module(t)}
            record.update(convert(record["text"]))
            out.write(json.dumps(record) + "\n")
        for name, text in HAND_MODULES:
            record = {"name": name, "text": text}
            record.update(convert(text))
            out.write(json.dumps(record) + "\n")


def run_types():
    with open(os.path.join(ROOT, "types.jsonl"), "w") as out:
        for s in SHAPES:
            record = {"shape": s}
            hlo = f"HloModule m\n\nENTRY e {{\n  ROOT p = {s} parameter(0)\n}}\n"
            try:
                module = xc.hlo.hlo_module_from_text(hlo)
                bytecode = _jax.mlir.hlo_to_stablehlo(module.as_serialized_hlo_module_proto())
                with jax_mlir.make_ir_context():
                    text = str(ir.Module.parse(bytecode))
                m = re.search(r"@main\(%arg0: (.*?)\) ->", text)
                record["type"] = m.group(1) if m else text
            except Exception as e:  # noqa: BLE001
                record["error"] = str(e).splitlines()[0]
            out.write(json.dumps(record) + "\n")


EXPORTS = [
    ("transpose", lambda x: x.T, [arr((2, 3))], None),
    ("dtypes", lambda a, b, c, d: (a.T, b + 1, c * 2, ~d), [arr((2, 3), jnp.bfloat16), arr((4,), jnp.int8), arr((2,), jnp.complex64), arr((3,), jnp.bool_)], None),
    ("symbolic", lambda x: jnp.concatenate([x, x]).sum(0), None, "b, 3"),
    ("symbolic_two", lambda x, y: x @ y, None, ("b, k", "k, 5")),
    ("sharded", lambda x: x * 2, [arr((8, 4), sharding=named("x", "y"))], None),
    ("pytree", lambda d: {"a": d["x"] + 1, "b": (d["y"].T, d["x"])}, [{"x": arr((2,)), "y": arr((2, 3))}], None),
    ("loop", lambda x: lax.fori_loop(0, 3, lambda i, a: a * 2, x), [arr((2, 3))], None),
]


def run_exports():
    os.makedirs(EXPORT, exist_ok=True)
    with open(os.path.join(ROOT, "export.jsonl"), "w") as out:
        for name, f, args, poly in EXPORTS:
            if poly is not None:
                specs = poly if isinstance(poly, tuple) else (poly,)
                scope = jax.export.SymbolicScope()
                args = [jax.ShapeDtypeStruct(jax.export.symbolic_shape(s, scope=scope), jnp.float32)
                        for s in specs]
            exp = jax.export.export(jax.jit(f))(*args)
            write(os.path.join(EXPORT, name + ".bin"), exp.serialize())
            write(os.path.join(EXPORT, name + ".mlirbc"), exp.mlir_module_serialized)
            mlir_text = exp.mlir_module()
            record = {
                "name": name,
                "in_avals": [str(a) for a in exp.in_avals],
                "out_avals": [str(a) for a in exp.out_avals],
                "in_shardings_hlo": [None if s is None else str(s) for s in exp.in_shardings_hlo],
                "out_shardings_hlo": [None if s is None else str(s) for s in exp.out_shardings_hlo],
                "nr_devices": exp.nr_devices,
                "platforms": list(exp.platforms),
                "ordered_effects": [str(e) for e in exp.ordered_effects],
                "calling_convention_version": exp.calling_convention_version,
                "mlir": mlir_text,
            }
            record.update(convert(mlir_text))
            record.pop("header", None)
            out.write(json.dumps(record) + "\n")


if __name__ == "__main__":
    os.makedirs(ROOT, exist_ok=True)
    run_types()
    run_modules()
    run_programs()
    run_exports()


HLO_TEXTS = [
    "HloModule m\n\nENTRY main (p: f32[2,3]) -> f32[3,2] {\n  p = f32[2,3]{0,1} parameter(0)\n"
    "  ROOT t = f32[3,2]{0,1} transpose(p), dimensions={1,0}\n}\n",
    "HloModule m\n\nENTRY main {\n  p = f32[2,3] parameter(0)\n"
    "  ROOT t = f32[3,2]{0,1} transpose(p), dimensions={1,0}\n}\n",
    "HloModule m\n\nENTRY main {\n  b = s32[] parameter(1)\n  a = (f32[2], pred[]) parameter(0)\n"
    "  ROOT t = (s32[], (f32[2], pred[])) tuple(b, a)\n}\n",
]


def run_hlo_texts():
    """Writes `hlo_texts.jsonl`: HLO module text without
    `entry_computation_layout` through XLA's HLO parser
    (`hlo_module_from_text`): {"text", "entry_computation_layout"} as the
    printed header holds it. (Defined after the first `__main__` block, so
    that the source locations of the programs and exports stay where they
    were.)"""
    with open(os.path.join(ROOT, "hlo_texts.jsonl"), "w") as out:
        for text in HLO_TEXTS:
            header = xc.hlo.hlo_module_from_text(text).to_string().splitlines()[0]
            out.write(json.dumps({
                "text": text,
                "entry_computation_layout": header_field(header, "entry_computation_layout"),
            }) + "\n")


if __name__ == "__main__":
    run_hlo_texts()
