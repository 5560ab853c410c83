"""Issue 23's "no token text anywhere in a database dump", after a token has
lived: made on the API, used to read, save, run and chat, refused once revoked.
Every row of every table is read as text, not only what `dumpdata` serialises
(tests/accounts/test_tokens.py checks a fresh token's row)."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from accounts.tokens.models import SCOPES
from tests.factories import AgentFactory
from tests.flows.credentials.test_redact_everywhere import every_stored_text
from tests.flows.graphs import chain_flow, code, trigger

pytestmark = pytest.mark.django_db


def windows(value: str) -> set[str]:
    """Every 8 characters of the token's random part: a stored fragment shows."""
    secret = value[len("weir_pat_") :]
    return {secret[i : i + 8] for i in range(len(secret) - 7)}


def test_a_token_used_everywhere_leaves_no_text_in_any_table(api, alice):
    made = api.post(
        "/api/tokens", {"name": "CI", "scopes": list(SCOPES)}, format="json"
    ).json()
    value = made["token"]
    script = APIClient()
    script.credentials(HTTP_AUTHORIZATION=f"Bearer {value}")
    flow = chain_flow(trigger(), code("c", "return input;"), created_by=alice)
    agent = AgentFactory(created_by=alice)

    assert script.get("/api/flows").status_code == 200
    saved = script.patch(
        f"/api/flows/{flow.id}",
        {"name": "By script"},
        format="json",
        HTTP_IF_MATCH=f'"{flow.version}"',
    )
    assert saved.status_code == 200, saved.content
    assert (
        script.post(f"/api/flows/{flow.id}/run", {}, format="json").status_code == 200
    )
    chatted = script.post(
        f"/api/agents/{agent.id}/chat", {"content": "hello"}, format="json"
    )
    assert chatted.status_code == 200, chatted.content
    assert api.delete(f"/api/tokens/{made['id']}").status_code == 200
    assert script.get("/api/flows").status_code == 401

    stored = every_stored_text()

    assert made["prefix"] in stored  # the rows are there, shown by their prefix
    assert not [window for window in windows(value) if window in stored]
