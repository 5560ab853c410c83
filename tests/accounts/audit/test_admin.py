"""The audit log in the Django admin: readable, never written."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts.audit.models import AuditEvent
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff():
    client = Client()
    client.force_login(UserFactory(username="root", is_staff=True, is_superuser=True))
    return client


def test_staff_read_events_but_cannot_add_change_or_delete_them(staff):
    event = AuditEvent.objects.create(
        action="flow.updated", actor_label="alice", target_label="Invoices"
    )
    path = f"/admin/accounts/auditevent/{event.pk}"

    listing = staff.get("/admin/accounts/auditevent/")
    page = staff.get(f"{path}/change/")
    post = staff.post(f"{path}/change/", {"action": "flow.deleted"})
    delete = staff.post(f"{path}/delete/", {"post": "yes"})

    assert listing.status_code == 200 and "Invoices" in listing.text
    assert page.status_code == 200 and 'name="action"' not in page.text
    assert (post.status_code, delete.status_code) == (403, 403)
    assert staff.get("/admin/accounts/auditevent/add/").status_code == 403
    event.refresh_from_db()
    assert event.action == "flow.updated"
