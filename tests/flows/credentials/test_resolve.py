"""Credentials in a run: applied by the http_request node, read by templates and
code as `secrets`, redacted from what the run stores, missing ones named."""

from __future__ import annotations

import base64

import pytest

from flows.engine import run_flow
from flows.models import Credential, RunStep
from tests.factories import FlowFactory, make_credential
from tests.flows.graphs import chain, code, node, trigger
from tests.http_server import base

pytestmark = pytest.mark.django_db

TOKEN = "tok-9f8e7d6c5b4a-live"


def run_nodes(owner, *nodes):
    node_list, edges = chain(trigger(), *nodes)
    flow = FlowFactory(created_by=owner, nodes=node_list, edges=edges)
    return run_flow(flow, {}, "manual")


def call(server, credential, path="/echo-auth", **data):
    return node(
        "call",
        "http_request",
        url=base(server) + path,
        credential_id=str(credential.id),
        **data,
    )


def test_a_bearer_credential_is_sent_and_its_echo_redacted(
    server, allow_loopback, alice
):
    credential = make_credential(alice, "api", secrets={"token": TOKEN})

    run = run_nodes(alice, call(server, credential))

    assert run.status == "succeeded"
    output = run.results["call"]
    assert output["body"]["authorization"] == "Bearer [redacted:api]"
    assert output["headers"]["x-echo-auth"] == "Bearer [redacted:api]"
    step = RunStep.objects.get(run=run, node_id="call")
    assert TOKEN not in str(step.output)


def test_a_header_credential_replaces_a_header_the_node_wrote(
    server, allow_loopback, alice
):
    credential = make_credential(
        alice, "hdr", "header", {"value": "hv-123456"}, header_name="X-Api-Key"
    )

    run = run_nodes(
        alice, call(server, credential, headers={"x-api-key": "typed-in-node"})
    )

    assert run.results["call"]["body"]["x_api_key"] == "[redacted:hdr]"


def test_a_basic_credential_sends_user_and_password_and_redacts_the_pair(
    server, allow_loopback, alice
):
    credential = make_credential(
        alice, "login", "basic", {"password": "pw-abcdef"}, username="ada"
    )

    run = run_nodes(alice, call(server, credential))

    pair = base64.b64encode(b"ada:pw-abcdef").decode()
    assert run.results["call"]["body"]["authorization"] == "Basic [redacted:login]"
    assert pair not in str(run.results)


def test_a_query_credential_is_added_to_the_url(server, allow_loopback, alice):
    credential = make_credential(
        alice, "q", "query", {"value": "qv a&b=c"}, param_name="key"
    )

    run = run_nodes(alice, call(server, credential, path="/echo-auth?page=2"))

    assert run.status == "succeeded"
    assert run.results["call"]["body"]["query"] == "page=2&key=[redacted:q]"
    assert server.hits == ["/echo-auth?page=2&key=qv+a%26b%3Dc"]


def test_a_deleted_credential_fails_the_run_naming_the_node(
    server, allow_loopback, alice
):
    credential = make_credential(alice, "gone")
    step = call(server, credential)
    Credential.objects.filter(pk=credential.pk).delete()

    run = run_nodes(alice, step)

    assert run.status == "failed"
    assert run.error["code"] == "credential_missing"
    assert run.error["node_id"] == "call"
    assert "Call" in run.error["message"]
    assert server.hits == []


def test_another_users_credential_is_missing_at_run_time(
    server, allow_loopback, alice, bob
):
    credential = make_credential(bob, "theirs")

    run = run_nodes(alice, call(server, credential))

    assert run.error["code"] == "credential_missing"
    assert server.hits == []


def test_templates_read_secrets_by_name_and_the_value_is_redacted(
    server, allow_loopback, alice
):
    make_credential(alice, "api", secrets={"token": TOKEN})

    run = run_nodes(
        alice,
        node(
            "call",
            "http_request",
            url=base(server) + "/echo-auth",
            headers={"Authorization": "Token {{ secrets.api }}"},
        ),
    )

    assert run.results["call"]["body"]["authorization"] == "Token [redacted:api]"


def test_code_reads_secrets_and_its_logs_and_output_are_redacted(alice):
    make_credential(
        alice, "cfg", "custom", {"values": {"user": "ada", "key": "ck-777777"}}
    )

    run = run_nodes(
        alice,
        code("c", "console.log('key', secrets.cfg.key); return {k: secrets.cfg.key};"),
    )

    assert run.status == "succeeded"
    assert run.results["c"] == {"k": "[redacted:cfg]"}
    step = RunStep.objects.get(run=run, node_id="c")
    assert step.logs == ["key [redacted:cfg]"]


def test_code_that_does_not_mention_secrets_cannot_see_them(alice):
    make_credential(alice, "api", secrets={"token": TOKEN})

    run = run_nodes(
        alice,
        code("c", "return Object.keys(globalThis).concat([typeof arguments[3]]);"),
    )

    assert run.status == "succeeded"
    assert run.results["c"][-1] == "undefined"
    assert TOKEN not in str(run.results)


def test_an_error_message_carrying_a_secret_is_redacted(alice):
    make_credential(alice, "api", secrets={"token": TOKEN})

    run = run_nodes(alice, code("c", "throw new Error('bad ' + secrets.api);"))

    assert run.status == "failed"
    assert TOKEN not in run.error["message"]
    assert "[redacted:api]" in run.error["message"]


def test_using_a_credential_stamps_its_last_use(server, allow_loopback, alice):
    credential = make_credential(alice, "api")

    run_nodes(alice, call(server, credential))

    credential.refresh_from_db()
    assert credential.last_used_at is not None
