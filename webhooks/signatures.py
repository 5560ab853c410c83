"""Standard Webhooks signatures: generate secrets, sign payloads, verify requests.

The scheme (https://www.standardwebhooks.com/) in short: the sender signs
`"{webhook-id}.{webhook-timestamp}.{raw body}"` with HMAC-SHA256 using the
base64-decoded part of a `whsec_...` secret, and sends
`webhook-signature: v1,<base64 digest>` (several space-separated signatures
are allowed, so a sender can sign with an old and a new secret while rotating).
The timestamp bounds how long a captured request can be replayed; the id lets
the receiver refuse the same delivery twice inside that window.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import re
import secrets
import time
from collections.abc import Mapping

SECRET_PREFIX = "whsec_"
SIGNATURE_VERSION = "v1"
TOLERANCE_SECONDS = 5 * 60
SECRET_BYTES = 32
# Ids are echoed into cache keys and logs; a sender's ids are short opaque strings.
MAX_ID_LENGTH = 256

# Unix seconds as plain ASCII digits: the header's text is what gets signed, so
# forms int() would also accept ("+17", "1_700", " 17") are refused, not normalised.
TIMESTAMP = re.compile(r"[0-9]{1,15}")

ID_HEADER = "webhook-id"
TIMESTAMP_HEADER = "webhook-timestamp"
SIGNATURE_HEADER = "webhook-signature"


class SignatureError(Exception):
    """The request's signature headers do not prove it came from the secret's holder."""


def generate_secret() -> str:
    """A fresh `whsec_` secret holding 32 random bytes."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode()


def is_standard_secret(secret: str) -> bool:
    """Whether `secret` is `whsec_` and base64 (of at least 16 bytes)."""
    if not secret.startswith(SECRET_PREFIX):
        return False
    try:
        return len(_key(secret)) >= 16
    except (binascii.Error, ValueError):
        return False


def _key(secret: str) -> bytes:
    return base64.b64decode(secret.removeprefix(SECRET_PREFIX), validate=True)


def sign(secret: str, msg_id: str, timestamp: int | str, body: bytes) -> str:
    """The `webhook-signature` value a sender computes: `v1,<base64 HMAC-SHA256>`."""
    signed = f"{msg_id}.{timestamp}.".encode() + body
    digest = hmac.new(_key(secret), signed, hashlib.sha256).digest()
    return f"{SIGNATURE_VERSION},{base64.b64encode(digest).decode()}"


def signed_headers(
    secret: str, body: bytes, *, msg_id: str | None = None, timestamp: int | None = None
) -> dict[str, str]:
    """All three headers for `body`, as a sender (a test, the benchmark) sends them."""
    msg_id = msg_id or f"msg_{secrets.token_hex(12)}"
    timestamp = int(time.time()) if timestamp is None else timestamp
    return {
        ID_HEADER: msg_id,
        TIMESTAMP_HEADER: str(timestamp),
        SIGNATURE_HEADER: sign(secret, msg_id, timestamp, body),
    }


def verify(
    secret: str, headers: Mapping[str, str], body: bytes, *, now: float | None = None
) -> str:
    """Check the three headers against `body`; return the webhook-id.

    Raises `SignatureError` with a sentence a sender can act on. The timestamp is
    checked before the HMAC so a stale capture is refused even with a good
    signature; every candidate signature is compared in constant time.
    """
    msg_id = headers.get(ID_HEADER, "")
    timestamp_text = headers.get(TIMESTAMP_HEADER, "")
    signatures = headers.get(SIGNATURE_HEADER, "")
    if not (msg_id and timestamp_text and signatures):
        raise SignatureError(
            "This webhook requires a signature: send the webhook-id, "
            "webhook-timestamp and webhook-signature headers."
        )
    if len(msg_id) > MAX_ID_LENGTH:
        raise SignatureError(f"webhook-id is longer than {MAX_ID_LENGTH} characters.")
    if not TIMESTAMP.fullmatch(timestamp_text):
        raise SignatureError("webhook-timestamp must be Unix seconds.")
    now = time.time() if now is None else now
    if abs(now - int(timestamp_text)) > TOLERANCE_SECONDS:
        raise SignatureError(
            "webhook-timestamp is more than 5 minutes away from the server's clock."
        )
    try:
        expected = sign(secret, msg_id, timestamp_text, body).encode()
    except (binascii.Error, ValueError):
        raise SignatureError("The flow's signing secret is unusable.") from None
    matched = False
    for candidate in signatures.split():
        # No early exit: the time taken does not tell which candidate matched.
        matched |= hmac.compare_digest(expected, candidate.encode())
    if not matched:
        raise SignatureError("webhook-signature does not match the request body.")
    return msg_id
