"""Credentials in exported flows: references by name and kind, never values.

`export_nodes(nodes, workspace_id)` turns each node's `credential_id` into
`credential: {name, kind}` and lists every credential the flow uses (by id or
as `secrets.NAME`) for the export's `credentials` section. `import_nodes(nodes,
credentials, workspace_id)` maps those references by name to the target workspace's
credentials (same name and kind), giving back the nodes with fresh
`credential_id`s and the references the importer lacks; the import endpoint
refuses the import (400, naming them) while any is missing.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from flows.credentials.models import Credential
from flows.credentials.usage import credential_id_of, refers_to

REF_KEY = "credential"


def export_nodes(nodes: list, workspace_id) -> tuple[list, list[dict]]:
    """The nodes with references instead of ids, and `[{name, kind}]` they use.

    A `credential_id` no longer in the workspace becomes no reference at all
    (the flow already could not run it). Costs one query.
    """
    owned = {
        str(credential.pk): credential
        for credential in Credential.objects.filter(workspace_id=workspace_id)
    }
    exported = copy.deepcopy(nodes)
    used: dict[str, Credential] = {}
    for node in exported:
        credential_id = credential_id_of(node)
        if credential_id is None:
            continue
        del node["data"]["credential_id"]
        credential = owned.get(str(credential_id))
        if credential is not None:
            node["data"][REF_KEY] = {"name": credential.name, "kind": credential.kind}
            used[credential.name] = credential
    for credential in owned.values():
        if credential.name not in used and refers_to(nodes, credential):
            used[credential.name] = credential
    return exported, [{"name": name, "kind": used[name].kind} for name in sorted(used)]


@dataclass
class ImportedNodes:
    nodes: list
    missing: list[dict] = field(default_factory=list)  # [{name, kind}]


MALFORMED = "A credential reference is an object {name, kind} of two strings."


def is_ref(ref) -> bool:
    return (
        isinstance(ref, dict)
        and isinstance(ref.get("name"), str)
        and isinstance(ref.get("kind"), str)
    )


def import_nodes(nodes: list, credentials: list, workspace_id) -> ImportedNodes:
    """Map references to the importer's credentials of the same name and kind.

    Raises ValueError(MALFORMED) for a `credentials` list, or a node's
    reference, that is not made of {name, kind} strings."""
    if credentials is not None and not (
        isinstance(credentials, list) and all(map(is_ref, credentials))
    ):
        raise ValueError(MALFORMED)
    mine = {
        (credential.name, credential.kind): credential
        for credential in Credential.objects.filter(workspace_id=workspace_id)
    }
    wanted = {(ref.get("name"), ref.get("kind")) for ref in credentials or []}
    imported = copy.deepcopy(nodes)
    for node in imported:
        data = node.get("data") if isinstance(node, dict) else None
        if not isinstance(data, dict):
            continue
        # An id from another installation (or user) means nothing here.
        data.pop("credential_id", None)
        ref = data.pop(REF_KEY, None)
        if ref is None:
            continue
        if not is_ref(ref):
            raise ValueError(MALFORMED)
        key = (ref.get("name"), ref.get("kind"))
        wanted.add(key)
        if key in mine:
            data["credential_id"] = str(mine[key].pk)
    missing = [
        {"name": name, "kind": kind}
        for name, kind in sorted(wanted, key=str)
        if (name, kind) not in mine
    ]
    return ImportedNodes(imported, missing)
