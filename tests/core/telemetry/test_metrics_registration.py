"""The request metrics are registered once per process, however many threads
build Django's handler at once (a server's first requests arrive together)."""

from __future__ import annotations

import pytest

from tests.processes import run_python

pytestmark = pytest.mark.processes

# A fresh process, as a web worker starts: eight threads load the middleware
# (Django's handler) at the same moment, with thread switches as often as the
# interpreter allows; then the process's metrics are read.
FIRST_REQUESTS_AT_ONCE = """
import sys, threading
import django
django.setup()
from django.core.handlers.wsgi import WSGIHandler
from prometheus_client import REGISTRY, generate_latest

sys.setswitchinterval(1e-6)
start = threading.Barrier(8)
failures = []

def first_request():
    start.wait()
    try:
        WSGIHandler()
    except Exception as error:
        failures.append(repr(error))

threads = [threading.Thread(target=first_request) for _ in range(8)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print("failures:", failures)
print(generate_latest(REGISTRY).decode())
"""


@pytest.mark.parametrize("attempt", range(3))
def test_threads_loading_the_middleware_at_once_register_the_metrics_once(attempt):
    output = run_python(FIRST_REQUESTS_AT_ONCE)

    assert "failures: []" in output
    help_lines = [
        line
        for line in output.splitlines()
        if line.startswith(
            "# HELP django_http_responses_total_by_status_view_method_total "
        )
    ]
    assert len(help_lines) == 1
