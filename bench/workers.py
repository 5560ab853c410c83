"""Background-run benchmark: the task engines side by side (`make bench-workers`).

Against PostgreSQL (`BENCH_PG_URL`, default the database `weir_bench_workers` on
127.0.0.1:5432, dropped and created here) and, for `rq`, Redis database 12 of
127.0.0.1:6379 (`BENCH_REDIS_URL`, flushed here). For each engine it measures:

- enqueue cost: `enqueue_run` in this process (store the run `queued`; on
  rq, then enqueue its task), median and p95 of `ENQUEUE_N` calls;
- latency queued -> running: one run at a time on one idle worker,
  `started_at - created_at`, median of `LATENCY_N` runs; on `database` also
  with NOTIFY off (the worker polls only), in the same run;
- throughput with 1, 2 and then 4 worker processes: `BURST_N` runs of a flow
  whose only work is a `DELAY_MS` delay node (I/O-bound), enqueued at once;
  runs per second from the first enqueue to the last finish, and the ratio.

Prints a markdown table and the load average; bench/README.md has the results.
"""

from __future__ import annotations

import contextlib
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PG = os.environ.get(
    "BENCH_PG_URL", "postgres://postgres@127.0.0.1:5432/weir_bench_workers"
)
REDIS = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/12")
ENQUEUE_N = int(os.environ.get("ENQUEUE_N", 300))
LATENCY_N = int(os.environ.get("LATENCY_N", 40))
BURST_N = int(os.environ.get("BURST_N", 40))
DELAY_MS = int(os.environ.get("DELAY_MS", 250))

sys.path.insert(0, str(ROOT))
ENV = {
    **os.environ,
    "DATABASE_URL": PG,
    "WEIR_TESTING": "1",
    "WEIR_ENV_FILE": "/nonexistent",
    "TASKS_REDIS_URL": REDIS,
    "LOG_LEVEL": "WARNING",
    "WORKER_POLL_SECONDS": os.environ.get("WORKER_POLL_SECONDS", "0.2"),
}


def prepare_database() -> None:
    name = PG.rsplit("/", 1)[1]
    admin = PG.rsplit("/", 1)[0] + "/postgres"
    subprocess.run(
        ["psql", admin, "-qc", f"DROP DATABASE IF EXISTS {name}"], check=True
    )
    subprocess.run(["psql", admin, "-qc", f"CREATE DATABASE {name}"], check=True)
    manage = [sys.executable, "manage.py", "migrate", "-v0"]
    subprocess.run(manage, cwd=ROOT, env=ENV, check=True)


def setup(engine: str):
    os.environ.update(
        ENV, TASKS_BACKEND=engine, DJANGO_SETTINGS_MODULE="config.settings"
    )
    import django

    django.setup()


