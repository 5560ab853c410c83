"""How often agents may be asked: per user (`AGENT_USER_RATE`) and per agent
(`AGENT_RATE`), for every message, whether a person sends it through the chat
API or an agent node sends it for a flow's owner.

Every message is at least one paid model call, so the count is taken before
anything is stored or sent; a refused message leaves no trace. Counted in
Django's cache (`core/http/ratelimit.py`), shared by every process with Redis.
"""

from __future__ import annotations

from django.conf import settings

from core.http import ratelimit


class ChatThrottled(Exception):
    """Over a chat rate; `wait` is the seconds until the window ends."""

    def __init__(self, wait: float, message: str):
        super().__init__(message)
        self.wait = wait
        self.message = message


def chat_key(user) -> str:
    """Whose chat rate a call counts against: the user's; a workspace token's
    caller (no id) counts under its workspace, not one key all such share."""
    if user.pk is None:
        return f"chat-workspace:{getattr(user, 'token_workspace_id', None)}"
    return f"chat-user:{user.pk}"


def count_user_call(user) -> None:
    """Count a model call that belongs to no agent (the agent page's "Test
    connection") against the user's rate; ChatThrottled when over it."""
    user_rate = ratelimit.Rate.parse(settings.AGENT_USER_RATE)
    wait = ratelimit.hit(chat_key(user), user_rate)
    if wait is not None:
        raise ChatThrottled(
            wait,
            f"You sent more than {user_rate.limit} messages to agents in "
            f"{user_rate.window} s; wait a moment.",
        )


def count_message(agent, user) -> None:
    """Count one message from `user` to `agent`; ChatThrottled when over a rate.

    A message the agent's rate refuses gives the user's count back, so one busy
    agent does not spend its users' budget for their other agents.
    """
    user_rate = ratelimit.Rate.parse(settings.AGENT_USER_RATE)
    user_key = chat_key(user)
    wait = ratelimit.hit(user_key, user_rate)
    if wait is not None:
        raise ChatThrottled(
            wait,
            f"You sent more than {user_rate.limit} messages to agents in "
            f"{user_rate.window} s; wait a moment.",
        )
    agent_rate = ratelimit.Rate.parse(settings.AGENT_RATE)
    wait = ratelimit.hit(f"chat-agent:{agent.pk}", agent_rate)
    if wait is not None:
        ratelimit.undo(user_key, user_rate)
        raise ChatThrottled(
            wait,
            f"{agent.name} is answering more than {agent_rate.limit} messages in "
            f"{agent_rate.window} s; wait a moment.",
        )


# Visitors sharing one address (an office or a school behind one NAT) may
# chat at full pace this many at a time. A script that drops its token before
# every message is a new visitor each time: its address still holds it back,
# so one client cannot spend the agent's `public_rate` for everyone.
VISITORS_PER_ADDRESS = 5


def count_visitor_message(agent, visitor: str, address: str) -> None:
    """Count one message from a published agent's visitor (agents/public/):
    against the agent's `visitor_rate` for the visitor, that rate times
    `VISITORS_PER_ADDRESS` for the visitor's address (`limit_address`), then
    its `public_rate` for all visitors together. ChatThrottled when over any;
    the counts already taken are given back."""
    visitor_rate = ratelimit.Rate.parse(agent.visitor_rate)
    address_rate = ratelimit.Rate(
        visitor_rate.limit * VISITORS_PER_ADDRESS, visitor_rate.window
    )
    public_rate = ratelimit.Rate.parse(agent.public_rate)
    too_many = (
        f"You sent more than {visitor_rate.limit} messages in "
        f"{visitor_rate.window} s; wait a moment."
    )
    counts = [
        (f"chat-visitor:{agent.pk}:{visitor}", visitor_rate, too_many),
        (f"chat-visitor-address:{agent.pk}:{address}", address_rate, too_many),
        (
            f"chat-public:{agent.pk}",
            public_rate,
            f"{agent.name} is answering many visitors right now; "
            "try again in a moment.",
        ),
    ]
    for taken, (key, rate, message) in enumerate(counts):
        wait = ratelimit.hit(key, rate)
        if wait is not None:
            for done_key, done_rate, _ in counts[:taken]:
                ratelimit.undo(done_key, done_rate)
            raise ChatThrottled(wait, message)
