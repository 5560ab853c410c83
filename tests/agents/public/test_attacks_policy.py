"""Attacks on the hosted chat page found in review: its Content-Security-Policy
through the agent's allowed origins (an origin's host was any text), and its
visitor token kept by a shared cache."""

from __future__ import annotations

import pytest

from agents.models import Agent
from tests.agents.public.helpers import HOST_SITE, published_agent
from tests.factories import AgentFactory

pytestmark = pytest.mark.django_db

INJECTED = "https://shop.example.com; script-src 'self' 'unsafe-inline'"


def directives(response) -> list[str]:
    policy = response["Content-Security-Policy"]
    return [part.strip().split(" ", 1)[0] for part in policy.split(";")]


@pytest.mark.parametrize(
    "origin",
    [
        INJECTED,
        "https://shop.example.com script-src",
        "https://shop example.com",
        "https://shop.example.com,https://evil.example",
    ],
)
def test_an_origin_carrying_more_than_a_host_is_refused(api, alice, origin):
    agent = AgentFactory(created_by=alice, shared=False)
    response = api.patch(
        f"/api/agents/{agent.pk}", {"allowed_origins": [origin]}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "validation_error"
    assert "allowed_origins" in response.json()["error"]["details"]
    assert Agent.objects.get(pk=agent.pk).allowed_origins == []


def test_a_stored_origin_adds_no_directive_to_the_hosted_page(client):
    published_agent(allowed_origins=[HOST_SITE, INJECTED])
    response = client.get("/c/helper")
    assert response.status_code == 200
    names = directives(response)
    assert len(names) == len(set(names)), response["Content-Security-Policy"]
    parts = [part.strip() for part in response["Content-Security-Policy"].split(";")]
    assert "script-src 'self'" in parts
    assert f"frame-ancestors 'self' {HOST_SITE}" in parts


def test_an_international_host_is_kept_as_browsers_send_it(api, alice):
    agent = AgentFactory(created_by=alice, shared=False)
    response = api.patch(
        f"/api/agents/{agent.pk}",
        {"allowed_origins": ["https://Bücher.example"]},
        format="json",
    )
    assert response.status_code == 200, response.json()
    assert response.json()["allowed_origins"] == ["https://xn--bcher-kva.example"]


def test_the_hosted_page_and_a_new_session_are_never_kept_by_a_shared_cache(client):
    published_agent()
    page = client.get("/c/helper")
    session = client.post("/c/helper/session")

    # Each carries a visitor's own token: a cache in front (Varnish keeps an
    # answer without Cache-Control for 120 s) would hand one to every visitor.
    for response in (page, session):
        assert "no-store" in response["Cache-Control"]
        assert "private" in response["Cache-Control"]
