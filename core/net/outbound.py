"""Outbound HTTP for flows: one request, guarded against SSRF.

Every hop (the first request and each redirect, which we follow ourselves) has
its host resolved and every resolved address checked; the connection then goes
to the checked address, so a second DNS answer cannot swap in another one
(DNS rebinding). Loopback, private, link-local (cloud metadata lives there),
unspecified, multicast and other non-public addresses are refused unless
`HTTP_NODE_ALLOWLIST` names the host, the address or a network containing it.

A redirect to another origin carries no credentials and no body (see
`redirected`). Every socket operation waits only until `deadline` (see
`DeadlineSocket`), so a server trickling bytes cannot hold the caller past it.
Failures are `OutboundError`s whose `code` is what users see in a run's error;
running out of time is `OutboundTimeout`.
"""

from __future__ import annotations

import http.client
import io
import ipaddress
import json
import socket
import ssl
import time
from typing import Any
from urllib.parse import urljoin, urlsplit

from django.conf import settings

from core.net import allowlist
from core.net.http_body import BodyError, decode_body

MAX_REDIRECTS = 5
REDIRECTS = (301, 302, 303, 307, 308)
# Headers that describe a body; dropped when a redirect turns the request into a GET.
BODY_HEADERS = frozenset(
    {"content-type", "content-encoding", "content-language", "content-location"}
)
# The only headers sent on to another origin: any other one (Authorization,
# Cookie, an X-Api-Key the caller cannot know is secret) may be a credential.
CROSS_ORIGIN_HEADERS = frozenset(
    {"user-agent", "accept", "accept-language", "weir-hops"}
)
# How many webhook runs led to this request (see webhooks.limits.check_hops).
HOPS_HEADER = "Weir-Hops"
USER_AGENT = "Weir-flows/1.0 (http_request node)"
# IPv6 is public only inside global unicast 2000::/3 (this leaves out ::/96
# IPv4-compatible, ::ffff:0:0/96 IPv4-mapped, ::ffff:0:0:0/96, NAT64, ULA,
# link-local, deprecated site-local fec0::/10 and multicast) and outside these
# prefixes, which embed an IPv4 address (6to4, Teredo) or are documentation.
IPV6_GLOBAL_UNICAST = ipaddress.ip_network("2000::/3")
IPV6_REFUSED = tuple(
    ipaddress.ip_network(prefix)
    for prefix in ("2002::/16", "2001::/32", "2001:db8::/32", "3fff::/20")
)


