#!/usr/bin/env bash
# Glob (through `wright tool`) against fd on a large corpus.
#
# For each pattern: the mean wall time of both (goal: wright / fd <= 1.5) and whether they
# agree: the same total count, and Glob's 100 paths equal to the 100 newest of fd's list
# (newest first, ties by path, as Glob orders them).
#
# Usage: bash bench/glob_vs_fd.sh            (RUNS=N, BENCH_SOURCE=dir, BENCH_CORPUS=dir to change)
# Exit status: 0 when every pattern meets the goal with identical results.
set -euo pipefail
source "$(dirname "$0")/corpus.sh"

GOAL=1.5
# Glob pattern, then the fd glob matched against file names that finds the same files.
CASES=(
    '**/*.rs' '*.rs'
    '**/Cargo.toml' 'Cargo.toml'
    '**/*.{md,txt}' '*.{md,txt}'
)

FD=$(ensure_binary fdfind fd-find fd-find fd)
ensure_binary hyperfine hyperfine >/dev/null || echo "no hyperfine: timing with a shell loop"
build_wright
make_corpus
echo "fd: $("$FD" --version); runs per command: $RUNS"

# Reads fd's paths on stdin and Glob's JSON result from the file in $1; prints "same N files"
# or what differs.
compare() {
    python3 -c '
import json, os, sys
data = json.load(open(sys.argv[1]))["data"]
fd = [line.rstrip("\n").removeprefix("./") for line in sys.stdin if line.strip()]
def key(path):
    return (-os.stat(path).st_mtime_ns, path.split("/"))
newest = sorted(fd, key=key)[: len(data["files"])]
if data["total"] != len(fd):
    print("DIFFERENT totals: wright %d, fd %d" % (data["total"], len(fd)))
elif newest != data["files"]:
    print("DIFFERENT newest files")
else:
    print("same %d files" % len(fd))
' "$1"
}

failed=0
for ((i = 0; i < ${#CASES[@]}; i += 2)); do
    pattern=${CASES[i]}
    fd_glob=${CASES[i + 1]}
    args="{\"pattern\": $(json_string "$pattern")}"
    wright_cmd="$WRIGHT_TOOL -C . Glob '$args'"
    fd_cmd="$FD -t f -g '$fd_glob'"

    result=$(mktemp)
    (cd "$CORPUS" && $WRIGHT_TOOL -C . --json Glob "$args" >"$result")
    same=$(cd "$CORPUS" && "$FD" -t f -g "$fd_glob" | compare "$result")
    rm -f "$result"
    case $same in same*) ;; *) failed=1 ;; esac

    wright_s=$(mean_seconds "$wright_cmd")
    fd_s=$(mean_seconds "$fd_cmd")
    r=$(ratio "$wright_s" "$fd_s")
    verdict=ok
    within "$r" "$GOAL" || { verdict="OVER GOAL $GOAL"; failed=1; }
    printf '%-16s wright %6.3f s   fd %6.3f s   ratio %s (%s)   %s\n' \
        "$pattern" "$wright_s" "$fd_s" "$r" "$verdict" "$same"
done
exit "$failed"
