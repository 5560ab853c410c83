"""The http_request node: one outbound HTTP call, guarded against SSRF.

Every hop (the first request and each redirect, which we follow ourselves) has
its host resolved and every resolved address checked; the connection then goes
to the checked address, so a second DNS answer cannot swap in another one
(DNS rebinding). Loopback, private, link-local (cloud metadata lives there),
unspecified, multicast and other non-public addresses are refused unless
`HTTP_NODE_ALLOWLIST` names the host, the address or a network containing it.
"""

from __future__ import annotations

import http.client
import ipaddress
import json
import socket
import ssl
import time
from typing import Any
from urllib.parse import urljoin, urlsplit

from django.conf import settings

from flows.nodes.base import FieldError, NodeContext, NodeError, NodeKind, NodeTimeout
from flows.nodes.checks import integer_between, string_map, text
from flows.nodes.templates import as_text
from flows.storable import storable_text

METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")
DEFAULT_TIMEOUT_MS = 10_000
MAX_REDIRECTS = 5
REDIRECTS = (301, 302, 303, 307, 308)
USER_AGENT = "Weir-flows/1.0 (http_request node)"
NAT64 = ipaddress.ip_network("64:ff9b::/96")


class HttpRequestNode(NodeKind):
    type = "http_request"
    label = "HTTP request"
    description = "Calls a URL and outputs status, headers and body."

    def validate_data(self, data: dict) -> list[FieldError]:
        problems = []
        if data.get("method", "GET") not in METHODS:
            problems.append(
                FieldError(
                    "data.method", f"Method must be one of {', '.join(METHODS)}."
                )
            )
        url_problems = text(data, "url", max_length=4000)
        url = data.get("url")
        if not url_problems and "{{" not in url and not _is_http_url(url):
            url_problems = [
                FieldError("data.url", "URL must start with http:// or https://.")
            ]
        problems += url_problems
        problems += string_map(data, "headers")
        problems += integer_between(
            data,
            "timeout_ms",
            1,
            int(settings.RUN_TIMEOUT_SECONDS * 1000),
            required=False,
        )
        return problems

    def run(self, data: dict, ctx: NodeContext) -> Any:
        method = data.get("method", "GET")
        url = ctx.render(data["url"])
        if not isinstance(url, str) or not _is_http_url(url):
            raise NodeError("invalid_url", f"Not an http(s) URL: {str(url)[:200]!r}.")
        headers = {
            name: as_text(value)
            for name, value in ctx.render(data.get("headers") or {}).items()
        }
        if not any(name.lower() == "user-agent" for name in headers):
            headers["User-Agent"] = USER_AGENT
        body = _encode_body(ctx.render(data.get("body")), headers)
        timeout = data.get("timeout_ms", DEFAULT_TIMEOUT_MS) / 1000
        deadline = min(time.monotonic() + timeout, ctx.deadline)
        try:
            return fetch(method, url, headers, body, deadline)
        except TimeoutError as error:
            raise NodeTimeout("http_timeout", "The request took too long.") from error
        except ssl.SSLError as error:
            raise NodeError("http_error", f"TLS failed: {error}") from error
        except (OSError, http.client.HTTPException, ValueError) as error:
            raise NodeError("http_error", f"The request failed: {error}") from error


def _is_http_url(url: str) -> bool:
    parts = urlsplit(url)
    return parts.scheme in ("http", "https") and bool(parts.hostname)


def _encode_body(body: Any, headers: dict) -> bytes | None:
    if body is None:
        return None
    if isinstance(body, str):
        return body.encode()
    if not any(name.lower() == "content-type" for name in headers):
        headers["Content-Type"] = "application/json"
    return json.dumps(body, separators=(",", ":")).encode()


def fetch(method: str, url: str, headers: dict, body: bytes | None, deadline: float):
    """Do the request, following redirects ourselves with every hop re-checked."""
    for _ in range(MAX_REDIRECTS + 1):
        response, raw = _one_hop(method, url, headers, body, deadline)
        location = response.getheader("Location")
        if response.status in REDIRECTS and location:
            url = urljoin(url, location)
            if not _is_http_url(url):
                raise NodeError("invalid_url", "A redirect left http(s).")
            if response.status in (301, 302, 303) and method != "HEAD":
                method, body = "GET", None
                headers = {
                    k: v for k, v in headers.items() if k.lower() != "content-type"
                }
            continue
        return {
            "status": response.status,
            "headers": _headers(response),
            "body": _decode(raw, response.getheader("Content-Type", "")),
        }
    raise NodeError("too_many_redirects", f"More than {MAX_REDIRECTS} redirects.")


