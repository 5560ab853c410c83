"""One SDK client per provider configuration, whatever each call's timeout.

The agent node's timeout is the time left in its run, different on every call;
the clients are cached by key, base URL and retries only, and the timeout goes
with each request.
"""

from __future__ import annotations

import pytest

from agents.providers import ChatRequest, anthropic, openai, provider_for
from tests.llm_server import anthropic_text, openai_text

PROVIDERS = {
    "openai": (openai, "openai:gpt-test", openai_text),
    "anthropic": (anthropic, "anthropic:claude-test", anthropic_text),
}


@pytest.fixture(params=sorted(PROVIDERS))
def provider(request, llm_server):
    module, model, text = PROVIDERS[request.param]
    module._client.cache_clear()
    yield module, model, text
    module._client.cache_clear()


def ask(model: str, timeout: float):
    request = ChatRequest(
        model=model.partition(":")[2],
        system="",
        messages=[{"role": "user", "content": "Hi"}],
        timeout=timeout,
    )
    return provider_for(model).complete(request)


def test_calls_with_different_timeouts_share_one_client(provider, llm_server):
    module, model, text = provider
    llm_server.queue(text("One"))
    llm_server.queue(text("Two"))

    first = ask(model, 4.25)
    second = ask(model, 3.5)

    assert (first.content, second.content) == ("One", "Two")
    cache = module._client.cache_info()
    assert (cache.currsize, cache.misses, cache.hits) == (1, 1, 1)


def test_the_per_request_timeout_still_gives_504_on_a_shared_client(
    api, settings, provider, llm_server, openai_agent, anthropic_agent
):
    module, model, text = provider
    agent = openai_agent if model.startswith("openai") else anthropic_agent
    llm_server.queue(text("Quick"))
    ask(model, 5)  # the client now exists, built without a short timeout
    settings.AGENT_TIMEOUT_SECONDS = 0.5
    llm_server.queue(text("Too late"), delay=3)

    response = api.post(
        f"/api/agents/{agent.id}/chat", {"content": "Hello"}, format="json"
    )

    assert response.status_code == 504
    assert response.json()["error"]["code"] == "timeout"
    assert "0.5 seconds" in response.json()["error"]["message"]
    assert module._client.cache_info().currsize == 1
