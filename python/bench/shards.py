"""Times, in one run, ``shard`` of a bf16[8192,8192] array over 8 devices in
TPU's ``T(8,128)(2,1)`` tiling into new buffers against into reused
``out=`` buffers, and ``assemble`` on one thread against all cores, beside
one ``numpy.copyto`` of the whole array; prints medians and ratios. With
``--many``, a bf16[4096,4096] array over 64 devices instead (shards of
512 KiB: a small parameter over a big mesh).

Not a test: timings on a shared machine are noisy, so every ratio compares
two measurements of the same run, interleaved round by round, each the
median of the rounds.

    python python/bench/shards.py              # 7 rounds
    python python/bench/shards.py --rounds 11 --dims 4096,4096
    python python/bench/shards.py --many       # 64 devices
    python python/bench/shards.py --many --cpu # and the CPU time, by thread
"""

import argparse
import os
import resource
import statistics
import threading
import time

import ml_dtypes
import numpy as np

import xla_shape as xs

SHARDINGS = ["{devices=[8,1]<=[8]}", "{devices=[2,4]<=[8]}"]
MANY = ["{devices=[64,1]<=[64]}", "{devices=[8,8]<=[64]}"]
LAYOUT = "{1,0:T(8,128)(2,1)}"


def timed(f):
    t = time.perf_counter()
    f()
    return time.perf_counter() - t


def cpu_shares(f, calls=20):
    """The CPU time of one of ``calls`` calls of ``f`` (all threads,
    ``getrusage``) and the share of it that each thread spent: the calling
    thread's first, then the others' (the rayon pool's), largest first,
    read from ``/proc/self/task`` (Linux). On a loaded machine it shows how
    the work is spread, and what the threads cost, where wall times
    cannot."""
    me = threading.get_native_id()

    def ticks():
        out = {}
        for t in os.listdir("/proc/self/task"):
            with open(f"/proc/self/task/{t}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            out[int(t)] = int(fields[11]) + int(fields[12])  # utime + stime
        return out

    def cpu():
        r = resource.getrusage(resource.RUSAGE_SELF)
        return r.ru_utime + r.ru_stime

    before, c0 = ticks(), cpu()
    for _ in range(calls):
        f()
    per_call, after = (cpu() - c0) / calls, ticks()
    spent = {t: v - before.get(t, 0) for t, v in after.items()}
    total = max(sum(spent.values()), 1)
    caller = spent.pop(me, 0)
    others = sorted((v for v in spent.values() if v), reverse=True)
    return per_call, [caller / total] + [v / total for v in others]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--dims", help="the global array's dimensions (8192,8192; 4096,4096 with --many)")
    ap.add_argument("--many", action="store_true", help="64 devices instead of 8")
    ap.add_argument("--cpu", action="store_true", help="also each call's CPU time, and each thread's share of it (Linux)")
    args = ap.parse_args()
    n = 64 if args.many else 8
    dims = [int(d) for d in (args.dims or ("4096,4096" if args.many else "8192,8192")).split(",")]
    x = (np.arange(int(np.prod(dims)), dtype=np.uint32) % 251).astype(ml_dtypes.bfloat16).reshape(dims)
    g = xs.Shape.array_shape("BF16", dims)
    whole = np.empty_like(x)
    print(f"bf16{dims} ({x.nbytes / 2**20:.0f} MiB), {n} devices, {LAYOUT}, medians of {args.rounds} rounds")
    for text in MANY if args.many else SHARDINGS:
        s = xs.HloSharding.from_string(text)
        tile = s.tile(g).dimensions()
        device = xs.Shape(f"bf16[{','.join(map(str, tile))}]{LAYOUT}")
        size = xs.TiledLayout(device).byte_size()
        outs = [np.empty(size, dtype=np.uint8) for _ in range(n)]
        back = np.empty_like(x)
        shards = [b for _, b in xs.shard(x, g, s, device, out=outs)]
        ops = {
            "numpy.copyto (whole array)": lambda: np.copyto(whole, x),
            "shard, new buffers": lambda: xs.shard(x, g, s, device),
            "shard, out=": lambda: xs.shard(x, g, s, device, out=outs),
            "shard parallel, new buffers": lambda: xs.shard(x, g, s, device, parallel=True),
            "shard parallel, out=": lambda: xs.shard(x, g, s, device, parallel=True, out=outs),
            "assemble, out=": lambda: xs.assemble(shards, g, s, device, out=back),
            "assemble parallel, out=": lambda: xs.assemble(shards, g, s, device, out=back, parallel=True),
            "assemble parallel, new array": lambda: xs.assemble(shards, g, s, device, parallel=True),
        }
        for f in ops.values():  # warm up: every buffer touched once
            f()
        times = {name: [] for name in ops}
        for _ in range(args.rounds):
            for name, f in ops.items():
                times[name].append(timed(f))
        med = {name: statistics.median(t) for name, t in times.items()}
        assert np.array_equal(back, x)
        copy = med["numpy.copyto (whole array)"]
        print(f"\n{text}: each device bf16{list(tile)} ({size / 2**10:.0f} KiB)")
        for name, m in med.items():
            print(f"  {name:30s} {m * 1e3:8.1f} ms  {copy / m:5.2f}x copyto's speed")
        print(f"  shard: out= is {med['shard, new buffers'] / med['shard, out=']:.2f}x faster than new buffers"
              f" (parallel: {med['shard parallel, new buffers'] / med['shard parallel, out=']:.2f}x)")
        print(f"  shard: parallel is {med['shard, out='] / med['shard parallel, out=']:.2f}x faster than serial (out=)")
        print(f"  assemble: parallel is {med['assemble, out='] / med['assemble parallel, out=']:.2f}x faster than serial")
        if args.cpu:
            for name in ["shard, out=", "shard parallel, out=", "assemble, out=", "assemble parallel, out="]:
                per_call, (caller, *pool) = cpu_shares(ops[name])
                print(f"  {name:24s} {per_call * 1e3:6.1f} ms of CPU time a call: calling thread {caller:.0%},"
                      " other threads " + (", ".join(f"{p:.0%}" for p in pool) or "none"))


if __name__ == "__main__":
    main()
