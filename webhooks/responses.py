"""The HTTP answer to an accepted webhook, from its finished FlowRun.

- succeeded, no response node → 200 with the run result (docs/api.md, section 3)
- succeeded, response node → that node's status, headers and body
- failed → 500 with the run result; its `error` is `{node_id, code, message}`,
  so the body is also a valid error envelope
- timed out → 504 with the run result (its `run_id` finds the run later)
- waiting (it reached a wait node, flows/nodes/wait.py) → the response node's
  answer if one ran before the wait, else 202 `{run_id, status: "waiting"}`

The response node's output is sent as it is: saving a flow validates its graph
(the API and the admin alike), and the node checks its templated status and
header values when it runs, so a run never stores a response that HTTP cannot
carry.
"""

from __future__ import annotations

import json

from django.http import HttpResponse

from core.http.handlers import sent_as_is
from flows.models import FlowRun

STATUS_BY_RUN_STATUS = {
    FlowRun.Status.SUCCEEDED: 200,
    FlowRun.Status.FAILED: 500,
    FlowRun.Status.TIMED_OUT: 504,
    # Ended from outside: by a cancel, or by the supervisor after its process
    # or the database went away (the sender may retry).
    FlowRun.Status.CANCELLED: 409,
    FlowRun.Status.INTERRUPTED: 503,
}


def _node_response(response: dict) -> HttpResponse:
    """The response node's `{status, headers, body}` as an HTTP response.

    A string body is sent as it is (text/plain unless the node names a type);
    any other JSON value is sent as JSON.
    """
    body = response.get("body")
    if isinstance(body, str):
        content, default_type = body.encode(), "text/plain; charset=utf-8"
    else:
        content, default_type = json.dumps(body).encode(), "application/json"
    http = HttpResponse(content, status=response["status"], content_type=default_type)
    for name, value in response["headers"].items():
        http[name] = value
    return sent_as_is(http)


def _json_response(value: dict, status: int) -> HttpResponse:
    """`JsonResponse` without Django's encoder class, made anew on every call:
    what a run stores is plain JSON already (core/storable.py)."""
    return HttpResponse(
        json.dumps(value).encode(), status=status, content_type="application/json"
    )


def run_response(run: FlowRun) -> HttpResponse:
    """What the sender receives once `run` has finished, or has parked."""
    succeeded_or_waiting = (FlowRun.Status.SUCCEEDED, FlowRun.Status.WAITING)
    if run.status in succeeded_or_waiting and run.response is not None:
        return _node_response(run.response)
    if run.status == FlowRun.Status.WAITING:
        return _json_response({"run_id": str(run.id), "status": run.status}, 202)
    return _json_response(run.as_result(), STATUS_BY_RUN_STATUS.get(run.status, 500))
