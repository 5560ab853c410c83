"""`anthropic:` models through the official SDK's Messages API with tool use."""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator
from typing import TYPE_CHECKING

from django.conf import settings

from agents.providers.base import (
    OUTPUT_TOOL,
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
    import anthropic


class AnthropicProvider(Provider):
    """Messages at `base_url` (None means api.anthropic.com).

    The agent's temperature is not sent: the SDK's `messages.create` no longer
    takes one (current models choose their own sampling).
    """

    name = "Anthropic"

    def __init__(self, *, api_key: str, base_url: str | None):
        self.api_key = api_key
        self.base_url = base_url or None

    @classmethod
    def from_settings(cls, api_key: str | None = None) -> AnthropicProvider:
        """`api_key` (an agent's credential) wins over ANTHROPIC_API_KEY."""
        api_key = api_key or settings.ANTHROPIC_API_KEY
        if not api_key:
            raise ProviderNotConfigured(
                "ANTHROPIC_API_KEY is not set; anthropic: models need it."
            )
        return cls(api_key=api_key, base_url=settings.ANTHROPIC_BASE_URL)

    def stream(self, request: ChatRequest) -> Iterator[TextDelta | ChatResult]:
        """The Messages stream: text deltas as they come; tool inputs arrive as
        `input_json` deltas, which the SDK's stream assembles into the final
        message."""
        client = _client(self.api_key, self.base_url, request.retries)
        clock = StreamClock(self.name, request.timeout)
        sdk = _sdk()
        with (
            sdk_errors(sdk, sdk.AnthropicError, self.name, request.timeout),
            client.messages.stream(
                **self._params(request), timeout=request.timeout
            ) as events,
        ):
            for event in events:
                text = _text_of(event)
                if text:
                    yield TextDelta(text)
                clock.check()
            try:
                answer = events.get_final_message()
            except AssertionError as exc:  # the stream carried no message
                raise ProviderError(f"{self.name} sent a malformed answer.") from exc
        result, structured = self._read(answer, bool(request.output_schema))
        if structured:  # the JSON came as tool input, not as text: pass it on
            yield TextDelta(result.content)
        yield result

    def _params(self, request: ChatRequest) -> dict:
        params = {
            "model": request.model,
            "max_tokens": request.max_tokens,
            "messages": to_anthropic_messages(
                request.messages, tools_defined=bool(request.tools)
            ),
        }
        if request.system:
            params["system"] = request.system
        if request.tools:
            params["tools"] = [
                {
                    "name": tool.name,
                    "description": tool.description,
                    "input_schema": tool.parameters,
                }
                for tool in request.tools
            ]
            if not request.allow_tool_calls:
                params["tool_choice"] = {"type": "none"}
        if request.output_schema:
            self._force_output_tool(params, request)
        return params

    def _force_output_tool(self, params: dict, request: ChatRequest) -> None:
        """The answer as the input of a tool whose schema is the output_schema:
        the Messages API's way to structured output. While other tools may be
        called, any tool will do (`any`); else that tool is the only choice."""
        params["tools"] = [
            *params.get("tools", []),
            {
                "name": OUTPUT_TOOL,
                "description": "Give your final answer through this tool.",
                "input_schema": request.output_schema,
            },
        ]
        if request.tools and request.allow_tool_calls:
            params["tool_choice"] = {"type": "any"}
        else:
            params["tool_choice"] = {"type": "tool", "name": OUTPUT_TOOL}

    def _read(self, answer, structured: bool) -> tuple[ChatResult, bool]:
        """The result, and whether its content is the output tool's input
        (which then replaces any text: the content must be that JSON)."""
        try:
            texts, calls = [], []
            for block in answer.content:
                if block.type == "text":
                    texts.append(block.text)
                elif structured and _is_output_tool(block):
                    output = ChatResult(
                        content=json.dumps(block.input),
                        usage=read_usage(answer.usage),
                    )
                    return output, True
                elif block.type == "tool_use":
                    calls.append(
                        ToolCall(id=block.id, name=block.name, arguments=block.input)
                    )
            return ChatResult(
                content="".join(texts),
                tool_calls=calls,
                usage=read_usage(answer.usage),
            ), False
        except (AttributeError, KeyError, TypeError) as exc:
            raise ProviderError(f"{self.name} sent a malformed answer.") from exc


def read_usage(usage) -> dict:
    """Tokens in the neutral shape. Anthropic counts cache reads and writes
    apart from `input_tokens`; here `input_tokens` includes them (as OpenAI's
    and genai-prices' do) and `cached_tokens` names the reads."""
    if usage is None:
        return {}
    cached = getattr(usage, "cache_read_input_tokens", None) or 0
    written = getattr(usage, "cache_creation_input_tokens", None) or 0
    counted = {
        "input_tokens": usage.input_tokens + cached + written,
        "output_tokens": usage.output_tokens,
    }
    if cached:
        counted["cached_tokens"] = cached
    return counted


def _is_output_tool(block) -> bool:
    return block.type == "tool_use" and block.name == OUTPUT_TOOL


def _text_of(event) -> str:
    if getattr(event, "type", None) != "content_block_delta":
        return ""
    delta = event.delta
    return delta.text if getattr(delta, "type", None) == "text_delta" else ""


def _sdk():
    """The SDK, imported on first use (core/startup.py)."""
    return import_on_first_use("anthropic")


@functools.lru_cache(maxsize=16)
def _client(api_key, base_url, max_retries) -> anthropic.Anthropic:
    """One SDK client per configuration (see the openai provider's `_client`)."""
    return _sdk().Anthropic(api_key=api_key, base_url=base_url, max_retries=max_retries)


def to_anthropic_messages(messages: list[dict], *, tools_defined: bool) -> list[dict]:
    """The neutral history as Messages API turns.

    Tool results travel in a user turn as `tool_result` blocks, and turns of the
    same role are merged (a failed reply leaves two user turns in a row), so the
    user/assistant alternation the API expects always holds. The API refuses
    tool blocks in a request that defines no tools, so when the agent has none
    (any more) earlier tool turns are retold as text.
    """
    if not tools_defined:
        messages = [_as_text_turn(message) for message in messages]
    turns: list[dict] = []
    for message in messages:
        if message["role"] == "tool":
            role = "user"
            blocks = [
                {
                    "type": "tool_result",
                    "tool_use_id": message["tool_call_id"],
                    "content": message["content"],
                }
            ]
        elif message["role"] == "assistant":
            role = "assistant"
            blocks = []
            if message["content"]:
                blocks.append({"type": "text", "text": message["content"]})
            blocks += [
                {
                    "type": "tool_use",
                    "id": call["id"],
                    "name": call["name"],
                    "input": call["arguments"]
                    if isinstance(call["arguments"], dict)
                    else {},
                }
                for call in message.get("tool_calls") or []
            ]
        else:
            role = "user"
            blocks = [{"type": "text", "text": message["content"]}]
        if not blocks:
            continue
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": role, "content": blocks})
    return turns


def _as_text_turn(message: dict) -> dict:
    """A tool call or tool result retold as plain text."""
    if message["role"] == "tool":
        return {
            "role": "user",
            "content": f"[Tool {message['name']} returned: {message['content']}]",
        }
    calls = message.get("tool_calls") or []
    if message["role"] != "assistant" or not calls:
        return message
    told = " ".join(
        f"[Called tool {call['name']} with {json.dumps(call['arguments'])}]"
        for call in calls
    )
    return {
        "role": "assistant",
        "content": " ".join(filter(None, [message["content"], told])),
    }
