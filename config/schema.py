"""What drf-spectacular cannot see by itself, so `/api/schema` describes the server.

- the session cookie and, on unsafe methods, the `X-CSRFToken` header; or a
  bearer token (`Authorization: Bearer weir_pat_...` or `weir_wst_...`, no CSRF
  header);
- the error envelope (docs/api.md, section 2) as a component, and on every
  operation the error statuses it can answer (`postprocess`);
- 412 and `ETag` on a flow's read and update;
- the graph format (`GRAPH_NODES`, `GRAPH_EDGES`) for a flow's nodes and edges;
- the public webhook, a plain Django view DRF never sees (`WEBHOOK_PATH`).

tests/openapi_contract.py checks every API response the suite receives against
this schema, so the two cannot drift apart.
"""

from __future__ import annotations

from config import schema_auth  # noqa: F401  (registers the security schemes)

UNSAFE = ("post", "put", "patch", "delete")
ERROR_REF = {"$ref": "#/components/schemas/ErrorEnvelope"}

ERROR_ENVELOPE = {
    "type": "object",
    "description": "Every /api error (docs/api.md, section 2).",
    "properties": {
        "error": {
            "type": "object",
            "properties": {
                "code": {"type": "string", "examples": ["validation_error"]},
                "message": {"type": "string"},
                "details": {},
            },
            "required": ["code", "message"],
        }
    },
    "required": ["error"],
}

GRAPH_NODES = {
    "type": "array",
    "description": "The flow's nodes (docs/api.md section 3, the graph).",
    "items": {
        "type": "object",
        "properties": {
            "id": {"type": "string"},
            "type": {"type": "string", "examples": ["webhook", "code"]},
            "name": {"type": "string"},
            "position": {
                "type": "object",
                "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
            },
            "data": {"type": "object", "description": "Checked per node type."},
            "wait": {
                "type": "string",
                "enum": ["all", "any"],
                "description": "Run once every incoming edge fired (`all`, the "
                "default) or once one has (`any`: merging branches).",
            },
            "error_output": {
                "type": "boolean",
                "description": "Adds the `error` output handle: a failure flows "
                "out there and the run goes on.",
            },
            "retry": {
                "type": "object",
                "description": "Retries of a failing node (docs/engine.md).",
                "properties": {
                    "max_attempts": {"type": "integer", "minimum": 1, "maximum": 10},
                    "backoff": {"type": "string", "enum": ["fixed", "exponential"]},
                    "delay_ms": {"type": "integer", "minimum": 0, "maximum": 60000},
                    "on": {
                        "type": "array",
                        "items": {"type": ["string", "integer"]},
                        "description": "Error codes and HTTP statuses (503, 5xx).",
                    },
                },
            },
        },
        "required": ["id", "type"],
    },
}

GRAPH_EDGES = {
    "type": "array",
    "description": "The flow's edges (docs/api.md section 3, the graph).",
    "items": {
        "type": "object",
        "properties": {
            "id": {"type": "string"},
            "source": {"type": "string"},
            "target": {"type": "string"},
            "sourceHandle": {"type": ["string", "null"]},
        },
        "required": ["id", "source", "target"],
    },
}

DESCRIPTIONS = {
    "400": "Bad body: `validation_error`, `invalid_json` (signing in: "
    "`invalid_credentials`, `two_factor_required`, `invalid_code`).",
    "401": "No session or token: `not_authenticated`; a bad, expired or revoked "
    'token: `invalid_token` (`WWW-Authenticate: Bearer error="invalid_token"`).',
    "403": "`csrf_failed` (no valid X-CSRFToken), `permission_denied` (for a "
    "token: a scope it lacks, or a route for signed-in browsers only), or "
    "`two_factor_setup_required` (staff under `REQUIRE_2FA_FOR_STAFF`).",
    "404": "`not_found`: unknown id, malformed UUID, someone else's, or no such page.",
    "409": "`conflict` (chatting: `approval_pending`, a tool call waits for a "
    "decision; deciding one: `already_decided`; retrying a run: `run_not_failed`, "
    "`run_unfinished`; syncing or promoting flows: `missing_credentials`).",
    "412": "`precondition_failed`: `If-Match` names an old version.",
    "413": "`payload_too_large`.",
    "415": "`unsupported_media_type`.",
    "429": "`throttled`; `Retry-After` says when to try again (or, chatting, "
    "`budget_exceeded`: the agent's cost cap is spent).",
    "500": "`internal_error`; never a stack trace.",
    "502": "`upstream_error`: the LLM provider failed (or `invalid_output`: the "
    "reply does not match the agent's output_schema).",
    "503": "`unavailable`: at capacity or the database is briefly away; `Retry-After`.",
    "504": "`timeout`: the provider took too long.",
    "508": "`loop_detected`: a webhook chain deeper than `WEBHOOK_MAX_HOPS`.",
}

