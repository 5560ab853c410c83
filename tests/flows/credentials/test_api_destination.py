"""A stored secret goes only where it was entered for (docs/security.md, S18).

An edit keeps the secrets it does not send. So a caller who may edit
credentials but never read them (a `credentials:write` token, an editor) moved
an oauth2 credential's token URL, or an SMTP or PostgreSQL credential's host,
to a server of their own, and the workspace's next run sent the client secret
or the password there (a review of `main`, 2026-12-06). Now an edit that
changes where or how a kind's secrets are sent must enter them again.
"""

from __future__ import annotations

import base64
import json
import threading
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.tokens.models import ApiToken
from flows.models import Credential
from tests.factories import FlowFactory, make_credential
from tests.flows.graphs import chain, node, trigger
from tests.http_server import allow_loopback  # noqa: F401  (a fixture)

pytestmark = pytest.mark.django_db

SECRET = "client-secret-never-shown-9z8y"


def token_server():
    """A loopback server answering any POST with an access token, keeping
    each request's path and Basic credentials."""
    seen = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            seen.append((self.path, self.headers.get("Authorization", "")))
            body = json.dumps({"access_token": "x", "expires_in": 3600}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.seen = seen
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd


@pytest.fixture
def servers():
    team, attacker = token_server(), token_server()
    yield team, attacker
    team.shutdown()
    attacker.shutdown()


def url(httpd, path) -> str:
    return f"http://127.0.0.1:{httpd.server_port}{path}"


def client_credentials(user, token_url: str):
    """An oauth2 credential of the client-credentials grant, client `weir`."""
    return make_credential(
        user,
        "crm",
        "oauth2",
        {"client_secret": SECRET},
        grant="client_credentials",
        token_url=token_url,
        client_id="weir",
    )


def writer(user) -> APIClient:
    """A token that may edit credentials and nothing else: it reads no flow,
    runs nothing and never sees a secret."""
    _, value = ApiToken.issue(
        user, "t", ["credentials:write"], timezone.now() + timedelta(days=1)
    )
    return APIClient(HTTP_AUTHORIZATION=f"Bearer {value}")


def test_moving_a_token_url_without_the_client_secret_is_refused_and_sends_nothing(
    api,
    alice,
    servers,
    allow_loopback,  # noqa: F811
):
    team, attacker = servers
    crm = client_credentials(alice, url(team, "/token"))
    nodes, edges = chain(
        trigger(),
        node(
            "fetch",
            "http_request",
            method="GET",
            url=url(team, "/api"),
            credential_id=str(crm.id),
        ),
    )
    flow = FlowFactory(created_by=alice, nodes=nodes, edges=edges)

    moved = writer(alice).patch(
        f"/api/credentials/{crm.id}",
        {"token_url": url(attacker, "/token")},
        format="json",
    )
    api.post(f"/api/flows/{flow.id}/run", {}, format="json")  # the next run

    assert moved.status_code == 400
    error = moved.json()["error"]
    assert error["code"] == "validation_error"
    assert "Token URL changed" in str(error["details"]["client_secret"])
    crm.refresh_from_db()
    assert crm.public["token_url"] == url(team, "/token")
    assert attacker.seen == []
    paths = [path for path, _ in team.seen]
    assert paths[:1] == ["/token"]
    basic = base64.b64decode(team.seen[0][1].split()[1]).decode()
    assert basic == f"weir:{SECRET}"


def test_a_new_token_url_with_its_client_secret_is_saved(api, alice):
    crm = client_credentials(alice, "https://id.example.com/token")

    moved = api.patch(
        f"/api/credentials/{crm.id}",
        {"token_url": "https://login.example.org/token", "client_secret": "new-one"},
        format="json",
    )

    assert moved.status_code == 200, moved.content
    crm.refresh_from_db()
    assert crm.public["token_url"] == "https://login.example.org/token"
    assert crm.secrets()["client_secret"] == "new-one"


SMTP = {"host": "smtp.example.com", "from_address": "flows@example.com"}
POSTGRES = {"host": "db.example.com", "database": "app", "username": "reader"}


@pytest.mark.parametrize(
    ("kind", "public", "change", "named"),
    [
        ("smtp", SMTP, {"host": "mail.attacker.example"}, "Host"),
        ("smtp", SMTP, {"port": 2525}, "Port"),
        ("smtp", SMTP, {"security": "none"}, "Security"),
        ("postgres", POSTGRES, {"host": "db.attacker.example"}, "Host"),
        ("postgres", POSTGRES, {"sslmode": "disable"}, "SSL mode"),
    ],
)
def test_a_server_credentials_new_destination_needs_its_password_again(
    alice, kind, public, change, named
):
    stored = make_credential(alice, "server", kind, {"password": "hunter2"}, **public)

    refused = writer(alice).patch(
        f"/api/credentials/{stored.id}", change, format="json"
    )
    taken = writer(alice).patch(
        f"/api/credentials/{stored.id}", {**change, "password": "new"}, format="json"
    )

    assert refused.status_code == 400
    assert named in str(refused.json()["error"]["details"]["password"])
    assert taken.status_code == 200, taken.content
    stored.refresh_from_db()
    assert stored.secrets()["password"] == "new"


def test_an_edit_that_moves_nothing_keeps_the_password(alice):
    stored = make_credential(alice, "server", "smtp", {"password": "hunter2"}, **SMTP)

    renamed = writer(alice).patch(
        f"/api/credentials/{stored.id}",
        {"name": "relay", "host": "smtp.example.com", "from_address": "a@example.com"},
        format="json",
    )

    assert renamed.status_code == 200, renamed.content
    stored.refresh_from_db()
    assert stored.secrets()["password"] == "hunter2"
    assert stored.name == "relay"


def test_a_credential_holding_no_secret_moves_freely(api):
    made = api.post(
        "/api/credentials",
        {"name": "server", "kind": "smtp", **SMTP},
        format="json",
    )
    assert made.json()["has_value"] is False

    moved = api.patch(
        f"/api/credentials/{made.json()['id']}",
        {"host": "relay.example.org"},
        format="json",
    )

    assert moved.status_code == 200, moved.content
    assert Credential.objects.get(name="server").public["host"] == "relay.example.org"
