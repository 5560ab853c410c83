"""Apply a directory of flow files to a workspace: the plan, then the change.

`plan_sync(workspace, files, prune)` reads `{file name: document}` (the
manifest, `weir.json`, is skipped) and decides per flow: `create` (no flow of
the workspace has the file's key), `update` (its content differs; with a
unified diff of the flow's file), `unchanged`, and with `prune` `delete` for
the workspace's flows no file names. A flow without a key whose name makes
the file's key is adopted (so a first import over flows made by hand updates
them instead of doubling them). It raises `BadFile` for the first file it
cannot read and `MissingCredentials` listing every credential (name and kind)
the workspace lacks; either way nothing is applied.

`apply_sync(plan, actor)` makes the changes in one transaction, each through
`save_flow` with source `git`: importing the same directory twice writes
nothing the second time.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field

from django.conf import settings
from django.db import transaction

from accounts.audit.record import record
from core.storable import Unstorable, check_storable
from flows.api.portable import (
    EXPORTED_FIELDS,
    FORMAT_VERSION,
    imported_nodes,
    keep_blanked_headers,
)
from flows.credentials.literals import LiteralSecrets
from flows.credentials.portable import import_nodes
from flows.git.files import KEY, MANIFEST, flow_document, render, slugify
from flows.graph import validate_graph
from flows.history.save import save_flow
from flows.models import Flow
from flows.nodes.schedule import enabled_schedule
from flows.refs import check_called_flows


class BadFile(Exception):
    """A file of the directory that is no flow file this server reads."""

    def __init__(self, name: str, message: str):
        super().__init__(f"{name}: {message}")
        self.name = name
        self.message = message


class MissingCredentials(Exception):
    """Credentials the files use and the workspace lacks: `[{name, kind, files}]`."""

    def __init__(self, missing: list[dict]):
        names = ", ".join(f"{ref['name']} ({ref['kind']})" for ref in missing)
        super().__init__(f"Create these credentials first, then sync again: {names}.")
        self.missing = missing


@dataclass
class Step:
    action: str  # create, update, unchanged, delete
    key: str
    name: str
    file: str = ""
    diff: str = ""
    flow: object = None
    fields: dict = field(default_factory=dict)
    promoted_from: dict | None = None  # a promotion's step: where it comes from

    def as_dict(self) -> dict:
        step = {"action": self.action, "key": self.key, "name": self.name}
        step["file"] = self.file or None
        if self.action == "update" or self.diff:
            step["diff"] = self.diff
        return step


@dataclass
class Plan:
    workspace: object
    steps: list[Step]

    def counts(self) -> dict:
        actions = ("create", "update", "delete", "unchanged")
        return {a: sum(s.action == a for s in self.steps) for a in actions}

    def as_dict(self) -> dict:
        return {
            "steps": [step.as_dict() for step in self.steps],
            "counts": self.counts(),
        }


def read_document(name: str, document) -> dict:
    """The file's flow fields and key; `BadFile` when it is not a flow file."""
    if not isinstance(document, dict):
        raise BadFile(name, "A flow file is a JSON object.")
    if document.get("weir_version") != FORMAT_VERSION:
        raise BadFile(name, f"weir_version must be {FORMAT_VERSION}.")
    key = document.get("key")
    if not isinstance(key, str) or not KEY.match(key):
        raise BadFile(name, "key must be lower-case letters, digits and dashes.")
    if name != f"{key}.json":
        raise BadFile(name, f"The file of key {key!r} is named {key}.json.")
    if not isinstance(document.get("name"), str) or not document["name"].strip():
        raise BadFile(name, "name must be a non-empty string.")
    for list_field in ("nodes", "edges"):
        if not isinstance(document.get(list_field, []), list):
            raise BadFile(name, f"{list_field} must be a list.")
    try:  # as the flow API's fields are (a NUL, a lone surrogate, 1e400)
        check_storable(document, what="The file")
    except Unstorable as problem:
        raise BadFile(name, str(problem)) from None
    return document


def plan_sync(workspace, files: dict, *, prune: bool = False) -> Plan:
    """What applying `files` would do to the workspace (reads, writes nothing)."""
    flows = list(workspace.flows.order_by("created_at", "pk"))
    by_key = {flow.key: flow for flow in flows if flow.key}
    unkeyed = {}
    for flow in flows:
        if not flow.key:
            unkeyed.setdefault(slugify(flow.name), flow)
    steps, missing, matched = [], {}, set()
    literals = None
    for name in sorted(files):
        if name == MANIFEST:
            continue
        document = read_document(name, files[name])
        step = _step_for(name, document, workspace, missing)
        step.flow = by_key.get(step.key) or unkeyed.get(step.key)
        if step.flow is not None:
            matched.add(step.flow.pk)
            literals = literals or LiteralSecrets.of_workspace(workspace.pk)
            _keep_literals(step, literals)
            _compare(step, document)
        steps.append(step)
    if missing:
        raise MissingCredentials(
            [
                {"name": n, "kind": k, "files": sorted(used)}
                for (n, k), used in sorted(missing.items())
            ]
        )
    if prune:
        steps += [
            Step("delete", flow.key, flow.name, flow=flow)
            for flow in flows
            if flow.pk not in matched
        ]
    _check_schedules(workspace, flows, steps, matched)
    return Plan(workspace, steps)


