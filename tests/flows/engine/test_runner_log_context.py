"""Log lines written while a run executes carry its run, flow and node ids."""

from __future__ import annotations

import json
import logging

from flows.engine import run_flow
from flows.nodes import NodeKind, register
from tests.factories import FlowFactory
from tests.flows.graphs import chain, node, trigger


class Chatty(NodeKind):
    type = "chatty"

    def run(self, data, ctx):
        logging.getLogger("weir.test").warning("Working on %s", data.get("label"))
        return "done"


def test_each_line_a_node_writes_names_its_run_flow_and_node(
    node_registry, alice, json_logs
):
    register(Chatty())
    nodes, edges = chain(trigger(), node("a", "chatty", label="A"), node("b", "chatty"))
    flow = FlowFactory(created_by=alice, nodes=nodes, edges=edges)

    run = run_flow(flow, {}, "manual")
    logging.getLogger("weir.test").warning("After the run")

    lines = [json.loads(line) for line in json_logs.getvalue().splitlines()]
    assert run.status == "succeeded"
    assert [(line["message"], line.get("node_id")) for line in lines] == [
        ("Working on A", "a"),
        ("Working on None", "b"),
        ("After the run", None),
    ]
    assert lines[0]["run_id"] == lines[1]["run_id"] == str(run.id)
    assert lines[0]["flow_id"] == str(flow.id)
    assert "run_id" not in lines[2]
