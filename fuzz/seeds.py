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


def hlo_module_texts():
    """Whole modules, as XLA printed them before and after optimisation."""
    hlo = os.path.join(DATA, "hlo")
    out = []
    for name in sorted(os.listdir(hlo)):
        if name.endswith(".txt"):
            with open(os.path.join(hlo, name), encoding="utf-8") as f:
                out.append(f.read())
    return out


def stablehlo_texts():
    """StableHLO modules as jax writes them (the small ones first, which
    mutate faster), then hand-written ones, then single lines."""
    programs = os.path.join(DATA, "stablehlo", "programs")
    texts = []
    for name in sorted(os.listdir(programs)):
        if name.endswith(".mlir"):
            with open(os.path.join(programs, name), encoding="utf-8") as f:
                texts.append(f.read())
    texts.sort(key=len)
    out = texts[:150]
    out.extend(r["text"] for r in records("stablehlo/modules.jsonl"))
    for text in texts[:40]:
        out.extend(line for line in text.splitlines() if "tensor<" in line)
    return out


def stablehlo_bytecodes():
    """MLIR bytecode and jax.export serializations as jaxlib 0.10.2 writes
    them (the small ones first), then each cut in half."""
    out = []
    for directory in (("stablehlo", "export"), ("stablehlo", "bytecode", "exports"),
                      ("stablehlo", "bytecode", "programs")):
        path = os.path.join(DATA, *directory)
        for name in sorted(os.listdir(path)):
            if name.endswith((".mlirbc", ".bin")):
                with open(os.path.join(path, name), "rb") as f:
                    out.append(f.read())
    out.sort(key=len)
    out = out[:300]
    out.extend(data[: len(data) // 2] for data in out[:60])
    return out


def length_delimited(field, payload):
    """A length-delimited protobuf field: tag, varint length, payload."""
    out = bytearray([(field << 3) | 2])
    n = len(payload)
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out) + payload


def hlo_protos():
    """Each binary module as an HloModuleProto (first byte 0), wrapped in an
    HloProto (1) and in an HloSnapshot (2), and for detection (3)."""
    hlo = os.path.join(DATA, "hlo")
    out = []
    for name in sorted(os.listdir(hlo)):
        if name.endswith(".pb"):
            with open(os.path.join(hlo, name), "rb") as f:
                module = f.read()
            proto = length_delimited(1, module)
            snapshot = length_delimited(1, proto)
            out += [b"\x00" + module, b"\x01" + proto, b"\x02" + snapshot, b"\x03" + snapshot]
    return out


def messages():
    """`any_message` inputs: a format byte (0 binary, 1 JSON, 2 text
    format), a message name, a zero byte, the message."""
    out = []
    for name, message in (("shapes.jsonl", "xla.ShapeProto"), ("layouts.jsonl", "xla.LayoutProto")):
        for r in records(name)[::7]:
            prefix = message.encode() + b"\x00"
            if r.get("proto_hex"):
                out.append(b"\x00" + prefix + bytes.fromhex(r["proto_hex"]))
            if r.get("json"):
                out.append(b"\x01" + prefix + r["json"].encode())
            if r.get("text_format"):
                out.append(b"\x02" + prefix + r["text_format"].encode())
    hlo = os.path.join(DATA, "hlo")
    for name in sorted(os.listdir(hlo)):
        if name.endswith(".pb"):
            with open(os.path.join(hlo, name), "rb") as f:
                out.append(b"\x00xla.HloModuleProto\x00" + f.read())
    return out


def cli_inputs():
    """`cli_json` inputs: a command byte and six option bytes, then shape
    strings, lines of them, modules; `cli_draw`: five option bytes, then a
    shape."""
    rng = random.Random(19)
    shapes = shape_strings()[::5]
    out = []
    for i, text in enumerate(shapes[:120]):
        options = bytes(rng.randrange(256) for _ in range(6))
        out.append(bytes([i % 6]) + options + text.encode())
    lines = "\n".join(shapes[:40]).encode()
    out.append(b"\x00\x00\x03\x00\x01\x01\x00" + lines + b"\n")
    out.append(b"\x01\x00\x07\x00\x01\x01\x00" + lines)
    for module in hlo_module_texts()[:6]:
        out.append(b"\x06\x00\x00\x00\x01\x01\x00" + module.encode())
        out.append(b"\x07\x00\x00\x00\x01\x01\x03" + module.encode())
    return out


def draw_inputs():
    rng = random.Random(23)
    out = []
    for text in shape_strings()[::3][:200]:
        options = bytes([0, rng.randrange(1, 40), rng.randrange(1, 40), rng.choice([0, 1, 7]), 0])
        out.append(options + text.encode())
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


def index_text_inputs():
    """Golden shape strings with a layout, each followed by a zero byte and
    choices for the index and slot."""
    rng = random.Random(29)
    out = []
    for text in shape_strings():
        if "{" not in text or text.startswith("("):
            continue
        choices = bytes(rng.randrange(256) for _ in range(rng.randrange(4, 24)))
        out.append(text.encode() + b"\x00" + choices)
    return out


def memory_inputs():
    """`memory` inputs: the small programs of tests/data/memory/, each as
    the HloProto XLA dumped (first byte 0: read as a file, with its buffer
    assignment) and as its module text after and before optimisation (first
    byte 1)."""
    base = os.path.join(DATA, "memory")
    out = []
    for name in sorted(os.listdir(base)):
        directory = os.path.join(base, name)
        if not os.path.isdir(directory):
            continue
        sizes = {f: os.path.getsize(os.path.join(directory, f)) for f in os.listdir(directory)}
        if sizes.get("hlo.pb", 0) > 8000:
            continue
        for file, choice in [("hlo.pb", b"\x00"), ("opt.txt", b"\x01"), ("lowered.txt", b"\x01")]:
            with open(os.path.join(directory, file), "rb") as f:
                out.append(choice + f.read())
    return out


def sharding_inputs():
    """`sharding` inputs: 0 and HloSharding text (the inputs of
    sharding_text.jsonl, valid and not), 1 and OpSharding bytes
    (sharding_proto.jsonl), 2 and a Shardy mesh, a newline and a sharding
    (sharding_shardy.jsonl)."""
    out = []
    for r in records("oracle/sharding_text.jsonl"):
        out.append(b"\x00" + r["input"].encode())
    for r in records("oracle/sharding_proto.jsonl"):
        out.append(b"\x01" + bytes.fromhex(r["hex"]))
    for r in records("oracle/sharding_shardy.jsonl"):
        if r["kind"] == "export":
            out.append(b"\x02" + (r["mesh"] + "\n" + r["sharding"]).encode())
    random.Random(35).shuffle(out)
    return out


def cli_sharding_inputs():
    """`cli_sharding` inputs: four option bytes (the form, a shape, a mesh,
    each 0 for none or 2 i + 1 for the i-th of fuzz/cli_checks.rs's lists;
    an even fourth byte draws), then a sharding: the text, bytes and Shardy
    inputs of `sharding_inputs`."""
    rng = random.Random(37)
    some = lambda i: 2 * i + 1  # noqa: E731
    out = []
    for item in sharding_inputs()[:300]:
        mode, body = item[0], item[1:]
        # SHARDING_FORMATS: text 0, pb 2, shardy 5; or detected.
        form = {0: rng.choice([0, some(0)]), 1: some(2), 2: rng.choice([0, some(5)])}[mode]
        shape = rng.choice([0] + [some(i) for i in range(7)])
        mesh = rng.choice([0, some(0), some(1)]) if mode != 2 else 0
        out.append(bytes([form, shape, mesh, rng.randrange(2)]) + body)
    return out


def padding_inputs():
    """`padding` inputs: the out-of-memory listings of tests/data/listings/
    whole and line by line, then the golden shape strings with tiles, each
    after a byte choosing the tiles assumed (0: none, 1: (8,128), 2: bf16
    (8,128)(2,1) and (8,128) for the rest)."""
    base = os.path.join(DATA, "listings")
    out = []
    lines = []
    for name in sorted(os.listdir(base)):
        with open(os.path.join(base, name), "rb") as f:
            text = f.read()
        for choice in (b"\x00", b"\x01", b"\x02"):
            out.append(choice + text)
        lines.extend(line for line in text.split(b"\n") if line.strip())
    out.extend(bytes([i % 3]) + line for i, line in enumerate(lines))
    tiled = [t for t in shape_strings() if ":T(" in t or "{" not in t]
    out.extend(bytes([i % 3]) + t.encode() for i, t in enumerate(tiled))
    return out


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
    write("index_text", index_text_inputs())
    write("relayout", choice_inputs(11, 120))
    write("strides", choice_inputs(13, 120))
    write("interop", choice_inputs(17, 120))
    write("hlo_module", hlo_module_texts())
    write("hlo_proto", hlo_protos())
    write("any_message", messages())
    write("stablehlo_text", stablehlo_texts())
    write("memory", memory_inputs())
    write("stablehlo_bytecode", stablehlo_bytecodes())
    write("padding", padding_inputs())
    write("cli_json", cli_inputs())
    write("cli_draw", draw_inputs())
    write("sharding", sharding_inputs())
    write("cli_sharding", cli_sharding_inputs())


if __name__ == "__main__":
    main()
