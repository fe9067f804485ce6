"""StableHLO text against jax and XLA (jaxlib 0.10.2): the golden programs of
``tests/data/stablehlo`` (see tests/data/README.md)."""

import pytest

import xla_shape as xs
from xla_shape import stablehlo

from conftest import DATA, records

PROGRAMS = records("stablehlo/programs.jsonl")


def program(name):
    return (DATA / "stablehlo" / "programs" / name).read_text(encoding="utf-8")


@pytest.mark.parametrize("r", PROGRAMS, ids=[r["name"] for r in PROGRAMS])
def test_signature_is_xlas_conversion(r):
    for suffix in (".mlir", ".debug.mlir"):
        sig = stablehlo.signature(program(r["name"] + suffix))
        assert sig.entry_computation_layout == r["entry_computation_layout"]
        assert [str(p.shape) for p in sig.parameters] == r["parameters"]
        assert str(sig.program_shape().result_shape()) == r["result"]


def test_signature_details():
    sig = stablehlo.signature(program("donate_second_output.debug.mlir"))
    assert [p.name for p in sig.parameters] == ["x", "y"]
    assert sig.input_output_alias == [([1], 1)]
    assert sig.buffer_donors == []
    assert sig.parameters[0].type == "tensor<2x3xf32>"
    sig = stablehlo.signature(program("memory_out_pinned_host.mlir"))
    r = sig.results[0]
    assert (r.memory_kind, r.compile_memory_space, r.compile_layout) == ("pinned_host", 5, "default")
    assert sig.compile_entry_computation_layout == "(f32[8,4]{1,0})->f32[8,4]{1,0:S(5)}"
    assert any("S(5)" in n for n in sig.notes)
    sig = stablehlo.signature(program("transpose.mlir"))
    assert sig.results[0].layout_from_body
    assert sig.num_partitions == 1


def test_scan_gives_every_value_its_shape():
    values = stablehlo.scan(program("transpose_cond.debug.mlir"))
    first = values[0]
    assert (first.kind, first.name, first.line, first.column) == ("parameter", "%arg0", 3, 25)
    assert first.location_name == "x"
    assert first.shape == xs.Shape("f32[2,3]{1,0}")
    ops = [v for v in values if v.kind == "operation"]
    assert any(v.operation == "stablehlo.transpose" for v in ops)
    assert all(v.shape is not None and v.error is None for v in values)
    bad = stablehlo.scan("func.func @main(%a: tensor<2xtf32>) {\n  return\n}\n")
    assert bad[0].shape is None
    assert isinstance(bad[0].error, xs.InvalidShapeError)


def test_types_both_ways():
    for r in records("stablehlo/types.jsonl"):
        shape = xs.Shape(r["shape"])
        assert stablehlo.shape_to_type(shape) == r["type"]
    assert stablehlo.type_to_shape("tensor<?x3xf32, #stablehlo.bounds<4, ?>>") == xs.Shape("f32[<=4,3]")
    with pytest.raises(xs.InvalidShapeError):
        stablehlo.type_to_shape("tensor<2xtf32>")
    with pytest.raises(xs.ParseError) as e:
        stablehlo.type_to_shape("tensor<2xfoo>")
    assert (e.value.line, e.value.column) == (1, 9)
    assert stablehlo.looks_like_mlir(program("transpose.mlir"))
    assert not stablehlo.looks_like_mlir("HloModule m")


def test_errors_have_their_place():
    with pytest.raises(xs.ParseError) as e:
        stablehlo.signature("module {\n  func.func @main(%a: tensor<2xfoo>) {\n  }\n}\n")
    assert (e.value.line, e.value.column) == (2, 31)
    with pytest.raises(xs.InvalidArgumentError):
        stablehlo.signature("func.func @f() {\n  return\n}\n")


EXPORTS = records("stablehlo/bytecode/exports.jsonl")


def exported(name, ext):
    return (DATA / "stablehlo" / "bytecode" / "exports" / f"{name}.{ext}").read_bytes()


@pytest.mark.parametrize("r", EXPORTS, ids=[r["name"] for r in EXPORTS])
def test_bytecode_and_serialized_exports(r):
    """jax.export's bytes (jaxlib 0.10.2): the module's signature is XLA's
    conversion of it, and the serialization reads as jax reads it."""
    bytecode, serialized = exported(r["name"], "mlirbc"), exported(r["name"], "bin")
    assert stablehlo.is_mlir_bytecode(bytecode) and not stablehlo.is_jax_export(bytecode)
    assert stablehlo.is_jax_export(serialized) and not stablehlo.is_mlir_bytecode(serialized)
    e = stablehlo.read_export(serialized)
    assert e.function_name == r["fun_name"]
    assert e.in_avals == r["in_avals"] and e.out_avals == r["out_avals"]
    assert e.in_shardings == r["in_shardings"] and e.out_shardings == r["out_shardings"]
    assert e.nr_devices == r["nr_devices"] and e.platforms == r["platforms"]
    assert e.module_kept_var_idx == r["module_kept_var_idx"]
    assert e.uses_global_constants == r["uses_global_constants"]
    assert e.calling_convention_version == r["calling_convention_version"]
    assert e.mlir_module_serialized == bytecode
    if r.get("entry_computation_layout") is None:
        return
    for source in (bytecode, serialized):
        sig = stablehlo.signature(source)
        assert sig.entry_computation_layout == r["entry_computation_layout"]
    assert e.signature().entry_computation_layout == r["entry_computation_layout"]
    values = stablehlo.scan(bytecode)
    assert values and all(v.line == 0 and v.offset > 0 for v in values)
    assert [(v.kind, v.name, v.type) for v in stablehlo.scan(serialized)] == [
        (v.kind, v.name, v.type) for v in values
    ]


def test_bytes_of_text_read_as_the_text():
    text = program("transpose_cond.debug.mlir")
    assert stablehlo.signature(text.encode()).entry_computation_layout == (
        stablehlo.signature(text).entry_computation_layout
    )
    assert [(v.line, v.column, v.type) for v in stablehlo.scan(text.encode())] == [
        (v.line, v.column, v.type) for v in stablehlo.scan(text)
    ]


def test_bytes_that_are_not_stablehlo():
    with pytest.raises(xs.XlaShapeError) as e:
        stablehlo.signature(b"ML\xefR\x06StableHLO\x00\x01")
    assert "MLIR bytecode: byte" in str(e.value)
    with pytest.raises(xs.XlaShapeError):
        stablehlo.read_export(b"\x00\x01")
    with pytest.raises(xs.XlaShapeError):
        stablehlo.signature(b"\xff\xfe")
    with pytest.raises(TypeError):
        stablehlo.signature(3)  # type: ignore[arg-type]
