"""The agent node and credentials: a per-node provider key, and no credential value
reaching the model or the stored conversation."""

from __future__ import annotations

import pytest

from agents.models import Message
from flows.engine import run_flow
from tests.factories import FlowFactory, make_credential
from tests.flows.graphs import chain, node, trigger
from tests.llm_server import openai_text

pytestmark = pytest.mark.django_db


def ask_flow(owner, agent, **data):
    nodes, edges = chain(
        trigger(), node("ask", "agent", agent_id=str(agent.id), **data)
    )
    return FlowFactory(created_by=owner, nodes=nodes, edges=edges)


def test_the_nodes_credential_supplies_the_provider_key(
    alice, llm_server, openai_agent
):
    credential = make_credential(alice, "mykey", secrets={"token": "sk-node-key-9"})
    flow = ask_flow(alice, openai_agent, message="hi", credential_id=str(credential.id))
    llm_server.queue(openai_text("ok"))

    run = run_flow(flow, {}, "manual")

    assert run.status == "succeeded"
    auth = llm_server.requests[0]["headers"]["authorization"]
    assert auth == "Bearer sk-node-key-9"


def test_a_basic_credential_cannot_be_an_api_key(alice, llm_server, openai_agent):
    credential = make_credential(alice, "u", "basic", {"password": "pw"}, username="a")
    flow = ask_flow(alice, openai_agent, message="hi", credential_id=str(credential.id))

    run = run_flow(flow, {}, "manual")

    assert run.error["code"] == "credential_kind"
    assert llm_server.requests == []


def test_a_secret_in_the_message_reaches_neither_model_nor_conversation(
    alice, llm_server, openai_agent
):
    make_credential(alice, "api", secrets={"token": "tok-for-the-llm-77"})
    flow = ask_flow(alice, openai_agent, message="Use {{ secrets.api }} please")
    llm_server.queue(openai_text("ok"))

    run = run_flow(flow, {}, "manual")

    assert run.status == "succeeded"
    sent = llm_server.requests[0]["json"]["messages"][-1]["content"]
    assert sent == "Use [redacted:api] please"
    assert not Message.objects.filter(content__contains="tok-for-the-llm-77").exists()
