"""Encryption at rest for credential values: Fernet, keys from CREDENTIALS_KEY.

`CREDENTIALS_KEY` is one Fernet key or several separated by commas. The first
encrypts; every one decrypts (MultiFernet), so a key is rotated by putting the
new one first, running `manage.py rotate_credentials_key`, then dropping the
old one (docs/credentials.md).
"""

from __future__ import annotations

import functools
import json

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured


class UndecryptableValue(Exception):
    """No configured key opens this token (a key was dropped before rotation)."""


@functools.lru_cache(maxsize=4)
def _fernet_for(keys: str) -> MultiFernet:
    parts = [key.strip() for key in keys.split(",") if key.strip()]
    if not parts:
        raise ImproperlyConfigured("CREDENTIALS_KEY is empty.")
    try:
        return MultiFernet([Fernet(key) for key in parts])
    except ValueError as error:
        raise ImproperlyConfigured(
            "CREDENTIALS_KEY must be Fernet keys (32 url-safe base64 bytes), "
            "separated by commas."
        ) from error


def fernet() -> MultiFernet:
    """The MultiFernet for the current setting (read per call, cached per value)."""
    return _fernet_for(settings.CREDENTIALS_KEY)


def encrypt(values: dict) -> str:
    """`values` as JSON, encrypted with the first key: a Fernet token (text)."""
    plain = json.dumps(values, separators=(",", ":")).encode()
    return fernet().encrypt(plain).decode("ascii")


def decrypt(token: str) -> dict:
    try:
        plain = fernet().decrypt(token.encode("ascii"))
    except InvalidToken as error:
        raise UndecryptableValue(
            "No key in CREDENTIALS_KEY decrypts this credential."
        ) from error
    return json.loads(plain)


# Columns of other apps encrypted with the same key, as (label, model, field):
# plugged in from their AppConfig.ready() (flows may not import them), so that
# `rotate_credentials_key` re-encrypts them too.
ALSO_ENCRYPTED: list[tuple[str, type, str]] = []


def register_encrypted(label: str, model: type, field: str) -> None:
    ALSO_ENCRYPTED.append((label, model, field))


def rotate(token: str) -> str:
    """The same values, re-encrypted with the first key."""
    try:
        return fernet().rotate(token.encode("ascii")).decode("ascii")
    except InvalidToken as error:
        raise UndecryptableValue(
            "No key in CREDENTIALS_KEY decrypts this credential."
        ) from error
