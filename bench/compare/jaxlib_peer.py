"""jaxlib's and NumPy's side of the comparison suite (bench/compare/run.sh).

`python jaxlib_peer.py bench DIR`: one round. XLA's HLO shape parser and
printer through jaxlib (`xla_client.Shape(text)`, `str(shape)`) over the
shape strings prep.py wrote, and NumPy's `unravel_index` and
`ravel_multi_index` on the index-math inputs of the C and Rust sides. Each
figure is a monotonic clock (`time.perf_counter_ns`) around N passes after
one warm-up pass, printed as `RESULT <work> <case> <ns per item>`; and
NumPy's nearest operation to each relayout row of the crate's side
(`relayout_numpy`): a reshape, transpose and copy into a preallocated
array that writes the same tiled bytes (`np.copyto`). jaxlib's
times include Python's call overhead: `call noop` is a loop of calls of an
empty Python function and `call binding` one of a jaxlib method without
arguments (`Shape.is_tuple()`), on the same strings.
`parse all` is the same parse over the whole corpus (`shapes_all.txt`),
XLA's errors included and caught.
`python jaxlib_peer.py once OP N DIR`: OP done N times (for callgrind);
OP `noop` is the empty function's loop, Python's share of the others.

XLA's classes are imported from `jaxlib.xla_client`, the module that
`jax._src.lib.xla_client` is (the same object), without importing jax:
under valgrind that takes 20 seconds instead of ten minutes. NumPy is
imported only for `bench`.
"""

import os
import pathlib
import sys
import time

# XLA logs a stack trace for one of the corpus's errors (`b((f32[2]))`,
# a RET_CHECK in `ShapeUtil::MakeBufferShape`): kept out of the output,
# which also spares jaxlib the cost of writing it.
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

from jaxlib import xla_client  # noqa: E402 (after the logging setting)

Shape = xla_client.Shape


def timed(passes, items, f):
    f()
    start = time.perf_counter_ns()
    for _ in range(passes):
        f()
    return (time.perf_counter_ns() - start) / (passes * items)


def report(work, case, ns):
    print(f"RESULT {work} {case} {ns:.3f}", flush=True)


def parse_all(texts):
    for t in texts:
        Shape(t)


def parse_every(texts):
    # The whole corpus, errors included: XLA's refusals caught.
    for t in texts:
        try:
            Shape(t)
        except Exception:
            pass


def print_all(shapes):
    for s in shapes:
        str(s)


def noop(t):
    return None


def wanted(work):
    """Whether the rows of `work` run (`COMPARE_ONLY`, as the crate's side)."""
    only = os.environ.get("COMPARE_ONLY")
    return only is None or work in [w.strip() for w in only.split(",")]


# The relayout rows' tilings and widths (the crate's side has the same).
TILINGS = [((8, 128),), ((8, 128), (2, 1)), ((16, 128), (2, 1)), ((32, 128), (4, 1)),
           ((4, 128),), ((2, 128), (2, 1))]


def relayout_numpy(np):
    """Tiling, untiling and transposing [R, 2048] arrays as the crate's
    relayout rows, with NumPy: an element of a tile (t0, t1) with (s0, 1)
    sub-tiles goes to tile (r // t0, c // t1), then sub-tile row
    (r % t0) // s0, column c % t1, then r % s0."""
    cases = os.environ.get("COMPARE_CASES")
    parts = [p.strip() for p in cases.split(",")] if cases else None
    most = 256 << 20
    src = (np.arange(most, dtype=np.int64) * 131 % 251).astype(np.uint8)
    dst = np.ones(most, dtype=np.uint8)
    for mib in (16, 256):
        size = mib << 20
        passes = max(1, 64 // mib)
        for name, dtype in (("u8", np.uint8), ("bf16", np.uint16), ("f32", np.uint32), ("f64", np.uint64)):
            e = np.dtype(dtype).itemsize
            rows, cols = size // (2048 * e), 2048
            a = src[:size].view(dtype)
            out = dst[:size].view(dtype)

            def row(case, f):
                if parts is None or any(p in case for p in parts):
                    report("relayout_numpy", case, timed(passes, 1, f))

            for tiling in TILINGS:
                (t0, t1), s0 = tiling[0], (tiling[1][0] if len(tiling) > 1 else 1)
                tn = "_".join(f"{x}x{y}" for x, y in tiling)
                plain5 = (rows // t0, t0 // s0, s0, cols // t1, t1)
                tiled5 = (rows // t0, cols // t1, t0 // s0, t1, s0)
                row(f"tile_{name}_{tn}_{mib}MiB",
                    lambda: np.copyto(out.reshape(tiled5), a.reshape(plain5).transpose(0, 3, 1, 4, 2)))
                row(f"untile_{name}_{tn}_{mib}MiB",
                    lambda: np.copyto(out.reshape(plain5), a.reshape(tiled5).transpose(0, 2, 4, 1, 3)))
            count = size // e
            side = int(count ** 0.5)
            r, c = (side, side) if side * side == count else (int((count // 2) ** 0.5), 2 * int((count // 2) ** 0.5))
            row(f"transpose_{name}_{mib}MiB", lambda: np.copyto(out.reshape(c, r), a.reshape(r, c).T))


def bench(dir):
    import numpy as np

    if wanted("relayout"):
        relayout_numpy(np)
    if not wanted("text"):
        if wanted("index"):
            index_rows(np)
        return
    texts = (dir / "shapes.txt").read_text().splitlines()
    n = len(texts)
    report("parse", "golden", timed(20, n, lambda: parse_all(texts)))
    every = (dir / "shapes_all.txt").read_text().splitlines()
    report("parse", "all", timed(20, len(every), lambda: parse_every(every)))
    shapes = [Shape(t) for t in texts]
    report("print", "golden", timed(50, n, lambda: print_all(shapes)))

    def noop_all():
        for t in texts:
            noop(t)

    def binding_all():
        for s in shapes:
            s.is_tuple()

    report("call", "noop", timed(200, n, noop_all))
    report("call", "binding", timed(200, n, binding_all))
    if wanted("index"):
        index_rows(np)


def index_rows(np):
    dims = (50, 40, 100, 50)
    count = 10_000_000
    linear = np.arange(count, dtype=np.int64)
    report("unravel", "rank4", timed(3, count, lambda: np.unravel_index(linear, dims)))
    picks = (np.arange(1_000_000, dtype=np.int64) * 7919) % count
    index = np.unravel_index(picks, dims)
    report("ravel", "rank4", timed(10, len(picks), lambda: np.ravel_multi_index(index, dims)))


def once(op, n, dir):
    texts = (dir / "shapes.txt").read_text().splitlines()
    if op == "parse":
        for _ in range(n):
            parse_all(texts)
    elif op == "parse_all":
        every = (dir / "shapes_all.txt").read_text().splitlines()
        for _ in range(n):
            parse_every(every)
    elif op == "print":
        shapes = [Shape(t) for t in texts]
        for _ in range(n):
            print_all(shapes)
    elif op == "noop":
        for _ in range(n):
            for t in texts:
                noop(t)
    else:
        sys.exit(f"unknown op {op}")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "bench":
        bench(pathlib.Path(sys.argv[2]))
    elif len(sys.argv) == 5 and sys.argv[1] == "once":
        once(sys.argv[2], int(sys.argv[3]), pathlib.Path(sys.argv[4]))
    else:
        sys.exit("usage: jaxlib_peer.py bench DIR | once OP N DIR")
