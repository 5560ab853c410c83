"""PostgreSQL's CPU for a synchronous run's one write, and what each part of
the schema adds to it.

Captures the statement a fast synchronous webhook run ends with (the run row
and its step rows, `flows.engine.store.finish_run`) by sending one webhook in
process, as bench/instructions.py does, then replays it N times on a copy of
the benchmark database with a fresh run id each time, reading the backend's
own CPU time (/proc/<pid>/stat) around the replays. Then it takes the schema
apart on the copy, one layer after another, and measures again; `floor` is
the floor views' one-row INSERT (bench/bench_urls.py) on the same connection
kind. Rounds alternate, so drift touches every row alike. The "without"
rows are cumulative; the row with one step fewer is on the whole schema.

Needs the database `make bench-webhook` leaves (`BENCH_DB`, on `PG_URL`) and
Redis as bench/instructions.py; PostgreSQL on this machine (reads /proc).

    .venv/bin/python bench/final_write_pg.py      # N=3000 per round, 3 rounds
"""

from __future__ import annotations

import json
import os
import sys
import uuid
from pathlib import Path

import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.instructions import BENCH_DB, ENV, PG_URL, WARM_UP, caller  # noqa: E402

N = int(os.environ.get("N", "3000"))
ROUNDS = int(os.environ.get("ROUNDS", "3"))
COPY = f"{BENCH_DB}_final_write"
FLOOR = (
    "INSERT INTO bench_floor (id, input, output) VALUES (%s, %s, %s)",
    ['{"name": "Ada", "items": [1, 2, 3]}', '{"greeting": "hi Ada", "n": 3}'],
)
# Each layer is taken away on top of the ones before it.
LAYERS = [
    ("the step rows' foreign key to the run", "flows_runstep", "f", "run_id"),
    ("the trigram search indexes", None, None, "trgm"),
    ("the runs' other secondary indexes", None, None, "secondary"),
    ("the runs' foreign keys to other runs", "flows_flowrun", "f", None),
]


def captured() -> tuple[str, list]:
    """The final statement of one synchronous webhook run, and its parameters."""
    os.environ.update(ENV, DATABASE_URL=f"{PG_URL}/{COPY}", LOG_LEVEL="ERROR")
    call = caller("webhook", False)
    for _ in range(WARM_UP):
        call()
    from django.db import connection

    seen = []

    def keep(execute, sql, params, many, context):
        seen.append((sql, list(params)))
        return execute(sql, params, many, context)

    connection.force_debug_cursor = True  # the engine's fast path logs nothing else
    with connection.execute_wrapper(keep):
        call()
    (statement,) = [item for item in seen if "flows_flowrun" in item[0]]
    return statement


def backend_cpu(conn) -> float:
    pid = conn.execute("SELECT pg_backend_pid()").fetchone()[0]
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu_per_statement(sql: str, params: list, run_id: str | None) -> float:
    """Backend CPU µs per execution; `run_id` replaced by a fresh one each time."""
    with psycopg.connect(f"{PG_URL}/{COPY}", autocommit=True) as conn:
        batches = [_fresh(params, run_id) for _ in range(N + 200)]
        for values in batches[:200]:
            conn.execute(sql, values, prepare=True)
        before = backend_cpu(conn)
        for values in batches[200:]:
            conn.execute(sql, values, prepare=True)
        return (backend_cpu(conn) - before) / N * 1e6


def _fresh(params: list, run_id: str | None) -> list:
    new = str(uuid.uuid4())
    if run_id is None:
        return [new, *params]
    return [value.replace(run_id, new) for value in params]


def take_away(conn, layer) -> None:
    _, table, kind, what = layer
    if what == "trgm":
        rows = conn.execute(
            "SELECT indexname FROM pg_indexes WHERE indexdef LIKE '%gin_trgm_ops%'"
            " AND tablename IN ('flows_flowrun', 'flows_runstep')"
        ).fetchall()
    elif what == "secondary":
        rows = conn.execute(
            "SELECT indexname FROM pg_indexes WHERE tablename = 'flows_flowrun'"
            " AND indexname NOT IN ('flows_flowrun_pkey', 'run_flow_created_idx',"
            " 'run_unique_delivery_per_flow')"
        ).fetchall()
    else:
        rows = conn.execute(
            "SELECT conname FROM pg_constraint WHERE conrelid = %s::regclass"
            " AND contype = %s AND (%s::text IS NULL OR pg_get_constraintdef(oid)"
            " LIKE '%%(' || %s || ')%%')",
            [table, kind, what, what],
        ).fetchall()
        for (name,) in rows:
            conn.execute(f'ALTER TABLE "{table}" DROP CONSTRAINT "{name}"')
        return
    for (name,) in rows:
        conn.execute(f'DROP INDEX "{name}"')


def fresh_copy() -> None:
    with psycopg.connect(f"{PG_URL}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{COPY}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{COPY}" TEMPLATE "{BENCH_DB}"')


def main() -> None:
    fresh_copy()
    sql, params = captured()  # sent to the copy: the template stays unused
    run_id = params[-1].split('"id": "', 1)[1].split('"', 1)[0]
    # The webhook node's row: its output is the run's input.
    without_trigger = json.dumps(json.loads(params[0])[1:])
    rows: dict[str, list[float]] = {}
    for round_ in range(ROUNDS):
        if round_:
            fresh_copy()
        rows.setdefault("floor (one row, primary key only)", []).append(
            cpu_per_statement(*FLOOR, None)
        )
        rows.setdefault("the run's write, as shipped", []).append(
            cpu_per_statement(sql, params, run_id)
        )
        rows.setdefault(
            "the run's write, one step row fewer (no trigger step)", []
        ).append(cpu_per_statement(sql, [without_trigger, *params[1:]], run_id))
        for layer in LAYERS:
            with psycopg.connect(f"{PG_URL}/{COPY}", autocommit=True) as conn:
                take_away(conn, layer)
            rows.setdefault(f"... without {layer[0]}", []).append(
                cpu_per_statement(sql, params, run_id)
            )
    with psycopg.connect(f"{PG_URL}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{COPY}" WITH (FORCE)')
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    print(f"PostgreSQL backend CPU µs per statement, N={N}, load {load}\n")
    print("| statement | " + " | ".join(f"round {i + 1}" for i in range(ROUNDS)) + " |")
    print("|---|" + "---|" * ROUNDS)
    for label, values in rows.items():
        print(f"| {label} | " + " | ".join(f"{value:.0f}" for value in values) + " |")


if __name__ == "__main__":
    main()
