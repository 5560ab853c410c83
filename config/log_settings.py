"""Logs: LOG_FORMAT, LOGGING, and log streaming (docs/operations.md, "Log
streaming"): audit events and run outcomes also sent to a syslog server or an
HTTP endpoint. `read` returns LOG_FORMAT, the LOG_STREAM_* settings and
LOGGING, with the shipping handler on the `weir.audit` and `weir.runs`
loggers when a destination is set."""

from __future__ import annotations

from urllib.parse import urlsplit

from django.core.exceptions import ImproperlyConfigured

from core.telemetry import logs

SHIPPED_LOGGERS = ("weir.audit", "weir.runs")


def read(env, debug: bool) -> dict:
    # JSON lines in production, human lines with DEBUG (LOG_FORMAT overrides);
    # every line carries the request id and, inside a run, the run, flow and node.
    log_format = env("LOG_FORMAT", default="human" if debug else "json")
    if log_format not in ("json", "human"):
        raise ImproperlyConfigured(
            f"LOG_FORMAT must be json or human, not {log_format!r}."
        )
    values = {
        "LOG_FORMAT": log_format,
        # udp://host:514 or tcp://host:601 (RFC 5424; TCP octet-counted).
        "LOG_STREAM_SYSLOG_URL": env("LOG_STREAM_SYSLOG_URL", default=""),
        # local0 (16) unless told: the facility of every message.
        "LOG_STREAM_SYSLOG_FACILITY": env.int("LOG_STREAM_SYSLOG_FACILITY", default=16),
        # https://... that takes a POST of JSON lines (application/x-ndjson).
        "LOG_STREAM_HTTP_URL": env("LOG_STREAM_HTTP_URL", default=""),
        # The Authorization header of those POSTs, e.g. `Bearer <token>`.
        "LOG_STREAM_HTTP_AUTHORIZATION": env(
            "LOG_STREAM_HTTP_AUTHORIZATION", default=""
        ),
        # Lines held per destination while it is away; more are dropped (counted).
        "LOG_STREAM_QUEUE": env.int("LOG_STREAM_QUEUE", default=10_000),
        "LOG_STREAM_BATCH": env.int("LOG_STREAM_BATCH", default=200),
        "LOG_STREAM_FLUSH_SECONDS": env.float("LOG_STREAM_FLUSH_SECONDS", default=1.0),
        "LOG_STREAM_TIMEOUT_SECONDS": env.float(
            "LOG_STREAM_TIMEOUT_SECONDS", default=5.0
        ),
        "LOG_STREAM_MAX_BACKOFF_SECONDS": env.float(
            "LOG_STREAM_MAX_BACKOFF_SECONDS", default=30.0
        ),
    }
    check(values)
    logging = logs.logging_config(log_format, env("LOG_LEVEL", default="INFO"))
    if values["LOG_STREAM_SYSLOG_URL"] or values["LOG_STREAM_HTTP_URL"]:
        logging["handlers"]["log_stream"] = handler_entry(values)
        for name in SHIPPED_LOGGERS:
            logging["loggers"][name] = {"handlers": ["log_stream"], "level": "INFO"}
    return {**values, "LOGGING": logging}


def check(values: dict) -> None:
    """Refuse at start-up what the shipper could never use."""
    syslog = urlsplit(values["LOG_STREAM_SYSLOG_URL"])
    if syslog.geturl() and (syslog.scheme not in ("udp", "tcp") or not syslog.hostname):
        raise ImproperlyConfigured(
            "LOG_STREAM_SYSLOG_URL is udp://host:port or tcp://host:port."
        )
    http = urlsplit(values["LOG_STREAM_HTTP_URL"])
    if http.geturl() and (http.scheme not in ("http", "https") or not http.hostname):
        raise ImproperlyConfigured("LOG_STREAM_HTTP_URL is http(s)://host/path.")
    if values["LOG_STREAM_QUEUE"] < 1 or values["LOG_STREAM_BATCH"] < 1:
        raise ImproperlyConfigured("LOG_STREAM_QUEUE and LOG_STREAM_BATCH are >= 1.")


def handler_entry(values: dict) -> dict:
    """LOGGING's entry for `core.telemetry.shipping.handler.ShippingHandler`."""
    return {
        "()": "core.telemetry.shipping.handler.ShippingHandler",
        "syslog_url": values["LOG_STREAM_SYSLOG_URL"],
        "syslog_facility": values["LOG_STREAM_SYSLOG_FACILITY"],
        "http_url": values["LOG_STREAM_HTTP_URL"],
        "http_authorization": values["LOG_STREAM_HTTP_AUTHORIZATION"],
        "timeout": values["LOG_STREAM_TIMEOUT_SECONDS"],
        "capacity": values["LOG_STREAM_QUEUE"],
        "batch_size": values["LOG_STREAM_BATCH"],
        "flush_seconds": values["LOG_STREAM_FLUSH_SECONDS"],
        "max_backoff": values["LOG_STREAM_MAX_BACKOFF_SECONDS"],
    }
