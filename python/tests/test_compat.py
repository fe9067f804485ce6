"""Code written for jaxlib's ``xla_client`` keeps working: what jaxlib
0.10.2 does is recorded in ``tests/data/oracle/python_compat.jsonl`` (by
``tests/data/oracle/python_compat_gen.py``), and checked here against this
package."""

import enum
import pathlib
import pickle
import re

import pytest

import xla_shape as xs

from conftest import REPO, records

COMPAT = records("oracle/python_compat.jsonl")


def of_kind(kind):
    return [r for r in COMPAT if r["kind"] == kind]


# Item: xla_element_type() is an int, as jaxlib's IntEnum.


def proto_primitive_types():
    """``enum PrimitiveType`` of the repository's xla_data.proto, as
    ``(name, number)`` in the order it lists them."""
    text = (REPO / "proto" / "xla" / "xla_data.proto").read_text(encoding="utf-8")
    body = text.split("enum PrimitiveType {", 1)[1].split("\n}", 1)[0]
    return re.findall(r"^\s*([A-Z0-9_]+) = (\d+);", body, re.M)


def test_primitive_type_is_xla_data_protos_enum():
    members = [(m.name, m.value) for m in xs.PrimitiveType]
    assert members == [(n, int(v)) for n, v in proto_primitive_types()]


def test_primitive_type_is_an_int_enum_as_jaxlibs():
    (jax,) = of_kind("primitive_type")
    assert {"IntEnum", "int"} <= set(jax["bases"])
    assert issubclass(xs.PrimitiveType, enum.IntEnum)
    # jaxlib's members are all here, with the same numbers.
    ours = {m.name: m.value for m in xs.PrimitiveType}
    for name, value in jax["members"]:
        assert ours[name] == value, name
    f32 = xs.PrimitiveType.F32
    assert (str(f32), repr(f32), f"{f32}") == (jax["str"], jax["repr"], jax["format"])
    assert pickle.loads(pickle.dumps(f32)) is f32


@pytest.mark.parametrize("r", of_kind("xla_element_type"), ids=lambda r: r["shape"])
def test_xla_element_type_equals_ints_as_in_jaxlib(r):
    t = xs.Shape(r["shape"]).xla_element_type()
    assert isinstance(t, int) == r["is_int"]
    assert t.name == r["name"]
    assert int(t) == r["int"]
    assert (t == r["int"]) == r["equals_int"]
    # jaxlib's PrimitiveType.F32 is the int 11 (the record above says so).
    f32 = next(m for m in of_kind("primitive_type")[0]["members"] if m[0] == "F32")[1]
    assert (t == f32) == r["equals_f32"]
    assert t is xs.PrimitiveType(r["int"])


def test_primitive_type_reads_names_and_dtypes():
    T = xs.PrimitiveType
    assert T("F32") is T.F32 and T("bf16") is T.BF16 and T(11) is T.F32
    assert T.F32.lowercase_name() == "f32"
    assert T.OPAQUE_TYPE.lowercase_name() == "opaque"
    for bad in ["f31", 99, 2.5]:
        with pytest.raises(ValueError):
            T(bad)


def test_utilities_return_the_enum():
    from xla_shape import shape_util

    t = shape_util.higher_precision_element_type(xs.Shape("f32[2]"), xs.Shape("f64[2]"))
    assert t is xs.PrimitiveType.F64 and t == 12


# Item: errors are RuntimeErrors, as jaxlib's JaxRuntimeError.


@pytest.mark.parametrize(
    "r", [r for r in of_kind("error") if r["raised"]], ids=lambda r: repr(r["text"])
)
def test_errors_are_caught_as_jaxlibs(r):
    assert r["is_runtime_error"] and "RuntimeError" in r["mro"]
    try:
        xs.Shape(r["text"])
    except RuntimeError as e:
        assert isinstance(e, xs.ParseError)
        # Still a ValueError, as before.
        assert isinstance(e, ValueError)
    else:
        pytest.fail("no error")


