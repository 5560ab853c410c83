"""The run filters shared by the run lists and the Runs page.

`?status=&trigger=&since=&until=`: a status and a trigger from `FlowRun`'s
choices; `since` and `until` as ISO 8601 datetimes (`2026-11-23T08:00:00Z`;
without an offset they are UTC) or dates (`2026-11-23`: `since` from the start
of that day, `until` to its end). `since` is inclusive, `until` exclusive.
A value that is not one of these is a 400 naming the parameter.
"""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta

from django import forms
from django.utils.dateparse import parse_date, parse_datetime

from config.http.errors import ValidationFailed
from flows.models import FlowRun


def _moment(name: str, text: str) -> datetime:
    try:  # a date first: Python would also read "2026-11-23" as a datetime
        day = parse_date(text)
        moment = None if day else parse_datetime(text)
    except ValueError:
        moment = day = None
    if day is not None:
        moment = datetime.combine(day, time.min)
        if name == "until":
            moment += timedelta(days=1)
    if moment is None:
        raise ValueError(
            "Give a date (2026-11-23) or an ISO 8601 time (2026-11-23T08:00:00Z)."
        )
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _choice(options) -> forms.ChoiceField:
    message = f"Choose one of: {', '.join(options.values)}."
    return forms.ChoiceField(
        choices=options.choices,
        required=False,
        error_messages={"invalid_choice": message},
    )


class TimeFilterForm(forms.Form):
    """`since` and `until`, for any list filtered by time (runs, the audit log)."""

    since = forms.CharField(required=False)
    until = forms.CharField(required=False)

    def _clean_moment(self, name: str) -> datetime | None:
        text = self.cleaned_data[name]
        if not text:
            return None
        try:
            return _moment(name, text)
        except ValueError as error:
            raise forms.ValidationError(str(error)) from None

    def clean_since(self):
        return self._clean_moment("since")

    def clean_until(self):
        return self._clean_moment("until")


class RunFilterForm(TimeFilterForm):
    """The four filters; `cleaned_data` holds the given ones, checked."""

    status = _choice(FlowRun.Status)
    trigger = _choice(FlowRun.Trigger)


def parse_run_filters(params) -> dict:
    """The filters given in `params` (a QueryDict), checked; empty values ignored."""
    return parse_filters(RunFilterForm(params))


def parse_filters(form: forms.Form) -> dict:
    """A filter form's given values, checked; 400 naming the first bad one."""
    if not form.is_valid():
        problems = {name: list(errors) for name, errors in form.errors.items()}
        first = next(iter(problems))
        raise ValidationFailed(
            f"The filter {first!r} is not valid: {problems[first][0]}",
            details=problems,
        )
    return {name: value for name, value in form.cleaned_data.items() if value}


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
