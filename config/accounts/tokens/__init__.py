"""API tokens: their text (`text`), the model (`models`), `/api/tokens`
(`api`), the tokens page (`page`) and the admin (`admin`).

The DRF authentication and permission classes are in
`config/accounts/authentication.py` and `config/accounts/permissions.py`,
because DRF imports those while it is still loading.
"""
