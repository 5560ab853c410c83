"""One app: a checked OpenAPI document read as actions (its operations), the
credential kinds its `securitySchemes` accept, and its base URL."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

METHODS = ("get", "put", "post", "delete", "patch", "head", "options")
MULTIPART = "multipart/form-data"
BODY_TYPES = ("application/json", "application/x-www-form-urlencoded", MULTIPART)


def scheme_kinds(scheme: dict) -> tuple[str, ...]:
    """The credential kinds (flows/credentials) that can sign for `scheme`.

    A bearer scheme takes a pasted token or an OAuth2 client; an OAuth2 or
    OpenID Connect scheme the OAuth2 client, or a token pasted as bearer (a
    Slack bot token, say); an apiKey a header or query credential whose name
    is the scheme's."""
    kind = scheme.get("type")
    if kind == "http":
        which = str(scheme.get("scheme", "")).lower()
        return {"bearer": ("bearer", "oauth2"), "basic": ("basic",)}.get(which, ())
    if kind == "apiKey":
        return {"header": ("header",), "query": ("query",)}.get(scheme.get("in"), ())
    if kind in ("oauth2", "openIdConnect"):
        return ("oauth2", "bearer")
    return ()


@dataclass(frozen=True)
class Operation:
    """One action: what the builder's form and the node need of an operation."""

    id: str
    summary: str
    method: str
    path: str
    parameters: list
    request_body_schema: dict | None
    body_type: str | None
    answer_type: str | None
    # Its own `security` (a list of requirements; [] for none), or None when
    # the document's applies.
    security: list | None = None

    def as_json(self) -> dict:
        return {
            "id": self.id,
            "summary": self.summary,
            "method": self.method,
            "path": self.path,
            "parameters": self.parameters,
            "request_body_schema": self.request_body_schema,
        }


@dataclass(frozen=True)
class App:
    """An app and where it came from: "vendored", "uploaded" or "plugin"."""

    slug: str
    document: dict  # checked, its $refs resolved (flows/app_actions/documents.py)
    source: str
    icon: str | None = None
    extra: dict = field(default_factory=dict)

    @property
    def name(self) -> str:
        return str(self.document["info"].get("title") or self.slug)

    @property
    def description(self) -> str:
        info = self.document["info"]
        return str(info.get("summary") or info.get("description") or "")

    @property
    def server_url(self) -> str | None:
        """The first server's URL with its variables' defaults (None: none)."""
        servers = self.document.get("servers") or []
        if not servers:
            return None
        url = servers[0].get("url", "")
        for name, variable in (servers[0].get("variables") or {}).items():
            url = url.replace("{" + name + "}", str(variable.get("default", "")))
        return url.rstrip("/")

    @cached_property
    def operations(self) -> dict[str, Operation]:
        found = {}
        for path, item in (self.document.get("paths") or {}).items():
            shared = item.get("parameters") or []
            for method in METHODS:
                operation = item.get(method)
                if isinstance(operation, dict):
                    read = read_operation(path, method, operation, shared)
                    found[read.id] = read
        return found

    @cached_property
    def auth(self) -> list[dict]:
        """Each security scheme the document uses, with the credential kinds
        that can sign for it."""
        schemes = (self.document.get("components") or {}).get("securitySchemes") or {}
        return [
            {
                "scheme": name,
                "type": scheme.get("type"),
                "in": scheme.get("in"),
                "name": scheme.get("name"),
                "kinds": list(scheme_kinds(scheme)),
            }
            for name, scheme in schemes.items()
        ]

    @cached_property
    def credential_kinds(self) -> tuple[str, ...]:
        kinds = []
        for scheme in self.auth:
            kinds += [kind for kind in scheme["kinds"] if kind not in kinds]
        return tuple(kinds)

    def requirements(self, operation: Operation) -> list | None:
        """The security requirements of `operation`: its own, else the
        document's; None when neither says."""
        if operation.security is not None:
            return operation.security
        return self.document.get("security")

    def auth_of(self, operation: Operation) -> tuple[tuple[str, ...], bool]:
        """`(kinds, required)` for `operation`: the credential kinds of the
        schemes its `security` names, else the document's `security`, else
        every scheme's. `security: []` means no auth: no kinds, and the node
        sends none. An empty requirement (`{}`) among others makes auth
        optional."""
        requirements = self.requirements(operation)
        if requirements is None:
            return self.credential_kinds, bool(self.credential_kinds)
        names = {name for requirement in requirements for name in requirement}
        kinds: list[str] = []
        for scheme in self.auth:
            if scheme["scheme"] in names:
                kinds += [kind for kind in scheme["kinds"] if kind not in kinds]
        required = bool(requirements) and all(requirements)
        return tuple(kinds), required

    def summary(self) -> dict:
        return {
            "slug": self.slug,
            "name": self.name,
            "description": self.description,
            "icon": self.icon,
            "operations_count": len(self.operations),
            "auth": self.auth,
            "source": self.source,
        }


def read_operation(path: str, method: str, operation: dict, shared: list) -> Operation:
    by_place = {(p.get("in"), p.get("name")): p for p in shared}
    by_place.update(
        {(p.get("in"), p.get("name")): p for p in operation.get("parameters") or []}
    )
    parameters = [
        {
            "name": parameter["name"],
            "in": parameter["in"],
            "required": bool(parameter.get("required")) or parameter["in"] == "path",
            "description": parameter.get("description", ""),
            "schema": parameter.get("schema") or {},
        }
        for parameter in by_place.values()
        if parameter.get("in") in ("path", "query", "header")
    ]
    content = (operation.get("requestBody") or {}).get("content") or {}
    body_type = next((kind for kind in BODY_TYPES if kind in content), None)
    schema = content[body_type].get("schema") if body_type else None
    return Operation(
        id=operation.get("operationId") or f"{method} {path}",
        summary=operation.get("summary") or operation.get("description", "")[:200],
        method=method.upper(),
        path=path,
        parameters=parameters,
        request_body_schema=schema,
        body_type=body_type,
        answer_type=answer_type(operation),
        security=operation.get("security"),
    )


def answer_type(operation: dict) -> str | None:
    """How the node reads the answer (its `response_format`), from the media
    type the first 2xx response declares: JSON parsed when the answer says
    JSON ("auto", so an error page in HTML stays readable), text as text,
    anything else a run file; None when nothing is declared ("auto")."""
    for status, response in (operation.get("responses") or {}).items():
        if not str(status).startswith("2"):
            continue
        for media in response.get("content") or {}:
            if "json" in media:
                return "auto"
            if media.startswith("text/"):
                return "text"
            return "file"
    return None
