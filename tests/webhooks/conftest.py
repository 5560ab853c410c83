"""Helpers for webhook tests: a real HTTP client against pytest-django's live server."""

from __future__ import annotations

import http.client
import json
from dataclasses import dataclass
from urllib.parse import urlsplit

import pytest

from flows.models import FlowRun
from tests.factories import FlowFactory


@dataclass
class Answer:
    status: int
    headers: http.client.HTTPMessage
    body: bytes

    def json(self):
        return json.loads(self.body)

    @property
    def error_code(self) -> str:
        return self.json()["error"]["code"]


class WebhookClient:
    """Speaks plain HTTP/1.1 to the live server, the way an external sender does."""

    def __init__(self, base_url: str):
        parts = urlsplit(base_url)
        self.host, self.port = parts.hostname, parts.port

    def connect(self) -> http.client.HTTPConnection:
        return http.client.HTTPConnection(self.host, self.port, timeout=10)

    def request(self, method, path, body=b"", headers=None) -> Answer:
        conn = self.connect()
        try:
            conn.request(method, path, body=body, headers=headers or {})
            response = conn.getresponse()
            return Answer(response.status, response.headers, response.read())
        finally:
            conn.close()

    def post_json(self, path, payload, headers=None) -> Answer:
        body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        all_headers = {"Content-Type": "application/json", **(headers or {})}
        return self.request("POST", path, body, all_headers)


@pytest.fixture
def sender(live_server) -> WebhookClient:
    return WebhookClient(live_server.url)


@pytest.fixture
def hook_flow(alice):
    """Alice's greeter flow, webhook enabled and unsigned."""
    return FlowFactory(created_by=alice, name="Greeter")


def webhook_runs(flow) -> int:
    return FlowRun.objects.filter(flow=flow, trigger=FlowRun.Trigger.WEBHOOK).count()


def post_webhook(client, flow, body, content_type="application/json", **extra):
    """POST `body` to the flow's webhook through Django's test client."""
    extra.setdefault("CONTENT_TYPE", content_type)  # also for an empty body
    return client.generic("POST", f"/api/webhooks/{flow.id}", body, **extra)
