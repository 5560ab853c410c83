"""The web side trusts nothing a worker sends: every cap is checked again here.

A worker is a process running hostile code; should its harness ever be beaten,
what reaches the engine must still fit the caps. These tests stand in for such
a worker with a fake pool that answers anything.
"""

from __future__ import annotations

import json

import pytest

import sandbox

VARIABLES = {"input": {}, "prev": None, "results": {}}


class ForgingPool:
    def __init__(self, reply: dict):
        self.reply = reply

    def call(self, job: dict, deadline: float) -> dict:
        return self.reply


@pytest.fixture
def worker_says(monkeypatch):
    def install(reply: dict) -> None:
        monkeypatch.setattr(sandbox, "worker_pool", lambda: ForgingPool(reply))

    return install


def test_forged_logs_are_cut_to_the_caps(worker_says):
    worker_says(
        {
            "settled": {"json": "1"},
            "logs": ["x" * 1_100_000] + ["y" * 2000] * 5000,
            "logs_truncated": False,
        }
    )

    result = sandbox.run_code("return 1", VARIABLES)

    assert result.value == 1
    assert result.logs_truncated is True
    assert len(result.logs) <= sandbox.LOG_LINES
    assert all(
        len(line) <= sandbox.LOG_LINE_CHARS + len(sandbox.LINE_CUT)
        for line in result.logs
    )
    assert result.logs[0].endswith(sandbox.LINE_CUT)
    assert sum(len(line) for line in result.logs) <= sandbox.LOG_CHARS


def test_log_entries_that_are_not_text_are_dropped(worker_says):
    worker_says(
        {"settled": {"json": "1"}, "logs": [{"a": 1}, "ok", 7], "logs_truncated": 0}
    )

    result = sandbox.run_code("return 1", VARIABLES)

    assert result.logs == ["ok"]
    assert result.logs_truncated is True


def test_a_forged_oversized_output_fails_the_node(worker_says, settings):
    settings.RUN_MAX_OUTPUT_BYTES = 1000
    worker_says({"settled": {"json": json.dumps("x" * 5000)}, "logs": []})

    with pytest.raises(sandbox.SandboxError) as raised:
        sandbox.run_code("return 1", VARIABLES)

    assert raised.value.code == "output_too_large"


def test_a_forged_error_message_and_code_are_bounded(worker_says):
    worker_says(
        {"error": "x" * 5000, "message": "m" * 1_000_000, "logs": ["z" * 10**6]}
    )

    with pytest.raises(sandbox.SandboxError) as raised:
        sandbox.run_code("return 1", VARIABLES)

    assert raised.value.code == "invalid_output"
    assert len(raised.value.message) <= 2000
    assert len(raised.value.logs[0]) <= sandbox.LOG_LINE_CHARS + len(sandbox.LINE_CUT)


def test_forged_expression_results_are_bounded_too(worker_says, settings):
    settings.RUN_MAX_OUTPUT_BYTES = 1000
    worker_says({"settled": [{"error": "expression_error", "message": "e" * 10**6}]})

    with pytest.raises(sandbox.SandboxError) as raised:
        sandbox.evaluate(["1"], VARIABLES)

    assert raised.value.code == "expression_error"
    assert len(raised.value.message) <= 2000
