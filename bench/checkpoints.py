#!/usr/bin/env python3
"""What checkpoints cost a step (issue 13), measured through the real binary.

A 10,000-file project (nested directories, 100 B to 24 KiB files, an ignored target/ of
build output) runs `wright exec` rounds of STEPS Bash steps each against the testkit server,
with `[checkpoints] enabled = false` and with them on. The difference in wall time per round,
divided by the steps, is what a checkpoint adds to a step (one snapshot before each Bash
step, one at the end of the round). The first round of each process pays for a cold store
(the saved walk is read from disk), so several rounds are timed.

Usage: python3 bench/checkpoints.py [rounds] [steps]   (builds with `cargo build --release`)
Goal (issue 13): about 20 ms for an unchanged 10k-file project, at most 40 ms a step.
"""

import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 10
STEPS = int(sys.argv[2]) if len(sys.argv) > 2 else 10
FILES = 10_000


def make_project(path):
    rng = random.Random(13)
    os.makedirs(path)
    for i in range(FILES):
        d = os.path.join(path, "src", f"m{i % 25}", f"d{i % 500}")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, f"f{i}.rs"), "wb") as f:
            f.write(b"x" * rng.randint(100, 24 * 1024))
    os.makedirs(os.path.join(path, "target"))
    for i in range(200):
        with open(os.path.join(path, "target", f"o{i}.o"), "wb") as f:
            f.write(b"\0" * 4096)
    with open(os.path.join(path, ".gitignore"), "w") as f:
        f.write("target/\n")


def round_script(steps):
    step = {"text": 'Thought: look.\nAction: Bash[{"command": "true"}]',
            "usage": {"prompt_tokens": 3000, "completion_tokens": 10}}
    finish = {"text": "Thought: done\nAction: Finish[done]",
              "usage": {"prompt_tokens": 3000, "completion_tokens": 10}}
    return [step] * steps + [finish]


def time_rounds(wright, testkit, project, home, enabled):
    # The user's settings: a project's own may not turn checkpoints off unless trusted.
    config = os.path.join(home, ".config", "wright")
    os.makedirs(config, exist_ok=True)
    with open(os.path.join(config, "config.toml"), "w") as f:
        f.write(f"[checkpoints]\nenabled = {'true' if enabled else 'false'}\n")
    script = os.path.join(home, f"script-{enabled}.json")
    with open(script, "w") as f:
        json.dump({"responses": round_script(STEPS) * ROUNDS}, f)
    server = subprocess.Popen([testkit, "serve", script],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        url = server.stdout.readline().strip()
        env = {"PATH": os.environ.get("PATH", ""), "HOME": home,
               "WRIGHT_HOME": os.path.join(home, "state"), "WRIGHT_BASE_URL": url,
               "WRIGHT_MODEL": "bench", "WRIGHT_API_KEY": "bench",
               "WRIGHT_CONTEXT_WINDOW": "200000"}
        times = []
        for _ in range(ROUNDS):
            start = time.perf_counter()
            subprocess.run([wright, "exec", "--session", f"bench-{enabled}", "go"],
                           cwd=project, env=env, check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            times.append(time.perf_counter() - start)
        return times
    finally:
        server.kill()


def main():
    subprocess.run(["cargo", "build", "--release", "-p", "wright-cli", "-p", "wright-testkit"],
                   cwd=ROOT, check=True)
    target = os.path.join(ROOT, "target", "release")
    wright, testkit = os.path.join(target, "wright"), os.path.join(target, "wright-testkit")
    with tempfile.TemporaryDirectory() as tmp:
        project = os.path.join(tmp, "proj")
        make_project(project)
        subprocess.run(["git", "init", "-q"], cwd=project, check=True)
        off = time_rounds(wright, testkit, project, tmp, False)
        on = time_rounds(wright, testkit, project, tmp, True)
    off_med, on_med = statistics.median(off), statistics.median(on)
    # The first round with checkpoints builds the store from nothing; the rest are warm.
    warm = statistics.median(on[1:]) if len(on) > 1 else on_med
    print(f"{FILES} files, {STEPS} Bash steps a round, {ROUNDS} rounds each")
    print(f"round, checkpoints off: median {off_med * 1000:.0f} ms")
    print(f"round, checkpoints on:  median {on_med * 1000:.0f} ms "
          f"(first round, cold store: {on[0] * 1000:.0f} ms)")
    per_step = (warm - off_med) / (STEPS + 1)
    print(f"added per checkpoint (warm rounds): {per_step * 1000:.1f} ms")


if __name__ == "__main__":
    main()
