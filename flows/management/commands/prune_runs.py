"""`manage.py prune_runs [--dry-run]`: apply the run retention limits once.

See flows/engine/retention.py for what is kept and how the deletes stay small. Run it
from cron (or the scheduler loop) every few minutes to an hour; each call
deletes what has become too old since the last.
"""

from __future__ import annotations

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from flows.engine import retention


class Command(BaseCommand):
    help = (
        "Delete finished, unpinned runs older than RUN_RETENTION_DAYS or beyond "
        "RUN_RETENTION_MAX_PER_FLOW per flow, with their steps, in small batches."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--dry-run",
            action="store_true",
            help="Count what would go; delete nothing.",
        )
        parser.add_argument(
            "--batch-size",
            type=int,
            default=retention.BATCH_SIZE,
            help="Runs per delete transaction (default %(default)s).",
        )
        parser.add_argument(
            "--pause",
            type=float,
            default=0.0,
            help="Seconds to sleep between batches, at least (default 0).",
        )
        parser.add_argument(
            "--work-share",
            type=float,
            default=None,
            help="Share of the time spent deleting, 0-1; it sleeps the rest "
            "(default: the PRUNE_WORK_SHARE setting, 0.25).",
        )

    def handle(
        self, *args, dry_run, batch_size, pause, work_share, verbosity, **options
    ):
        if work_share is not None and not 0 < work_share <= 1:
            raise CommandError("--work-share must be above 0 and at most 1.")
        progress = self.stdout.write if verbosity > 1 else (lambda line: None)
        report = retention.prune(
            dry_run=dry_run,
            batch_size=batch_size,
            pause=pause,
            work_share=work_share,
            progress=progress,
        )
        verb = "Would delete" if dry_run else "Deleted"
        self.stdout.write(
            f"{verb} {report.runs} runs and {report.steps} steps: "
            f"{report.runs_by_age} older than {settings.RUN_RETENTION_DAYS} days, "
            f"{report.runs_by_count} beyond the newest "
            f"{settings.RUN_RETENTION_MAX_PER_FLOW} of their flow, "
            f"{report.runs_of_deleted_flows} of deleted flows."
        )
        if report.unclaimed_files:
            self.stdout.write(
                f"{verb} {report.unclaimed_files} files no run claimed within "
                f"{settings.RUN_FILES_UNCLAIMED_SECONDS} s."
            )