# Statuses some operations answer beyond those every operation of their kind does.
EXTRA_ERRORS = {
    "auth_login_create": ("429",),
    # Saves count against the admission caps (they compile code in the sandbox).
    "flows_create": ("429",),
    "flows_partial_update": ("412", "429"),
    "flows_import_create": ("429",),
    "flows_versions_restore_create": ("412", "429"),
    "flows_versions_diff_retrieve": ("400",),
    # Staff only; filters name a bad value with 400.
    "audit_list": ("400", "403"),
    "flows_run_create": ("429", "503"),
    # Running a run again counts as a run does; a retry needs a failed run (409).
    "runs_rerun_create": ("429", "503"),
    "runs_retry_create": ("409", "429", "503"),
    "runs_retry_failed_create": ("400", "429"),
    # Filters (status, trigger, since, until, range) name a bad value with 400.
    "flows_runs_list": ("400",),
    "runs_list": ("400",),
    "runs_stats_retrieve": ("400",),
    "credentials_destroy": ("409",),
    "credentials_test_create": ("429",),
    # A personal workspace, or one holding things; the last owner (409).
    "workspaces_destroy": ("409",),
    # The maker owns WORKSPACES_PER_USER workspaces already (409).
    "workspaces_create": ("409",),
    "workspaces_members_list": ("404",),
    "workspaces_members_create": ("404", "409"),
    "workspaces_members_partial_update": ("409",),
    "workspaces_members_destroy": ("409",),
    # A non-member's workspace (404).
    "workspaces_invitations_list": ("404",),
    "workspaces_tokens_list": ("404",),
    # A non-member's workspace (404); a name taken, or a full workspace (409).
    "workspaces_variables_list": ("404",),
    "workspaces_variables_create": ("404", "409"),
    "workspaces_variables_partial_update": ("409",),
    # Filters name a bad value with 400; a non-member's workspace is 404.
    "workspaces_audit_list": ("400", "404"),
    "workspaces_tokens_create": ("404",),
    # Flows as files: a non-member's workspace; credentials the bundle needs (409).
    "workspaces_sync_create": ("404", "409"),
    "workspaces_promote_create": ("404", "409"),
    "agents_chat_create": ("409", "429", "502", "503", "504"),
    "conversations_tool_calls_create": ("409", "429", "502", "503", "504"),
    "agents_partial_update": ("412",),
    "agents_usage_retrieve": ("400",),
    "agents_test_connection_create": ("429", "502", "504"),
    # Adding an app: a slug another app has (409); an unknown app's operations.
    "apps_create": ("409",),
    "apps_operations_list": ("404",),
    "knowledge_bases_create": ("409",),  # the name is taken in the workspace
    "knowledge_bases_partial_update": ("409",),
}

# `Prefer: respond-async` or `?async=true`: the run waits for a worker.
QUEUED = {
    "description": "Queued for a worker; poll GET /api/runs/{run_id}.",
    "content": {
        "application/json": {
            "schema": {
                "type": "object",
                "properties": {
                    "run_id": {"type": "string", "format": "uuid"},
                    "status": {"type": "string", "enum": ["queued"]},
                },
                "required": ["run_id", "status"],
            }
        }
    },
}

QUEUED_OPERATIONS = ("flows_run_create", "runs_rerun_create", "runs_retry_create")

ETAG = {
    "ETag": {
        "description": 'The flow\'s version, e.g. `"3"`; send it back as `If-Match`.',
        "schema": {"type": "string"},
    }
}
ETAG_OPERATIONS = (
    "flows_retrieve",
    "flows_partial_update",
    "flows_versions_restore_create",
    "agents_create",
    "agents_partial_update",
)
RETRY_AFTER = {
    "Retry-After": {"description": "Seconds to wait.", "schema": {"type": "string"}}
}


def _error(status: str) -> dict:
    response = {
        "description": DESCRIPTIONS[status],
        "content": {"application/json": {"schema": ERROR_REF}},
    }
    if status in ("429", "503"):
        response["headers"] = RETRY_AFTER
    return response


def _error_statuses(path: str, method: str, operation: dict) -> list[str]:
    statuses = ["500", "503"]
    if {} not in operation.get("security", [{}]):
        # Any token may lack the scope an operation needs (or be refused a
        # route for browsers only), and a staff session without two-factor
        # under REQUIRE_2FA_FOR_STAFF is refused: 403 on every operation that
        # needs a login.
        statuses += ["401", "403"]
    if method in UNSAFE:
        # Any unsafe request may send a body, documented or not: too large (413)
        # or of a type the API does not parse (415) is refused the same way.
        statuses += ["400", "403", "413", "415"]
    parameters = {parameter["name"] for parameter in operation.get("parameters", [])}
    if "{id}" in path or "page" in parameters:  # an unknown id, or past the last page
        statuses.append("404")
    statuses += EXTRA_ERRORS.get(operation["operationId"], ())
    return statuses


