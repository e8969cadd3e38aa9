#!/usr/bin/env python3
"""The cost workload of issue 19: what a 40-round session costs under prefix caching.

The workload is the one of bench/context_growth.py: one session (`wright exec --session bench`,
one process per user turn, so 40 user turns of the same session), each round asking about an
800-line file; the scripted model reads it (one Read action) and answers (Finish). The testkit
records every request body it receives; summary calls are routed to a fixed summary as in
context_growth.py. Everything runs against the testkit on 127.0.0.1.

Cost model, computed from the recorded request bodies (what the provider receives):
  - The prompt of a request is a canonical serialization of its parts in the order a provider
    puts them in its prompt: the tool definitions (`tools`, if any), the system prompt
    (Anthropic `system`, Responses `instructions`; on the OpenAI chat wire it is the first
    message), then every message (`messages`, Responses `input`) in order. Each part is
    written as compact JSON (json.dumps with separators (",", ":"), key order as sent,
    ensure_ascii=False, `cache_control` markers removed since they are not prompt text)
    followed by "\\n"; on the Anthropic wire a message whose content is a plain string is
    written as one text block, which is the same prompt. Prompt tokens = UTF-8 bytes of that
    text / 4. Model name, sampling parameters, metadata and `stream` flags are not counted.
    (The whole body's bytes / 4 is shown too, as "body".)
  - Cache-weighted prompt tokens: the longest common byte prefix of the request's canonical
    prompt with any of the 3 requests received before it (summary calls included, since the
    provider sees them too) bills at 0.10, the rest at 1.0.
  - Output tokens: bytes / 4 of the scripted reply each request got, billed at 1.0 and reported
    separately ("cost" = cache-weighted prompt + output).
  - Prefix breaks: for each request, the first part where its canonical prompt differs from
    the previous request's ("part k": parts counted from 0 in the order above; on the OpenAI
    chat wire part 0 is the system message, on the Anthropic wire part 0 is the tools), and
    the byte offset inside that part. A request that only appends to the previous one
    "extends" it. When the cached prefix came from an earlier request than the previous one,
    the table also says where the request leaves that one.

Usage: python3 bench/cost.py [--rounds N] [-v|-vv] [--compare claude] [--wright-config TOML]
  (builds release `wright` and `wright-testkit` first; -v prints the per-request table, -vv
  also the bytes on both sides of each break)

Figures (2026-11-27, 2 cores, release build, 40 rounds; the run is deterministic up to the
summary's times):
  wright with its defaults (read_history_lines = 50, summary_request = "separate"):
  80 requests (all main), 0 compactions
    total prompt tokens          2,739,240  (68,481 a round)
    cache-weighted prompt tokens   897,914  (22,448 a round; 74.7% of prompt tokens cached)
    output tokens                    1,080
    largest request                 64,330
  Where its cached prefix breaks: 40 requests (the second of each round, after Read) extend
  the previous one, the new live observation (all 800 lines, about 16.2k tokens) uncached;
  39 (the first of each round after the first) leave it in its last message, 26 bytes in,
  where the previous round's observation, sent whole, is now its history form cut to 50 lines
  (about 1.1k tokens billed in full). History grows by about 1.3k tokens a round, so 40
  rounds never reach the compaction threshold.

  The options (--wright-config), cache-weighted prompt tokens / total / largest request /
  compactions, 40 rounds:
    read_history_lines = 500 (spec A3's default; before issue 19 part 2)
                                              2,610,434 / 9,983,877 / 167,312 / 5
    500, summary_request = "session"          2,532,519 / 11,074,531 / 167,319 / 5
    read_history_lines = 200                  1,531,073 / 6,699,051 / 163,262 / 1
    200, summary_request = "session"          1,450,061 / 6,792,247 / 163,253 / 1
    read_history_lines = 100                  1,089,158 / 4,300,416 / 103,359 / 0
    read_history_lines = 50 (the default)       897,866 / 2,738,856 /  64,320 / 0
    read_history_lines = 20                     783,206 / 1,802,856 /  40,920 / 0
    read_history_lines = 0 (position only)      707,437 / 1,184,332 /  25,457 / 0
  and 80 rounds: 500: 5,823,936 (13 compactions); 500 + session: 5,623,193 (13); 100:
  2,693,526 (1); 100 + session: 2,592,596 (1); 50: 2,154,279 (0); 0: 1,453,469 (0).
  summary_request = "session" sends the summary call as the session's own request with the
  summary instructions last, so it bills about 11.1k tokens in full instead of 52.7k; it
  does nothing for the request after a compaction (below), which is most of what a
  compaction costs.

  Before (2026-11-26, read_history_lines = 500 as spec A3 has it, the only behaviour then):
  90 requests (80 main + 10 summary calls, 2 per compaction), 5 compactions
    total prompt tokens          9,963,769  (249,094 a round)
    cache-weighted prompt tokens 2,608,240  (65,206 a round; 82.0% of prompt tokens cached)
    output tokens                    2,480
    largest request                167,062
  Where wright's cached prefix breaks (request vs the one before it):
    - 40 requests (the second of each round, after Read) extend the previous one; the new
      live observation is the uncached part (about 16.2k tokens).
    - 34 requests (the first of each round, except round 1 and the 5 after a compaction)
      leave the previous request in its last message, 26 bytes in: the previous round's
      observation went out live as "Observation:" + all 800 lines (64.5 KB), and the next
      round (a new `wright exec` process on the stored session) sends it instead in its stored
      form, "[tool] {"status":"success","data":{"content":...}}" cut to 500 lines
      ("content_lines_dropped":300; 41.5 KB). So every round pays that rewritten observation,
      about 10.4k tokens, in full, although it is smaller than the live one.
    - each compaction makes 2 summary calls; the first has the archiver's own system prompt,
      so it shares 34 bytes with the main prompt and bills all 52.7k tokens in full; the
      second extends the first.
    - the 5 requests after a compaction share only the system prompt up to where the summary
      sits in it (part 0, 15,526 bytes in, vs the last main request): the summary is in the
      system message, so the whole kept history after it (about 104.5k tokens) is uncached.

Comparison with Codex CLI and Claude Code (time-boxed to 35 minutes):
  Claude Code 2.1.197 (`--compare claude`; npm install --prefix /tmp/claude
  @anthropic-ai/claude-code, or CLAUDE_BIN) runs the same 40 rounds as one session
  (`claude -p --session-id`, then `--resume`), its Read as a native tool_use block sent
  through the testkit's raw_sse, ANTHROPIC_BASE_URL at the testkit. Its default model
  (claude-opus-4-8) has a 1M-token window, so CLAUDE_CODE_AUTO_COMPACT_WINDOW=200000 makes
  it compact within 200k as wright does. Replies report the round's measured request sizes as
  usage (see run_claude). Figures:
    84 requests (80 main + 4 summary calls), 4 compactions
    total prompt tokens          8,043,523  (201,088 a round)
    cache-weighted prompt tokens 1,396,078  (34,902 a round; 91.8% cached)
    output tokens                    1,364
    largest request                161,300
  Its prompt is append-only: every request extends the previous one, its summary call is the
  main request with the last message replaced by the summary instruction (so 99% cached), and
  the request after a compaction keeps the tool definitions cached (after the first
  compaction, 71 bytes into the system prompt; after the later ones, also the system prompt
  and the first messages): 15.8k-17.7k tokens cached, about 16-18k billed in full. Its
  observation is 62 KB a round (all 800 lines, numbered). The run takes about 6 minutes.
  wright / Claude Code: total prompt 0.34x, cache-weighted 0.64x, largest request 0.40x
  (before, at read_history_lines = 500: 1.24x, 1.87x, 1.04x).
  (Without CLAUDE_CODE_AUTO_COMPACT_WINDOW Claude Code never compacts: 80 requests, total
  26,501,901, cache-weighted 3,229,426, largest 643,595 -- beyond a 200k model's window;
  wright / that: cache-weighted 0.28x; before, 0.81x.)
  Network: for Claude Code the proxies (HTTP(S)_PROXY, ALL_PROXY) point at 127.0.0.1:9 with
  NO_PROXY=127.0.0.1, and DISABLE_TELEMETRY, DISABLE_ERROR_REPORTING, DISABLE_AUTOUPDATER,
  DISABLE_BUG_COMMAND, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC and DO_NOT_TRACK are set; HOME
  is a temporary directory. This blocks egress that honours proxies; it was not checked with a
  packet capture.

  Codex CLI 0.171.0 (`--compare codex`; npm install --prefix /tmp/codex @openai/codex, or
  CODEX_BIN) runs the same 40 rounds as one session (`codex exec`, then `codex exec resume
  <thread id>`), with the testkit as a custom model_provider (wire_api = "responses", which
  the testkit serves; 0.171 refuses wire_api = "chat"). Its default model, gpt-6.2-sol, has
  tool_mode code_mode_only: its tools (26 KB, sent as an `additional_tools` input item, not
  in `tools`) sit behind one custom tool, `exec`, that runs JavaScript, so the scripted model
  reads the file as such a model would, with a custom_tool_call
  `const r = await tools.exec_command({ cmd: "cat big.txt" }); text(r.output);` (Codex runs
  it in its default read-only sandbox), then answers. Its window is 500k;
  model_context_window = 200000 makes it compact within 200k as wright does, at its default
  90% (model_auto_compact_token_limit = 180000, set explicitly; the figures are the same
  without it). Replies report the request's size as usage (bytes / 4), which is what Codex
  compacts on. The run takes about 45 seconds; the figures vary by a token or two
  between runs (ids and timings in the observations). Figures:
    82 requests (80 main + 2 summary calls), 2 compactions (in rounds 16 and 32)
    total prompt tokens          7,248,248  (181,206 a round)
    cache-weighted prompt tokens 1,140,365  (28,509 a round; 93.6% cached)
    output tokens                    1,320
    largest request                181,681  (a summary call)
  Its observation: Codex caps a command's output at 10,000 tokens (its estimate, bytes / 4)
  by keeping the head and the tail. Of the 800 lines (57.3 KB), lines 1-282 and 523-800 reach
  the model (the two lines at the cut partly), joined by "…4319 tokens truncated…", under a
  "Warning: truncated output (original token count: 14319)" / "Total output lines: 800"
  header: 560 lines, 40.2 KB, about 10.2k tokens. Later rounds send it unchanged, since its
  history is append-only.
  Where its cached prefix breaks:
    - 77 requests extend the previous one: the first of a round adds the answer and the new
      question (about 80 tokens uncached), the second the observation (about 10.3k).
    - compaction happens mid-round, once the round's observation takes Codex's estimate past
      180k. The summary call is the history plus Codex's compaction prompt as a user message,
      so it extends the previous request (10.4k uncached). The request after it holds the
      tools, the base instructions, every earlier question verbatim, the re-sent developer
      and environment messages and the summary; it leaves the previous request at part 0,
      about 45 bytes in, because the `additional_tools` item gets a new `id`: about 16k tokens
      billed in full. Input items carry such ids and the cost model counts them as sent; if
      a provider does not treat them as prompt text, that request keeps about 13k tokens
      cached (the tools, the base instructions and the kept questions) and the run costs
      1,110,520 cache-weighted (2.6% less).
  wright / Codex CLI, with wright's default read_history_lines = 50 (2026-11-27 on main:
  2,739,240 total, 897,914 cache-weighted, 64,330 largest): total prompt 0.38x, cache-weighted
  0.79x, largest request 0.35x -- issue 19's target (at most 2x Codex cache-weighted) is met.
  Before (read_history_lines = 500, spec A3's default, the only behaviour until issue 19:
  9,984,295 total, 2,610,524 cache-weighted, 167,319 largest): 1.38x, 2.29x, 0.92x. Each
  round Codex pays about 0.1 x its history twice plus one 10.3k observation, and 2
  compactions cost it about 16k each; wright at 500 lines paid its 16.2k live observation and
  the 10.4k rewritten one of the round before, and each of its 5 compactions cost it 104.5k
  uncached plus a 52.7k summary call; at 50 lines it pays the 16.2k live observation, 1.1k for
  the rewritten one, and history grows 1.3k a round, so 40 rounds never compact.
  What makes it less faithful: the scripted model returns no reasoning, whereas a real
  gpt-6.2-sol returns encrypted reasoning items that Codex sends back in later requests
  (`include: ["reasoning.encrypted_content"]`), so real requests are larger; with a custom
  provider Codex compacts with a summary call through /responses, which may not be what it
  does against OpenAI's own endpoint; the JavaScript is our guess at what the model writes (a
  plain exec_command function call, which Codex also accepts, gives the same observation,
  40.9 KB as an input item). Network as for Claude Code: proxies at 127.0.0.1:9 with
  NO_PROXY=127.0.0.1, analytics and the update check off in config.toml, HOME and CODEX_HOME
  in a temporary directory; the testkit saw no request but POST /v1/responses.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BYTES_PER_TOKEN = 4
CACHE_WINDOW = 3
CACHED_RATE = 0.10
SUMMARY_MARK = "You archive the older part of a conversation"
SUMMARY = ("## 📌 Archived Session Summary\n*(Contains context from A to B)*\n"
           "### 🎯 Objectives & Status\n* **Original Goal**: read big.txt repeatedly\n" * 4)
READ = 'Thought: read it\nAction: Read[{"file_path": "big.txt"}]'
FINISH = "Thought: done\nAction: Finish[It holds 800 small functions.]"


def write_big_file(project):
    with open(os.path.join(project, "big.txt"), "w") as f:
        for i in range(1, 801):
            f.write(f"fn function_{i}(input: &str) -> usize {{ input.len() + {i} }} // line {i}\n")


def wait_for_recorder(record):
    """The testkit appends requests to the record file every 20 ms; wait until it is still."""
    last, still = -1, 0
    while still < 10:
        size = os.path.getsize(record) if os.path.exists(record) else 0
        still = still + 1 if size == last else 0
        last = size
        time.sleep(0.05)


def serve(testkit, tmp, script):
    """Starts the testkit on `script`; returns (process, base URL, record file)."""
    script_path = os.path.join(tmp, "script.json")
    record = os.path.join(tmp, "requests.jsonl")
    with open(script_path, "w") as f:
        json.dump(script, f)
    server = subprocess.Popen([testkit, "serve", script_path, "--record", record],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    return server, server.stdout.readline().strip(), record


def read_record(record):
    wait_for_recorder(record)
    with open(record) as f:
        return [json.loads(line) for line in f if line.endswith("\n")]


def run_wright(target, rounds, config=""):
    """Runs the workload with wright; returns ([(request, reply text)], compactions).

    `config` (TOML) is the run's user settings file: HOME and WRIGHT_HOME are the run's
    temporary directory, so it goes in $HOME/.config/wright/config.toml.
    """
    with tempfile.TemporaryDirectory() as tmp:
        project = os.path.join(tmp, "project")
        os.mkdir(project)
        write_big_file(project)
        if config:
            os.makedirs(os.path.join(tmp, ".config", "wright"))
            with open(os.path.join(tmp, ".config", "wright", "config.toml"), "a") as f:
                f.write(config + "\n")
        read = {"text": READ, "usage_from_request": True}
        finish = {"text": FINISH, "usage_from_request": True}
        script = {
            "responses": [read, finish] * rounds,
            "routes": [{"body_contains": SUMMARY_MARK,
                        "response": {"text": SUMMARY, "usage_from_request": True}}],
        }
        server, url, record = serve(os.path.join(target, "wright-testkit"), tmp, script)
        compactions = 0
        try:
            env = {"PATH": os.environ.get("PATH", ""), "HOME": tmp, "WRIGHT_HOME": tmp,
                   "WRIGHT_BASE_URL": url, "WRIGHT_MODEL": "bench", "WRIGHT_API_KEY": "bench"}
            for i in range(1, rounds + 1):
                out = subprocess.run([os.path.join(target, "wright"), "exec", "--json",
                                      "--session", "bench", f"round {i}: what is in big.txt?"],
                                     cwd=project, env=env, capture_output=True, text=True)
                if out.returncode != 0:
                    sys.exit(f"round {i} failed: {out.stderr}")
                compactions += sum(1 for line in out.stdout.splitlines()
                                   if '"type":"compaction_finished"' in line)
            requests = read_record(record)
        finally:
            server.terminate()
            server.wait()
    replies, scripted = [], iter(script["responses"])
    for request in requests:
        if SUMMARY_MARK in request["body"]:
            replies.append(SUMMARY)
        else:
            replies.append(next(scripted, {"text": ""})["text"])
    return list(zip(requests, replies)), compactions


# ---------------------------------------------------------------------------------------------
# Claude Code against the same testkit (Anthropic wire, native tool_use blocks sent as raw SSE).

CLAUDE = os.environ.get("CLAUDE_BIN", "/tmp/claude/node_modules/.bin/claude")
CLAUDE_SUMMARY_MARK = "Your task is to create a detailed summary of"
CLAUDE_ANSWER = "It holds 800 small functions."
CLAUDE_SUMMARY = "<analysis>bench</analysis>\n<summary>\n" + SUMMARY + "</summary>"
# Network egress we do not control goes to a closed local port; the testkit is on 127.0.0.1.
NO_EGRESS = {
    "HTTP_PROXY": "http://127.0.0.1:9", "HTTPS_PROXY": "http://127.0.0.1:9",
    "http_proxy": "http://127.0.0.1:9", "https_proxy": "http://127.0.0.1:9",
    "ALL_PROXY": "http://127.0.0.1:9", "NO_PROXY": "127.0.0.1", "no_proxy": "127.0.0.1",
    "DISABLE_TELEMETRY": "1", "DISABLE_ERROR_REPORTING": "1", "DISABLE_AUTOUPDATER": "1",
    "DISABLE_BUG_COMMAND": "1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "DO_NOT_TRACK": "1",
}
# The model Claude Code picks by default has a 1M-token window; compact within 200k as wright
# does (bench/context_growth.py), or the session grows past what a 200k model accepts.
CLAUDE_WINDOW = {"CLAUDE_CODE_AUTO_COMPACT_WINDOW": "200000"}


def sse(events):
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)


def anthropic_reply(message_id, block, stop_reason, input_tokens, output_tokens):
    """A raw Anthropic event stream holding one content block (text or tool_use)."""
    start = dict(block)
    deltas = []
    if block["type"] == "tool_use":
        start["input"] = {}
        deltas.append({"type": "input_json_delta", "partial_json": json.dumps(block["input"])})
    else:
        start["text"] = ""
        deltas.append({"type": "text_delta", "text": block["text"]})
    events = [{"type": "message_start", "message": {
        "id": message_id, "type": "message", "role": "assistant", "model": "claude-bench",
        "content": [], "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": input_tokens, "output_tokens": 1}}},
        {"type": "content_block_start", "index": 0, "content_block": start}]
    events += [{"type": "content_block_delta", "index": 0, "delta": d} for d in deltas]
    events += [{"type": "content_block_stop", "index": 0},
               {"type": "message_delta", "delta": {"stop_reason": stop_reason,
                                                   "stop_sequence": None},
                "usage": {"output_tokens": output_tokens}},
               {"type": "message_stop"}]
    return sse(events)


def claude_round_script(i, path, a_tokens, b_tokens):
    """Round i's two replies: a Read tool_use, then the answer; usage as the caller estimates."""
    # Distinct message ids: on --resume Claude Code merges the blocks of messages sharing one.
    read = anthropic_reply(f"msg_bench_read_{i}",
                           {"type": "tool_use", "id": f"toolu_bench_{i}", "name": "Read",
                            "input": {"file_path": path}}, "tool_use", a_tokens, 20)
    answer = anthropic_reply(f"msg_bench_answer_{i}", {"type": "text", "text": CLAUDE_ANSWER},
                             "end_turn", b_tokens, 10)
    return {"responses": [{"raw_sse": read}, {"raw_sse": answer}],
            "routes": [{"body_contains": CLAUDE_SUMMARY_MARK,
                        "response": {"text": CLAUDE_SUMMARY, "usage_from_request": True}}]}


