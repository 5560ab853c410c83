"""Workspaces: who may do what with flows, credentials and agents (issue 23).

`models` holds `Workspace` and `Membership` (registered through `flows.models`,
which imports them); `roles` the one table of rights per role; `personal` the
personal workspace every user gets; `access` the checks every view, page and
engine lookup goes through (`role_of`, `can`, the queryset helpers).
"""
