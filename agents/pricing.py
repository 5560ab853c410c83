"""What a model call cost, in USD, and where the price came from.

In order: an admin's `ModelPrice` for the exact `provider:model`; `echo:` and
`ollama:` models run locally and cost 0; else the `genai-prices` tables (bundled
with the package, no network at run time). A model found nowhere has no cost
(`None`, source `unknown`): shown as such, never guessed, and it does not count
against budgets.
"""

from __future__ import annotations

import datetime
from decimal import Decimal

from django.db.models import Sum
from django.utils import timezone
from genai_prices import Usage, calc_price

from agents.context import CHARS_PER_TOKEN, estimate
from agents.models import Message, ModelPrice
from agents.providers import ProviderError

LOCAL_PROVIDERS = ("echo", "ollama")
MILLION = Decimal(1_000_000)


def price(model: str, usage: dict) -> tuple[Decimal | None, str]:
    """(cost in USD, source) of one call of `model` (`provider:name`) with `usage`
    `{input_tokens, output_tokens, cached_tokens?}`. Costs one query."""
    provider, _, name = model.partition(":")
    override = ModelPrice.objects.filter(model=model).first()
    if override is not None:
        return _override_cost(override, usage), "override"
    if provider in LOCAL_PROVIDERS:
        return Decimal(0), "local"
    try:
        calculation = calc_price(
            Usage(
                input_tokens=int(usage.get("input_tokens") or 0),
                output_tokens=int(usage.get("output_tokens") or 0),
                cache_read_tokens=int(usage.get("cached_tokens") or 0) or None,
            ),
            model_ref=name,
            provider_id=provider,
        )
    except LookupError:
        return None, "unknown"
    return calculation.total_price, "genai-prices"


def cut_short(agent, messages: list[dict], streamed: list[str], sent: bool) -> dict:
    """Estimated usage and cost of a call that ended before its usage came.

    A provider reports usage at the end of a stream; a reply the caller
    abandons, or one failing mid-answer, has none, yet the provider billed the
    prompt it read and the tokens it sent. Once the model answered (or `sent`:
    it may have read the prompt), the prompt and the text so far are stored as
    `usage.estimated` (four characters a token, as agents/context.py counts),
    so the day cap sees them; a call refused outright costs nothing ({}).
    """
    if not (sent or streamed) or not messages:
        return {}
    usage = {
        "input_tokens": len(agent.system_prompt) // CHARS_PER_TOKEN
        + sum(estimate(message) for message in messages),
        "output_tokens": -(-len("".join(streamed)) // CHARS_PER_TOKEN),
        "estimated": True,
    }
    cost, source = price(agent.model, usage)
    return {"usage": usage, "cost_usd": cost, "price_source": source}


def _override_cost(override: ModelPrice, usage: dict) -> Decimal:
    cached = int(usage.get("cached_tokens") or 0)
    fresh = int(usage.get("input_tokens") or 0) - cached
    cached_rate = override.cached_input_per_mtok
    if cached_rate is None:
        cached_rate = override.input_per_mtok
    return (
        fresh * override.input_per_mtok
        + cached * cached_rate
        + int(usage.get("output_tokens") or 0) * override.output_per_mtok
    ) / MILLION


class BudgetExceeded(ProviderError):
    """An agent's `max_cost_per_day` or `max_cost_per_turn` is spent (429)."""

    code = "budget_exceeded"


def spent_today(agent) -> Decimal:
    """What the agent's model calls cost since midnight UTC, all users. One query."""
    midnight = (
        timezone.now()
        .astimezone(datetime.UTC)
        .replace(hour=0, minute=0, second=0, microsecond=0)
    )
    total = Message.objects.filter(
        conversation__agent=agent, created_at__gte=midnight
    ).aggregate(total=Sum("cost_usd"))["total"]
    return total or Decimal(0)


def check_day_budget(agent) -> None:
    """BudgetExceeded once the agent's day is spent; free when there is no cap."""
    cap = agent.max_cost_per_day
    if cap is not None and spent_today(agent) >= cap:
        raise BudgetExceeded(
            f"{agent.name} has spent its ${cap:f} for today (UTC); "
            "it answers again tomorrow, or when its owner raises the cap."
        )


def check_turn_budget(agent, spent: Decimal) -> None:
    cap = agent.max_cost_per_turn
    if cap is not None and spent >= cap:
        raise BudgetExceeded(
            f"This message has cost ${spent:.6f}, {agent.name}'s cap per message "
            f"is ${cap:f}; it was stopped before another model call."
        )
