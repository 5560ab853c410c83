"""Literal secrets typed into a flow (issue 27 item 17): found and replaced
wherever a flow leaves its editors: exports, version history and the
admin (which puts back, with `keep`, what an edit left masked).

Two kinds of literal are found in every string of a node's data (URLs, bodies,
code, header values, keys too):

- the credential values of the flow's workspace, in each form a run's redaction knows
  (`Credential.redaction_values`), with the run's Aho-Corasick matcher
  (`Redactor`): replaced by `[redacted:NAME]`, which tells the reader which
  credential to use instead;
- well-known token shapes (`TOKEN_SHAPES`: OpenAI/Anthropic `sk-…`, Stripe,
  GitHub `ghp_…`, Slack `xox…-`, AWS `AKIA…`, Google `AIza…`, JWTs, the
  token after `Bearer`/`Basic`, a password in a URL): replaced by `[redacted]`;
- whatever is typed into a field named for a secret, whatever it looks like
  (issue 34 part 2 item 5): the value of a key such as `api_key`,
  `client_secret`, `password`, `token`, `secret` or `Authorization` in node
  data (headers, a JSON body, a query), and after such a name in text
  (`?api_key=…` in a URL, `"password": "…"` in a body typed as text):
  replaced by `[redacted]`.

A `{{ secrets.NAME }}` reference is not a literal and is never touched.
"""

from __future__ import annotations

import re
from typing import Any

from core import crypto
from core.redact import Redactor
from flows.credentials.models import Credential

SHAPE_MARKER = "[redacted]"

# Each alternative is a run of one character class after a fixed prefix: no
# nested quantifiers, so matching stays linear in the text's length.
TOKEN_SHAPES = re.compile(
    r"""
    (?P<token>
        \bsk-[A-Za-z0-9_-]{20,}
      | \b[sr]k_(?:live|test)_[A-Za-z0-9]{16,}
      | \bgh[pousr]_[A-Za-z0-9]{30,}
      | \bgithub_pat_[A-Za-z0-9_]{30,}
      | \bxox[abposr]-[A-Za-z0-9-]{10,}
      | \b(?:AKIA|ASIA)[0-9A-Z]{16}\b
      | \bAIza[0-9A-Za-z_-]{35}
      | \beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}
    )
    # After Bearer/Basic: 16 or more token characters with a digit among them
    # ("Basic authentication" in a comment is not a secret).
    | \b(?:Bearer|Basic)[ ]+
      (?P<auth>(?=[A-Za-z0-9._~+/=-]*[0-9])[A-Za-z0-9._~+/=-]{16,})
    # The password of a URL's user info (https://user:password@host).
    | ://[^/\s:@{}"']+:(?P<password>[^/\s@{}"']+)@
    """,
    re.VERBOSE,
)


# A key that names a secret: the whole key, or its last word (`X-Api-Key`,
# `access_token`, `client_secret`). `{{ … }}` values are references, kept.
SECRET_KEY = re.compile(
    r"(?i)(?:^|[-_. ])(?:api[-_]?key|apikey|client[-_]?secret|secret|password"
    r"|passwd|token|authorization)$"
)
_NAMES = (
    r"(?:[a-z0-9]+[-_])?(?:api[-_]?key|apikey|client[-_]?secret|secret|password"
    r"|passwd|token|authorization)"
)
# Such a name in text with a literal value: a URL's query or a form body
# (`?api_key=…`, `&password=…`), or a quoted value (`"password": "…"`,
# `token = '…'`); code like `token = getToken()` is left alone. One character
# class per part: linear in the text.
SECRET_AFTER_KEY = re.compile(
    rf"""(?ix)
    (?:^|[?&]){_NAMES}=(?P<plain>(?!\{{\{{)[^\s&\#"'<>]+)
    | (?<![a-z0-9]){_NAMES}["']?[ ]*[:=][ ]*["'](?P<quoted>(?!\{{\{{)[^"'\s]+)["']
    """
)


def _after_key(match: re.Match) -> str:
    start, end = match.span("plain" if match["plain"] else "quoted")
    whole_start = match.start()
    text = match[0]
    return text[: start - whole_start] + SHAPE_MARKER + text[end - whole_start :]


def _secret_field(key: Any, value: str) -> bool:
    """Whether `value` is a literal typed into a field named for a secret."""
    return (
        isinstance(key, str)
        and bool(SECRET_KEY.search(key))
        and bool(value.strip())
        and "{{" not in value
        and value != SHAPE_MARKER
    )


def _replace_shape(match: re.Match) -> str:
    group = next(name for name in ("token", "auth", "password") if match[name])
    start, end = match.span(group)
    whole_start = match.start()
    text = match[0]
    return text[: start - whole_start] + SHAPE_MARKER + text[end - whole_start :]


