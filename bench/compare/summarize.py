"""Turns the rounds of bench/compare/run.sh into the table of ratios.

Reads OUT/rounds.txt (`<round> <side> RESULT <work> <case> <ns>` lines) and
OUT/callgrind.txt (`<side> <op> <instructions per item>` lines) and prints
Markdown: for each work, both sides' median time over the rounds and the
median of the per-round ratios ours / peer (below 1: the crate is faster)
with their smallest and largest value.
"""

import collections
import pathlib
import statistics
import sys

out = pathlib.Path(sys.argv[1])
times = collections.defaultdict(dict)  # (side, work, case) -> {round: ns}
for line in (out / "rounds.txt").read_text().splitlines():
    rnd, side, tag, work, case, ns = line.split()
    if tag == "RESULT":
        times[(side, work, case)][int(rnd)] = float(ns)


def ratio_stats(ours, peer, invert=False):
    """Median, min and max over the rounds of ours/peer (peer/ours if invert)."""
    a, b = times.get(ours), times.get(peer)
    if not a or not b:
        return None
    rs = [(b[r] / a[r]) if invert else (a[r] / b[r]) for r in a if r in b]
    return statistics.median(rs), min(rs), max(rs)


def med(key):
    v = times.get(key)
    return statistics.median(v.values()) if v else None


def fmt_ns(ns):
    if ns is None:
        return "—"
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    if ns >= 1e3:
        return f"{ns / 1e3:.2f} µs"
    return f"{ns:.1f} ns"


def fmt_ratio(st):
    if st is None:
        return "—"
    m, lo, hi = st
    return f"{m:.2f}x ({lo:.2f}–{hi:.2f})"


def verdict(st, limit, below=True):
    if st is None:
        return "—"
    return "yes" if (st[0] <= limit if below else st[0] >= limit) else "no"


rounds = len({r for v in times.values() for r in v})
print(f"{rounds} interleaved rounds; ratio = ours / peer, median over the rounds (smallest–largest).\n")
print("| work | case | ours | peer | peer's time | ours / peer | target | met |")
print("| --- | --- | --- | --- | --- | --- | --- | --- |")
cases = {"mixed": "mixed golden corpus, per record", "rank4": "rank-4 tiled (41 B)", "tuple": "tuple of 100 (4.3 KB)"}
for work, what in [("decode", "decode + validate / `ParseFromString`"), ("encode", "`encode_to` / `SerializeToString`")]:
    for case, label in cases.items():
        st = ratio_stats(("rust", work, case), ("cpp", work, case))
        print(f"| {what} | {label} | {fmt_ns(med(('rust', work, case)))} | C++ libprotobuf | "
              f"{fmt_ns(med(('cpp', work, case)))} | {fmt_ratio(st)} | ≤ 0.5x | {verdict(st, 0.5)} |")
for case, label in cases.items():
    st = ratio_stats(("rust", "decode_new", case), ("cpp", "decode", case))
    print(f"| decode + validate into a new `Shape` (`from_proto_bytes`) / `ParseFromString` | {label} | "
          f"{fmt_ns(med(('rust', 'decode_new', case)))} | C++ libprotobuf | "
          f"{fmt_ns(med(('cpp', 'decode', case)))} | {fmt_ratio(st)} | — | — |")
for work, target in [("parse", 1 / 20), ("print", 1 / 5)]:
    st = ratio_stats(("rust", work, "golden"), ("jaxlib", work, "golden"))
    print(f"| HLO shape {work} | golden strings, per string | {fmt_ns(med(('rust', work, 'golden')))} | "
          f"jaxlib (with Python's call) | {fmt_ns(med(('jaxlib', work, 'golden')))} | {fmt_ratio(st)} | "
          f"≤ {target:.2f}x | {verdict(st, target)} |")
st = ratio_stats(("rust", "parse", "all"), ("jaxlib", "parse", "all"))
if st is not None:
    print(f"| HLO shape parse | whole golden corpus, errors included, per string | "
          f"{fmt_ns(med(('rust', 'parse', 'all')))} | jaxlib (with Python's call) | "
          f"{fmt_ns(med(('jaxlib', 'parse', 'all')))} | {fmt_ratio(st)} | ≤ 0.05x | {verdict(st, 1 / 20)} |")
for case, label in [("noop", "an empty Python function"), ("binding", "a jaxlib method, no arguments")]:
    print(f"| Python call overhead | {label} | — | jaxlib's Python | {fmt_ns(med(('jaxlib', 'call', case)))} | — | — | — |")
for work, label in [("unravel", "unravel"), ("ravel", "ravel"),
                    ("ravel_prepared", "ravel, prepared (`LinearIndexer`)")]:
    peer_work = "ravel" if work == "ravel_prepared" else work
    for peer, name, target in [("c", "C loop over strides (`cc -O2`)", 1.5), ("jaxlib", "NumPy", None)]:
        st = ratio_stats(("rust", work, "rank4"), (peer, peer_work, "rank4"))
        if st is None:
            continue
        t = f"≤ {target}x" if target and work != "ravel" else "—"
        v = verdict(st, target) if t != "—" else "—"
        print(f"| {label}, rank 4 | per index | {fmt_ns(med(('rust', work, 'rank4')))} | {name} | "
              f"{fmt_ns(med((peer, peer_work, 'rank4')))} | {fmt_ratio(st)} | {t} | {v} |")
