"""API tokens in the admin: listed without their digest, revoked by an action."""

from __future__ import annotations

from datetime import timedelta

from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.audit.models import AuditEvent
from accounts.tokens.models import ApiToken
from tests.factories import UserFactory


def test_a_superuser_revokes_a_leaked_token_in_the_admin(alice):
    admin = UserFactory(username="root", is_staff=True, is_superuser=True)
    token, value = ApiToken.issue(
        alice, "leaked", ["flows:read"], timezone.now() + timedelta(days=1)
    )
    client = Client()
    client.force_login(admin)

    listing = client.get("/admin/accounts/apitoken/")
    response = client.post(
        "/admin/accounts/apitoken/",
        {"action": "revoke", "_selected_action": [str(token.pk)]},
    )

    assert listing.status_code == 200
    assert token.prefix in listing.content.decode()
    assert token.digest not in listing.content.decode()
    assert response.status_code == 302
    script = APIClient()
    script.credentials(HTTP_AUTHORIZATION=f"Bearer {value}")
    assert script.get("/api/flows").status_code == 401
    event = AuditEvent.objects.get(action="token.revoked")
    assert event.actor == admin
