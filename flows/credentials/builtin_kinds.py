"""The kinds Weir ships, registered like a plugin's (flows/credentials/kinds.py).

Their extra checks (a host's shape, an e-mail address, an oauth2 grant's
fields) stay with the API's serializer, which declares those fields itself.
"""

from __future__ import annotations

from flows.credentials.kinds import (
    USERNAME_AND_SECRETS,
    Basic,
    CredentialKind,
    Header,
    KindField,
    Query,
    register,
)

AUTHORIZATION_CODE = "authorization_code"

PASSWORD = KindField("password", "Password", secret=True)
OPTIONAL_PASSWORD = KindField("password", "Password", secret=True, required=False)
USERNAME = KindField("username", "Username")
HOST = KindField("host", "Host", placeholder="smtp.example.com", destination=True)
PORT = KindField(
    "port",
    "Port",
    required=False,
    widget="number",
    placeholder="587 (465 for TLS), 5432 for PostgreSQL",
    destination=True,
)

BUILTIN_KINDS = (
    CredentialKind(
        "bearer",
        "Bearer",
        (KindField("token", "Token", secret=True),),
        sign=Header("token", name="Authorization", prefix="Bearer "),
        docs="A token sent as Authorization: Bearer <token>.",
    ),
    CredentialKind(
        "header",
        "Header",
        (
            KindField("header_name", "Header name", placeholder="X-Api-Key"),
            KindField("value", "Value", secret=True),
        ),
        sign=Header("value", name_field="header_name"),
        docs="A value sent as the header you name.",
    ),
    CredentialKind(
        "basic",
        "Basic",
        (KindField("username", "Username", required=False), PASSWORD),
        sign=Basic(),
        docs="A username and password sent as Authorization: Basic.",
        template=USERNAME_AND_SECRETS,
    ),
    CredentialKind(
        "query",
        "Query",
        (
            KindField("param_name", "Parameter name", placeholder="api_key"),
            KindField("value", "Value", secret=True),
        ),
        sign=Query("value", name_field="param_name"),
        docs="A value added to the URL as the query parameter you name.",
    ),
    CredentialKind(
        "custom",
        "Custom",
        (
            KindField(
                "values",
                "Values (JSON object of strings)",
                secret=True,
                widget="json",
                placeholder='{"api_key": "…", "secret": "…"}',
            ),
        ),
        docs="A JSON object of secrets that templates and code read.",
    ),
    CredentialKind(
        "smtp",
        "SMTP",
        (
            HOST,
            PORT,
            KindField(
                "security",
                "Security",
                required=False,
                widget="select",
                choices=("starttls", "tls", "none"),
                destination=True,  # "none" sends the password in the clear
            ),
            KindField("username", "Username", required=False),
            KindField(
                "from_address",
                "From address",
                widget="email",
                placeholder="flows@example.com",
            ),
            OPTIONAL_PASSWORD,
        ),
        docs="A mail server, for the Send email node.",
        template=USERNAME_AND_SECRETS,
    ),
    CredentialKind(
        "postgres",
        "PostgreSQL",
        (
            HOST,
            PORT,
            KindField("database", "Database"),
            USERNAME,
            KindField(
                "sslmode",
                "SSL mode",
                required=False,
                widget="select",
                choices=("prefer", "require", "verify-full", "verify-ca", "disable"),
                destination=True,
            ),
            OPTIONAL_PASSWORD,
        ),
        docs="A database, for the Postgres query node.",
        template=USERNAME_AND_SECRETS,
    ),
    # What an oauth2 credential needs depends on its grant: the serializer's
    # OAuth2Fields checks that, so every field but the grant is optional here.
    # Its tokens are stored beside client_secret, but are no field.
    CredentialKind(
        "oauth2",
        "OAuth2",
        (
            KindField(
                "grant",
                "Grant",
                widget="select",
                choices=(AUTHORIZATION_CODE, "client_credentials"),
            ),
            KindField(
                "authorize_url",
                "Authorize URL",
                required=False,
                widget="url",
                grant=AUTHORIZATION_CODE,
                placeholder="https://accounts.example.com/oauth/authorize",
            ),
            KindField(
                "token_url",
                "Token URL",
                required=False,
                widget="url",
                placeholder="https://accounts.example.com/oauth/token",
                destination=True,
            ),
            KindField("client_id", "Client ID", required=False, destination=True),
            KindField("client_secret", "Client secret", secret=True, required=False),
            KindField(
                "scopes",
                "Scopes (separated by spaces)",
                required=False,
                widget="list",
                placeholder="read write",
            ),
            KindField(
                "authorize_params",
                "Extra authorize parameters (JSON object, optional)",
                required=False,
                widget="json",
                grant=AUTHORIZATION_CODE,
                placeholder='{"access_type": "offline"}',
            ),
            KindField(
                "client_auth",
                "Client authentication",
                required=False,
                widget="select",
                choices=("client_secret_basic", "client_secret_post"),
            ),
        ),
        sign=Header("access_token", name="Authorization", prefix="Bearer "),
        docs="Connect an account, or use a client's own token.",
        template="access_token",
        stored_secrets=("access_token", "refresh_token"),
    ),
)


def register_builtin_kinds() -> None:
    for kind in BUILTIN_KINDS:
        register(kind)
