"""How a node fails (`NodeError`, `NodeTimeout`, a sandbox failure as either) or
parks its run (`Park`)."""

from __future__ import annotations

from sandbox import SandboxError


class NodeError(Exception):
    """A node failed; the run stops with `error: {node_id, code, message}`.

    `details` are more facts stored beside those three (the http_request
    node's `status` and `body` excerpt), so an error output, an error flow or
    a retry policy can act on them without parsing the message.
    """

    timed_out = False

    def __init__(self, code: str, message: str, details: dict | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details or {}


class NodeTimeout(NodeError):
    """A node ran out of time; the run ends `timed_out` instead of `failed`."""

    timed_out = True


def sandbox_failure(
    error: SandboxError, code: str | None = None, prefix: str = ""
) -> NodeError:
    """The node's error for a failure in the sandbox (code, template, expression).

    A timeout keeps the sandbox's own code and is a `NodeTimeout`, so the run
    ends `timed_out`; any other failure takes `code` (default: the sandbox's).
    `prefix` starts the message, saying where the JavaScript was.
    """
    if error.timed_out:
        return NodeTimeout(error.code, prefix + error.message)
    return NodeError(code or error.code, prefix + error.message)


class FlowControl(Exception):
    """Raised by a node to steer the run rather than fail the node.

    The engine's retry loop lets these through untouched (flows/engine/attempts.py).
    """


class StopRun(FlowControl):
    """The stop node ends the run on purpose: `outcome` "succeed" or "fail"."""

    def __init__(self, outcome: str, code: str, message: str, output: dict):
        super().__init__(message)
        self.outcome, self.code, self.message, self.output = (
            outcome,
            code,
            message,
            output,
        )


class ContinueLater(FlowControl):
    """A background run's node is out of time but not done (a long for_each):
    queue the run again at once; the node continues where it stopped."""


class Park(FlowControl):
    """The wait node asks the engine to park the run (flows/engine/waits.py).

    `mode` is duration, until or callback; `wake_at` (an aware datetime) is when
    the supervisor wakes the run: the end of the wait, or a callback's timeout.
    `page` is what the resume page shows and asks (its context rendered now,
    its fields), for callback and form waits.
    """

    def __init__(self, node_id: str, mode: str, wake_at, page: dict | None = None):
        super().__init__(f"park {node_id} until {wake_at.isoformat()}")
        self.node_id = node_id
        self.mode = mode
        self.wake_at = wake_at
        self.page = page
