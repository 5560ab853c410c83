"""The background queue shared fairly between workspaces.

Two rules keep one person from filling the queue that everyone's background
runs wait in (issue 27, item 6):

- **A cap on what a request may add.** A request that would queue a run (the
  API's `?async=true` or `Prefer: respond-async`, an async webhook) is refused
  with 429 `throttled` and `Retry-After` while the owner already has
  `QUEUED_RUNS_PER_OWNER` runs queued. Every queued run of theirs counts, but
  only requests are refused: a schedule tick, a called flow or an error flow has
  nobody to answer 429 to (schedules are capped per owner, called flows per root
  run). Far from the cap the queue is not counted on every request
  (`check_room`), so the cap can be passed by at most 1/`SHARE` of the room each
  web process last counted, plus the requests in flight (two requests at the
  same instant may both see the last place).
- **Fair claiming.** A free worker executes the queued run of the owner with
  the fewest runs *running*, then the fewest *queued*, oldest first. On the
  database engine the queued runs are the queue (`next_due_run_id`): a run
  waiting to retry a node is left until its `run_after`. The rq engine hands
  out tasks first in, first out; a task names a run, but the worker executes
  the run fair claiming picks (`next_run_id`): its own run when its owner is
  no busier than any other, else another owner's. Every run still has one
  task, so every run is executed once; a task whose run someone else's task
  took executes another run or nothing. There a run waiting to retry a node
  (`retry_state`) is taken only by its own task, which rq holds back until
  the wait is over.

"Owner" here is the flow's workspace (`OWNER` names the `Flow` field runs are
grouped by): teammates share their workspace's place in the queue and its cap,
as they share its schedule and synchronous-run caps. The setting keeps its name.
"""

from __future__ import annotations

import threading

from django.conf import settings
from django.db import connections, router
from django.db.models import Count, Q
from django.utils import timezone

from core.http.errors import Throttled
from flows.engine.sql import value
from flows.models import Flow, FlowRun

OWNER = "workspace"  # the Flow field whose runs share one place in the queue
OWNER_PATH = f"flow__{OWNER}"
# A full queue drains at the workers' pace, unknown here: a retry soon is cheap.
RETRY_AFTER_SECONDS = 5
# Far from the cap a process queues up to 1/SHARE of the room it last counted
# before it counts again (`check_room`).
SHARE = 16
# Owners whose last count a process keeps at most; past it the table starts again.
MAX_OWNERS = 10_000


class QueueFull(Throttled):
    """The workspace has `QUEUED_RUNS_PER_OWNER` runs queued already."""


def owner_of(flow: Flow):
    """The key `flow`'s runs are counted and served under."""
    return getattr(flow, f"{OWNER}_id")


