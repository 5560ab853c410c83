"""A response node's answer is served from Weir's own origin, where people are
signed in: whatever type and headers the flow gives it, it never runs script
there (docs/security.md, S27)."""

from __future__ import annotations

import pytest

from tests.webhooks.test_responses import post, response_flow

PAGE = "<script>fetch('/api/tokens', {method: 'POST'})</script>"


def policy_of(response) -> list[str]:
    return [part.strip() for part in response["Content-Security-Policy"].split(";")]


@pytest.mark.parametrize(
    "content_type",
    ["text/html", "text/html; charset=utf-8", "image/svg+xml", "application/xml"],
)
def test_a_page_a_flow_answers_runs_no_script_on_weirs_origin(alice, content_type):
    flow = response_flow(
        alice, {"body": PAGE, "headers": {"Content-Type": content_type}}
    )

    response = post(flow, "{}")

    assert response.status_code == 200
    assert response["Content-Type"] == content_type  # still the flow's answer
    assert response.content == PAGE.encode()
    assert "sandbox" in policy_of(response)  # no script, no origin of Weir's
    assert response["X-Content-Type-Options"] == "nosniff"


def test_a_flow_cannot_lift_the_sandbox_with_headers_of_its_own(alice):
    flow = response_flow(
        alice,
        {
            "body": PAGE,
            "headers": {
                "Content-Type": "text/html",
                "Content-Security-Policy": "script-src 'unsafe-inline'",
                "X-Content-Type-Options": "{{ input.sniff }}",
            },
        },
    )

    response = post(flow, '{"sniff": "none"}')

    policy = policy_of(response)
    assert "sandbox" in policy
    assert "script-src 'unsafe-inline'" not in policy
    assert "script-src 'self'" in policy  # Weir's own policy, not the flow's
    assert response["X-Content-Type-Options"] == "nosniff"


@pytest.mark.parametrize(
    "content_type", ["application/javascript", "text/javascript; charset=utf-8"]
)
def test_an_answer_a_flow_types_as_script_cannot_be_loaded_as_one(alice, content_type):
    """Weir's pages take script only from Weir's origin (`script-src 'self'`):
    a flow's answer must not be such a script, for any page."""
    flow = response_flow(
        alice,
        {"body": "alert(document.cookie)", "headers": {"Content-Type": content_type}},
    )

    response = post(flow, "{}")

    assert response["Content-Type"] == "text/plain; charset=utf-8"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response.content == b"alert(document.cookie)"


def test_a_json_answer_keeps_weirs_own_policy_too(alice):
    flow = response_flow(alice, {"body": {"ok": True}})

    response = post(flow, "{}")

    assert response["Content-Type"] == "application/json"
    assert response.json() == {"ok": True}
    assert "script-src 'self'" in policy_of(response)
    assert "sandbox" in policy_of(response)
