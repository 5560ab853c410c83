"""The app that loads plugins' node and credential kinds (`apps.PluginsConfig`,
the last of INSTALLED_APPS)."""
