#!/usr/bin/env bash
# The comparison suite: the crate beside C++ libprotobuf, XLA's shape parser
# and printer through jaxlib, NumPy and C baselines, on the same inputs, in
# interleaved rounds. Not part of `cargo test` or CI. See BENCHMARKS.md
# ("Against the peers").
#
#   bench/compare/run.sh [ROUNDS]        (default 5)
#
# COMPARE_ONLY=relayout (a comma-separated list of proto, text, index,
# transpose, relayout) runs only those rows on every side, without the
# instruction counts (CALLGRIND=1 counts those of the proto and text rows
# it runs); COMPARE_CASES=untile_bf16,transpose_u8 (parts of the
# relayout rows' names) only those relayout rows. The relayout rows tile,
# untile and transpose 16 and 256 MiB on one core and on all
# (`Relayout::run_parallel`), each beside a memory copy of the same bytes
# (one core and all), and NumPy's reshape-transpose-copy of the same bytes
# (not for the `_ragged` rows, `[R - 5, 2000]`, whose tiled side is
# padded: NumPy's reshape needs whole tiles, nor for the `s4` rows, packed
# two a byte with `E(4)`, which are not transposed).
# RUST_BEFORE=BINARY runs another build of the crate's harness (an earlier
# commit's `target/release/xla-shape-compare`, copied aside) in every round
# too, for a column of its relayout figures beside this build's.
#
# It installs what is missing: libprotobuf-dev and protobuf-compiler
# (Debian's packages; C++ generated at run time from proto/xla/xla_data.proto),
# valgrind, and a virtual environment with jax/jaxlib 0.10.2 and NumPy 2.4.6
# from PyPI (JAXLIB_VENV=DIR uses an existing one with those versions). It
# builds the crate's harness (bench/compare/rust, --release), the C++ harness
# and the C baselines (cc -O2), then runs ROUNDS rounds of every side in turn,
# callgrind instruction counts of the small operations, jaxlib's included
# (CALLGRIND=0 skips them, CALLGRIND_JAXLIB=0 skips jaxlib's, about two
# minutes), and prints the table. Everything it makes goes under
# target/compare (OUT=DIR for another place).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${OUT:-$root/target/compare}"
rounds="${1:-5}"
mkdir -p "$out"

# Whether the rows of a work run (COMPARE_ONLY, as every harness reads it).
wanted() { [ -z "${COMPARE_ONLY:-}" ] || [[ ",$COMPARE_ONLY," == *,$1,* ]]; }

need_apt=()
if wanted proto; then
  command -v protoc >/dev/null || need_apt+=(protobuf-compiler)
  [ -e /usr/include/google/protobuf/message.h ] || need_apt+=(libprotobuf-dev)
  command -v pkg-config >/dev/null || need_apt+=(pkg-config)
fi
command -v valgrind >/dev/null || need_apt+=(valgrind)
command -v c++ >/dev/null || need_apt+=(g++)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "installing ${need_apt[*]}" >&2
  sudo_=""; [ "$(id -u)" = 0 ] || sudo_=sudo
  $sudo_ apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_ apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

venv="${JAXLIB_VENV:-$out/venv}"
if [ ! -x "$venv/bin/python" ]; then
  echo "creating $venv (jax and jaxlib 0.10.2, NumPy 2.4.6)" >&2
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q jax==0.10.2 jaxlib==0.10.2 numpy==2.4.6
fi
py="$venv/bin/python"
"$py" -c 'import jaxlib, numpy; assert jaxlib.__version__ == "0.10.2", jaxlib.__version__; print("jaxlib", jaxlib.__version__, "numpy", numpy.__version__)' >&2

echo "building the harnesses" >&2
mkdir -p "$out/gen"
if wanted proto; then
  protoc -I"$root/proto" --cpp_out="$out/gen" "$root/proto/xla/xla_data.proto"
  c++ -O2 -std=c++17 -I"$out/gen" "$here/harness.cc" "$out/gen/xla/xla_data.pb.cc" \
    -o "$out/harness" $(pkg-config --cflags --libs protobuf)
fi
cc -O2 -std=c11 "$here/peers.c" -o "$out/peers"
cargo build --quiet --release --manifest-path "$here/rust/Cargo.toml" --target-dir "$root/target"
rust="$root/target/release/xla-shape-compare"

