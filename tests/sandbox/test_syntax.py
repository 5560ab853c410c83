"""Code is compiled at save in the sandbox, never run: a syntax error is a
field error naming the line, and a body that would loop forever still saves."""

from __future__ import annotations

import time

import pytest

from sandbox import syntax_error
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


# A body that closes the function early: QuickJS's Function constructor
# builds "(function anonymous(...) {\n" + body + "\n})", so the text after
# "})" is a statement of its own, run when the function is made.
ESCAPE = "}); {RUN}; (function(){"


def test_a_body_that_closes_the_function_early_is_not_run_at_save(settings):
    settings.CODE_TIMEOUT_MS = 1000

    message = syntax_error(ESCAPE.replace("{RUN}", "throw new Error('it ran')"))

    assert "it ran" not in (message or "")


def test_an_early_closing_endless_loop_costs_no_time_at_save(settings):
    settings.CODE_TIMEOUT_MS = 1000
    started = time.monotonic()

    syntax_error(ESCAPE.replace("{RUN}", "for(;;){}"))

    assert time.monotonic() - started < 0.5


def test_a_save_with_many_early_closing_bodies_answers_in_time(api, alice_flow):
    nodes = alice_flow.nodes + [
        code(f"c{index}", ESCAPE.replace("{RUN}", "for(;;){}")) for index in range(8)
    ]
    started = time.monotonic()

    response = api.patch(f"/api/flows/{alice_flow.id}", {"nodes": nodes}, format="json")

    assert time.monotonic() - started < 2
    assert response.status_code == 200  # compiled, never run


def test_a_save_spends_at_most_its_budget_compiling_code(
    api, alice_flow, settings, monkeypatch
):
    settings.SAVE_CHECK_SECONDS = 0.3
    compiled = []

    def slow_compile(job, variables, deadline):
        compiled.append(job["source"])
        time.sleep(0.1)
        return {}

    monkeypatch.setattr("sandbox._call", slow_compile)
    nodes = alice_flow.nodes + [code(f"c{index}", "return 1;") for index in range(20)]
    started = time.monotonic()

    response = api.patch(f"/api/flows/{alice_flow.id}", {"nodes": nodes}, format="json")

    assert response.status_code == 200
    assert time.monotonic() - started < 1
    assert (
        2 <= len(compiled) <= 5
    )  # the rest saved unchecked, as when the sandbox is down
