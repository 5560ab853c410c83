"""`manage.py work`: one background worker for the configured task engine.

One command whatever `TASKS_BACKEND` says, so the Procfile, systemd units and
the fault tests never name an engine: `database` runs the worker that takes queued
runs from the runs table, then django-tasks-db's other tasks (woken by
PostgreSQL's NOTIFY when a run is queued, polling every `WORKER_POLL_SECONDS`
as the fallback: flows/engine/worker.py), `rq`
runs django-rq's `rqworker` with the Job class django-tasks-rq needs. Start as
many as you want runs in parallel; each executes one task at a time. SIGINT or
SIGTERM lets the task in hand finish, then the worker exits.
"""

from __future__ import annotations

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand
from django.utils.crypto import get_random_string
from django_tasks_db.management.commands import db_worker

from core.startup import freeze_what_was_loaded
from flows.engine.worker import RunWorker


class Command(BaseCommand):
    help = "Run one background worker for TASKS_BACKEND (database or rq)."

    def add_arguments(self, parser):
        parser.add_argument(
            "--burst",
            action="store_true",
            help="Run what is queued, then exit (database and rq alike).",
        )

    def handle(self, *args, **options):
        freeze_what_was_loaded()
        if settings.TASKS_BACKEND == "rq":
            call_command(
                "rqworker",
                "default",
                job_class="django_tasks_rq.Job",
                burst=options["burst"],
                # Runs queued again to retry later are scheduled jobs (run_after).
                with_scheduler=True,
                verbosity=options["verbosity"],
            )
            return
        # What `db_worker` does, with the worker that takes runs and wakes on NOTIFY.
        logs = db_worker.Command(stdout=self.stdout, stderr=self.stderr)
        logs.configure_logging(options["verbosity"])
        worker = RunWorker(
            queue_names=["default"],
            excluded_queue_names=[],
            interval=settings.WORKER_POLL_SECONDS,
            batch=options["burst"],
            backend_name="default",
            startup_delay=False,
            max_tasks=None,
            worker_id=get_random_string(32),
        )
        worker.configure_signals()
        try:
            worker.run()
        finally:
            worker.wakeup.close()
