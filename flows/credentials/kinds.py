"""Credential kinds: what each kind holds and how it signs an HTTP request.

One registry serves the model (`Credential.apply`, `template_value`), the API
(which fields a kind takes, which it requires, which are secret), the
Credentials page (its form, built from `GET /api/credential-kinds`) and the
nodes (which kinds sign HTTP). The built-in kinds register here the way a
`weir.credential_kinds` plugin registers its own (flows/credentials/plugins.py,
docs/plugins.md): a plugin adds a name, it never changes one.
"""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass

# Letters, digits and underscores, so a kind reads well in exports and logs.
KIND_NAME = re.compile(r"^[a-z][a-z0-9_]{0,63}$")
FIELD_NAME = re.compile(r"^[a-z][a-z0-9_]{0,49}$")
USERNAME_AND_SECRETS = "username_and_secrets"
WIDGETS = ("text", "password", "select", "number", "email", "url", "list", "json")


class DuplicateCredentialKind(Exception):
    """A kind's name is taken."""


class UnknownKind(Exception):
    """A stored credential's kind is registered no more (its plugin is gone)."""


class BadCredentialKind(Exception):
    """A kind that cannot be registered: its message says why."""


@dataclass(frozen=True)
class KindField:
    """One field of a kind: public ones are shown back, secret ones never."""

    name: str
    label: str
    secret: bool = False
    required: bool = True
    widget: str = ""  # text (password when secret) unless said
    choices: tuple[str, ...] = ()
    placeholder: str = ""
    grant: str = ""  # oauth2: shown and taken for this grant only
    # Says where (or how) the secrets are sent: a host, a token URL. An edit
    # that changes it must send the kind's stored secrets again, so a secret
    # is never sent somewhere it was not typed for (docs/security.md, S18).
    destination: bool = False

    def as_json(self) -> dict:
        described = {
            "name": self.name,
            "label": self.label,
            "secret": self.secret,
            "required": self.required,
            "widget": self.widget or ("password" if self.secret else "text"),
        }
        if self.choices:
            described["choices"] = list(self.choices)
        if self.placeholder:
            described["placeholder"] = self.placeholder
        if self.grant:
            described["grant"] = self.grant
        if self.destination:
            described["destination"] = True
        return described


@dataclass(frozen=True)
class Header:
    """Signs with a header: `name`, or the name held in the public field
    `name_field`; its value is `prefix` and the secret `value`."""

    value: str
    name: str = ""
    name_field: str = ""
    prefix: str = ""

    def apply(self, public, secrets, headers, params) -> None:
        header = self.name or public[self.name_field]
        headers[header] = f"{self.prefix}{secrets[self.value]}"


@dataclass(frozen=True)
class Query:
    """Signs with a query parameter named `name` or by the field `name_field`."""

    value: str
    name: str = ""
    name_field: str = ""

    def apply(self, public, secrets, headers, params) -> None:
        params.append((self.name or public[self.name_field], secrets[self.value]))


@dataclass(frozen=True)
class Basic:
    """Signs with `Authorization: Basic` of the public `username` and the
    secret `password` fields."""

    username: str = "username"
    password: str = "password"

    def apply(self, public, secrets, headers, params) -> None:
        headers["Authorization"] = f"Basic {self.pair(public, secrets)}"

    def pair(self, public, secrets) -> str:
        text = f"{public.get(self.username, '')}:{secrets.get(self.password, '')}"
        return base64.b64encode(text.encode()).decode("ascii")


@dataclass(frozen=True)
class CredentialKind:
    """A kind: its fields, how it signs HTTP (`sign`, or None when it does
    not) and its docs, shown on the Credentials page."""

    name: str
    label: str
    fields: tuple[KindField, ...]
    sign: Header | Query | Basic | None = None
    docs: str = ""
    # What `{{ secrets.NAME }}` reads: the value of the field so named;
    # USERNAME_AND_SECRETS an object of the username and every secret; unset,
    # the one secret field's value, or an object of the secret fields.
    template: str = ""
    plugin: str = ""  # the package's entry point, for plugin kinds
    # Secrets stored that are no field (oauth2's tokens): sign may use them.
    stored_secrets: tuple[str, ...] = ()

    @property
    def public_fields(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.fields if not f.secret)

    @property
    def secret_fields(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.fields if f.secret)

    @property
    def destination_fields(self) -> tuple[str, ...]:
        """The public fields that say where (or how) its secrets are sent."""
        return tuple(f.name for f in self.fields if f.destination)

    @property
    def signs_http(self) -> bool:
        return self.sign is not None

    def template_value(self, public: dict, secrets: dict):
        if self.template == USERNAME_AND_SECRETS:
            return {"username": public.get("username", ""), **secrets}
        if self.template:
            return secrets.get(self.template, public.get(self.template))
        if len(self.secret_fields) == 1:
            return secrets.get(self.secret_fields[0])
        return {name: secrets[name] for name in self.secret_fields if name in secrets}

    def as_json(self) -> dict:
        return {
            "name": self.name,
            "label": self.label,
            "docs": self.docs,
            "signs_http": self.signs_http,
            "builtin": not self.plugin,
            "fields": [f.as_json() for f in self.fields],
        }


