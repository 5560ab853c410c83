"""Credentials: secrets stored once, encrypted, used by reference (issue 15).

`models` holds the `Credential` (registered through `flows.models`), `crypto`
the Fernet keys, `redact` the scrubbing of values out of what a run stores,
`resolve` the run-time lookup the engine uses, `usage` which flows refer to a
credential, `portable` the name-and-kind references that export and import use.
"""
