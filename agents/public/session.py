"""A visitor's session: a random id signed with the server's SECRET_KEY
(django.core.signing), bound to one agent.

The page hands it to its script, which sends it back in the `X-Visitor-Token`
header; it is not a cookie, so a page elsewhere cannot make a browser send it
(no CSRF), and the widget works where browsers block third-party cookies. A
token that was changed, made for another agent or older than the agent's
retention is refused: the visitor starts again with a new one.
"""

from __future__ import annotations

import secrets

from django.core import signing

from core.http.errors import ApiError

SALT = "weir.agents.public.visitor"
HEADER = "X-Visitor-Token"


class InvalidVisitor(ApiError):
    status_code = 403
    default_code = "invalid_visitor_session"
    default_detail = "This chat session is not valid; reload the page to start again."


def new_token(agent) -> str:
    return signing.dumps(
        {"agent": str(agent.pk), "visitor": secrets.token_urlsafe(18)}, salt=SALT
    )


def visitor_of(request, agent) -> str:
    """The visitor id in the request's token for `agent`; InvalidVisitor (403)
    when there is none, or it is forged, expired or another agent's."""
    token = request.headers.get(HEADER, "")
    if not token:
        raise InvalidVisitor("This chat needs its session token; reload the page.")
    try:
        data = signing.loads(
            token, salt=SALT, max_age=agent.visitor_retention_days * 86400
        )
    except signing.BadSignature:
        raise InvalidVisitor() from None
    if not isinstance(data, dict) or data.get("agent") != str(agent.pk):
        raise InvalidVisitor()
    visitor = data.get("visitor")
    if not isinstance(visitor, str) or not visitor:
        raise InvalidVisitor()
    return visitor
