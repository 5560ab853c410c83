"""Deleting files: a row's bytes go with it, and unclaimed files expire.

Every deletion of `RunFile` rows, by any path (a run deleted by retention
or by hand, its flow's or its workspace's cascade), sends `post_delete` for
each row (a receiver stops Django from deleting them in bulk unseen), and the
receiver deletes the bytes once the transaction commits: a rolled-back
delete keeps its bytes, a committed one leaves none. A store that fails to
delete is logged, not raised: the row is already gone.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from flows.files.models import RunFile
from flows.files.saving import run_files_storage

logger = logging.getLogger("weir.files")


def delete_bytes_with_row(sender, instance: RunFile, using, **kwargs) -> None:
    """post_delete receiver (connected in flows/apps.py)."""
    key = instance.storage_key
    transaction.on_commit(lambda: delete_bytes(key), using=using)


def delete_bytes(key: str) -> None:
    try:
        run_files_storage().delete(key)
    except Exception:  # noqa: BLE001 - the row is gone; the bytes are only litter
        logger.exception("Could not delete the bytes of run file %s", key)


def delete_files_of_runs(run_ids) -> int:
    """Delete the files (rows, then bytes) of these runs: retention calls it
    before deleting the runs themselves in bulk."""
    return RunFile.objects.filter(run_id__in=run_ids).delete()[0]


def delete_unclaimed(now=None, batch_size: int = 500) -> int:
    """Delete files no run claimed within RUN_FILES_UNCLAIMED_SECONDS."""
    moment = (now or timezone.now()) - timedelta(
        seconds=settings.RUN_FILES_UNCLAIMED_SECONDS
    )
    deleted = 0
    while True:
        with transaction.atomic():
            batch = list(
                RunFile.objects.unclaimed_before(moment)
                .select_for_update(skip_locked=True)  # a claim waits, then finds none
                .order_by("created_at")
                .values_list("pk", flat=True)[:batch_size]
            )
            if not batch:
                return deleted
            deleted += RunFile.objects.filter(pk__in=batch).delete()[0]
