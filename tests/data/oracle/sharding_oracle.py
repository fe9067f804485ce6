"""The XLA side of the sharding generators (`sharding_*_gen.py`): asks
jaxlib 0.10.2 about HloSharding text, OpSharding bytes, per-device shapes and
slices, and Shardy lowering, in a worker subprocess that is restarted when
XLA aborts (a `Check failed`), so that a crash is an answer too.

Not run on its own: the generators import it. Run them with a Python that has
jax/jaxlib 0.10.2 installed (the same venv as the other generators), from the
repository root, e.g.

    python tests/data/oracle/sharding_text_gen.py

Every answer is a dict: the operation's result, or {"error": XLA's message}
for a status XLA returns, or {"abort": the `Check failed` line} when XLA
aborts the process.
"""

import json
import os
import subprocess
import sys

WORKER = r'''
import json, os, sys
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=64")
os.environ.setdefault("JAX_PLATFORMS", "cpu")
import numpy as np
import jax
from jax._src.lib import xla_client as xc
from jax._src import op_shardings
H = xc.HloSharding
T = xc.OpSharding.Type
TYPE_NAMES = {v: k for k, v in T.__members__.items()}

def facts(h):
    out = {"printed": repr(h), "proto": h.to_proto().SerializeToString().hex()}
    elems = h.tuple_elements()
    out["tuple"] = [facts(e) for e in elems] if elems else None
    out["is_replicated"] = h.is_replicated()
    out["is_maximal"] = h.is_maximal()
    out["is_manual"] = h.is_manual()
    out["is_tiled"] = h.is_tiled()
    out["is_unknown"] = h.is_unknown()
    out["is_unreduced"] = h.is_unreduced()
    return out

def attrs(h):
    out = {"num_devices": h.num_devices()}
    if not h.tuple_elements():
        out["num_dimensions"] = h.num_dimensions()
        out["tile_assignment_dimensions"] = list(h.tile_assignment_dimensions())
        out["tile_assignment_devices"] = list(h.tile_assignment_devices())
        out["replicate_on_last_tile_dim"] = h.replicate_on_last_tile_dim()
        out["subgroup_types"] = [TYPE_NAMES[t] for t in h.subgroup_types()]
        out["is_tile_assignment_iota"] = h.is_tile_assignment_iota()
    return out

def op_parse(s):
    return facts(H.from_string(s))

def op_attrs(s):
    return attrs(H.from_string(s))

def op_v2(s):
    return facts(H.from_string(s).v3_to_v2_sharding())

def op_from_proto(hexbytes):
    p = xc.OpSharding()
    p.ParseFromString(bytes.fromhex(hexbytes))
    return facts(H.from_proto(p))

def op_tile(s, shape):
    h = H.from_string(s)
    return {"tile": str(h.tile(xc.Shape(shape)))}

def op_indices(s, dims, n):
    # jax's GSPMDSharding converts the named form to the tiled one first.
    h = H.from_string(s).v3_to_v2_sharding()
    out = {}
    try:
        idx = op_shardings.op_sharding_to_indices(h, dims, n)
        out["indices"] = [[[sl.start, sl.stop, sl.step] for sl in t] for t in idx]
    except BaseException as e:
        out["indices_error"] = type(e).__name__ + ": " + str(e)
    return out

def op_with_metadata(s):
    """`ToString(include_metadata=true)`, as an instruction's sharding in
    the module text XLA prints (`HloModule::ToString`)."""
    h = H.from_string(s)
    shape = "f32[]"
    if h.tuple_elements():
        shape = "(" + ", ".join(["f32[]"] * len(h.tuple_elements())) + ")"
    text = ("HloModule m\n\nENTRY e {\n  ROOT p = %s parameter(0), sharding=%s\n}\n"
            % (shape, s))
    printed = xc.hlo.hlo_module_from_text(text).to_string()
    line = [l for l in printed.splitlines() if "parameter(0)" in l][0]
    return {"with_metadata": line.split("sharding=", 1)[1]}

def op_validate(s, shape, num_devices):
    """XLA's `HloSharding::Validate` as compiling a module reports it: the
    sharding on the entry parameter of `shape`, `num_partitions` devices.
    MLIR's import checks the sharding first without a device count
    ("mode": "no_count"); the HLO verifier then checks it with one
    ("mode": "count")."""
    import numpy as np
    if shape.startswith("("):
        # A flat tuple: the sharding on the tuple of the parameters.
        leaves = [x.strip() for x in shape[1:-1].split("],")]
        leaves = [x if x.endswith("]") else x + "]" for x in leaves if x]
        params = "".join("  p%d = %s parameter(%d)\n" % (i, l, i) for i, l in enumerate(leaves))
        t = ("HloModule m, num_partitions=%d\n\nENTRY e {\n%s  ROOT p = %s tuple(%s), sharding=%s\n}\n"
             % (num_devices, params, shape, ", ".join("p%d" % i for i in range(len(leaves))), s))
    else:
        t = ("HloModule m, num_partitions=%d\n\nENTRY e {\n  ROOT p = %s parameter(0), sharding=%s\n}\n"
             % (num_devices, shape, s))
    m = xc.hlo.hlo_module_from_text(t)
    opts = xc.CompileOptions()
    opts.num_partitions = num_devices
    opts.num_replicas = 1
    opts.executable_build_options.use_spmd_partitioning = True
    opts.device_assignment = xc.DeviceAssignment.create(np.arange(num_devices).reshape(1, num_devices))
    be = jax.devices()[0].client
    try:
        be.compile_and_load(xc._xla.mlir.hlo_to_stablehlo(m.as_serialized_hlo_module_proto()),
                            xc.DeviceList(tuple(jax.devices()[:num_devices])), opts)
        return {"valid": True}
    except Exception as e:
        text = str(e)
    if "<unknown>:0: error: " in text and "\tNote: While validating" in text:
        core = text.split("<unknown>:0: error: ", 1)[1].split(": \n<unknown>:0: note", 1)[0]
        return {"mode": "no_count", "message": core}
    marker = "Invalid sharding for instruction: "
    if marker in text:
        core = text.split(marker, 1)[1].split("}: ", 1)[1]
        core = core.split("\n\nFailed after", 1)[0]
        if core.startswith("metadata={"):
            core = core.split("}: ", 1)[1]
        return {"mode": "count", "message": core}
    return {"other": text[:300]}

def op_shardy(mesh, shardings, shapes):
    """XLA's conversion of Shardy shardings on the entry arguments of a
    StableHLO module (`mlir_module_to_xla_computation`, the Shardy export):
    the `sharding={...}` of each parameter in the HLO text."""
    args = ", ".join("%%arg%d: tensor<%s> {sdy.sharding = %s}" % (i, sh, s)
                     for i, (s, sh) in enumerate(zip(shardings, shapes)))
    rets = ", ".join("%%arg%d" % i for i in range(len(shardings)))
    types = ", ".join("tensor<%s>" % sh for sh in shapes)
    text = ("module @m attributes {mhlo.num_partitions = 8 : i32} {\n  %s\n  func.func public @main(%s) -> (%s) {\n"
            "    return %s : %s\n  }\n}\n" % (mesh, args, types, rets, types))
    comp = xc._xla.mlir.mlir_module_to_xla_computation(text, use_tuple_args=False, return_tuple=False)
    hlo = comp.get_hlo_module().to_string()
    out = []
    for i in range(len(shardings)):
        line = [l for l in hlo.splitlines() if "parameter(%d)" % i in l][0]
        if " sharding=" in line:
            out.append(line.split(" sharding=", 1)[1].split(", frontend_attributes=", 1)[0])
        else:
            out.append(None)
    return {"hlo": out}

def op_hlo_module(text):
    m = xc._xla.hlo_module_from_text(text) if hasattr(xc._xla, "hlo_module_from_text") else xc.hlo.hlo_module_from_text(text)
    return {"text": m.to_string()}

OPS = {k[3:]: v for k, v in globals().items() if k.startswith("op_")}
print("ready", flush=True)
for line in sys.stdin:
    req = json.loads(line)
    try:
        res = OPS[req["op"]](*req["args"])
    except Exception as e:
        res = {"error": str(e)}
    sys.stdout.write(json.dumps(res) + "\n")
    sys.stdout.flush()
'''


class Oracle:
    def __init__(self, extra_ops=""):
        self.source = WORKER.replace("OPS = {", extra_ops + "\nOPS = {")
        self.proc = None

    def _start(self):
        self.err = open(os.devnull if False else "/tmp/sharding_oracle.stderr", "w+")
        self.proc = subprocess.Popen(
            [sys.executable, "-c", self.source],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.err, text=True)
        assert self.proc.stdout.readline().strip() == "ready", "worker did not start"

    def ask(self, op, *args):
        if self.proc is None:
            self._start()
        self.err.seek(0, 2)
        start = self.err.tell()
        self.proc.stdin.write(json.dumps({"op": op, "args": list(args)}) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if line:
            return json.loads(line)
        self.proc.wait()
        self.err.seek(start)
        log = self.err.read()
        self.proc = None
        check = [l for l in log.splitlines() if "Check failed" in l or "] " in l and "F0" in l[:3]]
        msg = check[0].split("] ", 1)[-1] if check else "exit %d" % self.proc_status(log)
        return {"abort": msg}

    @staticmethod
    def proc_status(log):
        return -1
