"""What a webhook request may be (DESIGN section 7; docs/webhooks.md)."""

from __future__ import annotations


def read(env) -> dict:
    return {
        "WEBHOOK_MAX_BODY_BYTES": env.int(
            "WEBHOOK_MAX_BODY_BYTES", default=1024 * 1024
        ),
        "WEBHOOK_RATE_LIMIT": env("WEBHOOK_RATE_LIMIT", default="600/min"),
        # Values (object members and array elements, at any depth) in one body.
        "WEBHOOK_MAX_BODY_VALUES": env.int("WEBHOOK_MAX_BODY_VALUES", default=10_000),
        # Requests for unknown webhooks (404) per client address before 429.
        "WEBHOOK_MISS_RATE": env("WEBHOOK_MISS_RATE", default="60/min"),
        # Longest chain of webhook runs started by flows' http_request nodes
        # (each call carries `Weir-Hops`); deeper is 508 `loop_detected`.
        "WEBHOOK_MAX_HOPS": env.int("WEBHOOK_MAX_HOPS", default=8),
        # Each web process keeps the flows its webhooks use, dropped by
        # PostgreSQL's NOTIFY when they change (flows/engine/webhook_cache.py);
        # off, every webhook reads its flow.
        "WEBHOOK_TARGET_CACHE": env.bool("WEBHOOK_TARGET_CACHE", default=True),
        # Form pages (docs/forms.md): submissions per client address and
        # form, and the largest submission, files included.
        "FORM_RATE_LIMIT": env("FORM_RATE_LIMIT", default="10/min"),
        "FORM_MAX_BODY_BYTES": env.int("FORM_MAX_BODY_BYTES", default=1024 * 1024),
    }
