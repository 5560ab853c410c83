"""The audit log (issue 23): who did what, written explicitly by service functions.

`actor` says who acts (user, address, request id, a label that outlives the user).
"""
