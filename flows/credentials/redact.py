"""Redaction: credential values replaced by `[redacted:NAME]` in anything stored.

The engine builds one `Redactor` per run and adds each credential the run
decrypts; every step's output, logs and error, the run's results and response
(and so the webhook's answer and an agent's tool result) pass through it before
they are stored or sent.
"""

from __future__ import annotations

import re
from typing import Any


class Redactor:
    """Replaces known secret strings inside any JSON value (keys included)."""

    def __init__(self):
        self._names: dict[str, str] = {}
        self._pattern: re.Pattern | None = None

    def __bool__(self) -> bool:
        return bool(self._names)

    def add(self, name: str, values: list[str]) -> None:
        if not values:
            return
        for value in values:
            # A value shared by two credentials keeps the first one's name.
            self._names.setdefault(value, name)
        # Longest first, so a value is replaced before any part of it.
        ordered = sorted(self._names, key=len, reverse=True)
        self._pattern = re.compile("|".join(map(re.escape, ordered)))

    def text(self, text: str) -> str:
        if self._pattern is None:
            return text
        return self._pattern.sub(lambda m: f"[redacted:{self._names[m.group()]}]", text)

    def redact(self, value: Any) -> Any:
        """`value` with every secret replaced; the input is never modified."""
        if self._pattern is None:
            return value
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {self.text(key): self.redact(item) for key, item in value.items()}
        if isinstance(value, list):
            return [self.redact(item) for item in value]
        return value
