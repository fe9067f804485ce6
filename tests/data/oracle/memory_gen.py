"""A corpus of compiled JAX programs with XLA's own memory figures.

For every program below this script lowers and compiles it with jax on the
CPU (jaxlib 0.10.2) and records what XLA says about its memory:

  NAME/hlo.pb                  `*.cpu_after_optimizations.hlo.pb`: an
                               `xla.HloProto` (the optimized module and its
                               buffer assignment), as `--xla_dump_hlo_as_proto`
                               writes it
  NAME/snapshot_ba.pb          an `xla.HloSnapshot` holding that HloProto
                               (field `hlo`), built here: the HloSnapshots
                               jaxlib writes carry no buffer assignment
  NAME/snapshot.pb             for programs whose arguments take at most
                               1 MiB: the `xla.HloSnapshot` that
                               `--xla_dump_hlo_snapshots` writes when the
                               compiled program runs (on zeros); its
                               `HloProto` holds the optimized module and no
                               buffer assignment
  NAME/opt.txt                 `*.cpu_after_optimizations.txt` (scheduled)
  NAME/compiled.txt            `compiled.as_text()`
  NAME/lowered.txt             `lowered.as_text(dialect="hlo")`: the module
                               before optimization, with short computation
                               headers (`region_0.1 {`)
  NAME/before.txt, before.pb   `*.before_optimizations.{txt,hlo.pb}`
                               (`before.pb` is an `xla.HloModuleProto`)
  NAME/buffer-assignment.txt   `*-buffer-assignment.txt`
  NAME/memory-usage-report.txt `*-memory-usage-report.txt`
  NAME/memory-usage-report.pb  `*-memory-usage-report.pb` (an
                               `xla.MemoryUsageReportProto`, not a module)
  NAME/live-range.txt          `*-live-range.txt`

and one JSON line per program on stdout: the program's name, what it is,
`compiled.memory_analysis()` (every field but the serialized buffer
assignment), and "Total bytes" of each memory space of the memory-usage
report.

Run with a Python that has jax and jaxlib 0.10.2 (CPU) and protobuf, from
the repository root:

    python3 tests/data/oracle/memory_gen.py OUT_DIR [NAME ...] > OUT_DIR/memory.jsonl

OUT_DIR receives the whole corpus. A few small programs of it are kept in
tests/data/memory/ (copied by hand, listed in tests/data/README.md) with
their lines of memory.jsonl in tests/data/memory/memory.jsonl.
"""

import glob
import json
import os
import re
import shutil
import sys
import tempfile

DUMP = tempfile.mkdtemp(prefix="xla-memory-dump-")
os.environ["XLA_FLAGS"] = (
    f"--xla_dump_to={DUMP} --xla_dump_hlo_as_proto --xla_dump_hlo_as_text"
    " --xla_dump_hlo_snapshots"
)
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402

jax.config.update("jax_enable_x64", True)
# Source files are named without their directory in the modules' metadata
# and stack frames: the dumps do not depend on where the script runs.
jax.config.update("jax_hlo_source_file_canonicalization_regex", r".*/")

S = jax.ShapeDtypeStruct
f32, bf16, f16, f64 = jnp.float32, jnp.bfloat16, jnp.float16, jnp.float64
i32, i8, u8, c64, pred = jnp.int32, jnp.int8, jnp.uint8, jnp.complex64, jnp.bool_

PROGRAMS = []


def program(name, what, args, **jit):
    """Registers `f` as program `name` with abstract arguments `args`."""

    def register(f):
        PROGRAMS.append((name, what, f, args, jit))
        return f

    return register


# --- elementwise, small and big -------------------------------------------


@program("add_small", "one add of two small vectors", [S((8,), f32), S((8,), f32)])
def _(x, y):
    return x + y


@program("add_big", "one add of two 16 MiB matrices", [S((2048, 2048), f32)] * 2)
def _(x, y):
    return x + y


@program("chain_elementwise", "a chain of elementwise ops (fused)", [S((512, 512), f32)])
def _(x):
    return jnp.exp(jnp.sin(x) * 2.0 + jnp.cos(x)) - x


