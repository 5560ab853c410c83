"""One call of the http_request node: the answer, after any `Retry-After` wait,
or an `http_error` for a 4xx/5xx answer when the node fails on those.

A 429 or 503 answer with a `Retry-After` (seconds or an HTTP date) is asked
again after that wait, at most MAX_RETRY_AFTER_WAITS times, and only when the
wait ends before `deadline` (the earlier of the node's `timeout_ms` and the
run's deadline): a wait that would pass it is not started. The node's own
`retry` policy (flows/graph/retry.py) comes on top, around the whole node.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from core.net import outbound
from core.net.http_body import RawBody
from core.net.http_headers import retry_after_seconds
from core.storable import storable_text
from flows.nodes.base import NodeError

RETRY_AFTER_STATUSES = (429, 503)
MAX_RETRY_AFTER_WAITS = 5
EXCERPT_CHARS = 500  # of the body, stored with the error
MESSAGE_EXCERPT_CHARS = 200  # of the body, in the error's message


@dataclass
class HttpCall:
    """What stays the same for every request a node makes (each page)."""

    method: str
    headers: dict
    body: Any
    deadline: float  # time.monotonic()
    hops: int
    response_format: str = "auto"
    fail_on_error: bool = True  # on_http_error: "fail"
    sleep: Callable[[float], None] = field(default=time.sleep)
    # `sign(url, headers, send)`: the answer of `send` with the node's
    # credential applied (NodeContext.send_signed); None without one.
    sign: Callable | None = None
    # `keep(answer)`: the answer with a body kept as bytes stored as a run
    # file (flows/nodes/http_files.py); only for answers that are the output.
    keep: Callable[[dict], dict] = field(default=lambda answer: answer)

    def answer(self, url: str, headers: dict | None = None) -> dict:
        """`{status, headers, body}` for `url` (with `headers` instead of the
        call's own when given); raises `http_error` as described above."""
        headers = self.headers if headers is None else headers
        waits = 0
        while True:
            if self.sign is None:
                answer = self._send(url, headers)
            else:
                answer = self.sign(url, headers, self._send)
            status = answer["status"]
            wait = None
            if status in RETRY_AFTER_STATUSES and waits < MAX_RETRY_AFTER_WAITS:
                wait = retry_after_seconds(answer["headers"].get("retry-after"))
            if wait is not None:
                if time.monotonic() + wait < self.deadline:
                    self.sleep(wait)
                    waits += 1
                    continue
                if self.fail_on_error:
                    raise http_error(
                        answer,
                        f" It asked to retry after {wait:g} s, past the node's "
                        "deadline (its timeout_ms or the run's time limit).",
                    )
            if status >= 400 and self.fail_on_error:
                raise http_error(answer)
            return self.keep(answer)

    def _send(self, url: str, headers: dict) -> dict:
        return outbound.request(
            self.method,
            url,
            headers,
            self.body,
            self.deadline,
            hops=self.hops,
            response_format=self.response_format,
        )


def http_error(answer: dict, note: str = "") -> NodeError:
    """The node's `http_error` for an error answer: its status and the start
    of its body, in the message and as `status` and `body` beside it."""
    status = answer["status"]
    excerpt = body_excerpt(answer)
    message = f"The server answered HTTP {status}.{note}"
    if excerpt:
        short = excerpt[:MESSAGE_EXCERPT_CHARS]
        message += f" Body: {short}{'…' if len(short) < len(excerpt) else ''}"
    return NodeError("http_error", message, details={"status": status, "body": excerpt})


def body_excerpt(answer: dict) -> str:
    """The body's first EXCERPT_CHARS characters as text ("" for a body the
    node kept as base64 or as a file: its first bytes say nothing to a reader)."""
    body = answer.get("body")
    if (
        answer.get("body_encoding") == "base64"
        or body is None
        or isinstance(body, RawBody)
    ):
        return ""
    if not isinstance(body, str):
        body = json.dumps(body, ensure_ascii=False, separators=(",", ":"))
    excerpt = body[:EXCERPT_CHARS]
    return storable_text(excerpt + ("…" if len(excerpt) < len(body) else ""))
