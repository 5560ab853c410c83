"""A run ended on purpose: by a stop node (flows/nodes/stop.py), or cancelled.

The stop node's step succeeds with `{outcome, code, message}`; every node
after it is `skipped` with the reason `stopped`; the run ends `succeeded`
(error null) or `failed` with the user's code, which starts the error flow
like any failure. A resumed run reads the stored stop step and stops again.
"""

from __future__ import annotations

from dataclasses import dataclass

from flows.models import FlowRun


@dataclass(frozen=True)
class Stopped:
    node_id: str
    outcome: str
    code: str
    message: str

    @classmethod
    def from_step(cls, row: dict) -> Stopped | None:
        """The stop a stored step records, or None for any other step."""
        output = row.get("output")
        if row.get("node_type") != "stop" or not isinstance(output, dict):
            return None
        if row.get("status") != "succeeded":
            return None
        return cls(
            row["node_id"],
            output.get("outcome", "fail"),
            output.get("code", "stopped"),
            output.get("message", ""),
        )

    def skip_reason(self, node_id: str) -> dict:
        return {
            "node_id": node_id,
            "code": "stopped",
            "message": f"Skipped: node {self.node_id!r} stopped the run.",
        }

    def ending(self) -> tuple[str, dict | None]:
        """The run's final status and error."""
        if self.outcome == "succeed":
            return FlowRun.Status.SUCCEEDED, None
        error = {"node_id": self.node_id, "code": self.code, "message": self.message}
        return FlowRun.Status.FAILED, error


def cancelled_at(node_id: str, when: str = "while") -> dict:
    """The error of a run cancelled before `node_id` ran, or while it waited
    to retry."""
    message = {
        "before": "The run was cancelled before this node.",
        "while": "The run was cancelled while this node waited to retry.",
    }[when]
    return {"node_id": node_id, "code": "cancelled", "message": message}
