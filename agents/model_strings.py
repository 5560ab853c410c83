"""What an agent's `model` string may be: `provider:model-name`."""

from __future__ import annotations

from django.core.exceptions import ValidationError

PROVIDERS = ("openai", "anthropic", "ollama", "echo")
# Credential kinds that hold a single API key.
KEY_KINDS = ("bearer", "header")


def validate_model_string(value: str) -> None:
    provider, sep, name = value.partition(":")
    if not sep or not name or provider not in PROVIDERS:
        raise ValidationError(
            "Use provider:model-name with provider one of %(providers)s.",
            params={"providers": ", ".join(PROVIDERS)},
        )
