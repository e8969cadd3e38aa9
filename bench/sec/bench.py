#!/usr/bin/env python3
"""`wright sec scan` against flawfinder on wright-sec's labelled fixtures (issue 16).

The fixtures are flawed/fixed pairs: crates/wright-sec/tests/fixtures/{c,rust}/<dir>/{bad,good}_N.*
For each category it reports
  - the detection rate: the share of flawed (bad_*) files with at least one finding, for wright
    at any severity and at medium or above, for flawfinder at its default level (1);
  - the false-alarm rate: the share of fixed (good_*) files with a finding, the same ways.
flawfinder reads only C/C++, so its Rust cells are empty. Then both are timed on the same
tree: the fixtures copied COPIES times (and, with --tree, a real tree too), median of RUNS.

Usage: python3 bench/sec/bench.py [--wright PATH] [--copies 50] [--runs 3] [--tree DIR]
  Without --wright it builds `cargo build --release -p wright-cli`. flawfinder is installed
  with pip into a venv under /tmp (made once, reused).
Goal (issue 16): at least 60% of flawed code flagged, at most ~10% of fixed code; at most twice
flawfinder's time on the same tree.
"""

import argparse
import csv
import io
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = os.path.join(ROOT, "crates", "wright-sec", "tests", "fixtures")
VENV = os.path.join(tempfile.gettempdir(), "wright-bench-flawfinder-venv")
C_EXTENSIONS = (".c", ".h", ".cc", ".cpp", ".hpp", ".cxx")
# The Rust fixtures are grouped by pattern; their category (src/rust/rules.rs).
RUST_CATEGORY = {
    "unsafe_block": "unsafe_usage",
    "raw_pointer_deref": "unsafe_usage",
    "raw_pointer": "unsafe_usage",
    "transmute": "unsafe_usage",
    "maybe_uninit": "unsafe_usage",
    "unwrap": "error_handling",
    "expect": "error_handling",
    "ignored_result": "error_handling",
    "extern_c": "ffi",
    "unsafe_impl_send_sync": "concurrency",
    "mem_forget": "resource_management",
}


def sh(cmd, **kwargs):
    return subprocess.run(cmd, check=True, **kwargs)


def wright_binary(given):
    if given:
        return os.path.abspath(given)
    sh(["cargo", "build", "--release", "-q", "-p", "wright-cli"], cwd=ROOT)
    return os.path.join(ROOT, "target", "release", "wright")


def flawfinder_binary():
    exe = os.path.join(VENV, "bin", "flawfinder")
    if not os.path.exists(exe):
        sh([sys.executable, "-m", "venv", VENV])
        sh([os.path.join(VENV, "bin", "pip"), "install", "-q", "flawfinder"])
    return exe


def labelled_files():
    """[(language, directory, kind, relative path)] under FIXTURES, kind 'bad' or 'good'."""
    files = []
    for lang in sorted(os.listdir(FIXTURES)):
        lang_dir = os.path.join(FIXTURES, lang)
        if not os.path.isdir(lang_dir):
            continue
        for group in sorted(os.listdir(lang_dir)):
            group_dir = os.path.join(lang_dir, group)
            if not os.path.isdir(group_dir):
                continue
            for name in sorted(os.listdir(group_dir)):
                kind = name.split("_", 1)[0]
                if kind in ("bad", "good"):
                    files.append((lang, group, kind, f"{lang}/{group}/{name}"))
    return files


def category(lang, group):
    return f"{lang}/{RUST_CATEGORY.get(group, group) if lang == 'rust' else group}"


def wright_findings(wright, tree):
    """{relative file: highest severity rank (1 low, 2 medium, 3 high)} from one scan."""
    out = subprocess.run(
        [wright, "sec", "scan", tree, "--min-severity", "low", "--json", "-"],
        capture_output=True, text=True)
    if out.returncode not in (0, 1):
        sys.exit(f"wright failed ({out.returncode}): {out.stderr}")
    rank = {"low": 1, "medium": 2, "high": 3}
    best = defaultdict(int)
    for issue in json.loads(out.stdout)["issues"]:
        best[issue["file"]] = max(best[issue["file"]], rank[issue["severity"]])
    return best


