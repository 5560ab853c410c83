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
carry. Except for what Weir's origin must keep (docs/security.md, S27): the
answer comes from the origin people are signed in to, but its body and type
are the flow's (its author's, or whatever the run echoed), so it goes out
under Weir's own Content-Security-Policy with `sandbox` (a page runs no script
and has no origin), with `nosniff`, and a JavaScript type as text: neither
a page nor a script of Weir's. The flow's own headers cannot lift that.
"""

from __future__ import annotations

import functools
import json

from csp.utils import build_policy
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


# The JavaScript MIME type essences (WHATWG MIME Sniffing, section 4.6).
SCRIPT_TYPES = frozenset(
    {
        "application/ecmascript",
        "application/javascript",
        "application/x-ecmascript",
        "application/x-javascript",
        "text/ecmascript",
        "text/javascript",
        "text/javascript1.0",
        "text/javascript1.1",
        "text/javascript1.2",
        "text/javascript1.3",
        "text/javascript1.4",
        "text/javascript1.5",
        "text/jscript",
        "text/livescript",
        "text/x-ecmascript",
        "text/x-javascript",
    }
)
TEXT = "text/plain; charset=utf-8"


@functools.cache
def answer_policy() -> str:
    """Weir's own policy (config/csp_settings.py, fixed in code) with
    `sandbox`, built once."""
    return build_policy(update={"sandbox": True}) or "sandbox"


def _node_response(response: dict) -> HttpResponse:
    """The response node's `{status, headers, body}` as an HTTP response.

    A string body is sent as it is (text/plain unless the node names a type);
    any other JSON value is sent as JSON. Never a page or a script of Weir's
    origin (the module's docstring).
    """
    body = response.get("body")
    if isinstance(body, str):
        content, default_type = body.encode(), TEXT
    else:
        content, default_type = json.dumps(body).encode(), "application/json"
    http = HttpResponse(content, status=response["status"], content_type=default_type)
    for name, value in response["headers"].items():
        http[name] = value
    if http["Content-Type"].split(";", 1)[0].strip().lower() in SCRIPT_TYPES:
        http["Content-Type"] = TEXT
    http["Content-Security-Policy"] = answer_policy()
    http["X-Content-Type-Options"] = "nosniff"
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
