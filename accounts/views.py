"""Sign-in and sign-out pages; the throttle is shared with the API's login."""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.contrib.auth.forms import AuthenticationForm
from django.contrib.auth.views import LoginView, LogoutView
from django.shortcuts import redirect, render

from accounts import login_throttle, password_sign_in, sign_in_events
from accounts.oidc import discovery
from accounts.two_factor import service as two_factor
from accounts.two_factor import sign_in as second_step


class ThrottledLoginMixin:
    """Counts each sign-in attempt before the password is checked (see
    `accounts.login_throttle`); over the limit the form says so and
    checks nothing."""

    throttled = False
    needs_code = False

    def clean(self):
        username = self.cleaned_data.get("username")
        if not username or not self.cleaned_data.get("password"):
            return super().clean()
        try:
            attempt = login_throttle.start_attempt(self.request, username)
        except login_throttle.LoginThrottled as throttled:
            self.throttled = True
            minutes = max(1, round(throttled.wait / 60))
            raise forms.ValidationError(
                "Too many failed sign-in attempts. "
                f"Try again in about {minutes} minute{'s' if minutes > 1 else ''}.",
                code="throttled",
            ) from None
        try:
            cleaned = super().clean()
        except forms.ValidationError:
            sign_in_events.sign_in_failed(self.request, username)
            raise
        login_throttle.attempt_succeeded(attempt)
        # With two-factor on, the sign-in happens (and is recorded) after the code.
        self.needs_code = two_factor.is_on(self.get_user())
        if not self.needs_code:
            sign_in_events.signed_in(self.request, self.get_user())
        return cleaned


class SignInForm(ThrottledLoginMixin, AuthenticationForm):
    def confirm_login_allowed(self, user):
        super().confirm_login_allowed(user)
        if not password_sign_in.allows(user):
            raise self.get_invalid_login_error()


class SignInView(LoginView):
    """Django's login page with the shared throttle; 429 while it holds. With
    two-factor on, a right password leads to the code page, not in."""

    form_class = SignInForm
    redirect_authenticated_user = True

    def get_context_data(self, **kwargs):
        return super().get_context_data(
            oidc_on=discovery.is_configured(),
            oidc_name=settings.OIDC_NAME,
            password_sign_in=settings.PASSWORD_SIGN_IN,
            **kwargs,
        )

    def form_valid(self, form):
        if form.needs_code:
            second_step.hold(self.request, form.get_user(), self.get_redirect_url())
            return redirect("login-code")
        return super().form_valid(form)

    def form_invalid(self, form):
        response = super().form_invalid(form)
        if form.throttled:
            response.status_code = 429
        return response


class SignOutView(LogoutView):
    """POST signs out (Django's view); GET asks first instead of answering 405.

    Signing out on a plain GET would let any page log a user out with an
    `<img src="/logout/">`, so GET only shows a confirmation with a POST form.
    """

    http_method_names = ["get", "post", "options"]

    def get(self, request, *args, **kwargs):
        if not request.user.is_authenticated:
            return redirect("login")
        return render(request, "registration/logout.html")