class OutboundError(Exception):
    """An outbound request failed; `code` names why (`address_refused`, ...)."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


class OutboundTimeout(OutboundError):
    """The deadline passed before a complete answer arrived."""

    def __init__(self):
        super().__init__("timeout", "No complete answer before the deadline.")


def request(
    method: str,
    url: str,
    headers: dict,
    body: Any,
    deadline: float,
    *,
    hops: int = 1,
    response_format: str = "auto",
    max_bytes: int | None = None,
) -> dict:
    """`{status, headers, body}` of one request, redirects followed and checked.
    The answer's body is read as `response_format` says (core/net/http_body.py):
    a file's is a `RawBody` for the caller to store.
    `body` is sent as is when it is bytes or text, as JSON otherwise (None: no body);
    `headers` gain a User-Agent and, for a JSON body, a Content-Type unless
    they name their own. `deadline` is a `time.monotonic()` value. `hops`
    goes out as `Weir-Hops` whatever `headers` say, so a flow cannot hide a
    loop through its own webhook (or another's) by setting the header itself.
    `max_bytes` caps the body instead of HTTP_NODE_MAX_RESPONSE_BYTES.
    """
    headers = {k: v for k, v in headers.items() if k.lower() != HOPS_HEADER.lower()}
    headers[HOPS_HEADER] = str(hops)
    if not any(name.lower() == "user-agent" for name in headers):
        headers["User-Agent"] = USER_AGENT
    encoded = _encode_body(body, headers)
    try:
        fetched = (method, url, headers, encoded, deadline, response_format)
        return _fetch(*fetched, max_bytes)
    except TimeoutError as error:
        raise OutboundTimeout() from error
    except ssl.SSLError as error:
        raise OutboundError("http_error", f"TLS failed: {error}") from error
    except (OSError, http.client.HTTPException, ValueError) as error:
        raise OutboundError("http_error", f"The request failed: {error}") from error


def is_http_url(url: str) -> bool:
    parts = urlsplit(url)
    return parts.scheme in ("http", "https") and bool(parts.hostname)


def _encode_body(body: Any, headers: dict) -> bytes | None:
    """`body` as bytes; a JSON body sets Content-Type unless `headers` have one."""
    if body is None or isinstance(body, bytes):
        return body
    if isinstance(body, str):
        return body.encode()
    if not any(name.lower() == "content-type" for name in headers):
        headers["Content-Type"] = "application/json"
    return json.dumps(body, separators=(",", ":")).encode()


def _fetch(
    method: str,
    url: str,
    headers: dict,
    body: bytes | None,
    deadline: float,
    response_format: str,
    max_bytes: int | None = None,
):
    """Do the request, following redirects ourselves with every hop re-checked."""
    for _ in range(MAX_REDIRECTS + 1):
        response, raw = _one_hop(method, url, headers, body, deadline, max_bytes)
        location = response.getheader("Location")
        if response.status in REDIRECTS and location:
            target = urljoin(url, location)
            if not is_http_url(target):
                raise OutboundError("invalid_url", "A redirect left http(s).")
            method, headers, body = redirected(
                response.status,
                method,
                headers,
                body,
                cross_origin=_origin(target) != _origin(url),
            )
            url = target
            continue
        try:
            body = decode_body(
                raw,
                response.getheader("Content-Type", ""),
                response_format,
                disposition=response.getheader("Content-Disposition", ""),
                url=url,
            )
        except BodyError as error:
            raise OutboundError(error.code, str(error)) from None
        return {"status": response.status, "headers": _headers(response), **body}
    raise OutboundError("too_many_redirects", f"More than {MAX_REDIRECTS} redirects.")


def redirected(
    status: int, method: str, headers: dict, body: bytes | None, *, cross_origin: bool
) -> tuple[str, dict, bytes | None]:
    """The method, headers and body to follow a redirect with.

    As browsers do (the Fetch standard): 303 turns anything but GET and HEAD
    into a GET without a body, and so do 301 and 302 for a POST; other
    redirects keep the method and the body. Towards another origin (scheme,
    host or port differ) only harmless headers go along, and a body is never
    re-sent there: the request fails with `redirect_refused` instead.
    """
    if (status == 303 and method not in ("GET", "HEAD")) or (
        status in (301, 302) and method == "POST"
    ):
        method, body = "GET", None
        headers = {k: v for k, v in headers.items() if k.lower() not in BODY_HEADERS}
    if cross_origin:
        if body:
            raise OutboundError(
                "redirect_refused",
                f"A {status} redirect would re-send the {method} body to another "
                "origin; the node does not follow it.",
            )
        headers = {
            k: v for k, v in headers.items() if k.lower() in CROSS_ORIGIN_HEADERS
        }
    return method, headers, body


def _origin(url: str) -> tuple[str, str, int]:
    parts = urlsplit(url)
    default_port = 443 if parts.scheme == "https" else 80
    return parts.scheme, parts.hostname.rstrip("."), parts.port or default_port


def _one_hop(method, url, headers, body, deadline, max_bytes=None):
    parts = urlsplit(url)
    host = parts.hostname
    port = parts.port or (443 if parts.scheme == "https" else 80)
    address = checked_address(host, port)
    connection_class = (
        PinnedHTTPSConnection if parts.scheme == "https" else PinnedHTTPConnection
    )
    connection = connection_class(host, port, address, deadline)
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    try:
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        with response:  # a half-read body must not keep the socket open
            raw = _read_capped(response, max_bytes)
    finally:
        connection.close()
    return response, raw


def _read_capped(response, max_bytes: int | None = None) -> bytes:
    limit = max_bytes or settings.HTTP_NODE_MAX_RESPONSE_BYTES
    chunks, size = [], 0
    while chunk := response.read1(64 * 1024):
        size += len(chunk)
        if size > limit:
            raise OutboundError(
                "response_too_large",
                f"The response body is over {limit} bytes; the node reads no more.",
            )
        chunks.append(chunk)
    return b"".join(chunks)


def _headers(response) -> dict[str, str]:
    headers: dict[str, str] = {}
    for name, value in response.getheaders():
        key = name.lower()
        headers[key] = f"{headers[key]}, {value}" if key in headers else value
    return headers


# Address checks ------------------------------------------------------------


def is_public(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """True only for globally routable unicast addresses.

    Every IPv6 form that embeds an IPv4 address (mapped, compatible, NAT64,
    6to4, Teredo) is refused outright, even when the IPv4 address is public: a
    public name has no reason to resolve to one, and checking each embedding
    rule is easier to get wrong than refusing them all.
    """
    if isinstance(address, ipaddress.IPv6Address):
        if address not in IPV6_GLOBAL_UNICAST:
            return False
        if any(address in network for network in IPV6_REFUSED):
            return False
    return address.is_global and not address.is_multicast


def allowlisted(host: str, address) -> bool:
    for entry in allowlist.entries():
        try:
            if address in ipaddress.ip_network(entry, strict=False):
                return True
        except ValueError:
            if entry == host.lower().rstrip("."):
                return True
    return False


def checked_address(host: str, port: int) -> str:
    """The address to connect to; OutboundError when any resolved address is refused."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as error:
        raise OutboundError(
            "dns_error", f"Cannot resolve {host!r}: {error}."
        ) from error
    addresses = []
    for info in infos:
        address = ipaddress.ip_address(info[4][0].split("%")[0])
        if not is_public(address) and not allowlisted(host, address):
            raise OutboundError(
                "address_refused",
                # Not what it resolved to: that would map internal names
                # for a flow's author, one refused request at a time.
                f"{host} is refused: it is not a public address (an operator "
                "may allow it in the admin or with HTTP_NODE_ALLOWLIST).",
            )
        addresses.append(str(address))
    if not addresses:
        raise OutboundError("dns_error", f"Cannot resolve {host!r}.")
    return addresses[0]


# Time ------------------------------------------------------------------------


def remaining(deadline: float) -> float:
    """Seconds left until `deadline`; TimeoutError once it has passed."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError
    return left


class DeadlineReader(io.RawIOBase):
    """A socket's reading side where no single receive waits past `deadline`."""

    def __init__(self, sock: socket.socket, deadline: float):
        super().__init__()
        self.sock = sock
        self.stream = sock.makefile("rb", buffering=0)
        self.deadline = deadline

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        self.sock.settimeout(remaining(self.deadline))
        return self.stream.readinto(buffer)

    def close(self) -> None:
        self.stream.close()
        super().close()


class DeadlineSocket:
    """A connected socket whose every send and receive ends by `deadline`.

    A timeout set once at connect bounds each socket operation, not the
    request: a server sending one byte at a time would never trip it, and
    neither would slow headers. Here each operation may only wait for what is
    left until the deadline. http.client only sends with `sendall` and reads
    through `makefile`; everything else goes to the real socket.
    """

    SEND_CHUNK = 16 * 1024

    def __init__(self, sock: socket.socket, deadline: float):
        self._sock = sock
        self._deadline = deadline

    def __getattr__(self, name: str):
        return getattr(self._sock, name)

    def sendall(self, data) -> None:
        view = memoryview(data)
        for start in range(0, len(view), self.SEND_CHUNK):
            self._sock.settimeout(remaining(self._deadline))
            self._sock.sendall(view[start : start + self.SEND_CHUNK])

    def makefile(self, mode: str = "rb", *args, **kwargs):
        return io.BufferedReader(DeadlineReader(self._sock, self._deadline))


class PinnedHTTPConnection(http.client.HTTPConnection):
    """Connects to the already checked address, while Host stays the name."""

    def __init__(self, host: str, port: int, address: str, deadline: float):
        super().__init__(host, port, timeout=remaining(deadline))
        self.address = address
        self.deadline = deadline

    def connect(self):
        sock = socket.create_connection(
            (self.address, self.port), remaining(self.deadline)
        )
        self.sock = DeadlineSocket(sock, self.deadline)


class PinnedHTTPSConnection(http.client.HTTPSConnection):
    """Like PinnedHTTPConnection; TLS still verifies the certificate for the name."""

    def __init__(self, host: str, port: int, address: str, deadline: float):
        super().__init__(
            host,
            port,
            timeout=remaining(deadline),
            context=ssl.create_default_context(),
        )
        self.address = address
        self.deadline = deadline

    def connect(self):
        sock = socket.create_connection(
            (self.address, self.port), remaining(self.deadline)
        )
        # The TLS handshake, bounded as a whole, gets what connecting left.
        sock.settimeout(remaining(self.deadline))
        tls = self._context.wrap_socket(sock, server_hostname=self.host)
        self.sock = DeadlineSocket(tls, self.deadline)
