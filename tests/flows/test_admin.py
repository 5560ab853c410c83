"""Runs in Django admin: read-only history with filters, search and inline steps."""

from __future__ import annotations

import pytest
from django.test import Client

from flows.engine import run_flow
from tests.factories import FlowFactory, FlowRunFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff():
    client = Client()
    client.force_login(UserFactory(username="root", is_staff=True, is_superuser=True))
    return client


def test_runs_filter_by_status_and_trigger(staff):
    FlowRunFactory(status="failed", trigger="webhook", flow__name="Invoices")
    FlowRunFactory(status="succeeded", trigger="manual", flow__name="Reports")

    failed = staff.get("/admin/flows/flowrun/?status__exact=failed")
    manual = staff.get("/admin/flows/flowrun/?trigger__exact=manual")

    assert failed.status_code == 200
    assert "Invoices" in failed.text and "Reports" not in failed.text
    assert "Reports" in manual.text and "Invoices" not in manual.text


def test_runs_search_by_flow_name(staff):
    FlowRunFactory(flow__name="Invoices")
    FlowRunFactory(flow__name="Reports")

    response = staff.get("/admin/flows/flowrun/?q=invoic")

    assert "Invoices" in response.text
    assert "Reports" not in response.text


def test_a_run_page_shows_its_steps_and_cannot_be_edited(staff):
    run = run_flow(FlowFactory(name="Greeter"), {"name": "Ada"}, "manual")

    page = staff.get(f"/admin/flows/flowrun/{run.id}/change/")
    post = staff.post(f"/admin/flows/flowrun/{run.id}/change/", {"status": "failed"})
    add = staff.get("/admin/flows/flowrun/add/")

    assert page.status_code == 200
    assert "greet" in page.text and "hi Ada" in page.text
    assert 'name="status"' not in page.text
    assert post.status_code == 403
    assert add.status_code == 403
    run.refresh_from_db()
    assert run.status == "succeeded"
