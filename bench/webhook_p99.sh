#!/usr/bin/env bash
# Issue 26's tail target: p99 of the synchronous webhook at c=16 in 5 runs of 5.
# Runs bench/webhook.sh ROUNDS times (default 5; granian only, c=16, no Node-RED,
# no 202 phase, each round its own fresh database and server) and prints one row per
# round: the bare view's and the webhook's p50/p99, with the load average.
#
#   bash bench/webhook_p99.sh        # or: make bench-webhook-p99
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-5}
OUT=${OUT:-bench/results}
stamp=$(date -u +%Y%m%dT%H%M%SZ)
report="$OUT/webhook-p99-$stamp.md"
scratch=$(mktemp -d -t weir-p99.XXXXXX)
rows=()
for round in $(seq "$ROUNDS"); do
  load=$(cut -d' ' -f1 /proc/loadavg)
  SERVERS=granian CONCURRENCY=16 ASYNC=0 NODE_RED=0 N8N=0 OUT="$scratch" \
    bash bench/webhook.sh >"$scratch/round-$round.log" 2>&1
  bare=$(grep -m1 '^| bare (granian) | 16 ' "$scratch/round-$round.log")
  hook=$(grep -m1 '^| webhook (granian) | 16 ' "$scratch/round-$round.log")
  col() { cut -d'|' -f"$2" <<<"$1" | tr -d ' '; }
  rows+=("| $round | $load | $(col "$bare" 4) | $(col "$bare" 6) | $(col "$hook" 4) | \
$(col "$hook" 5) | $(col "$hook" 6) | $(col "$hook" 7) |")
  echo "round $round: ${rows[-1]}"
done
{
  echo "# Webhook p99 at c=16, $ROUNDS rounds, $stamp"
  echo
  echo "$(nproc) cores; granian 2 x 4 (bench/webhook.sh defaults), PostgreSQL, wrk -t2 -c16."
  echo
  echo "| round | load (1 min) before | bare req/s | bare p99 ms | webhook req/s | webhook p50 ms | webhook p99 ms | errors |"
  echo "|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
} | tee "$report"
rm -rf "$scratch"
echo "Report: $report"
