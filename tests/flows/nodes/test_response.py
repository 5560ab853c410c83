"""Response header values follow RFC 9110's field-value rules, checked at run time:
a templated value with a control character fails the run with `invalid_header`
instead of reaching the HTTP server, which would answer its own 500 page."""

from __future__ import annotations

import pytest

from flows.engine import run_flow
from tests.factories import FlowFactory
from tests.flows.graphs import chain, node, trigger

pytestmark = pytest.mark.django_db

CONTROL = [0x00, 0x01, 0x08, 0x0A, 0x0B, 0x0C, 0x0D, 0x1E, 0x1F, 0x7F]


def header_run(value: str, template: str = "{{ input.name }}"):
    reply = node("reply", "response", headers={"X-Name": template})
    nodes, edges = chain(trigger(), reply)
    return run_flow(FlowFactory(nodes=nodes, edges=edges), {"name": value}, "webhook")


@pytest.mark.parametrize("code", CONTROL, ids=[f"{code:#04x}" for code in CONTROL])
def test_a_control_character_in_a_templated_header_fails_the_run(code):
    run = header_run("", f"Ada{{{{ String.fromCharCode({code}) }}}}Lovelace")

    assert run.status == "failed"
    assert run.error["node_id"] == "reply"
    assert run.error["code"] == "invalid_header"
    assert run.response is None


@pytest.mark.parametrize("value", ["Ada\tLovelace", "Zoë", "a b", "~!#$%&'()*+,-./:;"])
def test_tabs_spaces_visible_ascii_and_latin_1_are_sent(value):
    run = header_run(value)

    assert run.status == "succeeded"
    assert run.response["headers"]["X-Name"] == value


def test_surrounding_whitespace_is_not_part_of_the_value():
    run = header_run("  Ada \t")

    assert run.status == "succeeded"
    assert run.response["headers"]["X-Name"] == "Ada"


def test_a_literal_header_with_a_control_character_is_refused_at_save(api):
    reply = node("reply", "response", headers={"X-Name": "a\x0bb"})
    nodes, edges = chain(trigger(), reply)

    response = api.post(
        "/api/flows", {"name": "f", "nodes": nodes, "edges": edges}, format="json"
    )

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "validation_error"
