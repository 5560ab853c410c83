"""The outbound wall's allowlist: `HTTP_NODE_ALLOWLIST` from the environment,
merged with the entries an admin keeps in the database (flows'
`AllowedAddress`, Django admin → "Private addresses allowed").

core imports no app, so the database's entries come through a source the
flows app registers from its `AppConfig.ready()`. They are read at most every
`CACHE_SECONDS` per process: an admin's change reaches every process within
that time, with no restart (and this process at once: `forget`). If the
source fails (the database away), the wall keeps the environment's entries
only: it refuses more, never less.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from django.conf import settings

CACHE_SECONDS = 5.0

logger = logging.getLogger("weir.outbound")

_source: Callable[[], list[str]] | None = None
_lock = threading.Lock()
_cached: tuple[float, tuple[str, ...]] = (float("-inf"), ())


def register_source(source: Callable[[], list[str]]) -> None:
    """Where the database's entries come from (flows/apps.py)."""
    global _source
    _source = source
    forget()


def forget() -> None:
    """Read the database's entries again on the next check (after a change)."""
    global _cached
    with _lock:
        _cached = (float("-inf"), ())


def _stored() -> tuple[str, ...]:
    global _cached
    read_at, entries = _cached
    if _source is None or time.monotonic() - read_at < CACHE_SECONDS:
        return entries
    try:
        entries = tuple(_source())
    except Exception:  # the database away: the environment's entries only
        logger.warning("The stored allowlist could not be read", exc_info=True)
        entries = ()
    with _lock:
        _cached = (time.monotonic(), entries)
    return entries


def entries() -> list[str]:
    """Every allowlist entry, lower-cased and stripped: the environment's,
    then the database's."""
    merged = [*settings.HTTP_NODE_ALLOWLIST, *_stored()]
    return [entry.strip().lower() for entry in merged if entry.strip()]
