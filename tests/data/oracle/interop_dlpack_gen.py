"""Regenerates tests/data/oracle/interop_dlpack.jsonl: what jaxlib 0.10.2
(XLA's Python DLPack bridge) does with DLPack tensors on the CPU.

Run with the XLA oracle's venv (jaxlib 0.10.2, numpy 2.4.6, ml_dtypes 0.6.0),
from the repository root:

    ~/.cache/xla-oracle-venv/bin/python tests/data/oracle/interop_dlpack_gen.py

Records, one per line:
- {"export": XLA_NAME, "code": C, "bits": B, "lanes": L, "error": MSG|null}:
  the `DLDataType` of the `DLTensor` that `jax.Array.__dlpack__()` (legacy
  capsule, `DLManagedTensor`) exports for a 2-element array of each element
  type jax can hold, read from the capsule with ctypes; or the error.
- {"import": [dims], "strides": [element strides], "error": MSG|null}:
  `jax.dlpack.from_dlpack` of a float32 NumPy view with those element
  strides (NumPy exports it through DLPack; XLA runs `StridesToLayout`);
  error null where jaxlib accepts it.
- {"import_empty": [dims], "strides": [element strides], "error": MSG|null}:
  the same for views with no element (a dimension of size 0), whose strides
  XLA's importer does not read.
"""

import ctypes
import json

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
from numpy.lib.stride_tricks import as_strided

jax.config.update("jax_enable_x64", True)


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device_type", ctypes.c_int32),
                ("device_id", ctypes.c_int32), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
get_pointer.restype = ctypes.c_void_p
get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]

DTYPES = [
    ("PRED", np.bool_), ("S8", np.int8), ("S16", np.int16), ("S32", np.int32),
    ("S64", np.int64), ("U8", np.uint8), ("U16", np.uint16), ("U32", np.uint32),
    ("U64", np.uint64), ("F16", np.float16), ("F32", np.float32), ("F64", np.float64),
    ("BF16", ml_dtypes.bfloat16), ("C64", np.complex64), ("C128", np.complex128),
    ("S2", ml_dtypes.int2), ("S4", ml_dtypes.int4), ("U2", ml_dtypes.uint2),
    ("U4", ml_dtypes.uint4), ("F4E2M1FN", ml_dtypes.float4_e2m1fn),
    ("F8E3M4", ml_dtypes.float8_e3m4), ("F8E4M3", ml_dtypes.float8_e4m3),
    ("F8E4M3B11FNUZ", ml_dtypes.float8_e4m3b11fnuz), ("F8E4M3FN", ml_dtypes.float8_e4m3fn),
    ("F8E4M3FNUZ", ml_dtypes.float8_e4m3fnuz), ("F8E5M2", ml_dtypes.float8_e5m2),
    ("F8E5M2FNUZ", ml_dtypes.float8_e5m2fnuz), ("F8E8M0FNU", ml_dtypes.float8_e8m0fnu),
]

STRIDES = [
    ([], []), ([5], [1]), ([2, 3], [3, 1]), ([2, 3], [1, 2]), ([2, 3, 4], [12, 4, 1]),
    ([2, 3, 4], [1, 2, 6]), ([2, 3, 4], [4, 1, 12]), ([2, 1, 3, 4], [12, 12, 4, 1]),
    ([2, 1, 3, 4], [12, 1, 4, 1]), ([1, 1], [1, 100]), ([1, 1, 4], [1, 100, 1]),
    ([4, 1, 1], [1, 100, 1]), ([2, 1, 3, 4], [1, 2, 2, 6]), ([2, 1], [5, 1]),
    ([2, 1], [1, 7]), ([3, 1], [1, 1]), ([1, 3], [3, 1]), ([1, 3], [1, 1]),
    ([2, 3], [5, 1]), ([2, 3], [3, 2]), ([2, 3], [0, 1]), ([2, 3], [3, 0]),
    ([2, 3], [1, 1]), ([2, 3], [2, 1]), ([2, 3], [-3, 1]), ([2, 3], [3, -1]),
    ([4], [2]), ([4], [0]), ([4], [-1]), ([2, 2], [1, 1]), ([2, 2, 2], [4, 2, 2]),
    ([3, 4], [1, 3]), ([3, 4], [4, 1]), ([3, 4], [8, 1]), ([3, 4], [1, 6]),
]

# Views with no element: strides no compact layout has.
EMPTY = [([0, 3], [1, 7]), ([3, 0], [5, 9]), ([2, 0, 3], [0, 0, 0]), ([0, 4], [1, 1])]


def main():
    out = []
    for name, dt in DTYPES:
        rec = {"export": name, "code": None, "bits": None, "lanes": None, "error": None}
        try:
            x = jnp.asarray(np.zeros(2, dtype=dt))
            cap = x.__dlpack__()
            t = DLTensor.from_address(get_pointer(cap, b"dltensor"))
            rec.update(code=t.dtype.code, bits=t.dtype.bits, lanes=t.dtype.lanes)
        except Exception as e:  # noqa: BLE001
            rec["error"] = str(e)
        out.append(rec)
    base = np.arange(1000, dtype=np.float32)[500:]
    cases = [("import", c) for c in STRIDES] + [("import_empty", c) for c in EMPTY]
    for key, (dims, strides) in cases:
        rec = {key: dims, "strides": strides, "error": None}
        x = as_strided(base, dims, [s * 4 for s in strides])
        try:
            y = jax.dlpack.from_dlpack(x)
            assert np.array_equal(np.asarray(y), x)
        except Exception as e:  # noqa: BLE001
            rec["error"] = str(e)
        out.append(rec)
    with open("tests/data/oracle/interop_dlpack.jsonl", "w") as f:
        for rec in out:
            f.write(json.dumps(rec, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
