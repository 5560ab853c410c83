"""`ollama:` agents: the openai SDK against Ollama's OpenAI-compatible endpoint."""

from __future__ import annotations

from tests.factories import AgentFactory
from tests.llm_server import openai_text


def test_ollama_models_use_its_openai_endpoint_without_a_key(api, settings, llm_server):
    settings.OPENAI_API_KEY = ""
    agent = AgentFactory(model="ollama:llama3.2", system_prompt="")
    llm_server.queue(openai_text("Hello from llama"))

    response = api.post(
        f"/api/agents/{agent.id}/chat", {"content": "Hi"}, format="json"
    )

    assert response.status_code == 200
    assert response.json()["message"]["content"] == "Hello from llama"
    [request] = llm_server.requests
    assert request["path"] == "/v1/chat/completions"
    assert request["json"]["model"] == "llama3.2"
    assert request["json"]["messages"] == [{"role": "user", "content": "Hi"}]
