"""The two-factor pages: the code step of `/login/`, the account page that
turns it on and off, and the admin's login (which is `/login/`)."""

from __future__ import annotations

from django.conf import settings
from django.contrib import admin
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_http_methods

from accounts import login_throttle, sign_in_events
from accounts.audit.actor import Actor
from accounts.two_factor import service
from accounts.two_factor import sign_in as second_step


def _safe_next(request, url: str) -> str:
    allowed = url_has_allowed_host_and_scheme(
        url, {request.get_host()}, require_https=request.is_secure()
    )
    return url if url and allowed else settings.LOGIN_REDIRECT_URL


def _too_many(throttled: login_throttle.LoginThrottled, what: str = "") -> str:
    minutes = max(1, round(throttled.wait / 60))
    return (
        f"Too many failed {what}attempts. "
        f"Try again in about {minutes} minute{'s' if minutes > 1 else ''}."
    )


@sensitive_post_parameters("code")
@require_http_methods(["GET", "POST"])
def code_page(request):
    """Step two of `/login/`: the code from the app, or a recovery code."""
    user = second_step.held_user(request)
    if user is None:
        return redirect("login")
    error, status = "", 200
    if request.method == "POST":
        try:
            second_step.check_code(request, user, request.POST.get("code", ""))
        except login_throttle.LoginThrottled as throttled:
            error, status = _too_many(throttled, "sign-in "), 429
        except second_step.WrongCode:
            error, status = "That code is wrong or was used already. Try again.", 400
        else:
            next_url = _safe_next(request, second_step.held_next(request))
            second_step.release(request)
            login(request, user)
            sign_in_events.signed_in(request, user)
            return redirect(next_url)
    return render(
        request, "registration/login_code.html", {"error": error}, status=status
    )


@sensitive_post_parameters("code")
@login_required
@require_http_methods(["GET", "POST"])
def account_page(request):
    """Turn two-factor sign-in on (secret, QR code, first code) or off (a
    code), or replace the recovery codes (a current app code)."""
    user, actor = request.user, Actor.from_request(request)
    next_url = request.GET.get("next", "")
    context = {
        "error": "",
        "recovery_codes": None,
        "next": _safe_next(request, next_url) if next_url else "",
    }
    action = request.POST.get("action") if request.method == "POST" else None
    throttled_status = None
    if action == "start" and not service.is_on(user):
        service.start_setup(user)
    elif action == "cancel":
        service.cancel_setup(user)
    elif action == "confirm":
        codes = service.confirm(user, request.POST.get("code", ""), actor)
        if codes is None:
            context["error"] = (
                "That code is not right. Type the code the app shows now."
            )
        context["recovery_codes"] = codes
    elif action in ("disable", "replace_codes"):
        try:
            attempt = login_throttle.start_attempt(request, user.get_username())
        except login_throttle.LoginThrottled as throttled:
            context["error"], throttled_status = _too_many(throttled), 429
            action = None
    if action == "disable":
        if service.disable(user, request.POST.get("code", ""), actor):
            login_throttle.attempt_succeeded(attempt)
        else:
            service.code_failed(user, actor)
            context["error"] = "That code is wrong or was used already."
    elif action == "replace_codes":
        codes = service.replace_recovery_codes(
            user, request.POST.get("code", ""), actor
        )
        if codes is not None:
            login_throttle.attempt_succeeded(attempt)
        else:
            service.code_failed(user, actor)
            # Shown next to the field it is about, not at the top.
            context["replace_error"] = (
                "That code is wrong or was used already. Type the code the app "
                "shows now (a recovery code cannot make new ones)."
            )
        context["new_recovery_codes"] = codes
    context["on"] = service.is_on(user)
    secret = None if context["on"] else service.pending_secret(user)
    if secret:
        uri = service.provisioning_uri(user, secret)
        context.update(
            secret=secret,
            secret_groups=" ".join(secret[i : i + 4] for i in range(0, len(secret), 4)),
            uri=uri,
            qr=service.qr_svg(uri),
        )
    if context["on"]:
        context["codes_left"] = service.recovery_codes_left(user)
    status = 400 if context["error"] or context.get("replace_error") else 200
    return render(
        request, "accounts/two_factor.html", context, status=throttled_status or status
    )


def admin_login(request, extra_context=None):
    """The admin's login page is `/login/`: one sign-in, with its throttle and
    its code step, for the site and the admin alike."""
    if request.user.is_authenticated:
        if admin.site.has_permission(request):
            return redirect("admin:index")
        raise PermissionDenied("This account may not use the admin.")
    next_url = request.GET.get("next") or reverse("admin:index")
    return redirect_to_login(next_url, settings.LOGIN_URL)
