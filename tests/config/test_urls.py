"""What config/urls.py routes: the OpenAPI schema and docs, the admin; the demo seed."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.test import Client

from agents.models import Agent
from flows.models import Flow
from tests.factories import AgentFactory, FlowFactory, UserFactory


def test_schema_is_openapi_3_and_lists_the_flow_endpoints(api):
    response = api.get("/api/schema", HTTP_ACCEPT="application/json")

    assert response.status_code == 200
    schema = response.json()
    assert schema["openapi"].startswith("3.")
    assert {"/api/flows", "/api/flows/{id}", "/api/agents"} <= schema["paths"].keys()


def test_docs_page_loads_its_assets_from_our_own_static_files(api):
    response = api.get("/api/docs")

    assert response.status_code == 200
    html = response.content.decode()
    assert "/static/drf_spectacular_sidecar/swagger-ui-dist/" in html
    assert "cdn." not in html and "unpkg" not in html


def test_schema_needs_a_session(anon):
    assert anon.get("/api/schema").status_code == 401


@pytest.fixture
def staff_client(db):
    admin = UserFactory(username="root", is_staff=True, is_superuser=True)
    client = Client()
    client.force_login(admin)
    return client


@pytest.mark.parametrize(
    "path",
    [
        "/admin/flows/flow/",
        "/admin/flows/flowrun/",
        "/admin/agents/agent/",
        "/admin/agents/conversation/",
        "/admin/auth/user/",
    ],
)
def test_admin_lists_load(staff_client, path):
    FlowFactory(name="Listed flow")
    AgentFactory(name="Listed agent")

    response = staff_client.get(path)

    assert response.status_code == 200


def test_admin_flow_list_shows_owner_and_node_count_and_searches(staff_client):
    FlowFactory(name="Invoices", owner=UserFactory(username="carol"))
    FlowFactory(name="Reports")

    response = staff_client.get("/admin/flows/flow/?q=Invoices")

    html = response.content.decode()
    assert "Invoices" in html and "carol" in html
    assert "Reports" not in html


def test_admin_agent_form_refuses_tools_from_another_owner(staff_client, alice, bob):
    bob_flow = FlowFactory(owner=bob)

    response = staff_client.post(
        "/admin/agents/agent/add/",
        {
            "name": "Helper",
            "model": "openai:gpt-4o-mini",
            "temperature": "0.5",
            "max_tokens": "512",
            "owner": alice.pk,
            "tools": [str(bob_flow.pk)],
            "is_active": "on",
        },
    )

    assert response.status_code == 200
    assert "only use flows that belong to its owner" in response.content.decode()
    assert not Agent.objects.filter(name="Helper").exists()


def test_seed_demo_creates_user_agent_and_flow_once(db, capsys):
    call_command("seed_demo")
    first = capsys.readouterr().out
    call_command("seed_demo")
    second = capsys.readouterr().out

    assert "Sign in at /login/ as  demo / " in first
    assert "demo /" not in second
    assert Flow.objects.filter(name="Say hello", owner__username="demo").count() == 1
    assert Agent.objects.get(name="Echo").tools.count() == 1


def test_seed_demo_creates_no_user_when_users_exist(alice, capsys):
    call_command("seed_demo")

    assert "Demo user created" not in capsys.readouterr().out
    assert not Flow.objects.filter(owner__username="demo").exists()


def test_docs_need_a_session(anon):
    assert anon.get("/api/docs").status_code == 401
