from django.apps import AppConfig


class FlowsConfig(AppConfig):
    name = "flows"
    verbose_name = "Flows"

    def ready(self):
        from config.telemetry.metrics import register_scrape_collector
        from flows.credentials import checks  # noqa: F401  (registers the check)
        from flows.engine import (
            calls,  # noqa: F401  (plugs child runs into the runner)
            error_flows,  # noqa: F401  (connects its receiver)
        )
        from flows.metrics import QueueCollector
        from flows.models import FlowRun

        register_scrape_collector(QueueCollector(lambda: FlowRun.objects.queued()))
