"""`save_flow`: the one way a flow changes (API, builder, import, restore, admin).

In one transaction it locks the flow's row, refuses a stale `expected_version`,
and compares the flow's versioned content with what is stored. When it differs
it bumps `version` and writes the `FlowVersion`; when only unversioned fields
changed (pins, the webhook secret) it saves those and keeps the number; when
nothing changed it writes nothing. So `version` always names a stored snapshot
and a run's `flow_version` always leads to the graph it ran.

Each real change also writes its audit event (`flow.created`, `flow.updated`
v3 -> v4, `flow.imported`, `flow.promoted`, `flow.restored`,
`flow.webhook_secret_set` or `_removed`) in the same transaction: an error
anywhere keeps neither.
"""

from __future__ import annotations

from django.db import transaction

from accounts.audit.actor import Actor
from accounts.audit.record import record
from flows.forms.password import seal
from flows.history.models import FlowVersion

VERSIONED_FIELDS = ("name", "description", "input_schema", "nodes", "edges")
SETTINGS_FIELDS = (
    "webhook_enabled",
    "webhook_response_mode",
    "error_flow_id",
    "mcp_offered",
)
# Saved when they change, without a new version.
UNVERSIONED_FIELDS = (
    "created_by_id",
    "workspace_id",
    "key",
    "pins",
    "webhook_secret",
    "webhook_signature_scheme",
    "form_password",
)

# The audit action of a flow's first version, by source.
CREATED_ACTIONS = {"import": "flow.imported", "promote": "flow.promoted"}


class StaleVersion(Exception):
    """The flow is at a newer version than the caller edited; `newest` is its
    snapshot (None for a flow saved before history began)."""

    def __init__(self, current: int, newest: FlowVersion | None):
        super().__init__(f"The flow is at version {current}.")
        self.current = current
        self.newest = newest


def snapshot(flow) -> dict:
    """A flow's versioned content: what a `FlowVersion` stores."""
    data = {field: getattr(flow, field) for field in VERSIONED_FIELDS}
    data["settings"] = {
        "webhook_enabled": flow.webhook_enabled,
        "webhook_response_mode": flow.webhook_response_mode,
        "error_flow_id": str(flow.error_flow_id) if flow.error_flow_id else None,
        "mcp_offered": flow.mcp_offered,
    }
    return data


def save_flow(
    flow,
    changes: dict | None = None,
    *,
    actor: Actor,
    source: str,
    expected_version: int | None = None,
    restored_from: int | None = None,
    promoted_from: dict | None = None,
) -> FlowVersion | None:
    """Apply `changes` to `flow` (or save the changes already set on it) and
    write its new version; returns that version, or None when the versioned
    content did not change. Raises `StaleVersion` when `expected_version` is
    not the stored one. `promoted_from` (source `promote`) is stored on the
    version and in its one audit event, `flow.promoted`. Costs a locking
    SELECT, then an UPDATE and an INSERT for a real change."""
    origin = {"source": source}
    if promoted_from is not None:
        origin["promoted_from"] = promoted_from
    with transaction.atomic():
        if flow._state.adding:
            for field, value in (changes or {}).items():
                setattr(flow, field, value)
            flow.version = 1
            flow.save(force_insert=True)
            version = _write_version(flow, actor, origin, restored_from)
            action = CREATED_ACTIONS.get(source, "flow.created")
            record(action, actor, flow, changes={"version": 1, **origin})
            if flow.form_password:
                record("flow.form_password_set", actor, flow)
            return version
        # NO KEY: saves still queue behind each other, but a new run's INSERT
        # (its foreign key takes a key-share lock) does not wait for this one.
        stored = type(flow).objects.select_for_update(no_key=True).get(pk=flow.pk)
        if expected_version is not None and expected_version != stored.version:
            newest = FlowVersion.objects.filter(
                flow=stored, number=stored.version
            ).first()
            raise StaleVersion(stored.version, newest)
        for field, value in (changes or {}).items():
            setattr(flow, field, value)
        seal(flow)  # a typed form password leaves the nodes before comparing
        if snapshot(flow) == snapshot(stored):
            flow.version = stored.version
            other = [f for f in UNVERSIONED_FIELDS if _differs(flow, stored, f)]
            if other:
                flow.save(update_fields=[*other, "updated_at"])
                _record_secret(flow, stored, actor)
            return None
        flow.version = stored.version + 1
        flow.save()
        version = _write_version(flow, actor, origin, restored_from)
        changes = {"from": stored.version, "to": flow.version, **origin}
        if source == "promote":
            record("flow.promoted", actor, flow, changes=changes)
        elif source == "restore":
            record(
                "flow.restored",
                actor,
                flow,
                changes={**changes, "restored": restored_from},
            )
        else:
            record("flow.updated", actor, flow, changes=changes)
        _record_secret(flow, stored, actor)
        return version


def _differs(flow, stored, field: str) -> bool:
    return getattr(flow, field) != getattr(stored, field)


def _record_secret(flow, stored, actor: Actor) -> None:
    """`flow.webhook_secret_set` or `_removed` when the secret changed; never
    the secret itself."""
    if flow.webhook_secret != stored.webhook_secret:
        action = "set" if flow.webhook_secret else "removed"
        record(f"flow.webhook_secret_{action}", actor, flow)
    if flow.form_password != stored.form_password:
        record("flow.form_password_set", actor, flow)


def _write_version(flow, actor: Actor, origin: dict, restored_from) -> FlowVersion:
    content = snapshot(flow)
    return FlowVersion.objects.create(
        flow=flow,
        number=flow.version,
        source=origin["source"],
        promoted_from=origin.get("promoted_from"),
        restored_from=restored_from,
        created_by=actor.user,
        created_by_label=actor.label,
        **content,
    )


def at_version(flow, number: int):
    """`flow` (in memory) with the graph and settings of its version `number`,
    for a run recorded at that version; `flow` itself when that is its version
    or the snapshot is gone. Costs one query when they differ."""
    if number == flow.version:
        return flow
    version = FlowVersion.objects.filter(flow=flow, number=number).first()
    if version is None:
        return flow
    for field in VERSIONED_FIELDS:
        setattr(flow, field, getattr(version, field))
    flow.version = number
    return flow
