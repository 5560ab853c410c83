"""Readers for the settings that need more than django-environ's casts: each
refuses a malformed value at start-up with a message naming the variable."""

from __future__ import annotations

import base64
import hashlib
import ipaddress
import re

from django.core.exceptions import ImproperlyConfigured


def count(env, name: str, default: int) -> int:
    """A whole number (0 or more) from the environment, or start-up stops."""
    text = env.str(name, default=str(default)).strip()
    if not re.fullmatch(r"[0-9]{1,9}", text):
        raise ImproperlyConfigured(
            f"{name} must be a whole number of 0 or more (0 turns the limit off), "
            f"not {text!r}."
        )
    return int(text)


def share(env, name: str, default: float) -> float:
    """A fraction above 0 and at most 1 from the environment, or start-up stops."""
    text = env.str(name, default=str(default)).strip()
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value <= 1:
        raise ImproperlyConfigured(
            f"{name} must be a number above 0 and at most 1 (0.25 is a quarter), "
            f"not {text!r}."
        )
    return value


def derived_int(env, name: str, default: int) -> int:
    """An integer setting whose default follows another; empty means the default."""
    return env.int(name) if env.str(name, default="") else default


def networks(env, name: str) -> list:
    """IP addresses and CIDR ranges, comma-separated."""
    found = []
    for item in env.list(name, default=[]):
        try:
            found.append(ipaddress.ip_network(item.strip(), strict=False))
        except ValueError:
            raise ImproperlyConfigured(
                f"{name} holds {item!r}, which is not an IP address or CIDR range."
            ) from None
    return found


def fernet_key_from(secret: str) -> str:
    """A Fernet key derived from SECRET_KEY: DEBUG's and the tests' stand-in for
    CREDENTIALS_KEY, which production must set itself."""
    return base64.urlsafe_b64encode(hashlib.sha256(secret.encode()).digest()).decode()


# The roles OIDC_GROUP_ROLES may grant: owners are made by people, never by
# a group (accounts/workspaces/roles.py has the full list).
GROUP_ROLES = ("viewer", "runner", "editor", "admin")


def group_roles(env, name: str) -> list[tuple[str, str, str]]:
    """`group:workspace:role` entries, comma-separated, as (group, workspace,
    role); the workspace is a name or a slug."""
    found = []
    for item in env.list(name, default=[]):
        parts = [part.strip() for part in item.split(":")]
        if len(parts) != 3 or not all(parts):
            raise ImproperlyConfigured(
                f"{name} holds {item!r}: each entry is group:workspace:role "
                "(weir-ops:Ops:editor)."
            )
        if parts[2] not in GROUP_ROLES:
            raise ImproperlyConfigured(
                f"{name} holds {item!r}: the role must be one of "
                f"{', '.join(GROUP_ROLES)}."
            )
        found.append(tuple(parts))
    return found
