"""Compares, in one run, the xla_shape package against jaxlib's xla_client
(parse, print, to_serialized_proto on the golden shapes) and relayout
against NumPy's ``ascontiguousarray(a.transpose(...))``; prints ratios.

Not a test: timings on a shared machine are noisy, so every ratio compares
two measurements of the same run, each the best of several repeats.

    python python/bench/compare.py                       # NumPy only
    python python/bench/compare.py --jaxlib-venv DIR     # and jaxlib, from DIR
    python python/bench/compare.py --jaxlib-venv DIR --install-jaxlib

``--install-jaxlib`` creates the virtual environment DIR and installs
jaxlib==0.10.2 (the version that made the golden data) into it; jaxlib is
then timed in a subprocess running this script with ``--jaxlib-worker``.
"""

import argparse
import json
import pathlib
import subprocess
import sys
import timeit

REPO = pathlib.Path(__file__).resolve().parents[2]
JAXLIB = "jaxlib==0.10.2"


def golden_shapes():
    """The printed form of every golden shape that XLA re-parses."""
    out = []
    with open(REPO / "tests" / "data" / "shapes.jsonl", encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            if "reparse_str" in r and r.get("reparse_identical"):
                out.append(r["xla_str"])
    return out


def per_call(stmt, n_items, repeat=7, number=20):
    """Best seconds per item over `repeat` runs of `number` loops."""
    best = min(timeit.repeat(stmt, repeat=repeat, number=number))
    return best / (number * n_items)


def measure(make, texts):
    """Per-call times of parse, print and serialize for `make(text)`."""
    shapes = [make(t) for t in texts]
    n = len(texts)
    return {
        "parse": per_call(lambda: [make(t) for t in texts], n),
        "print": per_call(lambda: [str(s) for s in shapes], n),
        "to_serialized_proto": per_call(lambda: [s.to_serialized_proto() for s in shapes], n),
    }


def jaxlib_worker():
    from jax._src.lib import xla_client

    texts = json.loads(sys.stdin.read())
    # Only shapes jaxlib accepts (it aborts on none of the re-parsable ones).
    print(json.dumps(measure(xla_client.Shape, texts)))


def relayout_figures():
    import numpy as np

    import xla_shape as xs

    rows = []
    for n, m in [(4096, 4096), (1024, 16384), (256, 256)]:
        a = np.random.default_rng(0).random((n, m), dtype=np.float32)
        src = xs.Shape(f"f32[{n},{m}]{{1,0}}")
        dst = xs.Shape(f"f32[{n},{m}]{{0,1}}")
        out = np.empty(n * m * 4, dtype=np.uint8)
        assert np.array_equal(xs.relayout(a, src, dst), np.ascontiguousarray(a.T))
        reps = 5 if n * m > 1 << 20 else 50
        t_np = min(timeit.repeat(lambda: np.ascontiguousarray(a.T), repeat=reps, number=1))
        t_xs = min(timeit.repeat(lambda: xs.relayout(a, src, dst), repeat=reps, number=1))
        t_out = min(timeit.repeat(lambda: xs.relayout(a, src, dst, out=out), repeat=reps, number=1))
        rows.append((f"f32[{n},{m}] transpose ({a.nbytes >> 20} MiB)", t_np, t_xs, t_out))
    return rows


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--jaxlib-venv", type=pathlib.Path)
    p.add_argument("--install-jaxlib", action="store_true")
    p.add_argument("--jaxlib-worker", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.jaxlib_worker:
        return jaxlib_worker()

    import xla_shape as xs

    texts = []
    for t in golden_shapes():
        try:
            xs.Shape(t)
        except xs.XlaShapeError:
            continue  # the few XLA holds without validating; we reject them
        texts.append(t)
    ours = measure(xs.Shape, texts)
    theirs = None
    if args.jaxlib_venv:
        py = args.jaxlib_venv / "bin" / "python"
        if args.install_jaxlib and not py.exists():
            subprocess.run([sys.executable, "-m", "venv", str(args.jaxlib_venv)], check=True)
        if args.install_jaxlib:
            subprocess.run([str(py), "-m", "pip", "install", "--quiet", JAXLIB, "jax==0.10.2"], check=True)
        run = subprocess.run(
            [str(py), __file__, "--jaxlib-worker"],
            input=json.dumps(texts),
            capture_output=True,
            text=True,
            check=True,
        )
        theirs = json.loads(run.stdout.strip().splitlines()[-1])

    print(f"{len(texts)} golden shapes, per call (best of 7)")
    print(f"{'operation':<22}{'xla_shape':>12}{'jaxlib':>12}{'jaxlib / ours':>15}")
    for op, t in ours.items():
        if theirs:
            print(f"{op:<22}{t * 1e9:>10.0f}ns{theirs[op] * 1e9:>10.0f}ns{theirs[op] / t:>14.2f}x")
        else:
            print(f"{op:<22}{t * 1e9:>10.0f}ns{'-':>12}{'-':>15}")
    print()
    print(f"{'relayout':<34}{'numpy':>10}{'ours':>10}{'ours out=':>11}{'numpy / ours':>14}")
    for name, t_np, t_xs, t_out in relayout_figures():
        print(f"{name:<34}{t_np * 1e3:>8.2f}ms{t_xs * 1e3:>8.2f}ms{t_out * 1e3:>9.2f}ms{t_np / t_xs:>13.2f}x")


if __name__ == "__main__":
    main()
