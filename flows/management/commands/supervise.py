"""`manage.py supervise`: the supervisor loop (see flows/engine/supervisor.py).

Runs one pass at start, then one every `SUPERVISE_INTERVAL_SECONDS`, until
SIGINT or SIGTERM; between them, every `SCHEDULE_INTERVAL_SECONDS`, it starts
the runs of due schedule ticks (flows/schedules/scheduler.py). Every
`PRUNE_INTERVAL_SECONDS` (and at the first pass) it also applies the run
retention limits (flows/engine/retention.py), in the same small
batches as `manage.py prune_runs`. A pass that fails because the database is
away (a restart, a failover) is logged and tried again at the next tick: the
supervisor must outlive the outages it cleans up after.
"""

from __future__ import annotations

import logging
import signal
import time

from django.conf import settings
from django.core.management.base import BaseCommand
from django.db import DatabaseError, close_old_connections, connection

from accounts.audit.retention import prune_audit
from flows.engine import retention, supervisor
from flows.schedules import scheduler

logger = logging.getLogger("weir.supervisor")


class Command(BaseCommand):
    help = "Find runs whose process died and end or resume them, every few seconds."

    def add_arguments(self, parser):
        parser.add_argument(
            "--once", action="store_true", help="Make one pass, then exit."
        )

    def handle(self, *args, **options):
        self.stopping = False
        self.once = options["once"]
        self.next_prune = 0.0  # at the first pass
        if not options["once"]:
            signal.signal(signal.SIGTERM, self.stop)
            signal.signal(signal.SIGINT, self.stop)
        if not self.once:
            self.stdout.write(
                f"Supervising runs every {settings.SUPERVISE_INTERVAL_SECONDS:g} s."
            )
            self.stdout.flush()
        next_recovery = 0.0
        while True:
            if time.monotonic() >= next_recovery:
                self.tick()
                next_recovery = time.monotonic() + settings.SUPERVISE_INTERVAL_SECONDS
            self.schedule()
            if options["once"] or self.stopping:
                return
            deadline = time.monotonic() + min(
                settings.SCHEDULE_INTERVAL_SECONDS, settings.SUPERVISE_INTERVAL_SECONDS
            )
            while not self.stopping and time.monotonic() < deadline:
                time.sleep(0.05)
            if self.stopping:
                return
            close_old_connections()  # drop a connection the database closed

    def tick(self) -> None:
        try:
            done = supervisor.recover()
        except DatabaseError:
            logger.warning("Supervisor pass failed; retrying next tick", exc_info=True)
            connection.close()  # a broken connection is not reused
            return
        if done.total or self.once:
            self.stdout.write(
                f"Stranded runs: {done.interrupted} interrupted, "
                f"{done.requeued} resumed, {done.cancelled} cancelled."
            )
        if done.woken:
            self.stdout.write(f"Waiting runs woken: {done.woken}.")
        if done.orphaned:
            self.stdout.write(f"Runs of deleted flows deleted: {done.orphaned}.")
        if time.monotonic() >= self.next_prune:
            self.prune()

    def schedule(self) -> None:
        """Start the runs of the schedule ticks that are due
        (flows/schedules/scheduler.py)."""
        try:
            started = scheduler.schedule_pass()
        except DatabaseError:
            logger.warning("Schedule pass failed; retrying next tick", exc_info=True)
            connection.close()
            return
        if started or self.once:
            self.stdout.write(f"Scheduled runs started: {started}.")

    def prune(self) -> None:
        self.next_prune = time.monotonic() + settings.PRUNE_INTERVAL_SECONDS
        try:
            report = retention.prune()
        except DatabaseError:
            logger.warning("Pruning failed; retrying next interval", exc_info=True)
            connection.close()
            return
        deleted = report.runs
        if deleted or self.once:
            self.stdout.write(f"Pruned {deleted} runs past the retention limits.")
        try:
            events = prune_audit()
        except DatabaseError:
            logger.warning(
                "Audit pruning failed; retrying next interval", exc_info=True
            )
            connection.close()
            return
        if events or self.once:
            self.stdout.write(
                f"Pruned {events} audit events past AUDIT_RETENTION_DAYS."
            )

    def stop(self, signum, frame) -> None:
        self.stopping = True
