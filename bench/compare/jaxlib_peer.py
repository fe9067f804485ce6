"""jaxlib's and NumPy's side of the comparison suite (bench/compare/run.sh).

`python jaxlib_peer.py bench DIR`: one round. XLA's HLO shape parser and
printer through jaxlib (`xla_client.Shape(text)`, `str(shape)`) over the
shape strings prep.py wrote, and NumPy's `unravel_index` and
`ravel_multi_index` on the index-math inputs of the C and Rust sides. Each
figure is a monotonic clock (`time.perf_counter_ns`) around N passes after
one warm-up pass, printed as `RESULT <work> <case> <ns per item>`. jaxlib's
times include Python's call overhead: `call noop` is a loop of calls of an
empty Python function and `call binding` one of a jaxlib method without
arguments (`Shape.is_tuple()`), on the same strings.
`python jaxlib_peer.py once OP N DIR`: OP done N times (for callgrind);
OP `noop` is the empty function's loop, Python's share of the others.

XLA's classes are imported from `jaxlib.xla_client`, the module that
`jax._src.lib.xla_client` is (the same object), without importing jax:
under valgrind that takes 20 seconds instead of ten minutes. NumPy is
imported only for `bench`.
"""

import pathlib
import sys
import time

from jaxlib import xla_client

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


def print_all(shapes):
    for s in shapes:
        str(s)


def noop(t):
    return None


def bench(dir):
    import numpy as np

    texts = (dir / "shapes.txt").read_text().splitlines()
    n = len(texts)
    report("parse", "golden", timed(20, n, lambda: parse_all(texts)))
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
