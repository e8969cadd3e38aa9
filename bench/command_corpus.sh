#!/usr/bin/env bash
# The dangerous-command checker against its corpus (issues 6 and 12): for each class of
# crates/wright-checker/tests/data/dangerous*.txt the share it holds up (asks about or refuses;
# goal: every command of every class), and for the ordinary*.txt files the share it holds up by
# mistake (goal: at most 2% in all), with every command that misses either goal listed.
# dangerous_blind*.txt and ordinary_blind*.txt (two rounds) were written by someone who had
# not seen the checker. Nothing in the corpus is run: the checker only reads the commands.
#
# Usage: bash bench/command_corpus.sh
# Exit status: 0 when both goals are met.
set -euo pipefail
cd "$(dirname "$0")/.."

status=0
output=$(cargo test -p wright-checker --test command_corpus -- --nocapture --test-threads=1 2>&1) ||
    status=$?
# The test harness prints "test NAME ... " in front of a test's first line of output.
printf '%s\n' "$output" |
    sed -E 's/^test [a-z_]+ \.\.\. //' |
    grep -E '^(dangerous|ordinary) commands|^  (NOT REFUSED|FALSE POSITIVE)|^    the safety' ||
    true
if [ "$status" -ne 0 ]; then
    echo "a goal is missed (or the test failed to build):" >&2
    printf '%s\n' "$output" | tail -20 >&2
fi
exit "$status"
