"""The HTTP answer to an accepted webhook, from its finished FlowRun.

- succeeded, no response node → 200 with the run result (DESIGN.md section 4)
- succeeded, response node → that node's status, headers and body
- failed → 500 with the run result; its `error` is `{node_id, code, message}`,
  so the body is also a valid error envelope
- timed out → 504 with the run result (its `run_id` finds the run later)
"""

from __future__ import annotations

import json
import logging

from django.http import HttpResponse, JsonResponse

from config.api_errors import error_response, sent_as_is
from flows.models import FlowRun
from flows.nodes.response import (
    unsafe_header,
    valid_header_name,
    valid_header_value,
    valid_status,
)

logger = logging.getLogger("weir.webhooks")

STATUS_BY_RUN_STATUS = {
    FlowRun.Status.SUCCEEDED: 200,
    FlowRun.Status.FAILED: 500,
    FlowRun.Status.TIMED_OUT: 504,
    # Ended from outside: by a cancel, or by the supervisor after its process
    # or the database went away (the sender may retry).
    FlowRun.Status.CANCELLED: 409,
    FlowRun.Status.INTERRUPTED: 503,
}


class InvalidNodeResponse(ValueError):
    """The response node's output cannot be sent as HTTP."""


def _checked(response: dict) -> tuple[int, dict[str, str]]:
    """Status and headers, checked again at send time.

    The node refuses bad values when the flow is saved through the API, but a
    flow edited in the admin or saved before a rule existed must not make the
    server emit a broken or dangerous response.
    """
    status = response.get("status", 200)
    if not valid_status(status):
        raise InvalidNodeResponse(f"status {status!r} is not between 200 and 599")
    headers = response.get("headers") or {}
    if not isinstance(headers, dict):
        raise InvalidNodeResponse("headers must be an object")
    for name, value in headers.items():
        if not valid_header_name(name):
            raise InvalidNodeResponse(f"header name {name!r} is not an HTTP token")
        if unsafe_header(name) or not isinstance(value, str):
            raise InvalidNodeResponse(f"header {name!r} cannot be sent")
        if not valid_header_value(value):
            raise InvalidNodeResponse(
                f"header {name!r} is not one line of Latin-1 text"
            )
    return status, headers


def _node_response(run: FlowRun) -> HttpResponse:
    """The response node's `{status, headers, body}` as an HTTP response.

    A string body is sent as it is (text/plain unless the node names a type);
    any other JSON value is sent as JSON.
    """
    try:
        status, headers = _checked(run.response)
    except InvalidNodeResponse as problem:
        logger.warning("Run %s has an unsendable response: %s", run.id, problem)
        return error_response(
            500,
            "invalid_response",
            f"The flow's response node produced an invalid response: {problem}.",
            details={"run_id": str(run.id)},
        )
    body = run.response.get("body")
    if isinstance(body, str):
        content, default_type = body.encode(), "text/plain; charset=utf-8"
    else:
        content, default_type = json.dumps(body).encode(), "application/json"
    http = HttpResponse(content, status=status, content_type=default_type)
    for name, value in headers.items():
        http[name] = value
    return sent_as_is(http)


def run_response(run: FlowRun) -> HttpResponse:
    """What the sender receives once `run` has finished."""
    if run.status == FlowRun.Status.SUCCEEDED and run.response is not None:
        return _node_response(run)
    return JsonResponse(
        run.as_result(), status=STATUS_BY_RUN_STATUS.get(run.status, 500)
    )


def queued_response(run: FlowRun) -> HttpResponse:
    """202 for a run queued for a worker: its id, and where its owner polls it."""
    response = JsonResponse({"run_id": str(run.id), "status": run.status}, status=202)
    response["Preference-Applied"] = "respond-async"
    return response
