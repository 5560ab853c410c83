"""`openai:` models through the official SDK: OpenAI or any compatible server.

Chat completions with function calling. Ollama's `/v1`, vLLM and llama.cpp's
server speak the same protocol, so `ollama.py` reuses this class.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator
from typing import TYPE_CHECKING

from django.conf import settings

from agents.providers.base import (
    ChatRequest,
    ChatResult,
    Provider,
    ProviderError,
    ProviderNotConfigured,
    StreamClock,
    TextDelta,
    ToolCall,
    sdk_errors,
)
from core.startup import import_on_first_use

if TYPE_CHECKING:
    import openai


class OpenAIProvider(Provider):
    """Chat completions at `base_url` (None means api.openai.com).

    Streamed with usage in the last chunk. `stream_tools=False` is for servers
    that refuse to stream when tools are defined (llama.cpp: "Cannot use tools
    with stream"): such requests are sent blocking and arrive as one piece.
    """

    def __init__(
        self,
        *,
        api_key: str,
        base_url: str | None,
        name: str = "OpenAI",
        stream_tools: bool = True,
    ):
        self.api_key = api_key
        self.base_url = base_url or None
        self.name = name
        self.stream_tools = stream_tools

    @classmethod
    def from_settings(cls, api_key: str | None = None) -> OpenAIProvider:
        """`api_key` (an agent's credential) wins over OPENAI_API_KEY."""
        api_key = api_key or settings.OPENAI_API_KEY
        if not api_key:
            raise ProviderNotConfigured(
                "OPENAI_API_KEY is not set; openai: models need it."
            )
        return cls(api_key=api_key, base_url=settings.OPENAI_BASE_URL)

    def stream(self, request: ChatRequest) -> Iterator[TextDelta | ChatResult]:
        client = _client(self.api_key, self.base_url, request.retries)
        params = self._params(request)
        if request.tools and not self.stream_tools:
            with sdk_errors(_sdk(), _sdk().OpenAIError, self.name, request.timeout):
                completion = client.chat.completions.create(
                    **params, timeout=request.timeout
                )
            result = self._read(completion)
            if result.content:
                yield TextDelta(result.content)
            yield result
            return
        clock = StreamClock(self.name, request.timeout)
        answer = _Assembly(self.name)
        with sdk_errors(_sdk(), _sdk().OpenAIError, self.name, request.timeout):
            chunks = client.chat.completions.create(
                **params,
                stream=True,
                stream_options={"include_usage": True},
                timeout=request.timeout,
            )
            with chunks:
                for chunk in chunks:
                    text = answer.add(chunk)
                    if text:
                        yield TextDelta(text)
                    clock.check()
        yield answer.result()

    def _params(self, request: ChatRequest) -> dict:
        params = {
            "model": request.model,
            "messages": to_openai_messages(request.system, request.messages),
            "temperature": request.temperature,
            "max_tokens": request.max_tokens,
        }
        if request.tools:
            params["tools"] = [
                {
                    "type": "function",
                    "function": {
                        "name": tool.name,
                        "description": tool.description,
                        "parameters": tool.parameters,
                    },
                }
                for tool in request.tools
            ]
            if not request.allow_tool_calls:
                params["tool_choice"] = "none"
        if request.output_schema:
            # Structured outputs, not strict: strict mode refuses many valid
            # schemas (optional fields, open objects); agents/output.py checks.
            params["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "reply", "schema": request.output_schema},
            }
        return params

    def _read(self, completion) -> ChatResult:
        try:
            message = completion.choices[0].message
            calls = [
                ToolCall(
                    id=call.id,
                    name=call.function.name,
                    arguments=_parse_arguments(call.function.arguments),
                )
                for call in message.tool_calls or []
            ]
            return ChatResult(
                content=message.content or "",
                tool_calls=calls,
                usage=read_usage(completion.usage),
            )
        except (AttributeError, IndexError, KeyError, TypeError) as exc:
            raise ProviderError(f"{self.name} sent a malformed answer.") from exc


class _Assembly:
    """A streamed completion put back together: text, tool calls whose id, name
    and arguments arrive in pieces keyed by `index`, and the usage chunk."""

    def __init__(self, name: str):
        self.name = name
        self.text: list[str] = []
        self.calls: dict[int, dict] = {}
        self.usage = None
        self.choices = 0

    def add(self, chunk) -> str:
        """Take one chunk in; return its text (empty when it has none)."""
        try:
            if chunk.usage is not None:
                self.usage = chunk.usage
            text = ""
            for choice in chunk.choices or []:
                self.choices += 1
                delta = choice.delta
                text += delta.content or ""
                for piece in delta.tool_calls or []:
                    call = self.calls.setdefault(
                        piece.index, {"id": "", "name": "", "arguments": ""}
                    )
                    call["id"] = piece.id or call["id"]
                    if piece.function is not None:
                        call["name"] += piece.function.name or ""
                        call["arguments"] += piece.function.arguments or ""
        except (AttributeError, TypeError) as exc:
            raise ProviderError(f"{self.name} sent a malformed answer.") from exc
        self.text.append(text)
        return text

    def result(self) -> ChatResult:
        if not self.choices:  # a stream without any answer in it
            raise ProviderError(f"{self.name} sent a malformed answer.")
        usage = self.usage
        return ChatResult(
            content="".join(self.text),
            tool_calls=[
                ToolCall(
                    id=call["id"],
                    name=call["name"],
                    arguments=_parse_arguments(call["arguments"]),
                )
                for _, call in sorted(self.calls.items())
            ],
            usage=read_usage(usage),
        )


def read_usage(usage) -> dict:
    """Tokens in the neutral shape: `input_tokens` counts cached ones too (as
    OpenAI does), `cached_tokens` and `reasoning_tokens` when reported."""
    if usage is None:
        return {}
    counted = {
        "input_tokens": usage.prompt_tokens,
        "output_tokens": usage.completion_tokens,
    }
    cached = getattr(usage.prompt_tokens_details, "cached_tokens", None)
    reasoning = getattr(usage.completion_tokens_details, "reasoning_tokens", None)
    if cached:
        counted["cached_tokens"] = cached
    if reasoning:
        counted["reasoning_tokens"] = reasoning
    return counted


def _sdk():
    """The SDK, imported on first use (core/startup.py)."""
    return import_on_first_use("openai")


@functools.lru_cache(maxsize=16)
def _client(api_key, base_url, max_retries) -> openai.OpenAI:
    """One SDK client per configuration: building one costs tens of milliseconds
    (its TLS context), and a client is safe to share between threads. The
    timeout is not part of it: it goes with each request (an agent node's is
    the time left in its run, different on every call)."""
    return _sdk().OpenAI(api_key=api_key, base_url=base_url, max_retries=max_retries)


def to_openai_messages(system: str, messages: list[dict]) -> list[dict]:
    """The neutral history as chat-completions messages, system prompt first."""
    converted = [{"role": "system", "content": system}] if system else []
    for message in messages:
        if message["role"] == "tool":
            converted.append(
                {
                    "role": "tool",
                    "tool_call_id": message["tool_call_id"],
                    "content": message["content"],
                }
            )
        elif message["role"] == "assistant" and message.get("tool_calls"):
            converted.append(
                {
                    "role": "assistant",
                    "content": message["content"] or None,
                    "tool_calls": [
                        {
                            "id": call["id"],
                            "type": "function",
                            "function": {
                                "name": call["name"],
                                "arguments": json.dumps(call["arguments"]),
                            },
                        }
                        for call in message["tool_calls"]
                    ],
                }
            )
        else:
            converted.append({"role": message["role"], "content": message["content"]})
    return converted


def _parse_arguments(raw):
    """Function arguments arrive as a JSON string; keep the raw text if it is not."""
    if not isinstance(raw, str):
        return raw
    try:
        return json.loads(raw) if raw.strip() else {}
    except ValueError:
        return raw