def _check_schedules(workspace, flows: list, steps: list, matched: set) -> None:
    """BadFile, naming the first file adding one, when the plan would leave the
    workspace more enabled schedules than SCHEDULED_FLOWS_PER_OWNER, as a save
    adding one is refused (flows/schedules/quota.py). A flow that already has
    one keeps it, when the cap was lowered."""
    written = [step for step in steps if step.action in ("create", "update")]
    added = [
        step
        for step in written
        if enabled_schedule(step.fields["nodes"]) is not None
        and (step.flow is None or enabled_schedule(step.flow.nodes) is None)
    ]
    if not added:
        return
    deleted = {step.flow.pk for step in steps if step.action == "delete"}
    kept = sum(
        enabled_schedule(flow.nodes) is not None
        for flow in flows
        if flow.pk not in matched and flow.pk not in deleted
    )
    total = (
        kept
        + sum(enabled_schedule(step.fields["nodes"]) is not None for step in written)
        + sum(
            enabled_schedule(step.flow.nodes) is not None
            for step in steps
            if step.action == "unchanged"
        )
    )
    limit = settings.SCHEDULED_FLOWS_PER_OWNER
    if total > limit:
        raise BadFile(
            added[0].file,
            f"{workspace.name} would have {total} flows with an enabled schedule, "
            f"more than one workspace may have ({limit}). Disable some schedules "
            "first, or sync them disabled.",
        )


def _step_for(name: str, document: dict, workspace, missing: dict) -> Step:
    """A `create` step with the flow's fields, credentials mapped to the
    workspace's; records missing credentials in `missing` (by name and kind)."""
    fields = {f: document[f] for f in EXPORTED_FIELDS if f in document}
    fields.setdefault("description", "")
    fields.setdefault("input_schema", {})
    nodes = imported_nodes(fields.get("nodes", []))
    try:
        imported = import_nodes(nodes, document.get("credentials"), workspace.pk)
    except ValueError as malformed:
        raise BadFile(name, str(malformed)) from None
    for ref in imported.missing:
        missing.setdefault((ref["name"], ref["kind"]), set()).add(name)
    fields["nodes"] = imported.nodes
    fields["edges"] = fields.get("edges", [])
    errors = validate_graph(fields["nodes"], fields["edges"])
    if not errors:
        check_called_flows(fields["nodes"], workspace.pk, errors)
    if errors:
        raise BadFile(name, errors.summary())
    return Step("create", document["key"], fields["name"], file=name, fields=fields)


def _keep_literals(step: Step, literals: LiteralSecrets) -> None:
    """Each string of the file left as the flow's export shows it (a literal
    secret as `[redacted:NAME]`, flows/credentials/literals.py; a secret
    header blank, flows/api/portable.py) becomes the flow's own again: a file
    holds no secret, and syncing it back must not write the placeholder over
    the value (nor count it as a change)."""
    stored = {name: getattr(step.flow, name) for name in step.fields}
    step.fields = literals.keep(step.fields, stored)
    step.fields["nodes"] = keep_blanked_headers(step.fields["nodes"], stored["nodes"])


def _compare(step: Step, document: dict) -> None:
    """Make the step `unchanged` or an `update` with the diff of the file."""
    flow = step.flow
    same = flow.key == step.key and all(
        getattr(flow, name) == value for name, value in step.fields.items()
    )
    if same:
        step.action = "unchanged"
        return
    step.action = "update"
    before = render(flow_document(flow)).splitlines(keepends=True)
    after = render(document).splitlines(keepends=True)
    step.diff = "".join(
        difflib.unified_diff(before, after, f"a/{step.file}", f"b/{step.file}")
    )


def apply_sync(plan: Plan, actor, *, source: str = "git") -> None:
    """Make the plan's changes, all or none, each through `save_flow` (source
    `git`, or `promote` with each step's `promoted_from`); a deletion is
    recorded as `flow.deleted`."""
    with transaction.atomic():
        for step in plan.steps:
            saved = {"actor": actor, "source": source}
            if step.promoted_from is not None:
                saved["promoted_from"] = step.promoted_from
            if step.action == "create":
                flow = Flow(workspace=plan.workspace, created_by=actor.user)
                save_flow(flow, {**step.fields, "key": step.key}, **saved)
                step.flow = flow
            elif step.action == "update":
                save_flow(step.flow, {**step.fields, "key": step.key}, **saved)
            elif step.action == "delete":
                changes = {"version": step.flow.version, "source": source}
                record("flow.deleted", actor, step.flow, changes=changes)
                step.flow.delete()
