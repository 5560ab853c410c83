"""Finding runs among 1,000,000: p95 of the first page of `/api/runs` with a
flow filter and with a search (issue 38, item 2). Not part of the test suite.

`make bench-runs-search` (or `/work/venv/bin/python bench/runs_search.py`):

1. drops and creates the PostgreSQL database `weir_bench_runs` (`PG_URL`),
   migrates it, then drops the two trigram indexes of the run-search migration
   so the rows go in without their upkeep;
2. makes a user, their workspace with `FLOWS` flows (default 100) and another
   user's workspace, and inserts `RUNS` runs (default 1,000,000; 90% the
   bench user's) with one step each, in one `generate_series` statement per
   table: each run's input names its order (`ORD-<n>`) and a customer's email,
   its results a greeting, its step a log line naming the order; 2% failed
   with `HTTP 503 from payments: Service Unavailable`;
3. builds the trigram indexes again with that migration's own code, and
   ANALYZEs;
4. asks, through the real view (Django's test client, the whole middleware
   stack, signed in as the bench user, production settings), `REQUESTS`
   times each (after 10 warm-ups): the first page of `/api/runs` with a flow
   filter, a search for one order (a rare term: one run), a search for the
   failure's message (a common one: 2% of the runs), and the flow filter with
   a search; and prints p50/p95 per query, the CPU per request of this
   process and of its PostgreSQL backend (read from /proc: PostgreSQL on the
   same machine), and the machine's load. The process freezes what it loaded
   first, as a served one does (config/wsgi.py, core/startup.py).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
PG_URL = os.environ.get("PG_URL", "postgres://postgres@127.0.0.1:5432")
DB = os.environ.get("BENCH_DB", "weir_bench_runs")
RUNS = int(os.environ.get("RUNS", "1000000"))
FLOWS = int(os.environ.get("FLOWS", "100"))
REQUESTS = int(os.environ.get("REQUESTS", "200"))
# MEASURE_ONLY=<flow id>: measure again on the database a run left (no seeding).
MEASURE_ONLY = os.environ.get("MEASURE_ONLY")

ENV = {
    **os.environ,
    "DATABASE_URL": f"{PG_URL}/{DB}",
    "DEBUG": "false",
    "WEIR_TESTING": "0",
    "WEIR_ENV_FILE": "/dev/null",
    "SECRET_KEY": "bench-" + "k" * 60,
    "CREDENTIALS_KEY": "YmVuY2gta2V5LWJlbmNoLWtleS1iZW5jaC1rZXktMDE=",
    "LOG_LEVEL": "WARNING",
    "DJANGO_SETTINGS_MODULE": "config.settings",
}

SEED = f"""
import django; django.setup()
from django.contrib.auth import get_user_model
from django.db import connection
from flows.demo import webhook_code_graph
from flows.models import Flow
User = get_user_model()
bench, other = User.objects.create_user("bench"), User.objects.create_user("other")
nodes, edges = webhook_code_graph()
flows = [
    Flow.objects.create(created_by=bench, name=f"flow {{n}}", nodes=nodes, edges=edges)
    for n in range({FLOWS})
]
foreign = Flow.objects.create(
    created_by=other, name="other's", nodes=nodes, edges=edges
)
ids = [str(flow.id) for flow in flows]
with connection.cursor() as c:
    c.execute("SET statement_timeout = 0")
    c.execute('''
        INSERT INTO flows_flowrun (id, flow_id, flow_version, trigger, status, input,
            results, error, request_meta, created_at, started_at, finished_at,
            duration_ms, pinned, delivery_id, attempts, background, cancel_requested)
        SELECT gen_random_uuid(),
            CASE WHEN i %% 10 = 0 THEN %s::uuid
                 ELSE (%s::uuid[])[1 + i %% %s] END,
            1, 'webhook',
            CASE WHEN i %% 50 = 7 THEN 'failed' ELSE 'succeeded' END,
            jsonb_build_object('order', 'ORD-' || i,
                'email', 'customer' || (i %% 50000) || '@example.com'),
            jsonb_build_object('greet', jsonb_build_object(
                'greeting', 'hi customer' || (i %% 50000))),
            CASE WHEN i %% 50 = 7 THEN jsonb_build_object('node_id', 'greet',
                'code', 'http_status',
                'message', 'HTTP 503 from payments: Service Unavailable') END,
            '{{}}', now() - interval '1 second' * i, now(), now(), 2.0,
            false, '', 1, false, false
        FROM generate_series(1, %s) AS i''', [foreign.id, ids, {FLOWS}, {RUNS}])
    c.execute('''
        INSERT INTO flows_runstep (run_id, position, node_id, node_type, node_name,
            status, output, logs, duration_ms, handle, attempts)
        SELECT id, 1, 'greet', 'code', 'Greet', 'succeeded', results -> 'greet',
            jsonb_build_array('charging ' || (input ->> 'order')), 0.5, '', '[]'
        FROM flows_flowrun''')
