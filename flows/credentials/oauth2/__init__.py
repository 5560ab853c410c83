"""OAuth2 credentials (kind `oauth2`, docs/credentials.md "OAuth2").

`client` is Authlib's client over `core.net.outbound`, `tokens` keeps a
credential's tokens fresh (one renewal at a time, under a row lock), `state`
the single-use, session-bound `state` of a Connect, `views` Connect and its
callback, `fields` what the credentials API reads and shows of the kind.
"""
