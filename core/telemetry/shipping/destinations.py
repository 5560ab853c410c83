"""Where shipped lines go: a syslog server (RFC 5424 over UDP or TCP) or an
HTTP endpoint (a POST of JSON lines). `send(entries)` delivers a whole batch
or raises `OSError`; the shipper retries it."""

from __future__ import annotations

import os
import socket
import urllib.request
from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import urlsplit

# RFC 5424 severities by logging level (WARNING 4, ERROR 3, CRITICAL 2).
SEVERITIES = {10: 7, 20: 6, 30: 4, 40: 3, 50: 2}
SYSLOG_PORT = 514


@dataclass(frozen=True)
class Entry:
    """One shipped line: its JSON text, and what a syslog header needs."""

    line: str
    created: float
    level: int
    kind: str  # the syslog MSGID: `audit` or `run`


class Syslog:
    """RFC 5424 messages, `<PRI>1 TIME HOST weir PID MSGID - JSON`: one
    datagram each over UDP; over TCP octet-counted (RFC 6587, `LEN SP MSG`)
    on one connection kept open between batches."""

    def __init__(self, url: str, *, facility: int = 16, timeout: float = 5.0):
        parts = urlsplit(url)
        if parts.scheme not in ("udp", "tcp") or not parts.hostname:
            raise ValueError(
                f"A syslog URL is udp://host:port or tcp://host:port: {url!r}"
            )
        self.transport = parts.scheme
        self.address = (parts.hostname, parts.port or SYSLOG_PORT)
        self.facility = facility
        self.timeout = timeout
        self.hostname = socket.gethostname() or "-"
        self.name = f"syslog+{parts.scheme}"
        self._stream: socket.socket | None = None

    def message(self, entry: Entry) -> bytes:
        priority = self.facility * 8 + SEVERITIES.get(entry.level, 6)
        stamp = datetime.fromtimestamp(entry.created, UTC).isoformat(
            timespec="milliseconds"
        )
        header = (
            f"<{priority}>1 {stamp} {self.hostname} weir {os.getpid()} {entry.kind} -"
        )
        return f"{header} {entry.line}".encode()

    def send(self, entries: list[Entry]) -> None:
        messages = [self.message(entry) for entry in entries]
        if self.transport == "udp":
            with socket.socket(self._family(), socket.SOCK_DGRAM) as sock:
                for message in messages:
                    sock.sendto(message, self.address)
            return
        framed = b"".join(b"%d %s" % (len(m), m) for m in messages)
        try:
            if self._stream is None:
                self._stream = socket.create_connection(self.address, self.timeout)
            self._stream.sendall(framed)
        except OSError:
            self.close()
            raise

    def _family(self) -> int:
        return socket.getaddrinfo(*self.address, type=socket.SOCK_DGRAM)[0][0]

    def close(self) -> None:
        if self._stream is not None:
            self._stream.close()
            self._stream = None


class HttpLines:
    """One POST per batch, `Content-Type: application/x-ndjson`, a JSON object
    a line; any answer but 2xx (or no answer within `timeout`) is a failure."""

    def __init__(self, url: str, *, authorization: str = "", timeout: float = 5.0):
        if urlsplit(url).scheme not in ("http", "https"):
            raise ValueError(f"The log stream's HTTP URL is http(s)://...: {url!r}")
        self.url = url
        self.authorization = authorization
        self.timeout = timeout
        self.name = "http"

    def send(self, entries: list[Entry]) -> None:
        body = "".join(entry.line + "\n" for entry in entries).encode()
        headers = {"Content-Type": "application/x-ndjson"}
        if self.authorization:
            headers["Authorization"] = self.authorization
        request = urllib.request.Request(self.url, body, headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as answer:
                answer.read()
        except (OSError, ValueError) as failed:  # URLError, HTTPError, timeouts
            raise OSError(f"POST {self.url}: {failed}") from failed

    def close(self) -> None:
        pass
