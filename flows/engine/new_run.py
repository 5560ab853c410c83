"""A new run's instance, not stored yet (flows/engine/store.py stores it).

Built positionally, as Django builds a loaded row, because it is made on
every webhook and every run: `FlowRun(**values)` resolved each keyword and
checked each related instance for nothing a new run needs (bench/README.md,
"Round 5").
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db.models.base import ModelState
from django.db.models.signals import post_init, pre_init
from django.utils import timezone

from flows.models import Flow, FlowRun


def _defaults(fields) -> tuple[list, list, dict]:
    """A new row's values before any is given, in `fields` order: each field's
    constant default (what Django's `get_default` would give every row), a
    callable default (`uuid4`, `dict`) to call per row, and each attname's
    index."""
    template, makers = [], []
    for index, field in enumerate(fields):
        if field.has_default() and callable(field.default) or field.has_db_default():
            makers.append((index, field.attname, field.get_default))
            template.append(None)
        else:
            template.append(field.get_default())
    return template, makers, {field.attname: i for i, field in enumerate(fields)}


# FlowRun's positional arguments (`_run_instance`): its concrete fields' defaults.
_RUN_TEMPLATE, _RUN_MAKERS, _RUN_INDEX = _defaults(FlowRun._meta.concrete_fields)
_FLOW = FlowRun._meta.get_field("flow")
_CALLED_BY = FlowRun._meta.get_field("called_by")
_ERROR_OF = FlowRun._meta.get_field("error_of")
_RETRY_OF = FlowRun._meta.get_field("retry_of")


def new_run(
    flow: Flow,
    trigger: str,
    input: dict,
    request_meta: dict | None,
    *,
    delivery_id: str = "",
    called_by: FlowRun | None = None,
    error_of: FlowRun | None = None,
    retry_of: FlowRun | None = None,
    queued_until: datetime | None = None,
) -> FlowRun:
    """A run of `flow`, not stored yet (`insert_run`): `running` from now, or,
    with `queued_until`, a `queued` background run whose lease ends then (the
    supervisor looks at it again if no worker has taken it by that time)."""
    now = timezone.now()
    run = _run_instance(
        flow_id=flow.pk,
        flow_version=flow.version,
        trigger=trigger,
        input=input,
        request_meta=request_meta or {},
        delivery_id=delivery_id,
        called_by_id=None if called_by is None else called_by.pk,
        error_of_id=None if error_of is None else error_of.pk,
        retry_of_id=None if retry_of is None else retry_of.pk,
        created_at=now,
    )
    _FLOW.set_cached_value(run, flow)
    if called_by is not None:
        _CALLED_BY.set_cached_value(run, called_by)
    if error_of is not None:
        _ERROR_OF.set_cached_value(run, error_of)
    if retry_of is not None:
        _RETRY_OF.set_cached_value(run, retry_of)
    if queued_until is not None:
        run.status, run.background = FlowRun.Status.QUEUED, True
        run.lease_expires_at = queued_until
    else:
        run.status, run.started_at, run.attempts = FlowRun.Status.RUNNING, now, 1
        run.lease_expires_at = now + timedelta(seconds=settings.RUN_LEASE_SECONDS)
    return run


def _run_instance(**values) -> FlowRun:
    """A new FlowRun from these values by attname, the other fields at their
    defaults.

    Every field's value in `concrete_fields` order, as Django builds a loaded
    row: `FlowRun(**values)` resolves each keyword and the relation
    descriptors check each related instance (the database router included),
    a third of the instance's CPU for nothing a new run needs; and, while no
    receiver listens to `pre_init`/`post_init`, set straight into the
    instance's dict. Related instances are put in the run's cache by the
    caller.
    """
    row = _RUN_TEMPLATE.copy()
    for name, value in values.items():
        row[_RUN_INDEX[name]] = value
    for index, name, make in _RUN_MAKERS:
        if name not in values:
            row[index] = make()
    if pre_init.receivers or post_init.receivers:
        return FlowRun(*row)  # someone listens: Django's way, with its signals
    # What `FlowRun(*row)` does when nobody listens: a fresh state, and each
    # value set by attname (no field's descriptor does more on a new instance).
    run = FlowRun.__new__(FlowRun)
    run._state = ModelState()
    run.__dict__.update(zip(_RUN_INDEX, row, strict=True))
    return run
