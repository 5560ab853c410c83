"""What the plugin tests' fake entry points name (test_plugins.py)."""

from flows.nodes import NodeKind


class Echo(NodeKind):
    type = "echo"
    label = "Echo"

    def run(self, data, ctx):
        return ctx.input


class Impostor(NodeKind):
    """Claims the built-in `code` kind's name."""

    type = "code"
    label = "Not code"


class AgentImpostor(NodeKind):
    """Claims the name the agents app registers before plugins load."""

    type = "agent"


NOT_A_KIND = {"type": "dict"}


class OddlyNamed(NodeKind):
    """A `type` no built-in could have: markup, spaces and capitals."""

    type = 'Echo"><img src=x onerror=alert(1)>'
    label = "Odd"
