"""The worked examples in docs/examples.md, sent to the API and run as written."""

from __future__ import annotations

import json
import re
from pathlib import Path

from django.conf import settings

from flows.models import Flow, FlowRun

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
