"""Regenerates tests/data/oracle/model_non_array.jsonl: what jaxlib 0.10.2's
`xla_client.Shape` does when asked for `rank()` or `dimensions()` of a
non-array shape. Each call runs in its own subprocess, because jaxlib
aborts the process (a CHECK failure in xla/shape.h).

Run with the oracle's venv, from the repository root:

    ~/.cache/xla-oracle-venv/bin/python tests/data/oracle/model_non_array_gen.py

One line per (shape, method): the shape's text, the method, `status`
(`"ok"` with `result`, or `"abort"` with the process's exit signal and the
`Check failed` line of its log).
"""

import json
import subprocess
import sys

SHAPES = ["(f32[2,3], s32[])", "()", "token[]"]
METHODS = ["rank", "dimensions"]

CALL = """
import sys
from jax._src.lib import xla_client
print(repr(xla_client.Shape(sys.argv[1]).{method}()))
"""

with open("tests/data/oracle/model_non_array.jsonl", "w") as out:
    for text in SHAPES:
        for method in METHODS:
            run = subprocess.run(
                [sys.executable, "-c", CALL.format(method=method), text],
                capture_output=True,
                text=True,
            )
            record = {"shape": text, "method": method}
            if run.returncode == 0:
                record.update(status="ok", result=run.stdout.strip())
            else:
                check = [l for l in run.stderr.splitlines() if "Check failed" in l]
                record.update(
                    status="abort",
                    returncode=run.returncode,
                    message=check[0].split("] ", 1)[-1] if check else "",
                )
            out.write(json.dumps(record) + "\n")
