"""Each vendored app's example flow, run with its real request against Stoplight
Prism serving the app's document (tests/flows/app_actions/prism.py): a path,
parameter, body or auth that the document does not allow would get a 422 or
401 and fail the run."""

from __future__ import annotations

import json

import pytest

from flows.app_actions.catalogue import VENDORED
from flows.engine import run_flow
from tests.factories import FlowFactory, make_credential

pytestmark = [pytest.mark.django_db, pytest.mark.processes]

EXAMPLES = VENDORED.parent / "examples"
# Each example's input, and the credential it is run with (kind, secrets, public).
CASES = {
    "slack": (
        {"channel": "C0123456789", "text": "Deploy done"},
        ("bearer", {"token": "xoxb-1"}, {}),
    ),
    "github": (
        {
            "owner": "octocat",
            "repo": "hello-world",
            "title": "Found a bug",
            "details": "It crashes.",
        },
        ("bearer", {"token": "ghp_1"}, {}),
    ),
    "google-sheets": (
        {"sheet": "1BxiMVs0XRA5nFMd", "name": "Ada", "email": "ada@example.com"},
        ("bearer", {"token": "ya29.token"}, {}),
    ),
    "notion": (
        {"database": "d9824bdc", "title": "Call Ada"},
        ("bearer", {"token": "secret_1"}, {}),
    ),
    "stripe": (
        {"email": "ada@example.com", "name": "Ada"},
        ("bearer", {"token": "sk_test_1"}, {}),
    ),
    "jira": (
        {"project": "OPS", "summary": "Disk full"},
        ("basic", {"password": "api-token"}, {"username": "ada@example.com"}),
    ),
    "telegram": ({"chat": "42", "text": "Hello"}, ("bearer", {"token": "123:abc"}, {})),
    "discord": (
        {"channel": "1000000000000000000", "text": "Hello"},
        ("header", {"value": "Bot abc"}, {"header_name": "Authorization"}),
    ),
}


def example_flow(slug: str, owner, prism_url: str, credential_id=None, **changes):
    graph = json.loads((EXAMPLES / f"{slug}.json").read_text())
    action = graph["nodes"][1]["data"]
    action["server_url"] = prism_url
    if action["credential_id"]:
        action["credential_id"] = str(credential_id) if credential_id else None
    action.update(changes)
    return FlowFactory(
        created_by=owner, name=graph["name"], nodes=graph["nodes"], edges=graph["edges"]
    )


def test_there_is_an_example_for_every_vendored_app():
    assert sorted(path.stem for path in EXAMPLES.glob("*.json")) == sorted(
        path.stem for path in VENDORED.glob("*.yaml")
    )
    assert len(CASES) >= 8 and set(CASES) == {p.stem for p in EXAMPLES.glob("*.json")}


@pytest.mark.parametrize("slug", sorted(CASES))
def test_the_example_flow_calls_the_app_as_its_document_says(
    slug, prisms, alice, allow_loopback
):
    given, (kind, secrets, public) = CASES[slug]
    name = "telegram_bot" if slug == "telegram" else slug
    credential = make_credential(alice, name=name, kind=kind, secrets=secrets, **public)
    flow = example_flow(slug, alice, prisms.url(slug), credential.pk)

    run = run_flow(flow, given, "manual")

    assert run.status == "succeeded", run.error
    answer = run.results["action"]
    assert 200 <= answer["status"] < 300
    assert isinstance(answer["body"], dict | list)


def test_a_body_of_the_wrong_shape_is_refused_by_the_document(
    prisms, alice, allow_loopback
):
    credential = make_credential(alice, name="gh", kind="bearer")
    flow = example_flow("github", alice, prisms.url("github"), credential.pk)
    given = {"owner": "octocat", "repo": "hello-world", "title": "x", "details": "y"}
    flow.nodes[1]["data"]["params"]["body"]["labels"] = "{{ input.labels }}"
    flow.save()

    run = run_flow(flow, {**given, "labels": 7}, "manual")

    assert run.status == "failed"
    assert run.error["code"] == "http_error"
    assert run.error["status"] == 422


def test_a_request_without_the_documents_auth_is_refused(prisms, alice, allow_loopback):
    flow = example_flow("discord", alice, prisms.url("discord"))
    flow.nodes[1]["data"]["credential_id"] = None
    flow.save()

    run = run_flow(flow, {"channel": "1", "text": "Hi"}, "manual")

    assert run.status == "failed"
    assert run.error["code"] == "credential_missing"


def test_a_key_sent_under_another_header_is_refused_by_the_document(
    prisms, alice, allow_loopback
):
    secrets = {"value": "Bot abc"}
    wrong = make_credential(
        alice, name="discord", kind="header", secrets=secrets, header_name="X-Token"
    )
    flow = example_flow("discord", alice, prisms.url("discord"), wrong.pk)

    run = run_flow(flow, {"channel": "1", "text": "Hi"}, "manual")

    assert run.status == "failed"
    assert (run.error["code"], run.error["status"]) == ("http_error", 401)
