"""Single sign-on with OpenID Connect, through mozilla-django-oidc.

`discovery` reads the provider's endpoints from OIDC_ISSUER; `library`
answers the library's settings from Weir's; `backend` checks the ID token
and finds (or makes) the account; `people` is the rule for which account an
e-mail may reach; `group_roles` keeps workspace memberships in step with the
provider's groups; `views` start and finish a sign-in. docs/operations.md,
"Single sign-on", is the contract.
"""
