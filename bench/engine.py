"""Engine benchmark: per-node overhead and the cost of one code node.

Run with `make bench-engine` (or `WEIR_TESTING=1 .venv/bin/python bench/engine.py`).
It uses a throw-away in-memory SQLite database and prints a markdown table;
the committed results live in bench/README.md.

- Chains of 10, 100 and 1000 `transform` nodes. "Overhead per node" is the run's
  time minus the time spent inside the nodes' own `run` (template filling), over
  the node count, so it is what the engine adds per node: planning, bookkeeping,
  the output-size check, the step row. The DB-write variant also includes the
  run row and the one batched insert of step rows.
- One webhook -> code node flow end to end: `run_flow` with its database writes,
  and the same execution with persistence stubbed out; plus the bare sandbox
  round trip (pipe to a worker, fresh QuickJS context, JSON both ways).
- Template rendering: a plain dotted path (Python fast path) against an
  expression that needs the sandbox.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("WEIR_TESTING", "1")
os.environ["DATABASE_URL"] = "sqlite://:memory:"

import django  # noqa: E402

django.setup()

from django.db import connection  # noqa: E402
from django.test.utils import setup_test_environment  # noqa: E402

import sandbox  # noqa: E402
from flows.demo import webhook_code_graph  # noqa: E402
from flows.engine import run_flow  # noqa: E402
from flows.engine.runner import Execution  # noqa: E402
from flows.models import Flow, FlowRun  # noqa: E402
from flows.nodes import NODE_KINDS  # noqa: E402
from flows.nodes.templates import render  # noqa: E402


class InMemoryExecution(Execution):
    """The same execution with every database write stubbed out."""

    def flush_steps(self):
        self.flushed = len(self.steps)

    def finish(self, status, error):
        self.run.status = status
        self.run.results = self.results
        self.run.error = error
        self.run.duration_ms = (time.monotonic() - self.started) * 1000


class TimedKinds:
    """Wraps every node kind's `run` to add up the time spent inside nodes."""

    def __init__(self):
        self.inside = 0.0
        self.originals = {}

    def __enter__(self):
        for kind in NODE_KINDS.values():
            original = kind.run
            self.originals[kind] = original

            def timed(data, ctx, _original=original):
                started = time.perf_counter()
                try:
                    return _original(data, ctx)
                finally:
                    self.inside += time.perf_counter() - started

            kind.run = timed
        return self

    def __exit__(self, *exc):
        for kind, original in self.originals.items():
            kind.run = original


def node(node_id, type_, **data):
    return {"id": node_id, "type": type_, "name": node_id, "data": data}


def transform_chain(owner, length: int) -> Flow:
    nodes = [node("trigger", "webhook", method="POST")]
    nodes += [
        node(f"t{i}", "transform", values={"n": "{{ input.n }}", "i": i})
        for i in range(length)
    ]
    edges = [
        {"id": f"e{i}", "source": a["id"], "target": b["id"], "sourceHandle": None}
        for i, (a, b) in enumerate(zip(nodes, nodes[1:], strict=False))
    ]
    return Flow.objects.create(
        created_by=owner, name=f"chain {length}", nodes=nodes, edges=edges
    )


def code_flow(owner) -> Flow:
    nodes, edges = webhook_code_graph("return {greeting: 'hi ' + input.name};")
    return Flow.objects.create(created_by=owner, name="code", nodes=nodes, edges=edges)


def in_memory_run(flow: Flow, payload: dict) -> FlowRun:
    run = FlowRun(flow=flow, flow_version=flow.version, trigger="manual", input=payload)
    return InMemoryExecution(flow, run).execute()


def measure(fn, repeats: int) -> list[float]:
    samples = []
    for _ in range(repeats):
        started = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - started) * 1000)
    return samples


def linear_fit(points: list[tuple[int, float]]) -> tuple[float, float]:
    """Least-squares (fixed ms, ms per node) through (nodes, median ms) points."""
    xs, ys = [x for x, _ in points], [y for _, y in points]
    mean_x, mean_y = statistics.fmean(xs), statistics.fmean(ys)
    slope = sum((x - mean_x) * (y - mean_y) for x, y in points) / sum(
        (x - mean_x) ** 2 for x in xs
    )
    return mean_y - slope * mean_x, slope


