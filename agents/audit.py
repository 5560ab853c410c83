"""The audit events of an agent: `agent.created`, `agent.updated`, `agent.deleted`.

The API and the Django admin call these inside the transaction of the change
(docs/history.md, the audit log). `changes` names what changed, never a value
that could hold a key: the credential and the MCP servers (whose credentials
send headers) appear only as field names; tools and the tools that ask first
as the names of the flows added and removed.
"""

from __future__ import annotations

from accounts.audit.actor import Actor
from accounts.audit.record import record
from agents.models import Agent

# Kept by the model itself, not by whoever edits the agent.
UNAUDITED = {"id", "version", "created_at", "updated_at"}
FLOW_LISTS = ("tools", "approval_flows")


def snapshot(agent) -> dict:
    """What an edit may change, read from the database: each field's value
    (a foreign key by id), and {flow id: name} for the two flow lists."""
    state = {
        field.attname: getattr(agent, field.attname)
        for field in agent._meta.concrete_fields
        if field.name not in UNAUDITED
    }
    for name in FLOW_LISTS:
        state[name] = dict(getattr(agent, name).values_list("pk", "name"))
    return state


def stored_snapshot(pk) -> dict:
    """The agent `pk` as the database has it now (before a form's save)."""
    return snapshot(Agent.objects.get(pk=pk))


def difference(before: dict, after: dict) -> dict:
    """`{fields, tools?, approval_flows?}`; empty when nothing changed."""
    fields = sorted(
        name.removesuffix("_id") for name in after if before.get(name) != after[name]
    )
    if not fields:
        return {}
    changes: dict = {"fields": fields}
    for name in FLOW_LISTS:
        if name in fields:
            old, new = before[name], after[name]
            changes[name] = {
                "added": sorted(new[pk] for pk in new.keys() - old.keys()),
                "removed": sorted(old[pk] for pk in old.keys() - new.keys()),
            }
    return changes


def record_created(agent, actor: Actor) -> None:
    tools = sorted(agent.tools.values_list("name", flat=True))
    record(
        "agent.created", actor, agent, changes={"model": agent.model, "tools": tools}
    )


def record_updated(agent, actor: Actor, before: dict) -> bool:
    """One `agent.updated` naming what changed; none when nothing did. Returns
    whether anything changed."""
    changes = difference(before, snapshot(agent))
    if changes:
        record("agent.updated", actor, agent, changes=changes)
    return bool(changes)


def record_deleted(agent, actor: Actor) -> None:
    """Called before the delete, while the agent still has its id."""
    record("agent.deleted", actor, agent)
