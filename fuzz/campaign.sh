#!/usr/bin/env bash
# Runs fuzzing campaigns of the crate's targets, as docs/robustness.md
# records them: each target for 10 minutes or 5 million executions,
# whichever comes first, in a working corpus seeded from the committed one
# (fuzz/corpus/TARGET), so that the repository is not touched.
#
#   fuzz/campaign.sh                      # every target, one after another
#   fuzz/campaign.sh stablehlo_bytecode   # some targets
#   SECONDS_PER_TARGET=60 RUNS=100000 fuzz/campaign.sh shape_string
#   WORK=/tmp/fuzzwork fuzz/campaign.sh   # where the working corpora go
#
# Needs rustup with a nightly toolchain (cargo-fuzz builds with sanitizers);
# installs cargo-fuzz from crates.io when it is missing. A finding stops
# that target's run: libFuzzer writes the input to fuzz/artifacts/TARGET/,
# and the script goes on with the next target and exits 1 at the end.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CARGO_FUZZ_VERSION="${CARGO_FUZZ_VERSION:-0.13.2}"
SECONDS_PER_TARGET="${SECONDS_PER_TARGET:-600}"
RUNS="${RUNS:-5000000}"
WORK="${WORK:-${TMPDIR:-/tmp}/xla-shape-fuzzwork}"

if ! cargo fuzz --version 2>/dev/null | grep -q "$CARGO_FUZZ_VERSION"; then
  cargo install cargo-fuzz --locked --version "$CARGO_FUZZ_VERSION"
fi
if ! cargo +nightly --version >/dev/null 2>&1; then
  rustup toolchain install nightly --profile minimal
fi

cd "$ROOT/fuzz"
if [ "$#" -gt 0 ]; then
  targets=("$@")
else
  mapfile -t targets < <(cargo +nightly fuzz list)
fi

failed=()
for target in "${targets[@]}"; do
  mkdir -p "$WORK/$target"
  echo "== $target: up to ${SECONDS_PER_TARGET} s or ${RUNS} executions, corpus in $WORK/$target" >&2
  if ! cargo +nightly fuzz run "$target" "$WORK/$target" "corpus/$target" -- \
      -max_total_time="$SECONDS_PER_TARGET" -runs="$RUNS" -timeout=10 -rss_limit_mb=2048; then
    failed+=("$target")
  fi
done

if [ "${#failed[@]}" -gt 0 ]; then
  echo "findings in: ${failed[*]} (inputs in fuzz/artifacts/)" >&2
  exit 1
fi
