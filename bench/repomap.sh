#!/usr/bin/env bash
# RepoMap and Definitions on a 1,000-file repository, cold (nothing cached: a fresh
# $WRIGHT_HOME) and warm (the tag cache of the run before), against `ctags -R` on the same tree.
# Each figure is the wall time of a whole `wright tool` process (release build), the median of
# 5 runs; cold runs start from an empty cache each time.
#
# Usage: bench/repomap.sh [DIR]   (default: a tree of the first 1,000 `.rs` files of the crates
# in ~/.cargo/registry, made under /tmp)
#
# Session 31 (median of 5; RepoMap's search for how many definitions fit starts at
# budget / 8 and its ranking reads the files' mentions on two threads; masking compiles no
# secret pattern for a result without their words; Definitions stops at its cap; two runs of
# the script, the machine at two speeds within the hour: ctags -R 607 and 399 ms):
#   tree                          RepoMap cold  warm  warm 8000  Definitions cold  warm  ctags -R
#   1,000 .rs files (slow hour)        405 ms  100 ms    97 ms          95 ms   55 ms  607 ms
#   1,000 .rs files                    293      81       88             99      43     399
#   Go 1.19 net+go+os+internal         250      74       81            150      49     222
#   (warm RepoMap of the 1,000 files: 297 -> 202 M instructions, rank 96 M and the cache's
#   JSON 72 M of what is left; interleaved min/median 62/94 -> 60/87 ms for the two threads)
#
# Session 30 (same machine as session 29, as noisy; Definitions cold and ctags -R writing its
# tags file run alternately, 11 runs each, min / median in ms; C/C++ skeletons leave out
# macro words and in-statement conditionals' lines, the walk skips parameter lists, and a
# call's fixed cost is less: node types read typed, the secret set compiled while the tree
# is walked, a result's data masked string by string only if it may hold a secret):
#   tree                          Definitions cold   ctags -R     (one thread's index,
#                                   min   median    min  median    instructions, s29 -> s30)
#   protobuf 3.21 headers (C++)     146    183      122    181     1,229 -> 1,139 M
#   fmt 9.1.0 (C++)                  44     48       41     59       237 ->   216 M
#   spdlog 1.10 headers (C++)        26     32       26     37       132 ->   120 M
#   googletest 1.12.1 (C++)          95    120      147    215       847 ->   827 M
#   nlohmann-json 3.11.2 (C++)       53     58       60     86       280 ->   248 M
#   abseil 20220623 headers (C++)   127    145      128    193     1,044 ->   960 M
#   rapidjson 1.1 (C++)              38     45       40     55       185 ->   160 M
#   1,000 .rs files (13 MB)         249    302      414    554
#   Go 1.19 net+go+os+internal      176    198      219    269
#   (protobuf, fmt, spdlog, Rust and Go alternately; googletest, nlohmann-json, abseil and
#   rapidjson 9 runs of each, one after the other). RepoMap of the 1,000 .rs files: cold 363 ms, warm 69-76 ms run back to
#   back (102 ms median in this script's run, the machine busy), 8,000 tokens warm 79 ms.
#   A `wright tool Definitions` of one small file: 17.6 -> 13.9 M instructions.
#
# Session 29 (a slower, noisier machine than session 28's: ctags -R took 1.3-2.7x as long on
# the same trees and repeated runs varied by +-30 %, so compare columns, not sessions; C and
# C++ skeletons joined into one text, template lists and prototypes' parameters left out, the
# walk by kind ids, the cache's tags shared; two runs where they differ):
#   tree                         RepoMap cold  warm  Definitions cold  warm  ctags -R (no file)
#   1,000 .rs files (13 MB)            444 ms  100 ms      355 ms   89 ms  613 (500)
#   Go 1.19 net+go+os+internal         316      99         219      79    349 (315)
#   /usr/lib/python3.11                359     113         294      70    633 (582)
#   OpenJDK 17 java.base              1339     238         582     104   1096 (1401)
#   /usr/lib/node_modules              566     121         520      92    724 (658)
#   zod 3.25.76 (TS)                   471      51      471, 478    50    388, 573 (404, 591)
#   googletest 1.12.1 (C++)            134      34         149      56    228 (140)
#   nlohmann-json 3.11.2 (C++)          83      23          59      32     94 (84)
#   fmt 9.1.0 (C++)                     54      21       61, 63     20     59, 62 (40, 61)
#   abseil 20220623 headers (C++)      204      55      196, 169    59    204, 194 (183, 173)
#   protobuf 3.21 headers (C++)        180      45      210, 208    59    183, 181 (165, 156)
#   spdlog 1.10 headers (C++)           52      21       52, 47     21     42, 41 (33, 37)
#   rapidjson 1.1 (C++)                 49      17          43      22     45 (47)
# Earlier the same session, before these changes (Definitions cold against ctags -R): fmt 89
# against 68, googletest 226 against 244, nlohmann-json 80 against 80. One thread's index of
# fmt's headers went 72 -> 40 ms with the template lists left out, protobuf's 1,573 -> 1,240 M
# instructions (valgrind) with prototypes and the walk.
#
# Figures (2-core machine, otherwise idle, 2026-11-27 session 28; release build; median of 5;
# runs vary by 10-20 % on this machine, so ties are ties; ctags with its tags file / without):
#   tree                                   RepoMap cold  warm  Definitions cold  warm  ctags -R
#   1,000 .rs files of ~/.cargo crates 12 MB    247 ms   66 ms       198 ms      46 ms  226/203
#   Go 1.19 net+go+os+internal (1,359 .go of
#     1,704 files, 9.9 MB)                      185 ms   49 ms       154 ms      38 ms  178/157
#   /usr/lib/python3.11 (667 .py in the walk)   237 ms   60 ms       195 ms      42 ms  325/306
#   OpenJDK 17 java.base (1,395 files, 26 MB)   416 ms   83 ms       349 ms      56 ms  440/394
#   googletest 1.12.1 (C++, 208 files)          131 ms   26 ms       129 ms      31 ms  119/ 73
#     final build of the session                                     114 ms              115/ 74
#   nlohmann-json 3.11.2 (C++, 468 files)        52 ms   14 ms        59 ms      16 ms   45/ 44
#     final build of the session                                      46 ms               45/ 43
#   fmt 9.1.0 (C++, 22 files, 13 headers), final build                54 ms               31/ 30
#   node_modules, final build                                         312 ms              362/344
#   /usr/lib/node_modules (JS, 1,994 files)     354 ms   63 ms       311 ms      53 ms  408/338
#   zod 3.25.76 (TS, 596 files)                 263 ms   35 ms       273 ms      33 ms  304/275
# (An earlier run the same hour: Go 191 against 171, googletest 125 against 80, nlohmann 55
# against 43, node_modules 298 against 374, both columns of ctags then being "no file".)
# Session 27 (Definitions cold): Rust 201, Go 161, Python 356, Java 378, googletest 270,
# nlohmann 160, node_modules 1,132, zod 495 ms; session 26: Rust 879, Go 749, Python 898,
# Java 1,136, googletest 436. Definitions is now as fast as `ctags -R` or faster on every tree
# but C++: googletest at ctags' time when ctags writes its tags file (1.5x ctags without
# one), nlohmann-json at ctags' time, fmt 1.7x (13 headers, the largest a thread's work
# alone). What made the difference, in order: each file's
# skeleton is parsed, not the file (skeleton.rs: bodies, parameters, values, fields, comments,
# and per language what defines nothing, left out of tree-sitter's included ranges; Python
# keeps only what leads to a definition; JavaScript/TypeScript leave out every block in which
# nothing may define something); every language walks the tree (walk.rs) instead of running
# a tag query (compiling the C++ query alone cost 75 ms a process); Definitions does not lex
# the names files mention (RepoMap does); the largest files are parsed first. Cold is
# CPU-bound on both cores; ctags is one thread. What is left in C++: tree-sitter's C++ parser
# reads about 4-5 MB/s of skeleton, most of it in error recovery from macros the grammar
# cannot read (`typedef GTEST_REMOVE_REFERENCE_AND_CONST_(T) RawT;`), and tree-sitter looks
# up the included range at every token from the first (`ts_lexer_goto`, ~10 % of the run).
# Warm (the cache of the run before, which a session's start-up indexing also makes) is a
# walk, a stat per file and the ranking.
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
# `ctags -R` as it is used writes its (sorted) tags file; with `-f /dev/null` it skips the
# sort and the writing, which saves it 2-40 ms (googletest: 72 against 113 ms). Both are shown.
ctags_ms() { # $1: the tags file
  for _ in 1 2 3 4 5; do
    local t0 t1
    t0=$(date +%s%N); ctags -R -f "$1" "$DIR" 2>/dev/null; t1=$(date +%s%N)
    echo $(( (t1 - t0) / 1000000 ))
  done | median
}
echo "RepoMap cold:      $(run cold RepoMap '{}') ms"
echo "RepoMap warm:      $(run warm RepoMap '{}') ms"
echo "RepoMap warm 8000: $(run warm RepoMap '{"max_tokens": 8000}') ms"
echo "Definitions cold:  $(run cold Definitions '{"path": "."}') ms"
echo "Definitions warm:  $(run warm Definitions '{"path": "."}') ms"
if command -v ctags > /dev/null; then
  echo "ctags -R:          $(ctags_ms "$HOME_DIR/tags") ms"
  echo "ctags -R, no file: $(ctags_ms /dev/null) ms"
fi
