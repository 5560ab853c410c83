"""Workspace variables: the rules for names and values, and each change with
its audit event in one transaction (the API and the Variables page alike).

Values are not secret (every member reads them; the audit log keeps old and
new); a run reads them all in one query (`values_of`). See docs/engine.md,
"Variables".
"""

from __future__ import annotations

import re

from django.db import IntegrityError, transaction

from accounts.audit.actor import Actor
from accounts.audit.record import record
from accounts.workspaces.models import Variable, Workspace

NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*", re.ASCII)
NAME_CHARS = 64
VALUE_CHARS = 1000
PER_WORKSPACE = 100


class Invalid(Exception):
    """A field is wrong: `field` names it, the message says how to fix it."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field


class Taken(Exception):
    """Another variable of the workspace has this name, or the workspace is full."""


def check(name: str, value: str) -> None:
    """Invalid for a name that is no identifier or a value that is too long."""
    if not isinstance(name, str) or not NAME.fullmatch(name) or len(name) > NAME_CHARS:
        raise Invalid(
            "name",
            f"Use letters, digits and _ (not first a digit), at most {NAME_CHARS}: "
            "the name is read as vars.NAME.",
        )
    if not isinstance(value, str):
        raise Invalid("value", "The value is text.")
    if len(value) > VALUE_CHARS:
        raise Invalid("value", f"At most {VALUE_CHARS} characters ({len(value)} now).")


def values_of(workspace_id) -> dict[str, str]:
    """Every variable of the workspace as `{name: value}`; one query."""
    return dict(
        Variable.objects.filter(workspace_id=workspace_id).values_list("name", "value")
    )


def create_variable(
    workspace: Workspace, name: str, value: str, actor: Actor
) -> Variable:
    check(name, value)
    try:
        with transaction.atomic():
            # The workspace's row serialises creations: the cap holds.
            Workspace.objects.select_for_update().filter(pk=workspace.pk).exists()
            if workspace.variables.count() >= PER_WORKSPACE:
                raise Taken(
                    f"A workspace holds at most {PER_WORKSPACE} variables; "
                    "delete one first."
                )
            variable = Variable.objects.create(
                workspace=workspace, name=name, value=value
            )
            record("variable.created", actor, variable, changes={"value": value})
    except IntegrityError:
        raise Taken(f"This workspace already has a variable named {name}.") from None
    return variable


def update_variable(variable: Variable, name: str, value: str, actor: Actor) -> None:
    check(name, value)
    changes = {}
    if name != variable.name:
        changes["name"] = {"from": variable.name, "to": name}
    if value != variable.value:
        changes["value"] = {"from": variable.value, "to": value}
    if not changes:
        return
    variable.name, variable.value = name, value
    try:
        with transaction.atomic():
            variable.save(update_fields=["name", "value", "updated_at"])
            record("variable.updated", actor, variable, changes=changes)
    except IntegrityError:
        raise Taken(f"This workspace already has a variable named {name}.") from None


def delete_variable(variable: Variable, actor: Actor) -> None:
    with transaction.atomic():
        record("variable.deleted", actor, variable, changes={"value": variable.value})
        variable.delete()