def run_claude(target, rounds):
    """Runs the workload with Claude Code; returns ([(request, reply text)], compactions).

    A raw event stream carries fixed usage, and Claude Code decides when to compact from the
    usage it is told, so each round gets its own testkit whose replies report the round's real
    request sizes (bytes / 4): the round runs once with an estimate, and if the recorded
    requests differ from it by more than 5%, Claude Code's home is put back as it was before
    the round and the round runs again with the measured sizes.
    """
    testkit = os.path.join(target, "wright-testkit")
    requests, texts = [], []
    with tempfile.TemporaryDirectory() as tmp:
        project = os.path.join(tmp, "project")
        home = os.path.join(tmp, "home")
        os.mkdir(project)
        os.mkdir(home)
        write_big_file(project)
        path = os.path.join(project, "big.txt")
        session = "00000000-0000-4000-8000-000000000019"
        a_tokens, b_tokens, observation = 19000, 34500, 15500
        for i in range(1, rounds + 1):
            snapshot = os.path.join(tmp, "home-before")
            shutil.rmtree(snapshot, ignore_errors=True)
            shutil.copytree(home, snapshot, symlinks=True)
            for attempt in range(3):
                run_dir = os.path.join(tmp, f"round-{i}-{attempt}")
                os.mkdir(run_dir)
                server, url, record = serve(testkit, run_dir,
                                            claude_round_script(i, path, a_tokens, b_tokens))
                try:
                    env = {"PATH": os.environ.get("PATH", ""), "HOME": home,
                           "ANTHROPIC_BASE_URL": url, "ANTHROPIC_API_KEY": "bench",
                           **NO_EGRESS, **CLAUDE_WINDOW}
                    which = ["--session-id", session] if i == 1 else ["--resume", session]
                    out = subprocess.run([CLAUDE, "-p", *which, "--allowedTools=Read",
                                          "--output-format", "json",
                                          f"round {i}: what is in big.txt?"],
                                         cwd=project, env=env, capture_output=True, text=True,
                                         timeout=600)
                    got = read_record(record)
                finally:
                    server.terminate()
                    server.wait()
                if out.returncode != 0:
                    sys.exit(f"claude round {i} failed: {out.stdout}\n{out.stderr}")
                main = [r for r in got if CLAUDE_SUMMARY_MARK not in r["body"]]
                if len(main) < 2:
                    sys.exit(f"claude round {i}: {len(main)} main requests\n{out.stdout}")
                measured = [len(r["body"].encode()) // BYTES_PER_TOKEN for r in main[-2:]]
                close = all(abs(m - e) <= 0.05 * m for m, e in zip(measured, (a_tokens, b_tokens)))
                if close or attempt == 2:
                    break
                a_tokens, b_tokens = measured
                shutil.rmtree(home)
                shutil.copytree(snapshot, home, symlinks=True)
            requests += got
            main_texts = iter([json.dumps({"file_path": path}), CLAUDE_ANSWER])
            texts += [CLAUDE_SUMMARY if CLAUDE_SUMMARY_MARK in r["body"] else next(main_texts, "")
                      for r in got]
            # Next round: about this round's last request plus the answer and a question, then
            # one more observation.
            if measured[1] > measured[0]:
                observation = measured[1] - measured[0]
            a_tokens = measured[1] + 40
            b_tokens = a_tokens + observation
    compactions = sum(1 for r in requests if CLAUDE_SUMMARY_MARK in r["body"])
    return list(zip(requests, texts)), compactions


# ---------------------------------------------------------------------------------------------
# Codex CLI against the same testkit (OpenAI Responses wire, native custom_tool_call items).

CODEX = os.environ.get("CODEX_BIN", "/tmp/codex/node_modules/.bin/codex")
# Codex's default model (first in `codex debug models`); its catalog entry gives the tools and
# instructions Codex would use with it, and a 500k window, overridden below.
CODEX_MODEL = "gpt-6.2-sol"
# Compact within 200k as wright does (bench/context_growth.py). Codex keeps 95% of the
# window for input (effective_context_window_percent) and compacts by default at 90% of it;
# the limit is set explicitly to that default so the run does not depend on it.
CODEX_WINDOW = 200000
CODEX_AUTO_COMPACT = 180000
CODEX_SUMMARY_MARK = "CONTEXT CHECKPOINT COMPACTION"
CODEX_ANSWER = "It holds 800 small functions."
# What a code-mode model sends to `exec` (JavaScript) to read the file: exec_command runs the
# shell command in the project, `text` returns its output to the model.
CODEX_READ = 'const r = await tools.exec_command({ cmd: "cat big.txt" });\ntext(r.output);\n'
CODEX_CONFIG = """\
model = "{model}"
model_provider = "testkit"
model_context_window = {window}
model_auto_compact_token_limit = {compact}
check_for_update_on_startup = false

[analytics]
enabled = false

[model_providers.testkit]
name = "testkit"
base_url = "{url}/v1"
env_key = "BENCH_API_KEY"
wire_api = "responses"
"""


def run_codex(target, rounds):
    """Runs the workload with Codex CLI; returns ([(request, reply text)], compactions).

    One session: `codex exec` for round 1, then `codex exec resume <thread id>`. Each round
    the scripted model reads the file as Codex's default model would: its tools are in code
    mode (tool_mode code_mode_only), so it calls the custom tool `exec` with JavaScript that
    runs `cat big.txt` through tools.exec_command (Codex runs it in the project and caps what
    it returns itself), then answers. Usage is reported from the request sizes (bytes / 4),
    so Codex decides when to compact from what it really sends; its summary calls get the
    fixed summary.
    """
    with tempfile.TemporaryDirectory() as tmp:
        project = os.path.join(tmp, "project")
        home = os.path.join(tmp, "home")
        codex_home = os.path.join(home, ".codex")
        os.mkdir(project)
        os.makedirs(codex_home)
        write_big_file(project)
        script = {"responses": [], "routes": [{"body_contains": CODEX_SUMMARY_MARK, "response": {
            "text": SUMMARY, "usage_from_request": True}}]}
        for i in range(1, rounds + 1):
            script["responses"] += [
                {"tool_calls": [{"id": f"call_bench_{i}", "name": "exec",
                                 "arguments": CODEX_READ, "custom": True}],
                 "finish_reason": "tool_calls", "usage_from_request": True},
                {"text": CODEX_ANSWER, "usage_from_request": True}]
        server, url, record = serve(os.path.join(target, "wright-testkit"), tmp, script)
        try:
            with open(os.path.join(codex_home, "config.toml"), "w") as f:
                f.write(CODEX_CONFIG.format(model=CODEX_MODEL, window=CODEX_WINDOW,
                                            compact=CODEX_AUTO_COMPACT, url=url))
            env = {"PATH": os.environ.get("PATH", ""), "HOME": home, "CODEX_HOME": codex_home,
                   "BENCH_API_KEY": "bench", **NO_EGRESS}
            thread = None
            for i in range(1, rounds + 1):
                which = ["resume", thread] if thread else []
                out = subprocess.run([CODEX, "exec", *which, "--json", "--skip-git-repo-check",
                                      "--strict-config", f"round {i}: what is in big.txt?"],
                                     cwd=project, env=env, capture_output=True, text=True,
                                     stdin=subprocess.DEVNULL, timeout=600)
                events = [json.loads(line) for line in out.stdout.splitlines()
                          if line.startswith("{")]
                failed = [e for e in events if e.get("type") in ("turn.failed", "error")]
                if out.returncode != 0 or failed:
                    sys.exit(f"codex round {i} failed: {out.stdout}\n{out.stderr}")
                thread = thread or next(e["thread_id"] for e in events
                                        if e.get("type") == "thread.started")
            requests = read_record(record)
        finally:
            server.terminate()
            server.wait()
    main = iter([CODEX_READ, CODEX_ANSWER] * rounds)
    texts = [SUMMARY if CODEX_SUMMARY_MARK in r["body"] else next(main, "") for r in requests]
    compactions = sum(1 for r in requests if CODEX_SUMMARY_MARK in r["body"])
    return list(zip(requests, texts)), compactions


# ---------------------------------------------------------------------------------------------
# The cost model.


def strip_cache_control(value):
    if isinstance(value, dict):
        return {k: strip_cache_control(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [strip_cache_control(v) for v in value]
    return value


def prompt_parts(body):
    """The request's prompt as [(label, part)] in prompt order: tools, system, messages."""
    parts = []
    if body.get("tools"):
        parts.append(("tools", body["tools"]))
    for key in ("system", "instructions"):
        if body.get(key):
            parts.append(("system", body[key]))
    messages = body.get("messages")
    if messages is None:
        messages = body.get("input", [])
        if isinstance(messages, str):
            messages = [{"role": "user", "content": messages}]
    for message in messages:
        label = message.get("role") or message.get("type") or "?"
        parts.append((label, message))
    return parts


def text_blocks(part):
    """On the Anthropic wire `"content": "text"` is the same prompt as one text block."""
    if isinstance(part, dict) and isinstance(part.get("content"), str) and "role" in part:
        return {**part, "content": [{"type": "text", "text": part["content"]}]}
    return part


def dump(part, anthropic):
    return json.dumps(strip_cache_control(text_blocks(part) if anthropic else part),
                      ensure_ascii=False,
                      separators=(",", ":")).encode() + b"\n"


class Prompt:
    """One request's canonical prompt: its bytes and where each part starts."""

    def __init__(self, request, reply):
        self.path = request.get("path", "")
        self.raw_bytes = len(request["body"].encode())
        self.summary = any(mark in request["body"]
                           for mark in (SUMMARY_MARK, CLAUDE_SUMMARY_MARK, CODEX_SUMMARY_MARK))
        body = json.loads(request["body"])
        self.parts = prompt_parts(body)
        anthropic = self.path.split("?")[0].endswith("/v1/messages")
        chunks = [dump(part, anthropic) for _, part in self.parts]
        self.starts = []
        offset = 0
        for chunk in chunks:
            self.starts.append(offset)
            offset += len(chunk)
        self.bytes = b"".join(chunks)
        self.reply = reply

    def part_at(self, offset):
        """Index of the part holding byte `offset` (len(parts) if past the end)."""
        index = 0
        for i, start in enumerate(self.starts):
            if start <= offset:
                index = i
        return index if offset < len(self.bytes) else len(self.parts)


def common_prefix(a, b):
    n = min(len(a), len(b))
    lo, hi = 0, n
    # Binary search on equal prefixes (bytes comparison is fast in C).
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def analyse(pairs):
    prompts = [Prompt(request, reply) for request, reply in pairs]
    rows = []
    for i, p in enumerate(prompts):
        best, source = 0, None
        for back in range(1, CACHE_WINDOW + 1):
            if i - back < 0:
                break
            shared = common_prefix(p.bytes, prompts[i - back].bytes)
            if shared > best:
                best, source = shared, back
        tokens = len(p.bytes) // BYTES_PER_TOKEN
        cached = best // BYTES_PER_TOKEN
        row = {
            "index": i, "summary": p.summary, "tokens": tokens, "cached": cached,
            "source": source, "weighted": CACHED_RATE * cached + (tokens - cached),
            "raw_tokens": p.raw_bytes // BYTES_PER_TOKEN, "parts": len(p.parts),
            "output": len(p.reply.encode()) // BYTES_PER_TOKEN,
        }
        if i > 0:
            prev = prompts[i - 1]
            shared = common_prefix(p.bytes, prev.bytes)
            if shared == len(prev.bytes):
                row["break"] = None
                row["break_text"] = f"extends previous ({len(prev.parts)} parts)"
            else:
                k = p.part_at(shared)
                kp = prev.part_at(shared)
                within = shared - p.starts[k] if k < len(p.parts) else 0
                row["break"] = (k, len(prev.parts) - kp, prev.parts[kp][0], within)
                prev_label = prev.parts[kp][0] if kp < len(prev.parts) else "end"
                this_label = p.parts[k][0] if k < len(p.parts) else "end"
                row["break_text"] = (f"differs at part {k} ({this_label}; previous: {prev_label},"
                                     f" {len(prev.parts) - kp} from its end), byte {within} in it")
                row["snippets"] = (snippet(prev.bytes, shared), snippet(p.bytes, shared))
            if source and source > 1:
                k = p.part_at(best)
                row["break_text"] += (f"; vs request -{source} (cached from): differs at part {k}"
                                      f" ({p.parts[k][0] if k < len(p.parts) else 'end'}),"
                                      f" byte {best - p.starts[k] if k < len(p.parts) else 0}"
                                      " in it")
        else:
            row["break"] = None
            row["break_text"] = "first request"
        rows.append(row)
    return prompts, rows


def snippet(data, offset, width=60):
    return data[max(0, offset - 10):offset + width].decode("utf-8", "replace").replace("\n", "⏎")


def report(name, pairs, compactions, rounds, verbose):
    prompts, rows = analyse(pairs)
    main = [r for r in rows if not r["summary"]]
    total = sum(r["tokens"] for r in rows)
    weighted = sum(r["weighted"] for r in rows)
    cached = sum(r["cached"] for r in rows)
    output = sum(r["output"] for r in rows)
    largest = max(rows, key=lambda r: r["tokens"])
    if verbose:
        print(f"\n{name}: per request (tokens = canonical prompt bytes / 4)")
        print(f"{'req':>4} {'kind':7} {'parts':>5} {'tokens':>7} {'body':>7} {'cached':>7}"
              f" {'from':>4} {'weighted':>8} {'out':>4}  prefix vs previous request")
        for r in rows:
            print(f"{r['index']:>4} {'summary' if r['summary'] else 'main':7} {r['parts']:>5}"
                  f" {r['tokens']:>7} {r['raw_tokens']:>7} {r['cached']:>7}"
                  f" {('-' + str(r['source'])) if r['source'] else '':>4} {r['weighted']:>8.0f}"
                  f" {r['output']:>4}  {r['break_text']}")
            if verbose > 1 and "snippets" in r:
                print(f"{'':>14}was: {r['snippets'][0]!r}\n{'':>14}now: {r['snippets'][1]!r}")
    print(f"\n{name}: {rounds} rounds")
    print(f"  requests: {len(rows)} ({len(main)} main + {len(rows) - len(main)} summary calls);"
          f" compactions: {compactions}")
    print(f"  total prompt tokens: {total} (whole bodies: {sum(r['raw_tokens'] for r in rows)})")
    print(f"  cache-weighted prompt tokens: {weighted:.0f} (cached {cached}, "
          f"{100 * cached / max(total, 1):.1f}% of prompt tokens)")
    print(f"  output tokens: {output}; cost (weighted prompt + output): {weighted + output:.0f}")
    print(f"  largest request: {largest['tokens']} tokens (request {largest['index']})")
    print(f"  per round: {total / rounds:.0f} prompt tokens, {weighted / rounds:.0f} weighted,"
          f" {len(rows) / rounds:.2f} requests")
    # Where each request's prompt leaves the previous one's, grouped, with what it cost.
    breaks = {}
    for r in rows[1:]:
        if r["break"] is None:
            key = "extend the previous request"
        else:
            k, from_end, label, within = r["break"]
            where = "last part" if from_end == 1 else f"part {from_end} from its end"
            key = (f"leave the previous request in its {where} ({label}"
                   + (", at its first byte" if within == 0 else f", {within} bytes into it") + ")")
        group = breaks.setdefault((r["summary"], key), [])
        group.append(r["tokens"] - r["cached"])
    print("  prefix vs the previous request (uncached tokens per request, mean):")
    for (summary, key), group in sorted(breaks.items(), key=lambda kv: -len(kv[1])):
        print(f"    {len(group):>3} {'summary calls' if summary else 'requests'} {key}:"
              f" {sum(group) / len(group):.0f}")
    return {"requests": len(rows), "total": total, "weighted": weighted, "output": output,
            "largest": largest["tokens"], "compactions": compactions}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--verbose", "-v", action="count", default=0,
                        help="per-request table (twice: with the bytes around each break)")
    parser.add_argument("--compare", choices=["claude", "codex"], action="append", default=[])
    parser.add_argument("--wright-config", metavar="TOML", default="",
                        help="settings for wright's run, as the text of its user config.toml")
    args = parser.parse_args()
    if "claude" in args.compare and not os.path.exists(CLAUDE):
        sys.exit(f"no Claude Code at {CLAUDE}: npm install --prefix /tmp/claude "
                 "@anthropic-ai/claude-code, or set CLAUDE_BIN")
    if "codex" in args.compare and not os.path.exists(CODEX):
        sys.exit(f"no Codex CLI at {CODEX}: npm install --prefix /tmp/codex @openai/codex,"
                 " or set CODEX_BIN")
    subprocess.run(["cargo", "build", "--release", "-p", "wright-cli", "-p", "wright-testkit"],
                   cwd=ROOT, check=True)
    target = os.path.join(ROOT, "target", "release")
    pairs, compactions = run_wright(target, args.rounds, args.wright_config)
    figures = {"wright": report("wright", pairs, compactions, args.rounds, args.verbose)}
    if "claude" in args.compare:
        pairs, compactions = run_claude(target, args.rounds)
        figures["claude"] = report("Claude Code", pairs, compactions, args.rounds, args.verbose)
    if "codex" in args.compare:
        pairs, compactions = run_codex(target, args.rounds)
        figures["codex"] = report("Codex CLI", pairs, compactions, args.rounds, args.verbose)
    if len(figures) > 1:
        base = figures["wright"]
        for name, f in figures.items():
            if name != "wright":
                print(f"\nwright / {name}: total prompt {base['total'] / f['total']:.2f}x, "
                      f"cache-weighted {base['weighted'] / f['weighted']:.2f}x, "
                      f"largest request {base['largest'] / f['largest']:.2f}x")


if __name__ == "__main__":
    main()
