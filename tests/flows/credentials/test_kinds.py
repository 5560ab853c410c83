"""Credential kinds as a registry (flows/credentials/kinds.py, docs/plugins.md):
the example plugin's `hello_token` (examples/weir-plugin-hello, installed by
`make`) is served to the page and the API, created, checked and sent by an
HTTP request node; broken, colliding and odd kind plugins are logged and
skipped while the others load; a credential whose kind is gone says so."""

from __future__ import annotations

import logging
from importlib.metadata import EntryPoint

import pytest

from flows.credentials import kinds
from flows.credentials.plugins import GROUP, load_credential_kind_plugins
from flows.engine import run_flow
from flows.models import Credential
from tests.factories import FlowFactory, make_credential
from tests.flows.test_views import json_script
from tests.http_server import base

SAMPLES = "tests.flows.credentials.kind_samples"
TOKEN = "hello-tok-3f9a1c"


def entry(name: str, value: str) -> EntryPoint:
    return EntryPoint(name=name, value=value, group=GROUP)


def http_flow(owner, credential, url):
    data = {"method": "GET", "url": url, "credential_id": str(credential.id)}
    nodes = [
        {"id": "t", "type": "webhook", "data": {}},
        {"id": "call", "type": "http_request", "name": "Call", "data": data},
    ]
    edges = [{"id": "e", "source": "t", "target": "call"}]
    return FlowFactory(created_by=owner, nodes=nodes, edges=edges)


def test_every_kind_is_served_with_its_fields_the_plugins_among_them(api):
    response = api.get("/api/credential-kinds")

    assert response.status_code == 200
    served = {kind["name"]: kind for kind in response.json()}
    assert list(served)[:8] == [
        "bearer",
        "header",
        "basic",
        "query",
        "custom",
        "smtp",
        "postgres",
        "oauth2",
    ]
    assert served["hello_token"] == {
        "name": "hello_token",
        "label": "Hello token",
        "docs": "A token sent as the X-Hello-Token header.",
        "signs_http": True,
        "builtin": False,
        "fields": [
            {
                "name": "token",
                "label": "Token",
                "secret": True,
                "required": True,
                "widget": "password",
            }
        ],
    }
    assert [field["name"] for field in served["header"]["fields"]] == [
        "header_name",
        "value",
    ]
    assert served["smtp"]["signs_http"] is False


def test_the_kinds_are_for_signed_in_callers(anon):
    assert anon.get("/api/credential-kinds").status_code == 401


def test_the_credentials_page_builds_its_form_from_the_registry(alice_client):
    html = alice_client.get("/credentials/").content.decode()

    served = json_script(html, "credential-kinds-data")
    assert "hello_token" in [kind["name"] for kind in served]
    # No kind is written into the page's form by hand.
    assert 'value="bearer"' not in html


def test_a_hello_token_credential_is_created_and_signs_an_http_node(
    api, alice, server, allow_loopback
):
    response = api.post(
        "/api/credentials",
        {"name": "hello", "kind": "hello_token", "token": TOKEN},
        format="json",
    )
    assert response.status_code == 201
    assert TOKEN not in response.content.decode()
    credential = Credential.objects.get(name="hello")
    assert credential.secrets() == {"token": TOKEN}
    flow = http_flow(alice, credential, f"{base(server)}/echo-auth")

    run = api.post(f"/api/flows/{flow.id}/run", {}, format="json").json()

    assert run["status"] == "succeeded"
    # The echoed token is redacted in what the run keeps.
    assert run["results"]["call"]["body"]["x_hello_token"] == "[redacted:hello]"
    assert run["results"]["call"]["body"]["authorization"] is None


def test_the_http_and_app_nodes_offer_plugin_kinds_that_sign_http(
    alice_client, alice_flow
):
    html = alice_client.get(f"/flows/{alice_flow.id}/").content.decode()

    described = {kind["type"]: kind for kind in json_script(html, "node-kinds")}
    for node_type in ("http_request", "app_action"):
        [picker] = [
            field
            for field in described[node_type]["fields"]
            if field["path"] == "data.credential_id"
        ]
        assert "hello_token" in picker["kinds"]
        assert "smtp" not in picker["kinds"]
    assert "custom" in picker_kinds(described, "http_request")