print(ids[1])  # flow 0 has no runs: i % 100 == 0 is the other user's
"""

MEASURE = f"""
import os, statistics, sys, time
import django; django.setup()
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client
from core.startup import freeze_what_was_loaded
client = Client(HTTP_HOST="localhost")
client.force_login(get_user_model().objects.get(username="bench"))
with connection.cursor() as cursor:
    cursor.execute("SELECT pg_backend_pid()")
    backend = cursor.fetchone()[0]
# As a served process does once loaded (config/wsgi.py): no full collection
# of the whole heap in the middle of a request.
freeze_what_was_loaded()


# The PostgreSQL backend's CPU so far (on the same machine: /proc).
def backend_cpu_ms():
    fields = open(f"/proc/{{backend}}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


flow = sys.argv[1]
queries = [
    ("flow filter", f"/api/runs?flow={{flow}}"),
    ("search, one order", "/api/runs?q=ORD-123457"),
    ("search, a failure (2% of runs)", "/api/runs?q=Service+Unavailable"),
    ("flow filter + search", f"/api/runs?flow={{flow}}&q=customer4201@"),
    ("no filter (all 900,000 of the user's)", "/api/runs"),
]
print("| first page of | count | p50 ms | p95 ms | web CPU ms | PostgreSQL CPU ms "
      "| load |")
print("|---|---|---|---|---|---|---|")
for name, path in queries:
    for _ in range(10):
        body = client.get(path).json()
    took = []
    cpu, pg = time.process_time(), backend_cpu_ms()
    for _ in range({REQUESTS}):
        started = time.perf_counter()
        response = client.get(path)
        took.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200, response.content
    cpu = (time.process_time() - cpu) * 1000 / {REQUESTS}
    pg = (backend_cpu_ms() - pg) / {REQUESTS}
    q = statistics.quantiles(took, n=100)
    capped = "+" if body.get("count_capped") else ""
    print(f"| `{{path.replace(flow, '<flow>')}}` ({{name}}) "
          f"| {{body['count']}}{{capped}} | {{q[49]:.1f}} | {{q[94]:.1f}} "
          f"| {{cpu:.1f}} | {{pg:.1f}} "
          f"| {{os.getloadavg()[0]:.1f}} |", flush=True)
"""


# The run-search migration's indexes, by its name (its number moves at merges).
TRIGRAM = """
import importlib, sys
import django; django.setup()
from django.db import connection
from pathlib import Path
name = next(Path("flows/migrations").glob("*_run_search_indexes.py")).stem
migration = importlib.import_module(f"flows.migrations.{name}")
with connection.schema_editor(atomic=False) as editor:
    if sys.argv[1] == "drop":
        migration.drop(None, editor)
    else:
        migration.create(None, editor)
"""


def sh(*args) -> str:
    done = subprocess.run(args, cwd=ROOT, env=ENV, capture_output=True, text=True)
    if done.returncode:
        sys.exit(f"{args[:3]} failed:\n{done.stderr}")
    return done.stdout


def timed(what: str, *args) -> str:
    started = time.monotonic()
    output = sh(*args)
    print(f"{what}: {time.monotonic() - started:.0f} s", flush=True)
    return output


def main() -> None:
    if MEASURE_ONLY:
        print(sh(PY, "-c", MEASURE, MEASURE_ONLY))
        print(f"load: {subprocess.getoutput('uptime')}")
        return
    base = f"{PG_URL}/postgres"
    subprocess.run(["psql", base, "-qc", f"DROP DATABASE IF EXISTS {DB}"], check=True)
    subprocess.run(["psql", base, "-qc", f"CREATE DATABASE {DB}"], check=True)
    sh(PY, "manage.py", "migrate", "--noinput", "-v", "0")
    sh(PY, "-c", TRIGRAM, "drop")
    flow_id = timed(f"{RUNS} runs and steps", PY, "-c", SEED).strip().splitlines()[-1]
    timed("trigram indexes", PY, "-c", TRIGRAM, "create")
    subprocess.run(["psql", f"{PG_URL}/{DB}", "-qc", "VACUUM ANALYZE"], check=True)
    print(f"load before: {os.getloadavg()}")
    print(f"flow {flow_id}")
    print(sh(PY, "-c", MEASURE, flow_id))
    print(f"load after: {os.getloadavg()}; {subprocess.getoutput('uptime')}")


if __name__ == "__main__":
    main()