def _one_hop(method, url, headers, body, deadline):
    parts = urlsplit(url)
    host = parts.hostname
    port = parts.port or (443 if parts.scheme == "https" else 80)
    address = checked_address(host, port)
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise TimeoutError
    connection_class = (
        PinnedHTTPSConnection if parts.scheme == "https" else PinnedHTTPConnection
    )
    connection = connection_class(host, port, address, remaining)
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    try:
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        raw = _read_capped(response, deadline)
    finally:
        connection.close()
    return response, raw


def _read_capped(response, deadline: float) -> bytes:
    limit = settings.HTTP_NODE_MAX_RESPONSE_BYTES
    chunks, size = [], 0
    while chunk := response.read(64 * 1024):
        size += len(chunk)
        if size > limit:
            raise NodeError(
                "response_too_large",
                f"The response body is over {limit} bytes; the node reads no more.",
            )
        if time.monotonic() > deadline:
            raise TimeoutError
        chunks.append(chunk)
    return b"".join(chunks)


def _headers(response) -> dict[str, str]:
    headers: dict[str, str] = {}
    for name, value in response.getheaders():
        key = name.lower()
        headers[key] = f"{headers[key]}, {value}" if key in headers else value
    return headers


def _decode(raw: bytes, content_type: str) -> Any:
    charset = "utf-8"
    for part in content_type.split(";")[1:]:
        key, _, value = part.strip().partition("=")
        if key.lower() == "charset" and value:
            charset = value.strip('"')
    try:
        text_body = raw.decode(charset, errors="replace")
    except LookupError:
        text_body = raw.decode("utf-8", errors="replace")
    # A binary body's NUL bytes would make the run unstorable (flows/storable.py).
    text_body = storable_text(text_body)
    media_type = content_type.split(";")[0].strip().lower()
    if media_type == "application/json" or media_type.endswith("+json"):
        try:
            return json.loads(text_body)
        except RecursionError:
            raise NodeError(
                "invalid_output", "The response's JSON is nested too deep."
            ) from None
        except ValueError:
            return text_body
    return text_body


# Address checks ------------------------------------------------------------


def is_public(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """True only for globally routable unicast addresses."""
    if isinstance(address, ipaddress.IPv6Address):
        embedded = address.ipv4_mapped or address.sixtofour
        if embedded is None and address in NAT64:
            embedded = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
        if embedded is not None and not is_public(embedded):
            return False
    return address.is_global and not address.is_multicast


def _allowlisted(host: str, address) -> bool:
    for entry in settings.HTTP_NODE_ALLOWLIST:
        entry = entry.strip().lower()
        if not entry:
            continue
        try:
            if address in ipaddress.ip_network(entry, strict=False):
                return True
        except ValueError:
            if entry == host.lower().rstrip("."):
                return True
    return False


def checked_address(host: str, port: int) -> str:
    """The address to connect to; NodeError when any resolved address is refused."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as error:
        raise NodeError("dns_error", f"Cannot resolve {host!r}: {error}.") from error
    addresses = []
    for info in infos:
        address = ipaddress.ip_address(info[4][0].split("%")[0])
        if not is_public(address) and not _allowlisted(host, address):
            raise NodeError(
                "address_refused",
                f"{host} resolves to {address}, which is not a public address; "
                "HTTP_NODE_ALLOWLIST must name it.",
            )
        addresses.append(str(address))
    if not addresses:
        raise NodeError("dns_error", f"Cannot resolve {host!r}.")
    return addresses[0]


class PinnedHTTPConnection(http.client.HTTPConnection):
    """Connects to the already checked address, while Host stays the name."""

    def __init__(self, host: str, port: int, address: str, timeout: float):
        super().__init__(host, port, timeout=timeout)
        self.address = address

    def connect(self):
        self.sock = socket.create_connection((self.address, self.port), self.timeout)


class PinnedHTTPSConnection(http.client.HTTPSConnection):
    """Like PinnedHTTPConnection; TLS still verifies the certificate for the name."""

    def __init__(self, host: str, port: int, address: str, timeout: float):
        super().__init__(
            host, port, timeout=timeout, context=ssl.create_default_context()
        )
        self.address = address

    def connect(self):
        sock = socket.create_connection((self.address, self.port), self.timeout)
        self.sock = self._context.wrap_socket(sock, server_hostname=self.host)
