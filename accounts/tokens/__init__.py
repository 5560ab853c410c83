"""API tokens: their text (`text`), the model (`models`), `/api/tokens`
(`api`), the tokens page (`page`) and the admin (`admin`).

The DRF authentication and permission classes are in
`accounts/authentication.py` and `accounts/permissions.py`,
because DRF imports those while it is still loading.
"""
