"""The engine's log of a node's unexpected exception: the traceback is kept for
whoever reads the logs, but the credential values the run opened and Weir token
texts in it are redacted like everything the run stores."""

from __future__ import annotations

import logging

import pytest

from accounts.tokens.text import PERSONAL, new_token
from flows.engine import run_flow
from flows.nodes import NODE_KINDS
from tests.factories import make_credential
from tests.flows.graphs import chain_flow, code, node, trigger

pytestmark = pytest.mark.django_db

SECRET = "sk-live-logged-0123456789abcdef"
TOKEN = new_token(PERSONAL)


def weir_log(caplog) -> str:
    """Every `weir.*` record as a handler would write it, traceback included."""
    formatter = logging.Formatter()
    return "\n".join(
        formatter.format(record)
        for record in caplog.records
        if record.name.startswith("weir")
    )


def test_a_node_exception_holding_a_secret_is_logged_redacted(
    monkeypatch, caplog, alice
):
    make_credential(alice, "stripe", secrets={"token": SECRET})
    opened = NODE_KINDS["code"].run

    def leaky(data, ctx):  # a bug that puts the secret in its exception
        opened(data, ctx)  # opens the credential, as the node does
        raise RuntimeError(f"request failed for {SECRET} with {TOKEN}")

    monkeypatch.setattr(NODE_KINDS["code"], "run", leaky)
    flow = chain_flow(trigger(), code("c", "return secrets.stripe;"), created_by=alice)

    with caplog.at_level(logging.ERROR, logger="weir"):
        run = run_flow(flow, {}, "manual")

    assert run.error["code"] == "internal_error"
    logged = weir_log(caplog)
    assert "Node c of run" in logged
    assert "RuntimeError: request failed for [redacted:stripe]" in logged  # kept
    assert "Traceback" in logged and "leaky" in logged  # where it failed, kept
    assert SECRET not in logged
    assert TOKEN not in logged


def test_a_token_in_an_exception_is_redacted_without_any_credential(
    monkeypatch, caplog
):
    def broken(data, ctx):
        raise ValueError(f"bad header Authorization: Bearer {TOKEN}")

    monkeypatch.setattr(NODE_KINDS["transform"], "run", broken)
    flow = chain_flow(trigger(), node("t", "transform", values={}))

    with caplog.at_level(logging.ERROR, logger="weir"):
        run_flow(flow, {}, "manual")

    logged = weir_log(caplog)
    assert "ValueError: bad header Authorization: Bearer [redacted]" in logged
    assert TOKEN not in logged


def test_an_engine_failure_holding_a_secret_is_logged_redacted(
    monkeypatch, caplog, alice
):
    from flows.engine.runner import Execution

    make_credential(alice, "stripe", secrets={"token": SECRET})
    record = Execution.record

    def failing(self, node, status, **kwargs):  # a bug after the node opened it
        if node["id"] == "c":
            raise RuntimeError(f"could not store {self.results} {SECRET} {TOKEN}")
        return record(self, node, status, **kwargs)

    monkeypatch.setattr(Execution, "record", failing)
    flow = chain_flow(trigger(), code("c", "return secrets.stripe;"), created_by=alice)

    with caplog.at_level(logging.ERROR, logger="weir"):
        run = run_flow(flow, {}, "manual")

    assert run.error["code"] == "internal_error"
    logged = weir_log(caplog)
    assert "failed inside the engine" in logged
    assert "RuntimeError: could not store" in logged and "[redacted:stripe]" in logged
    assert SECRET not in logged
    assert TOKEN not in logged
