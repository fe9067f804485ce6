"""Regenerates tests/data/oracle/sharding_shardy.jsonl: XLA's conversion of
Shardy shardings to HloSharding (jaxlib 0.10.2's Shardy export, run by
`mlir_module_to_xla_computation` on a StableHLO module), and what JAX
writes.

Run from the repository root with a Python that has jax/jaxlib 0.10.2:

    python tests/data/oracle/sharding_shardy_gen.py

Records:
- {"kind": "export", "mesh", "sharding", "shape", "answer"}: a module with
  `sdy.mesh` and one argument of `shape` carrying `sharding`; answer is
  {"hlo": [the parameter's `sharding={...}`]} or {"error": XLA's message}.
  Inputs: hand-written forms (open dimensions, priorities, sub-axes,
  replicated and unreduced axes, device ids, inline meshes, maximal meshes,
  errors) and random ones (seeded).
- {"kind": "jax", "mesh", "sharding", "shape", "hlo"}: `jax.jit` with
  `NamedSharding(mesh, spec)` lowered: the `sdy.mesh` and argument sharding
  of `lowered.as_text()` beside the parameter's sharding in
  `lowered.compiler_ir('hlo').as_hlo_text()`, 64 CPU devices
  (`--xla_force_host_platform_device_count=64`).
"""

import json
import random
import sys

sys.path.insert(0, "tests/data/oracle")
from sharding_oracle import Oracle  # noqa: E402

JAX_OP = r'''
def op_jax(axis_sizes, axis_names, spec, shape, perm):
    import numpy as np
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
    import jax.numpy as jnp
    n = 1
    for s in axis_sizes:
        n *= s
    devs = np.array(jax.devices()[:n])[perm].reshape(axis_sizes)
    mesh = Mesh(devs, tuple(axis_names))
    spec = P(*[tuple(x) if isinstance(x, list) else x for x in spec])
    f = jax.jit(lambda a: a + 1, in_shardings=NamedSharding(mesh, spec))
    lowered = f.lower(jnp.zeros(shape, jnp.float32))
    text = lowered.as_text()
    mesh_line = [l.strip() for l in text.splitlines() if l.strip().startswith("sdy.mesh")]
    sdy = None
    if "sdy.sharding = " in text:
        rest = text.split("sdy.sharding = ", 1)[1]
        depth = 0
        for i, c in enumerate(rest):
            if c == "<":
                depth += 1
            elif c == ">":
                depth -= 1
                if depth == 0:
                    sdy = rest[:i + 1]
                    break
    hlo = lowered.compiler_ir("hlo").as_hlo_text()
    p = [l for l in hlo.splitlines() if "parameter(0)" in l][0]
    hs = p.split("sharding=", 1)[1].split(", frontend_attributes=", 1)[0] if "sharding=" in p else None
    return {"mesh": mesh_line[0] if mesh_line else None, "sharding": sdy, "hlo": hs}
'''

HAND = [
    ('<["x"=2, "y"=4]>', '#sdy.sharding<@mesh, [{"x"}, {}]>', "8x16"),
    ('<["x"=2, "y"=4]>', '#sdy.sharding<@mesh, [{"y", ?}, {?}]>', "8x16"),
    ('<["x"=2, "y"=4]>', '#sdy.sharding<@mesh, [{}, {}], replicated={"x"}>', "8x16"),
    ('<["x"=2, "y"=4]>', '#sdy.sharding<@mesh, [{"y":(1)2}, {"x"}]>', "8x16"),
    ('<["x"=2, "y"=4]>', '#sdy.sharding<@mesh, [{"y":(2)2}, {"x"}]>', "8x16"),
    ('<["x"=2, "y"=4]>', '#sdy.sharding<@mesh, [{}, {}], unreduced={"y"}>', "8x16"),
    ('<["x"=2, "y"=4]>', '#sdy.sharding<@mesh, [{"x"}, {}], unreduced={"y"}>', "8x16"),
    ('<["x"=2, "y"=4]>', '#sdy.sharding<@mesh, [{"x"}p1, {"y"}p0]>', "8x16"),
    ('<["x"=2, "y"=4]>', '#sdy.sharding<@mesh, [{"y", "x"}, {}]>', "8x16"),
    ('<["x"=2, "y"=4]>', '#sdy.sharding<@mesh, [{"x", "y"}]>', "8"),
    ('<["x"=2, "y"=4]>', '#sdy.sharding<@mesh, []>', ""),
    ('<["x"=2, "y"=4]>', '#sdy.sharding<@mesh, [{}, {}]>', "8x16"),
    ('<["x"=2, "y"=4]>', '#sdy.sharding<@mesh, [{"z"}, {}]>', "8x16"),
    ('<["x"=2, "y"=4]>', '#sdy.sharding<@mesh, [{"x"}, {"x"}]>', "8x16"),
    ('<["x"=2, "y"=4]>', '#sdy.sharding<@mesh, [{"x"}]>', "8x16"),
    ('<["x"=2, "y"=4]>', '#sdy.sharding<@mesh, [{}, {}], replicated={"y", "x"}>', "8x16"),
    ('<["x"=2, "y"=4]>', '#sdy.sharding<@mesh, [{"x"}, {}], replicated={"y"}>', "8x16"),
    ('<["x"=2, "y"=4]>', '#sdy.sharding<@mesh, [{"y":(1)2, "y":(2)2}, {}]>', "8x16"),
    ('<["x"=2, "y"=2], device_ids=[3, 2, 1, 0]>', '#sdy.sharding<@mesh, [{"x"}, {}]>', "8x16"),
    ('<["x"=2, "y"=2], device_ids=[0, 2, 1, 3]>', '#sdy.sharding<@mesh, [{"x"}, {"y"}]>', "8x16"),
    ('<["x"=2, "y"=2], device_ids=[0, 1, 2, 3]>', '#sdy.sharding<@mesh, [{"x"}, {"y"}]>', "8x16"),
    ('<[], device_ids=[3]>', '#sdy.sharding<@mesh, []>', ""),
    ('<[], device_ids=[3]>', '#sdy.sharding<@mesh, [{}, {}]>', "8x16"),
    ('<[]>', '#sdy.sharding<@mesh, [{}, {}]>', "8x16"),
    ('<["x"=2, "y"=4]>', '#sdy.sharding<mesh<["a"=4]>, [{"a"}, {}]>', "8x16"),
    ('<["x"=1, "y"=8]>', '#sdy.sharding<@mesh, [{"x"}, {"y"}]>', "8x16"),
    ('<["x"=8]>', '#sdy.sharding<@mesh, [{"x":(2)2}, {"x":(1)2}], replicated={"x":(4)2}>', "8x16"),
]


