"""The run filters shared by the run lists and the Runs page.

`?status=&trigger=&since=&until=`: a status and a trigger from `FlowRun`'s
choices; `since` and `until` as ISO 8601 datetimes (`2026-11-23T08:00:00Z`;
without an offset they are UTC) or dates (`2026-11-23`: `since` from the start
of that day, `until` to its end). `since` is inclusive, `until` exclusive.
A value that is not one of these is a 400 naming the parameter.
"""

from __future__ import annotations

from django import forms

from core.http.filters import TimeFilterForm, parse_filters
from flows.models import FlowRun


def _choice(options) -> forms.ChoiceField:
    message = f"Choose one of: {', '.join(options.values)}."
    return forms.ChoiceField(
        choices=options.choices,
        required=False,
        error_messages={"invalid_choice": message},
    )


class RunFilterForm(TimeFilterForm):
    """The four filters; `cleaned_data` holds the given ones, checked."""

    status = _choice(FlowRun.Status)
    trigger = _choice(FlowRun.Trigger)


def parse_run_filters(params) -> dict:
    """The filters given in `params` (a QueryDict), checked; empty values ignored."""
    return parse_filters(RunFilterForm(params))


def apply_run_filters(runs, filters: dict):
    """`runs` narrowed by parsed filters (see `parse_run_filters`)."""
    if "status" in filters:
        runs = runs.filter(status=filters["status"])
    if "trigger" in filters:
        runs = runs.filter(trigger=filters["trigger"])
    if "since" in filters:
        runs = runs.filter(created_at__gte=filters["since"])
    if "until" in filters:
        runs = runs.filter(created_at__lt=filters["until"])
    return runs


FILTER_NAMES = ("status", "trigger", "since", "until")
