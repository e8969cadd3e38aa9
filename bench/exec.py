#!/usr/bin/env python3
"""Whole-process figures for a one-step `wright exec` round against the testkit (issue 2).

Measures, on a release build:
  - wall time from start to exit of `wright exec` (goal <= 50 ms), median and p90 over N runs;
  - peak resident memory of the wright process (goal <= 30 MB);
  - the size of the first request body, i.e. system prompt plus tool descriptions (goal <= 24 KB);
  - the release binary's size.

Usage: python3 bench/exec.py [runs]   (builds with `cargo build --release` first)

The testkit server is on 127.0.0.1, so wright asks it for its context window at start (issue 11)
unless WRIGHT_CONTEXT_WINDOW is set in the environment, which is passed on.
"""

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUNS = int(sys.argv[1]) if len(sys.argv) > 1 else 50


def main():
    subprocess.run(
        ["cargo", "build", "--release", "-p", "wright-cli", "-p", "wright-testkit"],
        cwd=ROOT,
        check=True,
    )
    target = os.path.join(ROOT, "target", "release")
    wright = os.path.join(target, "wright")
    testkit = os.path.join(target, "wright-testkit")

    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(tmp, "script.json")
        record = os.path.join(tmp, "requests.jsonl")
        reply = {"text": "Thought: nothing to do\nAction: Finish[done]",
                 "usage": {"prompt_tokens": 3000, "completion_tokens": 10}}
        with open(script, "w") as f:
            json.dump({"responses": [reply] * (RUNS + 1)}, f)
        server = subprocess.Popen(
            [testkit, "serve", script, "--record", record],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        )
        try:
            url = server.stdout.readline().strip()
            env = {
                "PATH": os.environ.get("PATH", ""),
                "HOME": tmp,
                "WRIGHT_BASE_URL": url,
                "WRIGHT_MODEL": "bench",
                "WRIGHT_API_KEY": "bench",
            }
            # A set window skips asking the (local) server for it at start.
            if os.environ.get("WRIGHT_CONTEXT_WINDOW"):
                env["WRIGHT_CONTEXT_WINDOW"] = os.environ["WRIGHT_CONTEXT_WINDOW"]
            project = os.path.join(tmp, "project")
            os.mkdir(project)
            # One warm-up run (page cache), not counted.
            subprocess.run([wright, "exec", "hi"], cwd=project, env=env, check=True,
                           capture_output=True)
            times = []
            peak_kb = 0
            for _ in range(RUNS):
                start = time.perf_counter()
                child = subprocess.Popen([wright, "exec", "hi"], cwd=project, env=env,
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                # wait4 gives this child's own peak RSS (not cargo's, not the server's).
                _, status, usage = os.wait4(child.pid, 0)
                times.append((time.perf_counter() - start) * 1000)
                child.returncode = os.waitstatus_to_exitcode(status)
                if child.returncode != 0:
                    sys.exit(f"wright exec failed with {child.returncode}")
                peak_kb = max(peak_kb, usage.ru_maxrss)
        finally:
            server.terminate()
            server.wait()
        with open(record) as f:
            first_body = json.loads(f.readline())["body"]

    times.sort()
    print(f"runs: {RUNS}")
    print(f"wall time: median {statistics.median(times):.1f} ms, "
          f"p90 {times[int(len(times) * 0.9) - 1]:.1f} ms, min {times[0]:.1f} ms (goal <= 50 ms)")
    print(f"peak RSS: {peak_kb / 1024:.1f} MB (goal <= 30 MB)")
    print(f"first request body: {len(first_body.encode())} bytes (goal <= 24 KB)")
    print(f"release binary: {os.path.getsize(wright) / 1024 / 1024:.2f} MB")


if __name__ == "__main__":
    main()
