"""The scheduler: a pass over the flows with a schedule trigger, made by the
supervisor every SCHEDULE_INTERVAL_SECONDS (1 s).

Each pass steps each enabled schedule's cron expression from the flow's last
look (`schedule_checked_at`) to now. A tick seen within SCHEDULE_GRACE_SECONDS
of its time fires; older ones were missed while nothing ran: dropped (`missed:
"skip"`, the default), or the latest of them fires once (`"run_once"`). A tick
fires as a background run (trigger `schedule`, input `{scheduled_for}`) whose
delivery id is `schedule:<tick>`, unique per flow, so several schedulers racing
over the same tick start it exactly once (`run_once`, flows/engine/once.py). A
flow seen for the first time starts from now: a new schedule never fires for the past.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.db import DatabaseError
from django.db.models import F
from django.utils import timezone

from core.cron import cron_problem, previous_tick, ticks, zone_of
from flows import metrics
from flows.engine.once import run_once
from flows.models import Flow, FlowRun
from flows.nodes.schedule import enabled_schedule

logger = logging.getLogger("weir.scheduler")


def due_ticks(data: dict, since: datetime, now: datetime) -> list[datetime]:
    """The ticks of this schedule to fire now, given its last look `since`.

    Only the grace window is stepped through, however long nothing ran, and
    the latest missed tick (for `run_once`) is found stepping back from it.
    """
    cron, zone = data.get("cron"), data.get("timezone", settings.TIME_ZONE)
    problem = cron_problem(cron)
    if problem or zone_of(zone) is None:
        # Refused at save; a row saved before a check existed may hold one.
        raise ValueError(problem or f"{str(zone)[:64]!r} is not a time zone")
    window_start = now - timedelta(seconds=settings.SCHEDULE_GRACE_SECONDS)
    recent = ticks(cron, zone, max(since, window_start), now)
    if recent or since >= window_start or data.get("missed") != "run_once":
        return recent
    missed = previous_tick(cron, zone, window_start)
    return [missed] if missed > since else []


def fire(flow: Flow, tick: datetime) -> FlowRun | None:
    """Queue the tick's run; None when another scheduler already did."""
    when = tick.isoformat().replace("+00:00", "Z")
    run, repeat = run_once(
        flow,
        {"scheduled_for": when},
        FlowRun.Trigger.SCHEDULE,
        delivery_id=f"schedule:{when}",
        background=True,
    )
    return None if repeat else run


def schedule_pass(now: datetime | None = None) -> int:
    """Fire every due tick; returns how many runs this pass started.

    One flow's error (a schedule stored before its check existed, a bug) is
    logged once per flow version, counted (`weir_schedule_errors_total`) and
    passed over: the supervisor, and every other flow's schedule, go on.
    """
    now = now or timezone.now()
    started = 0
    flows = (
        Flow.objects.scheduled()
        .only("id", "created_by_id", "version", "nodes", "edges", "schedule_checked_at")
        .annotate(creator_active=F("created_by__is_active"))
    )
    for flow in flows:
        try:
            started += _look(flow, now)
        except DatabaseError:
            raise  # the database is away: the supervisor retries the pass
        except Exception:
            metrics.schedule_error()
            if (flow.pk, flow.version) not in _reported:
                _reported.add((flow.pk, flow.version))
                logger.exception("Flow %s could not be scheduled", flow.pk)
            Flow.objects.filter(pk=flow.pk).update(schedule_checked_at=now)
    return started


# The (flow, version) pairs whose error this process has logged: once is
# enough to find it, a line every second would bury the rest of the log.
_reported: set = set()


def _look(flow: Flow, now: datetime) -> int:
    """Fire the flow's due ticks and note the look; the runs started."""
    schedule = enabled_schedule(flow.nodes)
    if schedule is None:
        return 0
    _, data = schedule
    if flow.schedule_checked_at is None:
        Flow.objects.filter(pk=flow.pk).update(schedule_checked_at=now)
        return 0
    since = flow.schedule_checked_at
    due = due_ticks(data, since, now)
    stale = now - since > timedelta(seconds=settings.SCHEDULE_GRACE_SECONDS)
    if not due and not stale:
        return 0  # nothing fired, and the last look is still recent
    started = 0
    for tick in due:
        if flow.creator_active is False:
            metrics.schedule_skipped()  # a deactivated creator's flows do not run
            continue
        try:
            started += fire(flow, tick) is not None
        except Exception:  # one tick's trouble must not stop the others
            logger.exception("Flow %s: the tick %s did not start", flow.pk, tick)
    Flow.objects.filter(pk=flow.pk).update(schedule_checked_at=now)
    return started
