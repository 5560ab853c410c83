"""Log lines: JSON in production, human lines with DEBUG, secrets scrubbed.

The standard library's logging with a small JSON formatter, not structlog
(docs/decisions.md, "Logs"): every library already logs through `logging`, and
one formatter and one filter put all of it in one shape with no new dependency.

`ContextFilter` copies the request id and the run, flow and node ids
(`core.telemetry.context`) onto each record. Both formatters write only the
message, the logger, the level, the time, those ids and a traceback: never a
record's other attributes (Django's `django.request` lines carry the whole
request object, headers and all). The message and traceback are scrubbed of
webhook secrets, signatures and `key=value` credentials as a last guard.

Before that, every record made while a run or a chat turn works is redacted
as it is made, with the values that work opened (`core.redact.redacting`):
`logging_config` installs `redacting_record` as the record factory, so every
handler (the console, pytest's `caplog`, any other) gets the redacted text.
"""

from __future__ import annotations

import json
import logging
import re
import traceback
from datetime import UTC, datetime

from core import redact
from core.telemetry import context

REDACTED = "[redacted]"


def logging_config(log_format: str, level: str) -> dict:
    """Django's LOGGING: every line through one handler, in `log_format`
    ("json" or "human"), with the context filter; log records are redacted
    as they are made (`redacting_record`)."""
    install_redacting_records()
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"context": {"()": "core.telemetry.logs.ContextFilter"}},
        "formatters": {
            "json": {"()": "core.telemetry.logs.JsonFormatter"},
            "human": {"()": "core.telemetry.logs.HumanFormatter"},
        },
        "handlers": {
            "console": {
                "class": "logging.StreamHandler",
                "filters": ["context"],
                "formatter": log_format,
            }
        },
        "root": {"handlers": ["console"], "level": level},
        # The MCP SDK logs each stateless exchange's start and end at INFO (three
        # lines per /api/mcp request), and its HTTP client each request: noise.
        "loggers": {
            "mcp": {"level": "WARNING"},
            "httpx2": {"level": "WARNING"},
        },
    }


# What a secret looks like inside free text. Each pattern keeps its prefix so a
# reader still sees that something was there.
SECRET_PATTERNS = [
    # Standard Webhooks secrets and signatures.
    (re.compile(r"whsec_[A-Za-z0-9+/=]+"), "whsec_" + REDACTED),
    (re.compile(r"\bv1,[A-Za-z0-9+/]{16,}={0,2}"), "v1," + REDACTED),
    # Bearer tokens and API keys in headers or URLs.
    (re.compile(r"(?i)\b(bearer)\s+[A-Za-z0-9._~+/=-]+"), r"\1 " + REDACTED),
    (re.compile(r"\bsk-[A-Za-z0-9_-]{8,}"), "sk-" + REDACTED),
    # Weir's own API tokens (accounts/tokens/text.py; telemetry imports
    # no app, and a test makes real tokens to keep the two in step).
    (re.compile(r"\bweir_(?:pat|wst)_[0-9A-Za-z]{36}"), "weir_" + REDACTED),
    # key=value or "key": "value" where the key names a credential.
    (
        re.compile(
            r"(?i)((?:password|passwd|secret|token|api[_-]?key|authorization|"
            r"signature|credential)s?[\"']?\s*[:=]\s*[\"']?)([^\s\"',;}]+)"
        ),
        r"\1" + REDACTED,
    ),
    # user:password@ in a URL (a DATABASE_URL or REDIS_URL in an error message).
    (re.compile(r"(://[^/\s:@]*:)[^/\s@]+@"), r"\1" + REDACTED + "@"),
]


def scrub(text: str) -> str:
    for pattern, replacement in SECRET_PATTERNS:
        text = pattern.sub(replacement, text)
    return text


_plain_record = logging.getLogRecordFactory()


def redacting_record(*args, **kwargs) -> logging.LogRecord:
    """A log record whose message and traceback went through the redactors
    of the work under way (`core.redact.redacting`), if any: the values a
    run or chat turn opened never reach a handler."""
    record = _plain_record(*args, **kwargs)
    if not redact.any_active():
        return record
    record.msg, record.args = redact.redact_for_logs(record.getMessage()), ()
    if record.exc_info and record.exc_info[0] is not None:
        text = "".join(traceback.format_exception(*record.exc_info)).rstrip("\n")
        record.exc_text = redact.redact_for_logs(text)
    return record


def install_redacting_records() -> None:
    if logging.getLogRecordFactory() is not redacting_record:
        logging.setLogRecordFactory(redacting_record)


class ContextFilter(logging.Filter):
    """Adds the ids of `core.telemetry.context` to every record that passes."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.context = context.current()
        return True


def _context_of(record: logging.LogRecord) -> dict:
    return getattr(record, "context", None) or context.current()


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, ids, traceback,
    and an audit line's `event` (the only record attribute passed through: it
    is built by the audit log from fields that never hold a secret)."""

    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(
                timespec="milliseconds"
            ),
            "level": record.levelname,
            "logger": record.name,
            "message": scrub(record.getMessage()),
            **_context_of(record),
        }
        if isinstance(event := getattr(record, "event", None), dict):
            entry["event"] = event  # an audit event (accounts/audit/record.py)
        if record.exc_info:
            text = record.exc_text or self.formatException(record.exc_info)
            entry["exception"] = scrub(text)
        return json.dumps(entry, ensure_ascii=False, default=str)


class HumanFormatter(logging.Formatter):
    """`time level logger: message [request_id=... run_id=...]` for DEBUG."""

    def __init__(self):
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        line = scrub(super().format(record))
        ids = " ".join(f"{name}={value}" for name, value in _context_of(record).items())
        if not ids:
            return line
        first, newline, rest = line.partition("\n")  # ids before any traceback
        return f"{first} [{ids}]{newline}{rest}"
