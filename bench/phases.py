"""Where a webhook's CPU goes in the web process, phase by phase.

Drives the webhook -> code flow of `make bench-webhook` through Django's WSGI
handler in process (as bench/instructions.py does: one thread, no HTTP server),
with each phase's function wrapped to add up its own process CPU time
(`time.process_time`, inclusive of what it calls). Prints CPU µs per request
for each phase, the bare view's total beside it, and what is left over (Django's
handling and the middleware around the view).

Needs the database and Redis of bench/instructions.py (same knobs).

    .venv/bin/python bench/phases.py        # N=2000 requests after a warm-up
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.instructions import ENV, WARM_UP  # noqa: E402

N = int(os.environ.get("N", "2000"))

# (label, module, attribute): each replaced, wherever it was imported by name.
PHASES = [
    ("view (all of it)", "webhooks.views", "receive"),
    ("flow lookup (cached target)", "flows.engine.webhook_cache", "webhook_target"),
    ("body, content type, hops", "webhooks.limits", "read_body"),
    ("JSON parse and checks", "webhooks.limits", "parse_json_object"),
    ("rate limit", "webhooks.limits", "check_rate"),
    ("request_meta", "webhooks.request_meta", "request_meta"),
    ("idempotency lookup", "flows.engine.deliveries", "answered_from"),
    ("admission (enter + exit)", "flows.engine.admission", "admitted"),
    ("run_flow (all of it)", "flows.engine.runner", "run_flow"),
    ("  new run (model instance)", "flows.engine.store", "new_run"),
    ("  stored if it lasts (defer)", "flows.engine.deferred", "defer"),
    ("  Execution()", "flows.engine.runner", "Execution.__init__"),
    ("  execute (all of it)", "flows.engine.runner", "Execution.execute"),
    ("    lease hold", "flows.engine.lease", "hold"),
    ("    lease release", "flows.engine.lease", "release"),
    ("    plan the graph", "flows.engine.runner", "plan"),
    ("    step (each node, all of it)", "flows.engine.runner", "Execution.step"),
    ("      NodeContext()", "flows.nodes.base", "NodeContext.__init__"),
    ("      attempt_node", "flows.engine.runner", "attempt_node"),
    ("        code node, web side + sandbox wait", "sandbox", "run_code"),
    ("        output check", "flows.engine.runner", "Execution.checked_output"),
    ("      step row (record)", "flows.engine.step_log", "StepLog.record"),
    ("    final write (finish)", "flows.engine.final_write", "FinalWrite.finish"),
    ("      finish_run (statement)", "flows.engine.store", "finish_run"),
    ("        rows as JSON", "flows.engine.sql", "Table.json_rows"),
    ("        run metrics", "flows.metrics", "run_finished"),
    ("    run_ended signal", "flows.engine.signals", "run_ended.send"),
    ("response", "webhooks.responses", "run_response"),
]


class Phase:
    def __init__(self, label):
        self.label = label
        self.cpu = 0.0
        self.calls = 0


def wrap(function, phase):
    clock = time.process_time

    def wrapper(*args, **kwargs):
        started = clock()
        try:
            return function(*args, **kwargs)
        finally:
            phase.cpu += clock() - started
            phase.calls += 1

    with contextlib.suppress(AttributeError):  # a view's marks: csrf_exempt, rights
        functools.update_wrapper(wrapper, function)
    return wrapper


def wrap_context(function, phase):
    """A context manager factory: time entering and leaving, not the body."""
    clock = time.process_time

    @contextlib.contextmanager
    def wrapper(*args, **kwargs):
        started = clock()
        manager = function(*args, **kwargs)
        value = manager.__enter__()
        phase.cpu += clock() - started
        phase.calls += 1
        try:
            yield value
        except BaseException:
            started = clock()
            if not manager.__exit__(*sys.exc_info()):
                phase.cpu += clock() - started
                raise
            phase.cpu += clock() - started
        else:
            started = clock()
            manager.__exit__(None, None, None)
            phase.cpu += clock() - started

    return wrapper


def install(phases):
    import importlib

    for label, module_name, attribute in PHASES:
        try:
            owner = importlib.import_module(module_name)
            *path, attribute = attribute.split(".")
            for name in path:
                owner = getattr(owner, name)
            original = getattr(owner, attribute)
        except (ImportError, AttributeError):
            print(f"(no {module_name}.{attribute}: {label} not measured)")
            continue
        phase = phases.setdefault(label, Phase(label))
        if attribute == "admitted":
            replacement = wrap_context(original, phase)
        else:
            replacement = wrap(original, phase)
        if path:  # a method: replace it on its class (or object)
            setattr(owner, attribute, replacement)
            continue
        for other in list(sys.modules.values()):
            namespace = getattr(other, "__dict__", None)
            if not namespace:
                continue
            for name, value in list(namespace.items()):
                if value is original:
                    setattr(other, name, replacement)
        for pattern in url_patterns():
            if getattr(pattern, "callback", None) is original:
                pattern.callback = replacement


def url_patterns():
    from django.urls import get_resolver

    stack = [get_resolver()]
    while stack:
        resolver = stack.pop()
        for pattern in resolver.url_patterns:
            if hasattr(pattern, "url_patterns"):
                stack.append(pattern)
            else:
                yield pattern


def measure(path: str) -> tuple[float, dict]:
    os.environ.update(ENV)
    from bench.instructions import caller

    phases: dict[str, Phase] = {}
    call = caller(path)
    for _ in range(WARM_UP * 5):
        call()
    if path == "webhook":
        install(phases)
    started = time.process_time()
    for _ in range(N):
        call()
    total = time.process_time() - started
    return total, phases


def main() -> None:
    path = sys.argv[1] if len(sys.argv) > 1 else "webhook"
    total, phases = measure(path)
    print(f"{path}: {N} requests, web process CPU µs per request (load {load()})")
    print("\n| phase | CPU µs/req | calls/req |\n|---|---|---|")
    print(f"| **total** | {total / N * 1e6:.0f} | 1 |")
    for phase in phases.values():
        print(f"| {phase.label} | {phase.cpu / N * 1e6:.0f} | {phase.calls / N:g} |")
    view = phases.get("view (all of it)")
    if view:
        outside = (total - view.cpu) / N * 1e6
        print(f"| Django handling and middleware (total - view) | {outside:.0f} | |")


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


if __name__ == "__main__":
    main()
