# Shared by bench/grep_vs_rg.sh and bench/glob_vs_fd.sh (sourced, not run): the release build,
# the reference tools, the corpus, and a timer.
#
# The corpus is a hard-linked copy of the Cargo registry sources (tens of thousands of files)
# with an empty `.git` at its top. The `.git` matters: rg 13 and fd 8 apply `.gitignore` files
# only inside a repository, while wright applies them everywhere; with it all three tools
# skip exactly the same files.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SOURCE=${BENCH_SOURCE:-$HOME/.cargo/registry/src}
CORPUS=${BENCH_CORPUS:-${TMPDIR:-/tmp}/wright-bench-corpus}
RUNS=${RUNS:-10}

# ensure_binary BIN APT_PACKAGE [CARGO_PACKAGE [CARGO_BIN]]: installs BIN if it is missing,
# with apt-get or else `cargo install` (whose binary may have another name, e.g. fd-find's
# `fd` for Debian's `fdfind`). Prints the command to run; fails if there is none.
ensure_binary() {
    local bin=$1 apt_package=$2 cargo_package=${3:-} cargo_bin=${4:-$1}
    if ! command -v "$bin" >/dev/null && ! command -v "$cargo_bin" >/dev/null; then
        echo "installing $apt_package for $bin" >&2
        if command -v apt-get >/dev/null; then
            (apt-get install -y -qq "$apt_package" \
                || { apt-get update -qq && apt-get install -y -qq "$apt_package"; }) >&2 || true
        fi
        if ! command -v "$bin" >/dev/null && [ -n "$cargo_package" ]; then
            cargo install "$cargo_package" --locked >&2
        fi
    fi
    command -v "$bin" || command -v "$cargo_bin" || { echo "cannot install $bin" >&2; return 1; }
}

# build_wright: sets WRIGHT_TOOL to the command that runs one tool: `wright tool` from a
# release build, or, while the CLI does not build (other crates mid-change), the wright-tools
# example that does the same. The path must not contain spaces.
build_wright() {
    if (cd "$ROOT" && cargo build --release --quiet -p wright-cli 2>/dev/null); then
        WRIGHT_TOOL="$ROOT/target/release/wright tool"
    else
        echo "wright-cli does not build; using the wright-tools run_tool example" >&2
        (cd "$ROOT" && cargo build --release --quiet -p wright-tools --example run_tool)
        WRIGHT_TOOL="$ROOT/target/release/examples/run_tool"
    fi
    echo "tool runner: $WRIGHT_TOOL"
}

make_corpus() {
    if [ ! -d "$CORPUS" ]; then
        [ -d "$SOURCE" ] || { echo "no corpus: $SOURCE does not exist (set BENCH_SOURCE)" >&2; exit 1; }
        mkdir -p "$CORPUS"
        cp -al "$SOURCE/." "$CORPUS/" 2>/dev/null || cp -a "$SOURCE/." "$CORPUS/"
    fi
    mkdir -p "$CORPUS/.git"
    echo "corpus: $CORPUS ($(find "$CORPUS" -type f -not -path '*/.git/*' | wc -l) files)"
}

# json_string TEXT: TEXT as a JSON string literal.
json_string() {
    python3 -c 'import json, sys; print(json.dumps(sys.argv[1]))' "$1"
}

# mean_seconds CMD: mean wall time of CMD (a string run in $CORPUS) over $RUNS runs after two
# warm-up runs, with hyperfine when present, else a `date +%s%N` loop.
mean_seconds() {
    local cmd=$1
    if command -v hyperfine >/dev/null; then
        local out
        out=$(mktemp)
        (cd "$CORPUS" && hyperfine --style none --warmup 2 --runs "$RUNS" --export-json "$out" "$cmd" >/dev/null 2>&1)
        python3 -c 'import json, sys; print("%.4f" % json.load(open(sys.argv[1]))["results"][0]["mean"])' "$out"
        rm -f "$out"
    else
        local start end i
        (cd "$CORPUS" && for i in 1 2; do eval "$cmd" >/dev/null; done)
        start=$(date +%s%N)
        (cd "$CORPUS" && for ((i = 0; i < RUNS; i++)); do eval "$cmd" >/dev/null; done)
        end=$(date +%s%N)
        python3 -c 'import sys; print("%.4f" % ((int(sys.argv[2]) - int(sys.argv[1])) / 1e9 / int(sys.argv[3])))' "$start" "$end" "$RUNS"
    fi
}

# ratio A B: A / B to two decimals.
ratio() {
    python3 -c 'import sys; print("%.2f" % (float(sys.argv[1]) / float(sys.argv[2])))' "$1" "$2"
}

# within RATIO GOAL: exit status 0 when RATIO <= GOAL.
within() {
    python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) <= float(sys.argv[2]) else 1)' "$1" "$2"
}
