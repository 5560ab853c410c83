"""What every LLM provider takes and gives back, independent of its wire protocol.

The chat service speaks only these types. A provider module turns them into its
SDK's request, and turns the SDK's answer (or its failure) back into them, so the
tool loop never sees an OpenAI or Anthropic object.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from django.conf import settings

# The tool Anthropic is made to call with an answer that has an output_schema.
OUTPUT_TOOL = "structured_output"


@dataclass(frozen=True)
class ToolSpec:
    """A flow offered to the model as a function.

    `name` is the function name the model sees (safe characters only); `title`
    is the flow's own name, kept so people and the echo model can use it.
    """

    name: str
    title: str
    description: str
    parameters: dict


@dataclass(frozen=True)
class ToolCall:
    """The model asks for one function call with JSON `arguments`."""

    id: str
    name: str
    arguments: Any

    def as_dict(self) -> dict:
        return {"id": self.id, "name": self.name, "arguments": self.arguments}


@dataclass
class ChatRequest:
    """One call to a model.

    `messages` is the history in a neutral shape, oldest first:
    `{"role": "user", "content"}`,
    `{"role": "assistant", "content", "tool_calls": [{id, name, arguments}]}`,
    `{"role": "tool", "tool_call_id", "name", "content"}`.
    """

    model: str
    system: str
    messages: list[dict]
    tools: list[ToolSpec] = field(default_factory=list)
    # False: the tools are described (the history may mention them) but the
    # model must answer in words; the last step of the tool loop.
    allow_tool_calls: bool = True
    temperature: float = 0.7
    max_tokens: int = 1024
    timeout: float = 60.0
    # How often the SDK may retry; None is AGENT_MAX_RETRIES. A turn bound by a
    # run's deadline sets 0: a retry would wait `timeout` again, past the deadline.
    max_retries: int | None = None
    # JSON Schema the final answer must match (agents/output.py), or None.
    output_schema: dict | None = None

    @property
    def retries(self) -> int:
        if self.max_retries is None:
            return settings.AGENT_MAX_RETRIES
        return self.max_retries


@dataclass
class ChatResult:
    """The model's answer: text, tool calls (possibly none) and token usage."""

    content: str
    tool_calls: list[ToolCall] = field(default_factory=list)
    usage: dict = field(default_factory=dict)
    # Set by the chat from agents/pricing.py once the call succeeded.
    cost_usd: Decimal | None = None
    price_source: str = ""


@dataclass(frozen=True)
class TextDelta:
    """A piece of the answer's text, as the provider streams it."""

    text: str


class ProviderError(Exception):
    """The provider failed: unreachable, an error status, or an answer we cannot read.

    The API answers 502 `upstream_error`; subclasses change status and code.
    """

    code = "upstream_error"

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message

    def as_dict(self) -> dict:
        return {"code": self.code, "message": self.message}


class ProviderTimeout(ProviderError):
    """The provider did not answer within AGENT_TIMEOUT_SECONDS (504 `timeout`)."""

    code = "timeout"


class ProviderNotConfigured(ProviderError):
    """A setting the provider needs (its API key) is empty; the message names it."""


@contextmanager
def sdk_errors(sdk, base_error: type[Exception], name: str, timeout: float) -> Iterator:
    """Turn an official SDK's errors into ProviderError / ProviderTimeout.

    The openai and anthropic SDKs come from one generator and share their error
    family (`APITimeoutError`, `APIConnectionError`, `APIStatusError`), so one
    mapping serves both; `base_error` is the SDK's root error class.
    """
    try:
        yield
    except sdk.APITimeoutError as exc:
        raise ProviderTimeout(
            f"{name} did not answer within {timeout:g} seconds."
        ) from exc
    except sdk.APIConnectionError as exc:
        raise ProviderError(f"{name} is unreachable: {exc}") from exc
    except sdk.APIStatusError as exc:
        raise ProviderError(
            f"{name} answered HTTP {exc.status_code}: {_short(str(exc.message))}"
        ) from exc
    except (base_error, ValueError) as exc:
        raise ProviderError(f"{name} sent an unreadable answer.") from exc


def _short(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


class Provider(ABC):
    """Base of the providers: one streaming call, no state between calls.

    `stream(request)` yields `TextDelta`s as the text arrives and the whole
    `ChatResult` last; `complete(request)` consumes it. One code path serves the
    streamed chat and everything that only wants the answer (the agent node).
    """

    @abstractmethod
    def stream(self, request: ChatRequest) -> Iterator[TextDelta | ChatResult]:
        """Send `request`; yield text as it comes, then the result. Raises a
        `ProviderError` when that fails. Closing the iterator early closes the
        connection to the provider."""

    def complete(self, request: ChatRequest) -> ChatResult:
        """The answer, once the stream has ended."""
        for item in self.stream(request):
            if isinstance(item, ChatResult):
                return item
        raise ProviderError("The provider's answer ended before it was complete.")


class StreamClock:
    """`request.timeout` for the whole answer: the SDKs' own timeout applies to
    each read, and a provider dripping tokens would otherwise never time out."""

    def __init__(self, name: str, timeout: float):
        self.name = name
        self.timeout = timeout
        self.ends = time.monotonic() + timeout

    def check(self) -> None:
        if time.monotonic() > self.ends:
            raise ProviderTimeout(
                f"{self.name} did not answer within {self.timeout:g} seconds."
            )
