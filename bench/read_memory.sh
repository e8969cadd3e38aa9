#!/usr/bin/env bash
# Peak memory and time of Read (through `wright tool`) on a 100 MB log against a 1 MB one.
#
# Read streams the file, keeping only the requested window, so its peak RSS should not grow with
# the file: the goal is the 100 MB reads within GOAL_KB of the 1 MB read. Each case prints its
# peak RSS, wall time and the range note Read ended with.
#
# HUGE_GB=N adds a read with limit 50 near the end of an N GB log (copies of the 100 MB one; needs
# that much free space in TMPDIR), timed against `wc -l` on it: Read's one pass over the file
# should cost about what counting its lines does.
#
# Usage: bash bench/read_memory.sh    (LINES=N for another file size; WRIGHT_TOOL="path/wright tool"
#                                      to measure a build made earlier instead of building one)
# Exit status: 0 when memory stays flat.
set -euo pipefail
source "$(dirname "$0")/corpus.sh"

LINES=${LINES:-1500000}
GOAL_KB=${GOAL_KB:-16384}

[ -x /usr/bin/time ] || { apt-get install -y -qq time || { apt-get update -qq && apt-get install -y -qq time; }; } >&2
if [ -n "${WRIGHT_TOOL:-}" ]; then
    echo "tool runner: $WRIGHT_TOOL"
else
    build_wright
fi

DIR=$(mktemp -d "${TMPDIR:-/tmp}/wright-read-bench.XXXXXX")
trap 'rm -rf "$DIR"' EXIT
# 66 bytes a line, like an application log: 1.5M lines make 99 MB.
awk -v n="$LINES" 'BEGIN {
    for (i = 1; i <= n; i++)
        printf "%08d 2024-05-01T12:%02d:%02dZ INFO worker-%02d request took %4d ms\n",
            i, (i / 60) % 60, i % 60, i % 16, (i * 7) % 1000
}' >"$DIR/big.log"
head -c 1000000 "$DIR/big.log" | sed '$d' >"$DIR/small.log"
echo "big.log: $(wc -c <"$DIR/big.log") bytes, $(wc -l <"$DIR/big.log") lines;" \
    "small.log: $(wc -c <"$DIR/small.log") bytes, $(wc -l <"$DIR/small.log") lines"

# measure NAME ARGS: prints NAME, peak RSS (KB), wall time and Read's last line; sets RSS_KB.
measure() {
    local name=$1 args=$2 out stats
    out=$(mktemp)
    stats=$( { /usr/bin/time -f '%M %e' $WRIGHT_TOOL -C "$DIR" Read "$args" >"$out"; } 2>&1 | tail -n 1)
    RSS_KB=${stats%% *}
    printf '%-34s %8d KB %7.2f s   %s\n' "$name" "$RSS_KB" "${stats##* }" "$(tail -n 1 "$out" | cut -c 1-80)"
    rm -f "$out"
}

measure "1 MB, default window" '{"file_path": "small.log"}'
small_kb=$RSS_KB
measure "100 MB, default window" '{"file_path": "big.log"}'
big_default_kb=$RSS_KB
measure "100 MB, offset 1000000 limit 100" '{"file_path": "big.log", "offset": 1000000, "limit": 100}'
big_offset_kb=$RSS_KB

if [ -n "${HUGE_GB:-}" ]; then
    copies=$(((HUGE_GB * 1000000000 + $(wc -c <"$DIR/big.log") - 1) / $(wc -c <"$DIR/big.log")))
    for ((i = 0; i < copies; i++)); do cat "$DIR/big.log"; done >"$DIR/huge.log"
    lines=$((copies * $(wc -l <"$DIR/big.log")))
    echo "huge.log: $(wc -c <"$DIR/huge.log") bytes, $lines lines"
    measure "${HUGE_GB} GB, offset -10 limit 50" "{\"file_path\": \"huge.log\", \"offset\": $((lines - 10)), \"limit\": 50}"
    huge_kb=$RSS_KB
    wc_s=$( { /usr/bin/time -f '%e' wc -l "$DIR/huge.log" >/dev/null; } 2>&1 | tail -n 1)
    printf '%-34s %11s %7.2f s\n' "wc -l huge.log" "" "$wc_s"
    big_offset_kb=$((huge_kb > big_offset_kb ? huge_kb : big_offset_kb))
fi

worst=$((big_default_kb > big_offset_kb ? big_default_kb : big_offset_kb))
if ((worst - small_kb <= GOAL_KB)); then
    echo "flat: the large-file reads peak at most $((worst - small_kb)) KB above the 1 MB read (goal $GOAL_KB KB)"
else
    echo "NOT FLAT: the large-file reads peak $((worst - small_kb)) KB above the 1 MB read (goal $GOAL_KB KB)"
    exit 1
fi
