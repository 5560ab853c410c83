"""What the service tells its operator: log context, log format, metrics export.

The bottom layer beside `core.http`: it imports no app, so `flows`, `agents`
and `webhooks` can all use it (the import-linter contracts in pyproject.toml).
"""
