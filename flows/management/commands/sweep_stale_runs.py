"""`manage.py sweep_stale_runs`: end runs a crash left `queued` or `running`.

A run lives inside one request or worker; if that process dies mid-run the row
stays `running` forever. Anything older than the run time limit plus a margin
cannot still be going, so it is marked `failed` with code `interrupted`.
`make run` calls this before serving; a scheduler may call it periodically.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.core.management.base import BaseCommand

from flows.engine import store
from flows.models import FlowRun

MARGIN_SECONDS = 60


class Command(BaseCommand):
    help = "Mark runs stuck in queued/running past the run time limit as interrupted."

    def add_arguments(self, parser):
        parser.add_argument(
            "--older-than",
            type=float,
            default=None,
            help="Seconds; default RUN_TIMEOUT_SECONDS plus a minute.",
        )

    def handle(self, *args, **options):
        seconds = options["older_than"]
        if seconds is None:
            seconds = settings.RUN_TIMEOUT_SECONDS + MARGIN_SECONDS
        count = store.mark_interrupted(
            FlowRun.objects.stale(timedelta(seconds=seconds))
        )
        self.stdout.write(f"Marked {count} stale run(s) as interrupted.")
