"""LLM providers, chosen by the agent's model string `provider:model-name`."""

from __future__ import annotations

from agents.providers import anthropic, echo, ollama, openai
from agents.providers.base import (
    ChatRequest,
    ChatResult,
    Provider,
    ProviderError,
    ProviderNotConfigured,
    ProviderTimeout,
    TextDelta,
    ToolCall,
    ToolSpec,
)


def provider_for(model: str, api_key: str | None = None) -> Provider:
    """The provider for `provider:model-name`; its settings are read now, per call.

    `api_key` (from the agent's credential) replaces the provider's key setting.
    Raises ProviderNotConfigured when neither gives a key.
    """
    provider = model.partition(":")[0]
    if provider == "openai":
        return openai.OpenAIProvider.from_settings(api_key)
    if provider == "anthropic":
        return anthropic.AnthropicProvider.from_settings(api_key)
    if provider == "ollama":
        return ollama.from_settings()
    if provider == "echo":
        return echo.EchoProvider()
    raise ProviderNotConfigured(f"Unknown model provider {provider!r}.")


__all__ = [
    "ChatRequest",
    "ChatResult",
    "Provider",
    "ProviderError",
    "ProviderNotConfigured",
    "ProviderTimeout",
    "TextDelta",
    "ToolCall",
    "ToolSpec",
    "provider_for",
]
