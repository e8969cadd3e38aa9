#!/usr/bin/env bash
# Wall time of `.ci/run` from a clean checkout of each COMMIT (default: HEAD), one after the
# other on this machine: a fresh worktree and a fresh target directory each, the crate registry
# shared (downloads are not what is measured). Run it on a quiet machine; compare commits in
# one run.
#
# Usage: bash bench/ci_time.sh [COMMIT ...]
set -euo pipefail
cd "$(dirname "$0")/.."

commits=("$@")
[ ${#commits[@]} -gt 0 ] || commits=(HEAD)
scratch=$(mktemp -d)
trap 'git worktree prune; rm -rf "$scratch"' EXIT

# Fetch every crate first so that no run pays for downloads.
cargo fetch --locked >/dev/null

for commit in "${commits[@]}"; do
    dir="$scratch/$(git rev-parse --short "$commit")"
    git worktree add --quiet --detach "$dir" "$commit"
    (cd "$dir" && cargo fetch --locked >/dev/null)
    start=$(date +%s%N)
    status=0
    (cd "$dir" && CARGO_TARGET_DIR="$dir/target" .ci/run >"$dir.log" 2>&1) || status=$?
    end=$(date +%s%N)
    tests=$(grep -Eo 'test result: [a-zA-Z]+\. [0-9]+ passed' "$dir.log" | awk '{s+=$4} END {print s+0}')
    binaries=$(grep -c '^     Running ' "$dir.log" || true)
    printf '%s  %6.1f s  exit %d  %d tests in %d test binaries\n' \
        "$(git rev-parse --short "$commit")" "$(awk "BEGIN {print ($end - $start) / 1e9}")" "$status" "$tests" "$binaries"
    git worktree remove --force "$dir"
done
