"""Oversized and absurdly nested API bodies get the contract's errors, not a 500.

The limit is `DATA_UPLOAD_MAX_MEMORY_SIZE` (a flow graph at its 2 MiB limit
plus room for the rest of the flow); nesting past Python's recursion limit is
`invalid_json`, nesting past `core.storable.MAX_NESTING` a `validation_error`.
"""

from __future__ import annotations

import json

import pytest
from django.conf import settings

from agents.models import Conversation
from flows.models import Flow, FlowRun
from tests.factories import AgentFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def alice_agent(alice):
    return AgentFactory(created_by=alice)


def endpoints(alice_flow, alice_agent) -> dict[str, str]:
    return {
        "create-flow": "/api/flows",
        "run": f"/api/flows/{alice_flow.id}/run",
        "chat": f"/api/agents/{alice_agent.id}/chat",
    }


ENDPOINTS = ["create-flow", "run", "chat"]


def test_the_body_limit_leaves_room_for_a_graph_at_its_own_limit():
    assert settings.DATA_UPLOAD_MAX_MEMORY_SIZE > settings.FLOW_MAX_GRAPH_BYTES


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_a_body_over_the_limit_is_413(api, alice_flow, alice_agent, endpoint):
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    body = json.dumps({"name": "n", "content": "x" * limit, "nodes": [], "edges": []})

    response = api.post(
        endpoints(alice_flow, alice_agent)[endpoint],
        body,
        content_type="application/json",
    )

    assert response.status_code == 413
    error = response.json()["error"]
    assert error["code"] == "payload_too_large"
    assert error["details"] == {"limit": limit}
    assert Flow.objects.count() == 1  # alice_flow only
    assert FlowRun.objects.count() == 0
    assert Conversation.objects.count() == 0


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_json_nested_past_the_parser_is_400_invalid_json(
    api, alice_flow, alice_agent, endpoint
):
    body = '{"name": "n", "content": ' + "[" * 100_000 + "]" * 100_000 + "}"

    response = api.post(
        endpoints(alice_flow, alice_agent)[endpoint],
        body,
        content_type="application/json",
    )

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_json"
    assert Flow.objects.count() == 1
    assert FlowRun.objects.count() == 0
    assert Conversation.objects.count() == 0


def test_a_body_just_under_the_limit_is_read(api, alice_flow):
    padding = settings.DATA_UPLOAD_MAX_MEMORY_SIZE - 100
    body = json.dumps({"pad": "x" * padding})

    response = api.post(
        f"/api/flows/{alice_flow.id}/run", body, content_type="application/json"
    )

    assert response.status_code == 200
    assert FlowRun.objects.get().input == {"pad": "x" * padding}
