#!/usr/bin/env bash
# RepoMap and Definitions on a 1,000-file repository, cold (nothing cached: a fresh
# $WRIGHT_HOME) and warm (the tag cache of the run before), against `ctags -R` on the same tree.
# Each figure is the wall time of a whole `wright tool` process (release build), the median of
# 5 runs; cold runs start from an empty cache each time.
#
# Usage: bench/repomap.sh [DIR]   (default: a tree of the first 1,000 `.rs` files of the crates
# in ~/.cargo/registry, made under /tmp)
#
# Figures (2-core machine, otherwise idle, 2026-11-27; release build; median of 5):
#   tree                                   RepoMap cold  warm  warm 8000  Definitions cold  warm  ctags -R
#   1,000 .rs files of ~/.cargo crates 12 MB    890 ms    73 ms   83 ms        879 ms        76 ms  205 ms
#   Go 1.19 net+go+os+internal (1,357 .go of
#     1,704 files, 9.9 MB)                      750 ms    55 ms   58 ms        749 ms        77 ms  158 ms
# (Before the tree walk replaced the tag query for Rust and Go: Rust 1,161 / 1,142 ms cold, Go
# 915 / 989 ms.) Cold is CPU-bound on both cores: tree-sitter's parse alone is ~1.24 s of CPU
# on the Rust tree (75 % of the total now; the query was 0.8 s, the walk 0.26 s), where ctags
# reads ~50 MB/s with a hand-made lexer. Warm (the cache of the run before, which a session's
# start-up indexing also makes) is a walk, a stat per file and the ranking.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p wright-cli
WRIGHT="$PWD/target/release/wright"
DIR=${1:-}
if [ -z "$DIR" ]; then
  DIR=/tmp/wright-repomap-bench
  if [ ! -d "$DIR" ]; then
    REG=$(ls -d ~/.cargo/registry/src/*/ | head -1)
    mkdir -p "$DIR"
    (cd "$REG" && find . -path '*/src/*.rs' -size -200k | LC_ALL=C sort | head -1000) |
      while read -r f; do mkdir -p "$DIR/$(dirname "$f")"; cp "$REG/$f" "$DIR/$f"; done
  fi
fi
DIR=$(cd "$DIR" && pwd)
echo "tree: $DIR ($(find "$DIR" -type f | wc -l) files, $(du -sh --apparent-size "$DIR" | cut -f1))"
HOME_DIR=$(mktemp -d)
trap 'rm -rf "$HOME_DIR"' EXIT
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
run() { # $1: cold|warm, rest: tool and args
  local mode=$1; shift
  for _ in 1 2 3 4 5; do
    [ "$mode" = cold ] && rm -rf "$HOME_DIR/wh"
    local t0 t1
    t0=$(date +%s%N)
    (cd "$DIR" && WRIGHT_HOME="$HOME_DIR/wh" "$WRIGHT" tool "$@" > /dev/null)
    t1=$(date +%s%N)
    echo $(( (t1 - t0) / 1000000 ))
  done | median
}
ctags_ms() {
  for _ in 1 2 3 4 5; do
    local t0 t1
    t0=$(date +%s%N); ctags -R -f /dev/null "$DIR" 2>/dev/null; t1=$(date +%s%N)
    echo $(( (t1 - t0) / 1000000 ))
  done | median
}
echo "RepoMap cold:      $(run cold RepoMap '{}') ms"
echo "RepoMap warm:      $(run warm RepoMap '{}') ms"
echo "RepoMap warm 8000: $(run warm RepoMap '{"max_tokens": 8000}') ms"
echo "Definitions cold:  $(run cold Definitions '{"path": "."}') ms"
echo "Definitions warm:  $(run warm Definitions '{"path": "."}') ms"
command -v ctags > /dev/null && echo "ctags -R:          $(ctags_ms) ms"
