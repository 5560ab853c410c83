"""`claim`: files stored before their run existed become the run's.

A webhook's upload is stored before the run it starts is written; a node's
file may be stored before a short run's row is (flows/engine/deferred.py).
Claimed files live and die with their run; unclaimed ones are deleted by
retention after RUN_FILES_UNCLAIMED_SECONDS (flows/files/removal.py).
"""

from __future__ import annotations

from django.db.models import Subquery

from flows.files.markers import file_id, is_file
from flows.files.models import RunFile


def claim(markers, run_id) -> int:
    """Attach the unclaimed files `markers` name (a marker or a list; other
    values are ignored) to the stored run `run_id`; how many it took.

    Only files of the run's own workspace and no run yet: a marker naming
    another workspace's file, or another run's, claims nothing."""
    items = markers if isinstance(markers, list | tuple) else [markers]
    ids = [file_id(item) for item in items if is_file(item)]
    if not ids:
        return 0
    # The run model through the foreign key: flows.models imports this
    # package's model, so this package never imports flows.models.
    runs = RunFile._meta.get_field("run").related_model.objects
    workspace = runs.filter(pk=run_id).values("flow__workspace_id")
    return RunFile.objects.filter(
        pk__in=ids, run__isnull=True, workspace_id=Subquery(workspace)
    ).update(run_id=run_id)


def claim_ids(ids, run_id) -> int:
    """`claim` for ids the caller stored itself (flows/files/run_files.py)."""
    if not ids:
        return 0
    return RunFile.objects.filter(pk__in=ids, run__isnull=True).update(run_id=run_id)
