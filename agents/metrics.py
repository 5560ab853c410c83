"""LLM calls, tokens and errors by provider (the `provider` of `provider:model`)."""

from __future__ import annotations

from prometheus_client import Counter

LLM_CALLS = Counter("weir_llm_calls", "Calls made to an LLM provider.", ["provider"])
LLM_TOKENS = Counter(
    "weir_llm_tokens",
    "Tokens the provider reported, by direction.",
    ["provider", "direction"],
)
LLM_ERRORS = Counter(
    "weir_llm_errors",
    "Provider calls that failed, by error code.",
    ["provider", "code"],
)


def provider_of(model: str) -> str:
    return model.partition(":")[0] or "unknown"


def call_succeeded(model: str, usage: dict) -> None:
    provider = provider_of(model)
    LLM_CALLS.labels(provider).inc()
    for direction in ("input", "output"):
        tokens = int(usage.get(f"{direction}_tokens") or 0)
        if tokens:
            LLM_TOKENS.labels(provider, direction).inc(tokens)


def call_failed(model: str, code: str) -> None:
    provider = provider_of(model)
    LLM_CALLS.labels(provider).inc()
    LLM_ERRORS.labels(provider, code).inc()
