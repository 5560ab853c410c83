"""Every page carries a Content-Security-Policy under which injected inline
script cannot run (the browser proof is tests/e2e/test_content_security_policy.py)."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.factories import AgentFactory, FlowRunFactory

PAGES = [
    "/",
    "/flows/{flow}/",
    "/runs/{run}/",
    "/agents/",
    "/agents/{agent}/",
    "/admin/",
    "/api/docs",
]


def directives(response) -> dict[str, list[str]]:
    header = response["Content-Security-Policy"]
    return {
        name: values
        for name, *values in (
            part.split() for part in header.split(";") if part.strip()
        )
    }


@pytest.fixture
def staff_alice(alice):
    alice.is_staff = alice.is_superuser = True
    alice.save()
    client = Client()
    client.force_login(alice)
    return client


@pytest.mark.parametrize("path", PAGES)
def test_every_page_forbids_inline_script(staff_alice, alice_flow, path):
    run = FlowRunFactory(flow=alice_flow)
    agent = AgentFactory()
    url = path.format(flow=alice_flow.id, run=run.id, agent=agent.id)

    response = staff_alice.get(url)

    assert response.status_code == 200
    policy = directives(response)
    assert policy["script-src"] == ["'self'"]
    assert policy["default-src"] == ["'self'"]
    assert policy["object-src"] == ["'none'"]
    assert policy["base-uri"] == ["'self'"]
    assert policy["frame-ancestors"] == ["'none'"]
    assert policy["form-action"] == ["'self'"]


def test_the_sign_in_page_forbids_inline_script_too(db):
    response = Client().get("/login/")

    assert response.status_code == 200
    assert directives(response)["script-src"] == ["'self'"]


def test_the_api_docs_script_is_served_as_a_file(staff_alice):
    page = staff_alice.get("/api/docs")
    script = staff_alice.get("/api/docs?script=")

    assert b"<script>" not in page.content.replace(b" ", b"")
    assert script.status_code == 200
    assert script["Content-Type"].startswith("application/javascript")
    assert b"SwaggerUIBundle" in script.content
