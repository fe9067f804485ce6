"""The utility submodules against the Rust modules they bind: every
public function of ``xla_shape::shape_util``, ``layout_util`` and
``index_util`` (read from the crate's sources) is bound under the same
name, unless it takes a Rust callback to visit subshapes or indices
(``for_each_*``) or hands out a mutable reference (``*_mutable_*``): no
Python counterpart, Python loops and returns new values. A new Rust
function fails this test until it is bound."""

import pathlib
import re

import pytest

import xla_shape as xs

REPO = pathlib.Path(__file__).resolve().parents[2]

SOURCES = {
    "shape_util": sorted((REPO / "src" / "shape_util").glob("*.rs")),
    "layout_util": [REPO / "src" / "layout_util.rs"],
    "index_util": [REPO / "src" / "index_util.rs"],
}


def rust_functions(module):
    names = set()
    for path in SOURCES[module]:
        names.update(re.findall(r"^pub fn (\w+)", path.read_text(encoding="utf-8"), re.M))
    return names


def takes_callback_or_mutates(name):
    return name.startswith("for_each") or "mutable" in name


@pytest.mark.parametrize("module", sorted(SOURCES))
def test_bindings_follow_the_rust_module(module):
    rust = rust_functions(module)
    bound = set(getattr(xs, module).__all__)
    assert bound <= rust, sorted(bound - rust)
    unbound = {n for n in rust - bound if not takes_callback_or_mutates(n)}
    assert not unbound, sorted(unbound)