def flawfinder_findings(flawfinder, tree):
    """{relative file: number of hits} at flawfinder's default level."""
    out = subprocess.run([flawfinder, "--csv", "--quiet", "."], cwd=tree,
                         capture_output=True, text=True)
    hits = defaultdict(int)
    for row in csv.DictReader(io.StringIO(out.stdout)):
        path = os.path.normpath(row["File"])
        hits[path] += 1
    return hits


def rate(hit, total):
    return f"{100 * hit / total:5.1f}% ({hit}/{total})" if total else "     -"


def detection_table(files, wright_best, flaw_hits):
    rows = defaultdict(lambda: defaultdict(int))
    for lang, group, kind, path in files:
        for key in (category(lang, group), f"{lang} (all)", "all"):
            row = rows[key]
            row[kind] += 1
            row[f"{kind}_any"] += wright_best.get(path, 0) >= 1
            row[f"{kind}_med"] += wright_best.get(path, 0) >= 2
            if lang == "c":
                row[f"{kind}_c"] += 1
                row[f"{kind}_ff"] += flaw_hits.get(path, 0) > 0
    head = ("category", "bad", "wright any", "wright >=medium", "flawfinder",
            "good", "wright any", "wright >=medium", "flawfinder")
    print("\nDetection (flawed files flagged) and false alarms (fixed files flagged):\n")
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    order = sorted(k for k in rows if "(" not in k and k != "all")
    order += sorted(k for k in rows if "(" in k) + ["all"]
    for key in order:
        r = rows[key]
        print("| " + " | ".join([
            key, str(r["bad"]), rate(r["bad_any"], r["bad"]), rate(r["bad_med"], r["bad"]),
            rate(r["bad_ff"], r["bad_c"]),
            str(r["good"]), rate(r["good_any"], r["good"]), rate(r["good_med"], r["good"]),
            rate(r["good_ff"], r["good_c"]),
        ]) + " |")


def timed(cmd, runs, cwd=None):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def count_files(tree, extensions):
    return sum(1 for _, _, names in os.walk(tree) for n in names if n.endswith(extensions))


def time_table(wright, flawfinder, trees, runs):
    print(f"\nTime (median of {runs} runs, wall clock):\n")
    print("| tree | C/C++ files | Rust files | wright (all) | wright --lang c,cpp | flawfinder | ratio c,cpp/flawfinder |")
    print("|---|---|---|---|---|---|---|")
    for name, tree in trees:
        w_all = timed([wright, "sec", "scan", tree, "--json", os.devnull], runs)
        w_c = timed([wright, "sec", "scan", tree, "--lang", "c,cpp", "--json", os.devnull], runs)
        ff = timed([flawfinder, "--csv", "--quiet", tree], runs)
        print(f"| {name} | {count_files(tree, C_EXTENSIONS)} | {count_files(tree, ('.rs',))} "
              f"| {w_all:.3f} s | {w_c:.3f} s | {ff:.3f} s | {w_c / ff:.2f} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--wright", help="a built wright binary (default: build release)")
    parser.add_argument("--copies", type=int, default=50)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--tree", help="also time both on this directory")
    args = parser.parse_args()

    wright = wright_binary(args.wright)
    flawfinder = flawfinder_binary()
    version = subprocess.run([flawfinder, "--version"], capture_output=True, text=True).stdout
    print(f"wright: {wright}\nflawfinder {version.strip()}")

    files = labelled_files()
    with tempfile.TemporaryDirectory(prefix="wright-sec-bench-") as tmp:
        labelled = os.path.join(tmp, "labelled")
        for lang in {f[0] for f in files}:
            shutil.copytree(os.path.join(FIXTURES, lang), os.path.join(labelled, lang))
        detection_table(files, wright_findings(wright, labelled),
                        flawfinder_findings(flawfinder, labelled))

        copies = os.path.join(tmp, "copies")
        for i in range(args.copies):
            shutil.copytree(labelled, os.path.join(copies, f"copy{i}"))
        trees = [(f"fixtures x{args.copies}", copies)]
        if args.tree:
            trees.append((args.tree, os.path.abspath(args.tree)))
        time_table(wright, flawfinder, trees, args.runs)


if __name__ == "__main__":
    main()
