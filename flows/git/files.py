"""One flow as one file of a directory, and the directory's manifest.

A file is the flow's portable export (flows/api/portable.py: credentials by
name and kind, no secret, no pins, no webhook settings) plus its `key`, the
stable name that ties the file to a flow in any workspace (`Flow.key`; the
file is `<key>.json`). It leaves out what differs between workspaces or
exports: ids, the `redacted` report. The text is deterministic: keys sorted,
2-space indent, each node and each edge on one line of its own, so a `git
diff` of one edit shows only the lines of the nodes it touched.
"""

from __future__ import annotations

import json
import re

from flows.api.portable import FORMAT_VERSION, export_flow

MANIFEST = "weir.json"
KEY = re.compile(r"^[a-z0-9][a-z0-9-]{0,79}$")
ONE_PER_LINE = ("nodes", "edges")


def slugify(name: str) -> str:
    """`My Flow!` → `my-flow` (the first key of a flow: its name, made safe)."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:60] or "flow"


def assign_keys(flows) -> None:
    """Give each flow without a key one from its name, unique in the list
    (`name`, `name-2`, ...), and store it: the key must outlive a rename."""
    taken = {flow.key for flow in flows if flow.key}
    for flow in flows:
        if flow.key:
            continue
        base = key = slugify(flow.name)
        number = 1
        while key in taken:
            number += 1
            key = f"{base}-{number}"
        taken.add(key)
        flow.key = key
        type(flow).objects.filter(pk=flow.pk).update(key=key)


def flow_document(flow) -> dict:
    """What the flow's file holds: its export without `redacted`, with `key`."""
    document = export_flow(flow)
    document.pop("redacted", None)
    document["key"] = flow.key
    return document


def _compact(value) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def render(document: dict) -> str:
    """The file's text: sorted keys, 2-space indent, one line per node and edge."""
    lines = ["{"]
    keys = sorted(document)
    for index, key in enumerate(keys):
        comma = "," if index < len(keys) - 1 else ""
        value = document[key]
        if key in ONE_PER_LINE and isinstance(value, list) and value:
            items = [f"    {_compact(item)}" for item in value]
            body = ",\n".join(items)
            lines.append(f"  {json.dumps(key)}: [\n{body}\n  ]{comma}")
        else:
            text = json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False)
            text = text.replace("\n", "\n  ")
            lines.append(f"  {json.dumps(key)}: {text}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def manifest(workspace, names: list[str]) -> dict:
    """`weir.json`: the format, where the files came from, and which they are."""
    return {
        "weir_version": FORMAT_VERSION,
        "workspace": workspace.slug,
        "files": sorted(names),
    }


def export_workspace(workspace) -> dict[str, str]:
    """Every flow of the workspace as `{file name: text}`, and the manifest.
    Assigns keys to flows that have none (one UPDATE each)."""
    flows = list(workspace.flows.order_by("created_at", "pk"))
    assign_keys(flows)
    texts = {f"{flow.key}.json": render(flow_document(flow)) for flow in flows}
    texts[MANIFEST] = render(manifest(workspace, list(texts)))
    return texts