_KINDS: dict[str, CredentialKind] = {}
# Fields every kind shares, or the API's own: no kind may declare them.
RESERVED_FIELDS = frozenset(
    {"id", "name", "kind", "workspace", "has_value", "last_used_at", "created_at"}
    | {"updated_at", "connected", "reconnect_needed", "expires_at", "granted_scopes"}
)


def register(kind: CredentialKind) -> CredentialKind:
    """Add `kind`; BadCredentialKind or DuplicateCredentialKind say why not."""
    if not isinstance(kind, CredentialKind):
        raise BadCredentialKind(f"{kind!r} is not a CredentialKind.")
    if not KIND_NAME.match(kind.name or ""):
        raise BadCredentialKind(
            f"Kind name {kind.name!r}: lowercase letters, digits and underscores."
        )
    if kind.name in _KINDS:
        raise DuplicateCredentialKind(
            f"Credential kind {kind.name!r} is already registered."
        )
    for one in kind.fields:
        _check_field(kind, one)
    if isinstance(kind.sign, Header | Query | Basic):
        _check_sign(kind)
    elif kind.sign is not None:
        raise BadCredentialKind(f"{kind.name}: sign must be Header, Query or Basic.")
    _KINDS[kind.name] = kind
    return kind


def _check_field(kind: CredentialKind, one) -> None:
    if not isinstance(one, KindField):
        raise BadCredentialKind(f"{kind.name}: every field must be a KindField.")
    if not FIELD_NAME.match(one.name) or one.name in RESERVED_FIELDS:
        raise BadCredentialKind(f"{kind.name}: field name {one.name!r} is not allowed.")
    if one.widget and one.widget not in WIDGETS:
        raise BadCredentialKind(f"{kind.name}: unknown widget {one.widget!r}.")
    for other in _KINDS.values():
        for theirs in other.fields:
            if theirs.name == one.name and theirs.secret != one.secret:
                secret = "secret" if theirs.secret else "public"
                raise BadCredentialKind(
                    f"{kind.name}: field {one.name!r} is {secret} in {other.name}."
                )


def _check_sign(kind: CredentialKind) -> None:
    sign = kind.sign
    names = {f.name for f in kind.fields} | set(kind.stored_secrets)
    wanted = [getattr(sign, key, "") for key in ("value", "username", "password")]
    wanted.append(getattr(sign, "name_field", ""))
    missing = [name for name in wanted if name and name not in names]
    if missing:
        raise BadCredentialKind(f"{kind.name}: sign uses unknown field {missing[0]!r}.")
    if isinstance(sign, Header | Query) and not (sign.name or sign.name_field):
        raise BadCredentialKind(f"{kind.name}: sign needs a name or a name_field.")


def get(name: str) -> CredentialKind | None:
    return _KINDS.get(name)


def of(name: str) -> CredentialKind:
    """The kind `name`; UnknownKind when it is not registered."""
    try:
        return _KINDS[name]
    except KeyError:
        raise UnknownKind(missing_message(name)) from None


def missing_message(name: str) -> str:
    return (
        f"Credential kind {name!r} is not installed (its plugin was removed "
        "or skipped)."
    )


def all_kinds() -> list[CredentialKind]:
    return list(_KINDS.values())


def http_kinds() -> tuple[str, ...]:
    """The kinds that sign an HTTP request (a credential test sends a GET)."""
    return tuple(kind.name for kind in _KINDS.values() if kind.signs_http)


def public_fields() -> tuple[str, ...]:
    """Every kind's public fields, each once."""
    return tuple(dict.fromkeys(n for k in _KINDS.values() for n in k.public_fields))


def secret_fields() -> tuple[str, ...]:
    return tuple(dict.fromkeys(n for k in _KINDS.values() for n in k.secret_fields))
