"""The issue's proof: run flows that use a credential against a server that echoes
the Authorization header back (by hand, by webhook, as an agent's tool), then
search every stored row of every table and every answer for the secret."""

from __future__ import annotations

import base64

import pytest
from django.db import connection

from flows.models import Credential
from tests.factories import AgentFactory, FlowFactory, make_credential
from tests.flows.graphs import chain, code, node, trigger
from tests.http_server import base

pytestmark = pytest.mark.django_db(transaction=True)

SECRET = "sk-live-0123456789abcdef"


def every_stored_text() -> str:
    """Every row of every table, as text (PostgreSQL casts whole rows)."""
    texts = []
    with connection.cursor() as cursor:
        for table in connection.introspection.table_names():
            quoted = connection.ops.quote_name(table)
            if connection.vendor == "postgresql":
                cursor.execute(f"SELECT t::text FROM {quoted} t")
            else:
                cursor.execute(f"SELECT * FROM {quoted}")
            texts.extend(str(row) for row in cursor.fetchall())
    return "\n".join(texts)


def forms_of(secret: str) -> list[str]:
    return [secret, base64.b64encode(secret.encode()).decode()]


@pytest.fixture
def leaky_flow(server, alice):
    """Calls the echo server with the credential, logs and answers what came back."""
    credential = make_credential(alice, "stripe", secrets={"token": SECRET})
    nodes, edges = chain(
        trigger(),
        node(
            "call",
            "http_request",
            url=base(server) + "/echo-auth",
            credential_id=str(credential.id),
        ),
        code(
            "log",
            "console.log(JSON.stringify(prev), secrets.stripe);"
            "return {seen: prev.body.authorization, direct: secrets.stripe};",
        ),
        node(
            "answer",
            "response",
            status=200,
            headers={"X-Auth": "{{ results.call.headers['x-echo-auth'] }}"},
            body={"echo": "{{ results.call.body }}", "raw": "{{ secrets.stripe }}"},
        ),
    )
    return FlowFactory(created_by=alice, name="Leaky", nodes=nodes, edges=edges)


def test_no_row_and_no_answer_holds_the_secret(
    api, client, alice, leaky_flow, allow_loopback
):
    answers = []
    ran = api.post(f"/api/flows/{leaky_flow.id}/run", {}, format="json")
    answers.append(ran.content.decode())
    run_id = ran.json()["run_id"]
    answers.append(api.get(f"/api/runs/{run_id}").content.decode())
    answers.append(api.get(f"/api/flows/{leaky_flow.id}/runs").content.decode())
    hook = client.post(
        f"/api/webhooks/{leaky_flow.id}", b"{}", content_type="application/json"
    )
    answers.append(hook.content.decode())
    answers.append(str(hook.headers))
    agent = AgentFactory(created_by=alice)
    agent.tools.add(leaky_flow)
    chat = api.post(
        f"/api/agents/{agent.id}/chat", {"content": "/tool Leaky"}, format="json"
    )
    answers.append(chat.content.decode())
    answers.append(api.get("/api/credentials").content.decode())
    answers.append(api.get(f"/api/flows/{leaky_flow.id}").content.decode())

    assert ran.status_code == 200 and ran.json()["status"] == "succeeded"
    assert hook.status_code == 200
    assert hook.json()["echo"]["authorization"] == "Bearer [redacted:stripe]"
    assert hook.headers["X-Auth"] == "Bearer [redacted:stripe]"
    assert chat.status_code == 200
    assert "[redacted:stripe]" in chat.json()["message"]["content"]
    stored = every_stored_text()
    assert "[redacted:stripe]" in stored  # the search does see the runs
    for form in forms_of(SECRET):
        assert form not in stored
        for answer in answers:
            assert form not in answer


def test_the_credential_column_holds_no_plaintext(alice):
    make_credential(alice, "stripe", secrets={"token": SECRET})

    with connection.cursor() as cursor:
        cursor.execute(f"SELECT encrypted FROM {Credential._meta.db_table}")
        [(encrypted,)] = cursor.fetchall()

    assert SECRET not in encrypted
    assert SECRET not in every_stored_text()
