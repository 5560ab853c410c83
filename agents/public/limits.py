"""A visitor's message rates: the agent's `visitor_rate` per visitor, and its
`public_rate` for all visitors together (a visitor who drops their token is a
new visitor, so the agent's rate is the real ceiling). Counted before anything
is stored, as agents/limits.py counts signed-in users."""

from __future__ import annotations

from agents.limits import ChatThrottled
from core.http import ratelimit


def count_visitor_message(agent, visitor: str) -> None:
    visitor_rate = ratelimit.Rate.parse(agent.visitor_rate)
    visitor_key = f"chat-visitor:{agent.pk}:{visitor}"
    wait = ratelimit.hit(visitor_key, visitor_rate)
    if wait is not None:
        raise ChatThrottled(
            wait,
            f"You sent more than {visitor_rate.limit} messages in "
            f"{visitor_rate.window} s; wait a moment.",
        )
    public_rate = ratelimit.Rate.parse(agent.public_rate)
    wait = ratelimit.hit(f"chat-public:{agent.pk}", public_rate)
    if wait is not None:
        ratelimit.undo(visitor_key, visitor_rate)
        raise ChatThrottled(
            wait,
            f"{agent.name} is answering many visitors right now; "
            "try again in a moment.",
        )
