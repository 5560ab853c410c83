"""Calling a remote MCP server's tools: the official `mcp` SDK behind the address wall.

Streamable HTTP only (no process spawning from a web app). Every connection the
SDK's HTTP client opens goes through `GuardedBackend`, which resolves the host
with `core.net.outbound.checked_address` and connects to that checked address
(the TLS name stays the host's), so an MCP server on a private address is
refused exactly as the http_request node refuses it, redirects and DNS
rebinding included. The SDK itself follows redirects only within the server's
origin.

Time: every exchange runs under one `deadline` (a `time.monotonic()` value),
the caller's (a turn's, a run's); there is no fixed per-call limit, so a tool
may take minutes when the caller has minutes. Failures are `McpError`s (an
`OutboundError` with a `code`): `address_refused`, `dns_error`, `timeout`,
`mcp_error` (the server refused the request or spoke something else).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

import anyio
import httpcore2
import httpx2

from core.net.outbound import OutboundError, checked_address, is_http_url
from core.startup import import_on_first_use

if TYPE_CHECKING:
    from mcp import Client

T = TypeVar("T")
USER_AGENT = "Weir-flows/1.0 (MCP client)"


class McpError(OutboundError):
    """A call to an MCP server failed; `code` says how."""


@dataclass(frozen=True)
class RemoteTool:
    name: str
    description: str
    input_schema: dict


class GuardedBackend(httpcore2.AsyncNetworkBackend):
    """httpcore's network backend, connecting only to addresses the wall allows.

    The refusal is kept in `refused`: the SDK turns transport errors into its
    own, and the caller wants to say `address_refused`, not "connection lost".
    """

    def __init__(self):
        self.inner = httpcore2.AnyIOBackend()
        self.refused: OutboundError | None = None

    async def connect_tcp(
        self, host, port, timeout=None, local_address=None, socket_options=None
    ):
        try:
            address = await anyio.to_thread.run_sync(checked_address, host, port)
        except OutboundError as error:
            self.refused = error
            raise
        return await self.inner.connect_tcp(
            address, port, timeout, local_address, socket_options
        )

    async def connect_unix_socket(self, path, timeout=None, socket_options=None):
        raise OutboundError("address_refused", "Unix sockets are not MCP servers.")

    async def sleep(self, seconds: float) -> None:
        await self.inner.sleep(seconds)


def list_tools(url: str, headers: dict, deadline: float) -> list[RemoteTool]:
    """The server's tools (every page of the listing)."""

    async def work(client: Client) -> list[RemoteTool]:
        result = await client.list_tools()
        return [
            RemoteTool(
                name=tool.name,
                description=tool.description or "",
                input_schema=dict(tool.input_schema or {}),
            )
            for tool in result.tools
        ]

    return _exchange(url, headers, deadline, work)


def call_tool(
    url: str, headers: dict, name: str, arguments: dict, deadline: float
) -> dict:
    """`{is_error, content, structured}` of one tools/call.

    `content` is the text of the result's text blocks joined (other blocks are
    named by type), `structured` the tool's structured content when it gave
    one: what a model or a flow can read.
    """

    async def work(client: Client) -> dict:
        result = await client.call_tool(name, arguments)
        return {
            "is_error": bool(result.is_error),
            "content": "\n".join(_block_text(block) for block in result.content),
            "structured": result.structured_content,
        }

    return _exchange(url, headers, deadline, work)


def _block_text(block: Any) -> str:
    text = getattr(block, "text", None)
    if isinstance(text, str):
        return text
    return f"[{getattr(block, 'type', 'content')}]"


def _exchange(
    url: str,
    headers: dict,
    deadline: float,
    work: Callable[[Client], Awaitable[T]],
) -> T:
    """Connect, run `work` and disconnect, all before `deadline`. The SDK is
    imported on first use (core/startup.py)."""
    sdk = import_on_first_use("mcp")
    transport_of = import_on_first_use("mcp.client.streamable_http")

    if not is_http_url(url):
        raise McpError("invalid_url", "An MCP server's URL starts with http(s)://.")
    backend = GuardedBackend()

    async def main() -> T:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        transport = httpx2.AsyncHTTPTransport()
        transport._pool = httpcore2.AsyncConnectionPool(
            ssl_context=httpx2.create_ssl_context(), network_backend=backend
        )
        http = httpx2.AsyncClient(
            headers={"User-Agent": USER_AGENT, **headers},
            timeout=httpx2.Timeout(left),
            transport=transport,
        )
        with anyio.fail_after(left):
            async with http:
                transport_cm = transport_of.streamable_http_client(
                    url, http_client=http
                )
                async with sdk.Client(
                    transport_cm, read_timeout_seconds=left, cache=None
                ) as client:
                    return await work(client)

    try:
        return run_async(main)
    except TimeoutError as error:
        raise McpError("timeout", "The MCP server did not answer in time.") from error
    except Exception as error:  # noqa: BLE001 — the SDK raises many kinds, grouped
        if backend.refused is not None:
            raise McpError(backend.refused.code, backend.refused.message) from error
        if _has_timeout(error):
            raise McpError(
                "timeout", "The MCP server did not answer in time."
            ) from error
        raise McpError("mcp_error", f"The MCP server failed: {_describe(error)}") from (
            error
        )


def run_async(main: Callable[[], Awaitable[T]]) -> T:
    """`anyio.run(main)`, on a thread of its own when this one already runs an
    event loop (an async caller, or a test tool that left one running)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return anyio.run(main)
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(anyio.run, main).result()


def _leaves(error: BaseException):
    if isinstance(error, BaseExceptionGroup):
        for inner in error.exceptions:
            yield from _leaves(inner)
    else:
        yield error


def _has_timeout(error: BaseException) -> bool:
    return any(
        isinstance(leaf, TimeoutError | httpx2.TimeoutException)
        for leaf in _leaves(error)
    )


def _describe(error: BaseException) -> str:
    leaf = next(_leaves(error))
    text = str(leaf) or type(leaf).__name__
    return json.dumps(text)[1:-1][:300]
