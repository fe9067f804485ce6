"""Regenerates tests/data/oracle/interop_numpy.jsonl: how jaxlib 0.10.2 maps
XLA element types to NumPy / ml_dtypes dtypes and back, and what NumPy
2.4.6 and ml_dtypes 0.6.0 report for each dtype.

Run with the XLA oracle's venv (jaxlib 0.10.2, numpy 2.4.6, ml_dtypes 0.6.0),
from the repository root, on a little-endian machine:

    ~/.cache/xla-oracle-venv/bin/python tests/data/oracle/interop_numpy_gen.py

Records, one per line:
- {"xla": NAME, "shape": TEXT, "numpy_dtype": NAME | null, "error": MSG | null}:
  `xla_client.Shape(TEXT).numpy_dtype()` for a one-element array (or tuple,
  token, opaque) shape of every element type the HLO text can write.
- {"dtype": NAME, "str": ..., "char": ..., "kind": ..., "itemsize": N,
   "xla": NAME | null, "error": MSG | null}: the NumPy dtype of that name and
  `xla_client.Shape.array_shape(dtype, (2,))` (jaxlib's
  `DtypeToPrimitiveType`), for every numeric NumPy dtype and every ml_dtypes
  type.
"""

import json

import ml_dtypes
import numpy as np
from jax._src.lib import xla_client as xc

XLA_TYPES = [
    "pred", "s1", "s2", "s4", "s8", "s16", "s32", "s64", "u1", "u2", "u4",
    "u8", "u16", "u32", "u64", "f16", "f32", "bf16", "f64", "f8e5m2",
    "f8e4m3", "f8e4m3fn", "f8e4m3b11fnuz", "f8e3m4", "f8e5m2fnuz",
    "f8e4m3fnuz", "f4e2m1fn", "f8e8m0fnu", "f6e3m2fn", "f6e2m3fn", "c64",
    "c128",
]
OTHER_SHAPES = [("TUPLE", "()"), ("TOKEN", "token[]"), ("OPAQUE_TYPE", "opaque[]")]

NUMPY = [
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
    "uint64", "float16", "float32", "float64", "longdouble", "complex64",
    "complex128", "clongdouble", "object",
]
ML_DTYPES = sorted(
    n for n in dir(ml_dtypes)
    if not n.startswith("_") and n not in ("finfo", "iinfo", "real", "imag")
)


def main():
    out = []
    for t in XLA_TYPES:
        text = f"{t}[1]"
        rec = {"xla": t.upper(), "shape": text, "numpy_dtype": None, "error": None}
        try:
            rec["numpy_dtype"] = str(xc.Shape(text).numpy_dtype())
        except Exception as e:  # noqa: BLE001
            rec["error"] = str(e)
        out.append(rec)
    for name, text in OTHER_SHAPES:
        rec = {"xla": name, "shape": text, "numpy_dtype": None, "error": None}
        try:
            rec["numpy_dtype"] = str(xc.Shape(text).numpy_dtype())
        except Exception as e:  # noqa: BLE001
            rec["error"] = str(e)
        out.append(rec)
    for name in NUMPY + ML_DTYPES:
        d = np.dtype(getattr(ml_dtypes, name) if name in ML_DTYPES else name)
        rec = {"dtype": d.name, "str": d.str, "char": d.char, "kind": d.kind,
               "itemsize": d.itemsize, "xla": None, "error": None}
        try:
            s = xc.Shape.array_shape(d, (2,))
            rec["xla"] = str(s).split("[")[0].upper()
        except Exception as e:  # noqa: BLE001
            rec["error"] = str(e)
        out.append(rec)
    with open("tests/data/oracle/interop_numpy.jsonl", "w") as f:
        for rec in out:
            f.write(json.dumps(rec, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
