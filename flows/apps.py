from django.apps import AppConfig


class FlowsConfig(AppConfig):
    name = "flows"
    verbose_name = "Flows"

    def ready(self):
        from django.contrib.auth import get_user_model
        from django.db.models.signals import post_delete, post_save

        from accounts.workspaces.personal import on_user_saved
        from core.net import allowlist
        from core.telemetry.health import Check, register_check
        from core.telemetry.metrics import register_scrape_collector
        from flows.allowed_addresses import stored_entries
        from flows.app_actions.node import AppActionNode
        from flows.credentials import checks  # noqa: F401  (registers the check)
        from flows.credentials import kinds as credential_kinds
        from flows.credentials.builtin_kinds import register_builtin_kinds
        from flows.engine import (
            calls,  # noqa: F401  (plugs child runs into the runner)
            error_flows,  # noqa: F401  (connects its receiver)
        )
        from flows.engine.orphans import delete_after_flow
        from flows.files.models import RunFile
        from flows.files.removal import delete_bytes_with_row
        from flows.metrics import QueueCollector
        from flows.models import Flow, FlowRun
        from flows.nodes import register
        from flows.nodes.base import HTTP_SIGNING, KIND_GROUPS
        from sandbox.health import check_sandbox

        register(AppActionNode())
        register_builtin_kinds()
        KIND_GROUPS[HTTP_SIGNING] = credential_kinds.http_kinds

        allowlist.register_source(stored_entries)
        register_scrape_collector(QueueCollector(lambda: FlowRun.objects.queued()))
        register_check(Check("sandbox", check_sandbox))
        # A run file's bytes go when its row does, by whatever path.
        post_delete.connect(
            delete_bytes_with_row, sender=RunFile, dispatch_uid="run_file_bytes"
        )
        # A run stored as its flow was deleted goes too (no foreign key).
        post_delete.connect(delete_after_flow, sender=Flow, dispatch_uid="late_runs")
        post_save.connect(
            on_user_saved, sender=get_user_model(), dispatch_uid="personal_workspace"
        )