def rand_case(rng):
    names = ["x", "y", "z", "w"]
    k = rng.randint(1, 4)
    sizes = [rng.choice([1, 2, 2, 3, 4]) for _ in range(k)]
    n = 1
    for s in sizes:
        n *= s
    mesh = "<[%s]" % ", ".join('"%s"=%d' % (names[i], sizes[i]) for i in range(k))
    if rng.random() < 0.2 and n > 2:
        ids = list(range(n))
        while ids == sorted(ids):
            rng.shuffle(ids)
        mesh += ", device_ids=[%s]" % ", ".join(map(str, ids))
    mesh += "]>" if False else ">"
    mesh = mesh.replace("]>", "]>") if "device_ids" in mesh else mesh
    rank = rng.randint(0, 3)
    axes = list(range(k))
    rng.shuffle(axes)
    dims = [[] for _ in range(rank)]
    rest = []
    for a in axes:
        if rank and rng.random() < 0.65:
            dims[rng.randrange(rank)].append('"%s"' % names[a])
        else:
            rest.append(a)
    dim_text = []
    for d in dims:
        body = ", ".join(d)
        if rng.random() < 0.15:
            body = body + (", ?" if d else "?")
        t = "{%s}" % body
        if rng.random() < 0.1:
            t += "p%d" % rng.randint(0, 3)
        dim_text.append(t)
    s = "#sdy.sharding<@mesh, [%s]" % ", ".join(dim_text)
    rest.sort()
    for kind in ["replicated", "unreduced"]:
        take = [a for a in rest if rng.random() < 0.35]
        rest = [a for a in rest if a not in take]
        if take:
            s += ", %s={%s}" % (kind, ", ".join('"%s"' % names[a] for a in take))
    s += ">"
    shape = "x".join(str(rng.choice([1, 2, 4, 6, 8, 12])) for _ in range(rank))
    return mesh.replace("]>", "]>"), s, shape


def jax_cases(rng):
    out = []
    specs = [
        ((2, 4), ["x", "y"], ["x", None], (8, 16)),
        ((2, 4), ["x", "y"], [None, "y"], (8, 16)),
        ((2, 4), ["x", "y"], [["x", "y"]], (16,)),
        ((2, 4), ["x", "y"], [["y", "x"]], (16,)),
        ((2, 4), ["x", "y"], ["y", "x"], (8, 16)),
        ((2, 4), ["x", "y"], [], (8, 16)),
        ((4, 2, 2), ["a", "b", "c"], ["c", ["a", "b"]], (4, 8)),
        ((8,), ["d"], [None, "d", None], (2, 8, 3)),
        ((2, 2, 2, 2), ["a", "b", "c", "d"], [["d", "b"], "a"], (4, 2)),
        ((16,), ["x"], ["x"], (16,)),
        ((4, 4), ["x", "y"], [None, None], (3, 5)),
    ]
    for sizes, names, spec, shape in specs:
        n = 1
        for s in sizes:
            n *= s
        out.append((list(sizes), names, spec, list(shape), list(range(n))))
        perm = list(range(n))
        rng.shuffle(perm)
        out.append((list(sizes), names, spec, list(shape), perm))
    return out


def main():
    rng = random.Random(35)
    o = Oracle(extra_ops=JAX_OP)
    with open("tests/data/oracle/sharding_shardy.jsonl", "w") as out:
        cases = [("hand",) + c for c in HAND] + [("random",) + rand_case(rng) for _ in range(500)]
        for name, mesh, s, shape in cases:
            shp = (shape + "xf32") if shape else "f32"
            answer = o.ask("shardy", "sdy.mesh @mesh = " + mesh, [s], [shp])
            out.write(json.dumps({"kind": "export", "case": name, "mesh": mesh, "sharding": s,
                                  "shape": shape, "answer": answer}, sort_keys=True) + "\n")
        for sizes, names, spec, shape, perm in jax_cases(rng):
            answer = o.ask("jax", sizes, names, spec, shape, perm)
            out.write(json.dumps({"kind": "jax", "axis_sizes": sizes, "spec": spec, "shape": shape,
                                  "answer": answer}, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
