"""A PostgreSQL restart under load (a private cluster): no run is left
`running`, every caller's answer matches what is stored, and background runs
cut off mid-flight resume and end exactly once."""

from __future__ import annotations

import json
import threading
import time

import psycopg
import pytest

from tests.processes import Processes, manage_py, request
from tests.waiting import wait_until

pytestmark = pytest.mark.processes

MAKE_FLOW = """
from django.contrib.auth import get_user_model
from flows.models import Flow
from tests.flows.graphs import chain, code, node, trigger
wait = node("wait", "delay", ms=1500)
nodes, edges = chain(trigger(), wait, code("last", "return 1;"))
owner = get_user_model().objects.create(username="restart")
flow = Flow.objects.create(created_by=owner, name="restart", nodes=nodes, edges=edges)
print(flow.id)
"""

MAKE_BACKGROUND_FLOW = """
from django.contrib.auth import get_user_model
from flows.models import Flow
from tests.flows.graphs import chain, code, node, trigger
nodes, edges = chain(
    trigger(),
    code("first", "return {n: input.n};"),
    node("wait", "delay", ms=1500),
    code("last", "return {seen: prev.n};"),
)

owner = get_user_model().objects.create(username="restart")
print(Flow.objects.create(created_by=owner, name="bg", nodes=nodes, edges=edges).id)
"""


def test_a_database_restart_leaves_no_run_running_and_no_answer_wrong(
    private_postgres, tmp_path
):
    env = private_postgres.migrated_env()
    env["WEBHOOK_RATE_LIMIT"] = "10000/min"
    flow_id = manage_py(env, "shell", "-c", MAKE_FLOW).split()[-1]
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


def unfinished_and_mid_flight(url: str) -> tuple[int, int]:
    """(runs queued or running, runs running with a step stored but not final)."""
    with psycopg.connect(url) as conn:
        return conn.execute(
            """SELECT count(*) FILTER (WHERE status IN ('queued', 'running')),
                count(*) FILTER (WHERE status = 'running' AND EXISTS (
                    SELECT 1 FROM flows_runstep s
                    WHERE s.run_id = r.id AND s.node_id = 'first'))
            FROM flows_flowrun r"""
        ).fetchone()


def test_background_runs_mid_flight_when_the_database_restarts_each_end_once(
    private_postgres, tmp_path
):
    env = private_postgres.migrated_env()
    flow_id = manage_py(env, "shell", "-c", MAKE_BACKGROUND_FLOW).split()[-1]
    processes = Processes(env, tmp_path)
    try:
        processes.supervisor()
        workers = [processes.worker(), processes.worker()]
        web = processes.web(workers=1, threads=4)
        queued = []
        for n in range(6):
            status, _, body = request(
                web,
                "POST",
                f"/api/webhooks/{flow_id}",
                {"n": n},
                {"Prefer": "respond-async"},
            )
            assert status == 202, body
            queued.append(body["run_id"])
        # Proof the restart cuts runs off mid-flight: a worker has stored the
        # first node of a run that is still running (it is in the delay).
        assert wait_until(
            lambda: unfinished_and_mid_flight(private_postgres.url)[1] >= 1, 90
        ), workers[0].output()

        private_postgres.restart()

        assert wait_until(
            lambda: unfinished_and_mid_flight(private_postgres.url)[0] == 0,
            120,
            interval=0.5,
        ), "\n".join(worker.output()[-3000:] for worker in workers)
        with psycopg.connect(private_postgres.url) as conn:
            runs = conn.execute(
                """SELECT r.id::text, r.status, r.results -> 'last' ->> 'seen',
                    count(s.id), count(DISTINCT s.node_id), r.error::text
                FROM flows_flowrun r LEFT JOIN flows_runstep s ON s.run_id = r.id
                GROUP BY r.id, r.error::text"""
            ).fetchall()
        # Never lost, never doubled, never stranded: the six runs the callers
        # were told about, each succeeded once, each node stored once.
        assert sorted(run[0] for run in runs) == sorted(queued)
        for run_id, status, seen, steps, distinct, error in runs:
            assert status == "succeeded", (run_id, status, error)
            assert (steps, distinct) == (4, 4), (run_id, steps, distinct)
            assert seen is not None
    finally:
        processes.stop_all()
