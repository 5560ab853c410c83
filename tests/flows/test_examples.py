"""The worked examples in docs/examples.md, sent to the API and run as written."""

from __future__ import annotations

import email
import email.policy
import json
import re
from pathlib import Path

from django.conf import settings

from flows.demo import fulfilment_graph, orders_graph
from flows.engine import background, waits
from flows.models import Flow, FlowRun
from tests.flows.nodes.conftest import inbox, mail_server  # noqa: F401

EXAMPLES = Path(settings.BASE_DIR) / "docs" / "examples.md"


def graphs() -> list[dict]:
    blocks = re.findall(r"```json\n(.*?)```", EXAMPLES.read_text(), re.S)
    return [json.loads(block) for block in blocks]


def test_example_1_fulfils_each_order_and_reports_the_failures(api, client, alice):
    fulfil, orders = graphs()[:2]
    created = api.post("/api/flows", fulfil, format="json")
    assert created.status_code == 201, created.json()
    fulfil_id = created.json()["id"]
    orders = json.loads(json.dumps(orders).replace("FULFIL_ORDER_ID", fulfil_id))
    created = api.post("/api/flows", orders, format="json")
    assert created.status_code == 201, created.json()
    flow = Flow.objects.get(pk=created.json()["id"])

    answer = client.post(
        flow.webhook_path,
        {"orders": [{"id": 1, "sku": "A"}, {"id": 2}]},
        content_type="application/json",
    )

    assert answer.status_code == 202
    body = answer.json()
    assert body["fulfilled"] == 1
    [failure] = body["failed"]
    assert failure["index"] == 1
    assert "order 2 has no sku" in failure["message"]
    children = FlowRun.objects.filter(flow_id=fulfil_id, trigger="call")
    assert children.count() == 2
    assert str(children.get(status="failed").id) == failure["run_id"]


def test_example_1_answers_200_when_every_order_is_fulfilled(api, client, alice):
    fulfil, orders = graphs()[:2]
    fulfil_id = api.post("/api/flows", fulfil, format="json").json()["id"]
    orders = json.loads(json.dumps(orders).replace("FULFIL_ORDER_ID", fulfil_id))
    flow_id = api.post("/api/flows", orders, format="json").json()["id"]

    answer = client.post(
        f"/api/webhooks/{flow_id}",
        {"orders": [{"id": 1, "sku": "A"}]},
        content_type="application/json",
    )

    assert answer.status_code == 200
    assert answer.json() == {"fulfilled": 1}


def test_the_whole_example_1_mails_a_link_waits_and_retries_the_failed_orders(
    client,
    alice,
    mail_server,  # noqa: F811 (the fixture, imported above)
    inbox,  # noqa: F811
):
    """The demo's "Orders" (flows/demo.py orders_graph), as docs/examples.md
    describes it end to end: a failed order, a mail with the resume link, an
    approval, the retry."""
    fulfil = Flow.objects.create(
        created_by=alice, name="Fulfil order", nodes=fulfilment_graph()[0],
        edges=fulfilment_graph()[1],
    )  # fmt: skip
    nodes, edges = orders_graph(str(fulfil.id))
    nodes[4]["data"]["credential_id"] = str(mail_server.pk)
    flow = Flow.objects.create(
        created_by=alice, name="Orders", nodes=nodes, edges=edges
    )
    flow.full_clean()
    orders = [{"id": 1, "sku": "A"}, {"id": 2}]

    answer = client.post(
        flow.webhook_path,
        {"orders": orders, "approver": "boss@example.com"},
        content_type="application/json",
    )

    assert answer.status_code == 202
    run = FlowRun.objects.get(pk=answer.json()["run_id"])
    assert run.status == "waiting"
    [mail] = inbox.envelopes
    assert mail.rcpt_tos == ["boss@example.com"]
    message = email.message_from_bytes(mail.content, policy=email.policy.default)
    assert message["Subject"] == "1 of 2 orders failed"
    path = waits.resume_path(run.pk, "approve")
    assert path in message.get_content()

    resumed = client.post(path, {}, content_type="application/json")
    assert resumed.status_code == 202
    assert background.execute_queued(str(run.id)) == "succeeded"

    run.refresh_from_db()
    retry = run.results["retry"]
    assert (retry["count"], retry["failed"]) == (1, 1)  # order 2 still has no sku
    calls = FlowRun.objects.filter(flow=fulfil, called_by=run)
    assert calls.count() == 3  # two orders, then the one retried


def example(name: str) -> dict:
    return next(graph for graph in graphs() if graph.get("name") == name)


def test_the_slack_slash_command_answers_a_request_slack_signed(api, client):
    import time

    from slack_sdk.signature import SignatureVerifier

    created = api.post("/api/flows", example("Weather command"), format="json")
    assert created.status_code == 201, created.json()
    flow = Flow.objects.get(pk=created.json()["id"])
    secret = "8f742231b10e8888abcd99yyyzzz85a5"
    api.post(
        f"/api/flows/{flow.id}/webhook-secret",
        {"scheme": "slack", "secret": secret},
        format="json",
    )
    body = b"command=%2Fweather&text=Paris&user_name=ada"
    timestamp = str(int(time.time()))
    signature = SignatureVerifier(secret).generate_signature(
        timestamp=timestamp, body=body
    )

    answer = client.generic(
        "POST",
        flow.webhook_path,
        body,
        content_type="application/x-www-form-urlencoded",
        HTTP_X_SLACK_REQUEST_TIMESTAMP=timestamp,
        HTTP_X_SLACK_SIGNATURE=signature,
    )
    forged = client.generic(
        "POST",
        flow.webhook_path,
        body,
        content_type="application/x-www-form-urlencoded",
        HTTP_X_SLACK_REQUEST_TIMESTAMP=timestamp,
        HTTP_X_SLACK_SIGNATURE="v0=" + "0" * 64,
    )

    assert answer.status_code == 200
    assert answer.json() == {
        "response_type": "in_channel",
        "text": "ada asked for the weather in Paris.",
    }
    assert forged.status_code == 401


def test_the_github_issue_flow_keeps_opened_issues_and_ignores_the_rest(api, client):
    import hashlib
    import hmac

    created = api.post("/api/flows", example("Issues to tasks"), format="json")
    assert created.status_code == 201, created.json()
    flow = Flow.objects.get(pk=created.json()["id"])
    secret = api.post(
        f"/api/flows/{flow.id}/webhook-secret", {"scheme": "github"}, format="json"
    ).json()["secret"]

    def deliver(event: str, payload: dict, delivery: str):
        body = json.dumps(payload).encode()
        digest = hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
        return client.generic(
            "POST",
            flow.webhook_path,
            body,
            content_type="application/json",
            HTTP_X_GITHUB_EVENT=event,
            HTTP_X_GITHUB_DELIVERY=delivery,
            HTTP_X_HUB_SIGNATURE_256=f"sha256={digest}",
        )

    issue = {"title": "Crash on save", "labels": [{"name": "bug"}, {"name": "p1"}]}
    opened = deliver("issues", {"action": "opened", "issue": issue}, "d-1")
    again = deliver("issues", {"action": "opened", "issue": issue}, "d-1")
    starred = deliver("watch", {"action": "started"}, "d-2")

    assert opened.status_code == 201
    assert opened.json() == {"title": "Crash on save", "labels": ["bug", "p1"]}
    assert again["Idempotent-Replayed"] == "true"
    assert starred.status_code == 202
    assert starred.json() == {"ignored": True}
    assert FlowRun.objects.filter(flow=flow).count() == 2
