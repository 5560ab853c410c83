"""A flow as portable JSON: what `GET /api/flows/:id/export` writes and import reads.

The format is versioned by `weir_version` (`FORMAT_VERSION`) so a later Weir can
read an old file, or refuse one from the future, instead of guessing. It carries
the flow's name, description, input schema and graph, and never a secret: not the
webhook signing secret, not owner, ids of runs or anything tied to this server
beyond the node ids the graph itself uses. Literal secrets typed into node data
are replaced (`flows.credentials.literals`) and listed under `redacted`.
"""

from __future__ import annotations

import re

from flows.credentials.literals import LiteralSecrets
from flows.credentials.portable import export_nodes

FORMAT_VERSION = 1
EXPORTED_FIELDS = ("name", "description", "input_schema", "nodes", "edges")

# Header names whose values are credentials by any reasonable reading.
SECRET_HEADER = re.compile(
    r"authorization|cookie|token|secret|password|passwd|api[-_]?key|signature",
    re.IGNORECASE,
)
# A value that is only a template (`{{ input.token }}`) holds no secret itself.
ONLY_TEMPLATE = re.compile(r"^\s*\{\{[^{}]*\}\}\s*$")


def export_node_data(node: dict) -> dict:
    """The node's `data` as it may leave this server: secrets removed.

    The one place an export touches node data. Today it blanks the values of
    secret-looking headers of an `http_request` node (a literal `Authorization:
    Bearer ...` typed into the node), and writes out its `on_http_error` (see
    `imported_nodes`). Credential references become `{name, kind}` in
    `export_flow`, which needs the workspace's credentials.
    """
    data = dict(node.get("data") or {})
    if node.get("type") == "http_request":
        data.setdefault("on_http_error", "fail")
    headers = data.get("headers")
    if node.get("type") == "http_request" and isinstance(headers, dict):
        data["headers"] = {
            name: "" if _blanked_header(name, value) else value
            for name, value in headers.items()
        }
    return data


def _blanked_header(name: str, value) -> bool:
    """Whether `export_node_data` blanks this header of an http_request node."""
    return bool(SECRET_HEADER.search(name)) and not (
        isinstance(value, str) and ONLY_TEMPLATE.match(value)
    )


def keep_blanked_headers(nodes: list, stored: list) -> list:
    """`nodes` (a file's, over the flow's `stored` nodes) with each header the
    export blanked and the file left blank given back its stored value: a file
    holds no secret, and syncing it back must not write the blank over it."""
    by_id = {node.get("id"): node for node in stored if isinstance(node, dict)}
    kept = []
    for node in nodes:
        old = None
        if isinstance(node, dict) and node.get("type") == "http_request":
            old = by_id.get(node.get("id"))
        headers = (node.get("data") or {}).get("headers") if old else None
        old_headers = (old.get("data") or {}).get("headers") if old else None
        if isinstance(headers, dict) and isinstance(old_headers, dict):
            restored = {
                name: old_headers[name]
                if value == ""
                and old_headers.get(name)
                and _blanked_header(name, old_headers[name])
                else value
                for name, value in headers.items()
            }
            node = {**node, "data": {**node["data"], "headers": restored}}
        kept.append(node)
    return kept


def imported_nodes(nodes: list) -> list:
    """An imported graph's nodes, each http_request node without
    `on_http_error` given `"output"`: every export since that setting exists
    writes it out, so a node without it comes from an older file, made when
    an error answer was the node's output (migration 0032 did the same to
    the flows saved then)."""
    return [
        {**node, "data": {**node["data"], "on_http_error": "output"}}
        if isinstance(node, dict)
        and node.get("type") == "http_request"
        and isinstance(node.get("data"), dict)
        and "on_http_error" not in node["data"]
        else node
        for node in nodes
    ]


def _blanked(node: dict, data: dict) -> list[dict]:
    """Where `export_node_data` blanked a header, as `redacted` entries."""
    before = (node.get("data") or {}).get("headers")
    after = data.get("headers")
    if not (isinstance(before, dict) and isinstance(after, dict)):
        return []
    return [
        {"node_id": node.get("id"), "field": f"data.headers.{name}"}
        for name, value in before.items()
        if value and after.get(name) == ""
    ]


def export_flow(flow) -> dict:
    """The flow as a portable document (`weir_version` first).

    Credentials travel by name and kind, never by id or value: `credentials`
    lists those the flow uses, and a node's `credential_id` becomes
    `credential: {name, kind}` (flows.credentials.portable). Literal secrets
    (the owner's credential values, known token shapes) become `[redacted:NAME]`
    or `[redacted]`, each listed in `redacted` as `{node_id, field}`. Two
    queries (the owner's credentials, decrypted once here).
    """
    document = {"weir_version": FORMAT_VERSION}
    for field in EXPORTED_FIELDS:
        document[field] = getattr(flow, field)
    nodes, redacted = [], []
    for node in flow.nodes:
        if isinstance(node, dict):
            data = export_node_data(node)
            redacted += _blanked(node, data)
            node = {**node, "data": data}
        nodes.append(node)
    document["nodes"] = nodes
    document, literals = LiteralSecrets.of_workspace(flow.workspace_id).flow(document)
    document["nodes"], document["credentials"] = export_nodes(
        document["nodes"], flow.workspace_id
    )
    document["redacted"] = redacted + literals
    return document


def export_filename(flow) -> str:
    """A safe download name from the flow's name: `my-flow.weir.json`."""
    slug = re.sub(r"[^a-z0-9]+", "-", flow.name.lower()).strip("-")[:60]
    return f"{slug or 'flow'}.weir.json"
