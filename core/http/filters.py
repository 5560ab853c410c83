"""Time filters for any list (runs, the audit log): `since` and `until` as
ISO 8601 datetimes (without an offset they are UTC) or dates (`since` from the
start of that day, `until` to its end); `since` inclusive, `until` exclusive.
A bad value is a 400 naming the parameter."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta

from django import forms
from django.utils.dateparse import parse_date, parse_datetime

from core.http.errors import ValidationFailed


def _moment(name: str, text: str) -> datetime:
    try:  # a date first: Python would also read "2026-11-23" as a datetime
        day = parse_date(text)
        moment = None if day else parse_datetime(text)
    except ValueError:
        moment = day = None
    if moment is None and day is None:
        raise ValueError(
            "Give a date (2026-11-23) or an ISO 8601 time (2026-11-23T08:00:00Z)."
        )
    try:  # the day after 9999-12-31, or a time past it in UTC, does not exist
        if day is not None:
            moment = datetime.combine(day, time.min)
            if name == "until":
                moment += timedelta(days=1)
        aware = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
        return aware.astimezone(UTC)
    except OverflowError:
        raise ValueError("Give a date between the years 1 and 9999.") from None


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
