"""The stubs against the runtime module (mypy's stubtest) and the Python
examples of the READMEs against the stubs (``mypy --strict``). Skipped
where mypy is not installed; CI installs it."""

import pathlib
import re
import subprocess
import sys

import pytest

api = pytest.importorskip("mypy.api")

REPO = pathlib.Path(__file__).resolve().parents[2]
READMES = [REPO / "README.md", REPO / "python" / "README.md"]


def examples():
    """Every ```python block of the READMEs, as (name, code)."""
    out = []
    for path in READMES:
        blocks = re.findall(r"```python\n(.*?)```", path.read_text(encoding="utf-8"), re.S)
        where = "_".join(path.relative_to(REPO).parent.parts) or "root"
        out += [(f"{where}_{path.stem}_{i}", b) for i, b in enumerate(blocks)]
    return out


def test_the_readmes_have_python_examples():
    assert examples()


def test_readme_examples_pass_mypy_strict(tmp_path):
    files = []
    for name, code in examples():
        f = tmp_path / f"{name.lower()}.py"
        f.write_text(code, encoding="utf-8")
        files.append(str(f))
    stdout, stderr, status = api.run(["--strict", "--no-incremental", *files])
    assert status == 0, stdout + stderr


def test_stub_matches_the_runtime_module():
    run = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "xla_shape"],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout + run.stderr
