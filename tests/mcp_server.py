"""A real MCP server (the SDK's own `MCPServer`) on a loopback port, for tests.

Streamable HTTP at `/mcp` through uvicorn in a thread. Its tools: `add` (a
sum), `echo` (the arguments back, and the Authorization header it got),
`slow` (sleeps `seconds`), `fail` (a tool error).
"""

from __future__ import annotations

import socket
import threading
import time

import anyio
import pytest
import uvicorn
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError


def build_server() -> MCPServer:
    server = MCPServer("weir-test")

    @server.tool(description="Adds two numbers.")
    def add(a: int, b: int) -> int:
        return a + b

    @server.tool(description="Says what it got.")
    def echo(text: str, ctx: Context) -> str:
        request = ctx.request_context.request
        auth = request.headers.get("authorization", "") if request else ""
        return f"{text} (auth: {auth or 'none'})"

    @server.tool(description="Answers after `seconds`.")
    async def slow(seconds: float) -> str:
        await anyio.sleep(seconds)
        return f"slept {seconds}"

    @server.tool(description="Always fails.")
    def fail() -> str:
        raise ToolError("this tool always fails")

    return server


class ThreadedServer(uvicorn.Server):
    def install_signal_handlers(self):  # a thread cannot
        pass


@pytest.fixture(scope="session")
def mcp_server():
    """The server's URL, `http://127.0.0.1:<port>/mcp`."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    app = build_server().streamable_http_app()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    server = ThreadedServer(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(200):
        if server.started:
            break
        time.sleep(0.02)
    yield f"http://127.0.0.1:{port}/mcp"
    server.should_exit = True
    thread.join(5)
