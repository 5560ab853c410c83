"""A run's view of its workspace's variables (docs/engine.md, "Variables").

Read once, when the run's first node that names `vars` runs (one query), and
kept for the rest of the run: a variable changed mid-run is seen by the next
run, so one run never mixes old and new values.
"""

from __future__ import annotations

import json
from functools import cached_property
from typing import Any

from accounts.workspaces.variables import values_of


def mentions_vars(data: Any) -> bool:
    """Whether a node's data names `vars` anywhere (a template or its code)."""
    return "vars" in json.dumps(data, ensure_ascii=False)


class RunVariables:
    def __init__(self, workspace_id):
        self.workspace_id = workspace_id

    @cached_property
    def values(self) -> dict[str, str]:
        return values_of(self.workspace_id)
