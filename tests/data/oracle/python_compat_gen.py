"""Regenerates tests/data/oracle/python_compat.jsonl: what a jaxlib 0.10.2
user's code sees of `xla_client`, for the parts of the Python package that
stand in for it (python/tests/test_compat.py).

Run with the oracle's venv (jax and jaxlib 0.10.2), from the repository
root:

    ~/.cache/xla-oracle-venv/bin/python tests/data/oracle/python_compat_gen.py

One JSON object a line, by `kind`:

- `primitive_type`: the class of `xla_client.PrimitiveType` (its bases),
  every member `[name, value]`, and `str`, `repr`, `format` of `F32`;
- `xla_element_type`: `Shape(text).xla_element_type()` of a shape: its
  `name`, its `int()`, and whether it equals that int and
  `PrimitiveType.F32`;
- `error`: the class of the exception `xla_client.Shape(text)` raises for
  text that does not parse (its MRO by name, whether it is a
  `RuntimeError` or a `ValueError`) and its message;
- `array_shape`: `Shape.array_shape(type, dims)` for element types given
  as a NumPy dtype, a NumPy scalar type, a `PrimitiveType`, an int, a
  string: `str()` of the result, or the exception's class;
- `set_dynamic_dimension`: `str()` of a shape after
  `shape.set_dynamic_dimension(dimension, is_dynamic)` (in place, as
  jaxlib does it);
- `shape_features`: whether `xla_client.Shape(text)` parses a lone shape
  string, and whether equal shapes hash equally;
- `jaxlib_shape`: a jaxlib `Shape`'s `str()` and `to_serialized_proto()`
  (hex);
- `jaxlib_layout`: a jaxlib `Layout`'s `to_string()`, `minor_to_major()`,
  `tiling()` and `element_size_in_bits()`;
- `jax_layout`: a `jax.experimental.layout.Layout`'s fields
  (`major_to_minor`, `tiling`, `sub_byte_element_size_in_bits`) and the
  jaxlib layout its `_to_xla_layout(numpy.dtype("float32"))` makes (its
  `to_string()`).
"""

import json

import numpy as np
from jax._src.lib import xla_client as xc

PT = xc.PrimitiveType
records = []

records.append(
    {
        "kind": "primitive_type",
        "bases": [c.__name__ for c in PT.__mro__],
        "members": [[m.name, int(m)] for m in PT],
        "str": str(PT.F32),
        "repr": repr(PT.F32),
        "format": f"{PT.F32}",
    }
)

for text in ["f32[2,3]{1,0}", "bf16[8]{0}", "s8[]", "(f32[2], s32[])", "token[]"]:
    t = xc.Shape(text).xla_element_type()
    records.append(
        {
            "kind": "xla_element_type",
            "shape": text,
            "name": t.name,
            "int": int(t),
            "equals_int": t == int(t),
            "equals_f32": t == PT.F32,
            "is_int": isinstance(t, int),
        }
    )

for text in ["f32[2,", "f32[2,3]{2,0}", "pred[2]\n{0"]:
    try:
        xc.Shape(text)
        records.append({"kind": "error", "text": text, "raised": None})
    except Exception as e:  # noqa: BLE001 - the class is what is recorded
        records.append(
            {
                "kind": "error",
                "text": text,
                "raised": type(e).__name__,
                "mro": [c.__name__ for c in type(e).__mro__],
                "is_runtime_error": isinstance(e, RuntimeError),
                "is_value_error": isinstance(e, ValueError),
                "message": str(e),
            }
        )

ELEMENT_TYPES = {
    "np.dtype('float32')": np.dtype("float32"),
    "np.float32": np.float32,
    "np.int8": np.int8,
    "PrimitiveType.F32": PT.F32,
    "PrimitiveType.BF16": PT.BF16,
    "11": 11,
    "'float32'": "float32",
    "'F32'": "F32",
}
for label, value in ELEMENT_TYPES.items():
    record = {"kind": "array_shape", "element_type": label, "dims": [2, 3]}
    try:
        record["result"] = str(xc.Shape.array_shape(value, (2, 3)))
    except Exception as e:  # noqa: BLE001
        record["raised"] = type(e).__name__
    records.append(record)

for text, dimension, is_dynamic in [
    ("f32[2,3]{1,0}", 0, True),
    ("f32[2,3]{1,0}", 1, True),
    ("f32[<=2,3]{1,0}", 0, False),
    ("f32[<=2,<=3]{1,0}", 1, False),
    ("s8[7]{0}", 0, True),
]:
    s = xc.Shape(text)
    s.set_dynamic_dimension(dimension, is_dynamic)
    records.append(
        {
            "kind": "set_dynamic_dimension",
            "shape": text,
            "dimension": dimension,
            "is_dynamic": is_dynamic,
            "result": str(s),
            "is_dynamic_dimension": s.is_dynamic_dimension(dimension),
        }
    )

a, b = xc.Shape("f32[2,3]{1,0}"), xc.Shape("f32[2,3]{1,0}")
records.append(
    {
        "kind": "shape_features",
        "parses_lone_shape": str(a),
        "equal": a == b,
        "hash_equal": hash(a) == hash(b),
    }
)

for text in ["f32[2,3]{0,1}", "bf16[8,128]{1,0:T(8,128)(2,1)}", "(s8[2], token[])", "f32[<=4,3]{1,0}"]:
    s = xc.Shape(text)
    records.append(
        {"kind": "jaxlib_shape", "str": str(s), "hex": s.to_serialized_proto().hex()}
    )

for m2m, tiling, bits in [([1, 0], [], 0), ([0, 1, 2], [(8, 128), (2, 1)], 0), ([0], [(2,)], 4)]:
    l = xc.Layout(m2m, tiling, bits) if tiling else xc.Layout(m2m)
    records.append(
        {
            "kind": "jaxlib_layout",
            "to_string": l.to_string(),
            "minor_to_major": list(l.minor_to_major()),
            "tiling": [list(t) for t in l.tiling()],
            "element_size_in_bits": l.element_size_in_bits(),
        }
    )

from jax.experimental.layout import Layout as JaxLayout  # noqa: E402

for m2m, tiling, bits in [
    ((0, 1), None, 0),
    ((1, 0), ((8, 128), (2, 1)), 0),
    ((1, 0), ((2,),), 4),
    ((0, 1, 2), (), 0),
    ((2, 0, 1), None, 4),
]:
    l = JaxLayout(m2m, tiling=tiling, sub_byte_element_size_in_bits=bits)
    records.append(
        {
            "kind": "jax_layout",
            "major_to_minor": list(l.major_to_minor),
            "tiling": None if l.tiling is None else [list(t) for t in l.tiling],
            "sub_byte_element_size_in_bits": l.sub_byte_element_size_in_bits,
            "xla_layout": l._to_xla_layout(np.dtype("float32")).to_string(),
        }
    )

with open("tests/data/oracle/python_compat.jsonl", "w", encoding="utf-8") as out:
    for r in records:
        out.write(json.dumps(r, sort_keys=True) + "\n")
