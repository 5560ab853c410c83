"""The QuerySets of flows and runs: the domain words views, the API and the
engine use to ask for them (`Flow.objects.for_user(user)`, from
accounts/workspaces/owned.py, `FlowRun.objects.lease_expired()`). Each names
the index its query serves where one does. They reach their model's constants
through `self.model`, so this module needs nothing from flows/models.py."""

from __future__ import annotations

from django.db import models
from django.utils import timezone

from accounts.workspaces.owned import WorkspaceOwnedQuerySet
from flows.run_stats import run_stats


class FlowQuerySet(WorkspaceOwnedQuerySet):
    def scheduled(self):
        """Flows with a schedule trigger, enabled or not (enabled_schedule tells)."""
        return self.filter(has_schedule=True)

    def form_page(self, slug: str):
        """The flow answering at /f/<slug>: its public triggers enabled
        (webhook_enabled) and its creator, if any, active. Serves by the
        unique form_slug index."""
        return (
            self.filter(form_slug=slug, webhook_enabled=True)
            .exclude(created_by__is_active=False)
            .first()
        )


# What a list of runs never shows (the API's lists, the Runs page): a run's
# data and its flow's graph. Left out of the query, a page of 20 reads and
# decodes none of it; the list shows each run's flow by name.
UNLISTED_RUN_FIELDS = ("input", "results", "response", "request_meta", "retry_state")
UNLISTED_FLOW_FIELDS = ("description", "input_schema", "nodes", "edges", "pins")


class FlowRunQuerySet(WorkspaceOwnedQuerySet):
    # `for_user`: runs of the flows of the workspaces `user` is a member of.
    workspace_path = "flow__workspace"

    def listed(self):
        """The runs with what a list shows of them: their flow (name and
        workspace, one join), not their data nor the flow's graph. Newest
        first, on run_flow_created_idx for one flow's runs."""
        flow_fields = [f"flow__{name}" for name in UNLISTED_FLOW_FIELDS]
        return (
            self.select_related("flow")
            .defer(*UNLISTED_RUN_FIELDS, *flow_fields)
            .order_by("-created_at", "-id")
        )

    def prunable(self):
        """Runs retention may delete: finished (a waiting run is not) and not
        pinned."""
        return self.exclude(status__in=self.model.UNFINISHED).filter(pinned=False)

    def queued(self):
        return self.filter(status=self.model.Status.QUEUED)

    def stats(self, range_key: str, now=None) -> dict:
        """The Runs page's chart: counts and p50/p95 per bucket (three queries)."""
        return run_stats(self, range_key, now)

    def status_counts_since(self, since) -> dict[str, int]:
        """{status: runs created since `since`}; one query (run_created_idx)."""
        rows = (
            self.filter(created_at__gte=since)
            .order_by()
            .values_list("status")
            .annotate(count=models.Count("pk"))
        )
        return dict(rows)

    def oldest_running(self):
        """The run that has been running longest, or None (run_status_lease_idx)."""
        return (
            self.filter(status=self.model.Status.RUNNING)
            .select_related("flow")
            .order_by("created_at")
            .first()
        )

    def lease_expired(self):
        """Queued or running runs whose executor stopped renewing the lease."""
        return self.filter(
            status__in=[self.model.Status.QUEUED, self.model.Status.RUNNING],
            lease_expires_at__lt=timezone.now(),
        )
