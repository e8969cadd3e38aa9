#!/usr/bin/env bash
# The wall time of Definitions over a tree against `ctags -R` on the same tree, runs interleaved
# (this machine's timing varies by ±30 % from minute to minute; interleaving spreads that over
# all three): the `wright tool Definitions` call as the model makes it (a fresh $WRIGHT_HOME:
# no cache; capped at 5,000 definitions, the files past those not parsed), the whole tree's
# index (the `definitions` example: every file, every definition, both cores) and
# `ctags -R -f FILE`. Prints the fastest and the median run of each, in ms.
#
# Usage: bench/definitions_time.sh [RUNS] DIR...
#
# Session 31 (2-core machine, as noisy as session 30's; universal-ctags 5.9.0; 15 runs of
# each, interleaved; min/median ms; the tool capped at 5,000 definitions parses only the files
# before them (`index_files_until`; "capped": the tree holds more, protobuf's first 41 % of
# bytes hold 5,000, abseil's 59 %):
#   tree                          tool        whole       ctags -R
#   fmt 9.1.0 (C++)                 45/49       33/37       42/58    (41 runs: 39/48 27/37 40/59)
#   spdlog 1.10 (C++)               25/27       17/21       25/28    (41 runs: 25/34 17/25 27/40)
#   rapidjson 1.1 (C++)             27/37       20/24       33/37    (41 runs: 29/39 21/28 34/52)
#   nlohmann-json 3.11.2 (C++)      41/54       32/41       55/84
#   googletest 1.12.1 (C++)         83/119      86/112     143/221   (capped)
#   abseil 20220623 (C++)           94/120     104/129     125/195   (capped)
#   protobuf 3.21 (C++)            136/148     118/156     175/183   (capped)
#   tokio 1.54.1 (Rust)             99/117      80/104     163/232   (capped)
#   tree-sitter 0.27.1 (C/Rust)     37/44       24/31       78/84
#   python3.11 library             94/114     206/263     351/575   (capped)
#   openjdk-17 java.base          159/185     629/798    1002/1390  (capped)
#   rxjs 7.8.2 (TS/JS)            179/198     149/171     242/306
#   zod 3.25.76 (TS/JS)           253/322     311/395     378/546   (capped)
#   Go 1.19 net+go+os+internal    106/122     137/174     220/236   (capped)
#   1,000 .rs files (13 MB)        78/108     218/268     404/434   (capped)
# The whole index is every file's definitions with no cap; on fmt, spdlog and rapidjson the
# tool's extra 8-12 ms over it are a `wright tool` process's own: its settings, the result
# rendered, turned into data and masked (which no longer compiles the secret patterns unless
# a word they need is there: 8.1 -> 6.2 ms for a one-file call).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=15
if [[ "${1:-}" =~ ^[0-9]+$ ]]; then runs=$1; shift; fi
cargo build --release -q -p wright-cli
cargo build --release -q -p wright-code --example definitions
W=$PWD/target/release/wright
D=$PWD/target/release/examples/definitions
home=$(mktemp -d)
tags=$(mktemp)
trap 'rm -rf "$home" "$tags"' EXIT
ms() { local s e; s=$(date +%s%N); "$@" > /dev/null; e=$(date +%s%N); echo $(( (e - s) / 1000000 )); }
stats() { sort -n | awk '{a[NR]=$1} END {printf "%5d/%-5d", a[1], a[int((NR+1)/2)]}'; }
printf "%-28s %-11s %-11s %-11s\n" tree tool whole ctags
for dir in "$@"; do
  [ -d "$dir" ] || continue
  dir=$(cd "$dir" && pwd)
  tool=(); whole=(); ctags=()
  for _ in $(seq "$runs"); do
    rm -rf "${home:?}"/*
    tool+=("$(cd "$dir" && WRIGHT_HOME=$home ms "$W" tool Definitions '{"path":"."}')")
    whole+=("$(cd "$dir" && ms "$D" .)")
    ctags+=("$(ms ctags -R -f "$tags" "$dir" 2> /dev/null)")
  done
  printf "%-28s %s %s %s\n" "$(basename "$dir")" \
    "$(printf '%s\n' "${tool[@]}" | stats)" "$(printf '%s\n' "${whole[@]}" | stats)" \
    "$(printf '%s\n' "${ctags[@]}" | stats)"
done
