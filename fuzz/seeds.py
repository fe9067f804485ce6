#!/usr/bin/env python3
"""Writes the seed corpus of every fuzz target from the golden data.

    python3 fuzz/seeds.py        (from the repository root)

Each seed is a file named by the SHA-1 of its content (as libFuzzer names
corpus files) under fuzz/corpus/<target>/. Inputs are deduplicated and each
target keeps at most MAX_SEEDS of them, taken in the order the sources are
listed (the most varied first). Existing seeds are left in place, so that
the committed corpus only grows by what this script adds. Needs no package
outside Python's standard library; nothing in the build or the tests runs
it.
"""

import hashlib
import json
import os
import random
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "tests", "data")
CORPUS = os.path.join(ROOT, "fuzz", "corpus")
MAX_SEEDS = 400


def records(name):
    with open(os.path.join(DATA, name), encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def layout_of(shape_string):
    """The `{...}` layouts written in a shape string."""
    return re.findall(r"\{[^{}]*(?:\{[^{}]*\}[^{}]*)*\}", shape_string)


def shape_strings():
    out = []
    for r in records("oracle/text_parse.jsonl"):
        if r["input"].get("kind") == "text":
            out.append(r["input"]["text"])
    for r in records("invalid.jsonl"):
        if r["input"].get("kind") == "text":
            out.append(r["input"]["text"])
    for r in records("shapes.jsonl"):
        if r["input"].get("kind") == "text":
            out.append(r["input"]["text"])
        for key in ("xla_str", "reparse_str"):
            if r.get(key):
                out.append(r[key])
        if r.get("facts", {}).get("xla_str_no_layout"):
            out.append(r["facts"]["xla_str_no_layout"])
    return out


def layout_strings():
    out = [r["xla_str"] for r in records("layouts.jsonl") if r.get("xla_str")]
    for r in records("shapes.jsonl"):
        layout = r.get("facts", {}).get("layout") or {}
        if layout.get("to_string"):
            out.append(layout["to_string"])
    for text in shape_strings():
        out.extend(layout_of(text))
    return out


def json_inputs():
    out = [r["json"] for r in records("oracle/formats_json_parse.jsonl")]
    for name in ("shapes.jsonl", "layouts.jsonl"):
        for r in records(name):
            for key in ("json", "json_preserving_names"):
                if r.get(key):
                    out.append(r[key])
            views = r.get("input_py_views") or {}
            for key in ("json", "json_preserving_names"):
                if views.get(key):
                    out.append(views[key])
    return out


def text_format_inputs():
    out = [r["text"] for r in records("oracle/formats_text_parse.jsonl")]
    for name in ("shapes.jsonl", "layouts.jsonl"):
        for r in records(name):
            if r.get("text_format"):
                out.append(r["text_format"])
            views = r.get("input_py_views") or {}
            if views.get("text_format"):
                out.append(views["text_format"])
    for r in records("oracle/formats_one_line.jsonl"):
        for key in ("text_format_one_line",):
            if isinstance(r.get(key), str):
                out.append(r[key])
    return out


def hlo_modules():
    hlo = os.path.join(DATA, "hlo")
    out = []
    for name in sorted(os.listdir(hlo)):
        if name.endswith(".txt"):
            with open(os.path.join(hlo, name), encoding="utf-8") as f:
                out.append(f.read())
    # Single lines of the modules: small inputs mutate faster.
    for module in list(out):
        out.extend(line for line in module.splitlines() if "[" in line)
    return out


def choice_inputs(seed, longest=72):
    """Byte strings for fuzz/checks.rs's readers of choices (`array_shape`
    and the others): random, from a fixed seed (the readers map any bytes
    to a valid input)."""
    rng = random.Random(seed)
    out = []
    for _ in range(64):
        n = rng.randrange(8, longest)
        out.append(bytes(rng.randrange(256) for _ in range(n)))
    return out


def index_inputs():
    return choice_inputs(7)


def write(target, inputs):
    directory = os.path.join(CORPUS, target)
    os.makedirs(directory, exist_ok=True)
    seen = set()
    written = 0
    for item in inputs:
        data = item.encode("utf-8") if isinstance(item, str) else item
        if data in seen:
            continue
        seen.add(data)
        if len(seen) > MAX_SEEDS:
            break
        path = os.path.join(directory, hashlib.sha1(data).hexdigest())
        if not os.path.exists(path):
            with open(path, "wb") as f:
                f.write(data)
            written += 1
    print(f"{target}: {min(len(seen), MAX_SEEDS)} seeds, {written} new", file=sys.stderr)


def main():
    write("shape_string", shape_strings())
    write("layout_string", layout_strings())
    write("json_roundtrip", json_inputs())
    write("text_format_roundtrip", text_format_inputs())
    write("hlo_scan", hlo_modules())
    write("index_math", index_inputs())
    write("relayout", choice_inputs(11, 120))
    write("strides", choice_inputs(13, 120))
    write("interop", choice_inputs(17, 120))


if __name__ == "__main__":
    main()
