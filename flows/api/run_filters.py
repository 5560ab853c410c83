"""The run filters shared by the run lists and the Runs page.

`?flow=&workspace=&status=&trigger=&since=&until=&q=`: a flow's and a
workspace's id (one the user cannot see simply matches no run); a status and a
trigger from `FlowRun`'s choices; `since` and `until` as ISO 8601 datetimes
(`2026-11-23T08:00:00Z`; without an offset they are UTC) or dates
(`2026-11-23`: `since` from the start of that day, `until` to its end), `since`
inclusive, `until` exclusive; `q` a text searched for in the runs' data
(flows/run_search.py). A value that is not one of these is a 400 naming the
parameter.
"""

from __future__ import annotations

from django import forms

from core.http.filters import TimeFilterForm, parse_filters
from flows.models import FlowRun
from flows.run_search import MAX_LENGTH, MIN_LENGTH, search_runs


def _choice(options) -> forms.ChoiceField:
    message = f"Choose one of: {', '.join(options.values)}."
    return forms.ChoiceField(
        choices=options.choices,
        required=False,
        error_messages={"invalid_choice": message},
    )


def _id(what: str) -> forms.UUIDField:
    return forms.UUIDField(
        required=False, error_messages={"invalid": f"Give {what}'s id (a UUID)."}
    )


class RunFilterForm(TimeFilterForm):
    """The filters; `cleaned_data` holds the given ones, checked."""

    flow = _id("a flow")
    workspace = _id("a workspace")
    status = _choice(FlowRun.Status)
    trigger = _choice(FlowRun.Trigger)
    q = forms.CharField(
        required=False,
        min_length=MIN_LENGTH,
        max_length=MAX_LENGTH,
        error_messages={
            "min_length": f"Search for at least {MIN_LENGTH} characters.",
            "max_length": f"Search for at most {MAX_LENGTH} characters.",
        },
    )


def parse_run_filters(params) -> dict:
    """The filters given in `params` (a QueryDict), checked; empty values ignored."""
    return parse_filters(RunFilterForm(params))


def apply_run_filters(runs, filters: dict):
    """`runs` narrowed by parsed filters (see `parse_run_filters`)."""
    if "flow" in filters:
        runs = runs.filter(flow_id=filters["flow"])
    if "workspace" in filters:
        runs = runs.filter(flow__workspace_id=filters["workspace"])
    if "status" in filters:
        runs = runs.filter(status=filters["status"])
    if "trigger" in filters:
        runs = runs.filter(trigger=filters["trigger"])
    if "since" in filters:
        runs = runs.filter(created_at__gte=filters["since"])
    if "until" in filters:
        runs = runs.filter(created_at__lt=filters["until"])
    if "q" in filters:
        runs = search_runs(runs, filters["q"])
    return runs


# Each filter and what it takes (the API schema's parameters).
FILTERS = {
    "flow": "A flow's id: its runs only.",
    "workspace": "A workspace's id: the runs of its flows only.",
    "status": "A run status, e.g. failed.",
    "trigger": "manual, webhook, agent, schedule, error, call or mcp.",
    "since": "From this date or ISO 8601 time (inclusive).",
    "until": "Up to this date (inclusive) or ISO 8601 time (exclusive).",
    "q": f"Text in the runs' input, outputs, errors or logs ({MIN_LENGTH}+ "
    "characters, any case).",
}
FILTER_NAMES = tuple(FILTERS)
