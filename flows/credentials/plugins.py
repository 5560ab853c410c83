"""Credential kinds from plugins: the `weir.credential_kinds` entry points.

Each entry point names a `CredentialKind` (flows/credentials/kinds.py). It is
registered like a built-in one, so the API takes and checks its fields, the
Credentials page draws its form and, when it signs HTTP, the HTTP request and
app action nodes offer it. Plugins load after the built-in kinds
(`flows.plugins.apps.PluginsConfig` is the last installed app): a plugin that
claims a taken name, or declares a field unlike another kind's field of that
name, is refused and logged (docs/plugins.md).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from core.plugins import LoadReport, PluginRefused, load_group
from flows.credentials import kinds

GROUP = "weir.credential_kinds"


def install_credential_kind(name: str, loaded: Any) -> None:
    """Register what entry point `name` names; PluginRefused says why not."""
    if not isinstance(loaded, kinds.CredentialKind):
        raise PluginRefused(f"{name} names {loaded!r}, which is not a CredentialKind.")
    try:
        kinds.register(replace(loaded, plugin=name))
    except (kinds.BadCredentialKind, kinds.DuplicateCredentialKind) as problem:
        raise PluginRefused(str(problem)) from problem


def load_credential_kind_plugins(found=None) -> LoadReport:
    """Register the credential kinds of every installed plugin (or of `found`)."""
    return load_group(GROUP, install_credential_kind, found=found)