def _secure_unsafe(method: str, operation: dict) -> None:
    """Session auth on an unsafe method also needs the CSRF header; a token does not."""
    if method in UNSAFE:
        operation["security"] = [
            {**requirement, "csrfHeader": []}
            if "cookieAuth" in requirement
            else requirement
            for requirement in operation.get("security", [])
        ]


def _json_schema_3_1(node):
    """Two leftovers of OpenAPI 3.0 in drf-spectacular's 3.1 output, made JSON
    Schema: DRF's own `nullable: true` (pagination's `next`, `previous`), and
    `oneOf: [{type: null}, {}]` for a nullable untyped field, which `null`
    matches twice and so never validates."""
    if isinstance(node, list):
        for item in node:
            _json_schema_3_1(item)
        return
    if not isinstance(node, dict):
        return
    if node.pop("nullable", False) and isinstance(node.get("type"), str):
        node["type"] = [node["type"], "null"]
    if {} in node.get("oneOf", []):
        del node["oneOf"]
    for value in node.values():
        _json_schema_3_1(value)


def postprocess(result, generator, request, public):
    """drf-spectacular's POSTPROCESSING_HOOKS entry: see the module docstring."""
    _json_schema_3_1(result)
    components = result.setdefault("components", {})
    components.setdefault("schemas", {})["ErrorEnvelope"] = ERROR_ENVELOPE
    components.setdefault("securitySchemes", {})["csrfHeader"] = {
        "type": "apiKey",
        "in": "header",
        "name": "X-CSRFToken",
        "description": "The `csrftoken` cookie's value (GET /api/auth/csrf sets it); "
        "needed on POST, PATCH and DELETE.",
    }
    for schema_name in ("Flow", "FlowRequest", "PatchedFlowRequest"):
        properties = components["schemas"].get(schema_name, {}).get("properties", {})
        if "nodes" in properties:
            properties["nodes"] = GRAPH_NODES
            properties["edges"] = GRAPH_EDGES
    for path, item in result["paths"].items():
        for method, operation in item.items():
            responses = operation.setdefault("responses", {})
            for status in _error_statuses(path, method, operation):
                responses.setdefault(status, _error(status))
            _secure_unsafe(method, operation)
            if operation["operationId"] in ETAG_OPERATIONS:
                responses["201" if "201" in responses else "200"]["headers"] = ETAG
            if operation["operationId"] in QUEUED_OPERATIONS:
                responses["202"] = QUEUED
    result["paths"]["/api/webhooks/{flowId}"] = WEBHOOK_PATH
    return result


def _run_result(description: str) -> dict:
    return {
        "description": description,
        "content": {
            "application/json": {"schema": {"$ref": "#/components/schemas/RunResult"}}
        },
    }


WEBHOOK_PATH = {
    "post": {
        "operationId": "webhooks_receive",
        "summary": "Trigger a flow (no session; see docs/webhooks.md)",
        "tags": ["webhooks"],
        "security": [],
        "parameters": [
            {
                "in": "path",
                "name": "flowId",
                "required": True,
                "schema": {"type": "string", "format": "uuid"},
            },
            *(
                {
                    "in": "header",
                    "name": name,
                    "schema": {"type": "string"},
                    "description": description,
                }
                for name, description in (
                    ("webhook-id", "Standard Webhooks delivery id (signed flows)."),
                    ("webhook-timestamp", "Unix seconds (signed flows)."),
                    (
                        "webhook-signature",
                        "`v1,<base64 HMAC-SHA256 of id.timestamp.body>`.",
                    ),
                    ("Weir-Hops", "Set by flows calling webhooks; 508 past the limit."),
                )
            ),
        ],
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": {"type": "object"}}},
        },
        "responses": {
            "200": {
                "description": "The run result, or a response node's answer (any "
                "body the flow's author chose).",
                "content": {
                    "application/json": {
                        "schema": {
                            "anyOf": [
                                {"$ref": "#/components/schemas/RunResult"},
                                {"description": "A response node's JSON body."},
                            ]
                        }
                    }
                },
            },
            "400": _error("400"),
            "401": {**_error("401"), "description": "Missing or bad signature."},
            "404": _error("404"),
            "405": {
                "description": "`method_not_allowed`: not POST; `Allow: POST`.",
                "content": {"application/json": {"schema": ERROR_REF}},
            },
            "409": {**_error("409"), "description": "This webhook-id was delivered."},
            "413": _error("413"),
            "415": _error("415"),
            "429": _error("429"),
            "500": {
                "description": "The run failed: the run result, whose `error` has "
                "`code` and `message` too; or `internal_error`.",
                "content": {
                    "application/json": {
                        "schema": {
                            "anyOf": [
                                {"$ref": "#/components/schemas/RunResult"},
                                ERROR_REF,
                            ]
                        }
                    }
                },
            },
            "503": _error("503"),
            "504": _run_result("The run timed out: the run result."),
            "508": _error("508"),
            "default": {
                "description": "A response node's own status, headers and body."
            },
        },
    }
}
