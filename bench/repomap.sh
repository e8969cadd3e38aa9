#!/usr/bin/env bash
# RepoMap and Definitions on a 1,000-file repository, cold (nothing cached: a fresh
# $WRIGHT_HOME) and warm (the tag cache of the run before), against `ctags -R` on the same tree.
# Each figure is the wall time of a whole `wright tool` process (release build), the median of
# 5 runs; cold runs start from an empty cache each time.
#
# Usage: bench/repomap.sh [DIR]   (default: a tree of the first 1,000 `.rs` files of the crates
# in ~/.cargo/registry, made under /tmp)
#
# Figures (2-core machine, otherwise idle, 2026-11-27 session 27; release build; median of 5):
#   tree                                   RepoMap cold  warm  Definitions cold  warm  ctags -R
#   1,000 .rs files of ~/.cargo crates 12 MB    244 ms   66 ms       201 ms      55 ms   225 ms
#   Go 1.19 net+go+os+internal (1,359 .go of
#     1,704 files, 9.9 MB)                      199 ms   52 ms       161 ms      42 ms   160 ms
#   /usr/lib/python3.11 (667 .py in the walk)   372 ms   58 ms       356 ms      41 ms   296 ms
#   OpenJDK 17 java.base (1,395 files, 26 MB)   445 ms   94 ms       378 ms      58 ms   388 ms
#   googletest 1.12.1 (C++, 208 files)          273 ms   26 ms       270 ms      37 ms    74 ms
#   nlohmann-json 3.11.2 (C++, 468 files)       168 ms   14 ms       160 ms      19 ms    48 ms
#   /usr/lib/node_modules (JS, 1,994 files)    1285 ms   86 ms      1132 ms      48 ms   329 ms
#   zod 3.25.76 (TS, 596 files)                 511 ms   37 ms       495 ms      41 ms   284 ms
# (Runs vary by ~10 % on this machine; Rust and Go sit at ctags' time, within that.)
# Before this session (tag queries over whole files for all but Rust/Go's tree walk): Rust
# 890/879 ms cold, Go 750/749, Python 898 (Definitions), Java 1,136, googletest 436. What made
# the difference: each file's skeleton is parsed (skeleton.rs: function bodies, parameters,
# values, fields and comments left out of tree-sitter's included ranges — Rust, Go, C, C++,
# Java, Python), Python and Java walk the tree instead of running the query, Definitions does
# not lex the names files mention (RepoMap does), and secret masking of the result no longer
# falls back from its DFA on non-ASCII text. Cold is CPU-bound on both cores; ctags is one
# thread. C++ pays ~75 ms once per process to compile its tag query (TypeScript ~70 ms), and
# JavaScript/TypeScript have no skeleton yet. Warm (the cache of the run before, which a
# session's start-up indexing also makes) is a walk, a stat per file and the ranking.
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
