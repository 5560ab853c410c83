"""Loading plugins: the Python entry points of one group, each on its own.

A plugin is a pip-installed package that names objects under an entry point
group (`weir.nodes`, `weir.credential_kinds`; docs/plugins.md). This module
knows no group: the app that owns one passes what to do with each object
(`install`). A plugin whose import or install raises is logged with its name,
its package and the error, and skipped; the others still load, and the server
starts either way, because one operator's broken package must not take
everybody's flows down.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points
from typing import Any

logger = logging.getLogger("weir.plugins")


class PluginRefused(Exception):
    """`install` declines an object it loaded (a taken name, a wrong type);
    its message says why, for the log."""


@dataclass(frozen=True)
class Skipped:
    """A plugin that did not load: its entry point's name and why."""

    group: str
    name: str
    value: str
    reason: str


@dataclass
class LoadReport:
    """What one group's loading did: the names installed and those skipped."""

    group: str
    loaded: list[str]
    skipped: list[Skipped]


def load_group(
    group: str,
    install: Callable[[str, Any], None],
    *,
    found: Iterable[EntryPoint] | None = None,
) -> LoadReport:
    """Load every entry point of `group` and hand each object to `install`.

    `found` replaces the installed packages' entry points (the tests pass
    their own). Any exception from loading or installing one plugin skips that
    plugin alone: logged as an error, kept in the report.
    """
    report = LoadReport(group, [], [])
    points = entry_points(group=group) if found is None else found
    for point in points:
        try:
            install(point.name, point.load())
        except PluginRefused as refusal:
            _skip(report, point, f"refused: {refusal}")
        # Whatever a plugin raises, even sys.exit() while it is imported.
        except (Exception, SystemExit) as error:
            _skip(report, point, f"{type(error).__name__}: {error}", traceback=True)
        else:
            report.loaded.append(point.name)
            logger.info(
                "Plugin %s (%s) loaded from %s.", point.name, group, point.value
            )
    return report


def _skip(
    report: LoadReport, point: EntryPoint, reason: str, *, traceback: bool = False
) -> None:
    """Keep and log why `point` was skipped; with its traceback when it
    failed rather than being refused, so its author can find the line."""
    report.skipped.append(Skipped(report.group, point.name, point.value, reason))
    logger.error(
        "Plugin %s (%s, %s) skipped: %s",
        point.name,
        report.group,
        point.value,
        reason,
        exc_info=traceback,
    )