def check_room(flow: Flow) -> None:
    """Raise QueueFull (429) when `flow`'s workspace may queue no more runs now.

    Counting the queue on every async request cost PostgreSQL more CPU than
    the rest of a 202 (a count grows with the queue, up to the cap), and far
    from the cap the answer is always "room". So each process remembers the
    room it last counted per owner and lets requests through without counting
    while those let through since stay under 1/`SHARE` of it; near the cap
    (room under `SHARE`) every request counts. Alone, a process never passes
    the cap; with others queueing for the same owner between its counts, the
    owner can end up at most 1/`SHARE` of that room over it, per process
    (plus the requests in flight). A refusal is never remembered: the next
    request counts again, so room freed by the workers is seen at once.
    """
    limit = settings.QUEUED_RUNS_PER_OWNER
    owner = owner_of(flow)
    with _lock:
        unchecked = _unchecked.get(owner)
        if unchecked is not None and unchecked.take(limit):
            return
    queued = queued_up_to(owner, limit)
    if queued >= limit:
        with _lock:
            _unchecked.pop(owner, None)
        raise QueueFull(
            RETRY_AFTER_SECONDS,
            f"{queued} runs of this workspace are queued already (the limit is "
            f"{limit}); try again once some have run.",
        )
    with _lock:
        if len(_unchecked) >= MAX_OWNERS:
            _unchecked.clear()
        # This request takes one place of the room; the rest is shared out.
        _unchecked[owner] = Unchecked(limit, (limit - queued - 1) // SHARE)


class Unchecked:
    """How many more of one owner's requests this process may let through
    without counting, under the cap it counted against."""

    __slots__ = ("limit", "left")

    def __init__(self, limit: int, left: int):
        self.limit, self.left = limit, left

    def take(self, limit: int) -> bool:
        if self.left <= 0 or limit != self.limit:
            return False
        self.left -= 1
        return True


_lock = threading.Lock()
_unchecked: dict[object, Unchecked] = {}


def forget() -> None:
    """Drop every remembered count (tests, after changing the queue behind
    this process's back)."""
    with _lock:
        _unchecked.clear()


def queued_up_to(owner, limit: int) -> int:
    """How many background runs `owner` has queued, counted up to `limit`.

    On every async request, so hand-written and prepared (flows/engine/sql.py):
    the ORM spent ~60% of a 202's web CPU compiling this count. Counted up to
    the limit only, because a count of every queued row grew with the queue
    (workers paused or behind) and every async request paid for it.
    """
    using = router.db_for_read(FlowRun)
    connection = connections[using]
    statement = _QUEUED_SQL.get(connection.vendor)
    if statement is None:
        statement = _QUEUED_SQL[connection.vendor] = _queued_sql(connection)
    owner_pk = Flow._meta.get_field(OWNER).target_field
    params = [
        FlowRun.Status.QUEUED,
        owner_pk.get_db_prep_value(owner, connection),
        limit,
    ]
    return value(using, statement, params) or 0


_QUEUED_SQL: dict[str, str] = {}


def _queued_sql(connection) -> str:
    quote = connection.ops.quote_name
    runs, flows = FlowRun._meta, Flow._meta

    def run(name):
        return "r." + quote(runs.get_field(name).column)

    def flow(name):
        return "f." + quote(flows.get_field(name).column)

    return (
        f"SELECT COUNT(*) FROM (SELECT 1 FROM {quote(runs.db_table)} r "
        f"JOIN {quote(flows.db_table)} f ON {run('flow')} = {flow('id')} "
        f"WHERE {run('status')} = %s AND {run('background')} "
        f"AND {flow(OWNER)} = %s LIMIT %s) queued"
    )


def next_run_id(task_run_id: str) -> str:
    """The run the task for `task_run_id` should execute: see the module's doc.

    Two or three small queries: the task's run, then one grouped count of the
    queued and running background runs per owner, then (only when another
    owner comes first) that owner's oldest runnable run.
    """
    own = (
        FlowRun.objects.filter(
            pk=task_run_id, status=FlowRun.Status.QUEUED, background=True
        )
        .values_list(OWNER_PATH, "retry_state")
        .first()
    )
    if own is not None and own[1] is not None:
        return task_run_id  # its retry is due: its own task is the one to take it
    runnable = Q(retry_state__isnull=True)
    loads = _loads(runnable)

    def load(owner) -> tuple[int, int]:
        row = loads.get(owner)  # absent: its run was deleted meanwhile
        return (row["running"], row["queued"]) if row else (0, 0)

    waiting = [owner for owner, row in loads.items() if row["runnable"]]
    if not waiting:
        return task_run_id
    first = min(waiting, key=load)
    if own is not None and load(own[0]) <= load(first):
        return task_run_id
    pick = _oldest(first, runnable)
    return str(pick) if pick is not None else task_run_id


def next_due_run_id() -> str | None:
    """The database engine's next run for a free worker: the oldest due run
    (no `run_after`, or one past) of the owner with the fewest running, then
    queued, background runs; None when no run is due. Two small queries."""
    due = Q(run_after__isnull=True) | Q(run_after__lte=timezone.now())
    loads = _loads(due)
    waiting = [owner for owner, row in loads.items() if row["runnable"]]
    if not waiting:
        return None
    first = min(
        waiting, key=lambda owner: (loads[owner]["running"], loads[owner]["queued"])
    )
    pick = _oldest(first, due)
    return str(pick) if pick is not None else None


def _loads(runnable: Q) -> dict:
    """Per owner with queued or running background runs: how many are
    running, queued, and queued and `runnable`."""
    return {
        row[OWNER_PATH]: row
        for row in FlowRun.objects.filter(
            status__in=[FlowRun.Status.QUEUED, FlowRun.Status.RUNNING],
            background=True,
        )
        .order_by()
        .values(OWNER_PATH)
        .annotate(
            running=Count("pk", filter=Q(status=FlowRun.Status.RUNNING)),
            queued=Count("pk", filter=Q(status=FlowRun.Status.QUEUED)),
            runnable=Count("pk", filter=Q(status=FlowRun.Status.QUEUED) & runnable),
        )
    }


def _oldest(owner, runnable: Q):
    """The id of `owner`'s oldest queued `runnable` background run, or None."""
    return (
        FlowRun.objects.filter(
            runnable,
            status=FlowRun.Status.QUEUED,
            background=True,
            **{OWNER_PATH: owner},
        )
        .order_by("created_at")
        .values_list("pk", flat=True)
        .first()
    )