def test_every_error_class_is_both():
    for name in ["XlaShapeError", "DecodeError", "ParseError", "BufferSizeError"]:
        cls = getattr(xs, name)
        assert issubclass(cls, RuntimeError) and issubclass(cls, ValueError)
        assert cls.__module__ == "xla_shape"
    with pytest.raises(RuntimeError):
        xs.Shape.from_proto_bytes(b"\xff")


# Item: one column convention.


def test_columns_are_one_based_as_the_clis():
    # "f32[2," is 6 bytes; the error is at the byte after them: offset 6,
    # the 7th column. The CLI writes 7 too (cli/tests, the same input).
    with pytest.raises(xs.ParseError) as e:
        xs.Shape("f32[2,")
    assert (e.value.line, e.value.column, e.value.offset) == (1, 7, 6)
    assert e.value.diagnostics[-1].column == 7
    # On a second line: "{0" then the end, offset 10, column 3.
    with pytest.raises(xs.ParseError) as e:
        xs.Shape("pred[2]\n{0")
    assert (e.value.line, e.value.column, e.value.offset) == (2, 3, 10)
    # scan_hlo: "  p = f32[2]{0} parameter(0)" has the shape at byte 6.
    (found,) = xs.scan_hlo("  p = f32[2]{0} parameter(0)")
    assert (found.line, found.column) == (1, 7)


# Item: element types as numpy.dtype() reads them; jaxlib's and jax's
# shapes and layouts taken as they are.

LABELS = {
    "np.dtype('float32')": lambda np: np.dtype("float32"),
    "np.float32": lambda np: np.float32,
    "np.int8": lambda np: np.int8,
    "PrimitiveType.F32": lambda np: xs.PrimitiveType.F32,
    "PrimitiveType.BF16": lambda np: xs.PrimitiveType.BF16,
    "11": lambda np: 11,
    "'float32'": lambda np: "float32",
    "'F32'": lambda np: "F32",
}


@pytest.mark.parametrize("r", of_kind("array_shape"), ids=lambda r: r["element_type"])
def test_array_shape_takes_what_numpy_dtype_takes(r):
    np = pytest.importorskip("numpy")
    value = LABELS[r["element_type"]](np)
    got = str(xs.Shape.array_shape(value, r["dims"]))
    if "result" in r:
        assert got == r["result"]
    else:
        # jaxlib refuses it (a TypeError: its binding takes a dtype or a
        # PrimitiveType); this package takes anything numpy.dtype() takes
        # (docs/differences.md), as numpy.dtype reads it.
        assert r["raised"] == "TypeError"
        # (or a PrimitiveType name, as this package always took).
        as_type = xs.PrimitiveType[value] if value in xs.PrimitiveType.__members__ else np.dtype(value)
        assert xs.Shape.array_shape(as_type, r["dims"]) == xs.Shape(got)


def test_an_unknown_name_keeps_xlas_message():
    with pytest.raises(xs.InvalidArgumentError, match="f31"):
        xs.Shape.array_shape("f31", [2])


class JaxlibShape:
    """What ``xs.Shape`` sees of a jaxlib ``xla_client.Shape``."""

    def __init__(self, data):
        self.data = data

    def to_serialized_proto(self):
        return self.data


@pytest.mark.parametrize("r", of_kind("jaxlib_shape"), ids=lambda r: r["str"])
def test_shape_takes_a_jaxlib_shape(r):
    s = xs.Shape(JaxlibShape(bytes.fromhex(r["hex"])))
    assert str(s) == r["str"]
    with pytest.raises(TypeError):
        xs.Shape(3)
    with pytest.raises(TypeError):
        xs.Shape(JaxlibShape("not bytes"))


class JaxlibLayout:
    """What ``xs.Layout`` sees of a jaxlib ``xla_client.Layout``."""

    def __init__(self, r):
        self.r = r

    def to_string(self):
        return self.r["to_string"]

    def minor_to_major(self):
        return tuple(self.r["minor_to_major"])


