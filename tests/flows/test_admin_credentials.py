"""Django admin for credentials: owner, kind and last use listed; values never."""

from __future__ import annotations

import pytest
from django.test import Client
from django.utils import timezone

from tests.factories import UserFactory, make_credential

pytestmark = pytest.mark.django_db

SECRET = "tok-admin-never-shows"


@pytest.fixture
def staff():
    client = Client()
    client.force_login(UserFactory(username="root", is_staff=True, is_superuser=True))
    return client


def test_the_list_shows_owner_kind_and_last_use_but_no_value(staff, alice):
    credential = make_credential(alice, "stripe", secrets={"token": SECRET})
    credential.last_used_at = timezone.now()
    credential.save()

    response = staff.get("/admin/flows/credential/")

    assert response.status_code == 200
    assert "stripe" in response.text and "alice" in response.text
    assert "bearer" in response.text
    assert SECRET not in response.text


def test_the_detail_page_shows_neither_value_nor_ciphertext(staff, alice):
    credential = make_credential(alice, "stripe", secrets={"token": SECRET})

    response = staff.get(f"/admin/flows/credential/{credential.id}/change/")

    assert response.status_code == 200
    assert "stripe" in response.text
    assert SECRET not in response.text
    assert credential.encrypted not in response.text


def test_admins_cannot_add_or_edit_a_value(staff, alice):
    credential = make_credential(alice, "stripe")

    add = staff.get("/admin/flows/credential/add/")
    edit = staff.post(
        f"/admin/flows/credential/{credential.id}/change/", {"name": "renamed"}
    )

    assert add.status_code == 403
    assert edit.status_code == 403
    credential.refresh_from_db()
    assert credential.name == "stripe"
