"""GET /metrics: Prometheus text for the token or an allowed address, else 404."""

from __future__ import annotations

import ipaddress

import pytest

TOKEN = "metrics-token-0123456789"


@pytest.fixture
def gated(settings):
    settings.METRICS_TOKEN = TOKEN
    settings.METRICS_ALLOWED_IPS = [ipaddress.ip_network("10.0.0.0/8")]
    return settings


def test_without_token_or_address_settings_it_does_not_exist(anon, settings):
    settings.METRICS_TOKEN = ""
    settings.METRICS_ALLOWED_IPS = []

    response = anon.get("/metrics", headers={"Authorization": "Bearer "})
    unknown = anon.get("/no-such-page")

    assert response.status_code == 404
    assert response.content == unknown.content


@pytest.mark.parametrize(
    "authorization", [None, "Bearer wrong", f"Basic {TOKEN}", f"Bearer {TOKEN}x"]
)
def test_a_missing_or_wrong_token_gets_404(anon, gated, authorization):
    headers = {"Authorization": authorization} if authorization else {}

    response = anon.get("/metrics", headers=headers)

    assert response.status_code == 404
    assert b"weir_" not in response.content


def test_a_post_without_the_token_gets_404_not_405(anon, gated):
    assert anon.post("/metrics").status_code == 404


def test_the_token_opens_prometheus_text(anon, gated):
    response = anon.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"})

    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain; version=")
    assert b"# TYPE weir_runs_started_total counter" in response.content
    assert b"weir_runs_queued 0.0" in response.content


def test_an_allowed_address_needs_no_token(anon, gated):
    inside = anon.get("/metrics", REMOTE_ADDR="10.1.2.3")
    outside = anon.get("/metrics", REMOTE_ADDR="192.0.2.1")

    assert inside.status_code == 200
    assert outside.status_code == 404


def test_requests_are_counted_by_view_and_status(anon, gated):
    anon.get("/healthz")

    text = anon.get("/metrics", REMOTE_ADDR="10.0.0.1").content.decode()

    assert (
        'django_http_responses_total_by_status_view_method_total{method="GET",'
        'status="200",view="healthz"}' in text
    )
    assert (
        'django_http_requests_latency_seconds_by_view_method_count{method="GET",'
        'view="healthz"}' in text
    )