class JaxLayout:
    """What ``xs.Layout`` sees of a ``jax.experimental.layout.Layout``."""

    def __init__(self, r):
        self.major_to_minor = tuple(r["major_to_minor"])
        self.tiling = None if r["tiling"] is None else tuple(map(tuple, r["tiling"]))
        self.sub_byte_element_size_in_bits = r["sub_byte_element_size_in_bits"]


class JaxFormat:
    """What ``xs.Layout`` sees of a jax ``Format``."""

    def __init__(self, layout):
        self.layout = layout
        self.sharding = None


@pytest.mark.parametrize("r", of_kind("jaxlib_layout"), ids=lambda r: r["to_string"])
def test_layout_takes_a_jaxlib_layout(r):
    layout = xs.Layout(JaxlibLayout(r))
    assert str(layout) == r["to_string"]
    assert list(layout.minor_to_major()) == r["minor_to_major"]
    assert [list(t) for t in layout.tiling()] == r["tiling"]
    assert layout.element_size_in_bits() == r["element_size_in_bits"]


@pytest.mark.parametrize("r", of_kind("jax_layout"), ids=lambda r: r["xla_layout"])
def test_layout_takes_a_jax_layout_and_format(r):
    # What jax's own _to_xla_layout makes of it (for a dtype of 8 bits or
    # more).
    assert str(xs.Layout(JaxLayout(r))) == r["xla_layout"]
    assert str(xs.Layout(JaxFormat(JaxLayout(r)))) == r["xla_layout"]
    with pytest.raises(TypeError):
        xs.Layout(JaxLayout(r), [(2,)])


def test_a_format_without_a_concrete_layout_is_refused():
    with pytest.raises(TypeError, match="not a concrete layout"):
        xs.Layout(JaxFormat(None))


# Item: set_dynamic_dimension, as jaxlib has it (returning the new shape).


@pytest.mark.parametrize(
    "r", of_kind("set_dynamic_dimension"), ids=lambda r: f'{r["shape"]}-{r["dimension"]}'
)
def test_set_dynamic_dimension_as_jaxlib(r):
    s = xs.Shape(r["shape"])
    t = s.set_dynamic_dimension(r["dimension"], r["is_dynamic"])
    assert str(t) == r["result"]
    assert t.is_dynamic_dimension(r["dimension"]) == r["is_dynamic_dimension"]
    assert str(s) == r["shape"]  # immutable: the new shape is returned


def test_set_dynamic_dimension_refuses_what_jaxlib_aborts_on():
    for shape, dim in [("f32[2]", 1), ("f32[2]", -1), ("(f32[2])", 0)]:
        with pytest.raises(xs.InvalidArgumentError):
            xs.Shape(shape).set_dynamic_dimension(dim, True)
    with pytest.raises(xs.InvalidArgumentError):
        xs.Shape("f32[?]").set_dynamic_dimension(0, False)


# Item: relayout takes any contiguous buffer and refuses a wrong dtype.


def test_relayout_takes_a_fortran_ordered_array():
    np = pytest.importorskip("numpy")
    a = np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3))
    # A Fortran-ordered (2, 3) array lies in memory as f32[2,3]{0,1}
    # (dimension 0 minor): read as that, it copies to the C-ordered array.
    out = xs.relayout(a, xs.Shape("f32[2,3]{0,1}"), xs.Shape("f32[2,3]{1,0}"))
    assert out.shape == (2, 3) and np.array_equal(out, a)
    # And out= may be Fortran-ordered too.
    back = np.zeros((2, 3), dtype=np.float32, order="F")
    xs.relayout(out, xs.Shape("f32[2,3]{1,0}"), xs.Shape("f32[2,3]{0,1}"), out=back)
    assert np.array_equal(back, a)


def test_relayout_refuses_a_dtype_that_is_not_the_element_type():
    np = pytest.importorskip("numpy")
    # 16 bytes either way: f64[2] holds what f32[4] needs, but not its type.
    a = np.zeros(2, dtype=np.float64)
    s = xs.Shape("f32[4]{0}")
    with pytest.raises(xs.InvalidArgumentError, match="float64"):
        xs.relayout(a, s, s)
    with pytest.raises(xs.InvalidArgumentError, match="out has dtype"):
        xs.relayout(np.zeros(4, np.float32), s, s, out=np.zeros(2, np.float64))
    # Raw bytes (uint8) and untyped buffers are taken as they are.
    assert xs.relayout(a.view(np.uint8), s, s).dtype == np.float32
    assert xs.relayout(bytes(16), s, s).dtype == np.float32


