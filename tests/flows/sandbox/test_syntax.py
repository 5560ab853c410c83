"""Code is compiled at save in the sandbox, never run: a syntax error is a
field error naming the line, and a body that would loop forever still saves."""

from __future__ import annotations

import time

import pytest

from flows.sandbox import syntax_error
from tests.flows.graphs import code

pytestmark = pytest.mark.django_db


def test_valid_code_compiles():
    assert syntax_error("const n = input.items.length;\nreturn {n};") is None


def test_a_syntax_error_names_its_line_and_column():
    message = syntax_error("let x = 1;\nreturn x +;")

    assert message.startswith("SyntaxError: unexpected token in expression: ';'")
    assert "line 2, column 11" in message


def test_compiling_never_runs_the_body(settings):
    settings.CODE_TIMEOUT_MS = 1000
    started = time.monotonic()

    assert syntax_error("while (true) {}\nreturn 1;") is None

    assert time.monotonic() - started < 0.5  # compiled, not run into the time limit


def test_saving_code_with_a_syntax_error_is_a_field_error(api, alice_flow):
    nodes = [*alice_flow.nodes[:1], code("greet", "return {greeting: 'hi' +};")]

    response = api.patch(f"/api/flows/{alice_flow.id}", {"nodes": nodes}, format="json")

    assert response.status_code == 400
    problems = response.json()["error"]["details"]["nodes"]
    assert [(p["index"], p["field"]) for p in problems] == [(1, "data.code")]
    assert problems[0]["message"].startswith("SyntaxError:")
    assert "(line 1, column" in problems[0]["message"]
    alice_flow.refresh_from_db()
    assert "+}" not in alice_flow.nodes[1]["data"]["code"]
