from django.apps import AppConfig


class FlowsConfig(AppConfig):
    name = "flows"
    verbose_name = "Flows"

    def ready(self):
        from flows.credentials import checks  # noqa: F401  (registers the check)
