"""A per-address limit on webhook misses (issue 13, item 11): an address probing
unknown flow ids gets 429 with Retry-After after `WEBHOOK_MISS_RATE` misses."""

from __future__ import annotations

import uuid

import pytest

from tests.webhooks.conftest import post_webhook, webhook_runs


@pytest.fixture
def three_misses(settings):
    settings.WEBHOOK_MISS_RATE = "3/60s"


def probe(client, address="203.0.113.9", flow_id=None, **meta):
    flow_id = flow_id or uuid.uuid4()
    return client.post(
        f"/api/webhooks/{flow_id}",
        b"{}",
        content_type="application/json",
        REMOTE_ADDR=address,
        **meta,
    )


def test_an_address_probing_unknown_flows_is_throttled(client, db, three_misses):
    statuses = [probe(client).status_code for _ in range(3)]

    response = probe(client)

    assert statuses == [404, 404, 404]
    assert response.status_code == 429
    assert response.json()["error"]["code"] == "throttled"
    assert 1 <= int(response["Retry-After"]) <= 60


def test_malformed_ids_count_as_misses(client, db, three_misses):
    for _ in range(3):
        probe(client, flow_id="not-a-uuid")

    assert probe(client, flow_id="still-not-one").status_code == 429


def test_other_addresses_still_get_404(client, db, three_misses):
    for _ in range(4):
        probe(client)

    assert probe(client, address="198.51.100.7").status_code == 404


def test_a_throttled_address_still_reaches_real_flows(client, hook_flow, three_misses):
    for _ in range(4):
        probe(client)

    response = post_webhook(
        client, hook_flow, b'{"name": "Ada"}', REMOTE_ADDR="203.0.113.9"
    )

    assert response.status_code == 200
    assert webhook_runs(hook_flow) == 1


def test_misses_count_per_forwarded_client_behind_trusted_proxies(
    client, db, three_misses, settings
):
    settings.TRUSTED_PROXY_COUNT = 1
    for _ in range(4):
        probe(client, address="10.0.0.2", HTTP_X_FORWARDED_FOR="203.0.113.9")

    other = probe(client, address="10.0.0.2", HTTP_X_FORWARDED_FOR="198.51.100.7")
    same = probe(client, address="10.0.0.2", HTTP_X_FORWARDED_FOR="203.0.113.9")

    assert other.status_code == 404
    assert same.status_code == 429


def test_one_ipv6_64_shares_one_budget_however_many_addresses_it_uses(
    client, db, three_misses
):
    statuses = [probe(client, f"2001:db8:1:2::{n:x}").status_code for n in range(1, 5)]

    other_network = probe(client, "2001:db8:1:3::1")

    assert statuses == [404, 404, 404, 429]
    assert other_network.status_code == 404