class LiteralSecrets:
    """The matcher for one workspace's credentials plus the token shapes."""

    def __init__(self, redactor: Redactor):
        self.redactor = redactor

    @classmethod
    def of_workspace(cls, workspace_id) -> LiteralSecrets:
        """Decrypts each of the workspace's credentials; one query. One that no
        key opens (a key dropped before rotation) cannot be looked for, and
        must not turn every save and export into a 500: it is skipped."""
        redactor = Redactor()
        for credential in Credential.objects.filter(workspace_id=workspace_id):
            try:
                secrets = credential.secrets()
            except crypto.UndecryptableValue:
                continue
            redactor.add(credential.name, credential.redaction_values(secrets))
        return cls(redactor)

    def text(self, text: str) -> str:
        text = TOKEN_SHAPES.sub(_replace_shape, self.redactor.text(text))
        return SECRET_AFTER_KEY.sub(_after_key, text)

    def shown(self, key: Any, value: str) -> str:
        """`value` as shown under `key`: its literals replaced (`Bearer
        [redacted]`, `[redacted:NAME]`); when none is found and the key names
        a secret, all of it."""
        clean = self.text(value)
        if clean == value and _secret_field(key, value):
            return SHAPE_MARKER
        return clean

    def scrub(self, value: Any, path: str = "") -> tuple[Any, list[str]]:
        """`value` with every literal replaced, and the paths where
        (`headers.X-Api-Key`, `body[2]`); the input is never modified."""
        found: list[str] = []
        return self._scrub(value, path, found), found

    def _scrub(self, value: Any, path: str, found: list[str]) -> Any:
        if isinstance(value, str):
            clean = self.text(value)
            if clean != value:
                found.append(path)
            return clean
        if isinstance(value, dict):
            out = {}
            for key, item in value.items():
                clean_key = self.text(key) if isinstance(key, str) else key
                where = f"{path}.{clean_key}" if path else str(clean_key)
                if clean_key != key:
                    found.append(where)
                if isinstance(item, str):
                    out[clean_key] = self.shown(key, item)
                    if out[clean_key] != item:
                        found.append(where)
                else:
                    out[clean_key] = self._scrub(item, where, found)
            return out
        if isinstance(value, list):
            return [
                self._scrub(item, f"{path}[{index}]", found)
                for index, item in enumerate(value)
            ]
        return value

    def keep(self, edited: Any, stored: Any) -> Any:
        """`edited` (someone's edit of `stored` as `scrub` showed it) with each
        string left as shown put back as stored, so a secret shown masked is
        write-only: kept unless typed over. Lists of nodes pair up by `id`,
        other lists by position, objects by their shown keys."""
        if isinstance(edited, str) and isinstance(stored, str):
            return stored if edited == self.text(stored) else edited
        if isinstance(edited, dict) and isinstance(stored, dict):
            shown = {self.text(k) if isinstance(k, str) else k: k for k in stored}
            out = {}
            for key, item in edited.items():
                original = shown.get(key, key)
                old = stored.get(original)
                if isinstance(item, str) and isinstance(old, str):
                    out[original] = old if item == self.shown(original, old) else item
                else:
                    out[original] = self.keep(item, old)
            return out
        if isinstance(edited, list) and isinstance(stored, list):
            by_id = {_id_of(item): item for item in stored if _id_of(item)}
            out = []
            for index, item in enumerate(edited):
                if _id_of(item):
                    old = by_id.get(_id_of(item))
                else:
                    old = stored[index] if index < len(stored) else None
                out.append(self.keep(item, old))
            return out
        return edited

    def nodes(self, nodes: list) -> tuple[list, list[dict]]:
        """Each node with its `data` scrubbed, and `[{node_id, field}]` for
        every replacement."""
        clean, redacted = [], []
        for node in nodes:
            if not isinstance(node, dict):
                clean.append(node)
                continue
            data, where = self.scrub(node.get("data"), "data")
            clean.append({**node, "data": data} if where else node)
            redacted += [{"node_id": node.get("id"), "field": field} for field in where]
        return clean, redacted

    def flow(self, content: dict) -> tuple[dict, list[dict]]:
        """A flow's content (`nodes` and the free-text fields `name`,
        `description`, `input_schema` when present) scrubbed; a flow field's
        entry has `node_id: None`."""
        clean, redacted = dict(content), []
        for field in FLOW_FIELDS:
            if field in content:
                clean[field], where = self.scrub(content[field], field)
                redacted += [{"node_id": None, "field": path} for path in where]
        if isinstance(content.get("nodes"), list):
            clean["nodes"], in_nodes = self.nodes(content["nodes"])
            redacted += in_nodes
        return clean, redacted


FLOW_FIELDS = ("name", "description", "input_schema")


def _id_of(item: Any):
    return item.get("id") if isinstance(item, dict) else None


def save_warnings(nodes: list, workspace_id) -> list[str]:
    """A flow API `warnings` entry for each literal secret in a saved graph:
    it works, but belongs in a credential (and exports will drop it)."""
    _, redacted = LiteralSecrets.of_workspace(workspace_id).nodes(nodes)
    return [
        f"Node {entry['node_id']!r} has a secret typed into {entry['field']}: "
        "save it as a credential and use {{ secrets.NAME }} (or pick the "
        "credential); exports and version history show [redacted] there."
        for entry in redacted
    ]
