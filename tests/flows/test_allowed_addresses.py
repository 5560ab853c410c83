"""Private addresses an admin allows in the database (issue 34, part 2, item 9):
seen by the outbound wall without a restart, merged with HTTP_NODE_ALLOWLIST."""

from __future__ import annotations

import pytest

from core.net import allowlist
from core.net.outbound import OutboundError, checked_address
from flows.models import AllowedAddress

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def fresh_cache(settings):
    settings.HTTP_NODE_ALLOWLIST = []
    allowlist.forget()
    yield
    allowlist.forget()


def test_an_address_allowed_in_the_admin_is_reached_without_a_restart(admin_client):
    with pytest.raises(OutboundError, match="in the admin or with HTTP_NODE_ALLOWLIST"):
        checked_address("127.0.0.1", 80)

    response = admin_client.post(
        "/admin/flows/allowedaddress/add/",
        {"entry": "127.0.0.0/8", "note": "the local API"},
    )

    assert response.status_code == 302
    assert checked_address("127.0.0.1", 80) == "127.0.0.1"

    admin_client.post(
        f"/admin/flows/allowedaddress/{AllowedAddress.objects.get().pk}/delete/",
        {"post": "yes"},
    )
    with pytest.raises(OutboundError):
        checked_address("127.0.0.1", 80)


def test_another_processs_change_is_seen_once_the_cache_expires(monkeypatch):
    with pytest.raises(OutboundError):
        checked_address("127.0.0.1", 80)
    # As another process writes it: this process's cache is not told.
    AllowedAddress.objects.bulk_create([AllowedAddress(entry="127.0.0.1")])

    with pytest.raises(OutboundError):
        checked_address("127.0.0.1", 80)  # within CACHE_SECONDS: still cached
    monkeypatch.setattr(allowlist, "CACHE_SECONDS", 0.0)
    assert checked_address("127.0.0.1", 80) == "127.0.0.1"


def test_the_environments_entries_still_count(settings):
    settings.HTTP_NODE_ALLOWLIST = ["127.0.0.1"]
    AllowedAddress.objects.create(entry="10.0.0.0/8")

    assert allowlist.entries() == ["127.0.0.1", "10.0.0.0/8"]


def test_the_admin_refuses_an_entry_that_is_no_host_or_network(admin_client):
    response = admin_client.post(
        "/admin/flows/allowedaddress/add/", {"entry": "http://db:5432/x"}
    )

    assert response.status_code == 200
    assert "Give a host name" in response.content.decode()
    assert not AllowedAddress.objects.exists()
