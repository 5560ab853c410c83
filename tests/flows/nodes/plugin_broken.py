"""A plugin module that fails as it is imported (tests/flows/nodes/test_plugins.py)."""

raise RuntimeError("the hello service is down")
