"""Node kinds from plugins: the `weir.nodes` entry points (docs/plugins.md).

Each entry point names a `NodeKind` subclass (or an instance of one). It is
registered like a built-in, so the palette offers it, the inspector draws its
form, the graph validator runs its checks at save time and the engine runs it.
Plugins load after every app has registered its own kinds
(`flows.plugins.apps.PluginsConfig` is the last installed app), so a plugin that
claims a built-in's name, the agent's or another plugin's is refused and
logged, never allowed to change what saved flows do.
"""

from __future__ import annotations

import re
from typing import Any

from core.plugins import LoadReport, PluginRefused, load_group
from flows.nodes import DuplicateNodeKind, FormField, NodeKind, register

GROUP = "weir.nodes"
# As every built-in's: a node's type lands in saved graphs, CSS classes and ids.
TYPE_NAME = re.compile(r"[a-z][a-z0-9_]{0,63}")


def install_node_kind(name: str, loaded: Any) -> None:
    """Register what entry point `name` names; PluginRefused says why not."""
    kind = loaded() if isinstance(loaded, type) else loaded
    if not isinstance(kind, NodeKind):
        raise PluginRefused(f"{name} names {loaded!r}, which is not a NodeKind.")
    if not kind.type:
        raise PluginRefused(f"{type(kind).__name__} has no `type` name.")
    if not isinstance(kind.type, str) or not TYPE_NAME.fullmatch(kind.type):
        raise PluginRefused(
            f"{type(kind).__name__}'s type {str(kind.type)[:80]!r} is not a name of "
            "lower-case letters, digits and _ (at most 64, a letter first)."
        )
    if not all(isinstance(field, FormField) for field in kind.form_fields):
        raise PluginRefused(f"{kind.type}: every form field must be a FormField.")
    try:
        register(kind)
    except DuplicateNodeKind as taken:
        raise PluginRefused(str(taken)) from taken


def load_node_plugins(found=None) -> LoadReport:
    """Register the node kinds of every installed plugin (or of `found`)."""
    return load_group(GROUP, install_node_kind, found=found)