@program("scalar", "a scalar function", [S((), f32)])
def _(x):
    return x * x + 1.0


@program("zero_size", "arrays with no elements", [S((0, 16), f32), S((16,), f32)])
def _(x, y):
    return x + y, y * 2


@program("broadcast_outer", "outer product by broadcast", [S((1024,), f32), S((512,), f32)])
def _(x, y):
    return x[:, None] * y[None, :]


# --- dtypes ------------------------------------------------------------------


@program("dtype_bf16", "bf16 matmul", [S((256, 512), bf16), S((512, 128), bf16)])
def _(x, w):
    return x @ w


@program("dtype_f16", "f16 elementwise and reduce", [S((300, 200), f16)])
def _(x):
    return jnp.sum(x * x, axis=1)


@program("dtype_f64", "f64 matmul", [S((128, 128), f64)] * 2)
def _(x, y):
    return x @ y + 1.0


@program("dtype_int8", "int8 to int32 matmul", [S((128, 256), i8), S((256, 64), i8)])
def _(x, w):
    return lax.dot(x, w, preferred_element_type=i32)


@program("dtype_uint8_image", "uint8 image normalised", [S((4, 224, 224, 3), u8)])
def _(x):
    return (x.astype(f32) / 255.0 - 0.5).transpose(0, 3, 1, 2)


@program("dtype_complex", "complex64 arithmetic", [S((256, 256), c64)])
def _(x):
    return x * jnp.conj(x) + x @ x


@program("dtype_pred", "boolean masks", [S((1000,), f32)])
def _(x):
    m = x > 0
    return jnp.where(m, x, 0.0), jnp.sum(m)


@program("dtype_int4", "int4 weights dequantised", [S((256, 128), jnp.int4), S((64, 256), f32)])
def _(w, x):
    return x @ w.astype(f32)


# --- matmuls, MLPs -------------------------------------------------------


@program("matmul", "one matmul", [S((512, 1024), f32), S((1024, 256), f32)])
def _(x, w):
    return x @ w


@program("matmul_tanh_sum", "matmul, tanh, column sums", [S((64, 128), f32), S((128, 256), f32)])
def _(x, w):
    return jnp.tanh(x @ w).sum(axis=0)


def mlp_params(sizes, dtype=f32):
    return [(S((a, b), dtype), S((b,), dtype)) for a, b in zip(sizes[:-1], sizes[1:])]


def mlp(params, x):
    for i, (w, b) in enumerate(params):
        x = x @ w + b
        if i < len(params) - 1:
            x = jax.nn.relu(x)
    return x


@program("mlp3", "a 3-layer MLP forward", [mlp_params([784, 512, 256, 10]), S((128, 784), f32)])
def _(params, x):
    return mlp(params, x)


@program("mlp_deep", "a 12-layer MLP forward", [mlp_params([256] * 13), S((64, 256), f32)])
def _(params, x):
    return mlp(params, x)


def mse(params, x, y):
    return jnp.mean((mlp(params, x) - y) ** 2)


@program(
    "mlp_grad",
    "gradient of an MLP loss",
    [mlp_params([512, 1024, 1024, 10]), S((64, 512), f32), S((64, 10), f32)],
)
def _(params, x, y):
    return jax.grad(mse)(params, x, y)


@program(
    "mlp_train_step",
    "an SGD step, parameters donated",
    [mlp_params([256, 512, 512, 10]), S((32, 256), f32), S((32, 10), f32)],
    donate_argnums=0,
)
def _(params, x, y):
    loss, g = jax.value_and_grad(mse)(params, x, y)
    return jax.tree.map(lambda p, d: p - 0.01 * d, params, g), loss


@program(
    "mlp_train_step_nodonate",
    "the same SGD step without donation",
    [mlp_params([256, 512, 512, 10]), S((32, 256), f32), S((32, 10), f32)],
)
def _(params, x, y):
    loss, g = jax.value_and_grad(mse)(params, x, y)
    return jax.tree.map(lambda p, d: p - 0.01 * d, params, g), loss


