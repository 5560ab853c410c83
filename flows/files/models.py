"""`RunFile`: one file of a run's data, its bytes in `storages["run_files"]`.

Registered with Django through `flows.models`, which imports it; it names
the run model by its label, so this package never imports `flows.models`.
"""

from __future__ import annotations

import uuid

from django.db import models

from accounts.workspaces.models import Workspace


class RunFileQuerySet(models.QuerySet):
    def of_workspace(self, workspace_id):
        """A workspace's files: a marker naming any other file finds nothing,
        so a forged `$file` id in a run's input never reaches another
        workspace's bytes."""
        return self.filter(workspace_id=workspace_id)

    def unclaimed_before(self, moment):
        """Files no run claimed, stored before `moment` (runfile_unclaimed_idx)."""
        return self.filter(run__isnull=True, created_at__lt=moment)


class RunFile(models.Model):
    """A file a run holds in its data as `{"$file": {id, name, type, size,
    sha256}}`: the row says which workspace and run own it and where its bytes
    are. Stored before its run exists (a webhook's upload, a node of a run not
    written yet) it is unclaimed (`run` null) until the run claims it;
    retention deletes unclaimed files after RUN_FILES_UNCLAIMED_SECONDS.
    Deleting a row deletes its bytes once the transaction commits
    (flows/files/removal.py), whether the run, its flow or its workspace
    went first.
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    workspace = models.ForeignKey(
        Workspace, on_delete=models.CASCADE, related_name="run_files"
    )
    # Its index serves a run's files (the download, the per-run total, the
    # cascade when the run is deleted).
    run = models.ForeignKey(
        "flows.FlowRun",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="files",
    )
    name = models.CharField(max_length=255)
    content_type = models.CharField(max_length=255)
    size = models.PositiveBigIntegerField()
    sha256 = models.CharField(max_length=64)
    storage_key = models.CharField(max_length=300, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = RunFileQuerySet.as_manager()

    class Meta:
        ordering = ["created_at"]
        indexes = [
            # Retention: files no run claimed, oldest first.
            models.Index(
                fields=["created_at"],
                condition=models.Q(run__isnull=True),
                name="runfile_unclaimed_idx",
            ),
        ]

    def __str__(self):
        return f"{self.name} ({self.size} bytes)"

    def as_marker(self) -> dict:
        """What a run's data holds for this file."""
        return {
            "$file": {
                "id": str(self.id),
                "name": self.name,
                "type": self.content_type,
                "size": self.size,
                "sha256": self.sha256,
            }
        }
