"""The send_email node: one message through the owner's SMTP credential.

Header values are checked before any message exists: a CR, LF or NUL in the
subject, an address or a display name fails the node (`invalid_header`).
Python's own guards against header injection have been bypassed more than
once (CVE-2024-6923, CVE-2026-1299), so Weir does not rely on them. At most
`MAX_RECIPIENTS` addresses and `MAX_BODY_BYTES` of text and HTML; each owner
may send `EMAIL_NODE_RATE` messages (core/http/ratelimit.py).

The `Message-ID` is derived from the run and node (`ctx.idempotency_key`), so
a node that runs again after a crash (every node runs at least once) sends a
message with the same id, which a mail client or a receiver can spot.
The connection itself (checked address, pinning, TLS) is core/net/smtp.py.

`attachments` is a template giving a run file's marker or a list of them
(docs/engine.md, "Files"): each is attached with its stored name and type,
read from the run's workspace only (a marker naming another workspace's
file fails the node `file_missing`). At most `MAX_ATTACHMENTS` files and
`MAX_ATTACHMENT_BYTES` together (`file_too_large`).
"""

from __future__ import annotations

import hashlib
import json
import time
from email.headerregistry import Address
from email.message import EmailMessage
from email.policy import SMTP
from email.utils import formatdate, getaddresses
from typing import Any

from django.conf import settings

from core.http import ratelimit
from core.net import smtp
from flows.nodes import checks
from flows.nodes.base import (
    FieldError,
    FormField,
    NodeContext,
    NodeError,
    NodeKind,
    NodeTimeout,
)
from flows.nodes.checks import integer_between

ADDRESS_FIELDS = ("to", "cc", "bcc", "reply_to")
TEXT_FIELDS = ("subject", "text", "html")
MAX_RECIPIENTS = 50
MAX_BODY_BYTES = 1024 * 1024
DEFAULT_TIMEOUT_MS = 10_000
MAX_ATTACHMENTS = 20
MAX_ATTACHMENT_BYTES = 25 * 1024 * 1024  # what most mail servers accept
BREAKS = ("\r", "\n", "\x00")


def _has_break(value: str) -> bool:
    return any(character in value for character in BREAKS)


def _addresses(field: str, value: Any) -> list[Address]:
    """A rendered `to`/`cc`/`bcc`/`reply_to` (text with commas, or a list of
    texts) as addresses; NodeError for a line break or a malformed one."""
    if value is None or value == "":
        return []
    items = value if isinstance(value, list) else [value]
    if not all(isinstance(item, str) for item in items):
        raise NodeError("invalid_address", f"{field} must be text or a list of texts.")
    for item in items:
        if _has_break(item):
            raise NodeError(
                "invalid_header", f"{field} holds a line break or NUL character."
            )
    found = []
    for name, addr_spec in getaddresses(items):
        local, at, domain = addr_spec.rpartition("@")
        if not (local and at and domain) or " " in addr_spec:
            raise NodeError(
                "invalid_address", f"{field}: {addr_spec or name!r} is not an address."
            )
        try:
            found.append(Address(display_name=name, addr_spec=addr_spec))
        except (ValueError, IndexError) as error:
            raise NodeError("invalid_address", f"{field}: {error}") from None
    return found


