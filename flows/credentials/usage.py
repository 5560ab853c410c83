"""Where flows refer to credentials: by id (`data.credential_id`) or by name
(`secrets.NAME` in a template or code).

`check_owned` refuses a graph naming another workspace's (or no) credential;
`flows_using` answers which flows a deletion would break.
"""

from __future__ import annotations

import re
import uuid

from django.apps import apps

from flows.credentials.models import Credential, strings_in


def credential_id_of(node) -> object:
    data = node.get("data") if isinstance(node, dict) else None
    return data.get("credential_id") if isinstance(data, dict) else None


def node_label(node: dict, index: int) -> str:
    name = node.get("name") or node.get("id") or index
    return f"{name!r} (node {index})"


def check_owned(nodes: list, workspace_id, errors) -> None:
    """Add a node error (GraphErrors.node) for each credential_id not of the
    flow's workspace.

    Another workspace's credential reads exactly like a missing one: whether it
    exists is not the caller's to learn. Costs one query when any node has one.
    """
    wanted: dict[int, object] = {}
    for index, node in enumerate(nodes):
        credential_id = credential_id_of(node)
        if credential_id is not None:
            wanted[index] = credential_id
    if not wanted:
        return
    valid = {}
    for index, value in wanted.items():
        try:
            valid[index] = uuid.UUID(str(value))
        except ValueError:
            valid[index] = None
    owned = set(
        Credential.objects.filter(
            workspace_id=workspace_id, pk__in=[v for v in valid.values() if v]
        ).values_list("pk", flat=True)
    )
    for index, credential_id in valid.items():
        if credential_id not in owned:
            errors.node(
                index,
                "data.credential_id",
                f"Node {node_label(nodes[index], index)} uses a credential that "
                "does not exist or is not of this flow's workspace.",
            )


def refers_to(nodes: list, credential: Credential) -> bool:
    """Whether any node uses `credential` by id or as `secrets.NAME`."""
    name = re.escape(credential.name)
    by_name = re.compile(
        rf"\bsecrets\s*(?:\?\.|\.)\s*{name}\b"
        rf"|\bsecrets\s*(?:\?\.)?\[\s*['\"`]{name}['\"`]"
    )
    for node in nodes:
        if not isinstance(node, dict):
            continue
        if str(credential_id_of(node)) == str(credential.pk):
            return True
        if any(by_name.search(text) for text in strings_in(node.get("data"))):
            return True
    return False


def flows_using(credential: Credential) -> list:
    """The workspace's flows that refer to `credential` (one query, scanned
    in Python)."""
    # Through the app registry: flows.models imports this package's model.
    flow_model = apps.get_model("flows", "Flow")
    return [
        flow
        for flow in flow_model.objects.filter(
            workspace_id=credential.workspace_id
        ).only("id", "name", "nodes")
        if refers_to(flow.nodes, credential)
    ]
