"""The signatures GitHub, Stripe and Slack put on deliveries, checked on the raw body.

Each provider signs with HMAC-SHA256 and the secret as plain bytes:
- GitHub: `X-Hub-Signature-256: sha256=<hex of HMAC(body)>`; no timestamp, so
  `X-GitHub-Delivery` (the delivery's id) is what stops a replay running twice.
- Stripe: `Stripe-Signature: t=<unix seconds>,v1=<hex of HMAC("t.body")>`, with
  several `v1` while a secret rolls; refused past 5 minutes, as Stripe's own
  library refuses.
- Slack: `X-Slack-Signature: v0=<hex of HMAC("v0:timestamp:body")>` and
  `X-Slack-Request-Timestamp`; refused past 5 minutes, as Slack's SDK refuses.
Standard Webhooks (webhooks/signatures.py) stays the default scheme.
"""

from __future__ import annotations

import hashlib
import hmac
import time
from collections.abc import Mapping

from webhooks import signatures
from webhooks.signatures import TIMESTAMP, SignatureError

TOLERANCE_SECONDS = 5 * 60


def _hex_hmac(secret: str, message: bytes) -> str:
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()


def _matches(expected: str, candidates: list[str]) -> bool:
    matched = False
    for candidate in candidates:
        # No early exit: the time taken does not tell which candidate matched.
        matched |= hmac.compare_digest(expected.encode(), candidate.encode())
    return matched


def _fresh(timestamp: str, now: float | None, header: str) -> None:
    if not TIMESTAMP.fullmatch(timestamp):
        raise SignatureError(f"{header} must be Unix seconds.")
    now = time.time() if now is None else now
    if abs(now - int(timestamp)) > TOLERANCE_SECONDS:
        raise SignatureError(
            f"{header} is more than 5 minutes away from the server's clock."
        )


def verify_github(secret: str, headers: Mapping[str, str], body: bytes) -> str | None:
    signature = headers.get("x-hub-signature-256", "")
    if not signature.startswith("sha256="):
        raise SignatureError(
            "This webhook requires GitHub's X-Hub-Signature-256 header: set the "
            "webhook's secret in GitHub."
        )
    if not _matches(_hex_hmac(secret, body), [signature.removeprefix("sha256=")]):
        raise SignatureError("X-Hub-Signature-256 does not match the request body.")
    return headers.get("x-github-delivery") or None


def verify_stripe(
    secret: str, headers: Mapping[str, str], body: bytes, *, now: float | None = None
) -> str | None:
    header = headers.get("stripe-signature", "")
    pairs = [item.partition("=") for item in header.split(",")]
    timestamp = next((value for key, _, value in pairs if key.strip() == "t"), "")
    candidates = [value for key, _, value in pairs if key.strip() == "v1"]
    if not (timestamp and candidates):
        raise SignatureError(
            "This webhook requires Stripe's Stripe-Signature header with t= and v1=."
        )
    _fresh(timestamp, now, "Stripe-Signature's t")
    expected = _hex_hmac(secret, timestamp.encode() + b"." + body)
    if not _matches(expected, candidates):
        raise SignatureError("Stripe-Signature does not match the request body.")
    return None  # Stripe's event id is in the body; senders retry with the same


def verify_slack(
    secret: str, headers: Mapping[str, str], body: bytes, *, now: float | None = None
) -> str | None:
    signature = headers.get("x-slack-signature", "")
    timestamp = headers.get("x-slack-request-timestamp", "")
    if not (signature.startswith("v0=") and timestamp):
        raise SignatureError(
            "This webhook requires Slack's X-Slack-Signature and "
            "X-Slack-Request-Timestamp headers."
        )
    _fresh(timestamp, now, "X-Slack-Request-Timestamp")
    expected = "v0=" + _hex_hmac(secret, b"v0:" + timestamp.encode() + b":" + body)
    if not _matches(expected, [signature]):
        raise SignatureError("X-Slack-Signature does not match the request body.")
    return None


def verify(
    scheme: str, secret: str, headers: Mapping[str, str], body: bytes
) -> str | None:
    """Check `body` against the scheme's headers; the delivery's id if the
    scheme carries one. Raises `SignatureError` with a sentence a sender can
    act on."""
    if scheme == "github":
        return verify_github(secret, headers, body)
    if scheme == "stripe":
        return verify_stripe(secret, headers, body)
    if scheme == "slack":
        return verify_slack(secret, headers, body)
    return signatures.verify(secret, headers, body)
