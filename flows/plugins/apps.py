"""The app that loads plugins, listed last in INSTALLED_APPS.

Django calls `ready()` in INSTALLED_APPS order, so by the time this one runs
every app has registered its own node kinds (flows the built-ins, agents the
`agent` kind) and flows its credential kinds: a plugin can only add names,
never take one (docs/plugins.md).
"""

from django.apps import AppConfig


class PluginsConfig(AppConfig):
    name = "flows.plugins"
    label = "plugins"
    verbose_name = "Plugins"

    def ready(self):
        from flows.credentials.plugins import load_credential_kind_plugins
        from flows.nodes.plugins import load_node_plugins

        load_credential_kind_plugins()
        load_node_plugins()
