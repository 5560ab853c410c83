"""A credential-kind plugin whose module raises while it is imported."""

raise ImportError("no module named hello_sdk")
