#!/usr/bin/env bash
# Grep (count mode, through `wright tool`) against ripgrep on a large corpus.
#
# For each pattern: the mean wall time of both (goal: wright / rg <= 1.3) and whether they
# found the same files with the same counts of matching lines.
#
# Usage: bash bench/grep_vs_rg.sh            (RUNS=N, BENCH_SOURCE=dir, BENCH_CORPUS=dir to change)
# Exit status: 0 when every pattern meets the goal with identical results.
set -euo pipefail
source "$(dirname "$0")/corpus.sh"

GOAL=1.3
PATTERNS=(
    'impl'
    'fn [a-z_]+_test\('
    '(?i)unsafe\s+impl'
    'TODO|FIXME'
    'e'
)

RG=$(ensure_binary rg ripgrep ripgrep)
ensure_binary hyperfine hyperfine >/dev/null || echo "no hyperfine: timing with a shell loop"
build_wright
make_corpus
echo "rg: $("$RG" --version | head -n 1); runs per command: $RUNS"

failed=0
for pattern in "${PATTERNS[@]}"; do
    args="{\"pattern\": $(json_string "$pattern"), \"output_mode\": \"count\", \"head_limit\": 0}"
    wright_cmd="$WRIGHT_TOOL -C . Grep '$args'"
    rg_cmd="$RG -c '$pattern'"

    wright_counts=$(cd "$CORPUS" && $WRIGHT_TOOL -C . --json Grep "$args" \
        | python3 -c 'import json, sys
for c in json.load(sys.stdin)["data"]["counts"]:
    print("%s:%d" % (c["file"], c["count"]))' | sort)
    rg_counts=$(cd "$CORPUS" && "$RG" -c -- "$pattern" | sort || true)
    files=$(printf '%s\n' "$wright_counts" | grep -c . || true)
    if [ "$wright_counts" == "$rg_counts" ]; then
        same="same $files files and counts"
    else
        same="DIFFERENT results"
        failed=1
        diff <(printf '%s\n' "$wright_counts") <(printf '%s\n' "$rg_counts") | head -n 10 >&2 || true
    fi

    wright_s=$(mean_seconds "$wright_cmd")
    rg_s=$(mean_seconds "$rg_cmd")
    r=$(ratio "$wright_s" "$rg_s")
    verdict=ok
    within "$r" "$GOAL" || { verdict="OVER GOAL $GOAL"; failed=1; }
    printf '%-22s wright %6.3f s   rg %6.3f s   ratio %s (%s)   %s\n' \
        "$pattern" "$wright_s" "$rg_s" "$r" "$verdict" "$same"
done
exit "$failed"