def main() -> None:
    engine = sys.argv[1] if len(sys.argv) > 1 else "database"
    prepare_database()
    setup(engine)
    from django.contrib.auth import get_user_model

    from flows.engine.background import enqueue_run
    from flows.models import Flow, FlowRun
    from tests.flows.graphs import chain, node, trigger

    if engine == "rq":
        import redis

        redis.Redis.from_url(REDIS).flushdb()
    owner, _ = get_user_model().objects.get_or_create(username="bench")
    nodes, edges = chain(trigger(), node("wait", "delay", ms=DELAY_MS))
    flow = Flow.objects.create(created_by=owner, name="bench", nodes=nodes, edges=edges)
    quick_nodes, quick_edges = chain(trigger())
    quick = Flow.objects.create(
        created_by=owner, name="quick", nodes=quick_nodes, edges=quick_edges
    )
    env = {**ENV, "TASKS_BACKEND": engine}

    # Enqueue cost, no worker running; the runs are dropped afterwards.
    times = []
    for _ in range(ENQUEUE_N):
        start = time.perf_counter()
        enqueue_run(quick, {}, "manual")
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    enqueue = (statistics.median(times), times[int(len(times) * 0.95)])
    drop_queue(engine)
    FlowRun.objects.all().delete()

    rows = [("enqueue_run, median / p95 ms", f"{enqueue[0]:.2f} / {enqueue[1]:.2f}")]
    workers = start_workers(env, 1)
    try:
        rows.append(("latency queued -> running, median / max ms", latency(quick)))
        if engine == "database":
            # The same worker without its wake-up: polling alone, side by side.
            with notify_off():
                rows.append(
                    (
                        "same, NOTIFY off (polling), median / max ms",
                        latency(quick),
                    )
                )
        one = burst(flow, enqueue_run)
    finally:
        stop(workers)
    rate = {1: one}
    for count in (2, 4):
        workers = start_workers(env, count)
        try:
            rate[count] = burst(flow, enqueue_run)
        finally:
            stop(workers)
    for count, value in rate.items():
        label = f"{count} worker{'s' if count > 1 else ''}"
        rows.append(
            (
                f"{BURST_N} runs of a {DELAY_MS} ms delay, {label}, runs/s",
                f"{value:.2f}",
            )
        )
    rows.append(("2 workers / 1 worker", f"{rate[2] / one:.2f}x"))
    rows.append(("4 workers / 1 worker", f"{rate[4] / one:.2f}x"))
    lost = FlowRun.objects.exclude(status="succeeded").count()
    rows.append(("runs not succeeded (lost or failed)", str(lost)))
    print(f"\n### engine `{engine}` ({os.getloadavg()[0]:.1f} load, 1 min)\n")
    print("| measure | value |\n|---|---|")
    for name, value in rows:
        print(f"| {name} | {value} |")


def latency(flow) -> str:
    """Median / max ms from queued to running, one run at a time, idle worker."""
    from flows.engine.background import enqueue_run

    latencies = []
    for _ in range(LATENCY_N):
        run = enqueue_run(flow, {}, "manual")
        wait_finished([run.id])
        run.refresh_from_db()
        latencies.append((run.started_at - run.created_at).total_seconds() * 1000)
    return f"{statistics.median(latencies):.1f} / {max(latencies):.0f}"


@contextlib.contextmanager
def notify_off():
    """No NOTIFY for a while: an enqueue of its own transaction leaves it to the
    notifier (flows/engine/enqueue_db.py), whose NOTIFY is switched off
    (flows/engine/queue_notify.py); the workers poll."""
    from flows.engine.queue_notify import notifier

    notifier.wake_workers = lambda alias: None
    try:
        yield
    finally:
        del notifier.wake_workers  # the class's own again


def drop_queue(engine: str) -> None:
    if engine == "rq":
        import redis

        redis.Redis.from_url(REDIS).flushdb()
    else:
        from django_tasks_db.models import DBTaskResult

        DBTaskResult.objects.all().delete()


def start_workers(env: dict, count: int) -> list[subprocess.Popen]:
    workers = [
        subprocess.Popen(
            [sys.executable, "manage.py", "work"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(count)
    ]
    warm_up(count)
    return workers


def warm_up(count: int) -> None:
    """One quick run per worker, so that start-up is not measured."""
    from flows.engine.background import enqueue_run
    from flows.models import Flow

    quick = Flow.objects.get(name="quick")
    wait_finished([enqueue_run(quick, {}, "manual").id for _ in range(count * 2)])


def burst(flow, enqueue_run) -> float:
    start = time.monotonic()
    ids = [enqueue_run(flow, {}, "manual").id for _ in range(BURST_N)]
    wait_finished(ids)
    return BURST_N / (time.monotonic() - start)


def wait_finished(ids, timeout: float = 600) -> None:
    from flows.models import FlowRun

    deadline = time.monotonic() + timeout
    while FlowRun.objects.filter(pk__in=ids, status__in=["queued", "running"]).exists():
        if time.monotonic() > deadline:
            raise SystemExit("runs did not finish in time")
        time.sleep(0.02)


def stop(workers: list[subprocess.Popen]) -> None:
    for worker in workers:
        worker.terminate()
    for worker in workers:
        worker.wait(timeout=60)


if __name__ == "__main__":
    main()
