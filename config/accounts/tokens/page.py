"""The API tokens page (`/account/tokens/`); changes go through /api/tokens."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.shortcuts import render

from config.accounts.tokens.api import ApiTokenSerializer
from config.accounts.tokens.models import SCOPES

SCOPE_DESCRIPTIONS = {
    "flows:read": "see flows, their versions and runs' status",
    "flows:write": "create, change and delete flows and agents",
    "flows:run": "run flows by hand, cancel runs",
    "runs:read": "read runs' input, results, steps and logs",
    "credentials:read": "see credential names (never their values)",
    "credentials:write": "create, replace and delete credentials",
    "agents:chat": "chat with agents (a chat may run flows)",
    "audit:read": "read the audit log (staff)",
}
EXPIRY_DAYS = (7, 30, 90, 180, 366)


@login_required
def tokens_page(request):
    tokens = ApiTokenSerializer(
        request.user.api_tokens.filter(revoked_at__isnull=True), many=True
    ).data
    longest = settings.API_TOKEN_MAX_DAYS
    choices = [days for days in EXPIRY_DAYS if days <= longest] or [longest]
    return render(
        request,
        "accounts/tokens.html",
        {
            "tokens": tokens,
            "scopes": [(scope, SCOPE_DESCRIPTIONS[scope]) for scope in SCOPES],
            "expiry_choices": choices,
        },
    )
