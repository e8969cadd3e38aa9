#!/usr/bin/env python3
"""A scripted 40-round session in which every round reads an 800-line file (issue 4).

The testkit reports usage in proportion to each request (bytes / 4), so compaction triggers as
it would against a real provider. Prints the largest request, the number of compactions, and
the total prompt tokens, against the same session keeping every full observation in history
(computed from the measured sizes of each round's parts).

Usage: python3 bench/context_growth.py [rounds]   (builds release binaries first)
"""

import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 40
BYTES_PER_TOKEN = 4
WINDOW = 200_000
SUMMARY = ("## 📌 Archived Session Summary\\n*(Contains context from A to B)*\\n"
           "### 🎯 Objectives & Status\\n* **Original Goal**: read big.txt repeatedly\\n" * 4)


def wait_for_recorder(record):
    """The testkit appends requests to the record file every 20 ms; wait until it is still."""
    import time
    last, still = -1, 0
    while still < 10:
        size = os.path.getsize(record) if os.path.exists(record) else 0
        still = still + 1 if size == last else 0
        last = size
        time.sleep(0.05)


def main():
    subprocess.run(["cargo", "build", "--release", "-p", "wright-cli", "-p", "wright-testkit"],
                   cwd=ROOT, check=True)
    target = os.path.join(ROOT, "target", "release")
    with tempfile.TemporaryDirectory() as tmp:
        project = os.path.join(tmp, "project")
        os.mkdir(project)
        with open(os.path.join(project, "big.txt"), "w") as f:
            for i in range(1, 801):
                f.write(f"fn function_{i}(input: &str) -> usize {{ input.len() + {i} }} // line {i}\n")
        read = {"text": 'Thought: read it\nAction: Read[{"file_path": "big.txt"}]',
                "usage_from_request": True}
        finish = {"text": "Thought: done\nAction: Finish[It holds 800 small functions.]",
                  "usage_from_request": True}
        script = {
            "responses": [read, finish] * ROUNDS,
            "routes": [{"body_contains": "You archive the older part of a conversation",
                        "response": {"text": SUMMARY.replace("\\n", "\n"),
                                     "usage_from_request": True}}],
        }
        script_path = os.path.join(tmp, "script.json")
        record = os.path.join(tmp, "requests.jsonl")
        with open(script_path, "w") as f:
            json.dump(script, f)
        server = subprocess.Popen([os.path.join(target, "wright-testkit"), "serve", script_path,
                                   "--record", record],
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        compactions = 0
        try:
            url = server.stdout.readline().strip()
            env = {"PATH": os.environ.get("PATH", ""), "HOME": tmp, "WRIGHT_HOME": tmp,
                   "WRIGHT_BASE_URL": url, "WRIGHT_MODEL": "bench", "WRIGHT_API_KEY": "bench"}
            for i in range(1, ROUNDS + 1):
                out = subprocess.run([os.path.join(target, "wright"), "exec", "--json",
                                      "--session", "bench", f"round {i}: what is in big.txt?"],
                                     cwd=project, env=env, capture_output=True, text=True)
                if out.returncode != 0:
                    sys.exit(f"round {i} failed: {out.stderr}")
                compactions += sum(1 for line in out.stdout.splitlines()
                                   if '"type":"compaction_finished"' in line)
                if os.environ.get("VERBOSE"):
                    kinds = [json.loads(line)["type"] for line in out.stdout.splitlines()]
                    print(i, [k for k in kinds if k not in ("assistant_delta", "usage")], file=sys.stderr)
            wait_for_recorder(record)
            import time
            time.sleep(0.1)
        finally:
            server.terminate()
            server.wait()
        with open(record) as f:
            requests = [json.loads(line) for line in f if line.endswith("\n")]

    print(f"recorded {len(requests)} requests", file=sys.stderr)
    main_requests = [r for r in requests if "You archive the older part" not in r["body"]]
    summary_requests = [r for r in requests if "You archive the older part" in r["body"]]
    sizes = [len(r["body"].encode()) for r in requests]
    total_tokens = sum(s // BYTES_PER_TOKEN for s in sizes)

    # The same session keeping every full observation: each round adds its question, its Read
    # step, the full observation and its Finish step to every later request.
    first = json.loads(main_requests[0]["body"])
    base = len(main_requests[0]["body"].encode()) - len(json.dumps(first["messages"][-1]).encode())
    naive_total, history, naive_largest, overflow_round = 0, 0, 0, None
    for i in range(ROUNDS):
        second = json.loads(main_requests[2 * i + 1]["body"])
        user, step, obs = (len(json.dumps(m).encode()) for m in second["messages"][-3:])
        finish_step = len(json.dumps({"role": "assistant", "content": finish["text"]}).encode())
        req1 = base + history + user
        req2 = req1 + step + obs
        naive_total += (req1 + req2) // BYTES_PER_TOKEN
        naive_largest = max(naive_largest, req2)
        if overflow_round is None and req2 // BYTES_PER_TOKEN > WINDOW:
            overflow_round = i + 1
        history += user + step + obs + finish_step

    if os.environ.get("VERBOSE"):
        print("request sizes (k tokens):", [len(r["body"]) // BYTES_PER_TOKEN // 1000 for r in requests])
    print(f"rounds: {ROUNDS}, requests: {len(main_requests)} + {len(summary_requests)} summary calls")
    print(f"compactions: {compactions}")
    print(f"largest request: {max(sizes)} bytes (~{max(sizes) // BYTES_PER_TOKEN} tokens; window {WINDOW})")
    print(f"total prompt tokens: {total_tokens}")
    print(f"keeping every full observation: total {naive_total} tokens, largest request "
          f"~{naive_largest // BYTES_PER_TOKEN} tokens"
          + (f", over the window from round {overflow_round}" if overflow_round else ""))
    print(f"saved: {100 * (1 - total_tokens / naive_total):.1f}% of prompt tokens")


if __name__ == "__main__":
    main()
