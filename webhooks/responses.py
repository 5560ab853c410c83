"""The HTTP answer to an accepted webhook, from its finished FlowRun.

- succeeded, no response node → 200 with the run result (DESIGN.md section 4)
- succeeded, response node → that node's status, headers and body
- failed → 500 with the run result; its `error` is `{node_id, code, message}`,
  so the body is also a valid error envelope
- timed out → 504 with the run result (its `run_id` finds the run later)
"""

from __future__ import annotations

import json

from django.http import HttpResponse, JsonResponse

from flows.models import FlowRun

STATUS_BY_RUN_STATUS = {
    FlowRun.Status.SUCCEEDED: 200,
    FlowRun.Status.FAILED: 500,
    FlowRun.Status.TIMED_OUT: 504,
}


def _node_response(response: dict) -> HttpResponse:
    """The response node's `{status, headers, body}` as an HTTP response.

    A string body is sent as it is (text unless the node names a type); any
    other JSON value is sent as JSON.
    """
    headers = dict(response.get("headers") or {})
    body = response.get("body")
    if isinstance(body, str):
        content = body.encode()
        default_type = "text/plain; charset=utf-8"
    else:
        content = json.dumps(body).encode()
        default_type = "application/json"
    has_type = any(name.lower() == "content-type" for name in headers)
    http = HttpResponse(
        content,
        status=response.get("status", 200),
        content_type=None if has_type else default_type,
    )
    for name, value in headers.items():
        http[name] = value
    return http


def run_response(run: FlowRun) -> HttpResponse:
    if run.status == FlowRun.Status.SUCCEEDED and run.response is not None:
        return _node_response(run.response)
    return JsonResponse(
        run.as_result(), status=STATUS_BY_RUN_STATUS.get(run.status, 500)
    )
