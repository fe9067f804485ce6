"""Writes shards.jsonl: what jax 0.10.2 puts on each of eight CPU devices
when it places a global array with a ``NamedSharding`` (``jax.device_put``),
for ``xla_shape.shard`` / ``assemble`` (python/tests/test_shards.py).

Each record: the global dimensions and dtype, the ``HloSharding`` jax gives
the sharding (``NamedSharding._to_xla_hlo_sharding``, XLA's text), and per
addressable shard in ascending device id: the device id, the shard's index
(``start``/``stop`` per dimension, from ``shard.index``, the answer of
``devices_indices_map``) and the bytes jax holds on the device
(``shard.data``, row-major, hex). The global array is
``(numpy.arange(n) % 251)`` cast to the dtype, in C order.

Run with a Python that has jax/jaxlib 0.10.2, numpy and ml_dtypes:

    XLA_FLAGS=--xla_force_host_platform_device_count=8 \\
        python tests/data/oracle/shards_gen.py > tests/data/oracle/shards.jsonl
"""

import json

import jax
import ml_dtypes  # noqa: F401  (bfloat16 for numpy)
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

CASES = [
    ((16, 256), "float32", P("x", "y")),
    ((16, 256), "bfloat16", P("y", "x")),
    ((8, 128), "float32", P("y")),
    ((24, 384), "int8", P(None, ("x", "y"))),
    ((8, 12), "float32", P(None, "x")),
    ((8, 12), "int16", P("x")),
    ((4, 6), "float32", P()),
    ((16,), "uint8", P(("y", "x"))),
    ((4, 8, 8), "bfloat16", P("x", None, "y")),
    ((2, 4, 2), "float32", P(None, "y", "x")),
]


def main():
    assert len(jax.devices()) == 8, "run with 8 forced CPU devices (see the docstring)"
    mesh = Mesh(np.array(jax.devices()).reshape(2, 4), ("x", "y"))
    for dims, dtype, spec in CASES:
        sharding = NamedSharding(mesh, spec)
        n = int(np.prod(dims))
        x = (np.arange(n) % 251).astype(dtype).reshape(dims)
        a = jax.device_put(x, sharding)
        shards = []
        for s in sorted(a.addressable_shards, key=lambda s: s.device.id):
            start = [sl.start or 0 for sl in s.index]
            stop = [d if sl.stop is None else sl.stop for sl, d in zip(s.index, dims)]
            shards.append(
                {
                    "device": s.device.id,
                    "start": start,
                    "stop": stop,
                    "hex": np.ascontiguousarray(np.asarray(s.data)).tobytes().hex(),
                }
            )
        print(
            json.dumps(
                {
                    "dims": list(dims),
                    "dtype": dtype,
                    "spec": str(spec),
                    "sharding": str(sharding._to_xla_hlo_sharding(len(dims))),
                    "num_devices": 8,
                    "shards": shards,
                },
                sort_keys=True,
            )
        )


if __name__ == "__main__":
    main()
