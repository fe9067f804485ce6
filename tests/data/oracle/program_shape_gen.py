"""Regenerates tests/data/oracle/program_shape.jsonl: what XLA's HLO parser
(jaxlib 0.10.2, `xla_client.hlo.hlo_module_from_text`) makes of program
shapes in the two forms it reads them in.

Run with the XLA oracle's venv, from the repository root:

    ~/.cache/xla-oracle-venv/bin/python tests/data/oracle/program_shape_gen.py

XLA has no parser for a program shape on its own, so each input is put in a
module where XLA reads one:
- "layout": as the value of `entry_computation_layout={...}`, alone on the
  module's second line (XLA's `ParseComputationLayout`);
- "signature": as the entry computation's signature, alone on the module's
  third line (XLA's `ParseParamListToShape`).
The input thus starts at column 1 of its own line, so XLA's
`was parsing L:C:` line gives the column of the error within the input.

Records, one per line: {"form": "layout" | "signature", "input": TEXT,
"line": L, "printed": TEXT | null, "error": MSG | null}: `printed` is XLA's
reprint (the module's first line, or its ENTRY line), `error` XLA's whole
message.
"""

import json

from jax._src.lib import xla_client as xc

BODY = "{\n  ROOT p = f32[2]{0} parameter(0)\n}\n"

INPUTS = [
    ("layout", "(f32[2]{0})->f32[2]{0}"),
    ("layout", "(f32[2]{0},)->f32[2]{0}"),
    ("layout", "(f32[2]{0} s32[])->f32[2]{0}"),
    ("layout", "f32[2]{0}->f32[2]{0}"),
    ("layout", "(f32[2]{0})f32[2]{0}"),
    ("signature", "(p: f32[2]) -> f32[2]"),
    ("signature", "(p f32[2]) -> f32[2]"),
    ("signature", "(%p: f32[2]) -> f32[2]"),
    ("signature", "(p: f32[2],) -> f32[2]"),
    ("signature", "(p: f32[2]) f32[2]"),
    ("signature", "(p: f32[2] -> f32[2]"),
    ("signature", "(p: f32[2], 3) -> f32[2]"),
]


def ask(form, text):
    if form == "layout":
        module = "HloModule m, entry_computation_layout={\n" + text + "\n}\nENTRY e " + BODY
        line = 2
    else:
        module = "HloModule m\nENTRY e\n" + text + "\n" + BODY
        line = 3
    record = {"form": form, "input": text, "line": line, "printed": None, "error": None}
    try:
        printed = xc.hlo.hlo_module_from_text(module).to_string().splitlines()
        pick = (lambda l: l.startswith("HloModule")) if form == "layout" else (
            lambda l: l.startswith("ENTRY"))
        record["printed"] = next(l for l in printed if pick(l))
    except Exception as e:  # XLA's InvalidArgument
        record["error"] = str(e)
    return record


def main():
    with open("tests/data/oracle/program_shape.jsonl", "w") as out:
        for form, text in INPUTS:
            out.write(json.dumps(ask(form, text), sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
