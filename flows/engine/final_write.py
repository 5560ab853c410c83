"""How a run's end is stored: the final write, retried while the database is
away, and what the run says when that write cannot be made.

A mixin of `Execution` (flows/engine/runner.py), kept apart because it is its
own concern: the engine walks the graph, this makes sure the run never stays
`running` and its caller is told what the database says.
"""

from __future__ import annotations

import logging
import time

from django.db import DatabaseError, InterfaceError, OperationalError, connection

from flows.engine import deferred, store
from flows.engine.outcome_log import log_outcome
from flows.models import FlowRun

logger = logging.getLogger("weir.engine")

# How long the final write is retried while the database is unreachable.
FINAL_WRITE_RETRY_SECONDS = 5.0


class FinalWrite:
    """Needs `run`, `results`, `steps`, `flushed` and `started` (Execution's)."""

    def finish(self, status: str, error: dict | None) -> None:
        """Store the run's end; if that write fails, store it as failed instead.

        Outputs are checked as they are made, so a failure here is a surprise:
        the flow was deleted mid-run ("did not affect any rows", or the steps'
        foreign key), or the database refused a value the checks let through.
        Either way the run must not stay `running` and the caller still gets an
        answer, so the run ends `failed` with its results dropped.
        """
        duration_ms = (time.monotonic() - self.started) * 1000
        steps = self.steps[self.flushed :]
        give_up = time.monotonic() + FINAL_WRITE_RETRY_SECONDS
        deferred.settle(self.run)
        retrying = False
        while True:
            try:
                if retrying and self.run._state.adding and store.exists(self.run):
                    # The whole-run INSERT committed before the connection broke.
                    self.run._state.adding = False
                    stored = True
                else:
                    stored = store.finish_run(
                        self.run, status, self.results, error, duration_ms, steps=steps
                    )
                break
            except (OperationalError, InterfaceError):
                # The database is away (a restart, a failover): try again for a
                # while; the run is still ours as long as its lease holds.
                connection.close()
                if time.monotonic() > give_up:
                    logger.exception("Run %s: the database stayed away", self.run.id)
                    self.leave_to_supervisor()
                    if self.run._state.adding:  # stored `running` once it is back
                        deferred.defer(self.run)
                    return
                retrying = True
                time.sleep(0.2)
            except (DatabaseError, ValueError, RecursionError):
                logger.exception("Run %s could not be stored as it ended", self.run.id)
                self.store_as_unstorable(duration_ms)
                return
        if not stored:  # deleted with its flow, or no longer this executor's
            if not self.taken_over():
                self.store_as_unstorable(duration_ms)
            return
        self.flushed = len(self.steps)
        log_outcome(self.run, status, duration_ms)

    def taken_over(self) -> bool:
        """Whether the supervisor ended the run or gave it to another worker
        while this executor ran it; if so `self.run` becomes what is stored,
        so the caller is told what the database says."""
        stored = (
            FlowRun.objects.filter(pk=self.run.pk)
            .values(*store.FINAL_FIELDS, "attempts")
            .first()
        )
        if stored is None:
            return False
        for name, value in stored.items():
            setattr(self.run, name, value)
        return True

    def leave_to_supervisor(self) -> None:
        """The end could not be stored: the row stays `running` until its lease
        expires and the supervisor marks it `interrupted`, so that is what the
        caller is told, and what the database will say."""
        self.run.status = FlowRun.Status.INTERRUPTED
        self.run.results, self.run.response = {}, None
        self.run.error = dict(store.INTERRUPTED)

    def store_as_unstorable(self, duration_ms: float) -> None:
        try:
            stored = store.mark_unstorable(self.run, duration_ms)
        except DatabaseError:
            logger.exception("Run %s could not be marked failed either", self.run.id)
            return  # still `running`: the supervisor ends it when its lease expires
        if not stored:
            self.run.error = {
                "node_id": None,
                "code": "flow_deleted",
                "message": "The flow was deleted while it ran; the run was not kept.",
            }
