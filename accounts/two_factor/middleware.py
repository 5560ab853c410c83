"""`REQUIRE_2FA_FOR_STAFF`: a staff account signed in with a session and no
two-factor sign-in reaches nothing but the page that sets it up.

Pages redirect there (with `next`); the API answers 403
`two_factor_setup_required`. Signing out, the sign-in endpoints and static
files stay reachable. Requests signed with a bearer token carry no session
user here and are not held: tokens are the way programs sign in. Nor is a
session begun by a single sign-on whose provider did a second factor itself
(its `amr`): the provider holds that account's second factor.
"""

from __future__ import annotations

from django.conf import settings
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.http import urlencode

from accounts.two_factor import service, sign_in
from core.http.errors import ApiError, error_response_for


class TwoFactorSetupRequired(ApiError):
    status_code = 403
    default_code = "two_factor_setup_required"
    default_detail = (
        "Staff accounts must turn on two-factor sign-in first: "
        "open /account/two-factor/."
    )


def _open_paths() -> tuple[str, ...]:
    return (
        reverse("two-factor"),
        reverse("login"),
        reverse("login-code"),
        reverse("logout"),
        "/api/auth/",
        settings.STATIC_URL,
    )


class RequireStaffTwoFactorMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        user = getattr(request, "user", None)
        if (
            settings.REQUIRE_2FA_FOR_STAFF
            and user is not None
            and user.is_authenticated
            and user.is_staff
            and not request.path.startswith(_open_paths())
            and not service.is_on(user)
            and not sign_in.signed_in_by_provider_mfa(request)
        ):
            if request.path.startswith("/api/"):
                return error_response_for(TwoFactorSetupRequired())
            setup = reverse("two-factor")
            return redirect(f"{setup}?{urlencode({'next': request.get_full_path()})}")
        return self.get_response(request)
