"""The app_action node: one operation of an app (an OpenAPI document), called
like the http_request node calls a URL (flows/nodes/http_send.py): the same
outbound wall, timeouts, `Retry-After` waits, `on_http_error`, run files and
credential signing. Registered from flows/apps.py (FlowsConfig.ready)."""

from __future__ import annotations

from typing import Any

from django.conf import settings

from core.net import outbound
from flows.app_actions import request
from flows.app_actions.app import MULTIPART
from flows.app_actions.catalogue import get_app
from flows.nodes import checks
from flows.nodes.base import (
    HTTP_SIGNING,
    FieldError,
    FormField,
    NodeContext,
    NodeError,
    NodeKind,
)
from flows.nodes.checks import integer_between
from flows.nodes.http_checks import ON_HTTP_ERROR, answer_settings
from flows.nodes.http_files import request_body
from flows.nodes.http_send import (
    DEFAULT_TIMEOUT_MS,
    node_call,
    outbound_failures,
    with_idempotency_key,
)


class AppActionNode(NodeKind):
    type = "app_action"
    label = "App action"
    description = "Calls one operation of an app (Slack, GitHub, ...) with a form."
    form_fields = (
        FormField("data.app", "App"),
        FormField("data.operation", "Operation"),
        FormField(
            "data.params",
            "Parameters",
            widget="json",
            help="Each parameter by name, the request body under body. "
            "Templates allowed.",
        ),
        FormField(
            "data.credential_id",
            "Credential",
            widget="credential",
            kinds=(HTTP_SIGNING,),
        ),
        FormField(
            "data.server_url",
            "Server URL",
            mono=True,
            help="Empty: the app's own server. Set it for a self-hosted or "
            "per-account server (Jira: https://NAME.atlassian.net).",
        ),
        FormField("data.timeout_ms", "Timeout (ms)", widget="number", min=1),
        FormField(
            "data.on_http_error",
            "On HTTP error",
            widget="select",
            options=ON_HTTP_ERROR,
        ),
    )
    default_data = {
        "app": "",
        "operation": "",
        "params": {},
        "credential_id": None,
        "server_url": "",
        "timeout_ms": DEFAULT_TIMEOUT_MS,
        "on_http_error": "fail",
    }

    def validate_data(self, data: dict) -> list[FieldError]:
        problems = checks.credential_id(data)
        problems += integer_between(
            data,
            "timeout_ms",
            1,
            int(settings.RUN_TIMEOUT_SECONDS * 1000),
            required=False,
        )
        problems += answer_settings(data)
        server_url = data.get("server_url") or ""
        if not isinstance(server_url, str) or (
            server_url
            and "{{" not in server_url
            and not outbound.is_http_url(server_url)
        ):
            problems.append(
                FieldError(
                    "data.server_url", "Server URL must start with http:// or https://."
                )
            )
        params = data.get("params", {})
        if not isinstance(params, dict):
            return [
                *problems,
                FieldError("data.params", "Parameters must be an object."),
            ]
        app = get_app(data.get("app"))
        if app is None:
            return [
                *problems,
                FieldError(
                    "data.app", f"There is no app {str(data.get('app'))[:60]!r}."
                ),
            ]
        operation = app.operations.get(data.get("operation"))
        if operation is None:
            return [
                *problems,
                FieldError(
                    "data.operation",
                    f"{app.name} has no operation {str(data.get('operation'))[:80]!r}.",
                ),
            ]
        known = {parameter["name"] for parameter in operation.parameters}
        if operation.body_type:
            known.add(request.BODY)
        unknown = sorted(set(params) - known)
        if unknown:
            problems.append(
                FieldError(
                    "data.params",
                    f"{operation.id} takes no {', '.join(unknown)}; it takes "
                    f"{', '.join(sorted(known)) or 'no parameters'}.",
                )
            )
        return problems

    def run(self, data: dict, ctx: NodeContext) -> Any:
        app = get_app(data.get("app"))
        if app is None:
            raise NodeError(
                "app_missing", f"There is no app {str(data.get('app'))[:60]!r}."
            )
        operation = app.operations.get(data.get("operation"))
        if operation is None:
            raise NodeError(
                "operation_missing",
                f"{app.name} has no operation {str(data.get('operation'))[:80]!r}.",
            )
        base_url = ctx.render(data.get("server_url") or "") or app.server_url
        if not isinstance(base_url, str) or not outbound.is_http_url(base_url):
            raise NodeError(
                "invalid_url", f"Not an http(s) server URL: {str(base_url)[:200]!r}."
            )
        params = ctx.render(data.get("params") or {})
        if not isinstance(params, dict):
            raise NodeError("invalid_params", "Parameters must render to an object.")
        url, headers, body = request.build(operation, params, base_url)
        if operation.body_type == MULTIPART:
            body = request_body(body, "multipart", headers, ctx)
        kinds, required = app.auth_of(operation)
        credential_id = data.get("credential_id")
        if app.requirements(operation) == []:
            credential_id = None  # `security: []`: the operation sends no auth
        self.check_credential(app, kinds, required, credential_id, ctx)
        with_idempotency_key(headers, ctx)
        timeout_ms = data.get("timeout_ms", DEFAULT_TIMEOUT_MS)
        call = node_call(
            ctx,
            operation.method,
            headers,
            body,
            timeout_ms=timeout_ms,
            response_format=data.get("response_format")
            or operation.answer_type
            or "auto",
            fail_on_error=data.get("on_http_error", "fail") == "fail",
            credential_id=credential_id,
        )
        with outbound_failures(ctx, call, timeout_ms):
            return call.answer(url)

    @staticmethod
    def check_credential(app, kinds, required, credential_id, ctx) -> None:
        """An operation that asks for auth needs a credential of a kind its
        security schemes take; one where auth is optional may have one."""
        if not kinds:
            return
        label = " or ".join(kinds)
        if not credential_id and not required:
            return
        if not credential_id:
            raise NodeError(
                "credential_missing", f"Pick a credential for {app.name} ({label})."
            )
        credential, _ = ctx.credential(credential_id)
        if credential.kind not in kinds:
            raise NodeError(
                "credential_kind",
                f"{credential.name} is a {credential.kind} credential; "
                f"{app.name} takes {label}.",
            )
