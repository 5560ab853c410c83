"""Promotion: copy chosen flows of one workspace into another (docs/git.md).

A promotion is a sync (flows/git/sync.py) whose directory is the chosen
flows' own files (flows/git/files.py): the same key ties a flow of staging to
its flow in production, the same plan says `create`, `update` (with the diff
of the flow's file) or `unchanged`, credentials are mapped by name and kind
and a missing one refuses the whole promotion with the list. Applying writes
each changed flow through `save_flow` with source `promote` and
`promoted_from` (the source workspace, flow and version) on the new version;
that save records the flow's one audit event, `flow.promoted`. An unchanged
flow is not written and not audited: nothing was promoted.
"""

from __future__ import annotations

import difflib
import uuid

from flows.git.files import assign_keys, flow_document, render
from flows.git.sync import Plan, apply_sync, plan_sync


class UnknownFlows(Exception):
    """Flow ids or keys that name no flow of the source workspace."""

    def __init__(self, unknown: list[str]):
        super().__init__(f"No flow of this workspace has the id or key: {unknown}.")
        self.unknown = unknown


def chosen_flows(source, refs: list[str]) -> list:
    """The source workspace's flows named by id or key, in the order named,
    each once. Gives every flow of the workspace without a key one (as an
    export does: a key must be unique in the workspace, not in the choice)."""
    flows = list(source.flows.order_by("created_at", "pk"))
    assign_keys(flows)
    by_ref = {flow.key: flow for flow in flows}
    by_ref.update({str(flow.pk): flow for flow in flows})
    unknown = [ref for ref in refs if _normal(ref) not in by_ref]
    if unknown:
        raise UnknownFlows(unknown)
    chosen = {}
    for ref in refs:
        flow = by_ref[_normal(ref)]
        chosen[flow.pk] = flow
    return list(chosen.values())


def _normal(ref: str) -> str:
    """A flow id in its canonical form (any case, with or without dashes); a
    key as it is."""
    try:
        return str(uuid.UUID(ref))
    except ValueError:
        return ref


def plan_promotion(source, target, refs: list[str]) -> Plan:
    """What promoting the flows `refs` from `source` into `target` would do.
    Raises `UnknownFlows`, and as a sync does `BadFile` (e.g. a `call_flow`
    node naming a flow of the source) or `MissingCredentials`."""
    flows = chosen_flows(source, refs)
    documents = {f"{flow.key}.json": flow_document(flow) for flow in flows}
    plan = plan_sync(target, documents)
    origins = {flow.key: flow for flow in flows}
    for step in plan.steps:
        flow = origins[step.key]
        step.promoted_from = {
            "workspace": str(source.pk),
            "workspace_name": source.name,
            "flow": str(flow.pk),
            "version": flow.version,
        }
        if step.action == "create":
            after = render(documents[step.file]).splitlines(keepends=True)
            step.diff = "".join(
                difflib.unified_diff([], after, "/dev/null", f"b/{step.file}")
            )
    return plan


def apply_promotion(plan: Plan, actor) -> None:
    """Write the plan's changed flows into the target, all or none."""
    apply_sync(plan, actor, source="promote")


def missing_by_flow(missing: list[dict]) -> list[dict]:
    """`MissingCredentials.missing` with flow keys instead of file names."""
    return [
        {
            "name": ref["name"],
            "kind": ref["kind"],
            "flows": [name.removesuffix(".json") for name in ref["files"]],
        }
        for ref in missing
    ]