def picker_kinds(described, node_type):
    [picker] = [
        field
        for field in described[node_type]["fields"]
        if field["path"] == "data.credential_id"
    ]
    return picker["kinds"]


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        ({}, "token", "This field is required."),
        ({"token": "abcd", "header_name": "X-A"}, "header_name", "has no header_name"),
        ({"token": "x" * 9000}, "token", "At most 8192 bytes."),
    ],
)
def test_a_plugin_kinds_fields_are_checked_from_the_registry(api, body, field, message):
    response = api.post(
        "/api/credentials",
        {"name": "hello", "kind": "hello_token", **body},
        format="json",
    )

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "validation_error"
    assert message in str(response.json()["error"]["details"][field])


def test_an_unknown_kind_is_refused_naming_the_kinds(api):
    response = api.post(
        "/api/credentials",
        {"name": "x", "kind": "magic", "token": "abcd"},
        format="json",
    )

    assert response.status_code == 400
    problem = response.json()["error"]["details"]["kind"][0]
    assert problem.startswith("'magic' is not a credential kind; one of: bearer,")
    assert "hello_token" in problem


def test_a_plugin_that_fails_to_import_is_logged_and_skipped(credential_kinds, caplog):
    found = [
        entry("broken", "tests.flows.credentials.kind_broken:KIND"),
        entry("ping_key", f"{SAMPLES}:PING_KEY"),
    ]

    with caplog.at_level(logging.ERROR, logger="weir.plugins"):
        report = load_credential_kind_plugins(found)

    assert report.loaded == ["ping_key"]
    assert kinds.get("ping_key").plugin == "ping_key"
    assert (
        "Plugin broken (weir.credential_kinds, "
        "tests.flows.credentials.kind_broken:KIND) skipped: "
        "ImportError: no module named hello_sdk"
    ) in caplog.messages


@pytest.mark.parametrize(
    ("sample", "reason"),
    [
        ("BEARER_AGAIN", "refused: Credential kind 'bearer' is already registered."),
        (
            "SECRET_USERNAME",
            "refused: odd_login: field 'username' is public in basic.",
        ),
        (
            "SIGNS_WITH_NOTHING",
            "refused: nothing_signs: sign uses unknown field 'secret'.",
        ),
        (
            "NOT_A_KIND",
            "refused: odd names {'name': 'dict_kind'}, which is not a CredentialKind.",
        ),
    ],
)
def test_a_colliding_or_odd_kind_is_refused_and_the_builtin_kept(
    credential_kinds, caplog, sample, reason
):
    with caplog.at_level(logging.ERROR, logger="weir.plugins"):
        report = load_credential_kind_plugins([entry("odd", f"{SAMPLES}:{sample}")])

    assert report.loaded == []
    assert report.skipped[0].reason == reason
    assert kinds.get("bearer").label == "Bearer"
    assert reason in caplog.text


def test_a_credential_whose_kind_is_gone_says_so_everywhere(
    api, alice, credential_kinds, server, allow_loopback
):
    credential = make_credential(alice, "hello", kind="hello_token")
    flow = http_flow(alice, credential, f"{base(server)}/echo-auth")
    del credential_kinds["hello_token"]

    listed = api.get("/api/credentials").json()
    edited = api.patch(
        f"/api/credentials/{credential.id}", {"token": "abcd"}, format="json"
    )
    tested = api.post(
        f"/api/credentials/{credential.id}/test", {"url": base(server)}, format="json"
    )
    run = run_flow(flow, {}, "manual")

    gone = "Credential kind 'hello_token' is not installed (its plugin was removed"
    assert [(item["name"], item["kind"]) for item in listed] == [
        ("hello", "hello_token")
    ]
    assert edited.status_code == 400
    assert edited.json()["error"]["details"]["kind"][0].startswith(gone)
    assert tested.status_code == 400
    assert tested.json()["error"]["message"].startswith(gone)
    assert run.status == "failed"
    assert run.error["code"] == "credential_kind_unknown"
    assert run.error["message"].startswith(
        f"Node 'Call' (call): credential 'hello': {gone}"
    )
    assert server.hits == []
