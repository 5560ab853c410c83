"""The schedule trigger: starts the flow at the times of a cron expression."""

from __future__ import annotations

from typing import Any

from django.conf import settings

from core.cron import cron_problem, zone_of
from flows.nodes.base import FieldError, FormField, NodeContext, NodeKind

MISSED = ("skip", "run_once")


def enabled_schedule(nodes) -> tuple[int, dict] | None:
    """The graph's schedule trigger, as (index, data), if it is enabled: the
    one the scheduler fires and the per-owner cap counts."""
    for index, node in enumerate(nodes if isinstance(nodes, list) else []):
        if isinstance(node, dict) and node.get("type") == "schedule":
            data = node.get("data") if isinstance(node.get("data"), dict) else {}
            return (index, data) if data.get("enabled", True) is True else None
    return None


class ScheduleNode(NodeKind):
    type = "schedule"
    label = "Schedule"
    description = "Starts the flow on a schedule; its output is {scheduled_for}."
    is_trigger = True
    form_fields = (
        FormField(
            "data.cron",
            "Cron expression",
            widget="cron",
            mono=True,
            help="minute hour day-of-month month day-of-week, like 0 9 * * 1-5.",
        ),
        FormField(
            "data.timezone",
            "Time zone",
            widget="timezone",
            help="An IANA zone, like Europe/Paris.",
        ),
        FormField(
            "data.missed",
            "Missed while stopped",
            widget="select",
            options=MISSED,
            help="skip: ticks missed while Weir was down are dropped. run_once: "
            "the latest missed tick runs once at start.",
        ),
        FormField("data.enabled", "Enabled", widget="checkbox"),
    )
    default_data = {
        "cron": "0 9 * * 1-5",
        "timezone": "UTC",
        "missed": "skip",
        "enabled": True,
    }

    def validate_data(self, data: dict) -> list[FieldError]:
        problems = []
        problem = cron_problem(data.get("cron"))
        if problem:
            problems.append(FieldError("data.cron", problem))
        zone = data.get("timezone", settings.TIME_ZONE)
        if zone_of(zone) is None:
            problems.append(
                FieldError(
                    "data.timezone",
                    f"{str(zone)[:64]!r} is not a time zone: give an IANA name "
                    "like Europe/Paris or UTC.",
                )
            )
        if data.get("missed", "skip") not in MISSED:
            problems.append(FieldError("data.missed", "Choose skip or run_once."))
        if data.get("enabled", True) not in (True, False):
            problems.append(FieldError("data.enabled", "Enabled is true or false."))
        return problems

    def run(self, data: dict, ctx: NodeContext) -> Any:
        return ctx.input
