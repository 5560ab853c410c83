"""What an agent's conversations used and cost: `GET /api/agents/:id/usage`.

Sums over the assistant messages (one per model call) of the last `days` days,
by UTC day, by user and by conversation. The agent's owner sees every user's
use (but only the titles of their own conversations: a title is a first
message); anyone else who may chat with it (a shared agent) sees only their own.
"""

from __future__ import annotations

import datetime
from decimal import Decimal

from django.db.models import Count, F, IntegerField, Sum
from django.db.models.fields.json import KT
from django.db.models.functions import Cast, Coalesce, TruncDate
from django.utils import timezone

from agents.models import Message, may_edit

MAX_DAYS = 366
TOKENS = ("input_tokens", "output_tokens", "cached_tokens", "reasoning_tokens")


def _sums() -> dict:
    sums = {
        name: Coalesce(Sum(Cast(KT(f"usage__{name}"), IntegerField())), 0)
        for name in TOKENS
    }
    return {**sums, "cost_usd": Sum("cost_usd"), "messages": Count("id")}


def _row(values: dict) -> dict:
    row = {name: values[name] for name in TOKENS}
    cost = values["cost_usd"]
    row["cost_usd"] = float(round(cost, 10)) if cost is not None else 0.0
    row["messages"] = values["messages"]
    return row


def usage_of(agent, user, days: int) -> dict:
    since = timezone.now().astimezone(datetime.UTC).date() - datetime.timedelta(
        days=days - 1
    )
    messages = Message.objects.filter(
        conversation__agent=agent,
        role=Message.Role.ASSISTANT,
        created_at__date__gte=since,
    )
    if not may_edit(agent, user):
        # Their own conversations; a workspace token (no user id) has none.
        messages = (
            messages.filter(conversation__user_id=user.pk)
            if user.pk is not None
            else messages.none()
        )
    by_day = {
        values["day"]: _row(values)
        for values in messages.annotate(
            day=TruncDate("created_at", tzinfo=datetime.UTC)
        )
        .values("day")
        .annotate(**_sums())
        .order_by("day")
    }
    empty = _row({**dict.fromkeys(TOKENS, 0), "cost_usd": Decimal(0), "messages": 0})
    return {
        "since": since,
        "days": days,
        "totals": _row(messages.aggregate(**_sums())),
        # Every day of the window, so a chart needs no gap filling.
        "by_day": [
            {
                "day": since + datetime.timedelta(days=n),
                **by_day.get(since + datetime.timedelta(days=n), empty),
            }
            for n in range(days)
        ],
        "by_user": [
            {
                "user_id": values["conversation__user"],
                "username": values["conversation__user__username"],
                **_row(values),
            }
            for values in messages.values(
                "conversation__user", "conversation__user__username"
            )
            .annotate(**_sums())
            .order_by(
                F("cost_usd").desc(nulls_last=True), "conversation__user__username"
            )
        ],
        "by_conversation": [
            {
                "conversation_id": values["conversation"],
                # A title is the conversation's first message: its owner's words.
                "title": values["conversation__title"]
                if values["conversation__user"] == user.pk
                else None,
                **_row(values),
            }
            for values in messages.values(
                "conversation", "conversation__title", "conversation__user"
            )
            .annotate(**_sums())
            .order_by(F("cost_usd").desc(nulls_last=True), "conversation__title")[:50]
        ],
    }
