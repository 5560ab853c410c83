"""The webhook latency histogram counts every answer by its status."""

from __future__ import annotations

import uuid

from prometheus_client import REGISTRY

from tests.flows.graphs import chain_flow, code, trigger


def count(status: str) -> float:
    return (
        REGISTRY.get_sample_value(
            "weir_webhook_duration_seconds_count", {"status": status}
        )
        or 0.0
    )


def test_answers_and_refusals_are_timed_by_status(anon, alice):
    flow = chain_flow(trigger(), code("c", "return 1;"), created_by=alice)
    ok, missing = count("200"), count("404")

    answered = anon.post(flow.webhook_path, {}, format="json")
    refused = anon.post(f"/api/webhooks/{uuid.uuid4()}", {}, format="json")

    assert (answered.status_code, refused.status_code) == (200, 404)
    assert count("200") == ok + 1
    assert count("404") == missing + 1
