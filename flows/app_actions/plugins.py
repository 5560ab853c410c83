"""Documents from the `weir.apps` Python entry points.

Kept to one function so a generic plugin loader can replace it. Each entry
point loads to a callable (called with no arguments) or a value, giving a
path to a document, its text or bytes, or the document as a dict; its name
is the app's slug. A plugin that fails to load or gives no valid document is
logged and skipped: it never takes the server down.
"""

from __future__ import annotations

import logging
from importlib.metadata import entry_points
from pathlib import Path

from flows.app_actions import documents

GROUP = "weir.apps"
logger = logging.getLogger(__name__)


def plugin_documents() -> dict[str, dict]:
    """Each plugin app's checked document, by slug."""
    found = {}
    for entry in entry_points(group=GROUP):
        try:
            given = entry.load()
            given = given() if callable(given) else given
            if isinstance(given, Path | str) and Path(given).is_file():
                given = Path(given).read_bytes()
            if isinstance(given, dict):
                found[entry.name] = documents.checked(given)
            else:
                found[entry.name] = documents.load(given)
        except Exception:
            logger.exception("App plugin %r (%s) skipped", entry.name, entry.value)
    return found
