#!/usr/bin/env python3
"""Peak memory of every `xla-shape` command, as a multiple of its input.

Builds each input family at SIZE MiB (default 8), runs the release build
of the command on it and reads the process's peak resident set size
(GNU time's `%M`). The multiple is the peak less the
resident size of the smallest run (`xla-shape describe 'f32[]'`: the
binary and its libraries), over the input's bytes. Prints the Markdown
table of docs/robustness.md ("Peak memory per command").

    cargo build --release -p xla-shape-cli
    python3 fuzz/cli_memory.py            # every family, 8 MiB
    python3 fuzz/cli_memory.py 4 report   # families whose name has "report"

Needs Python 3, GNU time (`/usr/bin/time`, the Debian package `time`)
and the repository's golden modules
(tests/data/hlo/reduce_variadic.{txt,pb}).
"""

import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BINARY = os.path.join(ROOT, "target", "release", "xla-shape")
TIME = "/usr/bin/time"
MIB = 1 << 20


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field(number, payload):
    """A length-delimited protobuf field."""
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def golden(name):
    with open(os.path.join(ROOT, "tests", "data", "hlo", name), "rb") as f:
        return f.read()


def module_text(size):
    """The golden module's computations repeated (the names repeat, which
    the readers do not check)."""
    header, body = golden("reduce_variadic.txt").split(b"\n", 1)
    return header + b"\n" + body * (size // len(body) + 1)


def module_pb(size):
    """The golden HloModuleProto repeated: one message whose computations
    append."""
    pb = golden("reduce_variadic.pb")
    return pb * (size // len(pb) + 1)


def empty_instructions(size):
    """One computation of empty HloInstructionProtos (`12 00`): two bytes
    of input that are a whole instruction."""
    return field(3, b"\x12\x00" * (size // 2))


def distinct_long_lines(size):
    """Module text whose instruction lines each hold a distinct rank-8,000
    shape (16 KB)."""
    lines = [b"HloModule m", b"ENTRY e {"]
    i = 0
    total = 0
    while total < size:
        dims = str(i + 1) + ",1" * 7999
        line = f"  a{i} = f32[{dims}] parameter({i})".encode()
        lines.append(line)
        total += len(line) + 1
        i += 1
    lines.append(b"}")
    return b"\n".join(lines) + b"\n"


def tuple_text(size):
    return b"(" + b",".join([b"f32[]"] * (size // 6)) + b")"


def tuple_pb(size, element):
    """A ShapeProto tuple (element_type 13) of `element`s (tuple_shapes,
    field 4)."""
    return b"\x08\x0d" + field(4, element) * (size // (len(element) + 2))


def rank_text(size):
    """An array of huge rank whose last two dimensions are 16 x 16."""
    return b"f32[" + b"1," * (size // 2) + b"16,16]"


def shape_lines(size):
    return b"f32[2,3]{1,0}\n" * (size // 14)


def index_lines(size):
    return b"3,5\n" * (size // 4)


# (name, command arguments, input builder): the input goes to standard
# input ("-"), or to a file when the command is given "@FILE".
FAMILIES = [
    ("convert: ShapeProto, tuple of f32[] (to json)", ["convert", "--to", "json"], lambda s: tuple_pb(s, b"\x10\x0b")),
    ("convert: ShapeProto, tuple of empty elements (to json; an error)", ["convert", "--to", "json"], lambda s: tuple_pb(s, b"")),
    ("convert: HLO text, tuple of f32[] (to hex)", ["convert", "--to", "hex"], tuple_text),
    ("convert --lines: f32[2,3]{1,0} lines (to json)", ["convert", "--lines", "--to", "json"], shape_lines),
    ("describe: HLO text, tuple of f32[]", ["describe", "-"], tuple_text),
    ("validate: HLO text, tuple of f32[]", ["validate"], tuple_text),
    ("scan: module text (golden, repeated)", ["scan"], module_text),
    ("scan: module .pb (golden, repeated)", ["scan", "@FILE"], module_pb),
    ("scan: module .pb of empty instructions", ["scan", "@FILE"], empty_instructions),
    ("report: module text (golden, repeated)", ["report"], module_text),
    ("report: module text, distinct 16 KB lines", ["report"], distinct_long_lines),
    ("report --json: module .pb (golden, repeated)", ["report", "--json", "@FILE"], module_pb),
    ("report: module .pb of empty instructions", ["report", "@FILE"], empty_instructions),
    ("memory: module text (golden, repeated; estimate)", ["memory"], module_text),
    ("memory: module .pb (golden, repeated; estimate)", ["memory", "@FILE"], module_pb),
    ("memory: module .pb of empty instructions", ["memory", "@FILE"], empty_instructions),
    ("signature: module text (golden, repeated)", ["signature"], module_text),
    ("draw: rank-N f32[1,...,1,16,16]", ["draw"], rank_text),
    ("strides: rank-N f32[1,...,1,16,16]", ["strides"], rank_text),
    ("index: '3,5' lines in f32[16,16]", ["index", "f32[16,16]"], index_lines),
]


def peak_kib(args, stdin_path, report):
    """Runs the binary under GNU time; its exit status and peak resident
    set size (KiB). (The rusage of a child that Python forks counts the
    pages of Python's own image before the exec: GNU time's is small.)"""
    with open(stdin_path, "rb") as stdin, open(os.devnull, "wb") as null:
        code = subprocess.call(
            [TIME, "-f", "%M", "-o", report, BINARY] + args,
            stdin=stdin, stdout=null, stderr=null,
        )
    with open(report) as f:
        lines = f.read().split()
    # GNU time writes "Command exited with non-zero status N" first.
    return code, int(lines[-1])


def main():
    size_mib = int(sys.argv[1]) if len(sys.argv) > 1 else 8
    wanted = sys.argv[2] if len(sys.argv) > 2 else ""
    if not os.path.exists(BINARY):
        sys.exit("build it first: cargo build --release -p xla-shape-cli")
    if not os.path.exists(TIME):
        sys.exit("needs GNU time at /usr/bin/time")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "input")
        with open(path, "wb") as f:
            f.write(b"f32[]")
        report = os.path.join(tmp, "time")
        _, base = peak_kib(["describe", "f32[]"], path, report)
        print(f"release build; {size_mib} MiB inputs; base resident size {base} KiB\n")
        print("| command: input | input bytes | exit | peak resident | per input byte |")
        print("| --- | --- | --- | --- | --- |")
        for name, args, build in FAMILIES:
            if wanted not in name:
                continue
            data = build(size_mib * MIB)
            with open(path, "wb") as f:
                f.write(data)
            del data
            run_args = [a.replace("@FILE", "@" + path) for a in args]
            code, kib = peak_kib(run_args, path, report)
            n = os.path.getsize(path)
            per_byte = max(kib - base, 0) * 1024 / n
            print(f"| {name} | {n:,} | {code} | {kib / 1024:.1f} MiB | {per_byte:.1f} |")


if __name__ == "__main__":
    main()
