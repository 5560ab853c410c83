"""`/login/oidc/` starts a single sign-on, `/login/oidc/callback/` ends it.

Both are mozilla-django-oidc's views: the start stores `state`, the nonce and
the PKCE verifier in the session and sends the browser to the provider; the
callback refuses a `state` this session did not start (and uses it once),
then the backend checks the rest. Here: what a person reads when it fails
(a page with the reason, no session), and what happens when it works: the
provider's groups become workspace roles, then two-factor sign-in as usual
unless the provider did a second factor itself, then Weir's session.
"""

from __future__ import annotations

import logging

import requests
from django.conf import settings
from django.contrib import auth
from django.core.exceptions import SuspiciousOperation
from django.http import Http404
from django.shortcuts import redirect, render
from mozilla_django_oidc.views import (
    OIDCAuthenticationCallbackView,
    OIDCAuthenticationRequestView,
)

from accounts import sign_in_events
from accounts.oidc import discovery, group_roles, library
from accounts.oidc.people import SignInRefused
from accounts.two_factor import service as two_factor
from accounts.two_factor import sign_in as second_step

logger = logging.getLogger("weir.oidc")


def refusal_page(request, code: str, message: str, status: int):
    """The error page of a single sign-on that did not sign anyone in."""
    sign_in_events.sign_in_failed(
        request, "(single sign-on)", {"via": "oidc", "code": code}
    )
    context = {"code": code, "message": message, "provider": settings.OIDC_NAME}
    return render(request, "registration/oidc_error.html", context, status=status)


class StartView(OIDCAuthenticationRequestView):
    get_settings = staticmethod(library.setting)

    def __init__(self, *args, **kwargs):
        # The library reads the endpoints here; `get` does, once it knows
        # single sign-on is on.
        super(OIDCAuthenticationRequestView, self).__init__(*args, **kwargs)

    def get(self, request):
        if not discovery.is_configured():
            raise Http404("Single sign-on is not set up.")
        try:
            self.OIDC_OP_AUTH_ENDPOINT = self.get_settings(
                "OIDC_OP_AUTHORIZATION_ENDPOINT"
            )
        except discovery.ProviderUnavailable as error:
            return _unavailable(request, error)
        self.OIDC_RP_CLIENT_ID = self.get_settings("OIDC_RP_CLIENT_ID")
        return super().get(request)


class CallbackView(OIDCAuthenticationCallbackView):
    get_settings = staticmethod(library.setting)

    def get(self, request):
        if not discovery.is_configured():
            raise Http404("Single sign-on is not set up.")
        try:
            return super().get(request)
        except SignInRefused as refused:
            return refusal_page(request, refused.code, refused.message, refused.status)
        except SuspiciousOperation as error:
            logger.warning("Single sign-on refused: %s", error)
            return refusal_page(
                request,
                "sign_in_not_verified",
                "The answer from the provider could not be checked (its state, "
                "nonce or signature is wrong), so nobody was signed in. Start "
                "again from the sign-in page.",
                400,
            )
        except requests.HTTPError as error:
            if error.response is None or error.response.status_code >= 500:
                return _unavailable(request, error)
            logger.warning("The OpenID provider refused the code: %s", error)
            return refusal_page(
                request,
                "code_refused",
                "The provider refused this sign-in's code (used already, or its "
                "PKCE verifier is wrong), so nobody was signed in. Start again "
                "from the sign-in page.",
                400,
            )
        except (requests.RequestException, discovery.ProviderUnavailable) as error:
            return _unavailable(request, error)

    def login_failure(self):
        """The library's answer to a callback it could not use: the provider
        said no (`error`; the library has forgotten the state), or this
        session holds no sign-in in progress."""
        said = self.request.GET.get("error_description") or self.request.GET.get(
            "error"
        )
        if said:
            return refusal_page(
                self.request,
                "provider_refused",
                f"{settings.OIDC_NAME} did not sign you in: {said[:200]}",
                403,
            )
        return refusal_page(
            self.request,
            "sign_in_incomplete",
            "This sign-in was not started here, or took too long. Start again "
            "from the sign-in page.",
            400,
        )

    def login_success(self):
        request, user = self.request, self.user
        claims = user.oidc_claims
        group_roles.apply(user, claims, request)
        next_url = self.success_url
        provider_mfa = second_step.provider_did_mfa(claims.get("amr"))
        if two_factor.is_on(user) and not provider_mfa:
            second_step.hold(request, user, next_url)
            return redirect("login-code")
        auth.login(request, user)
        request.session[second_step.PROVIDER_MFA_KEY] = provider_mfa
        sign_in_events.signed_in(request, user, via="oidc")
        return redirect(next_url)


def _unavailable(request, error):
    logger.warning("The OpenID provider is unavailable: %s", error)
    return refusal_page(
        request,
        "provider_unavailable",
        f"{settings.OIDC_NAME} could not be reached. Try again in a moment.",
        502,
    )
