"""`{% retention_policy %}`: the flow page's line on how long runs are kept."""

from __future__ import annotations

from django import template

from flows.engine.retention import policy_text

register = template.Library()


@register.simple_tag
def retention_policy() -> str:
    return policy_text()
