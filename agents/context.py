"""History that fits the agent's context budget (`Agent.context_tokens`).

The history is cut into exchanges: a user message and everything after it up
to the next user message (the assistant's tool calls, their results, the
reply). Whole exchanges are dropped, oldest first, until the rest fits; so a
tool call is never sent without its result (which both providers refuse), and
the history still starts with a user turn (which Anthropic requires). The
newest exchange, the one being answered, is always kept. The system prompt and
room for the answer (`max_tokens`) come off the budget first.

Tokens are estimated at 4 characters each (plus 4 per message for its framing):
close enough for a budget, with no tokenizer per provider.
"""

from __future__ import annotations

import json

CHARS_PER_TOKEN = 4
PER_MESSAGE = 4


def estimate(message: dict) -> int:
    size = len(message.get("content") or "")
    if message.get("tool_calls"):
        size += len(json.dumps(message["tool_calls"]))
    return size // CHARS_PER_TOKEN + PER_MESSAGE


def exchanges(history: list[dict]) -> list[list[dict]]:
    groups: list[list[dict]] = []
    for message in history:
        if message["role"] == "user" or not groups:
            groups.append([])
        groups[-1].append(message)
    return groups


def fit(
    history: list[dict], *, context_tokens: int | None, system: str, max_tokens: int
) -> tuple[list[dict], int]:
    """(the messages to send, how many were left out)."""
    if not context_tokens:
        return history, 0
    budget = context_tokens - len(system) // CHARS_PER_TOKEN - max_tokens
    groups = exchanges(history)
    kept = [groups.pop()] if groups else []
    used = sum(estimate(m) for m in kept[0]) if kept else 0
    while groups:
        size = sum(estimate(m) for m in groups[-1])
        if used + size > budget:
            break
        used += size
        kept.insert(0, groups.pop())
    sent = [message for group in kept for message in group]
    return sent, len(history) - len(sent)
