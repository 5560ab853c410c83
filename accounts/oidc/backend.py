"""The authentication backend a single sign-on goes through.

mozilla-django-oidc's backend exchanges the code (with the PKCE verifier),
checks the ID token's signature against the provider's keys and its nonce;
this subclass also checks its issuer and audience (the library leaves them
unchecked), takes claims from both the ID token and the userinfo answer,
and applies Weir's rule for accounts (`people`).
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.core.exceptions import SuspiciousOperation
from mozilla_django_oidc.auth import OIDCAuthenticationBackend

from accounts.oidc import discovery, library, people


class OidcBackend(OIDCAuthenticationBackend):
    get_settings = staticmethod(library.setting)

    def __init__(self, *args, **kwargs):
        # Django makes a backend for every session and permission check; the
        # library's own __init__ reads the endpoints (a request to the
        # provider), so that waits until a sign-in needs them.
        self.UserModel = get_user_model()

    def authenticate(self, request, **kwargs):
        """Only the callback view's call (it passes the nonce) signs in here:
        a password sign-in never reaches the provider."""
        if request is None or "nonce" not in kwargs or not discovery.is_configured():
            return None
        OIDCAuthenticationBackend.__init__(self)
        return super().authenticate(request, **kwargs)

    def get_user(self, user_id):
        # The library's answers for turned-off accounts too; Django's does not.
        return ModelBackend.get_user(self, user_id)

    def verify_token(self, token, **kwargs):
        payload = super().verify_token(token, **kwargs)
        audience = payload.get("aud")
        audiences = audience if isinstance(audience, list) else [audience]
        if (
            payload.get("iss") != discovery.document()["issuer"]
            or settings.OIDC_CLIENT_ID not in audiences
            or "exp" not in payload
        ):
            raise SuspiciousOperation("The ID token was not issued to Weir.")
        return payload

    def get_or_create_user(self, access_token, id_token, payload):
        """The account for the signed-in person, carrying the claims (ID
        token and userinfo together) as `oidc_claims` for the view."""
        claims = dict(payload)
        if self.OIDC_OP_USER_ENDPOINT:
            userinfo = self.get_userinfo(access_token, id_token, payload)
            # OpenID Connect Core 5.3.4: another subject's answer is refused.
            if userinfo.get("sub") != payload.get("sub"):
                raise people.SignInRefused(
                    "subject_mismatch",
                    "The provider's userinfo answer is about someone else.",
                    status=400,
                )
            claims.update(userinfo)
        user = people.account_for(claims)
        # The authentication context is the ID token's own (not userinfo's).
        claims["amr"] = payload.get("amr") or []
        user.oidc_claims = claims
        return user
