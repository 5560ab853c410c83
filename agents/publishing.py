"""The fields that publish an agent to the public: a hosted chat page
`/c/<slug>` and a widget other sites embed (agents/public/, docs/agents.md,
"Publishing an agent"). Kept apart from agents/models.py as an abstract model
the `Agent` inherits, so the columns are the agent's own."""

from __future__ import annotations

import ipaddress
import re
from urllib.parse import urlsplit

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from core.http import ratelimit

MAX_ORIGINS = 20
# A host as browsers write it in `Origin`: ASCII labels (IDNA for others).
# Anything else (a space, `;`, `,`) would reach the hosted page's
# Content-Security-Policy as more than one source: another directive.
HOST = re.compile(r"^[a-z0-9_-]+(\.[a-z0-9_-]+)*$")


def validate_rate(text: str) -> None:
    """`10/min`, `100/hour`, `5/10s`: what `core.http.ratelimit` reads."""
    try:
        rate = ratelimit.Rate.parse(text)
    except ValueError as exc:
        raise ValidationError(f"{text!r} is not a rate like '10/min'.") from exc
    if rate.limit < 1:
        raise ValidationError("A rate allows at least one message.")


def canonical_origin(text: str) -> str | None:
    """`https://Example.com:8443` as a browser sends it in `Origin`, or None
    when `text` is not an http(s) origin (a path, a wildcard, a query)."""
    try:
        parts = urlsplit(text.strip())
        port = parts.port
    except ValueError:
        return None
    if (
        parts.scheme not in ("http", "https")
        or not parts.hostname
        or parts.path not in ("", "/")
        or parts.query
        or parts.fragment
        or parts.username
        or "*" in text
    ):
        return None
    host = _host(parts.hostname)
    if host is None:
        return None
    default = {"http": 80, "https": 443}[parts.scheme]
    suffix = f":{port}" if port and port != default else ""
    return f"{parts.scheme}://{host}{suffix}"


def _host(hostname: str) -> str | None:
    """`hostname` as a browser sends it (IDNA, lower case, an IPv6 address in
    brackets), or None when it is no host."""
    try:
        return f"[{ipaddress.IPv6Address(hostname)}]"
    except ValueError:
        pass
    try:
        host = hostname.encode("idna").decode("ascii").lower()
    except UnicodeError:
        return None
    return host if HOST.match(host) else None


def validate_origins(value) -> None:
    if not isinstance(value, list) or len(value) > MAX_ORIGINS:
        raise ValidationError(f"Allowed origins are a list of at most {MAX_ORIGINS}.")
    for origin in value:
        if not isinstance(origin, str) or canonical_origin(origin) is None:
            raise ValidationError(
                f"{origin!r} is not an origin like https://www.example.com "
                "(scheme, host and port only; no wildcard)."
            )


def publishing_checked(attrs: dict, agent) -> dict:
    """The API's edit (`attrs` over `agent`, None when new): a published agent
    has a slug, and its origins are spelled as browsers send them."""
    published = attrs.get("published", agent.published if agent else False)
    slug = attrs.get("public_slug", agent.public_slug if agent else None)
    if published and not slug:
        raise ValidationError({"public_slug": ["A published agent needs a slug."]})
    if "public_slug" in attrs and not slug:
        attrs["public_slug"] = None  # blank is no slug (unique, so null)
    if "allowed_origins" in attrs:
        origins = (canonical_origin(origin) for origin in attrs["allowed_origins"])
        attrs["allowed_origins"] = list(dict.fromkeys(origins))
    return attrs


class Publishable(models.Model):
    """Whether and how strangers may chat with the agent, without signing in."""

    published = models.BooleanField(
        default=False,
        help_text="Anyone with the link may chat at /c/<slug>, and the allowed "
        "origins may embed the widget. Unpublished, both are 404.",
    )
    public_slug = models.SlugField(
        max_length=60,
        unique=True,
        null=True,
        blank=True,
        help_text="The public address: /c/<slug>. Required to publish.",
    )
    allowed_origins = models.JSONField(
        default=list,
        blank=True,
        validators=[validate_origins],
        help_text="Sites that may embed the chat (CORS and CSP frame-ancestors), "
        "e.g. https://www.example.com. Empty: the hosted page only.",
    )
    visitor_rate = models.CharField(
        max_length=20,
        default="10/min",
        validators=[validate_rate],
        help_text="Messages one visitor may send, e.g. 10/min.",
    )
    public_rate = models.CharField(
        max_length=20,
        default="60/min",
        validators=[validate_rate],
        help_text="Messages all visitors together may send, e.g. 60/min.",
    )
    visitor_retention_days = models.PositiveIntegerField(
        default=30,
        validators=[MinValueValidator(1), MaxValueValidator(3650)],
        help_text="Visitors' conversations are deleted this many days after "
        "their last message (manage.py prune_visitor_chats).",
    )

    class Meta:
        abstract = True

    def clean_publishing(self) -> None:
        if self.published and not self.public_slug:
            raise ValidationError({"public_slug": "A published agent needs a slug."})

    def origins(self) -> set[str]:
        """The allowed origins as browsers spell them."""
        origins = (canonical_origin(origin) for origin in self.allowed_origins or [])
        return {origin for origin in origins if origin is not None}