class SendEmailNode(NodeKind):
    type = "send_email"
    label = "Send email"
    description = "Sends an e-mail through an SMTP credential."
    form_fields = (
        FormField(
            "data.credential_id",
            "Mail server",
            widget="credential",
            kinds=("smtp",),
            help="An SMTP credential (host, port, TLS, login, from address); add one "
            "on the Credentials page.",
        ),
        FormField(
            "data.to",
            "To",
            help="Addresses separated by commas, or a template giving a list: "
            "{{ input.emails }}.",
        ),
        FormField("data.cc", "Cc"),
        FormField("data.bcc", "Bcc"),
        FormField("data.reply_to", "Reply to"),
        FormField("data.subject", "Subject", help="Templates allowed."),
        FormField("data.text", "Text", widget="textarea", help="The plain-text body."),
        FormField("data.html", "HTML", widget="textarea", help="Optional HTML body."),
        FormField(
            "data.attachments",
            "Attachments",
            help="A file or a list of files, as a template: {{ results.report.file }}.",
        ),
        FormField("data.timeout_ms", "Timeout (ms)", widget="number", min=1),
    )
    default_data = {
        "credential_id": None,
        "to": "",
        "cc": "",
        "bcc": "",
        "reply_to": "",
        "subject": "",
        "text": "",
        "html": "",
        "attachments": "",
        "timeout_ms": DEFAULT_TIMEOUT_MS,
    }

    def validate_data(self, data: dict) -> list[FieldError]:
        problems = []
        problems += checks.credential_id(data)
        for key in ADDRESS_FIELDS + TEXT_FIELDS:
            value = data.get(key, "")
            if not isinstance(value, str | list | type(None)):
                problems.append(FieldError(f"data.{key}", f"{key} must be text."))
            elif (
                isinstance(value, str)
                and key in (*ADDRESS_FIELDS, "subject")
                and "{{" not in value
                and _has_break(value)
            ):
                problems.append(
                    FieldError(f"data.{key}", "A header holds no line break.")
                )
        if not isinstance(data.get("attachments", ""), str | list | type(None)):
            problems.append(
                FieldError(
                    "data.attachments", "attachments must be a template or a list."
                )
            )
        run_ms = int(settings.RUN_TIMEOUT_SECONDS * 1000)
        problems += integer_between(data, "timeout_ms", 1, run_ms, required=False)
        return problems

    def run(self, data: dict, ctx: NodeContext) -> Any:
        credential, secrets = ctx.credential_of_kind(
            data.get("credential_id"), "smtp", "a mail server", "an SMTP credential"
        )
        values = ctx.render(
            {key: data.get(key) or "" for key in ADDRESS_FIELDS + TEXT_FIELDS}
        )
        message = self.message(values, credential.public, ctx.idempotency_key)
        attach(message, ctx.render(data.get("attachments") or ""), ctx)
        rate = ratelimit.Rate.parse(settings.EMAIL_NODE_RATE)
        if ratelimit.hit(f"email-owner:{ctx.owner_id}", rate) is not None:
            raise NodeError(
                "rate_limited",
                f"This account sent more than {rate.limit} e-mails in "
                f"{rate.window} s (EMAIL_NODE_RATE).",
            )
        timeout = data.get("timeout_ms", DEFAULT_TIMEOUT_MS) / 1000
        deadline = min(ctx.deadline, time.monotonic() + timeout)
        try:
            sent = smtp.send(
                credential.public, secrets.get("password", ""), message, deadline
            )
        except smtp.SmtpError as error:
            if error.code == "smtp_timeout":
                code = "run_timeout" if deadline >= ctx.deadline else "smtp_timeout"
                raise NodeTimeout(code, error.message) from None
            raise NodeError(error.code, error.message) from None
        return {"message_id": message["Message-ID"], **sent}

    def message(self, values: dict, server: dict, key: str) -> EmailMessage:
        """The message, once every header value has passed the checks."""
        addresses = {
            field: _addresses(field, values[field]) for field in ADDRESS_FIELDS
        }
        count = sum(len(addresses[field]) for field in ("to", "cc", "bcc"))
        if count == 0:
            raise NodeError("invalid_address", "The message has no recipient.")
        if count > MAX_RECIPIENTS:
            raise NodeError(
                "too_many_recipients",
                f"{count} recipients; at most {MAX_RECIPIENTS} per message.",
            )
        texts = {}
        for field in TEXT_FIELDS:
            value = values[field]
            texts[field] = value if isinstance(value, str) else json_text(value)
        if _has_break(texts["subject"]):
            raise NodeError("invalid_header", "The subject holds a line break or NUL.")
        if len((texts["text"] + texts["html"]).encode()) > MAX_BODY_BYTES:
            raise NodeError("body_too_large", "The text and HTML are over 1 MiB.")
        sender = server.get("from_address", "")
        domain = sender.rpartition("@")[2] or "weir.invalid"
        message = EmailMessage(policy=SMTP)
        message["From"] = Address(addr_spec=sender)
        for field in ADDRESS_FIELDS:
            if addresses[field]:
                message[field.replace("_", "-").title()] = addresses[field]
        message["Subject"] = texts["subject"]
        message["Date"] = formatdate(usegmt=True)
        digest = hashlib.sha256(key.encode()).hexdigest()[:40]
        message["Message-ID"] = f"<{digest}@{domain}>"
        message.set_content(texts["text"])
        if texts["html"]:
            message.add_alternative(texts["html"], subtype="html")
        return message


def attach(message: EmailMessage, value: Any, ctx: NodeContext) -> None:
    """Attach the run files `value` names (a marker or a list of them)."""
    if value is None or value == "" or value == []:
        return
    if ctx.files is None:
        raise NodeError("file_missing", "Attachments need a run's files.")
    markers = ctx.files.as_file_list(value, "attachments")
    if len(markers) > MAX_ATTACHMENTS:
        raise NodeError(
            "too_many_attachments",
            f"{len(markers)} attachments; at most {MAX_ATTACHMENTS} per message.",
        )
    rows = [ctx.files.find(marker) for marker in markers]
    total = sum(row.size for row in rows)
    if total > MAX_ATTACHMENT_BYTES:
        raise NodeError(
            "file_too_large",
            f"The attachments are {total} bytes together; at most "
            f"{MAX_ATTACHMENT_BYTES} per message.",
        )
    for marker, row in zip(markers, rows, strict=True):
        maintype, _, subtype = row.content_type.split(";", 1)[0].partition("/")
        message.add_attachment(
            ctx.files.open_bytes(marker),
            maintype=maintype,
            subtype=subtype or "octet-stream",
            filename=row.name,
        )


def json_text(value: Any) -> str:
    return "" if value is None else json.dumps(value, ensure_ascii=False)
