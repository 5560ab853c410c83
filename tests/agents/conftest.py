"""Fixtures for the agents tests; the LLM protocol server is in tests/llm_server.py."""

from __future__ import annotations

import socket

import pytest

from tests.factories import AgentFactory


@pytest.fixture
def closed_port_url():
    """A loopback URL where nothing listens: a provider that is down."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


@pytest.fixture
def openai_agent(db):
    return AgentFactory(
        name="GPT",
        model="openai:gpt-test",
        system_prompt="You are terse.",
        temperature=0.2,
        max_tokens=300,
    )


@pytest.fixture
def anthropic_agent(db):
    return AgentFactory(
        name="Claude",
        model="anthropic:claude-test",
        system_prompt="You are kind.",
        temperature=0.5,
        max_tokens=400,
    )


@pytest.fixture
def echo_agent(db):
    return AgentFactory(name="Echo", model="echo:demo")
