"""DEMO_AGENT_MODEL: the one setting that moves the demo agent to a real model."""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command

from agents.models import Agent


def test_demo_agent_starts_on_the_offline_echo_model(db):
    call_command("seed_demo")

    assert Agent.objects.get(name="Echo").model == "echo:demo"


def test_demo_agent_model_setting_switches_it_on_the_next_seed(db, settings, capsys):
    call_command("seed_demo")
    settings.DEMO_AGENT_MODEL = "ollama:llama3.2"

    call_command("seed_demo")

    assert Agent.objects.get(name="Echo").model == "ollama:llama3.2"
    assert "now uses ollama:llama3.2" in capsys.readouterr().out


def test_a_malformed_demo_agent_model_is_refused(db, settings):
    call_command("seed_demo")
    settings.DEMO_AGENT_MODEL = "gpt-4o"

    with pytest.raises(CommandError, match="DEMO_AGENT_MODEL"):
        call_command("seed_demo")

    assert Agent.objects.get(name="Echo").model == "echo:demo"
