"""Flow history (issue 23): every saved change to a flow is a numbered snapshot.

`models` holds `FlowVersion` (registered through `flows.models`), `save` the one
function every change to a flow goes through (`save_flow`), `diff` the
comparison of two snapshots keyed by node id, `restore` what a restore checks
against the flow as it is now.
"""
