"""Who acts: the person or program behind a change, as history and audit keep it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.http.client_address import client_address
from core.telemetry import context


@dataclass(frozen=True)
class Actor:
    """The user (None for the system), a label kept after the user is deleted,
    the token they used (once tokens exist), and the request it came with."""

    user: Any = None
    label: str = "system"
    token: Any = None
    address: str = ""
    user_agent: str = ""
    request_id: str = ""

    @classmethod
    def from_request(cls, request) -> Actor:
        user = getattr(request, "user", None)
        signed_in = user is not None and user.is_authenticated
        # A workspace token's service account is no row of the user table.
        person = user if signed_in and user.pk is not None else None
        return cls(
            user=person,
            label=user.get_username() if signed_in else "anonymous",
            token=getattr(request, "auth", None) or None,
            address=client_address(request),
            user_agent=request.META.get("HTTP_USER_AGENT", "")[:300],
            request_id=context.current().get("request_id", ""),
        )

    @classmethod
    def system(cls, label: str = "system") -> Actor:
        """A change nobody made through a request: a command, a migration."""
        return cls(label=label, request_id=context.current().get("request_id", ""))
