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


def test_a_server_that_cannot_stream_tools_gets_them_unstreamed(
    api, alice, settings, llm_server
):
    from tests.factories import FlowFactory
    from tests.llm_server import openai_tool_call

    settings.OLLAMA_STREAM_TOOLS = False
    flow = FlowFactory(created_by=alice, name="Say hello")
    agent = AgentFactory(model="ollama:llama3.2", created_by=alice)
    agent.tools.add(flow)
    plain = AgentFactory(model="ollama:llama3.2", created_by=alice)
    llm_server.queue(openai_tool_call("say_hello", {"name": "Ada"}))
    llm_server.queue(openai_text("Done."))
    llm_server.queue(openai_text("No tools here."))

    with_tools = api.post(
        f"/api/agents/{agent.id}/chat", {"content": "Hi"}, format="json"
    )
    without = api.post(f"/api/agents/{plain.id}/chat", {"content": "Hi"}, format="json")

    assert with_tools.json()["message"]["content"] == "Done."
    assert with_tools.json()["tool_calls"][0]["status"] == "succeeded"
    assert without.json()["message"]["content"] == "No tools here."
    sent = [request["json"] for request in llm_server.requests]
    # Requests that define tools go blocking; one without tools still streams.
    assert ["stream" in body for body in sent] == [False, False, True]
