"""`ollama:` models through Ollama's OpenAI-compatible endpoint (no key needed)."""

from __future__ import annotations

from django.conf import settings

from agents.providers.openai import OpenAIProvider

# Ollama ignores the key, but the SDK refuses to start without one.
PLACEHOLDER_KEY = "ollama"


def from_settings() -> OpenAIProvider:
    base_url = settings.OLLAMA_BASE_URL.rstrip("/") + "/v1"
    return OpenAIProvider(
        api_key=PLACEHOLDER_KEY,
        base_url=base_url,
        name="Ollama",
        stream_tools=settings.OLLAMA_STREAM_TOOLS,
    )