@program(
    "mlp_remat",
    "gradient through jax.checkpoint",
    [mlp_params([256, 512, 512, 256]), S((64, 256), f32)],
)
def _(params, x):
    f = jax.checkpoint(lambda p, x: jnp.sum(mlp(p, x) ** 2))
    return jax.grad(f)(params, x)


@program("mlp_bf16", "a bf16 MLP forward", [mlp_params([512, 2048, 512], bf16), S((256, 512), bf16)])
def _(params, x):
    return mlp(params, x)


@program("einsum_batched", "batched einsum", [S((8, 64, 32), f32), S((8, 32, 48), f32)])
def _(a, b):
    return jnp.einsum("bij,bjk->bik", a, b)


@program("vmap_matvec", "vmap of a matrix-vector product", [S((256, 256), f32), S((32, 256), f32)])
def _(m, vs):
    return jax.vmap(lambda v: m @ v)(vs)


# --- convolutions -------------------------------------------------------


def conv(x, w, stride=1, layout=("NHWC", "HWIO", "NHWC")):
    return lax.conv_general_dilated(
        x, w, (stride, stride), "SAME", dimension_numbers=layout
    )


@program("conv_nhwc", "a 3x3 convolution, NHWC", [S((8, 32, 32, 16), f32), S((3, 3, 16, 32), f32)])
def _(x, w):
    return conv(x, w)


@program("conv_nchw", "a 3x3 convolution, NCHW", [S((8, 16, 32, 32), f32), S((32, 16, 3, 3), f32)])
def _(x, w):
    return conv(x, w, layout=("NCHW", "OIHW", "NCHW"))


@program(
    "cnn_small",
    "two conv layers, pooling and a dense head",
    [S((3, 3, 3, 16), f32), S((3, 3, 16, 32), f32), S((32 * 8 * 8, 10), f32), S((16, 32, 32, 3), f32)],
)
def _(w1, w2, wd, x):
    x = jax.nn.relu(conv(x, w1))
    x = lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    x = jax.nn.relu(conv(x, w2))
    x = lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    return x.reshape(x.shape[0], -1) @ wd


@program(
    "cnn_grad",
    "gradient of a small CNN",
    [S((3, 3, 3, 8), f32), S((3, 3, 8, 8), f32), S((4, 16, 16, 3), f32)],
)
def _(w1, w2, x):
    def loss(w1, w2):
        return jnp.sum(jax.nn.relu(conv(jax.nn.relu(conv(x, w1)), w2)) ** 2)

    return jax.grad(loss, argnums=(0, 1))(w1, w2)


@program("conv_transpose", "a transposed convolution", [S((2, 16, 16, 8), f32), S((4, 4, 4, 8), f32)])
def _(x, w):
    return lax.conv_transpose(x, w, (2, 2), "SAME", dimension_numbers=("NHWC", "HWOI", "NHWC"))


@program("depthwise_conv", "a depthwise convolution", [S((4, 64, 64, 32), f32), S((3, 3, 1, 32), f32)])
def _(x, w):
    return lax.conv_general_dilated(
        x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"), feature_group_count=32
    )


# --- attention, normalisation ---------------------------------------------


def attention(q, k, v):
    s = jnp.einsum("bhqd,bhkd->bhqk", q, k) / jnp.sqrt(q.shape[-1])
    return jnp.einsum("bhqk,bhkd->bhqd", jax.nn.softmax(s, axis=-1), v)


@program("attention", "multi-head attention", [S((2, 4, 128, 32), f32)] * 3)
def _(q, k, v):
    return attention(q, k, v)


@program("attention_long", "attention over 1024 positions", [S((1, 8, 1024, 64), f32)] * 3)
def _(q, k, v):
    return attention(q, k, v)


@program("attention_grad", "gradient of attention", [S((2, 4, 64, 32), f32)] * 3)
def _(q, k, v):
    return jax.grad(lambda q, k, v: jnp.sum(attention(q, k, v)), argnums=(0, 1, 2))(q, k, v)