def test_relayout_says_what_a_strided_view_needs():
    np = pytest.importorskip("numpy")
    with pytest.raises(xs.InvalidArgumentError, match="ascontiguousarray"):
        xs.relayout(np.zeros(8, np.uint8)[::2], xs.Shape("u8[4]"), xs.Shape("u8[4]"))


# Item: the docs say what jaxlib does, as the oracle recorded it.


def test_readme_says_what_jaxlib_can_do():
    (f,) = of_kind("shape_features")
    readme = (REPO / "python" / "README.md").read_text(encoding="utf-8")
    cannot = readme.split("jaxlib cannot ", 1)[1].split("(", 1)[0]
    # jaxlib parses a lone shape string and hashes equal shapes equally.
    assert f["parses_lone_shape"] == "f32[2,3]{1,0}" and "parse" not in cannot
    assert f["hash_equal"] and "hash" not in cannot


def test_readme_says_which_json_is_message_to_json():
    readme = (REPO / "python" / "README.md").read_text(encoding="utf-8")
    row = next(l for l in readme.splitlines() if l.startswith("| `to_json("))
    # Only the pretty form is MessageToJson's (indent 2); the compact one
    # has no spaces, which MessageToJson(indent=None) writes.
    assert "pretty=True" in row.split("MessageToJson")[0]
    s = xs.Shape("f32[2]{0}")
    assert ", " not in s.to_json() and ": " not in s.to_json()
    assert s.to_json(pretty=True).startswith('{\n  "elementType": "F32"')


# Item: the float6 types through ml_dtypes (jaxlib 0.10.2 has no dtype for
# them; jax lowers ml_dtypes' float6_e2m3fn to F6E2M3FN).


@pytest.mark.parametrize("t, name", [("f6e2m3fn", "float6_e2m3fn"), ("f6e3m2fn", "float6_e3m2fn")])
def test_float6_through_ml_dtypes(t, name):
    np = pytest.importorskip("numpy")
    ml_dtypes = pytest.importorskip("ml_dtypes")
    dtype = np.dtype(getattr(ml_dtypes, name))
    s = xs.Shape(f"{t}[2,3]")
    assert s.numpy_dtype() == dtype and s.element_type() == dtype
    assert xs.Shape.array_shape(dtype, [2, 3]) == s
    assert xs.Shape.array_shape(name, [2, 3]) == s
    assert xs.PrimitiveType(dtype).lowercase_name() == t
    # A relayout of float6 data gives an array of that dtype (one byte an
    # element, as ml_dtypes stores them and XLA lays out F6 without E(6)).
    a = np.arange(6, dtype=np.float32).astype(dtype).reshape(2, 3)
    out = xs.relayout(a, xs.Shape(f"{t}[2,3]{{1,0}}"), xs.Shape(f"{t}[2,3]{{0,1}}"))
    assert out.dtype == dtype
    assert np.array_equal(out.astype(np.float32), a.T.astype(np.float32))


# Item: installing brings NumPy; the wheel is one abi3 build.


def test_installing_brings_numpy():
    from importlib.metadata import requires

    unconditional = [r for r in requires("xla-shape") or [] if "extra ==" not in r]
    assert any(re.match(r"numpy\b", r) for r in unconditional), unconditional


def test_the_extension_is_built_for_the_stable_abi():
    # One wheel for every CPython from 3.9 (pyo3's abi3-py39); the built
    # module's file name says so (`_xla_shape.abi3.so`).
    manifest = (REPO / "python" / "Cargo.toml").read_text(encoding="utf-8")
    assert re.search(r'^pyo3 = .*"abi3-py39"', manifest, re.M)
    from xla_shape import _xla_shape

    assert ".abi3." in pathlib.Path(_xla_shape.__file__).name
