"""SMTP to a checked, pinned address, bounded by a deadline (the send_email node).

Standard library only. The server's name is resolved and checked once by
`outbound.checked_address` (the HTTP node's SSRF wall and allowlist); the
connection goes to that address while TLS verifies the certificate for the
name, so a second DNS answer cannot swap in another server. Every socket
operation may only wait until the deadline (`outbound.DeadlineSocket`), so a
server that drips one byte at a time cannot stretch the send.

STARTTLS and implicit TLS verify certificates with the system's trust store
(`ssl.create_default_context()`; smtplib's own default verifies nothing).
Without TLS the password would cross in the clear, so `security: none` is only
allowed for an allowlisted server (a relay on the same host or network).

The greeting (EHLO) names the site as the world knows it, `BASE_URL`'s host:
smtplib's own default is the host's name from `socket.getfqdn()`, or its
address, which told any server a credential names how the host is known inside.
"""

from __future__ import annotations

import contextlib
import ipaddress
import smtplib
import socket
import ssl
import time
from email.message import EmailMessage
from urllib.parse import urlsplit

from django.conf import settings

from core.net import outbound
from core.net.outbound import DeadlineSocket, OutboundError, remaining


class SmtpError(Exception):
    """The send failed; `code` is what the node reports."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code, self.message = code, message


def greeting_name() -> str:
    """The name Weir gives in EHLO: BASE_URL's host, else `localhost`."""
    return urlsplit(getattr(settings, "BASE_URL", "") or "").hostname or "localhost"


class PinnedSMTP(smtplib.SMTP):
    """Dials the checked address; `_host` (the name) stays for STARTTLS."""

    def __init__(self, host: str, port: int, address: str, deadline: float):
        self.address, self.deadline = address, deadline
        super().__init__(timeout=remaining(deadline), local_hostname=greeting_name())
        self._host = host
        self.connect(host, port)

    def _get_socket(self, host, port, timeout):
        sock = socket.create_connection((self.address, port), remaining(self.deadline))
        return DeadlineSocket(sock, self.deadline)

    def starttls(self, **kwargs):
        # STARTTLS wraps the real socket; the deadline goes on around it.
        self.sock = self.sock._sock
        answer = super().starttls(context=ssl.create_default_context())
        self.sock = DeadlineSocket(self.sock, self.deadline)
        self.file = None
        return answer


class PinnedSMTPSSL(PinnedSMTP):
    """Implicit TLS (port 465), verified for the name."""

    def _get_socket(self, host, port, timeout):
        sock = socket.create_connection((self.address, port), remaining(self.deadline))
        sock.settimeout(remaining(self.deadline))
        context = ssl.create_default_context()
        return DeadlineSocket(
            context.wrap_socket(sock, server_hostname=self._host), self.deadline
        )


def send(server: dict, password: str, message: EmailMessage, deadline: float) -> dict:
    """Send `message` through `server` ({host, port, security, username});
    `{accepted, refused}`, or SmtpError."""
    with session(server, password, deadline) as client:
        refused = client.send_message(message)
    recipients = [
        address.addr_spec
        for name in ("To", "Cc", "Bcc")
        for address in getattr(message.get(name), "addresses", ())
    ]
    return {
        "accepted": [r for r in recipients if r not in refused],
        "refused": {
            r: [code, text.decode(errors="replace")]
            for r, (code, text) in refused.items()
        },
    }


def check(server: dict, password: str, deadline: float) -> str:
    """Connect, EHLO, STARTTLS when configured and log in when a username is
    set, as `send` does, then QUIT without sending: what was done, or SmtpError."""
    host, port, security = where(server)
    with session(server, password, deadline) as client:
        client.noop()
    steps = [f"Connected to {host}:{port}"]
    if security != "none":
        steps.append("TLS" if security == "tls" else "STARTTLS")
    if server.get("username"):
        steps.append(f"logged in as {server['username']}")
    return ", ".join(steps) + "."


def where(server: dict) -> tuple[str, int, str]:
    """`server`'s host, port and security, with the defaults filled in."""
    security = server.get("security") or "starttls"
    return (
        server["host"],
        server.get("port") or (465 if security == "tls" else 587),
        security,
    )


@contextlib.contextmanager
def session(server: dict, password: str, deadline: float):
    """A client connected to `server`, greeted, secured and logged in; any
    failure inside (its own or the caller's) becomes an SmtpError."""
    host, port, security = where(server)
    try:
        address = outbound.checked_address(host, port)
    except OutboundError as error:
        raise SmtpError(error.code, error.message) from None
    if security == "none" and not outbound.allowlisted(
        host, ipaddress.ip_address(address)
    ):
        raise SmtpError(
            "tls_required",
            f"{host} is not on HTTP_NODE_ALLOWLIST, so mail to it must use TLS "
            "(security starttls or tls).",
        )
    client_class = PinnedSMTPSSL if security == "tls" else PinnedSMTP
    try:
        with client_class(host, port, address, deadline) as client:
            if security == "starttls":
                client.ehlo()
                client.starttls()
            client.ehlo()
            if server.get("username"):
                client.login(server["username"], password)
            yield client
    except (smtplib.SMTPException, OSError) as error:
        # smtplib reports a read that timed out as a lost connection.
        if isinstance(error, TimeoutError) or time.monotonic() >= deadline:
            raise SmtpError("smtp_timeout", f"{host} did not answer in time.") from None
        _raise_as_node_error(host, port, error)


def _raise_as_node_error(host: str, port: int, error: Exception):
    if isinstance(error, smtplib.SMTPAuthenticationError):
        raise SmtpError(
            "smtp_auth",
            f"{host} refused the login ({error.smtp_code}): check the username "
            "and password.",
        )
    if isinstance(error, smtplib.SMTPRecipientsRefused):
        refused = _refusals(error.recipients)
        raise SmtpError("smtp_refused", f"{host} refused every recipient: {refused}")
    if isinstance(error, smtplib.SMTPNotSupportedError):
        raise SmtpError("tls_required", f"{host} does not offer STARTTLS: {error}.")
    if isinstance(error, ConnectionRefusedError):
        raise SmtpError("smtp_error", f"{host} refused a connection on port {port}.")
    raise SmtpError("smtp_error", f"Talking to {host}:{port} failed: {error}.")


def _refusals(recipients: dict) -> str:
    return ", ".join(f"{address} ({code})" for address, (code, _) in recipients.items())
