#!/usr/bin/env bash
# Fuzzing campaigns, one target at a time, each from a working corpus
# outside the repository seeded from the committed one (fuzz/corpus/TARGET),
# stopping at FUZZ_SECONDS (default 600) or FUZZ_RUNS executions (default
# 5,000,000), whichever comes first. Prints one Markdown row per target,
# as the campaign tables of docs/robustness.md give them.
#
#   fuzz/campaign.sh                      # every target of fuzz/Cargo.toml
#   fuzz/campaign.sh memory stablehlo_text
#   FUZZ_SECONDS=120 fuzz/campaign.sh memory
#
# Installs cargo-fuzz from crates.io (`cargo install cargo-fuzz --locked`)
# and the nightly toolchain (`rustup toolchain install nightly`) when they
# are missing. Inputs that fail a check are written by libFuzzer to
# fuzz/artifacts/TARGET/; copy each to fuzz/regressions/TARGET/ with its fix.
# The build takes several GB in fuzz/target: remove it when done.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${FUZZ_SECONDS:-600}"
runs="${FUZZ_RUNS:-5000000}"
work="${FUZZ_WORK:-${TMPDIR:-/tmp}/xla-shape-fuzzwork}"

if ! rustup toolchain list | grep -q '^nightly'; then
    rustup toolchain install nightly --profile minimal
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
    cargo install cargo-fuzz --locked
fi

if [ "$#" -gt 0 ]; then
    targets=("$@")
else
    mapfile -t targets < <(cargo +nightly fuzz list)
fi

echo "| target | executions | time | coverage | corpus | peak RSS | status |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for target in "${targets[@]}"; do
    mkdir -p "$work/$target"
    log="$work/$target.log"
    status=0
    cargo +nightly fuzz run "$target" "$work/$target" "fuzz/corpus/$target" -- \
        -max_total_time="$seconds" -runs="$runs" -timeout=10 -rss_limit_mb=2048 \
        >"$log" 2>&1 || status=$?
    # libFuzzer's status lines: `#N<tab>INITED cov: C ... corp: K/...` at
    # the start, `#N<tab>DONE cov: C ... corp: K/... rss: R` at the end (or
    # the last `#N ...` line when it stopped on a finding), then `Done N
    # runs in S second(s)`.
    first=$(grep -m1 -E '^#[0-9]+[[:space:]]+INITED' "$log" || true)
    last=$(grep -E '^#[0-9]+[[:space:]]' "$log" | tail -n1 || true)
    field() { sed -nE "s/.* $1: ([^ ]+).*/\1/p" <<<"$2"; }
    executions=$(sed -nE 's/^#([0-9]+)[[:space:]].*/\1/p' <<<"$last")
    elapsed=$(sed -nE 's/^Done [0-9]+ runs in ([0-9]+) second.*/\1/p' "$log")
    case "$status" in
        0) outcome="done" ;;
        *) outcome="stopped ($status): see $log and fuzz/artifacts/$target" ;;
    esac
    echo "| \`$target\` | ${executions:-0} | ${elapsed:-?} s | $(field cov "$first") -> $(field cov "$last") | $(field corp "$last") | $(field rss "$last") | $outcome |"
done
