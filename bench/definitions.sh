#!/usr/bin/env bash
# Definitions (wright-code, tree-sitter tags) against ctags on the same trees: the share of
# ctags' functions/methods/types that Definitions finds (by file and name), the share of what
# Definitions reports that ctags knows, and the wall time of each (release build).
#
# Usage: bench/definitions.sh [DIR...]   (default: a Rust crate, a C crate's sources and the
# Python stdlib found on this machine)
#
# Figures (2-core machine, 2026-11-26, universal-ctags 5.9.0, Definitions single-threaded):
#   tree                      files  ctags  Defs   found of ctags'  known to ctags  Defs    ctags -R
#   tokio-1.54.1 (Rust)        523   6018   6018  100.0%            100.0%          0.86 s  0.14 s
#   tree-sitter-0.27.1 (C/Rs)   68   1220   1472   99.6%             99.9%          0.38 s  0.05 s
#   python3.11/asyncio          31    917    916   99.9%            100.0%          0.15 s  0.04 s
#   python3.11/email            28    553    553  100.0%            100.0%          0.09 s  0.02 s
#   /usr/lib/node_modules (JS) 1063   8309   9770   71.4%             82.5%          2.43 s  0.48 s
# Rust, C and Python meet the issue's 95% / 90%; JavaScript does not yet (ctags' functions
# assigned to object-literal properties and prototypes vs tree-sitter-javascript's query), and
# Definitions is 4-7x slower than ctags -R (tags queries over full parses, no parallelism yet).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p wright-code --example definitions
BIN=target/release/examples/definitions
REG=$(ls -d ~/.cargo/registry/src/*/ | head -1)
if [ $# -eq 0 ]; then
  set -- "$REG"tokio-1.* "$REG"tree-sitter-0.27.1 "$(ls -d /usr/lib/python3*/ | head -1)asyncio"
fi
for dir in "$@"; do
  [ -d "$dir" ] || continue
  dir=$(cd "$dir" && pwd)
  t0=$(date +%s.%N); "$BIN" "$dir" > /tmp/defs.$$ ; t1=$(date +%s.%N)
  ctags -R -f - --fields=+nK --kinds-C=+p --kinds-C++=+p "$dir" > /tmp/ctags.$$ 2>/dev/null; t2=$(date +%s.%N)
  # A second opinion on JavaScript (untimed): ctags 5.9's JavaScript parser takes a method named
  # `get` or `set` for an accessor's keyword, drops it, and after `get (key) {...}` drops the
  # rest of the class's methods too; its TypeScript parser (TypeScript is JavaScript with types)
  # reads them. Its tags count for `known` only.
  ctags -R -f - --fields=+nK --languages=TypeScript --langmap=TypeScript:+.js.mjs.cjs.jsx "$dir" > /tmp/ctags-js.$$ 2>/dev/null
  python3 - "$dir" /tmp/defs.$$ /tmp/ctags.$$ "$t0" "$t1" "$t2" /tmp/ctags-js.$$ <<'PY'
import sys
d, defs, tags, t0, t1, t2, js_tags = sys.argv[1:]
import re
# ctags' functions, methods and types (`member` is a Python method but a C struct field; Rust's
# `implementation` is an impl block, not a definition). Other languages name them otherwise:
# Go's `func`, `talias` (type alias) and `methodSpec` (an interface's method); JavaScript's
# `generator`, `getter` and `setter`; TypeScript's `alias`; Java's `annotation` (a type).
KINDS = {"function", "method", "class", "struct", "enum", "trait", "interface", "typedef",
         "type", "union", "func", "talias", "methodSpec", "generator", "getter", "setter",
         "alias", "annotation"}
JS = (".js", ".mjs", ".cjs", ".jsx")


def spelled(name):
    # ctags writes a C++ operator `operator ++`, tree-sitter as the source has it (`operator++`).
    return re.sub(r"\s+", "", name) if name.startswith("operator") else name


def minified(f):
    # A minified bundle is one line of generated code: neither tool's list of it means anything
    # to a reader, and each guesses differently at its names.
    return ".min." in f


ours = set()
for line in open(defs, errors="replace"):
    f, _, kind, name = line.rstrip("\n").split("\t", 3)
    if kind in {"module", "macro", "constant"} or minified(f):
        continue
    # ctags drops the `#` of a JavaScript private name (`#m() {}` is its `m`).
    if f.endswith(JS + (".ts", ".tsx")):
        name = name.lstrip("#")
    ours.add((f, spelled(name)))


def read_tags(path):
    """(name, file, kind, pattern) of each tag in a ctags file."""
    for line in open(path, errors="replace"):
        if line.startswith("!_"):
            continue
        parts = line.rstrip("\n").split("\t")
        # The pattern (third field) may hold tabs: the extension fields follow the part ending `;"`.
        end = next((i for i in range(2, len(parts)) if parts[i].endswith(';"')), None)
        if end is None or end + 1 >= len(parts):
            continue
        name = spelled(parts[0])
        if name.startswith(("__anon", "AnonymousFunction")):
            continue  # ctags' made-up name for an anonymous struct/union/enum or function
        yield name, parts[1], parts[end + 1], "\t".join(parts[2:end + 1])


theirs = set()
known = set()  # any ctags tag: a C prototype Definitions lists as a function is known to ctags
for name, f, kind, pattern in read_tags(tags):
    known.add((f, name))
    if kind == "class" and f.endswith(JS) and not re.search(r"\bclass\b", pattern):
        # ctags 5.9 calls `class` any JavaScript object literal (`const opts = { a: 1 }`) and any
        # name with a `.prototype`: a class only when the line declares one.
        continue
    if kind in KINDS or (kind == "member" and f.endswith((".py", ".pyi"))):
        theirs.add((f, name))
# Only files both know how to read (ctags has languages wright-code does not).
files = {f for f, _ in ours} & {f for f, _ in known}
known.update((f, name) for name, f, _, _ in read_tags(js_tags) if f.endswith(JS))
o = {x for x in ours if x[0] in files}
t = {x for x in theirs if x[0] in files}
both = len(o & t)
k = {x for x in known if x[0] in files}
print(f"{d}: {len(files)} files; ctags {len(t)} defs, Definitions {len(o)}; "
      f"found of ctags' {100*both/max(len(t),1):.1f}%, known to ctags {100*len(o & k)/max(len(o),1):.1f}%; "
      f"time Definitions {float(t1)-float(t0):.2f}s, ctags -R {float(t2)-float(t1):.2f}s")
PY
done
rm -f /tmp/defs.$$ /tmp/ctags.$$ /tmp/ctags-js.$$
