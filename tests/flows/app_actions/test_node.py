"""The app_action node: what is checked when a flow is saved, and each way a
run fails before or instead of calling the app (docs/apps.md, "Errors")."""

from __future__ import annotations

import pytest

from flows.app_actions.catalogue import get_app
from flows.app_actions.request import build
from flows.engine import run_flow
from flows.graph import validate_graph
from flows.nodes.base import NodeError
from tests.factories import FlowFactory, make_credential
from tests.flows.graphs import chain, node, trigger

pytestmark = pytest.mark.django_db

ISSUE = {"owner": "octocat", "repo": "hello", "body": {"title": "Bug"}}


def problems(**data) -> list[tuple[str, str]]:
    graph = [trigger(), node("a", "app_action", **data)]
    details = validate_graph(graph, []).as_details().get("nodes", [])
    return [(problem["field"], problem["message"]) for problem in details]


def test_a_complete_action_is_valid():
    assert problems(app="github", operation="issues/create", params=ISSUE) == []


def test_an_unknown_app_is_named_at_save_time():
    assert problems(app="myspace", operation="x", params={}) == [
        ("data.app", "There is no app 'myspace'.")
    ]


def test_an_unknown_operation_is_named_at_save_time():
    assert problems(app="github", operation="repos/delete", params={}) == [
        ("data.operation", "GitHub has no operation 'repos/delete'.")
    ]


def test_a_parameter_the_operation_does_not_take_is_named():
    [(field, message)] = problems(
        app="github", operation="issues/create", params={**ISSUE, "colour": "red"}
    )

    assert field == "data.params"
    assert message.startswith(
        "issues/create takes no colour; it takes body, owner, repo"
    )


def test_params_must_be_an_object_and_the_server_an_http_url():
    assert problems(app="github", operation="issues/create", params=[1]) == [
        ("data.params", "Parameters must be an object.")
    ]
    assert problems(
        app="github", operation="issues/create", params=ISSUE, server_url="ftp://x"
    ) == [("data.server_url", "Server URL must start with http:// or https://.")]


def failure(alice, **data) -> dict:
    nodes, edges = chain(trigger(), node("a", "app_action", **data))
    flow = FlowFactory(created_by=alice)
    # Saved as an older Weir would have left it: the checks above never ran.
    type(flow).objects.filter(pk=flow.pk).update(nodes=nodes, edges=edges)
    flow.refresh_from_db()
    run = run_flow(flow, {}, "manual")
    assert run.status == "failed"
    return run.error


def test_each_run_time_problem_fails_with_its_code(alice):
    bearer = make_credential(alice, name="gh", kind="bearer")
    basic = make_credential(alice, name="jira", kind="basic", secrets={"password": "p"})
    base = {"app": "github", "operation": "issues/create", "params": ISSUE}

    assert failure(alice, app="gone", operation="x")["code"] == "app_missing"
    assert failure(alice, app="github", operation="x")["code"] == "operation_missing"
    missing = failure(
        alice, **{**base, "params": {"owner": "o", "body": {"title": "t"}}}
    )
    assert (missing["code"], missing["message"]) == (
        "missing_parameter",
        "issues/create needs repo (a path parameter); give it a value in the form.",
    )
    no_title = failure(alice, **{**base, "params": {**ISSUE, "body": {"body": "x"}}})
    assert no_title["code"] == "missing_parameter"
    assert "body.title" in no_title["message"]
    assert failure(alice, **base)["code"] == "credential_missing"
    wrong = failure(alice, **base, credential_id=str(basic.pk))
    assert (wrong["code"], wrong["message"]) == (
        "credential_kind",
        "jira is a basic credential; GitHub takes bearer or oauth2.",
    )
    bad_url = failure(
        alice, **base, credential_id=str(bearer.pk), server_url="{{ 'x' }}"
    )
    assert bad_url["code"] == "invalid_url"
    bad_params = failure(alice, **{**base, "params": "{{ 3 }}"})
    assert bad_params["code"] == "invalid_params"


def test_the_outbound_wall_applies_to_app_servers(alice):
    bearer = make_credential(alice, name="gh", kind="bearer")

    error = failure(
        alice,
        app="github",
        operation="issues/create",
        params=ISSUE,
        credential_id=str(bearer.pk),
        server_url="http://127.0.0.1:9",
    )

    assert error["code"] == "address_refused"


def test_path_query_and_header_parameters_land_where_the_document_says():
    sheets = get_app("google-sheets").operations["spreadsheets.values.append"]

    url, headers, body = build(
        sheets,
        {
            "spreadsheetId": "abc",
            "range": "Sheet 1!A1",
            "valueInputOption": "RAW",
            "body": {"values": [["a"]]},
        },
        "https://sheets.example.com/",
    )

    assert url == (
        "https://sheets.example.com/v4/spreadsheets/abc/values/"
        "Sheet%201%21A1:append?valueInputOption=RAW"
    )
    assert body == {"values": [["a"]]}
    notion = get_app("notion").operations["pages.create"]
    _, headers, _ = build(
        notion,
        {"Notion-Version": "2022-06-28", "body": {"parent": {}, "properties": {}}},
        "https://n",
    )
    assert headers == {"Notion-Version": "2022-06-28"}


def test_a_form_body_is_encoded_in_brackets():
    intent = get_app("stripe").operations["PostPaymentIntents"]

    _, headers, body = build(
        intent,
        {"body": {"amount": 500, "currency": "eur", "metadata": {"order": 7}}},
        "https://api.stripe.com",
    )

    assert headers["Content-Type"] == "application/x-www-form-urlencoded"
    assert body == b"amount=500&currency=eur&metadata%5Border%5D=7"


def test_a_form_body_that_is_not_an_object_fails():
    customers = get_app("stripe").operations["PostCustomers"]

    with pytest.raises(NodeError) as raised:
        build(customers, {"body": ["x"]}, "https://api.stripe.com")

    assert raised.value.code == "invalid_params"
