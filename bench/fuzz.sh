#!/usr/bin/env bash
# Fuzzes the ReAct parser, the SSE stream decoders, the session loader and the Edit matcher
# (issue 6, "Robustness") with cargo-fuzz (libFuzzer + AddressSanitizer), each for a fixed
# time, and prints per target the executions, the time and the crashes found. Not run in CI.
#
# Usage: FUZZ_SECONDS=60 bash bench/fuzz.sh [target...]
# Needs cargo-fuzz (`cargo install cargo-fuzz --locked`); on a stable toolchain the sanitizer
# flags are allowed with RUSTC_BOOTSTRAP=1, which this script sets for the fuzz build only.
# Exit status: non-zero when a target crashed, hung (a 10 s timeout per input) or leaked; the
# input that did is left under fuzz/artifacts/<target>/.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${FUZZ_SECONDS:-60}
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(react_parser sse_stream session_loader edit_matcher)
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "cargo-fuzz is missing: cargo install cargo-fuzz --locked" >&2
    exit 2
fi
export RUSTC_BOOTSTRAP=1
cargo fuzz build -O "${targets[@]/#/}" >/dev/null 2>&1 || cargo fuzz build -O

status=0
printf '%-16s %12s %8s %10s %s\n' target executions seconds exec/s result
for target in "${targets[@]}"; do
    log=$(mktemp)
    # A fresh copy of the seeds, so repeated runs start from the same place.
    work=$(mktemp -d)
    cp fuzz/corpus/"$target"/seed-* "$work"/
    set +e
    cargo fuzz run -O "$target" "$work" -- \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        >"$log" 2>&1
    code=$?
    set -e
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
    took=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
    if [ "$code" -eq 0 ]; then
        result="no crash"
    else
        result="CRASH (exit $code): see fuzz/artifacts/$target/ and $log"
        status=1
    fi
    printf '%-16s %12s %8s %10s %s\n' "$target" "${runs:-0}" "$seconds" "${took:-0}" "$result"
    [ "$code" -eq 0 ] && rm -f "$log"
    rm -rf "$work"
done
exit "$status"
