"""A run's steps: one row per node that ran (flows/models.py registers it)."""

from __future__ import annotations

from django.db import models


class RunStep(models.Model):
    """One node's part in a run: its status, output, error, console logs and timing."""

    class Status(models.TextChoices):
        """Steps are written once their node has ended, so only final states."""

        SUCCEEDED = "succeeded"
        FAILED = "failed"
        SKIPPED = "skipped"

    # No index of its own: the (run, node_id) constraint's index leads with run,
    # and serves a run's steps (the run page) and the cascade on delete.
    run = models.ForeignKey(
        "flows.FlowRun",
        on_delete=models.CASCADE,
        related_name="steps",
        db_index=False,
    )
    position = models.PositiveIntegerField(
        help_text="Order of execution within the run."
    )
    node_id = models.CharField(max_length=100)
    node_type = models.CharField(max_length=32)
    node_name = models.CharField(max_length=200, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices)
    handle = models.CharField(
        max_length=700,  # a switch in mode all: up to 20 names of 30, joined
        blank=True,
        default="",
        help_text="The output a branching node left through (several joined by "
        "commas); a resumed run fires the same edges.",
    )
    output = models.JSONField(null=True, blank=True)
    error = models.JSONField(null=True, blank=True)
    logs = models.JSONField(default=list, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    duration_ms = models.FloatField(null=True, blank=True)
    attempts = models.JSONField(
        default=list,
        blank=True,
        help_text="With a retry policy, every attempt: attempt, status, "
        "duration_ms and, for a failed one, its error.",
    )

    class Meta:
        ordering = ["run", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["run", "node_id"], name="runstep_unique_node_per_run"
            ),
        ]

    def __str__(self):
        return f"{self.node_id} · {self.status}"
