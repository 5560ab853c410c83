"""The audit log (issue 23): who did what, written explicitly by service functions.

`actor` says who acts (user, address, request id, a label that outlives the user),
`models` holds `AuditEvent` (registered through `flows.models`), `record` writes
one with its `weir.audit` log line, `retention` prunes old ones, `admin` shows
them read-only.
"""
