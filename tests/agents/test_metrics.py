"""LLM calls, tokens and errors are counted by provider."""

from __future__ import annotations

from prometheus_client import REGISTRY

from tests.llm_server import openai_text


def sample(name: str, **labels) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def chat(api, agent, content="Hello"):
    return api.post(f"/api/agents/{agent.id}/chat", {"content": content}, format="json")


def test_a_reply_counts_a_call_and_its_tokens(api, openai_agent, llm_server):
    llm_server.queue(openai_text("Hi", prompt_tokens=11, completion_tokens=7))
    calls = sample("weir_llm_calls_total", provider="openai")
    tokens = sample("weir_llm_tokens_total", provider="openai", direction="input")

    response = chat(api, openai_agent)

    assert response.status_code == 200
    assert sample("weir_llm_calls_total", provider="openai") == calls + 1
    assert (
        sample("weir_llm_tokens_total", provider="openai", direction="input")
        == tokens + 11
    )


def test_a_provider_that_is_down_counts_an_error(
    api, openai_agent, closed_port_url, settings
):
    settings.OPENAI_API_KEY = "sk-test"
    settings.OPENAI_BASE_URL = f"{closed_port_url}/v1"
    settings.AGENT_MAX_RETRIES = 0
    errors = sample("weir_llm_errors_total", provider="openai", code="upstream_error")

    response = chat(api, openai_agent)

    assert response.status_code == 502
    assert (
        sample("weir_llm_errors_total", provider="openai", code="upstream_error")
        == errors + 1
    )
