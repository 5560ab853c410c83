"""The settings of Django REST framework and drf-spectacular.

Plain values that no environment variable changes, kept out of
config/settings.py (which reads the environment) so that module stays one
screenful per concern. Imported only by config/settings.py.
"""

REST_FRAMEWORK = {
    # A bearer token first: a request carrying one is never read as the session's.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.authentication.BearerTokenAuthentication",
        "accounts.authentication.SessionAuthentication401",
    ],
    "DEFAULT_PERMISSION_CLASSES": [
        "rest_framework.permissions.IsAuthenticated",
        "accounts.permissions.TokenScopes",
    ],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["core.http.parsers.JSONParser"],
    # Escape non-ASCII in answers: a stored odd string can never break one.
    "UNICODE_JSON": False,
    "EXCEPTION_HANDLER": "core.http.handlers.exception_handler",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Weir API",
    "DESCRIPTION": "Flows, runs, webhooks and agents. "
    "See docs/api.md for the contract.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # docs/api.md, section 1: every endpoint but the webhook needs a session.
    "SERVE_PERMISSIONS": ["rest_framework.permissions.IsAuthenticated"],
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    # 3.1: nullable fields are JSON Schema (`type: [..., "null"]`), so the suite
    # validates responses with jsonschema as they are (tests/openapi_contract.py).
    "OAS_VERSION": "3.1.0",
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "config.schema.postprocess",
    ],
    # Runs and their steps both have a `status`, members and chat messages a
    # `role`; name each pair's enums apart.
    "ENUM_NAME_OVERRIDES": {
        "RunStatusEnum": "flows.models.FlowRun.Status",
        "StepStatusEnum": "flows.models.RunStep.Status",
        "DocumentStatusEnum": "knowledge.models.Document.Status",
        "DocumentSourceEnum": "knowledge.models.Document.Source",
        "MemberRoleEnum": "accounts.workspaces.models.Membership.Role",
        "MemberSourceEnum": "accounts.workspaces.models.Membership.Source",
        "VersionSourceEnum": "flows.history.models.FlowVersion.Source",
        "MessageRoleEnum": "agents.models.Message.Role",
        "TokenScopeEnum": "accounts.tokens.models.SCOPES",
        "WorkspaceTokenScopeEnum": "accounts.tokens.models.WORKSPACE_SCOPES",
        "WebhookSignatureSchemeEnum": "flows.models.Flow.SignatureScheme",
    },
}
