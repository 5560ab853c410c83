"""The demo agent `seed_demo` adds through the flows seed hook (agents/demo.py).

The demo user and flow are flows' part (tests/flows/test_demo.py).
"""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command

from agents.demo import seed_demo_agent
from agents.models import Agent
from flows.demo import SEED_HOOKS


def test_agents_hooks_its_demo_agent_into_the_flows_seed():
    assert SEED_HOOKS.count(seed_demo_agent) == 1


def test_seed_demo_creates_the_echo_agent_with_the_demo_flow_as_its_tool_once(
    db, capsys
):
    call_command("seed_demo")
    first = capsys.readouterr().out
    call_command("seed_demo")
    second = capsys.readouterr().out

    agent = Agent.objects.get(name="Echo")
    assert agent.created_by.username == "demo"
    assert [flow.name for flow in agent.tools.all()] == ["Say hello"]
    assert "Demo agent 'Echo' (model echo:demo), published" in first
    assert "Demo agent" not in second


def test_the_demo_agent_answers_from_a_knowledge_base_of_weirs_docs(db, capsys):
    from knowledge.search import search

    call_command("seed_demo")
    call_command("seed_demo")

    [base] = Agent.objects.get(name="Echo").knowledge_bases.all()
    assert base.name == "Weir docs"
    assert set(base.documents.values_list("status", flat=True)) == {"ready"}
    assert capsys.readouterr().out.count("Demo knowledge base") == 1
    sources = {passage.source for passage in search(base, "Qdrant collection per base")}
    assert "knowledge.md" in sources


def test_demo_agent_starts_on_the_offline_echo_model(db):
    call_command("seed_demo")

    assert Agent.objects.get(name="Echo").model == "echo:demo"


def test_demo_agent_model_setting_switches_it_on_the_next_seed(db, settings, capsys):
    call_command("seed_demo")
    settings.DEMO_AGENT_MODEL = "ollama:llama3.2"

    call_command("seed_demo")

    assert Agent.objects.get(name="Echo").model == "ollama:llama3.2"
    assert "now uses ollama:llama3.2 (unpublished)" in capsys.readouterr().out
    assert not Agent.objects.get(name="Echo").published


def test_a_malformed_demo_agent_model_is_refused(db, settings):
    call_command("seed_demo")
    settings.DEMO_AGENT_MODEL = "gpt-4o"

    with pytest.raises(CommandError, match="DEMO_AGENT_MODEL"):
        call_command("seed_demo")

    assert Agent.objects.get(name="Echo").model == "echo:demo"


def test_no_demo_agent_when_other_users_exist(alice):
    call_command("seed_demo")

    assert not Agent.objects.exists()


def test_the_demo_agent_is_published_for_the_demo_sites_origin(db, settings, client):
    settings.BASE_URL = "http://127.0.0.1:8000"
    call_command("seed_demo")

    agent = Agent.objects.get(name="Echo")
    assert (agent.published, agent.public_slug) == (True, "echo")
    assert agent.allowed_origins == ["http://127.0.0.1:8000"]
    page = client.get("/c/echo")
    assert page.status_code == 200
    assert "Echo" in page.content.decode()
