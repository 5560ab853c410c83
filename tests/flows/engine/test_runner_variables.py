"""A run reads its workspace's variables as `vars` and the `dates` helpers,
in templates and code alike (docs/engine.md, "Variables")."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.models import Variable
from flows.engine import run_flow
from tests.flows.graphs import chain_flow, code, node, trigger

pytestmark = pytest.mark.django_db


def transform(values: dict) -> dict:
    return node("shape", "transform", values=values)


def run(flow, payload=None):
    return run_flow(flow, payload or {}, "manual")


def test_templates_read_workspace_variables():
    flow = chain_flow(
        trigger(),
        transform({"url": "{{ vars.API_BASE }}/orders", "whole": "{{ vars.REGION }}"}),
    )
    Variable.objects.create(
        workspace=flow.workspace, name="API_BASE", value="https://x.test"
    )
    Variable.objects.create(workspace=flow.workspace, name="REGION", value="eu")

    finished = run(flow)

    assert finished.status == "succeeded"
    assert finished.results["shape"] == {"url": "https://x.test/orders", "whole": "eu"}


def test_code_reads_workspace_variables():
    flow = chain_flow(trigger(), code("js", "return vars.GREETING + ', ' + input.name"))
    Variable.objects.create(workspace=flow.workspace, name="GREETING", value="Hello")

    assert run(flow, {"name": "Ada"}).results["js"] == "Hello, Ada"


def test_a_missing_variable_reads_as_empty_as_in_n8n():
    flow = chain_flow(
        trigger(),
        transform({"text": "[{{ vars.NOPE }}]", "js": "{{ vars.NOPE ?? 'fallback' }}"}),
    )

    assert run(flow).results["shape"] == {"text": "[]", "js": "fallback"}


def test_another_workspaces_variables_are_not_seen():
    flow = chain_flow(trigger(), transform({"x": "{{ vars.SECRETISH }}"}))
    other = chain_flow(trigger())
    Variable.objects.create(workspace=other.workspace, name="SECRETISH", value="theirs")

    assert run(flow).results["shape"] == {"x": None}


def test_a_flow_that_names_no_vars_reads_none():
    flow = chain_flow(trigger(), transform({"x": "{{ input.n }}"}))
    Variable.objects.create(workspace=flow.workspace, name="N", value="1")

    with CaptureQueriesContext(connection) as queries:
        run(flow, {"n": 1})

    assert not [q for q in queries if "accounts_variable" in q["sql"]]


def test_a_template_formats_a_date_in_a_variables_time_zone():
    flow = chain_flow(
        trigger(),
        transform(
            {"day": '{{ dates.format(input.when, "dddd D MMMM, HH:mm", vars.TZ) }}'}
        ),
    )
    Variable.objects.create(workspace=flow.workspace, name="TZ", value="Asia/Tokyo")

    finished = run(flow, {"when": "2026-12-06T20:00:00Z"})

    assert finished.results["shape"] == {"day": "Monday 7 December, 05:00"}


def test_a_workspace_export_names_variables_but_never_holds_their_values():
    from flows.git.files import export_workspace

    flow = chain_flow(trigger(), transform({"url": "{{ vars.API_BASE }}/orders"}))
    Variable.objects.create(
        workspace=flow.workspace, name="API_BASE", value="https://internal.test"
    )

    texts = "".join(export_workspace(flow.workspace).values())

    assert "vars.API_BASE" in texts
    assert "internal.test" not in texts
