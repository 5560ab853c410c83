"""A token's text: `weir_pat_` + 30 base62 random + a 6-character checksum.

The format is GitHub's (a type prefix, then randomness, then a CRC32 of what
came before in base62), so secret scanners can recognise a leaked token and a
mistyped one is refused without a database query. Only the SHA-256 digest of
the whole text is stored: the random part is 30 × log2(62) ≈ 178 bits, too
many to guess, so no salt or slow hash is needed (one indexed lookup).
"""

from __future__ import annotations

import hashlib
import re
import secrets
import string
import zlib

ALPHABET = string.digits + string.ascii_uppercase + string.ascii_lowercase
PERSONAL = "weir_pat_"
WORKSPACE = "weir_wst_"
RANDOM_LENGTH = 30
CHECKSUM_LENGTH = 6
# What the tokens page and the audit log show: the type and 4 random characters.
DISPLAY_LENGTH = len(PERSONAL) + 4
SHAPE = re.compile(
    rf"(?:{PERSONAL}|{WORKSPACE})[0-9A-Za-z]{{{RANDOM_LENGTH + CHECKSUM_LENGTH}}}"
)


def base62(number: int, width: int) -> str:
    digits = []
    while number:
        number, digit = divmod(number, 62)
        digits.append(ALPHABET[digit])
    return "".join(reversed(digits)).rjust(width, ALPHABET[0])


def checksum(body: str) -> str:
    return base62(zlib.crc32(body.encode("ascii")), CHECKSUM_LENGTH)


def new_token(prefix: str = PERSONAL) -> str:
    body = prefix + "".join(secrets.choice(ALPHABET) for _ in range(RANDOM_LENGTH))
    return body + checksum(body)


def digest_of(text: str) -> str | None:
    """The stored digest of `text`, or None when it is not a well-formed token
    with a right checksum (then no token can match, and nothing is queried)."""
    if not SHAPE.fullmatch(text):
        return None
    body, check = text[:-CHECKSUM_LENGTH], text[-CHECKSUM_LENGTH:]
    if not secrets.compare_digest(checksum(body), check):
        return None
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def display_prefix(text: str) -> str:
    return text[:DISPLAY_LENGTH]
