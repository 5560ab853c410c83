"""Two-factor sign-in: TOTP from an authenticator app, with recovery codes.

Its own small Django app (label `two_factor`) so its models and migrations stay
apart from the rest of `accounts`. `service` keeps the secrets and checks
codes; `sign_in` is the second step every way of signing in shares; `views`
are the account page and the code page; `middleware` holds staff to
`REQUIRE_2FA_FOR_STAFF`. Bearer tokens are not affected: they are the way
programs sign in (docs/security.md).
"""
