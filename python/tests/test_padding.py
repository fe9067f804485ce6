"""``explain_padding`` and ``padding`` against XLA's out-of-memory
listings as users posted them in public threads (``tests/data/listings``,
each file named after its thread; see tests/data/README.md): every figure
a listing prints comes out the same."""

import pytest

import xla_shape as xs
from conftest import DATA

LISTINGS = DATA / "listings"

# The listings, the tiles XLA:TPU used for those printed without them, and
# how many entries each has.
CASES = [
    ("jax-ml_jax_7502.txt", [], 1),
    ("tensorflow_tensorflow_30803.txt", ["f32=(8,128)"], 2),
    ("pytorch_xla_6674.txt", [], 2),
    ("pytorch_xla_7942.txt", ["(8,128)"], 2),
    ("DifferentiableUniverseInitiative_flowpm_27.txt", [], 1),
    ("sokrypton_ColabFold_62.txt", [], 1),
    ("google_trax_525.txt", [], 2),
    ("pytorch_xla_1965.txt", [], 2),
    ("salesforce_ctrl_38.txt", [], 1),
    ("erfanzar_EasyDeL_166.txt", [], 1),
    ("tensorflow_tensor2tensor_1382.txt", [], 1),
    ("pytorch_xla_3041.txt", [], 2),
    ("google_trax_1343.txt", [], 2),
    ("jax-ml_jax_13428.txt", [], 2),
    ("google-research_t5x_870.txt", [], 3),
    ("alpa-projects_alpa_759.txt", [], 1),
]


@pytest.mark.parametrize("name,tiles,count", CASES)
def test_every_figure_of_a_listing_comes_out_the_same(name, tiles, count):
    entries = xs.padding((LISTINGS / name).read_text(encoding="utf-8"), tiles=tiles)
    assert len(entries) == count
    for e in entries:
        assert e.listed is not None and e.listed["line"] >= 1
        if e.shape is None:
            # An allocation without a shape (register spill slots).
            assert e.padding is None and e.agrees is None
            continue
        assert e.error is None
        assert e.padding is not None
        assert e.agrees is True, (e.shape, e.check)
        for key, (printed, ours, agrees) in e.check.items():
            assert agrees, (key, printed, ours)
            assert printed == e.listed[key]
        assert e.padding.padded >= e.padding.unpadded


def test_a_listing_without_tiles_differs_until_they_are_given():
    text = (LISTINGS / "tensorflow_tensorflow_30803.txt").read_text(encoding="utf-8")
    untiled = xs.padding(text)
    assert untiled[0].agrees is False
    assert untiled[0].padding is not None and not untiled[0].padding.tiles_assumed
    tiled = xs.padding(text, tiles=["f32=(8,128)"])
    assert tiled[0].agrees is True
    assert tiled[0].padding is not None and tiled[0].padding.tiles_assumed
    assert "T(8,128)" in str(tiled[0].padding.shape)


def test_a_shape_is_explained():
    # jax-ml/jax#7502's shape. By hand: 2048*128*128*4 s32 elements of 4
    # bytes are 512 MiB; the tile (8,128) rounds the minor dimension, 4,
    # up to 128: 32 times as much, 16 GiB.
    text = "s32[2048,1,128,128,4]{4,3,2,0,1:T(8,128)}"
    for shape in (text, xs.Shape(text)):
        p = xs.explain_padding(shape)
        assert (p.unpadded, p.padded, p.expansion) == (512 << 20, 16 << 30, 32.0)
        assert p.shape == xs.Shape(text) and not p.tiles_assumed
        (cause,) = p.causes
        assert (cause.kind, cause.part, cause.dimensions) == ("rounding", "dimension", [4])
        assert (cause.tile, cause.bound, cause.size, cause.rounded) == ("(8,128)", 128, 4, 128)
        assert cause.factor == 32.0
        assert str(cause) == "dimension 4 of 4 rounded up to 128 by tile (8,128): 32.0x"
        best = p.suggestions[0]
        assert (best.change, best.minor_to_major) == ("order", [3, 2, 4, 0, 1])
        assert best.transposed == xs.Shape("s32[1,2048,4,128,128]{4,3,2,1,0:T(8,128)}")
        # With the two dimensions of 128 innermost nothing pads.
        assert (best.padded, best.unpadded, best.expansion) == (512 << 20, 512 << 20, 1.0)
        assert str(best).startswith("minor_to_major {3,2,4,0,1}")
        sizes = [s for s in p.suggestions if s.change == "size"]
        assert [(s.dimension, s.size) for s in sizes] == [(4, 128)]
    # padding() of a shape string: one entry, nothing listed.
    (entry,) = xs.padding(text)
    assert entry.shape == text and entry.listed is None and entry.agrees is None
    assert entry.check == {}
    assert entry.padding is not None and entry.padding.padded == 16 << 30


def test_element_size_and_assumed_tiles():
    # google/trax#525: pred in 32 bits, 4x.
    p = xs.explain_padding("pred[64,512,2048]{2,1,0:T(8,128)E(32)}")
    (cause,) = p.causes
    assert (cause.kind, cause.bits, cause.type_bits, cause.factor) == ("element_size", 32, 8, 4.0)
    # f32[3,5] with (2,2) assumed: 4x6 slots of 4 bytes for 15 elements.
    p = xs.explain_padding("f32[3,5]", tiles=["(2,2)"])
    assert (p.unpadded, p.padded, p.tiles_assumed) == (60, 96, True)
    assert [c.dimensions for c in p.causes] == [[0], [1]]


def test_a_cut_shape_is_an_error_in_its_place():
    log = (
        "Largest program allocations in hbm:\n"
        "1. Size: 96B\n   Shape: f32[3,5]{1,0:T(2,2)}\n   ==========\n"
        "2. Size: 1.00G\n   Shape: f32[3,5]{1,0:T(2,2...\n   ==========\n"
    )
    first, second = xs.padding(log)
    assert first.padding is not None and first.agrees is True
    assert second.padding is None
    assert isinstance(second.error, xs.XlaShapeError)
    assert "cut the shape short" in str(second.error)


def test_bad_input_raises():
    with pytest.raises(xs.ParseError):
        xs.explain_padding("f32[2,")
    with pytest.raises(xs.ParseError):
        xs.padding("f32[2,")
    with pytest.raises(xs.InvalidArgumentError, match="neither a shape nor a log"):
        xs.padding("one line\nand another\n")
    with pytest.raises(xs.InvalidArgumentError):
        xs.explain_padding("f32[2]", tiles=["(8,x)"])
    with pytest.raises(TypeError):
        xs.explain_padding(3)  # type: ignore[arg-type]
