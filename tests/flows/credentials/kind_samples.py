"""Credential kinds for the plugin loader's tests: a good one, and ones it refuses."""

from flows.credentials.kinds import CredentialKind, Header, KindField, Query

PING_KEY = CredentialKind(
    "ping_key",
    "Ping key",
    (KindField("key", "Key", secret=True),),
    sign=Query("key", name="ping"),
    docs="A key sent as ?ping=.",
)
# Takes the built-in bearer's name.
BEARER_AGAIN = CredentialKind(
    "bearer", "Not the bearer", (KindField("token", "Token", secret=True),)
)
# `username` is public in basic, smtp and postgres: secret here.
SECRET_USERNAME = CredentialKind(
    "odd_login", "Odd login", (KindField("username", "Username", secret=True),)
)
# Signs with a field it does not have.
SIGNS_WITH_NOTHING = CredentialKind(
    "nothing_signs",
    "Nothing",
    (KindField("token", "Token", secret=True),),
    sign=Header("secret", name="X-Secret"),
)
NOT_A_KIND = {"name": "dict_kind"}
