"""HTTP conventions every app shares: errors, parsers, rate limits, pagination.

A plain package, not an app: it imports no app of the project, so `flows` and
everything above it can use it (see docs/architecture.md).
"""
