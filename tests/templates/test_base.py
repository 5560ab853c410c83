"""templates/base.html: the top bar's links and which section it marks as current."""

from __future__ import annotations

import re

import pytest

from tests.factories import FlowRunFactory


def current_section(response) -> list[str]:
    """The names of the top-bar links marked `aria-current="page"`."""
    return re.findall(r'aria-current="page">(\w+)</a>', response.content.decode())


def test_the_top_bar_links_to_the_sections(alice_client):
    html = alice_client.get("/").content.decode()

    assert '<a class="brand" href="/">' in html
    assert '<a href="/agents/" ' in html
    assert '<a href="/runs/" ' in html
    assert "/admin/" not in html


def test_staff_see_the_admin_link(alice, alice_client):
    alice.is_staff = True
    alice.save()

    html = alice_client.get("/").content.decode()

    assert '<a href="/admin/">Admin</a>' in html


@pytest.mark.parametrize("page", ["list", "builder"])
def test_flow_pages_mark_flows_as_current(alice_client, alice_flow, page):
    path = {"list": "/", "builder": f"/flows/{alice_flow.id}/"}[page]

    response = alice_client.get(path)

    assert response.status_code == 200
    assert current_section(response) == ["Flows"]


@pytest.mark.parametrize("page", ["runs", "run"])
def test_run_pages_mark_runs_as_current(alice_client, alice_flow, page):
    run = FlowRunFactory(flow=alice_flow)
    path = {"runs": "/runs/", "run": f"/runs/{run.id}/"}[page]

    response = alice_client.get(path)

    assert response.status_code == 200
    assert current_section(response) == ["Runs"]


def test_the_agents_page_marks_agents_as_current(alice_client):
    response = alice_client.get("/agents/")

    assert current_section(response) == ["Agents"]


def test_the_sign_out_page_marks_no_section(alice_client):
    response = alice_client.get("/logout/")

    assert current_section(response) == []
