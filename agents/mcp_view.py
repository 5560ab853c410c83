"""The view of `POST /api/mcp` (agents/mcp_server.py speaks the protocol).

The protocol module is imported on the first call, not with the URLs: the MCP
SDK is one of those imported on first use (core/startup.py).
"""

from __future__ import annotations

from django.http import HttpResponse
from drf_spectacular.utils import extend_schema
from rest_framework.views import APIView

from accounts import rights
from accounts.audit.actor import Actor
from accounts.workspaces.access import whose_work
from core.startup import import_on_first_use
from flows.engine.admission import admitted


class McpView(APIView):
    """The MCP endpoint; DRF signs the caller in (session or API token)."""

    # Listing needs flows.view; a call also checks flows:run for a token.
    rights = {"post": rights.FLOWS_VIEW}

    @extend_schema(
        operation_id="mcp_create",
        request=dict,
        responses={200: dict},
        description="Model Context Protocol, Streamable HTTP (stateless, JSON "
        "answers): initialize, tools/list, tools/call. Tools are your flows "
        "marked `mcp_offered` with an input schema; each call is a run with "
        "trigger `mcp`.",
    )
    def post(self, request):
        mcp_server = import_on_first_use("agents.mcp_server")
        user = request.user
        # A token (request.auth) holds scopes; a session (auth None) holds all.
        granted = getattr(request.auth, "granted", None)
        may_run = granted is None or rights.RUNS_START in granted
        # A call runs a flow on this thread: it holds a work slot as the run
        # endpoint does (503/429 in the envelope when the caller is over).
        with admitted(request, **whose_work(user)):
            status, headers, body = mcp_server.serve(
                request._request, user, may_run, Actor.from_request(request)
            )
        response = HttpResponse(body, status=status)
        for name, value in headers:
            key = name.decode("latin-1")
            if key.lower() in ("content-length",):
                continue
            response[key] = value.decode("latin-1")
        return response
