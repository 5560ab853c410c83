"""Testing a credential: one harmless use of it, answered as `{ok, message}`.

The same outbound code a run uses does the work, so a test passes exactly
when a node would get through: an HTTP kind signs a GET to a URL the caller
gives (`core.net.outbound`, its SSRF wall and redirect rules included), an
SMTP credential connects, greets, secures and logs in without sending
(`core.net.smtp.check`), a PostgreSQL credential connects and runs `SELECT 1`
(`core.net.postgres.check_connection`). A failure is an answer, not an error:
`ok` false with a sentence a person can act on. An oauth2 credential is
sent with the token a run would send, renewed first when it is about to
expire. No message ever carries a stored secret: every one is passed through
the credential's own redaction forms, since a server or a library may echo
what it was sent.
"""

from __future__ import annotations

import time
from http import HTTPStatus

from core.net import outbound, postgres, smtp
from flows.credentials import kinds
from flows.credentials.models import Credential
from flows.credentials.oauth2 import tokens

# How long one test may take, connecting included: a person is waiting.
TIMEOUT_SECONDS = 10


def probe(credential: Credential, url: str | None = None) -> dict:
    """`{ok, message}` for one use of `credential` (`url`: where an HTTP kind
    sends its GET; the API checks it is there)."""
    secrets = credential.secrets()
    deadline = time.monotonic() + TIMEOUT_SECONDS
    if credential.kind == Credential.Kind.OAUTH2:
        try:  # the token a run would send, renewed as a run would renew it
            secrets = tokens.usable_secrets(credential)
        except tokens.TokenProblem as problem:
            return {"ok": False, "message": problem.message}
    if credential.kind in kinds.http_kinds():
        ok, message = _http(credential, secrets, url, deadline)
    elif credential.kind == Credential.Kind.SMTP:
        ok, message = _smtp(credential, secrets, deadline)
    elif credential.kind == Credential.Kind.POSTGRES:
        ok, message = _postgres(credential, secrets, deadline)
    else:
        ok, message = (
            False,
            f"A {credential.kind} credential holds values that templates and code "
            "read; there is no one way to use it, so Weir cannot test it. Run the "
            "flow that uses it instead.",
        )
    return {"ok": ok, "message": _without_secrets(message, credential, secrets)}


def _http(credential, secrets, url, deadline) -> tuple[bool, str]:
    signed_url, headers = credential.signed(secrets, url, {})
    try:
        answer = outbound.request("GET", signed_url, headers, None, deadline)
    except outbound.OutboundTimeout:
        return False, f"{url} gave no complete answer within {TIMEOUT_SECONDS} s."
    except outbound.OutboundError as error:
        return False, error.message
    status = answer["status"]
    phrase = _phrase(status)
    if 200 <= status < 300:
        return True, f"GET {url} answered {status} {phrase}."
    hint = " (the server refused the credential)" if status in (401, 403) else ""
    return False, f"GET {url} answered {status} {phrase}{hint}."


def _smtp(credential, secrets, deadline) -> tuple[bool, str]:
    try:
        return True, smtp.check(
            credential.public, secrets.get("password", ""), deadline
        )
    except smtp.SmtpError as error:
        return False, error.message


def _postgres(credential, secrets, deadline) -> tuple[bool, str]:
    try:
        return True, postgres.check_connection(
            credential.public, secrets.get("password", ""), deadline
        )
    except postgres.QueryError as error:
        return False, error.message


def _phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return ""


def _without_secrets(message: str, credential: Credential, secrets: dict) -> str:
    """`message` with every form of the credential's values masked, longest
    first so that no part of a longer form is left behind."""
    forms = sorted(credential.redaction_values(secrets), key=len, reverse=True)
    for form in forms:
        message = message.replace(form, f"[redacted:{credential.name}]")
    return message