def row(label: str, samples_ms: list[float], nodes: int = 0, overheads=()) -> tuple:
    """One table row: median, best and p95 in ms; per-node figures for chains."""
    ordered = sorted(samples_ms)
    median = statistics.median(ordered)
    return (
        label,
        f"{median:.3f}",
        f"{ordered[0]:.3f}",
        f"{ordered[int(len(ordered) * 0.95)]:.3f}",
        f"{median * 1000 / nodes:.1f}" if nodes else "",
        f"{statistics.median(overheads):.1f}" if overheads else "",
    )


def chain_rows(owner) -> list[tuple]:
    rows = []
    fits: dict[str, list[tuple[int, float]]] = {}
    for length in (10, 100, 1000):
        flow = transform_chain(owner, length)
        repeats = max(7, 3000 // length)
        nodes = length + 1
        for label, execute in (
            ("with DB writes", lambda f=flow: run_flow(f, {"n": 1}, "manual")),
            ("no DB writes", lambda f=flow: in_memory_run(f, {"n": 1})),
        ):
            execute()  # warm up
            totals, overheads = [], []
            for _ in range(repeats):
                with TimedKinds() as timer:
                    started = time.perf_counter()
                    run = execute()
                    total = time.perf_counter() - started
                assert run.status == "succeeded", run.error
                totals.append(total * 1000)
                overheads.append((total - timer.inside) / nodes * 1e6)
            fits.setdefault(label, []).append((nodes, statistics.median(totals)))
            rows.append(
                row(f"chain of {length} transforms, {label}", totals, nodes, overheads)
            )
    for label, points in fits.items():
        fixed, per_node = linear_fit(points)
        rows.append(
            (
                f"linear fit of the medians, {label}",
                f"{fixed:.3f} fixed",
                "",
                "",
                f"{per_node * 1000:.1f} marginal",
                "",
            )
        )
    return rows


def code_rows(owner) -> list[tuple]:
    flow = code_flow(owner)
    variables = {"input": {"name": "Ada"}, "prev": None, "results": {}}
    sandbox.run_code("return 1", variables)  # start a worker
    rows = []
    for label, fn in (
        (
            "one code node run, with DB writes",
            lambda: run_flow(flow, {"name": "Ada"}, "manual"),
        ),
        (
            "one code node run, no DB writes",
            lambda: in_memory_run(flow, {"name": "Ada"}),
        ),
        ("sandbox round trip alone", lambda: sandbox.run_code("return 1", variables)),
    ):
        fn()
        rows.append(row(label, measure(fn, 500)))
    return rows


def template_rows() -> list[tuple]:
    variables = {
        "input": {"address": {"city": "Oslo"}, "n": 3},
        "prev": None,
        "results": {},
    }
    rows = []
    for label, template in (
        ("template, dotted path (fast path)", {"v": "{{ input.address.city }}"}),
        ("template, expression (sandbox)", {"v": "{{ input.n * 2 }}"}),
    ):
        render(template, variables)
        rows.append(row(label, measure(lambda t=template: render(t, variables), 500)))
    return rows


def machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = " ".join(f"{value:.2f}" for value in os.getloadavg())
    return (
        f"{cpu}, {os.cpu_count()} cores, Python {sys.version.split()[0]}, "
        f"SQLite in memory, load average {load}"
    )


def main() -> None:
    setup_test_environment()
    connection.creation.create_test_db(verbosity=0)
    from django.contrib.auth import get_user_model

    owner = get_user_model().objects.create(username="bench")
    print(f"Machine: {machine()}\n")
    print(
        "| case | median ms | best ms | p95 ms | µs per node | "
        "engine overhead µs per node |"
    )
    print("|---|---|---|---|---|---|")
    for row in chain_rows(owner) + code_rows(owner) + template_rows():
        print("| " + " | ".join(row) + " |")
    print(f"\nLoad average after: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    main()
