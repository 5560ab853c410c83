"""What the engine gives a node and takes from it (flows/engine/runner.py): the
narrow context (owner id, depth, deadline, outputs), and the webhook response a
kind declares it sets, stored by the engine and never by the node."""

from __future__ import annotations

import dataclasses

from flows.engine import run_flow
from flows.nodes import NodeContext, NodeError, NodeKind, register
from tests.factories import FlowFactory
from tests.flows.graphs import chain, node, trigger

ANSWER = {"status": 201, "headers": {"X-Kind": "custom"}, "body": {"ok": True}}


class Answer(NodeKind):
    """Sets the webhook response, like the response node."""

    type = "answer"
    sets_response = True

    def run(self, data, ctx):
        return ANSWER


class LooksLikeAnAnswer(NodeKind):
    """Returns the same shape but does not declare that it sets the response."""

    type = "lookalike"

    def run(self, data, ctx):
        return ANSWER


class BrokenAnswer(NodeKind):
    type = "broken_answer"
    sets_response = True

    def run(self, data, ctx):
        raise NodeError("broken", "No answer today.")


class Spy(NodeKind):
    """Keeps a copy of each context it ran with (`results` grows after the node)."""

    type = "spy"
    seen: list[NodeContext] = []

    def run(self, data, ctx):
        Spy.seen.append(dataclasses.replace(ctx, results=dict(ctx.results)))
        return "seen"


def flow_of(owner, *nodes):
    node_list, edges = chain(trigger(), *nodes)
    return FlowFactory(created_by=owner, nodes=node_list, edges=edges)


def test_a_kind_that_declares_it_sets_the_response_sets_it(node_registry, alice):
    register(Answer())

    run = run_flow(flow_of(alice, node("a", "answer")), {}, "webhook")

    assert run.status == "succeeded"
    assert run.response == ANSWER
    assert run.results["a"] == ANSWER
    run.refresh_from_db()
    assert run.response == ANSWER


def test_a_kind_that_does_not_declare_it_leaves_no_response(node_registry, alice):
    register(LooksLikeAnAnswer())

    run = run_flow(flow_of(alice, node("a", "lookalike")), {}, "webhook")

    assert run.status == "succeeded"
    assert run.response is None


def test_a_failing_kind_that_sets_the_response_leaves_the_earlier_one(
    node_registry, alice
):
    register(Answer())
    register(BrokenAnswer())
    flow = flow_of(alice, node("a", "answer"), node("b", "broken_answer"))

    run = run_flow(flow, {}, "webhook")

    assert run.status == "failed"
    assert run.error["code"] == "broken"
    assert run.response == ANSWER


def test_a_node_sees_the_owner_the_depth_and_the_outputs_not_the_models(
    node_registry, alice
):
    register(Spy())
    Spy.seen = []
    flow = flow_of(alice, node("s", "spy"))

    run_flow(flow, {"name": "Ada"}, "agent", depth=2)
    run_flow(flow, {}, "manual")

    nested, direct = Spy.seen
    assert (nested.owner_id, nested.depth) == (alice.pk, 2)
    assert (direct.owner_id, direct.depth) == (alice.pk, 0)
    assert nested.input == {"name": "Ada"}
    assert nested.prev == {"name": "Ada"}  # the webhook trigger passes input on
    assert set(nested.results) == {"trigger"}
    fields = {field.name for field in dataclasses.fields(NodeContext)}
    assert not fields & {"flow", "run", "node"}
