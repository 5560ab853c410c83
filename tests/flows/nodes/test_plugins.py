"""Node kinds from plugins (flows/nodes/plugins.py, docs/plugins.md): the
example plugin (examples/weir-plugin-hello, installed by `make`) is offered,
checked and run like a built-in; a broken or colliding plugin is logged and
skipped while the others load."""

from __future__ import annotations

import logging
from importlib.metadata import EntryPoint

import pytest

from flows.engine import run_flow
from flows.nodes import get_kind
from flows.nodes.code import CodeNode
from flows.nodes.plugins import load_node_plugins
from tests.factories import FlowFactory
from tests.flows.graphs import chain, node, trigger
from tests.flows.test_views import json_script

SAMPLES = "tests.flows.nodes.plugin_samples"


def entry(name: str, value: str) -> EntryPoint:
    return EntryPoint(name=name, value=value, group="weir.nodes")


def hello_flow(user, **data):
    data = {"greeting": "Hoi", "name": "{{ input.name }}", **data}
    nodes, edges = chain(trigger(), node("hello", "hello", **data))
    return FlowFactory(created_by=user, name="Greeter", nodes=nodes, edges=edges)


def test_the_example_plugins_kind_is_offered_in_the_builder(alice_client, alice_flow):
    html = alice_client.get(f"/flows/{alice_flow.id}/").content.decode()

    kinds = {kind["type"]: kind for kind in json_script(html, "node-kinds")}
    assert kinds["hello"]["label"] == "Hello"
    assert [field["path"] for field in kinds["hello"]["fields"]] == [
        "data.greeting",
        "data.name",
    ]
    assert kinds["hello"]["default_data"] == {
        "greeting": "Hello",
        "name": "{{ input.name }}",
    }
    assert 'data-kind="hello"' in html


def test_a_flow_with_the_hello_node_runs_and_greets(api, alice):
    flow = hello_flow(alice)

    response = api.post(f"/api/flows/{flow.id}/run", {"name": "Ada"}, format="json")

    assert response.status_code == 200
    assert response.json()["status"] == "succeeded"
    assert response.json()["results"]["hello"] == {"message": "Hoi, Ada!"}


def test_the_hello_nodes_checks_run_when_the_flow_is_saved(api, alice):
    flow = hello_flow(alice)
    nodes = [*flow.nodes[:1], {**flow.nodes[1], "data": {"greeting": " ", "name": ""}}]

    response = api.patch(f"/api/flows/{flow.id}", {"nodes": nodes}, format="json")

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "validation_error"
    assert [
        problem["field"] for problem in response.json()["error"]["details"]["nodes"]
    ] == ["data.greeting", "data.name"]


def test_a_plugin_that_fails_to_import_is_logged_and_skipped(node_registry, caplog):
    found = [
        entry("broken", "tests.flows.nodes.plugin_broken:Node"),
        entry("echo", f"{SAMPLES}:Echo"),
    ]

    with caplog.at_level(logging.ERROR, logger="weir.plugins"):
        report = load_node_plugins(found)

    assert report.loaded == ["echo"]
    assert [skipped.name for skipped in report.skipped] == ["broken"]
    assert get_kind("echo") is not None
    assert get_kind("broken") is None
    assert (
        "Plugin broken (weir.nodes, tests.flows.nodes.plugin_broken:Node) skipped: "
        "RuntimeError: the hello service is down"
    ) in caplog.messages


@pytest.mark.parametrize(
    ("name", "taken_by"),
    [("Impostor", "CodeNode"), ("AgentImpostor", "AgentNode")],
)
def test_a_plugin_claiming_a_taken_name_is_refused(
    node_registry, caplog, name, taken_by
):
    with caplog.at_level(logging.ERROR, logger="weir.plugins"):
        report = load_node_plugins([entry("impostor", f"{SAMPLES}:{name}")])

    assert report.loaded == []
    assert f"is already registered by {taken_by}" in report.skipped[0].reason
    assert "refused" in caplog.text
    assert isinstance(get_kind("code"), CodeNode)
    assert type(get_kind("agent")).__name__ == "AgentNode"


def test_an_entry_point_naming_no_node_kind_is_refused(node_registry, caplog):
    report = load_node_plugins([entry("odd", f"{SAMPLES}:NOT_A_KIND")])

    assert report.skipped[0].reason == (
        "refused: odd names {'type': 'dict'}, which is not a NodeKind."
    )
    assert get_kind("dict") is None


def test_a_node_type_that_is_not_a_plain_name_is_refused(node_registry):
    """Node types appear in saved graphs, the palette, CSS classes and
    element ids: a plugin's must be a name like the built-ins' (security.md
    Round 8's "Left")."""
    report = load_node_plugins([entry("odd", f"{SAMPLES}:OddlyNamed")])

    assert report.loaded == []
    assert "lower-case letters, digits and _" in report.skipped[0].reason
    assert get_kind('Echo"><img src=x onerror=alert(1)>') is None


def test_a_flow_whose_plugin_is_gone_fails_naming_its_node(node_registry, alice):
    flow = hello_flow(alice)
    del node_registry["hello"]

    run = run_flow(flow, {"name": "Ada"}, "manual")

    assert run.status == "failed"
    assert run.error == {
        "node_id": "hello",
        "code": "invalid_flow",
        "message": "Unknown node type 'hello'.",
    }