def layer_norm(x, g, b):
    m = x.mean(-1, keepdims=True)
    v = ((x - m) ** 2).mean(-1, keepdims=True)
    return (x - m) / jnp.sqrt(v + 1e-5) * g + b


@program("layernorm", "layer normalisation", [S((64, 512), f32), S((512,), f32), S((512,), f32)])
def _(x, g, b):
    return layer_norm(x, g, b)


@program("softmax", "softmax over rows", [S((1000, 1000), f32)])
def _(x):
    return jax.nn.softmax(x, axis=-1)


@program(
    "transformer_block",
    "a transformer block (attention and MLP)",
    [S((2, 128, 256), f32), S((256, 768), f32), S((256, 256), f32), S((256, 1024), f32), S((1024, 256), f32)],
)
def _(x, wqkv, wo, w1, w2):
    b, t, d = x.shape
    h = layer_norm(x, 1.0, 0.0)
    q, k, v = jnp.split(h @ wqkv, 3, axis=-1)
    split = lambda a: a.reshape(b, t, 4, d // 4).transpose(0, 2, 1, 3)  # noqa: E731
    a = attention(split(q), split(k), split(v)).transpose(0, 2, 1, 3).reshape(b, t, d)
    x = x + a @ wo
    return x + jax.nn.gelu(layer_norm(x, 1.0, 0.0) @ w1) @ w2


# --- reductions ---------------------------------------------------------


@program("reduce_sum", "a full reduction", [S((4096, 1024), f32)])
def _(x):
    return jnp.sum(x)


@program("reduce_multi", "several reductions of one input", [S((512, 256), f32)])
def _(x):
    return jnp.max(x, axis=0), jnp.min(x, axis=1), jnp.mean(x)


@program("argmax_topk", "argmax and top-k", [S((64, 1000), f32)])
def _(x):
    return jnp.argmax(x, axis=-1), lax.top_k(x, 5)


@program("cumsum", "a cumulative sum", [S((256, 512), f32)])
def _(x):
    return jnp.cumsum(x, axis=1)


@program("sort", "a sort with indices", [S((4096,), f32)])
def _(x):
    return jnp.sort(x), jnp.argsort(x)


# --- control flow -------------------------------------------------------


@program("scan_rnn", "an RNN as lax.scan", [S((64, 64), f32), S((50, 8, 64), f32), S((8, 64), f32)])
def _(w, xs, h):
    def step(h, x):
        h = jnp.tanh(h @ w + x)
        return h, h

    return lax.scan(step, h, xs)


@program("scan_cumulative", "a scan that keeps every carry", [S((100, 256), f32)])
def _(xs):
    return lax.scan(lambda c, x: (c + x, c * x), jnp.zeros(256), xs)


@program("while_loop", "a while loop with a dynamic trip count", [S((128, 128), f32), S((), i32)])
def _(x, n):
    return lax.while_loop(lambda s: s[1] < n, lambda s: (jnp.tanh(s[0] @ s[0]), s[1] + 1), (x, 0))[0]


@program("fori_loop", "a fori_loop with a static trip count", [S((256,), f32)])
def _(x):
    return lax.fori_loop(0, 10, lambda i, x: jnp.sin(x) + i, x)


@program("nested_loops", "a scan inside a while loop", [S((16, 32), f32), S((), i32)])
def _(xs, n):
    def body(s):
        c, i = s
        c = lax.scan(lambda c, x: (c * 0.9 + x, None), c, xs)[0]
        return c, i + 1

    return lax.while_loop(lambda s: s[1] < n, body, (jnp.zeros(32), 0))[0]


@program("cond", "a two-branch conditional", [S((), pred), S((512, 512), f32)])
def _(p, x):
    return lax.cond(p, lambda x: x @ x, lambda x: x + 1.0, x)


@program("switch", "a three-branch switch", [S((), i32), S((256,), f32)])
def _(i, x):
    return lax.switch(i, [jnp.sin, jnp.cos, lambda x: x * 2], x)


@program("cond_tuple", "a conditional returning a tuple", [S((), pred), S((64, 64), f32), S((64,), f32)])
def _(p, x, y):
    return lax.cond(p, lambda a, b: (a @ a, b), lambda a, b: (a, b * 2), x, y)


# --- tuples, outputs, aliasing -----------------------------------------------


@program("tuple_out", "several outputs", [S((128, 128), f32), S((64,), f32)])
def _(x, y):
    return x, x.T, y * 2, (y.sum(), x.sum())


@program("passthrough", "an output that is an argument", [S((1024,), f32), S((1024,), f32)])
def _(x, y):
    return x, x + y


@program("same_output_twice", "one value returned twice", [S((1024,), f32)])
def _(x):
    y = x * 2
    return y, y


@program("donate_inplace", "an in-place update of a donated array", [S((4096, 256), f32), S((), i32)], donate_argnums=0)
def _(x, i):
    return x.at[i].set(1.0)


@program("inplace_nodonate", "the same update without donation", [S((4096, 256), f32), S((), i32)])
def _(x, i):
    return x.at[i].set(1.0)


@program("donate_partial", "two arguments, one donated", [S((1024, 1024), f32), S((1024, 1024), f32)], donate_argnums=1)
def _(x, y):
    return x + y, x * y


@program("donate_unused", "a donated argument of another shape", [S((1000,), f32), S((500,), f32)], donate_argnums=(0, 1))
def _(x, y):
    return x[:500] + y


@program(
    "dynamic_update_slice",
    "dynamic_update_slice into a donated buffer",
    [S((64, 1024), f32), S((8, 1024), f32), S((), i32)],
    donate_argnums=0,
)
def _(buf, upd, i):
    return lax.dynamic_update_slice(buf, upd, (i, jnp.int32(0)))


@program("kv_cache", "a decoding step that updates a KV cache", [S((4, 256, 64), f32), S((4, 1, 64), f32), S((), i32)], donate_argnums=0)
def _(cache, new, pos):
    cache = lax.dynamic_update_slice(cache, new, (jnp.int32(0), pos, jnp.int32(0)))
    return cache, jnp.einsum("hkd,hqd->hqk", cache, new)


# --- gather, scatter, slicing ---------------------------------------------


@program("gather", "take rows by index", [S((10000, 128), f32), S((512,), i32)])
def _(table, idx):
    return table[idx]


@program("scatter_add", "segment sum by scatter", [S((4096, 64), f32), S((4096,), i32)])
def _(x, seg):
    return jnp.zeros((100, 64)).at[seg].add(x)


@program("embedding_grad", "gradient of an embedding lookup", [S((5000, 64), f32), S((256,), i32)])
def _(table, idx):
    return jax.grad(lambda t: jnp.sum(t[idx] ** 2))(table)


@program("slices_concat", "slices and a concatenate", [S((1024, 512), f32)])
def _(x):
    return jnp.concatenate([x[:100], x[200:400], x[::4]], axis=0)


@program("pad_reverse", "pad and reverse", [S((300, 300), f32)])
def _(x):
    return jnp.pad(x, ((5, 7), (0, 20)))[::-1]


@program("transpose_copy", "a transpose that needs a copy", [S((1024, 2048), f32)])
def _(x):
    return x.T + 1.0


@program("reshape_bitcast", "reshapes that are bitcasts", [S((64, 64, 64), f32)])
def _(x):
    return x.reshape(4096, 64).sum(axis=1).reshape(64, 64)


@program("one_hot", "one-hot encoding", [S((512,), i32)])
def _(labels):
    return jax.nn.one_hot(labels, 1000)


# --- library calls --------------------------------------------------------


@program("fft", "an FFT", [S((64, 256), c64)])
def _(x):
    return jnp.fft.fft(x)


@program("cholesky_solve", "a Cholesky factorisation and solve", [S((128, 128), f32), S((128, 4), f32)])
def _(a, b):
    a = a @ a.T + 128 * jnp.eye(128)
    c = jax.scipy.linalg.cho_factor(a)
    return jax.scipy.linalg.cho_solve(c, b)


@program("rng", "random numbers from a key", [S((2,), jnp.uint32)])
def _(key):
    k = jax.random.wrap_key_data(key)
    return jax.random.normal(k, (512, 512))


@program("iota_constants", "large constants and iota", [S((1000,), f32)])
def _(x):
    return x + jnp.arange(1000.0) * jnp.linspace(0.0, 1.0, 1000)


@program("big_constant", "a literal constant folded into the module", [S((64, 64), f32)])
def _(x):
    import numpy as np

    return x @ jnp.asarray(np.arange(64 * 64, dtype=np.float32).reshape(64, 64))


# --- bigger models ----------------------------------------------------------


@program(
    "resnet_block_grad",
    "gradient of a residual block with batch statistics",
    [S((3, 3, 32, 32), f32), S((3, 3, 32, 32), f32), S((8, 32, 32, 32), f32)],
)
def _(w1, w2, x):
    def bn(x):
        m = x.mean((0, 1, 2))
        v = x.var((0, 1, 2))
        return (x - m) / jnp.sqrt(v + 1e-5)

    def loss(w1, w2):
        h = jax.nn.relu(bn(conv(x, w1)))
        return jnp.sum(jax.nn.relu(x + bn(conv(h, w2))))

    return jax.grad(loss, argnums=(0, 1))(w1, w2)


@program(
    "lstm_scan_grad",
    "gradient of an LSTM over a sequence",
    [S((192, 512), f32), S((20, 16, 64), f32)],
)
def _(w, xs):
    def loss(w):
        def step(c, x):
            h, s = c
            z = jnp.concatenate([h, x], -1) @ w
            i, f, o, g = jnp.split(z, 4, -1)
            s = jax.nn.sigmoid(f) * s + jax.nn.sigmoid(i) * jnp.tanh(g)
            h = jax.nn.sigmoid(o) * jnp.tanh(s)
            return (h, s), h

        z = jnp.zeros((16, 128))
        return jnp.sum(lax.scan(step, (z, z), xs)[1])

    return jax.grad(loss)(w)


@program(
    "adam_step",
    "an Adam update of donated parameters and state",
    [[S((512, 512), f32)] * 3, [S((512, 512), f32)] * 3, [S((512, 512), f32)] * 3, [S((512, 512), f32)] * 3],
    donate_argnums=(0, 1, 2),
)
def _(p, m, v, g):
    m = jax.tree.map(lambda m, g: 0.9 * m + 0.1 * g, m, g)
    v = jax.tree.map(lambda v, g: 0.999 * v + 0.001 * g * g, v, g)
    p = jax.tree.map(lambda p, m, v: p - 1e-3 * m / (jnp.sqrt(v) + 1e-8), p, m, v)
    return p, m, v


@program(
    "big_matmul_chain",
    "a chain of large matmuls",
    [S((2048, 2048), f32), S((2048, 2048), f32), S((2048, 2048), f32)],
)
def _(a, b, c):
    return jnp.tanh(a @ b) @ c + a


@program("many_small_ops", "a long chain of small unfused steps", [S((64, 64), f32)])
def _(x):
    for i in range(40):
        x = jnp.tanh(x @ x.T + i) if i % 4 == 0 else x * 1.01 + jnp.sum(x, axis=0)
    return x


# --- custom layouts --------------------------------------------------------


def _layouts():
    try:
        from jax.experimental.layout import Format, Layout
    except ImportError:
        return None
    return Format, Layout


@program("layout_col_major", "an argument in column-major layout (jax Format)", [S((512, 256), f32)])
def _(x):
    return x * 2.0


def jit_kwargs(name, jit):
    if name == "layout_col_major":
        layouts = _layouts()
        if layouts is not None:
            Format, Layout = layouts
            sharding = jax.sharding.SingleDeviceSharding(jax.devices()[0])
            return dict(jit, in_shardings=Format(Layout(major_to_minor=(1, 0)), sharding))
    return jit


def dump_files(name):
    """The dump files of the module `jit_NAME`, by suffix."""
    found = {}
    for path in glob.glob(os.path.join(DUMP, f"module_*.jit_{name}.*")):
        base = os.path.basename(path)
        suffix = base.split(f".jit_{name}.", 1)[1]
        found[suffix] = path
    return found


def snapshot(hlo_proto_bytes):
    """An HloSnapshot whose `hlo` is the given HloProto: field 1, length-delimited."""
    n = len(hlo_proto_bytes)
    length = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        length.append(b | (0x80 if n else 0))
        if not n:
            break
    return b"\x0a" + bytes(length) + hlo_proto_bytes


TOTAL = re.compile(r"^Memory Space: (\S+) \(color=(\d+)\)\nTotal bytes: (\d+)", re.M)


def main():
    out = sys.argv[1]
    wanted = set(sys.argv[2:])
    os.makedirs(out, exist_ok=True)
    for name, what, f, args, jit in PROGRAMS:
        if wanted and name not in wanted:
            continue
        f.__name__ = name
        f.__qualname__ = name
        lowered = jax.jit(f, **jit_kwargs(name, jit)).lower(*args)
        compiled = lowered.compile()
        stats = compiled.memory_analysis()
        files = dump_files(name)
        d = os.path.join(out, name)
        os.makedirs(d, exist_ok=True)
        copies = {
            "cpu_after_optimizations.hlo.pb": "hlo.pb",
            "cpu_after_optimizations.txt": "opt.txt",
            "before_optimizations.txt": "before.txt",
            "before_optimizations.hlo.pb": "before.pb",
            "cpu_after_optimizations-buffer-assignment.txt": "buffer-assignment.txt",
            "cpu_after_optimizations-memory-usage-report.txt": "memory-usage-report.txt",
            "cpu_after_optimizations-memory-usage-report.pb": "memory-usage-report.pb",
            "cpu_after_optimizations-live-range.txt": "live-range.txt",
        }
        for suffix, target in copies.items():
            if suffix not in files:
                raise SystemExit(f"{name}: no {suffix} in the dump")
            shutil.copyfile(files[suffix], os.path.join(d, target))
        with open(os.path.join(d, "hlo.pb"), "rb") as fh:
            hlo_proto = fh.read()
        with open(os.path.join(d, "snapshot_ba.pb"), "wb") as fh:
            fh.write(snapshot(hlo_proto))
        leaves = jax.tree.leaves(args)
        if sum(a.size * a.dtype.itemsize for a in leaves) <= 1 << 20:
            zeros = jax.tree.map(lambda a: jnp.zeros(a.shape, a.dtype), args)
            jax.block_until_ready(compiled(*zeros))
            taken = [p for s, p in dump_files(name).items() if s.startswith("snapshot.")]
            if len(taken) != 1:
                raise SystemExit(f"{name}: {len(taken)} snapshots in the dump")
            shutil.copyfile(taken[0], os.path.join(d, "snapshot.pb"))
        with open(os.path.join(d, "compiled.txt"), "w") as fh:
            fh.write(compiled.as_text())
        with open(os.path.join(d, "lowered.txt"), "w") as fh:
            fh.write(lowered.as_text(dialect="hlo"))
        with open(os.path.join(d, "memory-usage-report.txt")) as fh:
            totals = [
                {"memory_space": m, "color": int(c), "total_bytes": int(t)}
                for m, c, t in TOTAL.findall(fh.read())
            ]
        fields = [
            "argument_size_in_bytes",
            "output_size_in_bytes",
            "alias_size_in_bytes",
            "temp_size_in_bytes",
            "generated_code_size_in_bytes",
            "host_argument_size_in_bytes",
            "host_output_size_in_bytes",
            "host_alias_size_in_bytes",
            "host_temp_size_in_bytes",
            "host_generated_code_size_in_bytes",
            "peak_memory_in_bytes",
        ]
        record = {
            "name": name,
            "what": what,
            "jaxlib": jax.lib.__version__ if hasattr(jax.lib, "__version__") else jax.__version__,
            "memory_analysis": {k: int(getattr(stats, k)) for k in fields if hasattr(stats, k)},
            "memory_usage_report": totals,
        }
        print(json.dumps(record), flush=True)
    shutil.rmtree(DUMP, ignore_errors=True)


if __name__ == "__main__":
    main()
