"""Public paths that never touch sessions or users: the webhook endpoint
(docs/security.md, S8).

A browser holding a Weir session may call it (a page posting to a webhook).
Django's session, authentication and message middleware would then read the
session (a query each time, and a `Vary: Cookie` on the answer), and a staff
account's session could even turn the answer into "set up two-factor first".
These subclasses leave such requests alone: no `request.session`, no
`request.user`, no messages, so nothing on those paths can depend on who the
browser is signed in as.

A waiting run's resume page is not among them: it names who decided when the
person is signed in (docs/forms.md, "Approvals"); the link, not the session,
is what lets them decide.
"""

from __future__ import annotations

from django.contrib.auth import middleware as auth
from django.contrib.messages import middleware as messages
from django.contrib.sessions import middleware as sessions

SESSIONLESS_PREFIXES = ("/api/webhooks/",)


def is_sessionless(request) -> bool:
    return request.path_info.startswith(SESSIONLESS_PREFIXES)


class SessionMiddleware(sessions.SessionMiddleware):
    def process_request(self, request):
        if not is_sessionless(request):
            super().process_request(request)

    def process_response(self, request, response):
        if not hasattr(request, "session"):
            return response
        return super().process_response(request, response)


class AuthenticationMiddleware(auth.AuthenticationMiddleware):
    def process_request(self, request):
        if not is_sessionless(request):
            super().process_request(request)


class MessageMiddleware(messages.MessageMiddleware):
    def process_request(self, request):
        if not is_sessionless(request):
            super().process_request(request)
