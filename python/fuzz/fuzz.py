"""atheris fuzz harness for the xla_shape package (not run in CI).

    pip install atheris numpy ./python
    python python/fuzz/fuzz.py ENTRY [atheris/libFuzzer flags, e.g. -max_total_time=180]

ENTRY is one of: parse, proto, json, text_format, lossless, relayout,
sharding.
Every input must end in a result or an XlaShapeError (or, for relayout with
a buffer of the wrong size, BufferSizeError); anything else, or a crash of
the interpreter, is a finding.
"""

import sys

import atheris

with atheris.instrument_imports():
    import xla_shape as xs

ERRORS = (xs.XlaShapeError,)


def parse(data):
    text = atheris.FuzzedDataProvider(data).ConsumeUnicodeNoSurrogates(len(data))
    try:
        s = xs.Shape.parse(text)
    except ERRORS:
        return
    # What parses prints and re-parses to the same shape.
    assert xs.Shape.parse(str(s)) == s, text


def proto(data):
    try:
        s = xs.Shape.from_proto_bytes(data)
    except ERRORS:
        return
    assert xs.Shape.from_proto_bytes(s.to_serialized_proto()) == s


def json_(data):
    text = atheris.FuzzedDataProvider(data).ConsumeUnicodeNoSurrogates(len(data))
    for f in (xs.Shape.from_json, xs.Layout.from_json):
        try:
            f(text)
        except ERRORS:
            pass


def text_format(data):
    text = atheris.FuzzedDataProvider(data).ConsumeUnicodeNoSurrogates(len(data))
    for f in (xs.Shape.from_text_format, xs.Layout.from_text_format):
        try:
            f(text)
        except ERRORS:
            pass


def lossless(data):
    for message in ("ShapeProto", "LayoutProto", "ProgramShapeProto"):
        try:
            m = xs.LosslessMessage.decode(data, message)
        except ERRORS:
            continue
        # Re-encoding is stable.
        assert xs.LosslessMessage.decode(m.encode(), message).encode() == m.encode()


TYPES = ["PRED", "S4", "U8", "S16", "F32", "F64", "BF16", "C64", "U4", "S1"]


def relayout(data):
    fdp = atheris.FuzzedDataProvider(data)
    rank = fdp.ConsumeIntInRange(0, 4)
    dims = [fdp.ConsumeIntInRange(0, 9) for _ in range(rank)]
    t = TYPES[fdp.ConsumeIntInRange(0, len(TYPES) - 1)]
    layouts = []
    for _ in range(2):
        perm = list(range(rank))
        for i in range(rank - 1, 0, -1):
            j = fdp.ConsumeIntInRange(0, i)
            perm[i], perm[j] = perm[j], perm[i]
        tiles = ""
        if rank and fdp.ConsumeBool():
            tiles = ":T(" + ",".join(str(fdp.ConsumeIntInRange(1, 8)) for _ in range(fdp.ConsumeIntInRange(1, rank))) + ")"
        if fdp.ConsumeBool() and t in ("S4", "U4", "S1"):
            tiles += ("" if tiles else ":") + "E(" + {"S4": "4", "U4": "4", "S1": "1"}[t] + ")"
        layouts.append("{" + ",".join(map(str, perm)) + tiles + "}")
    try:
        src = xs.Shape(f"{t.lower()}[{','.join(map(str, dims))}]{layouts[0]}")
        dst = xs.Shape(f"{t.lower()}[{','.join(map(str, dims))}]{layouts[1]}")
    except ERRORS:
        return
    size = xs.TiledLayout(src).byte_size()
    wrong = fdp.ConsumeIntInRange(0, 3) == 0
    n = fdp.ConsumeIntInRange(0, 2 * size + 2) if wrong else size
    buf = fdp.ConsumeBytes(n).ljust(n, b"\x00")
    try:
        out = xs.relayout(buf, src, dst, out=bytearray(xs.TiledLayout(dst).byte_size()))
    except xs.BufferSizeError:
        assert n != size
        return
    assert n == size
    # And back: every element survives a round trip through the other layout.
    back = xs.relayout(bytes(out), dst, src, out=bytearray(size))
    again = xs.relayout(bytes(back), src, dst, out=bytearray(len(out)))
    assert bytes(again) == bytes(out)


def sharding(data):
    """HloSharding text or OpSharding bytes, by the first byte; then the
    per-device answers on a small shape."""
    if not data:
        return
    try:
        if data[0] % 2:
            s = xs.HloSharding.from_string(data[1:].decode("utf-8", "replace"))
        else:
            s = xs.HloSharding.from_proto(bytes(data[1:]))
    except ERRORS:
        return
    # What reads writes bytes that read back; XLA's ToProto is a fixed
    # point after one FromProto (`{devices=[1]<=[1]}` reads back as
    # `{replicated}`).
    b = xs.HloSharding.from_proto(s.to_proto()).to_proto()
    assert xs.HloSharding.from_proto(b).to_proto() == b
    try:
        rank = len(s.tile_assignment_dimensions()) if s.is_tiled() else 1
    except ERRORS:
        rank = 1
    dims = tuple(len(data) % 7 for _ in range(rank))
    for call in (
        lambda: s.shard_shape(dims),
        lambda: s.devices_indices_map(dims),
        lambda: s.device_slices(dims),
        lambda: s.replica_groups(),
    ):
        try:
            call()
        except ERRORS:
            pass


ENTRIES = {
    "parse": parse,
    "proto": proto,
    "json": json_,
    "text_format": text_format,
    "lossless": lossless,
    "relayout": relayout,
    "sharding": sharding,
}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in ENTRIES:
        sys.exit(f"usage: {sys.argv[0]} {{{','.join(ENTRIES)}}} [libFuzzer flags]")
    entry = ENTRIES[sys.argv[1]]
    atheris.Setup([sys.argv[0]] + sys.argv[2:], entry)
    atheris.Fuzz()