python3 "$here/prep.py" "$out" >&2
"$rust" filter "$out" >&2

# OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE, where set, slow a current NumPy.
run_py() { env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE "$py" "$@"; }

: >"$out/rounds.txt"
for r in $(seq 1 "$rounds"); do
  echo "round $r of $rounds" >&2
  if wanted proto; then
    "$out/harness" bench "$out" | sed "s/^/$r cpp /" >>"$out/rounds.txt"
  fi
  "$rust" bench "$out" | sed "s/^/$r rust /" >>"$out/rounds.txt"
  if [ -n "${RUST_BEFORE:-}" ]; then
    "$RUST_BEFORE" bench "$out" | sed "s/^/$r before /" >>"$out/rounds.txt"
  fi
  "$out/peers" | sed "s/^/$r c /" >>"$out/rounds.txt"
  run_py "$here/jaxlib_peer.py" bench "$out" | sed "s/^/$r jaxlib /" >>"$out/rounds.txt"
done

# Instructions of one OP item: Ir of N passes minus Ir of none, over N x items.
instructions() {  # side op n items command...
  local side=$1 op=$2 n=$3 items=$4
  shift 4
  local ir=()
  for k in 0 "$n"; do
    valgrind --tool=callgrind --callgrind-out-file="$out/cg.$side.$op.$k" "$@" once "$op" "$k" "$out" \
      >/dev/null 2>"$out/cg.log"
    ir+=("$(sed -n 's/^summary: //p' "$out/cg.$side.$op.$k")")
    rm -f "$out/cg.$side.$op.$k"
  done
  echo "$side $op $(python3 -c 'import sys; n, a, b, i = map(int, sys.argv[1:]); print(f"{(b - a) / (n * i):.1f}")' \
    "$n" "${ir[0]}" "${ir[1]}" "$items")" >>"$out/callgrind.txt"
}
if [ "${CALLGRIND:-$([ -z "${COMPARE_ONLY:-}" ] && echo 1 || echo 0)}" = 1 ]; then
  echo "callgrind" >&2
  : >"$out/callgrind.txt"
  records=$(python3 -c 'import struct,sys; b=open(sys.argv[1],"rb").read(); n=i=0
while i < len(b): i += 4 + struct.unpack_from("<I", b, i)[0]; n += 1
print(n)' "$out/mixed.bin")
  strings=$(wc -l <"$out/shapes.txt")
  every=$(wc -l <"$out/shapes_all.txt")
  if wanted proto; then
    for op in decode encode; do
      for side in rust cpp; do
        if [ $side = rust ]; then cmd=("$rust"); else cmd=("$out/harness"); fi
        instructions $side ${op}_mixed 20 "$records" "${cmd[@]}"
        instructions $side ${op}_rank4 1000 1 "${cmd[@]}"
        instructions $side ${op}_tuple 20 1 "${cmd[@]}"
      done
    done
    # The crate's decode into a new Shape each time (the rows above decode
    # into one reused Shape, as C++ parses into one reused message).
    instructions rust decode_new_mixed 20 "$records" "$rust"
    instructions rust decode_new_rank4 1000 1 "$rust"
    instructions rust decode_new_tuple 20 1 "$rust"
  fi
  if wanted text; then
    for op in parse print; do
      instructions rust $op 20 "$strings" "$rust"
    done
    instructions rust parse_all 20 "$every" "$rust"
  fi
  if wanted text && [ "${CALLGRIND_JAXLIB:-1}" = 1 ]; then
    # Python itself under valgrind (through `env`, valgrind would follow
    # only `env`, not the program it runs), with a fixed hash seed: a
    # random one moves Python's own counts by thousands between runs.
    for op in parse print noop; do
      (unset OPENBLAS_CORETYPE OPENBLAS_L2_SIZE; export PYTHONHASHSEED=0
       instructions jaxlib $op 20 "$strings" "$py" "$here/jaxlib_peer.py")
    done
    (unset OPENBLAS_CORETYPE OPENBLAS_L2_SIZE; export PYTHONHASHSEED=0
     instructions jaxlib parse_all 20 "$every" "$py" "$here/jaxlib_peer.py")
  fi
else
  rm -f "$out/callgrind.txt"
fi

echo "$(date -u +%Y-%m-%d), $(nproc) cores, $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)"
python3 "$here/summarize.py" "$out"
