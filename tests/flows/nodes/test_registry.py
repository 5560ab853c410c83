"""The node registry (flows/nodes/__init__.py): one kind per type name, and a kind
an app registers is checked, run and offered like a built-in one."""

from __future__ import annotations

import copy

import pytest

from flows.engine import run_flow
from flows.graph import validate_graph
from flows.nodes import (
    NODE_KINDS,
    DuplicateNodeKind,
    FormField,
    NodeKind,
    get_kind,
    register,
)
from flows.nodes.code import CodeNode
from tests.factories import FlowFactory
from tests.flows.graphs import chain, node, trigger
from tests.flows.test_views import json_script


class Shout(NodeKind):
    type = "shout"
    label = "Shout"
    description = "Upper-cases its text."
    form_fields = (FormField("data.text", "Text", help="A template."),)
    default_data = {"text": "{{ input.name }}"}

    def validate_data(self, data):
        from flows.nodes import FieldError

        if not isinstance(data.get("text"), str):
            return [FieldError("data.text", "text must be a string.")]
        return []

    def run(self, data, ctx):
        return ctx.render(data["text"]).upper()


def test_a_second_kind_with_a_taken_type_is_refused(node_registry):
    class Impostor(NodeKind):
        type = "code"

    with pytest.raises(DuplicateNodeKind, match="'code' is already registered"):
        register(Impostor())

    assert isinstance(get_kind("code"), CodeNode)


def test_the_same_app_registering_its_kind_twice_is_refused(node_registry):
    register(Shout())

    with pytest.raises(DuplicateNodeKind):
        register(Shout())


def test_a_kind_without_a_type_name_is_refused(node_registry):
    with pytest.raises(ValueError, match="no `type` name"):
        register(NodeKind())

    assert "" not in node_registry


def test_a_registered_kind_is_validated_at_save_time(node_registry):
    register(Shout())

    good = validate_graph(*chain(trigger(), node("s", "shout", text="hi")))
    bad = validate_graph(*chain(trigger(), node("s", "shout", text=3)))

    assert not good
    assert bad.as_details()["nodes"] == [
        {"index": 1, "field": "data.text", "message": "text must be a string."}
    ]


def test_a_registered_kind_runs_in_the_engine(node_registry, alice):
    register(Shout())
    nodes, edges = chain(trigger(), node("s", "shout", text="hi {{ input.name }}"))
    flow = FlowFactory(created_by=alice, nodes=nodes, edges=edges)

    run = run_flow(flow, {"name": "ada"}, "manual")

    assert run.status == "succeeded"
    assert run.results["s"] == "HI ADA"


def test_a_registered_kind_is_offered_in_the_builder(
    node_registry, alice_client, alice_flow
):
    register(Shout())

    html = alice_client.get(f"/flows/{alice_flow.id}/").content.decode()

    kinds = json_script(html, "node-kinds")
    assert kinds[-1] == {
        "type": "shout",
        "label": "Shout",
        "description": "Upper-cases its text.",
        "is_trigger": False,
        "output_handles": [None],
        "fields": [
            {
                "path": "data.text",
                "label": "Text",
                "widget": "text",
                "help": "A template.",
            }
        ],
        "default_data": {"text": "{{ input.name }}"},
    }


@pytest.mark.parametrize("kind", sorted(NODE_KINDS), ids=str)
def test_a_new_nodes_default_data_passes_its_kinds_checks(db, kind):
    registered = NODE_KINDS[kind]
    problems = registered.validate_data(copy.deepcopy(registered.default_data))

    if kind == "agent":  # the user must choose an agent first
        assert [problem.field for problem in problems] == ["data.agent_id"]
    elif kind == "mcp_tool":  # and a tool of the server's list
        assert [problem.field for problem in problems] == ["data.tool"]
    elif kind == "app_action":  # an app and one of its operations first
        assert [problem.field for problem in problems] == ["data.app"]
    elif kind == "knowledge_search":  # and a knowledge base
        assert [problem.field for problem in problems] == ["data.base_id"]
    else:
        assert problems == []


@pytest.mark.parametrize(
    "kind", ["http_request", "mcp_tool", "send_email", "postgres_query"]
)
def test_a_credential_id_that_is_not_text_is_refused(db, kind):
    registered = NODE_KINDS[kind]
    data = {**copy.deepcopy(registered.default_data), "credential_id": 42}

    problems = registered.validate_data(data)

    assert ("data.credential_id", "Must be a credential's id or null.") in [
        (problem.field, problem.message) for problem in problems
    ]
