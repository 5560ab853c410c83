"""`POST /api/mcp`: the caller's flows as MCP tools, for Claude Desktop or any client.

Streamable HTTP in stateless JSON-response mode, so one request is one
exchange and a WSGI thread serves it like any API call (no session, no open
stream). The protocol is the official SDK's: one `mcp.server.lowlevel.Server`
behind one `StreamableHTTPSessionManager` per process, on an event loop of
its own thread; each request hands its exchange to it, its caller in the
exchange's ASGI scope, and the queries and runs come back to the request's
thread. Authentication is DRF's, so a session or an API token (`Authorization:
Bearer weir_pat_…`) signs the caller in before the SDK sees the request.

Tools are the flows marked "Offer over MCP" (`Flow.mcp_offered`) with an
input schema (the schema is the tool's `inputSchema`) of the workspaces where
the caller's role may start runs (RUNS_START: a viewer is offered nothing),
named as agents name them (`agents.tools.Toolbox`). A call is a run with
trigger `mcp`; the result is the run's summary (as an agent tool gets it) plus
its `run_id`.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import json
import os
import threading
import uuid
from dataclasses import dataclass

from asgiref.current_thread_executor import CurrentThreadExecutor
from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp_types import CallToolResult, ListToolsResult, TextContent, Tool

from accounts import rights
from accounts.audit.actor import Actor
from agents.providers import ToolCall
from agents.tools import Toolbox
from flows.models import Flow


def offered_flows(user) -> list[Flow]:
    """The flows marked "Offer over MCP" that the caller may run and that
    describe their input: only those are tools. Both listing and calling go
    through here, so a flow not offered, or one the caller's role may only
    view, is neither listed nor callable (an unknown tool)."""
    flows = (
        Flow.objects.for_user(user, rights.RUNS_START)
        .filter(mcp_offered=True)
        .exclude(input_schema={})
        .order_by("created_at", "pk")
    )
    return [flow for flow in flows if isinstance(flow.input_schema, dict)]


def list_tools(user) -> ListToolsResult:
    toolbox = Toolbox(offered_flows(user))
    return ListToolsResult(
        tools=[
            Tool(
                name=spec.name,
                title=spec.title,
                description=spec.description,
                input_schema=spec.parameters,
            )
            for spec in toolbox.specs
        ]
    )


def call_tool(
    user, may_run: bool, name: str, arguments: dict, actor: Actor | None = None
) -> CallToolResult:
    """Run the flow behind `name`; an unknown name or a token without
    `flows:run` is a tool error the client reads, not a protocol failure.
    The run is audited as `run.started` by `actor`, as a run started by hand."""
    if not may_run:
        return _error("This token lacks the scope this needs: flows:run.")
    toolbox = Toolbox(offered_flows(user))
    outcome = toolbox.call(
        ToolCall(id=str(uuid.uuid4()), name=name, arguments=arguments),
        depth=0,
        trigger="mcp",
        started_by=actor,
    )
    result = outcome.result if isinstance(outcome.result, dict) else {}
    summary = {
        **result,
        "run_id": str(outcome.run.pk) if outcome.run is not None else None,
    }
    if not isinstance(outcome.result, dict):  # cut at MAX_RESULT_CHARS
        summary["output"] = outcome.content
    return CallToolResult(
        content=[TextContent(text=json.dumps(summary, default=str))],
        structured_content=summary,
        is_error=not summary.get("success", False),
    )


def _error(message: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(text=message)], is_error=True)


@dataclass(frozen=True)
class Caller:
    """Who one request is from, carried in that request's ASGI scope (the only
    way a handler learns it): the signed-in user, whether their token may run
    flows, and the request's own thread, where their queries and runs go."""

    user: object
    may_run: bool
    thread: CurrentThreadExecutor
    actor: Actor | None = None

    async def run(self, work, *args):
        return await asyncio.get_running_loop().run_in_executor(
            self.thread, functools.partial(work, *args)
        )


CALLER = "weir.caller"


def _caller(ctx) -> Caller:
    return ctx.request.scope[CALLER]


async def _on_list_tools(ctx, params) -> ListToolsResult:
    caller = _caller(ctx)
    return await caller.run(list_tools, caller.user)


async def _on_call_tool(ctx, params) -> CallToolResult:
    caller = _caller(ctx)
    return await caller.run(
        call_tool,
        caller.user,
        caller.may_run,
        params.name,
        params.arguments or {},
        caller.actor,
    )


# One server for the process: it holds no caller, only the two handlers.
SERVER = Server(
    "weir",
    version="1.0",
    instructions="Each tool runs one of your Weir flows; the result names its run.",
    on_list_tools=_on_list_tools,
    on_call_tool=_on_call_tool,
)


class Exchanges:
    """The process's event loop, on a thread of its own, running the SDK's
    stateless session manager once; each request is handed to it. Started on
    the first request (and again in a forked worker, which has no such thread)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._pid: int | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.manager: StreamableHTTPSessionManager | None = None

    def running(self) -> tuple[asyncio.AbstractEventLoop, StreamableHTTPSessionManager]:
        with self._lock:
            if self._pid != os.getpid():
                self._start()
                self._pid = os.getpid()
            return self.loop, self.manager

    def _start(self) -> None:
        loop = asyncio.new_event_loop()
        manager = StreamableHTTPSessionManager(
            app=SERVER, json_response=True, stateless=True
        )
        started: concurrent.futures.Future = concurrent.futures.Future()

        async def serve_forever():
            async with manager.run():
                started.set_result(None)
                await asyncio.Event().wait()

        def run():
            asyncio.set_event_loop(loop)
            try:
                loop.run_until_complete(serve_forever())
            except BaseException as error:  # pragma: no cover - the SDK failed
                if not started.done():
                    started.set_exception(error)
                raise

        threading.Thread(target=run, name="mcp-loop", daemon=True).start()
        started.result(timeout=30)
        self.loop, self.manager = loop, manager


EXCHANGES = Exchanges()


def serve(
    request, caller_user, may_run: bool, actor: Actor | None = None
) -> tuple[int, list, bytes]:
    """One HTTP exchange through the SDK's transport: status, headers, body.

    The exchange runs on the process's loop; whatever it needs of the
    database (listing, a run) comes back to run on this request's thread."""
    loop, manager = EXCHANGES.running()
    thread = CurrentThreadExecutor(None)
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": request.method,
        "scheme": request.scheme,
        "path": request.path,
        "raw_path": request.path.encode(),
        "query_string": request.META.get("QUERY_STRING", "").encode(),
        "root_path": "",
        "headers": [
            (name.lower().encode("latin-1"), value.encode("latin-1"))
            for name, value in request.headers.items()
        ],
        "client": (request.META.get("REMOTE_ADDR") or "", 0),
        "server": (request.get_host(), 0),
        CALLER: Caller(caller_user, may_run, thread, actor),
    }
    body = request.body
    answer: dict = {"status": 500, "headers": [], "body": b""}
    sent = False

    async def receive():
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return {"type": "http.disconnect"}

    async def send(message):
        if message["type"] == "http.response.start":
            answer["status"] = message["status"]
            answer["headers"] = message.get("headers", [])
        elif message["type"] == "http.response.body":
            answer["body"] += message.get("body", b"")

    exchange = asyncio.run_coroutine_threadsafe(
        manager.handle_request(scope, receive, send), loop
    )
    thread.run_until_future(exchange)
    exchange.result()
    return answer["status"], answer["headers"], answer["body"]
