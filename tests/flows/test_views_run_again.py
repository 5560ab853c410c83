"""The pages' part in running runs again: the run page's Re-run and Retry
buttons, a retry's links both ways, and the Runs page's search and flow filter
kept in its URL."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts.models import Membership
from flows.engine import again, run_flow
from tests.factories import FlowFactory, FlowRunFactory
from tests.flows.graphs import chain, code, node, trigger
from tests.flows.test_views_runs import run_rows
from tests.http_server import base

pytestmark = pytest.mark.django_db

RETRY = "Retry from failed node</button>"
RERUN = "Re-run</button>"


def test_a_failed_runs_page_offers_retry_and_rerun(alice_client, alice_flow):
    run = FlowRunFactory(flow=alice_flow, status="failed")

    html = alice_client.get(f"/runs/{run.id}/").content.decode()

    assert RETRY in html
    assert RERUN in html
    assert "js/run_detail_again.js" in html


def test_a_succeeded_runs_page_offers_rerun_only(alice_client, alice_flow):
    run = FlowRunFactory(flow=alice_flow, status="succeeded")

    html = alice_client.get(f"/runs/{run.id}/").content.decode()

    assert RETRY not in html
    assert RERUN in html


def test_an_unfinished_runs_page_offers_neither(alice_client, alice_flow):
    run = FlowRunFactory(flow=alice_flow, status="running")

    html = alice_client.get(f"/runs/{run.id}/").content.decode()

    assert RETRY not in html
    assert RERUN not in html


def test_a_viewer_sees_neither_button(bob, alice, alice_flow):
    Membership.objects.create(workspace=alice_flow.workspace, user=bob, role="viewer")
    run = FlowRunFactory(flow=alice_flow, status="failed")
    client = Client()
    client.force_login(bob)

    html = client.get(f"/runs/{run.id}/").content.decode()

    assert RETRY not in html
    assert RERUN not in html


def test_a_retry_and_the_run_it_retried_link_to_each_other(alice_client, alice_flow):
    run = FlowRunFactory(flow=alice_flow, status="failed", input={"name": "Ada"})
    retried = again.retry(run)

    retry_page = alice_client.get(f"/runs/{retried.id}/").content.decode()
    first_page = alice_client.get(f"/runs/{run.id}/").content.decode()

    assert f'href="/runs/{run.id}/"' in retry_page
    assert "Retries" in retry_page
    assert f'Retried by <a href="/runs/{retried.id}/"' in first_page


def test_a_reused_step_is_marked_reused(alice_client, alice, server, allow_loopback):
    nodes, edges = chain(
        trigger(),
        node("fetch", "http_request", method="GET", url=base(server) + "/json"),
        code("parse", "throw new Error('no');"),
    )
    flow = FlowFactory(created_by=alice, nodes=nodes, edges=edges)
    retried = again.retry(run_flow(flow, {}, "manual"))

    html = alice_client.get(f"/runs/{retried.id}/").content.decode()

    assert html.count(">Reused</span>") == 2  # the trigger and fetch


def test_the_runs_page_searches_and_filters_by_flow_keeping_both(alice_client, alice):
    orders = FlowFactory(created_by=alice, name="Orders")
    FlowRunFactory(flow=orders, input={"order": "ORD-4711"})
    FlowRunFactory(flow=orders, input={"order": "ORD-1"})
    FlowRunFactory(flow=FlowFactory(created_by=alice), input={"order": "ORD-4711"})

    html = alice_client.get(f"/runs/?q=ord-4711&flow={orders.id}").content.decode()

    assert len(run_rows(html)) == 1
    assert 'value="ord-4711"' in html
    assert f'<option value="{orders.id}" selected>Orders</option>' in html
    assert "Retry all failed" in html


def test_a_too_short_search_is_explained_on_the_page(alice_client, alice_flow):
    FlowRunFactory(flow=alice_flow)

    html = alice_client.get("/runs/?q=ab").content.decode()

    assert "Search for at least 3 characters." in html
    assert run_rows(html) == []
