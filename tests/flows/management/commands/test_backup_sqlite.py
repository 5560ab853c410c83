"""Back up and restore: a dump of the database restores into a fresh database
that runs flows (docs/operations.md's commands, on the backend under test).

PostgreSQL: pg_dump of the test database, pg_restore into a new database on the
same server (its own name, dropped afterwards). SQLite: `manage.py
backup_sqlite`, the online backup API. Either way a separate process then runs
a flow from the restored copy.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import uuid
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from tests.flows.graphs import chain_flow, code, trigger
from tests.processes import run_python

pytestmark = pytest.mark.processes


RUN_A_FLOW = """
import json, django
django.setup()
from flows.engine import run_flow
from flows.models import Flow

flow = Flow.objects.get(name="Restored")
run = run_flow(flow, {"name": "Ada"}, "manual")
print(json.dumps({"status": run.status, "results": run.results,
                  "runs": flow.runs.count()}))
"""


def run_flow_from(database_url: str) -> dict:
    output = run_python(RUN_A_FLOW, env={"DATABASE_URL": database_url}, timeout=180)
    return json.loads(output.strip().splitlines()[-1])


def postgres_url(name: str) -> str:
    s = connection.settings_dict
    password = f":{s['PASSWORD']}" if s["PASSWORD"] else ""
    return f"postgres://{s['USER']}{password}@{s['HOST']}:{s['PORT'] or 5432}/{name}"


def pg_env() -> dict:
    s = connection.settings_dict
    env = {**os.environ, "PGHOST": s["HOST"], "PGPORT": str(s["PORT"] or 5432)}
    env.update(PGUSER=s["USER"], PGPASSWORD=s["PASSWORD"] or "")
    return env


def restore_postgres(tmp_path: Path) -> str:
    """pg_dump the test database and pg_restore it into a new one; its URL."""
    dump = tmp_path / "weir.dump"
    fresh = f"{connection.settings_dict['NAME']}_restore_{uuid.uuid4().hex[:8]}"
    subprocess.run(
        [
            "pg_dump",
            "--format=custom",
            "--file",
            str(dump),
            connection.settings_dict["NAME"],
        ],
        env=pg_env(),
        check=True,
        timeout=120,
    )
    subprocess.run(["createdb", fresh], env=pg_env(), check=True, timeout=60)
    subprocess.run(
        ["pg_restore", "--no-owner", "--dbname", fresh, str(dump)],
        env=pg_env(),
        check=True,
        timeout=120,
    )
    return fresh


def drop_best_effort(name: str) -> None:
    """Drop the restored copy. DROP DATABASE waits for a checkpoint, which on
    a loaded 2-core machine has taken over a minute while other test
    databases were being made: a slow clean-up is not the backup failing, and
    .ci/run drops every test_<db>* database it leaves."""
    with contextlib.suppress(subprocess.TimeoutExpired):
        subprocess.run(["dropdb", "--force", name], env=pg_env(), timeout=180)


@pytest.mark.django_db(transaction=True)
def test_a_backup_restores_into_a_fresh_database_that_runs_flows(alice, tmp_path):
    chain_flow(
        trigger(),
        code("c", "return {hi: input.name};"),
        created_by=alice,
        name="Restored",
    )

    if connection.vendor == "postgresql":
        fresh = restore_postgres(tmp_path)
        try:
            outcome = run_flow_from(postgres_url(fresh))
        finally:
            drop_best_effort(fresh)
    else:
        backup = tmp_path / "backup.sqlite3"
        call_command("backup_sqlite", str(backup))
        outcome = run_flow_from(f"sqlite:///{backup}")

    assert outcome == {"status": "succeeded", "results": outcome["results"], "runs": 1}
    assert outcome["results"]["c"] == {"hi": "Ada"}


@pytest.mark.django_db
def test_backup_sqlite_refuses_to_overwrite_a_file(tmp_path):
    existing = tmp_path / "backup.sqlite3"
    existing.write_text("keep me")

    with pytest.raises(CommandError, match="exists; choose a new file"):
        call_command("backup_sqlite", str(existing))

    assert existing.read_text() == "keep me"
