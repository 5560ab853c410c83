"""A PostgreSQL restart under load (a private cluster): no run is left
`running`, and every caller's answer matches what is stored."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time

import psycopg

from tests.processes import ROOT, Processes, base_env, request, wait_until

MAKE_FLOW = """
from django.contrib.auth import get_user_model
from flows.models import Flow
from tests.flows.graphs import chain, code, node, trigger
wait = node("wait", "delay", ms=1500)
nodes, edges = chain(trigger(), wait, code("last", "return 1;"))
owner = get_user_model().objects.create(username="restart")
print(Flow.objects.create(owner=owner, name="restart", nodes=nodes, edges=edges).id)
"""


def test_a_database_restart_leaves_no_run_running_and_no_answer_wrong(
    private_postgres, tmp_path
):
    env = {**base_env(), "DATABASE_URL": private_postgres.url}
    env["WEBHOOK_RATE_LIMIT"] = "10000/min"
    manage = [sys.executable, "manage.py"]
    subprocess.run([*manage, "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    made = subprocess.run(
        [*manage, "shell", "-c", MAKE_FLOW],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    flow_id = made.stdout.split()[-1]
    processes = Processes(env, tmp_path)
    try:
        processes.supervisor()
        web = processes.web(workers=2, threads=4)
        answers = []

        def call():
            try:
                status, _, body = request(web, "POST", f"/api/webhooks/{flow_id}", {})
            except OSError as error:
                answers.append((None, repr(error)))
                return
            answers.append((status, body))

        callers = [threading.Thread(target=call) for _ in range(16)]
        for caller in callers:
            caller.start()
            time.sleep(0.05)
        time.sleep(0.5)
        private_postgres.restart()
        for caller in callers:
            caller.join(120)

        def running():
            with psycopg.connect(private_postgres.url) as conn:
                return conn.execute(
                    "SELECT count(*) FROM flows_flowrun WHERE status = 'running'"
                ).fetchone()[0]

        assert wait_until(lambda: running() == 0, 60, interval=0.5)
        with psycopg.connect(private_postgres.url) as conn:
            stored = dict(
                conn.execute("SELECT id::text, status FROM flows_flowrun").fetchall()
            )
        told = {
            body["run_id"]: body["status"]
            for status, body in answers
            if isinstance(body, dict) and "run_id" in body
        }
        assert len(answers) == 16
        assert told, json.dumps(answers)[:2000]
        for run_id, status in told.items():
            assert stored[run_id] == status, (run_id, status, stored[run_id])
        # A caller told an error without a run id left no run behind it.
        assert len(stored) == len(told), (stored, answers)
    finally:
        processes.stop_all()
