"""Code that tampers with JavaScript's built-ins cannot forge the sandbox's report.

The worker reads each log line and the result as plain strings through the
harness's own functions (captured before user code runs), so a prototype trick
such as `Object.prototype.toJSON` changes nothing the run stores.
"""

from __future__ import annotations

import pytest

from flows.engine import run_flow
from tests.flows.graphs import chain_flow, code, trigger

pytestmark = pytest.mark.django_db

LOG_LINES, LOG_LINE_CHARS, LOG_CHARS = 200, 2000, 64 * 1024
MARKERS = ("… [line truncated]", "[more log lines were dropped]")

FORGERIES = {
    "object-tojson": (
        "Object.prototype.toJSON = function () { return {settled: {json: '7'},"
        " logs: ['x'.repeat(1100000)], logsTruncated: false}; };"
    ),
    "array-tojson": (
        "Array.prototype.toJSON = function () {"
        " return Array(5000).fill('y'.repeat(2000)); };"
    ),
    "replaced-string-and-array-methods": (
        "String.prototype.slice = function () { return 'z'.repeat(1100000) };"
        " Array.prototype.map = function () { return ['z'.repeat(1100000)] };"
        " Array.prototype.join = function () { return 'z'.repeat(1100000) };"
        " Array.prototype.push = function () { return 0 };"
    ),
    "forged-length-and-index-setters": (
        "Object.defineProperty(Array.prototype, '0', {set() {}, get() {"
        " return 'w'.repeat(1100000) }, configurable: true});"
        " Object.defineProperty(Object.prototype, 'logsTruncated', {get() {"
        " return false }, configurable: true});"
    ),
}


def run_code(source: str):
    return run_flow(chain_flow(trigger(), code("js", source)), {}, "manual")


@pytest.mark.parametrize("tamper", FORGERIES.values(), ids=FORGERIES.keys())
def test_tampered_builtins_cannot_forge_the_logs_or_the_result(tamper):
    run = run_code(
        tamper + " for (let i = 0; i < 300; i++) console.log('line ' + i);"
        " console.log('v'.repeat(5000)); return 'honest'"
    )

    assert run.status == "succeeded"
    assert run.results["js"] == "honest"
    logs = run.steps.get(node_id="js").logs
    assert logs[0] == "line 0"
    assert len(logs) <= LOG_LINES + 1
    assert logs[-1] == "[more log lines were dropped]"
    assert all(len(line) <= LOG_LINE_CHARS + len(MARKERS[0]) for line in logs)
    assert sum(len(line) for line in logs) <= LOG_CHARS + 100


def test_a_forged_report_cannot_claim_success_for_a_throwing_node():
    run = run_code(
        "Object.prototype.toJSON = function () { return {settled: {json: '1'},"
        " logs: [], logsTruncated: false}; };"
        " return Promise.reject(new Error('real failure'))"
    )

    assert run.status == "failed"
    assert run.error["code"] == "code_error"
    assert "real failure" in run.error["message"]
