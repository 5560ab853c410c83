"""What config/urls.py routes: the OpenAPI schema, its docs page and the admin pages."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.factories import PASSWORD, AgentFactory, FlowFactory, UserFactory


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


def test_docs_page_signed_out_redirects_to_the_sign_in_page(anon):
    response = anon.get("/api/docs")

    assert response.status_code == 302
    assert response["Location"] == "/login/?next=/api/docs"


def test_signing_in_from_the_docs_redirect_lands_on_the_docs(alice):
    client = Client()
    response = client.post(
        "/login/?next=/api/docs",
        {"username": "alice", "password": PASSWORD, "next": "/api/docs"},
    )

    assert response.status_code == 302
    assert response["Location"] == "/api/docs"
    assert client.get("/api/docs").status_code == 200


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
    FlowFactory(name="Invoices", created_by=UserFactory(username="carol"))
    FlowFactory(name="Reports")

    response = staff_client.get("/admin/flows/flow/?q=Invoices")

    html = response.content.decode()
    assert "Invoices" in html and "carol" in html
    assert "Reports" not in html


def test_favicon_ico_leads_to_weirs_icon_and_every_page_names_it(client, db):
    icon = client.get("/favicon.ico")
    page = client.get("/login/").content.decode()

    assert icon.status_code == 301
    assert icon["Location"].endswith("img/favicon.svg")
    assert client.get(icon["Location"]).status_code == 200
    assert 'rel="icon"' in page and "img/favicon.svg" in page
