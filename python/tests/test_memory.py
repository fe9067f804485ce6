"""``memory_analysis`` against XLA: the programs of ``tests/data/memory``
(jax on the CPU, jaxlib 0.10.2; ``tests/data/oracle/memory_gen.py``), with
``compiled.memory_analysis()`` recorded in ``memory.jsonl``."""

import pytest

import xla_shape as xs
from conftest import DATA, records

MEMORY = DATA / "memory"


def stats(name):
    (r,) = [r for r in records("memory/memory.jsonl") if r["name"] == name]
    return r["memory_analysis"]


def varint(data, at):
    value, shift = 0, 0
    while True:
        b = data[at]
        at += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return value, at


def fields(data):
    """The length-delimited top-level fields of a message, by number."""
    out, at = {}, 0
    while at < len(data):
        key, at = varint(data, at)
        assert key & 7 == 2
        length, at = varint(data, at)
        out.setdefault(key >> 3, []).append(data[at : at + length])
        at += length
    return out


@pytest.mark.parametrize("name", ["while_loop", "donate_inplace", "attention", "mlp3"])
def test_an_hlo_proto_gives_xlas_own_figures(name):
    m = xs.memory_analysis((MEMORY / name / "hlo.pb").read_bytes())
    xla = stats(name)
    assert m.source == "buffer_assignment"
    assert (m.arguments, m.outputs, m.aliased, m.temporaries) == (
        xla["argument_size_in_bytes"],
        xla["output_size_in_bytes"],
        xla["alias_size_in_bytes"],
        xla["temp_size_in_bytes"],
    )
    assert m.peak == m.arguments + m.outputs + m.temporaries - m.aliased
    assert m.allocations_total is not None
    assert m.host == (0, 0, 0, 0)
    assert m.peak_buffers and all(
        a.bytes >= b.bytes for a, b in zip(m.peak_buffers, m.peak_buffers[1:])
    )
    assert sum(k[3] for k in m.by_kind) == m.allocations_total


class FakeCompiled:
    """What ``memory_of`` reads of a jax ``Compiled``: the optimized module
    and the buffer assignment, here the two fields of a dumped HloProto
    (``hlo_module`` = 1, ``buffer_assignment`` = 3)."""

    def __init__(self, hlo_proto):
        parts = fields(hlo_proto)
        self.module, self.assignment = parts[1][0], parts[3][0]

    def runtime_executable(self):
        outer = self

        class Executable:
            def hlo_modules(self):
                class Module:
                    def as_serialized_hlo_module_proto(self):
                        return outer.module

                return [Module()]

        return Executable()

    def memory_analysis(self):
        class Stats:
            serialized_buffer_assignment_proto = self.assignment

        return Stats()


def test_a_compiled_programs_module_and_buffer_assignment_are_analysed_exactly():
    data = (MEMORY / "mlp_train_step" / "hlo.pb").read_bytes()
    m = xs.memory_of(FakeCompiled(data))
    assert m.source == "buffer_assignment"
    assert m.temporaries == stats("mlp_train_step")["temp_size_in_bytes"]
    parts = fields(data)
    assert xs.memory_analysis(parts[1][0], parts[3][0]).peak == m.peak


def test_module_text_is_estimated():
    text = (MEMORY / "while_loop" / "opt.txt").read_text()
    m = xs.memory_analysis(text)
    assert m.source == "estimate"
    assert m.allocations_total is None
    assert m.temporaries == stats("while_loop")["temp_size_in_bytes"]
    assert m.peak_step is not None and m.timeline[m.peak_step][1] <= m.peak
    # Forced, on a module that carries XLA's assignment too.
    data = (MEMORY / "while_loop" / "hlo.pb").read_bytes()
    assert xs.memory_analysis(data, estimate=True).source == "estimate"
    assert xs.memory_analysis(text, alignment=1).temporaries <= m.temporaries


def test_bad_input_raises():
    with pytest.raises(xs.DecodeError, match="not an HLO module"):
        xs.memory_analysis((MEMORY / "add_small" / "memory-usage-report.pb").read_bytes())
    with pytest.raises(xs.ParseError):
        xs.memory_analysis("HloModule m\nENTRY e {\n  ROOT n = f32[2]{0} negate(nope)\n}\n")
    with pytest.raises(xs.ParseError):
        xs.memory_analysis("not a module")
    with pytest.raises(TypeError):
        xs.memory_analysis(42)  # type: ignore[arg-type]
    with pytest.raises(xs.InvalidArgumentError):
        xs.memory_analysis("HloModule m\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n", alignment=0)
    with pytest.raises(xs.DecodeError):
        xs.memory_analysis((MEMORY / "add_small" / "opt.txt").read_text(), b"\xff\xff")


# Per device: jax programs with shardings on eight CPU devices
# (``tests/data/memory_devices/``, ``tests/data/oracle/memory_devices_gen.py``),
# beside ``compiled.memory_analysis()``, whose figures are one device's.

DEVICES = DATA / "memory_devices"


@pytest.mark.parametrize(
    "name,ext",
    [("sdy_in_out", "mlir"), ("gspmd_two_in_two_out", "mlirbc"), ("sdy_donated", "hlo.txt")],
)
def test_per_device_bytes_are_xlas_after_partitioning(name, ext):
    (r,) = [r for r in records("memory_devices/devices.jsonl") if r["name"] == name]
    data = (DEVICES / f"{name}.{ext}").read_bytes()
    m = xs.memory_analysis(data)
    assert m.source == "estimate"
    assert len(m.devices) == r["num_devices"]
    for i, (device, arguments, outputs) in enumerate(m.devices):
        assert device == i
        assert (arguments, outputs) == (r["argument_size_in_bytes"], r["output_size_in_bytes"])
    assert m.device_max == (0, r["argument_size_in_bytes"], r["output_size_in_bytes"])
    # StableHLO: the operations are not simulated, temporaries not counted.
    assert m.temporaries_counted == (ext == "hlo.txt")


def test_stablehlo_text_and_its_shardings():
    text = (DEVICES / "sdy_in_out.mlir").read_text()
    m = xs.memory_analysis(text)
    assert not m.temporaries_counted and m.temporaries == 0
    assert m.arguments == 64 * 32 * 4
    sig = xs.stablehlo.signature(text)
    assert str(sig.parameters[0].hlo_sharding) == "{devices=[4,2]<=[8]}"
    with pytest.raises(xs.XlaShapeError):
        xs.memory_analysis(text, b"")


def test_without_shardings_there_are_no_devices():
    m = xs.memory_analysis("HloModule m\nENTRY e {\n  ROOT p = f32[4]{0} parameter(0)\n}\n")
    assert m.devices == [] and m.device_max is None
