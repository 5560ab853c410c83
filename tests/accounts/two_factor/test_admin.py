"""A superuser resets a user's two-factor (a lost phone); nobody else can."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from django.test import Client

from accounts.audit.models import AuditEvent
from accounts.two_factor import service
from accounts.two_factor.models import RecoveryCode
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_a_superuser_resets_a_users_two_factor(alice, alice_2fa):
    boss = UserFactory(username="boss", is_staff=True, is_superuser=True)
    client = signed_in(boss)
    row = alice.two_factor

    listing = client.get("/admin/two_factor/twofactor/")
    response = client.post(
        f"/admin/two_factor/twofactor/{row.pk}/delete/", {"post": "yes"}
    )

    assert listing.status_code == 200 and b"alice" in listing.content
    assert alice_2fa[0].totp.secret.encode() not in listing.content
    assert response.status_code == 302
    assert not service.is_on(alice)
    assert not RecoveryCode.objects.filter(user=alice).exists()
    event = AuditEvent.objects.get(action="auth.2fa_disabled")
    assert event.actor_label == "boss"


def test_staff_with_every_permission_cannot_reset_it(alice, alice_2fa):
    helpdesk = UserFactory(username="helpdesk", is_staff=True)
    helpdesk.user_permissions.add(
        *Permission.objects.filter(content_type__app_label="two_factor")
    )
    client = signed_in(helpdesk)

    response = client.post(
        f"/admin/two_factor/twofactor/{alice.two_factor.pk}/delete/", {"post": "yes"}
    )

    assert response.status_code == 403
    assert service.is_on(alice)
