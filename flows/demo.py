"""The demo flow, written once, and the hooks that let other apps add to the demo.

`webhook_code_graph` is the smallest useful flow (a webhook trigger feeding one
code node); the demo seed, the benchmarks and the test factories all build it
here. `manage.py seed_demo` creates the demo user and the "Say hello" flow, then
calls every seed hook, so an app that extends flows (agents adds its demo agent)
seeds its part without flows importing it.
"""

from __future__ import annotations

from collections.abc import Callable

GREET_CODE = "return {greeting: 'hi ' + (input.name || 'there')};"
DEMO_FLOW_NAME = "Say hello"

# hook(user, flow, stdout): called by seed_demo with the demo user, the demo flow
# and the command's output stream, after both exist.
SeedHook = Callable[..., None]
SEED_HOOKS: list[SeedHook] = []


def webhook_code_graph(code: str = GREET_CODE) -> tuple[list[dict], list[dict]]:
    """`(nodes, edges)` of a webhook trigger feeding one JavaScript code node."""
    nodes = [
        {
            "id": "trigger",
            "type": "webhook",
            "name": "Webhook",
            "position": {"x": 40, "y": 80},
            "data": {"method": "POST"},
        },
        {
            "id": "greet",
            "type": "code",
            "name": "Greet",
            "position": {"x": 320, "y": 80},
            "data": {"language": "javascript", "code": code},
        },
    ]
    edges = [{"id": "e1", "source": "trigger", "target": "greet", "sourceHandle": None}]
    return nodes, edges


def register_seed_hook(hook: SeedHook) -> None:
    """Have `seed_demo` call `hook` too; registering the same hook twice is a no-op."""
    if hook not in SEED_HOOKS:
        SEED_HOOKS.append(hook)