for mib in ["1MiB", "16MiB", "256MiB"]:
    st = ratio_stats(("rust", "transpose", mib), ("c", "transpose", mib))
    print(f"| 2-D u32 transpose | {mib[:-3]} MiB | {fmt_ns(med(('rust', 'transpose', mib)))} | C SSE blocked | "
          f"{fmt_ns(med(('c', 'transpose', mib)))} | {fmt_ratio(st)} | — | — |")
    st = ratio_stats(("rust", "transpose", mib), ("c", "copy", mib), invert=True)
    print(f"| same, speed as a share of a copy | {mib[:-3]} MiB | | `memcpy` | "
          f"{fmt_ns(med(('c', 'copy', mib)))} | {fmt_ratio(st)} of a copy's speed | ≥ 0.5 (16, 256 MiB) | "
          f"{verdict(st, 0.5, below=False) if mib != '1MiB' else '—'} |")

relayout_cases = sorted({c for (side, work, c) in times if side == "rust" and work == "relayout"},
                        key=lambda c: (int(c.rsplit("_", 1)[1][:-3]), c))
if relayout_cases:
    print(f"\nRelayout, {rounds} interleaved rounds: speed as a share of a memory copy of the same "
          "bytes in the same buffers (copy's time / ours, median over the rounds, smallest–largest); "
          "`threads`: `run_parallel` against a copy cut into as many pieces on the same pool; "
          "NumPy: ours / NumPy's time (below 1: the crate is faster).\n")
    before = any(side == "before" for (side, _, _) in times)
    extra = " before: share of `memcpy` | before: share of a parallel copy |" if before else ""
    print("| case | ours, 1 core | share of `memcpy` (≥ 0.7) | ours, all cores | share of a parallel copy (≥ 0.9) "
          f"| NumPy | ours / NumPy |{extra}")
    print("| --- | --- | --- | --- | --- | --- | --- |" + (" --- | --- |" if before else ""))
    low = []
    for c in relayout_cases:
        one = ratio_stats(("rust", "relayout", c), ("rust", "relayout_copy", c), invert=True)
        many = ratio_stats(("rust", "relayout_threads", c), ("rust", "relayout_threads_copy", c), invert=True)
        np_ = ratio_stats(("rust", "relayout", c), ("jaxlib", "relayout_numpy", c))
        if one and one[0] < 0.7:
            low.append(f"{c} {one[0]:.2f}")
        if many and many[0] < 0.9:
            low.append(f"{c} threads {many[0]:.2f}")
        print(f"| `{c}` | {fmt_ns(med(('rust', 'relayout', c)))} | {fmt_ratio(one)} | "
              f"{fmt_ns(med(('rust', 'relayout_threads', c)))} | {fmt_ratio(many)} | "
              f"{fmt_ns(med(('jaxlib', 'relayout_numpy', c)))} | {fmt_ratio(np_)} |", end="")
        if before:
            b1 = ratio_stats(("before", "relayout", c), ("before", "relayout_copy", c), invert=True)
            bm = ratio_stats(("before", "relayout_threads", c), ("before", "relayout_threads_copy", c), invert=True)
            print(f" {fmt_ratio(b1)} | {fmt_ratio(bm)} |", end="")
        print()
    print(f"\nBelow target ({len(low)}): {', '.join(low) if low else 'none'}")

cg = out / "callgrind.txt"
if cg.exists():
    counts = {}
    for line in cg.read_text().splitlines():
        side, op, n = line.split()
        counts[(side, op)] = float(n)
    print("\nInstructions per item (callgrind, `Ir` of N items minus `Ir` of none, divided by N):\n")
    print("| operation | ours | peer | peer's | ours / peer |")
    print("| --- | --- | --- | --- | --- |")
    for op, peer in [("decode_mixed", "cpp"), ("decode_rank4", "cpp"), ("decode_tuple", "cpp"),
                     ("decode_new_mixed", "cpp"), ("decode_new_rank4", "cpp"), ("decode_new_tuple", "cpp"),
                     ("encode_mixed", "cpp"), ("encode_rank4", "cpp"), ("encode_tuple", "cpp"),
                     ("parse", "jaxlib"), ("parse_all", "jaxlib"), ("print", "jaxlib")]:
        # The new-Shape decode is compared with C++'s one decode.
        a, b = counts.get(("rust", op)), counts.get((peer, op.replace("decode_new", "decode")))
        r = f"{a / b:.3f}x" if a and b else "—"
        fa = f"{a:,.0f}" if a else "—"
        fb = f"{b:,.0f}" if b else "—"
        print(f"| {op.replace('decode_new', 'decode into a new Shape,').replace('_', ' ')} | {fa} | {'C++ libprotobuf' if peer == 'cpp' else 'jaxlib'} | {fb} | {r} |")
    noop = counts.get(("jaxlib", "noop"))
    if noop:
        print(f"| Python's call of an empty function (part of jaxlib's parse and print) | — | Python | {noop:,.0f} | — |")
