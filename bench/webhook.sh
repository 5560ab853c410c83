#!/usr/bin/env bash
# Webhook throughput: each web server in SERVERS (granian through config.serve, the
# default; gunicorn with its config) + PostgreSQL (+ Redis when it answers), driven by
# wrk on loopback. Measures a webhook -> code flow against a bare Django JSON view served
# by the same server, at two concurrencies, on the default admission settings, then
# checks every 2xx left exactly one run.
#
#   bash bench/webhook.sh            # or: make bench-webhook
#
# Knobs (environment): SERVERS ("granian gunicorn"), DURATION (s per phase, default 10),
# WARMUP (s, 3), PORT (8766), ASYNC (1: also the webhook answered 202 with
# `Prefer: respond-async`, no worker running, so the run stays queued),
# WORKERS (2), THREADS (4), CONCURRENCY ("16 64"), BENCH_DB (weir_bench_webhook),
# PG_URL (postgres://postgres@127.0.0.1:5432), BENCH_REDIS_URL
# (redis://127.0.0.1:6379/15; empty = local-memory cache), VENV_BIN (.venv/bin),
# FLOOR (1: also the floor views of bench/bench_urls.py, the least a webhook can do),
# PROFILE=1 (py-spy's collapsed stacks of one worker and its sandboxes during the first
# webhook phase, in bench/results/profile-*.raw; `pip install py-spy` first),
# NODE_RED (1) and NODE_RED_PORT (8767): Node-RED's row (bench/nodered.py),
# N8N (1 when node >= 20.19 and npm are there) and N8N_PORT (8768): n8n's row
# (bench/n8n.py; installed once into N8N_DIR, default ~/.cache/weir-bench/n8n-<version>,
# 2.3 GB and ~6 minutes the first time), N8N_WARMUP (30: s of warm-up before each n8n
# phase; n8n's CPU per request falls from ~20 to ~12 ms over its first ~1,500 requests).
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION=${DURATION:-10}
WARMUP=${WARMUP:-3}
PORT=${PORT:-8766}
WORKERS=${WORKERS:-2}
THREADS=${THREADS:-4}
CONCURRENCY=${CONCURRENCY:-"16 64"}
SERVERS=${SERVERS:-"granian gunicorn"}
BENCH_DB=${BENCH_DB:-weir_bench_webhook}
PG_URL=${PG_URL:-postgres://postgres@127.0.0.1:5432}
BENCH_REDIS_URL=${BENCH_REDIS_URL-redis://127.0.0.1:6379/15}
VENV_BIN=${VENV_BIN:-.venv/bin}
OUT=${OUT:-bench/results}
NODE_RED=${NODE_RED:-1}
ASYNC=${ASYNC:-1}
FLOOR=${FLOOR:-1}
NODE_RED_PORT=${NODE_RED_PORT:-8767}
node_major_minor=$(node -p 'process.versions.node.split(".").slice(0, 2).join(" ")' \
  2>/dev/null || echo "0 0")
n8n_installable=0
if command -v npm >/dev/null && awk -v v="$node_major_minor" \
  'BEGIN { split(v, p, " "); exit !(p[1] > 20 || (p[1] == 20 && p[2] >= 19)) }'; then
  n8n_installable=1
fi
N8N=${N8N:-$n8n_installable}
N8N_PORT=${N8N_PORT:-8768}
N8N_WARMUP=${N8N_WARMUP:-30}
BASE="http://127.0.0.1:$PORT"

command -v wrk >/dev/null || { echo "wrk is missing: apt-get install wrk" >&2; exit 1; }
if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
  echo "Port $PORT is already in use; pick another with PORT=..." >&2
  exit 1
fi
mkdir -p "$OUT"
stamp=$(date -u +%Y%m%dT%H%M%SZ)
report="$OUT/webhook-$stamp.md"
server_log=$(mktemp -t weir-bench-gunicorn.XXXXXX)

psql_admin() { psql "$PG_URL/postgres" -v ON_ERROR_STOP=1 -qtAc "$1"; }
psql_bench() { psql "$PG_URL/$BENCH_DB" -v ON_ERROR_STOP=1 -qtAc "$1"; }

export DJANGO_SETTINGS_MODULE=bench.bench_settings PYTHONPATH=.
export PGOPTIONS="-c client_min_messages=warning"
export DATABASE_URL="$PG_URL/$BENCH_DB"
export SECRET_KEY="bench-$(date +%s%N)" WEIR_ENV_FILE=/dev/null
export CREDENTIALS_KEY="YmVuY2gta2V5LWJlbmNoLWtleS1iZW5jaC1rZXktMDE="
export DEBUG=false WEIR_TESTING=false LOG_LEVEL=WARNING
export ALLOWED_HOSTS=127.0.0.1 BASE_URL="$BASE"
# The benchmark measures throughput, not the limiter's refusals.
export WEBHOOK_RATE_LIMIT=100000000/min
# Nor the queue cap: no worker runs, so every 202 leaves a queued run.
export QUEUED_RUNS_PER_OWNER=100000000
# Connections live through the whole run, so PostgreSQL's CPU per request can be
# read off its backends (a backend that closes mid-phase takes its CPU time with
# it); in production each thread reconnects once a minute, a negligible cost.
export DB_CONN_MAX_AGE=600
# The admission caps are the defaults (derived from WEB_THREADS): a fast flow must
# not pay for them (issue 26).
export WEB_THREADS="$THREADS" WEB_WORKERS="$WORKERS" WEB_BIND="127.0.0.1:$PORT"
if [ -n "$BENCH_REDIS_URL" ] && "$VENV_BIN/python" -c \
  "import redis,sys; redis.Redis.from_url(sys.argv[1]).ping()" "$BENCH_REDIS_URL" 2>/dev/null
then
  export REDIS_URL="$BENCH_REDIS_URL"
  cache_used="Redis ($REDIS_URL)"
else
  export REDIS_URL=""
  cache_used="local memory (Redis not reachable)"
fi

echo "==> Fresh database $BENCH_DB"
psql_admin "DROP DATABASE IF EXISTS $BENCH_DB WITH (FORCE)" >/dev/null
psql_admin "CREATE DATABASE $BENCH_DB" >/dev/null
"$VENV_BIN/python" manage.py migrate --noinput -v 0
flow_id=$("$VENV_BIN/python" -m bench.webhook_setup)
psql_bench "CREATE TABLE bench_floor (id uuid PRIMARY KEY, input jsonb, output jsonb)"
webhook="$BASE/api/webhooks/$flow_id"

server=""
start_server() {  # $1: granian (config.serve) or gunicorn (its config file)
  echo "==> $1 on $BASE: $WORKERS workers x $THREADS threads"
  if [ "$1" = granian ]; then
    "$VENV_BIN/python" -m config.serve >"$server_log" 2>&1 &
  else
    GUNICORN_BIND="127.0.0.1:$PORT" GUNICORN_WORKERS="$WORKERS" \
      GUNICORN_THREADS="$THREADS" "$VENV_BIN/gunicorn" -c config/gunicorn_conf.py \
      config.wsgi --backlog 2048 --log-level warning >"$server_log" 2>&1 &
  fi
  server=$!
  local up=""
  for _ in $(seq 300); do
    kill -0 "$server" 2>/dev/null || break
    if curl -fs -o /dev/null -X POST -H 'Content-Type: application/json' \
      -d '{"name":"up","items":[]}' "$BASE/bench/bare"; then up=1; break; fi
    sleep 0.2
  done
  [ -n "$up" ] || { echo "$1 did not come up; see $server_log" >&2; exit 1; }
}
stop_server() {
  kill "$server" 2>/dev/null || true
  wait "$server" 2>/dev/null || true
  server=""
}
profiler=""
node_red=""
node_pid=""  # node itself, whose CPU is measured
n8n=""
n8n_pid=""  # n8n's main process; its task runner is its child
cleanup() {
  [ -n "$profiler" ] && kill "$profiler" 2>/dev/null || true
  [ -n "$node_red" ] && kill "$node_red" $node_pid 2>/dev/null || true
  # bench/n8n.py stops n8n and removes its SQLite folder on SIGTERM.
  if [ -n "$n8n" ]; then kill "$n8n" 2>/dev/null || true; wait "$n8n" 2>/dev/null || true; fi
  if [ -n "$server" ]; then stop_server; fi
}
trap cleanup EXIT

# Starts a reference from npm (bench/$2.py on port $3), waiting up to $4 half seconds
# for it to answer; sets ref_wrapper (the script's pid), ref_version and ref_pid (the
# process whose tree's CPU is measured). $1 is its name as the script prints it.
start_reference() {
  local log
  log=$(mktemp -t "weir-bench-$2.XXXXXX")
  "$VENV_BIN/python" "bench/$2.py" "$3" >"$log" 2>&1 &
  ref_wrapper=$!
  for _ in $(seq "$4"); do
    grep -q "^pid " "$log" && break
    kill -0 "$ref_wrapper" 2>/dev/null || break
    sleep 0.5
  done
  ref_version=$(sed -n "s/^$1 \([^ ]*\) answers.*/\1/p" "$log")
  if [ -z "$ref_version" ]; then
    kill "$ref_wrapper" 2>/dev/null || true
    echo "$1 did not start; see $log" >&2
    exit 1
  fi
  ref_pid=$(sed -n 's/^pid \([0-9]*\)$/\1/p' "$log")
}

node_red_version=""
if [ "$NODE_RED" = 1 ]; then
  # The reference: Node-RED from npm, http in -> function -> http response doing
  # the same work (bench/nodered.py), started once it answers.
  echo "==> Node-RED on 127.0.0.1:$NODE_RED_PORT (npm install the first time)"
  start_reference Node-RED nodered "$NODE_RED_PORT" 600
  node_red=$ref_wrapper node_red_version=$ref_version node_pid=$ref_pid
fi

n8n_version=""
if [ "$N8N" = 1 ]; then
  # The other reference: n8n from npm (xlsx overridden to the registry's 0.18.5), its
  # own SQLite, Webhook -> Code node answering the Code node's JSON (bench/n8n.py).
  echo "==> n8n on 127.0.0.1:$N8N_PORT (npm install the first time: ~6 minutes)"
  start_reference n8n n8n "$N8N_PORT" 1800
  n8n=$ref_wrapper n8n_version=$ref_version n8n_pid=$ref_pid
fi

descendants() {  # the server's process tree: master, workers, sandbox children
  local pid=$1
  echo "$pid"
  for child in $(pgrep -P "$pid" || true); do descendants "$child"; done
}
rss_mb() {  # of the process tree serving the phase: the server's, Node-RED's or n8n's
  local total=0
  for pid in $(descendants "$root"); do
    total=$((total + $(ps -o rss= -p "$pid" 2>/dev/null || echo 0)))
  done
  echo $((total / 1024))
}
cpu_ticks() {  # user+system clock ticks of the given pids
  local total=0 fields
  for pid in "$@"; do
    fields=$(cut -d' ' -f14,15 "/proc/$pid/stat" 2>/dev/null || echo "0 0")
    total=$((total + ${fields% *} + ${fields#* }))
  done
  echo "$total"
}
server_ticks() { cpu_ticks $(descendants "$root"); }
# The sandbox processes: what the server's worker processes started (the tree below
# the root's children; gunicorn and granian alike are a main process and workers).
sandbox_ticks() {
  local pids=() worker child
  for worker in $(pgrep -P "$root" || true); do
    for child in $(pgrep -P "$worker" || true); do pids+=($(descendants "$child")); done
  done
  cpu_ticks "${pids[@]}"
}
postgres_ticks() { cpu_ticks $(pgrep -f "postgres: .* $BENCH_DB " || true); }
webhook_runs() { psql_bench "SELECT count(*) FROM flows_flowrun WHERE trigger='webhook'"; }
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"; }

# One phase: warm up, measure, print "name c rps p50 p99 errors rss requests".
declare -A RPS
rows=()
check_rows=()
run_phase() {
  local name=$1 url=$2 conns=$3
  export PREFER_ASYNC=0
  [[ "$name" = "webhook 202"* ]] && PREFER_ASYNC=1
  root=$server
  [ "$name" = node-red ] && root=$node_pid
  local warmup=$WARMUP
  if [ "$name" = n8n ]; then root=$n8n_pid; warmup=$N8N_WARMUP; fi
  wrk -t2 -c"$conns" -d"${warmup}s" -s bench/webhook_post.lua "$url" >/dev/null
  sleep 1
  local before after line
  before=$(webhook_runs)
  local server_cpu postgres_cpu sandbox_cpu
  server_cpu=$(server_ticks)
  sandbox_cpu=$(sandbox_ticks)
  postgres_cpu=$(postgres_ticks)
  if [ "${PROFILE:-0}" = 1 ] && [[ "$name" = webhook* ]] && [ -z "$profiler" ]; then
    local worker
    worker=$(pgrep -P "$server" | head -1)
    "$VENV_BIN/py-spy" record --pid "$worker" --subprocesses --duration "$DURATION" \
      --rate 200 --format raw --output "$OUT/profile-$stamp.raw" >/dev/null 2>&1 &
    profiler=$!
  fi
  line=$(wrk -t2 -c"$conns" -d"${DURATION}s" --timeout 10s -s bench/webhook_post.lua \
    "$url" | grep '^RESULT')
  local rss
  rss=$(rss_mb)
  server_cpu=$(($(server_ticks) - server_cpu))
  sandbox_cpu=$(($(sandbox_ticks) - sandbox_cpu))
  postgres_cpu=$(($(postgres_ticks) - postgres_cpu))
  sleep 1  # requests in flight when wrk stopped still finish on the server
  after=$(webhook_runs)
  local requests non2xx errors ok
  requests=$(field requests "$line")
  non2xx=$(field non2xx "$line")
  errors=$((non2xx + $(field connect "$line") + $(field read "$line") \
    + $(field write "$line") + $(field timeout "$line")))
  ok=$((requests - non2xx))
  local hz cpu_per_request
  hz=$(getconf CLK_TCK)
  cpu_per_request=$(awk -v s="$server_cpu" -v x="$sandbox_cpu" -v p="$postgres_cpu" \
    -v n="$requests" -v hz="$hz" \
    'BEGIN { k = 1000 / hz / n; printf "%.2f | %.2f | %.2f | %.2f | %.2f", \
      (s - x) * k, x * k, p * k, (s + p) * k, 1000 * s / hz / n }' | cut -d'|' -f1-4)
  RPS[$name-$conns]=$(field rps "$line")
  rows+=("| $name | $conns | $(field rps "$line") | $(field p50_ms "$line") | \
$(field p99_ms "$line") | $errors | $rss | $cpu_per_request |")
  if [[ "$name" = webhook* ]]; then
    local runs=$((after - before))
    # wrk counts only answers it read; up to $conns requests were still in flight.
    local verdict="ok"
    if [ "$runs" -lt "$ok" ]; then verdict="LOST $((ok - runs)) runs"; fi
    if [ "$runs" -gt $((ok + conns)) ]; then verdict="EXTRA $((runs - ok - conns)) runs"; fi
    check_rows+=("| $name | $conns | $ok | $runs | $((runs - ok)) | $verdict |")
  fi
  [ -n "$profiler" ] && wait "$profiler" 2>/dev/null && profiler=""
  echo "   $name c=$conns: $line"
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for kind in $SERVERS; do
  start_server "$kind"
  for conns in $CONCURRENCY; do
    echo "==> $kind c=$conns"
    run_phase "bare ($kind)" "$BASE/bench/bare" "$conns"
    if [ "$NODE_RED" = 1 ] && [ "$kind" = "${SERVERS%% *}" ]; then
      run_phase node-red "http://127.0.0.1:$NODE_RED_PORT/bench" "$conns"
    fi
    if [ "$N8N" = 1 ] && [ "$kind" = "${SERVERS%% *}" ]; then
      run_phase n8n "http://127.0.0.1:$N8N_PORT/webhook/bench" "$conns"
    fi
    run_phase "webhook ($kind)" "$webhook" "$conns"
    if [ "$ASYNC" = 1 ]; then run_phase "webhook 202 ($kind)" "$webhook" "$conns"; fi
    if [ "$FLOOR" = 1 ]; then
      run_phase "floor sync ($kind)" "$BASE/bench/floor-sync" "$conns"
      run_phase "floor 202 ($kind)" "$BASE/bench/floor-202" "$conns"
    fi
  done
  stop_server
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
failed_runs=$(psql_bench "SELECT count(*) FROM flows_flowrun WHERE status <> 'succeeded'
  AND NOT (background AND status = 'queued')")

{
  echo "# Webhook benchmark $stamp"
  echo
  echo "$(nproc) cores; load average before $load_before, after $load_after;"
  echo "Servers: $SERVERS, each $WORKERS processes x $THREADS threads (granian: config.serve,"
  echo "ASGI + config.asgi_bridge; gunicorn: config/gunicorn_conf.py, gthread); default"
  echo "admission settings; PostgreSQL; cache: $cache_used;"
  echo "wrk -t2, ${DURATION}s per phase after ${WARMUP}s warm-up, loopback."
  [ -n "$node_red_version" ] && echo "Node-RED $node_red_version from npm (its CPU is in the server CPU column)."
  [ -n "$n8n_version" ] && echo "n8n $n8n_version from npm (xlsx overridden to 0.18.5), its own SQLite, every execution saved," \
    "${N8N_WARMUP}s warm-up per phase; its CPU, main process and Code-node task runner, is in the web process column."
  echo
  echo "| endpoint | connections | req/s | p50 ms | p99 ms | errors | server RSS MB | CPU ms/req: web process | sandbox | PostgreSQL | total |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
  echo
  echo "| endpoint | connections | / bare req/s (same server) | / bare (${SERVERS%% *}) | / Node-RED req/s | / n8n req/s |"
  echo "|---|---|---|---|---|---|"
  first=${SERVERS%% *}
  for kind in $SERVERS; do
    for conns in $CONCURRENCY; do
      for endpoint in webhook "webhook 202" "floor sync" "floor 202"; do
      w=${RPS[$endpoint ($kind)-$conns]:-}
      [ -n "$w" ] || continue
      ratio=$(awk -v w="$w" -v b="${RPS[bare ($kind)-$conns]}" 'BEGIN { printf "%.2fx", w / b }')
      first_ratio=$(awk -v w="$w" -v b="${RPS[bare ($first)-$conns]}" 'BEGIN { printf "%.2fx", w / b }')
      red_ratio=$(awk -v w="$w" -v r="${RPS[node-red-$conns]:-0}" \
        'BEGIN { if (r > 0) printf "%.2fx", w / r; else printf "-" }')
      n8n_ratio=$(awk -v w="$w" -v r="${RPS[n8n-$conns]:-0}" \
        'BEGIN { if (r > 0) printf "%.1fx", w / r; else printf "-" }')
      echo "| $endpoint ($kind) | $conns | $ratio | $first_ratio | $red_ratio | $n8n_ratio |"
      done
    done
  done
  echo
  echo "Runs: every 2xx must have left exactly one FlowRun. wrk stops with up to"
  echo "\`connections\` requests in flight, which the server still completes (extra <= c)."
  echo
  echo "| endpoint | connections | 2xx answers | runs created | extra (in flight) | verdict |"
  echo "|---|---|---|---|---|---|"
  printf '%s\n' "${check_rows[@]}"
  echo
  echo "Runs not succeeded (the 202s' queued runs aside): $failed_runs"
} | tee "$report"
echo "Report: $report"
