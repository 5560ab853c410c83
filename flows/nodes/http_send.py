"""What the nodes that call HTTP APIs share (http_request, app_action): one
`HttpCall` built from the node's settings and run context, and the client's
failures turned into node errors.

The SSRF wall, redirects and limits stay in `core.net.outbound`; the
`Retry-After` waits and `on_http_error` in `flows.nodes.http_call`.
"""

from __future__ import annotations

import contextlib
import time

from django.conf import settings

from core.net import outbound
from flows.nodes.base import NodeContext, NodeError, NodeTimeout
from flows.nodes.http_call import HttpCall
from flows.nodes.http_files import kept_answer

DEFAULT_TIMEOUT_MS = 10_000


def with_idempotency_key(headers: dict, ctx: NodeContext) -> bool:
    """Add the node's `Idempotency-Key` unless the flow set its own; whether
    it was the flow's own. The same key on every attempt: a resumed run may
    repeat this node (at least once per node, docs/engine.md), and receivers
    can dedupe."""
    own_key = any(name.lower() == "idempotency-key" for name in headers)
    if not own_key:
        headers["Idempotency-Key"] = ctx.idempotency_key
    return own_key


def node_call(
    ctx: NodeContext,
    method: str,
    headers: dict,
    body,
    *,
    timeout_ms: int,
    response_format: str,
    fail_on_error: bool,
    credential_id,
) -> HttpCall:
    """The node's call: deadline the earlier of `timeout_ms` and the run's,
    answers kept as run files when they are files, and each request (each
    page, each retry) signed anew with the credential; an OAuth2 token refused
    with a 401 is renewed and the request sent again."""
    node_deadline = time.monotonic() + timeout_ms / 1000
    return HttpCall(
        method,
        headers,
        body,
        deadline=min(node_deadline, ctx.deadline),
        hops=ctx.hops + 1,
        response_format=response_format,
        keep=lambda answer: kept_answer(answer, ctx),
        fail_on_error=fail_on_error,
        sign=(
            (lambda *request: ctx.send_signed(credential_id, *request))
            if credential_id
            else None
        ),
    )


@contextlib.contextmanager
def outbound_failures(ctx: NodeContext, call: HttpCall, timeout_ms: int):
    """Turn the client's failures inside the block into node errors: a
    timeout is `run_timeout` when the run's deadline was the nearer one,
    `http_timeout` otherwise."""
    try:
        yield
    except outbound.OutboundTimeout as error:
        if call.deadline >= ctx.deadline:
            raise NodeTimeout(
                "run_timeout",
                "The run's time limit "
                f"({settings.RUN_TIMEOUT_SECONDS:g} s) ran out during the request.",
            ) from error
        raise NodeTimeout(
            "http_timeout",
            f"No complete answer within timeout_ms ({timeout_ms} ms).",
        ) from error
    except outbound.OutboundError as error:
        raise NodeError(error.code, error.message) from error
