"""Documents from the `weir.apps` Python entry points.

Each entry point loads to a callable (called with no arguments) or a value,
giving a path to a document, its text or bytes, or the document as a dict;
its name is the app's slug. They load through `core.plugins.load_group`, as
node and credential kinds do: a plugin that fails (even `sys.exit()`), gives
no valid document, or claims a slug already taken (a vendored app's, an
earlier plugin's) is logged on `weir.plugins` and skipped, never taking the
server down or replacing another app (docs/apps.md).
"""

from __future__ import annotations

from collections.abc import Collection
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

from core.plugins import PluginRefused, load_group
from flows.app_actions import documents

GROUP = "weir.apps"


def plugin_documents(taken: Collection[str] = ()) -> dict[str, dict]:
    """Each plugin app's checked document, by slug; none takes a slug in
    `taken` or one an earlier plugin took."""
    found: dict[str, dict] = {}

    def install(slug: str, given: Any) -> None:
        if slug in taken or slug in found:
            raise PluginRefused(f"App slug {slug!r} is already taken.")
        given = read_if_path(given() if callable(given) else given)
        try:
            if isinstance(given, dict):
                found[slug] = documents.checked(given)
            else:
                found[slug] = documents.load(given)
        except documents.DocumentProblem as problem:
            raise PluginRefused(problem.message) from None

    load_group(GROUP, install, found=entry_points(group=GROUP))
    return found


def read_if_path(given: Any) -> Any:
    """The file's bytes when `given` names one, else `given` (a document's
    text is no file name: past 4 KB, asking raises "File name too long")."""
    if not isinstance(given, Path | str):
        return given
    try:
        path = Path(given)
        return path.read_bytes() if path.is_file() else given
    except (OSError, ValueError):
        return given
