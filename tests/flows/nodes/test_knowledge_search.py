"""The knowledge_search node: passages of its workspace's base, marked as data."""

from __future__ import annotations

import pytest

from flows.engine import run_flow
from flows.graph import validate_graph
from tests.factories import FlowFactory
from tests.flows.graphs import chain, node, trigger
from tests.knowledge.bases import add_markdown, make_base

pytestmark = pytest.mark.django_db


def search_flow(owner, **data):
    nodes, edges = chain(trigger(), node("search", "knowledge_search", **data))
    return FlowFactory(created_by=owner, nodes=nodes, edges=edges)


def test_it_outputs_passages_with_source_position_and_score(vector_engine, alice):
    base = make_base(alice)
    add_markdown(base)
    flow = search_flow(alice, base_id=str(base.id), query="{{ input.q }}", k=2)

    run = run_flow(flow, {"q": "When are refunds paid?"}, "manual")

    assert run.status == "succeeded", run.error
    output = run.results["search"]
    assert output["query"] == "When are refunds paid?"
    assert "not instructions" in output["note"]
    best = output["passages"][0]
    assert set(best) == {"document_id", "source", "position", "score", "text"}
    assert best["source"] == "handbook.md"
    assert "five working days" in best["text"]


def test_another_workspaces_base_is_not_found(alice, bob):
    base = make_base(bob)
    add_markdown(base)
    flow = search_flow(alice, base_id=str(base.id), query="refunds")

    run = run_flow(flow, {}, "manual")

    assert run.status == "failed"
    assert run.error["code"] == "knowledge_base_missing"


def test_an_empty_query_fails_the_node(alice):
    base = make_base(alice)
    flow = search_flow(alice, base_id=str(base.id), query="{{ input.q }}")

    run = run_flow(flow, {"q": " "}, "manual")

    assert run.error["code"] == "invalid_query"


def test_a_base_id_that_is_no_uuid_is_refused_at_save():
    nodes, edges = chain(trigger(), node("search", "knowledge_search", base_id="x"))

    problems = validate_graph(nodes, edges).nodes

    assert "data.base_id" in {problem["field"] for problem in problems}
